"""Answer extraction: a table of realistic responses per task, plus property-based tests."""
import re

import pytest
from hypothesis import assume, HealthCheck, given, settings
from hypothesis import strategies as st

from jigsaw_puzzles.scoring.extraction import (
    AMBIGUOUS,
    INVALID,
    PARSED,
    classify_response,
    config_from_id,
    extract_answer,
)
from jigsaw_puzzles.spec import CONFIGS as TASKS

MPS, MPSH = "missing_piece_selection_easy", "missing_piece_selection_hard"
PLE, PLH = "piece_localization_easy", "piece_localization_hard"
CV, AD, OR, OG = "connection_verification", "anomaly_detection", "order_restoration", "order_generation"
AD_OK = "Judgment: A\nError Position:\nError Type:"
AD_CA = "Judgment: B\nError Position: C\nError Type: A"

# (response, config, expected answer or None, expected status)
CASES = [
    # -- multiple choice, short forms
    ("B", MPS, "B", PARSED),
    ("B.", MPS, "B", PARSED),
    ("(B)", MPS, "B", PARSED),
    ("**B**", MPS, "B", PARSED),
    ("  b  ", MPS, "B", PARSED),
    ("[C]", MPSH, "C", PARSED),
    ("Option D", MPSH, "D", PARSED),
    ("Ｃ", MPS, "C", PARSED),  # full-width letter
    ("B) Candidate 2", MPS, "B", PARSED),
    ("B. Candidate 2 (the third input image)", MPS, "B", PARSED),
    ("The answer is B", MPS, "B", PARSED),
    ("Answer: B) Candidate 2", MPS, "B", PARSED),
    ("Final answer: (C)", MPSH, "C", PARSED),
    ("The correct option is D.", MPSH, "D", PARSED),
    ("I choose B because its texture matches.", MPS, "B", PARSED),
    ("Candidate 3 fills the blank.", MPS, "C", PARSED),
    ("$\\boxed{B}$", MPS, "B", PARSED),
    ("\\boxed{\\text{C}}", PLH, "C", PARSED),
    ("```python\nprint('B')\n```", PLE, "B", PARSED),
    ('answer = "A"\nprint(answer)', PLE, "A", PARSED),
    ("<answer>D</answer>", PLH, "D", PARSED),
    # -- reasoning traces: the final answer wins
    (
        "Let me compare. Candidate A has sky, B has grass.\nAt first the answer is A, but the edges fit better"
        " with the third image.\nFinal answer: B",
        MPS, "B", PARSED,
    ),
    ("The answer is A. Wait, re-checking the seam... the answer is C.", MPSH, "C", PARSED),
    ("Looking at the masked areas, the piece shows a roof.\n\nA", PLE, "A", PARSED),
    ("Step 1: check edges.\nStep 2: compare colours.\n**D**", PLH, "D", PARSED),
    ("The texture continues the river, so it corresponds to B.", PLE, "B", PARSED),  # #43: reasoning before a link
    ("Option B is correct.", PLH, "B", PARSED),
    ("<think>\nMaybe A? The colours match B better.\n</think>\n\nB", PLE, "B", PARSED),
    # the reasoning concludes A, the answer says C: the text contradicts itself (#43: not read)
    ("<think>The answer is A.</think>The answer is C.", PLH, None, AMBIGUOUS),
    ("<think>The answer is A. Wait, the roof continues into C.</think>The answer is C.", PLH, "C", PARSED),
    ("<think>Maybe A, maybe C.</think>The answer is C.", PLH, "C", PARSED),
    # -- article "A" is never an answer on its own
    ("A good guess is that the piece belongs to the top region.", PLH, None, INVALID),
    ("A careful look shows it is B.", PLH, None, AMBIGUOUS),  # #32: "careful", "look", "shows" are unknown
    ("Answer: A good question, hard to say.", PLH, None, INVALID),
    # -- ambiguous / invalid
    ("A or B", PLE, None, AMBIGUOUS),
    ("The answer is A or B.", PLE, None, AMBIGUOUS),
    ("It could be B, but C also fits.", PLH, None, AMBIGUOUS),
    ("C", PLE, None, INVALID),  # outside Piece Localization Easy's A/B
    ("Answer: E", MPS, None, INVALID),
    ("D", CV, None, INVALID),
    ("I cannot determine this from the images.", PLH, None, INVALID),
    ("", MPS, None, INVALID),
    (None, MPS, None, INVALID),
    ("<think>Let me think, the answer might be", MPS, None, INVALID),  # truncated trace
    ("<think>The answer is B.</think>", MPS, None, INVALID),  # nothing after the trace
    # -- connection verification by option text
    ("A. The two images are adjacent horizontally (left-right relationship)", CV, "A", PARSED),
    ("The two images are adjacent vertically.", CV, "B", PARSED),
    ("They are not adjacent in the original image.", CV, "C", PARSED),
    ("C", CV, "C", PARSED),
    # -- anomaly detection
    (AD_CA, AD, AD_CA, PARSED),
    ("Judgment: B Error Position: C Error Type: A", AD, AD_CA, PARSED),
    ("Judgment: B, Error Position: C, Error Type: A", AD, AD_CA, PARSED),
    ("**Judgment:** B\n**Error Position:** C\n**Error Type:** A", AD, AD_CA, PARSED),
    ("Judgment: B\nError Position: Bottom-left\nError Type: Rotation", AD, AD_CA, PARSED),
    ("B\nC\nA", AD, AD_CA, PARSED),
    ("B C A", AD, AD_CA, PARSED),
    (AD_OK, AD, AD_OK, PARSED),
    ("Judgment: A Error Position: Error Type:", AD, AD_OK, PARSED),
    ("Judgment: A\nError Position: None\nError Type: N/A", AD, AD_OK, PARSED),
    ("A", AD, AD_OK, PARSED),
    (
        "The top-right tile looks rotated... no, it is the bottom-left one.\nJudgment: B\nError Position: C\n"
        "Error Type: A",
        AD, AD_CA, PARSED,
    ),
    ("Judgment: A\nError Position: B\nError Type: A", AD, None, INVALID),  # contradictory
    ("Judgment: B", AD, None, INVALID),  # incomplete
    ("Judgment: B\nError Position: C\nError Type:", AD, None, INVALID),
    ("Everything looks fine to me.", AD, "Judgment: A\nError Position:\nError Type:", PARSED),  # as "looks normal"
    ("Nothing looks rotated.", AD, None, INVALID),  # says nothing of mirroring
    # -- order generation
    ("[2, 3, 1, 4]", OG, "[2, 3, 1, 4]", PARSED),
    ("[2,3,1,4]", OG, "[2, 3, 1, 4]", PARSED),
    ("2, 3, 1, 4", OG, "[2, 3, 1, 4]", PARSED),
    ("2 3 1 4", OG, "[2, 3, 1, 4]", PARSED),
    ("(4, 1, 3, 2)", OG, "[4, 1, 3, 2]", PARSED),
    ("The correct order is [3, 1, 4, 2].", OG, "[3, 1, 4, 2]", PARSED),
    ("```python\nprint([2, 3, 1, 4])\n```", OG, "[2, 3, 1, 4]", PARSED),
    ("Image 2 is the sky, image 1 the left field.\nFirst guess [1, 2, 3, 4], refined:\n[2, 1, 4, 3]", OG,
     "[2, 1, 4, 3]", PARSED),
    ("top-left: 2, top-right: 3, bottom-left: 1, bottom-right: 4", OG, "[2, 3, 1, 4]", PARSED),
    ("<think>[1, 2, 3, 4]? no.</think>\n[4, 3, 2, 1]", OG, "[4, 3, 2, 1]", PARSED),
    ("\\boxed{[1, 3, 2, 4]}", OG, "[1, 3, 2, 4]", PARSED),
    ("[1, 2, 2, 4]", OG, None, INVALID),
    ("[0, 1, 2, 3]", OG, None, INVALID),
    ("[1, 2, 3]", OG, None, INVALID),
    ("I am not sure.", OG, None, INVALID),
    # -- order restoration answered with a list but no options known
    ("[2, 3, 1, 4]", OR, None, INVALID),
    ("B", OR, "B", PARSED),
    # -- per-option verdict lists: exactly one option judged correct is the answer, none or several is ambiguous
    ("A: incorrect\nB: correct\nC: incorrect\nD: incorrect", MPS, "B", PARSED),
    ("A: no. B: no. C: yes. D: no.", MPSH, "C", PARSED),
    ("(A) \u2717 (B) \u2713", PLE, "B", PARSED),
    ("A - wrong\nB - right\nC - wrong", CV, "B", PARSED),
    ("Option A: false\nOption B: true", PLE, "B", PARSED),
    ("Checking each option.\nA: no, the sky does not continue.\nB: no.\nC: yes, the roofline continues.\nD: no.",
     OR, "C", PARSED),  # #43: a verdict may carry its reason
    ("Checking each option.\nA: no, the sky does not continue.\nB: no.\nC: yes.\nD: no.", OR, "C", PARSED),
    ("A: correct\nB: correct\nC: incorrect\nD: incorrect", PLH, None, AMBIGUOUS),
    ("A: incorrect\nB: incorrect\nC: incorrect\nD: incorrect", MPS, None, AMBIGUOUS),
    ("A: no\nB: yes\nC: no\nD: no\nFinal answer: C", OR, None, AMBIGUOUS),  # #43: B judged yes, then C: two answers
    # -- markers are line-bounded: "correct\nOption D" is no marker for D
    ("Option C: correct\nOption D: wrong", MPS, "C", PARSED),
    ("Candidates for the correct answer\nA) sky\nB) grass\nBoth look plausible.", PLE, None, AMBIGUOUS),
    ("The answer is:\nB", PLH, "B", PARSED),  # kept: "answer:" ends a line and the letter is alone on the next
    # #32: a label line ending in ":" is part of the answer's statement: its words must be known
    # #43: a known introducer opens the line, so its words need not be known; a condition there still is not read
    ("After comparing the edges and colours carefully:\n\nB", PLH, "B", PARSED),
    ("If the edges and colours match carefully:\n\nB", PLH, None, AMBIGUOUS),
    ("Looking at it, B is not the answer:\n\nB", PLH, None, AMBIGUOUS),
    ("Die Antwort ist nicht:\nB", PLH, None, AMBIGUOUS),
    ("Final answer:\n\n**C**\n\nExplanation: Candidate C fits the A-side texture.", MPS, "C", PARSED),  # #43: an
    # explanation may describe the options ("A-side" names no option)
    ("Final answer:\n\n**C**\n\nExplanation: the A-side texture continues there.", MPS, "C", PARSED),
    # -- a negated letter is never the answer
    ("The answer is not B", MPS, None, AMBIGUOUS),
    ("Not B.", PLE, None, AMBIGUOUS),  # A is the only other option, but it is not named: no guess
    ("B is wrong.", PLH, None, AMBIGUOUS),
    ("Definitely not D", MPSH, None, AMBIGUOUS),
    ("It can't be A.", CV, None, AMBIGUOUS),
    ("It cannot be C.", OR, None, AMBIGUOUS),
    ("Option B isn't correct.", PLH, None, AMBIGUOUS),
    ("Answer: B is wrong", MPS, None, AMBIGUOUS),
    ("It is not candidate 3.", MPS, None, AMBIGUOUS),
    ("Comparing the edges.\nD: incorrect", MPSH, None, AMBIGUOUS),
    ("The answer is not B, it is C.", MPS, "C", PARSED),
    ("A is incorrect; B fits.", PLE, "B", PARSED),
    # -- order lists: a negated list is never the answer, the last affirmed one wins
    ("[1, 2, 3, 4] is wrong; correct: [2, 3, 1, 4]", OG, "[2, 3, 1, 4]", PARSED),
    ("[1, 2, 3, 4] is wrong, [2, 3, 1, 4] is right.", OG, "[2, 3, 1, 4]", PARSED),
    ("The order is not [1, 2, 3, 4] but [2, 3, 1, 4]", OG, "[2, 3, 1, 4]", PARSED),  # #43: "not X but Y" is Y
    ("The order is [2, 3, 1, 4], not [1, 2, 3, 4].", OG, "[2, 3, 1, 4]", PARSED),
    ("1 2 3 4 is wrong; 2 3 1 4", OG, "[2, 3, 1, 4]", PARSED),
    ("[2, 3, 1, 4], not [1, 2, 3, 4]", OG, "[2, 3, 1, 4]", PARSED),  # kept
    ("Not [1, 2, 3, 4].", OG, None, AMBIGUOUS),
    ("The order [1, 2, 3, 4] is incorrect.", OG, None, AMBIGUOUS),
    # -- #20.3: anomaly position words are read per grid (grid configs: tests/test_extraction_hedges.py)
    ("Judgment: B\nError Position: top right corner\nError Type: Mirroring", AD,
     "Judgment: B\nError Position: B\nError Type: B", PARSED),
    ("Judgment: B\nError Position: row 2, column 1\nError Type: A", AD, AD_CA, PARSED),
    ("Judgment: B\nError Position: second row, first column\nError Type: Rotation", AD, AD_CA, PARSED),
    ("Judgment: B\nError Position: C (bottom-left)\nError Type: A", AD, AD_CA, PARSED),  # letter and words agree
    ("Judgment: B\nError Position: C (top-right)\nError Type: A", AD, None, AMBIGUOUS),  # they disagree
    ("Judgment: B\nError Position: middle\nError Type: A", AD, None, AMBIGUOUS),  # no middle cell on 2x2
    ("Judgment: B\nError Position: bottom\nError Type: A", AD, None, AMBIGUOUS),  # two bottom cells
    # -- #20.4: a hedge leaves two candidates open: ambiguous, never the first or the last
    ("Judgment: B\nError Position: C or D\nError Type: A", AD, None, AMBIGUOUS),
    ("Judgment: B\nError Position: bottom-left (or maybe bottom-right)\nError Type: A", AD, None, AMBIGUOUS),
    ("Judgment: B\nError Position: C\nError Type: A or B", AD, None, AMBIGUOUS),
    ("Judgment: B\nError Position: C\nError Type: Rotation, possibly mirroring", AD, None, AMBIGUOUS),
    ("Judgment: B Error Position: C/D Error Type: A", AD, None, AMBIGUOUS),
    ("Neither A nor B fits the seam.", MPS, None, AMBIGUOUS),
    ("neither A nor B", PLE, None, AMBIGUOUS),
    ("Final answer: C or maybe D", MPSH, None, AMBIGUOUS),
    ("**Answer:** C (or possibly D)", MPS, None, AMBIGUOUS),
    ("The answer is B, or perhaps D.", PLH, None, AMBIGUOUS),
    ("Answer: B. Or possibly D.", MPS, None, AMBIGUOUS),
    ("B. Or possibly D.", MPSH, None, AMBIGUOUS),
    ("B\nC\nD", MPSH, None, AMBIGUOUS),
    ("A\n\nB", PLE, None, AMBIGUOUS),
    ("The answer is either B or C.", OR, None, AMBIGUOUS),
    ("<think>The seams match two candidates.</think>\nC or maybe A", CV, None, AMBIGUOUS),
    ("[1, 3, 2, 4] or [1, 3, 4, 2]", OG, None, AMBIGUOUS),
    ("The order is [3, 1, 4, 2] or maybe [3, 1, 2, 4].", OG, None, AMBIGUOUS),
    ("Final answer: [3, 1, 4, 2], or possibly [3, 1, 2, 4]", OG, None, AMBIGUOUS),
    ("[3, 1, 4, 2]\nor [3, 1, 2, 4]", OG, None, AMBIGUOUS),
    # -- #20.5: the stated order wins over numbers in the explanation; a bracketed order beats a bare sequence
    ("[3, 1, 4, 2]\nHere images 1, 2, 3, 4 are the pieces in the order they were given.", OG, "[3, 1, 4, 2]", PARSED),
    ("**[3, 1, 4, 2]**\n\nExplanation: image 3 is sky, so it goes first; 1 2 4 3 would break the seam.", OG,
     "[3, 1, 4, 2]", PARSED),
    ("The order is [3, 1, 4, 2].\nNote: images 1, 2, 3, 4 were given shuffled.", OG,
     "[3, 1, 4, 2]", PARSED),
    ("Final answer: [3, 1, 4, 2]\nHere 1 2 3 4 are the indices of the input images.", OG, "[3, 1, 4, 2]", PARSED),
    ("[3, 1, 4, 2]\nPieces (1, 3) share an edge, as do 2 and 4.", OG, "[3, 1, 4, 2]", PARSED),
    ("Pieces (1, 3) share an edge, so: 3 1 4 2", OG, None, AMBIGUOUS),  # #32: unknown words in the statement
    ("Pieces (1, 3) share an edge.\nSo: 3 1 4 2", OG, "[3, 1, 4, 2]", PARSED),
    # -- #20.6: per-option descriptions are never read as a described option; a pick on one of them is
    ("A: sky. B: sand. C: a dog -> C", MPS, "C", PARSED),  # #43: the arrow commits after the descriptions
    ("A: sky. B: sand. C: a dog\n-> C", MPS, "C", PARSED),
    ("A: sky\nB: sand\nC: the dog <- this one\nD: grass", MPSH, None, AMBIGUOUS),  # #32: likewise
    ("A) shows sky\nB) shows sand\nC) shows the dog, which matches\nD) shows grass", MPSH, None, AMBIGUOUS),
    ("Option A: roof edge\nOption B: grass\nOption C: water\nOption D: the dog's tail", MPS, None, AMBIGUOUS),
    ("A. The sky.\nB. The sand.", PLE, None, AMBIGUOUS),
    ("B; A, C and D do not fit", MPSH, "B", PARSED),
    ("B. A, C and D do not fit the seam.", PLH, "B", PARSED),
    ("A: blue sky\nB: sand\nC: dog fur\nD: grass\nFinal answer: C", MPS, "C", PARSED),
    ("Candidate 1 -> A\nCandidate 2 -> B\nCandidate 3 -> C\nCandidate 4 -> D", MPS, None, AMBIGUOUS),  # echoed map
    ("C. Candidate 3, it matches better than A.", MPS, "C", PARSED),
    ("C. Unlike B, it continues the roof line.", MPSH, "C", PARSED),
    ("Answer: A, and B is wrong", MPSH, "A", PARSED),  # a singular verdict is B's alone
    ("B and C are wrong, so A.", MPSH, "A", PARSED),
    ("Candidate 2 or 3", MPS, None, AMBIGUOUS),  # a hedge inside the option text
    ("It is candidate 2, or maybe 3.", MPSH, None, AMBIGUOUS),
    ("The third or fourth image.", MPS, None, AMBIGUOUS),
    ("Judgment: B\nPosition C\nType A", AD, AD_CA, PARSED),  # labels without separators
    ("The two images are adjacent horizontally or vertically.", CV, None, AMBIGUOUS),
    ("A (adjacent horizontally) or maybe B", CV, None, AMBIGUOUS),
    ("They are adjacent horizontally. Maybe B though.", CV, None, AMBIGUOUS),
    ("Candidate 3 (C) fills the blank.", MPS, "C", PARSED),
    ("Comparing candidate 1 and candidate 2.\nB", MPS, "B", PARSED),  # the answer on its own last line
]


