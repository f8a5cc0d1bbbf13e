"""``benchmarks/scale.py`` runs, at tiny sizes, and its photos are what it says: distinct, and all pass curation.

The curve itself (1k, 4k, 16k photos) is measured by the benchmark and recorded in docs/performance.md.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from jigsaw_puzzles.generation.curation import curate

ROOT = Path(__file__).resolve().parents[1]


def _scale():
    """The benchmark as a module its worker processes can import too (by name, from ``benchmarks/``)."""
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    return importlib.import_module("scale")


def test_the_synthetic_library_is_distinct_photos_that_pass_curation(tmp_path):
    scale = _scale()
    photos = scale.photo_library(tmp_path, 14, (320, 264), 2)
    assert len(photos) == 14 and len({p.name for p in photos}) == 14
    again = scale.photo_library(tmp_path, 10, (320, 264), 2)  # made once: a smaller size is its prefix
    assert again == photos[:10]
    folder = scale.sized_folder(tmp_path, photos, 14, "t")
    curation = curate(folder)
    assert len(curation.accepted) == 14, [r.reason for r in curation.records if r.reason]


def test_the_benchmark_prints_the_cost_per_photo_of_every_step(tmp_path, capsys):
    _scale().main(["--sizes", "6", "12", "--cache", str(tmp_path), "--photo-size", "320", "264", "--num-proc", "2",
                   "--steps", "listing", "curation", "dup rule", "plan", "answer plan", "clip search", "distractors",
                   "--dup-sizes", "300", "600", "--distractor-sizes", "50", "250"])
    out = capsys.readouterr().out
    for step in ("listing", "curation", "dup rule", "plan", "answer plan", "clip search", "distractors"):
        row = next(line for line in out.splitlines() if line.startswith(f"| {step} |"))
        assert len(row.split("|")) == 6, row  # step, two sizes, the growth
    assert "| 600 |" in out
    assert "rendezvous (4.0.0), ms/item" in out and next(line for line in out.splitlines() if line.startswith("| 250 |"))


@pytest.mark.slow
def test_the_guard_step_times_the_first_pass_every_stream_makes(tmp_path, capsys, monkeypatch):
    """#44.5: the guard's first pass over a new folder (against the embedded photos, an empty guard cache), wall and
    CPU time, none of the synthetic photos flagged."""
    from jigsaw_puzzles.generation import cachefiles

    monkeypatch.setenv(cachefiles.ENV, "off")
    _scale().main(["--sizes", "6", "12", "--cache", str(tmp_path), "--photo-size", "320", "264", "--steps",
                   "listing", "curation", "guard", "--dup-sizes", "--distractor-sizes"])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| guard |"))
    assert len(row.split("|")) == 6, row
    sized = [line for line in out.splitlines() if line.lstrip().startswith(("6 photos", "12 photos"))]
    assert len(sized) == 2 and all("'guard cpu'" in line and "'guard flagged': 0" in line for line in sized), sized
