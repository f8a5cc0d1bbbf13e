"""Builds in worker processes (``--num-proc``, ``num_proc=``): the same bytes, and interrupted like one process.

Curation, the plan's probe, generation and the card's baselines run in ``num_proc`` processes. Every step must
give what one process gives (bad files included: a recorded skip, never a dead worker), and a parallel build that
is interrupted (Ctrl-C, a worker killed, a photo overwritten while it runs) leaves no partial export, keeps an
earlier export as it was and loses no file. Timings: ``benchmarks/build.py --parallel 2`` (docs/performance.md).
"""

from __future__ import annotations

import dataclasses
import io
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixtures.photos import make_photo, write_photos
from jigsaw_puzzles import load_dataset, make_builder
from jigsaw_puzzles.generation.sources import content_id, load_normalised
from jigsaw_puzzles.generation.curation import _curate_cached, curate

FORK = multiprocessing.get_start_method() == "fork"  # the interrupted builds patch code their workers inherit


def _messy_folder(folder: Path) -> Path:
    """Good photos and every kind of bad file: corrupt, truncated, not an image, too small, a resized copy."""
    write_photos(folder, 10)
    data = (folder / "photo_003.jpg").read_bytes()
    (folder / "corrupt.jpg").write_bytes(data[:200] + bytes(500) + data[700:])
    (folder / "truncated.jpg").write_bytes(data[: len(data) // 3])
    (folder / "notes.txt").write_text("not a photo")
    (folder / "fake.png").write_bytes(b"\x89PNG not really")
    make_photo(50, (120, 90)).save(folder / "tiny.jpg")
    buf = io.BytesIO()
    make_photo(4).resize((400, 300)).save(buf, "JPEG", quality=80)
    (folder / "sub").mkdir()
    (folder / "sub" / "copy_of_4.jpg").write_bytes(buf.getvalue())
    return folder


def _cold():
    _curate_cached.cache_clear()
    load_normalised.cache_clear()


def test_curation_in_workers_is_the_same_curation_bad_files_included(tmp_path):
    folder = _messy_folder(tmp_path / "photos")
    _cold()
    one = curate(folder)
    _cold()
    two = curate(folder, num_proc=2)
    assert [dataclasses.asdict(r) for r in two.records] == [dataclasses.asdict(r) for r in one.records]
    assert two.accepted == one.accepted and len(one.accepted) == 10
    reasons = {r.path: r.reason for r in two.records if r.status != "accepted"}
    bad = {"corrupt.jpg", "truncated.jpg", "notes.txt", "fake.png", "tiny.jpg"}
    pair = {"photo_004.jpg", "sub/copy_of_4.jpg"}  # of the copy and its original, the smaller id stays
    assert set(reasons) - bad < pair and all(reasons.values())
    dropped = (set(reasons) & pair).pop()
    assert f"near duplicate of {(pair - {dropped}).pop()}" in reasons[dropped]


@pytest.mark.slow
@pytest.mark.parametrize("config", ["missing_piece_selection_easy", "anomaly_detection"])
def test_the_plan_in_workers_is_the_same_plan(tmp_path, config):
    folder = _messy_folder(tmp_path / "photos")
    plans = []
    for num_proc in (None, 2, 3):
        _cold()
        plan = make_builder(config, folder, 0, str(tmp_path / "c")).plan(num_proc=num_proc)
        plans.append((plan["task_skips"], [s.source_id for s in plan["feasible"]], plan["lite"], plan["slots"]))
    assert plans[1] == plans[0] and plans[2] == plans[0]


def test_load_dataset_with_num_proc_is_byte_identical(tmp_path):
    folder = tmp_path / "photos"
    write_photos(folder, 9)
    tables = []
    for num_proc in (None, 2):
        _cold()
        ds = load_dataset("missing_piece_selection_easy", split=None, source=folder, num_proc=num_proc,
                          cache_dir=str(tmp_path / f"cache-{num_proc}"))
        tables.append({split: ds[split].data.table.combine_chunks() for split in ds})
    assert tables[0].keys() == tables[1].keys() == {"test", "lite"}
    assert all(tables[0][s].equals(tables[1][s]) for s in tables[0])


# ------------------------------------------------------------------------------------------- interrupted builds
RUN = r"""
import os, signal, sys, time
from pathlib import Path
# As in a terminal's foreground: a shell without job control starts a background command (``cmd &``, nohup) with
# SIGINT ignored, and an ignored signal stays ignored across exec, so Ctrl-C would not reach the build at all.
signal.signal(signal.SIGINT, signal.default_int_handler)
marker, stage, argv = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
import jigsaw_puzzles.generation.items as items, jigsaw_puzzles.generation.curation as curation

def slowed(fn):  # each worker says it is at work (its pid), then takes its time
    def slow(*args, **kwargs):
        with open(marker, "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(0.25)
        return fn(*args, **kwargs)
    return slow

if stage == "generation":
    items.encode_png = slowed(items.encode_png)
else:
    curation.quality_checks = slowed(curation.quality_checks)
from jigsaw_puzzles.cli import main
sys.exit(main(argv))
"""


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _start(tmp_path: Path, stage: str, folder: Path, out: Path) -> tuple[subprocess.Popen, Path]:
    marker = tmp_path / f"at-work-{stage}"
    marker.unlink(missing_ok=True)
    argv = ["build", "--out", out, "--source", folder, "--configs", "order_generation", "--num-proc", "2",
            "--cache-dir", tmp_path / "cache"]
    proc = subprocess.Popen([sys.executable, "-c", RUN, marker, stage, *map(str, argv)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # its own group, as a shell
    return proc, marker


def _workers(proc: subprocess.Popen, marker: Path, timeout: float = 240) -> list[int]:
    """The pids of the worker processes at work (waits until one is)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = {int(p) for p in marker.read_text().split()} - {proc.pid} if marker.exists() else set()
        if pids:
            return sorted(pids)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("no worker went to work")


def _finish(proc: subprocess.Popen) -> tuple[int, str]:
    _, err = proc.communicate(timeout=120)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # every process of the build has ended with it
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("processes of the build outlived it")
    return proc.returncode, err


def _nothing_partial(out: Path, cache: Path) -> None:
    assert not [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]  # no staging left
    assert not [p for p in cache.rglob("*.incomplete") if p.is_dir()]  # nor a half-made cache entry


@pytest.fixture
def folder(tmp_path) -> Path:
    write_photos(tmp_path / "photos", 12)
    return tmp_path / "photos"


@pytest.mark.slow
@pytest.mark.skipif(not FORK, reason="the slowed-down build patches code its workers inherit by fork")
@pytest.mark.parametrize("stage", ["curation", "generation"])
def test_ctrl_c_in_a_parallel_build_keeps_the_earlier_export_and_every_photo(tmp_path, folder, stage):
    out = tmp_path / "export"
    proc, _ = _start(tmp_path, "none", folder, out)  # an earlier export (nothing slowed)
    assert _finish(proc)[0] == 0
    earlier, photos = _tree(out), _tree(folder)
    proc, marker = _start(tmp_path, stage, folder, out)
    _workers(proc, marker)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole foreground group
    rc, err = _finish(proc)
    assert rc == 130 and "interrupted" in err and "Traceback" not in err, err[-3000:]
    assert _tree(out) == earlier and _tree(folder) == photos
    _nothing_partial(out, tmp_path / "cache")


@pytest.mark.slow
@pytest.mark.skipif(not FORK, reason="the slowed-down build patches code its workers inherit by fork")
@pytest.mark.parametrize("stage", ["curation", "generation"])
def test_a_killed_worker_is_one_line_and_nothing_is_written(tmp_path, folder, stage):
    out = tmp_path / "export"
    photos = _tree(folder)
    proc, marker = _start(tmp_path, stage, folder, out)
    os.kill(_workers(proc, marker)[0], signal.SIGKILL)  # the system's OOM killer, say
    rc, err = _finish(proc)
    lines = [ln[ln.index("jigsaw-puzzles: "):] for ln in err.splitlines() if "jigsaw-puzzles: " in ln]  # after bars
    assert rc == 2 and len(lines) == 1 and "ended abruptly" in lines[0], err[-3000:]
    assert "Traceback" not in err
    assert not out.exists() and _tree(folder) == photos
    _nothing_partial(out, tmp_path / "cache")


@pytest.mark.slow
@pytest.mark.skipif(not FORK, reason="the slowed-down build patches code its workers inherit by fork")
def test_a_photo_overwritten_during_a_parallel_build_is_one_line_and_nothing_is_written(tmp_path, folder):
    out = tmp_path / "export"
    proc, marker = _start(tmp_path, "generation", folder, out)
    _workers(proc, marker)
    last = max(folder.iterdir(), key=lambda p: content_id(p.read_bytes()))  # the last item in id order: made last
    make_photo(99).save(last, quality=92)
    rc, err = _finish(proc)
    lines = [ln[ln.index("jigsaw-puzzles: "):] for ln in err.splitlines() if "jigsaw-puzzles: " in ln]  # after bars
    assert rc == 2 and len(lines) == 1 and "changed during the build" in lines[0], err[-3000:]
    assert not out.exists()
    _nothing_partial(out, tmp_path / "cache")


def test_ordered_map_in_threads_keeps_the_order_and_raises_what_a_job_raises():
    """In one process with ``threads``: the results in the jobs' order (jobs finishing out of order), ``done``
    called in that order, and a job's exception raised as itself."""
    from jigsaw_puzzles.generation.workers import ordered_map

    def square(j):
        time.sleep(0.002 * (4 - j % 5))  # later jobs finish first
        return j * j

    seen = []
    assert list(ordered_map(square, list(range(20)), None, threads=4, done=lambda j, r: seen.append((j, r)))) == \
        [j * j for j in range(20)]
    assert seen == [(j, j * j) for j in range(20)]

    def boom(j):
        if j == 7:
            raise ValueError("job 7")
        return j

    with pytest.raises(ValueError, match="job 7"):
        list(ordered_map(boom, list(range(10)), None, threads=3))