@pytest.mark.parametrize("text,config,answer,status", CASES)
def test_realistic_responses(text, config, answer, status):
    ex = classify_response(text, config)
    assert (ex.answer, ex.status) == (answer, status), (text, ex)
    assert extract_answer(text, config) == answer


def test_every_config_has_cases():
    assert {c for _, c, _, _ in CASES} == set(TASKS)


def test_order_restoration_list_maps_to_letter_with_options():
    opts = ["[1, 2, 3, 4]", "[2, 3, 1, 4]", "[4, 3, 2, 1]", "[3, 1, 2, 4]"]
    assert extract_answer("The order is [2, 3, 1, 4].", OR, opts) == "B"
    assert extract_answer("2, 3, 1, 4", OR, opts) == "B"
    assert extract_answer("[1, 4, 2, 3]", OR, opts) is None  # not among the options
    # the negated list is no option
    assert extract_answer("The answer is [2, 3, 1, 4], not [1, 2, 3, 4].", OR, opts) == "B"


def test_partial_fields_are_kept_for_diagnostics():
    ex = classify_response("Judgment: B\nError Position: D", AD)
    assert ex.status == INVALID and ex.parts["judgment"] == "B" and ex.parts["position"] == "D"
    ex = classify_response("[1, 2, 2, 4]", OG)
    assert ex.parts["order"] == (1, 2, 2, 4)


