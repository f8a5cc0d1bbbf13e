"""Confidence notes (the ``unsure`` kind of forms.tsv) keep the answer they follow, and never open a way to read past
another option named after them (issue #43).

Every form of the table, in every language, is put after an answer ("Answer: B, <note>.": read) and before another
option ("Answer: B. <note> C.", "B <note> D": never read). The sweep over all ~3,700 forms is slow; one form per
language runs in the fast tier.
"""
from __future__ import annotations

import pytest

from jigsaw_puzzles.scoring.extraction import PARSED, classify_response
from jigsaw_puzzles.scoring.extraction.forms import table

MPS = "missing_piece_selection_easy"
KEEP = ("Answer: B, {f}.", "Answer: B. {f}.")  # the note alone: B stays the answer
OPEN = ("Answer: B. {f} C.", "Answer: B, {f} C.", "B {f} D", "Answer: B. {f} D is also possible.", "Answer: B, D {f}.")


def _read(text: str):
    ex = classify_response(text, MPS)
    return ex.answer if ex.status == PARSED else None


def _sweep(notes):
    kept = [t for f in notes for t in (k.format(f=f) for k in KEEP) if _read(t) != "B"]
    opened = [t for f in notes for t in (o.format(f=f) for o in OPEN) if _read(t) is not None]
    assert not opened, f"{len(opened)} read past another option, e.g. {opened[:5]}"
    assert not kept, f"{len(kept)} notes lose the answer, e.g. {kept[:5]}"


def test_one_note_per_language_keeps_the_answer_and_opens_nothing():
    notes = [min(fs, key=len) for fs in table()["unsure"].values()]
    assert len(notes) >= 25
    _sweep(notes)


@pytest.mark.slow
def test_every_note_of_the_table_keeps_the_answer_and_opens_nothing():
    notes = sorted({f for fs in table()["unsure"].values() for f in fs})
    assert len(notes) > 3000
    _sweep(notes)


@pytest.mark.parametrize("text, want", [
    # a note without a comma, after "although"/"but" (the answer before it is no article: "A although")
    ("Answer: C although I am not sure.", "C"), ("**Answer: C** although I'm not sure.", "C"),
    ("Answer: A although I am not sure.", "A"), ("C but I'm not 100% sure.", "C"),
    ("B or C but I am not sure.", None), ("C but I am not sure about D.", None),
    ("Answer: B, A although I am not 100% certain.", None), ("Answer: B, A i'm not 100% sure.", None),
    # a negation that belongs to a note rejects nothing: the option after it stays open
    ("Answer: B. not 100% certain D.", None), ("Answer: B. although i am not 100% certain C.", None),
    ("Answer: B. pero no estoy 100% seguro C.", None), ("Answer: B, although I am not absolutely sure about it C.", None),
    ("Answer: B. D is not a match.", "B"), ("Answer: B. Not D.", "B"),
    # another option conceded with nothing said of it stays open; one conceded and ruled out does not
    ("B, though D.", None), ("B although D.", None), ("B, though D is darker.", "B"),
    # after a comma: a note right after the answer keeps it; one after what it is unsure of does not
    ("B, I'm not sure.", "B"), ("The answer is B, I'm not 100% sure.", "B"),
    ("B \u2014 for the first one, I'm not sure.", None),
    # after a dash with a space before it ("B \u2014 my best guess"), as after a comma; a guess said random is no answer
    ("B \u2014 my best guess.", "B"), ("B \u2014 I'm not 100% sure.", "B"), ("B \u2014 though this is a guess.", "B"),
    ("B \u2014 my best guess, but C is just as likely.", None), ("B, but honestly I'm guessing randomly.", None),
    ("B \u2014 my best guess is C.", None),
])
def test_thirteenth_session_notes(text, want):
    assert _read(text) == want, classify_response(text, MPS)


