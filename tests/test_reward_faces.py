"""Every reward face under one type rule and in its documented range (#32.5.3): ``jp.rewards``, ``jp.jigsaw_reward``,
verl's ``compute_score`` and the verifiers rubric, given completions of every type, never pay more than ``jp.score``
gives the same text, and their weights are finite and bounded."""
from __future__ import annotations

import asyncio
import math
import types

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import jigsaw_puzzles as jp
from jigsaw_puzzles.integrations.verl import compute_score
from jigsaw_puzzles.scoring.extraction import PARSED
from jigsaw_puzzles.training.rewards import adjacency_reward, combine, exact_reward, format_reward, position_reward
from jigsaw_puzzles.training.trl_helpers import completion_text, make_jigsaw_reward

CASES = [("order_generation", "[2, 3, 1, 4]", None), ("order_restoration", "B", None),
         ("anomaly_detection", "Judgment: B\nError Position: C\nError Type: A", None),
         ("order_generation_2x2_rot", "[(2, 90), (3, 0), (1, 180), (4, 270)]", None),
         ("connection_verification", "C", None), ("piece_localization_easy", "A", None),
         # interlocking pieces (#34): every face reads a tab config as its straight config
         ("order_generation_tabs", "[2, 3, 1, 4]", None),
         ("order_generation_2x2_rot_tabs", "[(2, 90), (3, 0), (1, 180), (4, 270)]", None),
         ("anomaly_detection_tabs", "Judgment: B\nError Position: C\nError Type: A", None)]
#: Exact-credit faces: never 1 where jp.score says wrong. The others pay partial or format credit only for text
#: jp.score reads as a valid answer.
EXACT = ("exact_reward", "jigsaw_reward", "acc", "correct")


def _texts(ref: str):
    near = st.sampled_from([ref, ref.lower(), f"The answer is {ref}.", f"<answer>{ref}</answer>", ref + " " * 16_400,
                            "[2, 3, 4, 1]", "A", "D", "maybe A or B", "", "   ", "[1, 1, 2, 3]",
                            "Judgment: A\nError Position:\nError Type:"])
    return st.one_of(near, st.text(max_size=30))


@st.composite
def completion(draw, ref: str):
    """A completion of any type: text, TRL's chat forms (content as a string or as parts), and what a trainer or a
    bug may hand over (a list of strings, a dict, bytes, None, numbers, messages with junk content)."""
    text = draw(_texts(ref))
    junk = st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.binary(max_size=8),
                     st.lists(st.text(max_size=4), max_size=2),
                     st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2))
    return draw(st.one_of(
        st.just(text), st.just(text.encode()), st.just([text]), st.just({"role": "assistant", "content": text}),
        st.just([{"role": "assistant", "content": text}]),
        st.just([{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "text", "text": text}]}]),
        st.just([{"role": "assistant", "content": None, "tool_calls": []}, {"role": "tool", "content": "board"},
                 {"role": "assistant", "content": text}]),
        st.builds(lambda j: [{"role": "assistant", "content": j}], junk), junk))


def _faces(comp, cfg: str, ref: str, weight: float) -> dict[str, tuple[float, float, float]]:
    """``{face: (value, low, high)}``: each face's value on ``comp`` and its documented range."""
    cols = {"answer": [ref], "config": [cfg]}
    out = {fn.__name__: (fn(completions=[comp], **cols)[0], 0.0, 1.0)
           for fn in (exact_reward, position_reward, adjacency_reward, format_reward)}
    out["jigsaw_reward"] = (jp.jigsaw_reward(completions=[comp], **cols)[0], 0.0, 1.0)
    shaped = make_jigsaw_reward(correct=1.0, wrong=0.0, unreadable=-0.5, partial_credit=True)
    out["shaped"] = (shaped(completions=[comp], **cols)[0], -0.5, 1.0)
    mixed = combine((position_reward, 1.0), (format_reward, weight))
    out["combine"] = (mixed(completions=[comp], **cols)[0], 0.0, 1.0 + weight)
    verl = compute_score(cfg, comp, ref, reward="position", format_weight=weight)
    out.update({f"verl_{k}": (v, 0.0, 1.0 + weight if k == "score" else 1.0) for k, v in verl.items()})
    out["acc"] = out.pop("verl_acc")
    try:
        from jigsaw_puzzles.integrations.verifiers_env import JigsawData, JigsawTask, JigsawTaskConfig
    except ImportError:  # the verifiers extra is not installed
        return out
    data = JigsawData(id=f"{cfg}/x", name="x", prompt=[{"role": "user", "content": "q"}], answer=ref, config=cfg)
    task, trace = JigsawTask(data, JigsawTaskConfig(format_weight=weight)), types.SimpleNamespace(last_reply=comp)
    for name, high in (("reward", 1.0), ("format_reward", weight), ("correct", 1.0)):
        out[f"verifiers_{name}" if name != "correct" else "correct"] = (
            asyncio.run(getattr(task, name)(data, trace)), 0.0, high)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(CASES).flatmap(lambda c: st.tuples(st.just(c), completion(c[1]))),
       st.floats(0.0, 1.0))
