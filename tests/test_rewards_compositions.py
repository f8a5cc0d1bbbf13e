"""The rewards read answers by the same rule as score() (issue #27 section 3): over the generated compositions
(tests/_compositions.py), no composition earns more than its clean stated answer alone, and a composition that
keeps two answers open, withdraws its answer or hedges earns nothing."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jigsaw_puzzles as jp
from _compositions import FAMILIES, answers, canonical, compositions
from jigsaw_puzzles.spec import get

REWARDS = (jp.rewards.exact_reward, jp.rewards.position_reward, jp.rewards.adjacency_reward)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_no_composition_earns_more_than_its_clean_answer(family):
    @settings(max_examples=40, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        c = data.draw(compositions(family))
        ref = canonical(c.config, data.draw(answers(c.config))[0])  # a reference the composition may or may not hit
        for fn in REWARDS:
            got, clean = fn(completions=[c.text, c.statement], answer=[ref, ref], config=[c.config, c.config])
            assert got <= clean, (fn.__name__, c, ref)
            if c.verdict is None:
                assert got == 0.0, (fn.__name__, c)  # a hedge, an alternative, a withdrawal alone never earns

    run()


def test_a_hedge_never_earns_even_when_one_side_is_right():
    for config in ("piece_localization_hard", "order_generation_2x3", "anomaly_detection"):
        spec = get(config)
        ref = {"choice": "B", "order": "[1, 2, 3, 4, 5, 6]"}.get(spec.kind, "Judgment: B\nError Position: C\nError Type: A")
        other = {"choice": "D", "order": "[2, 1, 3, 4, 5, 6]"}.get(spec.kind, "Judgment: A")
        for text in (f"Answer: {ref}\nOr maybe {other}.", f"Answer: {ref}\nAlternative answer: {other}",
                     f"{ref}\nWait, that's wrong."):
            for fn in REWARDS:
                assert fn(completions=[text], answer=[ref], config=[config]) == [0.0], (fn.__name__, text)