@pytest.mark.parametrize("text, config, want", [
    # a confidence note the model says of itself, or of a part of its answer, keeps it
    ("My best guess is C (not adjacent), though the crops are small enough that I could be wrong.", "connection_verification", "C"),
    ("Probably [2, 4, 3, 1]; the bottom row is the part I'm least sure about.", "order_generation", "[2, 4, 3, 1]"),
    ("C, though I could be wrong and it may be A.", "connection_verification", None),
    ("Probably [2, 4, 3, 1]; I could be wrong about [2, 1, 3, 4].", "order_generation", None),
    # another option granted a likeness, then ruled out in its sentence ("but its edge texture is off"), stays closed
    ("D, though C is close \u2014 the colours in C match almost as well, but its edge texture is off.", MPS, "D"),
    ("D, though C is close \u2014 the colours in C match almost as well.", MPS, None),
    # "also matches the light" adds a reason about the answer's piece; said of another option, it keeps it open
    ("A\n\nArea A covers the car. The shading on the door also matches the afternoon light.", "piece_localization_easy", "A"),
    ("D. The other one also matches the light.", MPS, None), ("D. It also matches.", MPS, None),
    ("A. B also matches the light.", MPS, None),
    # chat-app residue: a numbered source with a bare domain, a count after a thumb, "Liked by you", Spanish, Russian
    ("**Answer: A**\n\nShow drafts\n\U0001f50a\nSources\n1. jigsaw-puzzles.github.io", "piece_localization_easy", "A"),
    ("Answer: B\n[14:03] \U0001f44d Liked by you\n[14:03] Saved to notes", MPS, "B"),
    ("Respuesta: A\n\nCopiar\nEditar\nCompartir\nRegenerar respuesta", "connection_verification", "A"),
    ("\u041e\u0442\u0432\u0435\u0442: B\n\n\u041a\u043e\u043f\u0438\u0440\u043e\u0432\u0430\u0442\u044c \u00b7 "
     "\u041f\u043e\u0434\u0435\u043b\u0438\u0442\u044c\u0441\u044f \u00b7 \U0001f44d 1", MPS, "B"),
    ("Answer: B\n\nSources\n1. C is also possible", MPS, None), ("B\n\U0001f44d 3 C", MPS, None),
])
def test_thirteenth_session_dev_27(text, config, want):
    ex = classify_response(text, config)
    assert (ex.answer if ex.status == PARSED else None) == want, ex


OR_OPTS = ["[4, 1, 2, 3]", "[1, 4, 3, 2]", "[1, 3, 4, 2]", "[4, 1, 3, 2]"]


@pytest.mark.parametrize("text, config, want", [
    # "I'd change my answer to A" withdraws the answer before it; "I wouldn't change ..." does not, nor a condition
    ("C\n\nAfter comparing both again, I'd change my answer to A.", MPS, "A"), ("C. I am changing my answer to A.", MPS, "A"),
    ("C. I wouldn't change my answer to A.", MPS, None), ("C. If the sky were darker, I would change my answer to A.", MPS, None),
    ("C. I would change nothing.", MPS, None), ("C. I would change my answer to A or D.", MPS, None),
    # an option's own words in brackets after its letter say that option: ruled out with it ("Why not B (top-bottom)")
    ("**C \u2014 not adjacent.**\n\nWhy not B (top-bottom): the bottom of image 1 is the hedge.", "connection_verification", "C"),
    ("**C \u2014 not adjacent.**\n\nB (top-bottom) also fits.", "connection_verification", None),
    # a sentence that opens with another option says where that option puts an image, not where the answer does
    ("**D** ([4, 1, 3, 2])\n\nImage 4 is top-left, image 1 top-right, image 3 bottom-left, image 2 bottom-right. "
     "Options B and C put image 1 at the top-left, which breaks the symmetry.", "order_restoration", "D"),
    ("**D** ([4, 1, 3, 2])\n\nImage 1 is top-left, image 4 top-right.", "order_restoration", None),
    ("Top-left is image 1, top-right is image 3, bottom-left is image 2, bottom-right is image 4.\n\n[1, 2, 3, 4]",
     "order_generation", None),
])
def test_thirteenth_session_turns_and_options(text, config, want):
    ex = classify_response(text, config, OR_OPTS if config == "order_restoration" else None)
    assert (ex.answer if ex.status == PARSED else None) == want, ex


