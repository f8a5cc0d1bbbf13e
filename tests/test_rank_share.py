"""Ranks of one job started together share a folder's first curation and guard check through the disk cache:
each starts its walk at its share of the photos (``workers.rank_start``: ``RANK`` / ``WORLD_SIZE``), reads what
another rank kept when it gets there, and decides exactly what one process alone decides."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

from fixtures.photos import write_photos
from fixtures.ranks import RANK_SCRIPT
from jigsaw_puzzles.generation import cachefiles, curation
from jigsaw_puzzles.generation.curation import _curate_cached, curate
from jigsaw_puzzles.generation.sources import content_id, load_normalised
from jigsaw_puzzles.generation.workers import ordered_map, rank_start


def _cold():
    _curate_cached.cache_clear()
    load_normalised.cache_clear()


@pytest.mark.parametrize("env, jobs, start", [
    ({}, 10, 0), ({"RANK": "1"}, 10, 0), ({"WORLD_SIZE": "2"}, 10, 0), ({"RANK": "0", "WORLD_SIZE": "4"}, 10, 0),
    ({"RANK": "1", "WORLD_SIZE": "2"}, 10, 5), ({"RANK": "3", "WORLD_SIZE": "4"}, 10, 7),
    ({"RANK": "2", "WORLD_SIZE": "3"}, 1, 0), ({"RANK": "5", "WORLD_SIZE": "4"}, 10, 0),
    ({"RANK": "-1", "WORLD_SIZE": "4"}, 10, 0), ({"RANK": "one", "WORLD_SIZE": "2"}, 10, 0),
    ({"RANK": "1", "WORLD_SIZE": "0"}, 10, 0)])
def test_rank_start_is_the_ranks_share_or_zero(monkeypatch, env, jobs, start):
    for name in ("RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert rank_start(jobs) == start


@pytest.mark.parametrize("num_proc, threads", [(None, 1), (None, 3), (2, 1)])
@pytest.mark.parametrize("first", [0, 1, 7, 12, 25])
def test_ordered_map_from_another_first_job_yields_the_same_results_in_order(num_proc, threads, first):
    """Each job run once, beginning at ``first`` (wrapping), ``done`` called for every job, the results in the jobs'
    order."""
    jobs = list(range(12))
    run, seen = [], []
    out = list(ordered_map(_square, jobs, num_proc, threads=threads, first=first,
                           done=lambda job, result: (seen.append(job), run.append(result))))
    assert out == [j * j for j in jobs]
    assert sorted(seen) == jobs and len(seen) == len(jobs)
    if num_proc is None and threads == 1:  # in one thread, the order they ran in
        k = first % len(jobs)
        assert seen == jobs[k:] + jobs[:k]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 40), first=st.integers(0, 100), threads=st.sampled_from([1, 2, 5]))
def test_ordered_map_from_any_first_job_is_ordered_map(n, first, threads):
    jobs = list(range(n))
    seen = []
    assert list(ordered_map(_square, jobs, None, threads=threads, first=first,
                            done=lambda job, _: seen.append(job))) == [j * j for j in jobs]
    assert sorted(seen) == jobs


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(jobs=st.integers(0, 10_000), world=st.integers(1, 512))
def test_rank_start_spreads_the_ranks_over_the_jobs(jobs, world):
    """Every rank starts inside the jobs, the ranks in order, and no two ranks share a start while there are as
    many jobs as ranks."""
    starts = []
    for rank in range(world):
        with mock.patch.dict(os.environ, {"RANK": str(rank), "WORLD_SIZE": str(world)}):
            starts.append(rank_start(jobs))
    assert starts == sorted(starts) and all(0 <= s < max(jobs, 1) for s in starts)
    if jobs >= world:
        assert len(set(starts)) == world


def _square(j):
    return j * j


def test_a_rank_curates_from_its_share_and_decides_what_one_process_decides(tmp_path, monkeypatch):
    folder = tmp_path / "photos"
    write_photos(folder, 24, start=400)
    monkeypatch.setenv(cachefiles.ENV, "off")
    _cold()
    alone = curate(folder)
    order = []
    real = curation._decide
    monkeypatch.setattr(curation, "_decide", lambda sid, data, rules: (order.append(sid), real(sid, data, rules))[1])
    monkeypatch.setenv(cachefiles.ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    _cold()
    ranked = curate(folder)
    files = sorted(folder.iterdir())
    assert order[0] == content_id(files[8].read_bytes())  # chunks of 8 (in one process): rank 1 of 2 starts at
    # the second of the 3
    assert sorted(order) == sorted(content_id(p.read_bytes()) for p in files)
    assert [dataclasses.asdict(r) for r in ranked.records] == [dataclasses.asdict(r) for r in alone.records]
    assert ranked.accepted == alone.accepted
    monkeypatch.setenv(cachefiles.ENV, "off")  # with nothing kept on disk there is nothing to share: from 0
    order.clear()
    _cold()
    curate(folder)
    assert order[0] == content_id(files[0].read_bytes())


def test_a_rank_checks_for_copies_from_its_share_with_the_same_verdicts(tmp_path, monkeypatch):
    pytest.importorskip("cv2")
    from jigsaw_puzzles.training import copies, exclusion

    folder, evaluation = tmp_path / "photos", tmp_path / "eval"
    write_photos(folder, 24, start=430)
    write_photos(evaluation, 3, start=460)
    (folder / "copy.jpg").write_bytes((evaluation / sorted(os.listdir(evaluation))[1]).read_bytes())
    monkeypatch.setenv(cachefiles.ENV, "off")
    _cold()
    cur = curate(folder)
    known = exclusion.evaluation_photos(evaluation, "")
    exclusion._CHECKED.clear()
    alone = exclusion.copies_among(cur.accepted, cur, known)
    assert len(alone) == 0  # an exact copy is an evaluation photo itself (excluded by id), not a copy of one
    order = []
    real = copies.training_features
    monkeypatch.setattr(copies, "training_features", lambda image: (order.append(content_id(image.tobytes())),
                                                                     real(image))[1])
    monkeypatch.setenv(cachefiles.ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("RANK", "2")
    monkeypatch.setenv("WORLD_SIZE", "3")
    monkeypatch.setattr(exclusion, "THREADS", 1)
    exclusion._CHECKED.clear()
    ranked = exclusion.copies_among(cur.accepted, cur, known)
    assert ranked == alone
    train = sorted(s.source_id for s in cur.accepted if s.source_id not in known)
    pixels = {content_id(load_normalised(s.path).tobytes()): s.source_id for s in cur.accepted}
    chunks = [train[k:k + 8] for k in range(0, len(train), 8)]
    assert pixels[order[0]] == chunks[len(chunks) * 2 // 3][0]
    assert sorted(pixels[o] for o in order) == train




@pytest.mark.slow
def test_two_ranks_started_together_decide_as_one_process_and_share_the_work(tmp_path):
    """Two processes of one job (RANK 0 and 1 of 2) on one cache folder, started together: each curates and checks
    the folder as one process alone does, and between them each photo is decided and its features computed fewer
    than twice (what the other kept is read)."""
    pytest.importorskip("cv2")
    folder, evaluation = tmp_path / "photos", tmp_path / "eval"
    write_photos(folder, 40, start=500)
    write_photos(evaluation, 3, start=560)
    env = {**os.environ, cachefiles.ENV: str(tmp_path / "cache"), "WORLD_SIZE": "2"}
    procs = [subprocess.Popen([sys.executable, "-c", RANK_SCRIPT, str(folder), str(evaluation)], text=True,
                              stdout=subprocess.PIPE, env={**env, "RANK": str(rank)}) for rank in (0, 1)]
    try:
        outs = [json.loads(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in procs]
    finally:
        for p in procs:
            p.kill()
    alone = subprocess.run([sys.executable, "-c", RANK_SCRIPT, str(folder), str(evaluation)], text=True, check=True,
                           capture_output=True, env={**os.environ, cachefiles.ENV: "off"}, timeout=300)
    alone = json.loads(alone.stdout.strip().splitlines()[-1])
    for out in outs:
        assert (out["accepted"], out["copies"]) == (alone["accepted"], alone["copies"])
    assert alone["decided"] == 40 + 3 and alone["features"] == len(alone["accepted"])  # the evaluation folder's 3
    assert sum(o["decided"] for o in outs) < 2 * alone["decided"]
    assert sum(o["features"] for o in outs) < 2 * alone["features"]


def test_an_interrupted_check_of_a_rank_keeps_the_verdicts_it_made(tmp_path, monkeypatch):
    """Ctrl-C during a rank's check: the verdicts made before it are on disk (a rank turns its photos round; it does
    not hold them back to yield them in order)."""
    pytest.importorskip("cv2")
    from jigsaw_puzzles.training import copies, exclusion

    folder, evaluation = tmp_path / "photos", tmp_path / "eval"
    write_photos(folder, 24, start=430)
    write_photos(evaluation, 2, start=460)
    monkeypatch.setenv(cachefiles.ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setattr(exclusion, "THREADS", 1)
    _cold()
    cur = curate(folder)
    known = exclusion.evaluation_photos(evaluation, "")
    real, calls = copies.training_features, []

    def stopped(image):
        calls.append(1)
        if len(calls) > 12:
            raise KeyboardInterrupt
        return real(image)

    monkeypatch.setattr(copies, "training_features", stopped)
    exclusion._CHECKED.clear()
    with pytest.raises(KeyboardInterrupt):
        exclusion.copies_among(cur.accepted, cur, known)
    kept = {}
    for path in (tmp_path / "cache").glob("guard/verdicts-*/*-*.json"):
        kept.update(json.loads(path.read_text())["verdicts"])
    train = sorted(s.source_id for s in cur.accepted)
    assert set(kept) == set(train[8:16])  # the first chunk of 8 it checked, from its share on (chunk 2 of 3 ...)
