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
])
def test_thirteenth_session_notes(text, want):
    assert _read(text) == want, classify_response(text, MPS)
