"""Rewards for RL (issue #11 part 4): ranges, partial credit, the format reward apart from the task reward,
robustness to any text."""
from __future__ import annotations

import json
import random

import pytest

from jigsaw_puzzles.training.rewards import adjacency_reward, combine, exact_reward, format_reward, position_reward

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


@pytest.mark.slow
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
    from jigsaw_puzzles.training.rewards import track
    from jigsaw_puzzles.training.stream import Curriculum

    cur = Curriculum([{"order_generation": 1}, {"order_restoration": 1}], threshold=0.5, window=2)
    logged = {}
    fn = track(position_reward, cur)
    out = fn(prompts=None, completions=[REF, "[2, 3, 4, 1]"], answer=[REF, REF], config=[OG, OG],
             log_metric=lambda name, value: logged.setdefault(name, value))
    assert out == [1.0, 0.5] and fn.__name__ == "position_reward"
    assert logged == {"position_reward/order_generation": 0.75}
    assert cur.stage == 1  # mean 0.75 over a window of 2 >= 0.5


# ----------------------------------------------------------------------------- issue #20 items 7, 8, 9

from itertools import permutations  # noqa: E402

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from jigsaw_puzzles.scoring.extraction import PARSED, classify_response  # noqa: E402
from jigsaw_puzzles.training.rewards import track  # noqa: E402
from jigsaw_puzzles.spec import (ANOMALY, CHOICE, ORDER, ORIENTED, ROTATIONS, anomaly_answers, format_oriented,  # noqa: E402
                                 get, parse_reference)
from jigsaw_puzzles.training.trl_helpers import jigsaw_reward, make_jigsaw_reward  # noqa: E402

ROT = "order_generation_2x2_rot"


def test_invalid_answers_earn_no_partial_credit():
    """A lone "Judgment: B" earned 1/3, a 45-degree turn 3/4: not valid answers, so 0.0 (the unreadable value)."""
    ad = "Judgment: B\nError Position: C\nError Type: A"
    for fn in ALL:
        assert call(fn, ["Judgment: B", "Judgment: B\nError Position: C"], ad, AD) == [0.0, 0.0], fn.__name__
    rot = "[(2, 90), (3, 0), (1, 270), (4, 180)]"
    for fn in (position_reward, adjacency_reward, format_reward):
        assert call(fn, ["[(2, 90), (3, 0), (1, 270), (4, 45)]", "[(2, 90), (2, 0), (1, 270), (4, 180)]"], rot,
                    ROT) == [0.0, 0.0], fn.__name__
    assert call(position_reward, ["[(2, 90), (3, 0), (4, 180), (1, 270)]"], rot, ROT) == [0.5]  # valid: partial


def test_references_are_read_like_score_reads_them():
    for ref, cfg in (("[2,3,1,4]", OG), (" [ 2 , 3 , 1 , 4 ] \r\n", OG), ("b", CH),
                     ("Judgment: B\r\nError Position: C\r\nError Type: A\r\n", AD)):
        canonical = parse_reference(ref, cfg)
        for fn in ALL + (jigsaw_reward,):
            assert call(fn, [canonical], ref, cfg) == [1.0], (fn.__name__, ref)


def test_misaligned_columns_are_an_error_never_truncated_or_padded():
    three = [REF, "[2, 3, 4, 1]", "[1, 2, 3, 4]"]
    for fn in ALL:
        for kw in ({"answer": [REF] * 2, "config": [OG] * 3}, {"answer": [REF] * 3, "config": [OG] * 2},
                   {"answer": [REF] * 3, "id": ["order_generation/00ff00ff00ff00ff"] * 4},
                   {"answer": REF, "config": OG, "options": [None] * 2},
                   {"answer": REF, "config": OG, "metadata": ["{}"] * 4},
                   {"answer": REF, "config": OG, "prompts": ["q"] * 2}):
            with pytest.raises(ValueError, match="for 3 completions"):
                fn(completions=three, **kw)
    assert position_reward(completions=three, answer=REF, config=OG) == [1.0, 0.5, 0.25]  # one value for all: fine

    def short(prompts=None, completions=(), **kwargs):
        return position_reward(prompts=prompts, completions=completions, **kwargs)[:-1]

    for wrapped in (combine((position_reward, 1.0), (short, 1.0)), track(short)):
        with pytest.raises(ValueError, match="returned 2 rewards for 3 completions"):
            wrapped(completions=three, answer=REF, config=OG)
    with pytest.raises(ValueError, match=r"\(reward, weight\) pairs"):
        combine(position_reward, format_reward)
    with pytest.raises(ValueError, match="list with one entry per completion"):
        exact_reward(completions=REF, answer=REF, config=OG)  # one string is not 12 completions


def test_a_metadata_grid_that_cannot_hold_the_order_is_a_data_error():
    with pytest.raises(ValueError, match="metadata grid 3x3"):
        call(adjacency_reward, ["[1, 4, 2, 3]"], REF, OG, metadata=[json.dumps({"grid": [3, 3]})])


def test_track_takes_one_config_string_or_one_per_completion():
    for config in (OG, [OG, OG]):
        logged = {}
        track(position_reward)(completions=[REF, "[2, 3, 4, 1]"], answer=REF, config=config,
                               log_metric=lambda name, value: logged.setdefault(name, value))
        assert logged == {"position_reward/order_generation": 0.75}  # not one metric per character
    with pytest.raises(ValueError, match="for 2 completions"):
        track(position_reward)(completions=[REF, REF], answer=REF, config=[OG] * 3)