def test_every_face_is_finite_bounded_and_never_pays_above_what_jp_score_gives_the_same_text(case, weight):
    (cfg, ref, options), comp = case
    (ex, right), = jp.score_items([completion_text(comp)], [ref], [cfg], [options])
    for face, (value, low, high) in _faces(comp, cfg, ref, weight).items():
        assert isinstance(value, float) and math.isfinite(value) and low <= value <= high, (face, comp, value)
        if ex.status != PARSED:  # jp.score reads no answer: no face pays (the shaped reward's unreadable value)
            assert value == low, (face, comp, value)
        if face in EXACT:
            assert value <= float(right), (face, comp)


@pytest.mark.parametrize("comp", [["[2, 3, 1, 4]"], {"text": "[2, 3, 1, 4]"}, b"[2, 3, 1, 4]",
                                  ("[2, 3, 1, 4]",), {"role": "assistant", "content": "[2, 3, 1, 4]"}])
def test_verl_pays_nothing_for_a_response_that_is_not_text(comp):
    """verl's compute_score gave 1.0 to ``["[2, 3, 1, 4]"]``, a dict or bytes (it read their ``str()``)."""
    scores = compute_score("order_generation", comp, "[2, 3, 1, 4]", reward="position", format_weight=0.5)
    assert scores == {"score": 0.0, "acc": 0.0, "position": 0.0, "adjacency": 0.0, "format": 0.0}
    chat = [{"role": "assistant", "content": "[2, 3, 1, 4]"}]  # TRL's conversational form is read, on every face
    assert compute_score("order_generation", chat, "[2, 3, 1, 4]")["acc"] == 1.0
    assert position_reward(completions=[chat], answer=["[2, 3, 1, 4]"], config=["order_generation"]) == [1.0]


@pytest.mark.parametrize("weight", [float("nan"), float("inf"), -0.1, 1.5, 1e9, True, "0.2", None])
def test_weights_outside_zero_to_one_are_refused_on_every_face(weight):
    """``format_weight`` took NaN, negatives and 1e9 (a score of 1e9 + 1)."""
    with pytest.raises(ValueError, match=r"must be a finite number in \[0, 1\]"):
        compute_score("order_generation", "[2, 3, 1, 4]", "[2, 3, 1, 4]", format_weight=weight)
    with pytest.raises(ValueError, match=r"must be a finite number in \[0, 1\]"):
        combine((position_reward, 1.0), (format_reward, weight))
    try:
        from jigsaw_puzzles.integrations.verifiers_env import JigsawTaskConfig
    except ImportError:
        return
    if weight is not None and not isinstance(weight, (bool, str)):
        with pytest.raises(ValueError):
            JigsawTaskConfig(format_weight=weight)


def test_combine_refuses_a_reward_that_returns_a_non_finite_value():
    def broken(prompts=None, completions=(), **kwargs):
        return [float("nan")] * len(completions)

    with pytest.raises(ValueError, match="not a finite number"):
        combine((broken, 1.0))(completions=["x"], answer=["A"], config=["order_restoration"])


SPACES = "[2, 3, 1, 4]" + " " * 16_400  # the right answer, then more blank than the reader's window


def test_format_reward_reads_through_the_scorers_own_window():
    """format_reward trimmed the text before the reader cut its window, so it paid 1.0 for a response jp.score
    found empty; now both read it the same way (and the reader trims before it cuts: both read it)."""
    (ex, _), = jp.score_items([SPACES], ["[2, 3, 1, 4]"], ["order_generation"])
    paid = format_reward(completions=[SPACES], answer=["[2, 3, 1, 4]"], config=["order_generation"])[0]
    assert paid == (1.0 if ex.status == PARSED else 0.0)


def test_a_right_answer_followed_by_blanks_is_read_and_paid():
    assert jp.score([SPACES], ["[2, 3, 1, 4]"], ["order_generation"])["order_generation"]["accuracy"] == 100.0
    assert format_reward(completions=[SPACES], answer=["[2, 3, 1, 4]"], config=["order_generation"]) == [1.0]
