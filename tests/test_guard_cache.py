"""The guard's disk cache (``training.guard_cache``): a training photo's features and the verdicts against an
evaluation set outlive the process, give the same stream as a check from scratch, and never serve a stale or
unreadable entry; ``off`` writes nothing."""

from __future__ import annotations

import json
import logging
import shutil

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from PIL import Image

from fixtures.copies import make_copy, saved
from fixtures.photos import make_photo, write_photos
from jigsaw_puzzles.generation import neardup
from jigsaw_puzzles.generation.sources import embedded_folder, list_files, normalise

pytest.importorskip("cv2")

EMBEDDED = list_files(embedded_folder())


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Evaluation photos (three embedded ones) and a training folder with a flipped copy and a screenshot of two of
    them and six photos of its own."""
    root = tmp_path_factory.mktemp("guard_cache")
    evaluation, train = root / "eval", root / "train"
    evaluation.mkdir()
    for k in (3, 17, 40):
        shutil.copy(EMBEDDED[k], evaluation / EMBEDDED[k].name)
    write_photos(train, 6, start=700)
    rng = np.random.default_rng(5)
    fillers = [normalise(make_photo(5000 + s)) for s in range(4)]
    for kind, k in (("flip", 3), ("screenshot", 40)):
        copy = make_copy(normalise(Image.open(EMBEDDED[k])), kind, rng, fillers)
        (train / f"copy_{kind}.jpg").write_bytes(saved(copy, rng))
    return evaluation, train


def _served(train, exclude):
    from jigsaw_puzzles.training.stream import training_stream

    rows = training_stream(train, mixture={"order_generation": 1}, exclude=exclude, eval_fraction=0.0, passes=1)
    return [(r["source_id"], r["answer"]) for r in rows]


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """The cache in a fresh folder; counts of photos checked and of features computed."""
    from jigsaw_puzzles.generation import cachefiles
    from jigsaw_puzzles.training import copies, exclusion

    monkeypatch.setenv(cachefiles.ENV, str(tmp_path / "cache"))
    exclusion._CHECKED.clear()
    calls = {"checked": 0, "features": 0, "indexed": 0}
    real_copy_of, real_features, real_init = copies.Evaluation.copy_of, copies.training_features, \
        copies.Evaluation.__init__

    def init(self, *args, **kwargs):
        calls["indexed"] += 1
        real_init(self, *args, **kwargs)

    def copy_of(self, *args, **kwargs):
        calls["checked"] += 1
        return real_copy_of(self, *args, **kwargs)

    def training_features(image):
        calls["features"] += 1
        return real_features(image)

    monkeypatch.setattr(copies.Evaluation, "copy_of", copy_of)
    monkeypatch.setattr(copies, "training_features", training_features)
    monkeypatch.setattr(copies.Evaluation, "__init__", init)
    yield calls, tmp_path / "cache" / "guard"
    exclusion._CHECKED.clear()


@pytest.mark.slow
def test_a_new_process_reads_the_verdicts_and_a_new_set_reads_the_features(folders, counted, monkeypatch, tmp_path):
    from jigsaw_puzzles.generation import cachefiles
    from jigsaw_puzzles.training import exclusion

    evaluation, train = folders
    calls, cache = counted
    monkeypatch.setenv(cachefiles.ENV, "off")
    fresh = _served(train, evaluation)  # no cache at all: the reference
    exclusion._CHECKED.clear()
    assert calls["features"] == 0 and not cache.exists()
    monkeypatch.setenv(cachefiles.ENV, str(cache.parent))
    calls["checked"] = 0

    assert _served(train, evaluation) == fresh  # first: every photo's features computed and kept
    n = calls["checked"]
    assert n == 8 and calls["features"] == n
    assert len(list(cache.glob("features-*/*/*.npy"))) == n and len(list(cache.glob("verdicts-*/*-*.json"))) == 1
    exclusion._CHECKED.clear()  # as in another process
    assert _served(train, evaluation) == fresh and calls["checked"] == n  # the verdicts were read: nothing checked
    assert calls["indexed"] == 2  # nor were the evaluation photos read again

    another = tmp_path / "another"  # another evaluation set: checked again, from the features kept
    shutil.copytree(evaluation, another)
    exclusion._CHECKED.clear()
    assert _served(train, another) == fresh and calls["checked"] == 2 * n and calls["features"] == n
    assert len(list(cache.glob("verdicts-*/*-*.json"))) == 2
    served = {sid for sid, _ in fresh}
    assert len(served) == 6  # the two copies are not served


def test_the_cached_check_decides_as_a_check_from_scratch(folders, tmp_path):
    """The features read back are the features computed (the same bytes), and copy_of decides the same with them,
    loading the photo only where a candidate needs its pixels."""
    from jigsaw_puzzles.generation.sources import load_normalised
    from jigsaw_puzzles.generation.curation import curate
    from jigsaw_puzzles.training.copies import Evaluation, training_features
    from jigsaw_puzzles.training.guard_cache import FeatureStore

    evaluation, train = folders
    index = Evaluation([(s.source_id, (lambda s=s: load_normalised(s.path)), None) for s in curate(evaluation).accepted])
    store = FeatureStore(tmp_path)
    found = 0
    for s in curate(train).accepted:
        image = load_normalised(s.path)
        computed = training_features(image)
        store.store(s.source_id, computed)
        read = store.load(s.source_id)
        for name in ("points", "descriptors", "shape"):
            a, b = getattr(computed, name), getattr(read, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name
        loads = []
        verdict = index.copy_of(lambda: loads.append(1) or image, None, known=read)
        assert verdict == index.copy_of(image, None)
        found += verdict is not None
        assert verdict is None or loads == [1]  # a copy's pixels were compared; loaded once
    assert found == 2


def _index_arrays(index):
    return [index.ids, [None if g is None else g.tobytes() for g in index.greys], index.fps.tobytes(),
            [(v.photo, v.to_view.tobytes(), v.points.tobytes()) for v in index.views], index.owner.tobytes(),
            index.index_in_view.tobytes(), index.shape.tobytes(), index.hashing.order.tobytes(),
            index.hashing.counts.tobytes(), index.hashing.words.tobytes()]


def test_the_evaluation_index_read_back_is_the_index_computed(folders, tmp_path, caplog):
    """An evaluation set indexed with its views kept, then again from the disk (no photo loaded), from another first
    photo (a rank's share), and with a kept file truncated (a warning, that photo recomputed): the same index, array
    for array, and the same verdicts."""
    from jigsaw_puzzles.generation.sources import load_normalised
    from jigsaw_puzzles.generation.curation import curate
    from jigsaw_puzzles.training.copies import Evaluation
    from jigsaw_puzzles.training.guard_cache import EvaluationStore

    evaluation, train = folders
    photos = curate(evaluation).accepted
    fps = [neardup.fingerprint(load_normalised(s.path)) for s in photos]
    loaded = []

    def loader(s):
        return lambda: loaded.append(s.source_id) or load_normalised(s.path)

    plain = Evaluation([(s.source_id, loader(s), fp) for s, fp in zip(photos, fps)])
    store = EvaluationStore(tmp_path)
    loaded.clear()
    kept = Evaluation([(s.source_id, loader(s), fp) for s, fp in zip(photos, fps)], store=store, first=2)
    assert loaded == [photos[2].source_id, photos[0].source_id, photos[1].source_id]  # from the third, round
    loaded.clear()
    read = Evaluation([(s.source_id, loader(s), fp) for s, fp in zip(photos, fps)], store=store)
    assert loaded == []
    assert _index_arrays(kept) == _index_arrays(plain) == _index_arrays(read)
    for s in curate(train).accepted:
        image = load_normalised(s.path)
        fp = neardup.fingerprint(image)
        assert read.copy_of(image, fp) == plain.copy_of(image, fp)
    for first in range(len(photos) + 2):  # every rank's share, and past the end
        swept = Evaluation([(s.source_id, loader(s), fp) for s, fp in zip(photos, fps)],
                           store=EvaluationStore(tmp_path / f"sweep{first}"), first=first)
        assert _index_arrays(swept) == _index_arrays(plain), first
    loaded.clear()
    path = store._path(photos[1].source_id)
    path.write_bytes(path.read_bytes()[:300])
    with caplog.at_level(logging.WARNING):
        again = Evaluation([(s.source_id, loader(s), fp) for s, fp in zip(photos, fps)], store=store)
    assert loaded == [photos[1].source_id] and "ignoring unreadable guard cache file" in caplog.text
    assert _index_arrays(again) == _index_arrays(plain)
    np.save(path, np.arange(100, dtype=np.uint8))  # an array of ours in form, not in sizes
    loaded.clear()
    with caplog.at_level(logging.WARNING):
        again = Evaluation([(s.source_id, loader(s), fp) for s, fp in zip(photos, fps)], store=store)
    assert loaded == [photos[1].source_id] and "ignoring malformed guard cache file" in caplog.text
    assert _index_arrays(again) == _index_arrays(plain)


@pytest.mark.slow
def test_unreadable_entries_are_recomputed_and_off_writes_nothing(folders, counted, monkeypatch, caplog):
    from jigsaw_puzzles.generation import cachefiles
    from jigsaw_puzzles.training import exclusion, guard_cache

    evaluation, train = folders
    calls, cache = counted
    first = _served(train, evaluation)
    for path in cache.glob("features-*/*/*.npy"):
        path.write_bytes(path.read_bytes()[:100])  # truncated
    (verdicts,) = cache.glob("verdicts-*/*-*.json")
    verdicts.write_text("{not json")
    exclusion._CHECKED.clear()
    with caplog.at_level(logging.WARNING, logger="jigsaw_puzzles.training.guard_cache"):
        assert _served(train, evaluation) == first
    assert calls["features"] == 16 and "ignoring unreadable guard cache file" in caplog.text
    assert guard_cache.VerdictStore(cache, None).load() == {}  # another key: no file

    shutil.rmtree(cache)
    monkeypatch.setenv(cachefiles.ENV, "off")
    exclusion._CHECKED.clear()
    assert _served(train, evaluation) == first and not cache.exists()


def test_a_cache_that_cannot_be_written_costs_time_not_the_stream(folders, counted, monkeypatch, caplog):
    from jigsaw_puzzles.training import guard_cache

    evaluation, train = folders
    calls, cache = counted
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("a file where the folder would go")
    with caplog.at_level(logging.WARNING, logger="jigsaw_puzzles.training.guard_cache"):
        rows = _served(train, evaluation)
    assert len({sid for sid, _ in rows}) == 6 and "could not keep" in caplog.text
    assert cache.read_text() == "a file where the folder would go"
    assert guard_cache.guard_cache_dir() == cache


def test_the_verdicts_are_keyed_by_the_evaluation_set_and_merged(tmp_path, caplog):
    """Each check writes its own file, so processes checking at once lose nothing; a load reads them all (and not
    the folder's record of its key, ``meta.json``)."""
    from jigsaw_puzzles.training.guard_cache import VerdictStore, guard_code

    a, b = VerdictStore(tmp_path, ("set", 1)), VerdictStore(tmp_path, ("set", 2))
    assert a.dir != b.dir
    a.store({"x": None})
    VerdictStore(tmp_path, ("set", 1)).store({"y": ("e", "why")})  # another process, the same set
    with caplog.at_level(logging.WARNING, logger="jigsaw_puzzles.training.guard_cache"):
        assert a.load() == {"x": None, "y": ("e", "why")} and b.load() == {}
    assert caplog.text == ""
    assert json.loads((a.dir / "meta.json").read_text())["code"] == guard_code()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 60), st.integers(0, 16))
