"""``benchmarks/stream.py`` runs as docs/performance.md says (its ``--guard`` mode had broken when the stream came
to need a source), and its floor decodes the photo every time rather than reading the per-process cache of
normalised photos (which made the floor a dictionary lookup, 3,800 items/s, and every ratio against it wrong)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, "-W", "ignore", str(ROOT / "benchmarks" / "stream.py"), *args],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
def test_both_modes_print_a_row_per_config():
    pytest.importorskip("cv2")
    rows = _run("--items", "8", "--configs", "order_generation").splitlines()
    assert rows[-1].split()[0] == "order_generation" and rows[-1].endswith("%"), rows
    rows = _run("--guard", "--configs", "order_generation").splitlines()
    assert rows[-1].split()[0] == "order_generation" and len(rows[-1].split()) == 14, rows  # 6 ways, 2 columns each
    rows = _run("--guard", "--num-proc", "2").splitlines()
    assert rows[-1].startswith("check of ") and rows[-1].endswith("same verdicts: True"), rows
    rows = _run("--ranks", "2", "--photos", "24").splitlines()
    assert [r.split()[0] for r in rows[1:-1]] == ["ranks", "no", "one"] and all(" decided, " in r for r in rows[1:-1])
    assert rows[-1].endswith("in every process: True"), rows


def test_the_floor_decodes_every_time(monkeypatch):
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    import stream as bench

    from jigsaw_puzzles.generation.curation import curate

    paths = [s.path for s in curate().accepted][:3]
    decoded = []
    real = bench._normalised
    monkeypatch.setattr(bench, "_normalised", lambda data, rules: decoded.append(len(data)) or real(data, rules))
    bench.floor_rate(paths, (2, 2), 6)
    assert len(decoded) == 6