def test_unknown_config_and_ids():
    with pytest.raises(ValueError):
        classify_response("A", "no_such_task")
    assert config_from_id("order_restoration/3f2a9c0d1e4b5a67") == OR
    with pytest.raises(ValueError):
        config_from_id("foo/123")


def test_never_evaluates_model_text(monkeypatch):
    import builtins

    def boom(*a, **k):
        raise AssertionError("eval called")

    monkeypatch.setattr(builtins, "eval", boom)
    monkeypatch.setattr(builtins, "exec", boom)
    assert extract_answer("print(__import__('os').getcwd())\n[2, 3, 1, 4]", OG) == "[2, 3, 1, 4]"
    assert extract_answer("print(__import__('os').getcwd()) [2, 3, 1, 4]", OG) is None  # #32: unknown words


def test_the_window_is_cut_after_trailing_white_space_is_trimmed():
    # #32 §5.3: a right answer followed by more white space than the window was invalid while format_reward paid
    for pad in (" " * 16_400, "\n" * 20_000, " \n\t" * 9_000):
        assert classify_response("B" + pad, PLH).answer == "B"
        assert classify_response("The order is [2, 3, 1, 4]." + pad, OG).answer == "[2, 3, 1, 4]"


def test_long_adversarial_input_is_read():
    # No clock asserted (timings live in benchmarks/); the megabyte cases below bound the work.
    nasty = "answer " + " " * 20000 + "[1" + ", 1" * 5000 + "  " * 5000 + "x"
    for cfg in TASKS:
        assert classify_response(nasty, cfg).status in (PARSED, AMBIGUOUS, INVALID)


