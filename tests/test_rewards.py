"""Rewards for RL (issue #11 part 4): ranges, partial credit, the format reward apart from the task reward,
robustness to any text."""
from __future__ import annotations

import json
import random

import pytest

from jigsaw_puzzles.rewards import adjacency_reward, combine, exact_reward, format_reward, position_reward

OG = "order_generation"
AD = "anomaly_detection"
CH = "order_restoration"
REF = "[2, 3, 1, 4]"
ALL = (exact_reward, position_reward, adjacency_reward, format_reward)


def call(fn, completions, answer, config, **kw):
    return fn(prompts=["q"] * len(completions), completions=completions, answer=[answer] * len(completions),
              config=[config] * len(completions), **kw)


def test_a_half_right_2x2_order_earns_half_the_partial_reward():
    # regions 0 and 1 right, 2 and 3 swapped
    assert call(position_reward, ["[2, 3, 4, 1]"], REF, OG) == [0.5]
    assert call(exact_reward, ["[2, 3, 4, 1]"], REF, OG) == [0.0]
    assert call(position_reward, [REF, "[3, 2, 4, 1]"], REF, OG) == [1.0, 0.0]
    assert call(position_reward, ["[2, 2, 1, 4]"], REF, OG) == [0.0]  # not a permutation: nothing


def test_adjacency_credits_a_right_block_in_the_wrong_place():
    # true layout (2x2): top 2 3, bottom 1 4 -> pairs (2,3,h) (1,4,h) (2,1,v) (3,4,v)
    assert call(adjacency_reward, [REF], REF, OG) == [1.0]
    # rows swapped: top 1 4, bottom 2 3 -> keeps both horizontal pairs, loses both vertical ones
    assert call(adjacency_reward, ["[1, 4, 2, 3]"], REF, OG) == [0.5]
    # a 1x4 strip given through the metadata: true 2 3 1 4 -> pairs (2,3) (3,1) (1,4)
    meta = [json.dumps({"grid": [1, 4]})]
    assert call(adjacency_reward, ["[3, 1, 4, 2]"], REF, OG, metadata=meta) == [pytest.approx(2 / 3)]


def test_a_wrongly_formatted_right_answer_earns_the_task_reward_but_not_the_format_reward():
    for text in ("The answer is [2, 3, 1, 4] because the roof continues.", "Order: 2 3 1 4"):
        assert call(exact_reward, [text], REF, OG) == [1.0]
        assert call(position_reward, [text], REF, OG) == [1.0]
        assert call(format_reward, [text], REF, OG) == [0.0]
    for text in (REF, "[2,3,1,4]\n", "Let me think. The sky is on top.<answer>[2, 3, 1, 4]</answer>"):
        assert call(format_reward, [text], REF, OG) == [1.0]
    assert call(format_reward, ["[1, 2, 3, 4]"], REF, OG) == [1.0]  # well formatted, wrong: format only
    assert call(exact_reward, ["[1, 2, 3, 4]"], REF, OG) == [0.0]
    assert call(format_reward, ["B", "b", "(B)", "The answer is B"], "B", CH) == [1.0, 1.0, 0.0, 0.0]
    assert call(format_reward, ["E"], "B", CH) == [0.0]  # not an option


def test_anomaly_partial_credit_counts_the_three_fields():
    ref = "Judgment: B\nError Position: C\nError Type: A"
    assert call(position_reward, [ref], ref, AD) == [1.0]
    assert call(position_reward, ["Judgment: B\nError Position: C\nError Type: B"], ref, AD) == [pytest.approx(2 / 3)]
    assert call(position_reward, ["Judgment: A\nError Position:\nError Type:"], ref, AD) == [0.0]
    assert call(format_reward, [ref, "B C A"], ref, AD) == [1.0, 0.0]


def test_combine_weights_and_names():
    both = combine((position_reward, 1.0), (format_reward, 0.5))
    assert both.__name__ == "jigsaw_combined"
    assert call(both, ["[2, 3, 4, 1]", "The order is [2, 3, 1, 4].", REF], REF, OG) == [1.0, 1.0, 1.5]
    with pytest.raises(ValueError):
        combine()


def test_conversational_completions_and_the_config_from_the_row_id():
    completions = [[{"role": "assistant", "content": [{"type": "text", "text": "[2, 3, 1, 4]"}]}],
                   [{"role": "assistant", "content": "B"}]]
    out = exact_reward(prompts=None, completions=completions, answer=[REF, "B"],
                       id=["order_generation/abc", "order_restoration/def"])
    assert out == [1.0, 1.0]


def test_never_raise_on_any_completion_and_bounded_on_a_megabyte_of_garbage():
    rng = random.Random(0)
    garbage = "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(1 << 20))
    odd = [garbage, "", None, 17, {"role": "assistant"}, [{"content": None}], "\\boxed{" * 50000,
           "<answer>" * 1000, "[" * 100000, "Judgment:" * 10000]
    for fn in ALL:
        for config, ref in ((OG, REF), (CH, "C"), (AD, "Judgment: A\nError Position:\nError Type:")):
            values = call(fn, odd, ref, config)
            assert len(values) == len(odd) and all(0.0 <= v <= 1.0 for v in values)


def test_a_malformed_reference_is_a_data_error():
    with pytest.raises(ValueError):
        call(exact_reward, ["B"], "[1, 1, 2, 3]", OG)


def test_track_logs_per_config_and_feeds_a_curriculum():
    from jigsaw_puzzles.rewards import track
    from jigsaw_puzzles.stream import Curriculum

    cur = Curriculum([{"order_generation": 1}, {"order_restoration": 1}], threshold=0.5, window=2)
    logged = {}
    fn = track(position_reward, cur)
    out = fn(prompts=None, completions=[REF, "[2, 3, 4, 1]"], answer=[REF, REF], config=[OG, OG],
             log_metric=lambda name, value: logged.setdefault(name, value))
    assert out == [1.0, 0.5] and fn.__name__ == "position_reward"
    assert logged == {"position_reward/order_generation": 0.75}
    assert cur.stage == 1  # mean 0.75 over a window of 2 >= 0.5