def test_one_photo_against_the_set_finds_what_the_index_finds(seed, n, bits):
    """``copy_of`` compares one fingerprint with a set of up to 4,096 by every distance at once: the same photos
    and distances as ``neardup.near_between``'s index, on fingerprints near and far."""
    rng = np.random.default_rng(seed)
    references = rng.integers(0, 2 ** 63, size=(n, len(neardup.CROPS)), dtype=np.uint64)
    query = references[rng.integers(n)].copy()
    for k in range(len(query)):
        for b in rng.integers(0, 64, size=int(rng.integers(0, 12))):
            query[k] ^= np.uint64(1 << int(b))
    _, rows, dist = neardup.near_between(query[None], references, bits)
    every = neardup.distances(query[None], references)[0].astype(np.int64)
    assert rows.tolist() == np.flatnonzero(every <= bits).tolist() and dist.tolist() == every[rows].tolist()


def test_worker_processes_read_and_keep_the_same_files(folders, counted, tmp_path):
    """``num_proc=2``: the workers read the features kept by a check in one process and give its stream."""
    from jigsaw_puzzles.training import exclusion
    from jigsaw_puzzles.training.stream import training_stream

    evaluation, train = folders
    calls, cache = counted
    one = _served(train, evaluation)
    files = sorted(cache.glob("features-*/*/*.npy"))
    another = tmp_path / "another"
    shutil.copytree(evaluation, another)
    exclusion._CHECKED.clear()
    rows = training_stream(train, mixture={"order_generation": 1}, exclude=another, eval_fraction=0.0, passes=1,
                           num_proc=2)
    assert [(r["source_id"], r["answer"]) for r in rows] == one
    assert sorted(cache.glob("features-*/*/*.npy")) == files and len(list(cache.glob("verdicts-*/*-*.json"))) == 2