# ---------------------------------------------------------------- property-based

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(text=st.text(max_size=400), config=st.sampled_from(sorted(TASKS)))
def test_no_string_crashes(text, config):
    ex = classify_response(text, config)
    assert ex.status in (PARSED, AMBIGUOUS, INVALID)
    assert (ex.answer is not None) == (ex.status == PARSED)


_CHOICE_WRAPS = [
    "{}", "{}.", "({})", "**{}**", "[{}]", "Answer: {}", "The answer is {}", "The answer is ({}).",
    "Final answer: {}", "\\boxed{{{}}}", "Option {}", "<think>Hmm, maybe A.</think>\n{}",
    "So the final answer is:\n\n{}", "print('{}')", "{})", "My answer: **{}**",
]
_AD_WRAPS = [
    "{}", "{one_line}", "**Judgment:** {j}\n**Error Position:** {p}\n**Error Type:** {t}",
    "I looked at all four tiles.\n{}", "<think>Judgment: A?</think>\n{}",
]
_OG_WRAPS = ["{}", "{bare}", "{spaced}", "The order is {}.", "\\boxed{{{}}}", "print({})",
             "Reasoning about the seams...\nFinal answer: {}", "<think>[1, 2, 3, 4]</think>{}"]


@SETTINGS
@given(
    config=st.sampled_from([c for c, s in TASKS.items() if s.kind == "choice"]),
    data=st.data(),
    wrap=st.sampled_from(_CHOICE_WRAPS),
    prose=st.text(alphabet=st.characters(whitelist_categories=("Ll", "Nd", "Zs")), max_size=60),
)
def test_choice_answer_read_back_in_any_style(config, data, wrap, prose):
    letter = data.draw(st.sampled_from(TASKS[config].letters))
    # prose that itself names another option ("not adjacent" before "A") contradicts the letter: ambiguous,
    # tested in test_option_text_and_a_final_letter_that_disagree_are_ambiguous
    assume(extract_answer(prose, config) in (None, letter))
    # the line above a bare answer is a finished sentence (an unfinished one, "The answer is not\nB", is not read)
    text = prose.strip() + ".\n" + wrap.format(letter) if prose.strip() else wrap.format(letter)
    assert extract_answer(text, config) == letter, text