@pytest.mark.parametrize("text, want", [
    # a relative clause right after the answer explains it ("A, which fits", "A, que encaixa") unless it rules it out
    ("I'll go with A, which fits and continues the fence.", "A"), ("Fico com a A, que encaixa e continua a cerca.", "A"),
    ("Me quedo con la A, que encaja con la valla.", "A"), ("Je choisis A, qui prolonge la cl\u00f4ture.", "A"),
    ("A, which continues the roof, unlike B.", "A"),
    ("A, which is wrong.", None), ("I'll go with A, which doesn't fit.", None), ("A, which seems unlikely.", None),
    ("Fico com a A, que n\u00e3o encaixa.", None), ("Je choisis A, qui ne colle pas.", None), ("A, which is a guess.", None),
    # a French sentence after the answer that says the piece "reprend" (takes up) the pattern of the answer's area
    ("R\u00e9ponse finale : A. Le morceau reprend le m\u00eame motif de carrelage que la zone A, alors que B est sur le mur.", "A"),
])
def test_thirteenth_session_relative_clauses(text, want):
    assert _read(text) == want, classify_response(text, MPS)


def test_an_answer_said_wrong_in_a_relative_clause_is_never_read():
    words = sorted({f for fs in table()["incorrect"].values() for f in fs} | set(table()["negation"].get("en", ())))
    read = [t for w in words for t in (f"A, which is {w}.", f"I choose A, which is {w}.") if _read(t) is not None]
    assert len(words) > 50 and not read, read[:5]


@pytest.mark.parametrize("text, want", [
    # the answer said again is no restatement when it is joined to another ("candidate 4/2": D or B), found by the
    # hedges' property test (older than this session)
    ("d.\ncandidate 4/2", None), ("D.\nCandidate 4 or 2.", None), ("D.\nCandidate 4.", "D"), ("D.\n**D**", "D"),
])
def test_the_answer_said_again_joined_to_another_is_no_restatement(text, want):
    assert _read(text) == want, classify_response(text, MPS)


@pytest.mark.parametrize("text, want", [
    # "though C is close" ranks C below the answer, as "C is a close second" does; not with a hedge or "too" after it
    ("A, though C is close \u2014 the seam is faint and the colours only roughly match.", "A"),
    ("D, though C is close \u2014 both have the same railing, but only D's shadow lines up with the post.", "D"),
    ("A, though C is close, maybe better.", None), ("A, though C is also close.", None), ("A. C is close; it matches too.", None),
    ("B. A is the runner-up since it's also on the clock, but the numeral settles it.", "B"),
    ("A, though C is close to the seam.", None),
    # a confidence note between two answers is no clean turn to the later one (a withdrawal still is)
    ("Answer: B. but i am not 100% certain, honestly C.", None), ("Answer: B. But honestly, C.", "C"),
    ("Answer: B. Wait, I am not sure. Actually C.", "C"), ("B, but I'm not sure; C is close.", None),
    # a note before a ranking in its sentence keeps the ranked option open (found by the compositions' property test)
    ("\\boxed{A}\nNot fully sure, B is my second choice.", None), ("I am not sure. A, though C is close.", None),
    # "Changing my answer: A." withdraws the answer before it
    ("C\n\nWait, actually the road does continue across the edge. Changing my answer: A.", "A"),
    ("C. Changing the order would break the seam.", None),
])
def test_thirteenth_session_close_and_turns(text, want):
    assert _read(text) == want, classify_response(text, MPS)