# Property tests: every config kind, references in every spelling parse_reference accepts.
PROPERTY_CONFIGS = ("missing_piece_selection_easy", "piece_localization_easy", "piece_localization_hard",
                    "connection_verification", "connection_verification_3x3_8dir", "order_restoration", AD,
                    "anomaly_detection_2x3", OG, "order_generation_3x3", "order_generation_1x3", ROT,
                    "order_generation_1x3_rot",
                    # interlocking pieces (#34): the answers of their straight configs
                    "order_generation_3x3_tabs", "order_generation_2x2_rot_tabs", "order_restoration_tabs_silhouette",
                    "connection_verification_tabs", "anomaly_detection_tabs", "missing_piece_selection_easy_tabs_own",
                    # and the content controls (#45)
                    "order_generation_3x3_tabs_content", "anomaly_detection_tabs_content",
                    "connection_verification_3x3_8dir_tabs_content")


@st.composite
def valid_answer(draw, cfg):
    spec = get(cfg)
    if spec.kind == CHOICE:
        return draw(st.sampled_from(spec.letters))
    if spec.kind == ANOMALY:
        return draw(st.sampled_from(anomaly_answers(spec.num_options)))
    order = draw(st.permutations(range(1, spec.order_length + 1)))
    if spec.kind == ORDER:
        return "[" + ", ".join(map(str, order)) + "]"
    return format_oriented(order, draw(st.lists(st.sampled_from(ROTATIONS), min_size=len(order),
                                                max_size=len(order))))


@st.composite
def spelling(draw, answer, cfg):
    """``answer`` as a data file might hold it: any case, spaces, CRLF, blank lines."""
    kind = get(cfg).kind
    pad = st.sampled_from(["", " ", "  ", "\t"])
    end = st.sampled_from(["", "\n", "\r\n", " \r\n", "\r"])
    if kind == CHOICE:
        return draw(pad) + draw(st.sampled_from([answer, answer.lower()])) + draw(end)
    if kind == ANOMALY:
        lines = []
        for line in answer.split("\n"):
            head, _, value = line.partition(":")
            head = draw(st.sampled_from([head, head.lower(), head.upper()]))
            value = draw(st.sampled_from([value, value.lower()])) + draw(pad)
            lines.append(draw(pad) + head + ":" + value)
        return draw(st.sampled_from(["\n", "\r\n", "\n\n"])).join(lines) + draw(end)
    sep = draw(st.sampled_from([", ", ",", " , "]))
    body = answer[1:-1].split(", (") if kind == ORIENTED else answer[1:-1].split(", ")
    if kind == ORIENTED:
        body = [p if p.startswith("(") else "(" + p for p in body]
        body = [p.replace(", ", draw(st.sampled_from([",", ", ", " ,"]))) for p in body]
    return draw(pad) + "[" + draw(pad) + sep.join(body) + draw(pad) + "]" + draw(end)


INVALID_TEXT = st.sampled_from(["", "no idea", "A or B", "Judgment: B", "Judgment: A\nError Position: C\nError Type: A",
                                "Z", "[1, 1, 2, 3]", "[2, 3, 1]", "[(2, 45), (1, 0), (3, 90)]",
                                "[(1, 0), (1, 90), (2, 0), (3, 0)]", "[1, 2, 3, 4, 5, 6, 7, 8, 8]",
                                "<answer></answer>"])


@st.composite
def case(draw):
    cfg = draw(st.sampled_from(PROPERTY_CONFIGS))
    ref = draw(valid_answer(cfg))
    completion = draw(st.one_of(valid_answer(cfg), INVALID_TEXT, st.text(max_size=40),
                                st.builds(lambda a, b: a + b, st.text(max_size=20), valid_answer(cfg))))
    return cfg, ref, draw(spelling(ref, cfg)), completion


REWARDS = ALL + (jigsaw_reward, make_jigsaw_reward(partial_credit=True))


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case())
def test_property_invalid_answers_get_exactly_the_unreadable_value_and_valid_ones_no_less(c):
    cfg, ref, spelled, completion = c
    assert parse_reference(spelled, cfg) == ref  # the spelling is one parse_reference accepts
    valid = classify_response(completion, cfg).status == PARSED
    for fn in REWARDS:
        (value,) = call(fn, [completion], spelled, cfg)
        assert 0.0 <= value <= 1.0, fn.__name__
        if not valid:
            assert value == 0.0, (fn.__name__, completion)  # the unreadable value, exactly
        # the reference itself, however it was written, as the reference and as the answer
        assert call(fn, [ref, spelled], spelled, cfg) == [1.0, 1.0], (fn.__name__, ref, spelled)


@settings(max_examples=120, deadline=None)
@given(case(), st.floats(-2, 0), st.floats(0, 1), st.floats(0.01, 2))
def test_property_shaped_rewards_keep_unreadable_below_every_valid_answer(c, unreadable, gap, top):
    cfg, ref, spelled, completion = c
    wrong = unreadable + gap
    correct = wrong + top
    fn = make_jigsaw_reward(correct=correct, wrong=wrong, unreadable=unreadable, partial_credit=True)
    (value,) = fn([completion], answer=[spelled], config=[cfg])
    ex = classify_response(completion, cfg)
    if ex.status != PARSED:
        assert value == unreadable
    else:
        assert wrong - 1e-9 <= value <= correct + 1e-9 and (value == correct) == (ex.answer == ref)
    assert fn([ref], answer=[spelled], config=[cfg]) == [correct]


def test_every_valid_order_of_a_2x2_earns_at_least_the_unreadable_value():
    for order in permutations([1, 2, 3, 4]):
        text = "[" + ", ".join(map(str, order)) + "]"
        for fn in (position_reward, adjacency_reward):
            assert 0.0 <= call(fn, [text], REF, OG)[0] <= 1.0