def test_option_text_and_a_final_letter_that_disagree_are_ambiguous():
    cv = "connection_verification"
    for text in ("not adjacent\nA", "they are adjacent horizontally\nB"):
        ex = classify_response(text, cv)
        assert ex.status == AMBIGUOUS and ex.answer is None, text
    assert extract_answer("not adjacent\nC", cv) == "C"  # text and letter agree


@SETTINGS
@given(
    j=st.sampled_from("AB"), p=st.sampled_from("ABCD"), t=st.sampled_from("AB"), wrap=st.sampled_from(_AD_WRAPS)
)
def test_anomaly_answer_read_back_in_any_style(j, p, t, wrap):
    if j == "A":
        ref, p, t = AD_OK, "", ""
    else:
        ref = f"Judgment: B\nError Position: {p}\nError Type: {t}"
    text = wrap.format(ref, one_line=ref.replace("\n", " "), j=j, p=p, t=t)
    assert extract_answer(text, AD) == ref, text


@SETTINGS
@given(perm=st.permutations([1, 2, 3, 4]), wrap=st.sampled_from(_OG_WRAPS))
def test_order_answer_read_back_in_any_style(perm, wrap):
    ref = "[" + ", ".join(map(str, perm)) + "]"
    text = wrap.format(ref, bare=", ".join(map(str, perm)), spaced=" ".join(map(str, perm)))
    assert extract_answer(text, OG) == ref, text