@pytest.mark.parametrize("text, config, want", [
    # what dev_28 taught: a note with its reason, "going by", another look, "Thought for 47 seconds ▸", Russian "находится"
    ("Creo que es la B, aunque no estoy del todo seguro porque el fragmento es muy peque\u00f1o.", MPS, "B"),
    ("B, but I am not sure because the image is small.", MPS, "B"), ("B, but I am not sure because C also fits.", MPS, None),
    ("Going by the other three, though, I'd pick A: its edge matches the road markings.", MPS, "A"),
    ("D is the answer.\n\nLooking at it once more, the basket is on the right, so B. B is my final answer.", MPS, "B"),
    ("Thought for 47 seconds \u25b8\n\n[3, 8, 1, 6, 9, 2, 5, 7, 4]", "order_generation_3x3", "[3, 8, 1, 6, 9, 2, 5, 7, 4]"),
    ("\u041e\u0442\u0432\u0435\u0442: B. \u041e\u043d\u0430 \u043d\u0430\u0445\u043e\u0434\u0438\u0442\u0441\u044f "
     "\u0438\u043c\u0435\u043d\u043d\u043e \u0432 \u043e\u0431\u043b\u0430\u0441\u0442\u0438 B.", "piece_localization_easy", "B"),
    # a hedge cut off by the window's edge is none ("o" of "of": Spanish "or"); "right" of a side is no choice
    ("**B**\n\nHere is why the other candidates fail:\n\n1. **A** contains the right part of the flower pot, but the pot is left of the "
     "blank.", MPS, "B"),
    ("B. A is the right one too.", MPS, None), ("B. A has the right colours too.", MPS, None),
])
def test_thirteenth_session_dev_28(text, config, want):
    ex = classify_response(text, config)
    assert (ex.answer if ex.status == PARSED else None) == want, ex


@pytest.mark.parametrize("text, config, want", [
    # what dev_29 taught: "E would be my runner-up", "Why the others fail:", an anomaly table with glossed values,
    # "Copied", "2 sources" with "·" bullets, "water only," (no "only C")
    ("F, with moderate confidence (~60%). E would be my runner-up.", "connection_verification_3x3_8dir", "F"),
    ("F. E would be my runner-up, maybe better.", "connection_verification_3x3_8dir", None),
    ("**Answer: C**\n\nWhy the others fail:\n- **A** has the right colours, but the brick rows are offset.\n\nC fits.", MPS, "C"),
    ("**Answer:** D\n\n**Why not the others?**\n- A: wrong colour temperature", MPS, "D"),
    ("| Field | Value |\n|---|---|\n| Judgment | B (Incorrect) |\n| Error Position | B (Top-right) |\n| Error Type | B "
     "(Mirroring) |", "anomaly_detection", "Judgment: B\nError Position: B\nError Type: B"),
    ("| Field | Value |\n|---|---|\n| Judgment | B (Incorrect) |\n| Error Position | B (Top-left) |\n| Error Type | B "
     "(Mirroring) |", "anomaly_detection", None),
    ('{"judgment": "Incorrect", "error_position": "C", "error_type": "rotation"}', "anomaly_detection",
     "Judgment: B\nError Position: C\nError Type: A"),
    ('{"judgment": "B", "error_position": "not C", "error_type": "A"}', "anomaly_detection", None),
    ("Claude 3.5 Sonnet\n\nA\n\nRetry   Copy   \u2713 Copied", MPS, "A"),
    ("A\n\n2 sources\n\u00b7 Jigsaw puzzle solving tips \u2013 reddit.com\n\u00b7 wikipedia.org\n\nAsk a follow-up\u2026", MPS, "A"),
    ("A\n\n2 sources\n\u00b7 C is also possible", MPS, None),
    ("E\n\nCandidates 1 and 2 show water only, candidate 3 is the tower top.", "missing_piece_selection_easy_3x3_k6", "E"),
    ("E. Only candidate 3, too.", "missing_piece_selection_easy_3x3_k6", None),
])
def test_thirteenth_session_dev_29(text, config, want):
    ex = classify_response(text, config)
    assert (ex.answer if ex.status == PARSED else None) == want, ex


