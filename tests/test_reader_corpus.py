"""The reader corpus of issue #43 (tests/data/reader_corpus) keeps the shape the issue asks: at least 1,500 outputs
in at least 60 families, at least half of them in the held-out files written blind, every verdict in the canonical
answer space of its config. Its figures are measured by ``benchmarks/reader_corpus.py``, not asserted here."""
import json
from collections import Counter
from pathlib import Path

from jigsaw_puzzles.scoring.extraction import classify_response
from jigsaw_puzzles.spec import get

CORPUS = Path(__file__).parent / "data" / "reader_corpus"
KEYS = {"id", "family", "config", "options", "output", "verdict", "borderline", "note"}


def _records():
    out = []
    for f in sorted(CORPUS.glob("*.jsonl")):
        out += [dict(json.loads(line), file=f.stem) for line in f.open(encoding="utf-8") if line.strip()]
    return out


def test_the_corpus_is_large_varied_and_half_held_out():
    recs = _records()
    held = sum(r["file"].startswith("heldout_") for r in recs)
    assert len(recs) >= 1500 and len({r["family"] for r in recs}) >= 60
    assert held / len(recs) >= 0.5, f"held out {held} of {len(recs)}"
    assert all(r["file"].startswith(("dev_", "heldout_")) for r in recs)
    dupes = [k for k, n in Counter(r["id"] for r in recs).items() if n > 1]
    assert not dupes, dupes[:5]


def test_every_record_has_the_shape_and_a_canonical_verdict():
    for r in _records():
        assert set(r) - {"file"} == KEYS, r["id"]
        spec = get(r["config"])  # an unknown config raises
        if r["verdict"] is None:
            continue
        # the verdict, read by the reader as a whole response, is itself (so it is in the config's answer space)
        ex = classify_response(r["verdict"], r["config"], r["options"])
        assert ex.answer == r["verdict"], (r["id"], r["verdict"], ex.detail, spec.kind)