@SETTINGS
@given(nums=st.lists(st.integers(0, 9), min_size=1, max_size=6))
def test_non_permutations_are_never_parsed(nums):
    text = "[" + ", ".join(map(str, nums)) + "]"
    ex = classify_response(text, OG)
    if sorted(nums) == [1, 2, 3, 4]:
        assert ex.answer == text
    else:
        assert ex.status == INVALID and ex.answer is None
        assert re.search("permutation", ex.detail)


ADVERSARIAL = {
    "boxed": "\\boxed{" * 150_000, "answer_tags": "<answer>" * 120_000, "answer_phrases": "Answer: " * 130_000,
    "lists": "[1, " * 250_000, "letters": "A B " * 250_000, "newlines": "\n" * 1_000_000,
    "think": "<think>" + "x" * 1_000_000, "mixed": "Answer: \\boxed{[1, 2, A or B} " * 40_000,
    "nested_boxes": ("\\boxed{" * 1_000 + "}" * 1_000) * 125, "negations": "not " * 250_000,
    "verdicts": "A: no " * 170_000, "dashes": "-" * 1_000_000, "colons": "A:" * 500_000,
    "post_markers": "B is correct " * 80_000, "answer_lines": "Answer:\n" * 125_000,
    "negated_lists": "not [1, 2, 3, 4] " * 60_000, "spaces": " \t" * 500_000,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_work_per_answer_is_bounded_on_a_megabyte_of_garbage(name):
    # Quadratic behaviour would take minutes to hours on these inputs (it took 77 s on 140 KB of \boxed{);
    # linear extraction reads each in milliseconds. No clock is asserted: a regression hangs the test run.
    for config in TASKS:
        ex = classify_response(ADVERSARIAL[name], config)
        assert ex.status in (PARSED, AMBIGUOUS, INVALID)


@pytest.mark.parametrize("config", sorted(TASKS))
def test_nested_boxes_are_cleaned_once(config, monkeypatch):
    # Work counter instead of a clock: the text is cleaned once, however many boxes are nested (reading every
    # nested box on its own cleaned O(n^2) characters).
    from jigsaw_puzzles.scoring.extraction import common, rule

    cleaned = []

    def counting(text, residue, offer=None, _clean=common.clean):
        cleaned.append(len(text))
        return _clean(text, residue, offer)

    monkeypatch.setattr(rule, "clean", counting)
    text = "\\boxed{" * 2_000 + "B" + "}" * 2_000
    assert len(text) <= rule.MAX_CHARS
    classify_response(text, config)
    assert sum(cleaned) <= 3 * len(text), (len(cleaned), sum(cleaned))


# ---------------------------------------------------------------- fast paths == the full cascade

def _same(a, b):
    return (a.answer, a.status, a.rule, a.detail, a.parts) == (b.answer, b.status, b.rule, b.detail, b.parts)


_PADS = ["", " ", "\n", "  \n ", "\t", "\x1c", "\r\n"]


def _fast_candidates():
    """Every short shape the fast paths read, and near misses, around each answer kind."""
    from jigsaw_puzzles.spec import anomaly_answers

    wraps = ["{}", "{}.", "({})", "[{}]", "**{}**", "*{}*", "({}).", "{})", "\\boxed{{{}}}", "$\\boxed{{{}}}$",
             "\\boxed{{{}}}.", "\\boxed{{ {} }}", "The answer is {}.", "The answer is ({}).", "the answer is {}",
             "Final answer: {}", "Final answer: ({})", "final answer is {}", "Answer: {}", "Answer:{}", "answer {}",
             "The final answer is {}.", "ANSWER: {}", "Answer: {} or C", "Answer: {} is wrong", "Not {}."]
    for config, spec in TASKS.items():
        if spec.kind == "choice":
            for w in wraps:
                for letter in "ABCDEIZabci":
                    for pad in _PADS:
                        yield pad + w.format(letter) + pad[::-1], config
        elif spec.kind == "order":
            for nums in ["2, 3, 1, 4", "2,3,1,4", "2 3 1 4", "1, 2, 2, 4", "0, 1, 2, 3", "2, 3, 1", "2, 3, 1, 4, 5",
                         "2 ,3, 1, 4", "2-3-1-4", "2, 3 1 4", "12, 3, 1, 4"]:
                for w in ["{}", "[{}]", "({})", "[{}].", "[ {} ]", "The order is [{}]."]:
                    for pad in _PADS:
                        yield pad + w.format(nums) + pad[::-1], config
        else:
            for a in anomaly_answers(spec.num_options) + ["Judgment: B", "B\nC", "B C", "A B", "B\nE\nA"]:
                bare = "\n".join(line.partition(":")[2].strip() for line in a.split("\n")).strip()
                for form in (a, a.replace("\n", " "), a.lower(), bare, bare.replace("\n", " "),
                             a.replace("\n", "\r\n")):
                    for pad in _PADS:
                        yield pad + form + pad[::-1], config


def _fresh(text, config):
    """The reading without the memo of short texts."""
    import jigsaw_puzzles.scoring.extraction as extraction

    extraction._MEMO.clear()
    return classify_response(text, config)


def test_the_memo_of_short_texts_reads_as_a_fresh_read():
    # classify_response keeps the reading of a short text (a pure function): asked again, it must return exactly
    # what a fresh read returns, and a copy the caller may change
    seen = 0
    for text, config in _fast_candidates():
        first = classify_response(text, config)
        first.parts["x"] = 1  # a caller changing its copy changes nothing kept
        again = classify_response(text, config)
        assert _same(again, _fresh(text, config)) and "x" not in again.parts, (text, config)
        seen += 1
    assert seen > 5000


_TOKENS = list("ABCDEIabcd()[]{}*.,:;-$\\ \n\t0123456789") + [
    "The answer is ", "Final answer: ", "not ", "is wrong", "correct", "Option ", "candidate 2", "adjacent", "order ",
    "Judgment: ", "Error Position: ", "Error Type: ", "print(", "\\boxed{", "I cannot tell.", " no", "</think>",
    "Let me compare the edges carefully. ", "[2, 3, 1, 4]", "\u2713", "Ｂ", "Wait, ", "so ", "because ", "Note: ",
    '{"answer": "', '"}', "<answer>", "</answer>", "| A | ✅ |\n", "submit(", ")", "答案是", "Resposta: "]


@SETTINGS
@given(text=st.lists(st.sampled_from(_TOKENS), max_size=16).map("".join), config=st.sampled_from(sorted(TASKS)))
def test_random_text_reads_the_same_twice(text, config):
    assert _same(classify_response(text, config), _fresh(text, config)), text


def test_cut_configs_read_as_their_straight_config():
    # #34: a config cut into interlocking pieces has its straight config's answers and option wording
    from jigsaw_puzzles.spec import is_config

    rows = [(t, c) for t, c, _, _ in CASES if t is not None]
    rows += [("The two images are adjacent horizontally.", "connection_verification_3x3"),
             ("<image 2> is directly above <image 1>.", "connection_verification_3x3_8dir")]
    seen = 0
    for text, config in rows:
        for cut in ("_tabs", "_tabs_silhouette", "_tabs_own"):
            if not is_config(config + cut):
                continue
            seen += 1
            assert _same(classify_response(text, config + cut), classify_response(text, config)), (text, config + cut)
    assert seen > 300
    assert extract_answer("The two images are adjacent horizontally.", "connection_verification_tabs") == "A"