@pytest.mark.parametrize("text, config, want", [
    # what dev_30 taught
    ("**C**\n\nWhy the others fail:\n- **A** has the right colour palette, but the window frame it contains is white.", MPS, "C"),
    ("C. A has the right colour palette too.", MPS, None),
    ("Likely F (upper left). The roof edge seems to continue, but I wouldn't bet much on it.",
     "connection_verification_3x3_8dir", "F"),
    ("I can't be certain from such small thumbnails, but if I have to pick one: C.", MPS, "C"),
    ("\u7b54\u3048\u306fB\u3067\u3059\u3002\u2026\u2026\u3044\u3048\u3001\u8a02\u6b63\u3057\u307e\u3059\u3002"
     "\u6b63\u3057\u304f\u306fD\u3067\u3059\u3002", MPS, "D"),
    ("\u6b63\u3057\u304f\u306fD\u3067\u306f\u3042\u308a\u307e\u305b\u3093\u3002", MPS, None),
    ("Sub-image E (the centre tile) is upside down \u2014 it has been turned 180\u00b0. Everything else lines up.",
     "anomaly_detection_3x3", "Judgment: B\nError Position: E\nError Type: A"),
    ("<|python_tag|>submit(order=[(2, 0), (4, 90), (1, 90), (3, 180)])<|eom_id|>", "order_generation_2x2_rot",
     "[(2, 0), (4, 90), (1, 90), (3, 180)]"),
    ("Final order \u27f6 [4, 3, 2, 1]", "order_generation", "[4, 3, 2, 1]"),
    # options listed as "1 (A) — ..." are a list, not commitments
    ("1 (A) \u2014 dog's ear.\n2 (B) \u2014 grass only.\n3 (C) \u2014 dog's ear.\n\nSo it's between A and C. I'll go with A.", MPS, "A"),
    ("1 (A) \u2014 dog's ear.\n2 (B) \u2014 grass only.\n\nI'll go with A or B.", MPS, None),
])
def test_thirteenth_session_dev_30(text, config, want):
    ex = classify_response(text, config)
    assert (ex.answer if ex.status == PARSED else None) == want, ex


def test_a_sentence_that_opens_with_another_option_is_not_the_answers_regions():
    opts = ["[2, 1, 4, 3]", "[4, 3, 1, 2]", "[1, 4, 3, 2]", "[3, 2, 1, 4]"]
    text = ("B. Hmm \u2014 option B puts image 4 in the top-left, but 4 is clearly the ground with the picnic blanket. "
            "Switching to D.")
    assert classify_response(text, "order_restoration", opts).answer == "D"
    assert classify_response("D. Image 2 is in the top-left.", "order_restoration", opts).status != PARSED


@pytest.mark.parametrize("text, config, want", [
    # a small model's loop cut off mid-sentence repeats one answer: read; one that changes, or repeats once, is not
    ("The answer is D. The answer is D. The answer is D. The answer is", MPS, "D"),
    ("The answer is D. The answer is", MPS, None), ("The answer is D. The answer is D. The answer is", MPS, None), ("The answer is D. The answer is C. The answer is D. The answer is", MPS, None),
    ("The answer is D. The answer is D. The answer is D. So the answer would be", MPS, None),
    # "Alternatives I considered", "The one I hesitated over" speak of the reasoning, not another answer
    ("[9, 4, 2, 7, 1, 5, 6, 3, 8]\n\nAlternatives I considered: swapping 7 and 5 would put the ivy on the left, but the "
     "ivy continues from image 2 above.", "order_generation_3x3", "[9, 4, 2, 7, 1, 5, 6, 3, 8]"),
    ("C. Although I first considered A, its roofline doesn't continue into the gap.", MPS, "C"),
    ("C. I considered A too.", MPS, None), ("C. Alternatives I considered: A, which also fits.", MPS, None),
    ("[3, 1, 4, 2]\n\nOrder is top-left, top-right, bottom-left, bottom-right, as requested.", "order_generation", "[3, 1, 4, 2]"),
    # "Reading row by row:" introduces an order; a chat app's header and timing around the answer are residue
    ("The image shows a painting of a village. Reading row by row:\n\n[6, 3, 9, 1, 7, 2, 8, 4, 5]", "order_generation_3x3",
     "[6, 3, 9, 1, 7, 2, 8, 4, 5]"),
    ("Not reading row by row:\n[6, 3, 9, 1, 7, 2, 8, 4, 5]", "order_generation_3x3", None),
    ("HuggingChat\nModel: Qwen/Qwen2-VL-72B-Instruct\nG\nGenerated in 1.4s", "connection_verification_3x3_8dir", "G"),
])
def test_thirteenth_session_loops_and_considered(text, config, want):
    ex = classify_response(text, config)
    assert (ex.answer if ex.status == PARSED else None) == want, ex
