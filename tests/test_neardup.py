"""Near duplicates (#28.3): a re-encoded, resized, cropped or re-toned copy of a photo is recognised by the
build's duplicate rule, by ``curate`` and by the training stream's ``exclude=``; distinct photos are not.

The copies are made here from the embedded photos with parameters drawn (hypothesis) within the ranges the
README guarantees; the threshold and the measured rates: docs/performance.md#near-duplicate-photos."""

from __future__ import annotations

import io
import shutil
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image, ImageEnhance

from fixtures.photos import write_photos
from jigsaw_puzzles import geometry
from jigsaw_puzzles.generation import neardup
from jigsaw_puzzles.generation.sources import embedded_folder, list_files, normalise
from jigsaw_puzzles.generation.curation import curate

PHOTOS = list_files(embedded_folder())
BITS = neardup.DEFAULT_BITS


@lru_cache(maxsize=None)
def original(k: int) -> tuple[Image.Image, np.ndarray]:
    image = normalise(Image.open(PHOTOS[k]))
    return image, neardup.fingerprint(image)


def copy_of(image: Image.Image, quality=None, scale=1.0, crop=(0, 0, 0, 0), brightness=1.0, contrast=1.0) -> bytes:
    """The file a user would have made: ``crop`` = fractions removed (left, top, right, bottom)."""
    w, h = image.size
    left, top, right, bottom = crop
    image = image.crop((round(left * w), round(top * h), w - round(right * w), h - round(bottom * h)))
    if scale != 1.0:
        image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                             Image.Resampling.LANCZOS)
    image = ImageEnhance.Contrast(ImageEnhance.Brightness(image).enhance(brightness)).enhance(contrast)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality) if quality else image.save(buffer, "PNG")
    return buffer.getvalue()


def distance(k: int, data: bytes) -> int:
    copy = normalise(Image.open(io.BytesIO(data)))
    return int(neardup.distances(original(k)[1], neardup.fingerprint(copy))[0, 0])


side = st.tuples(st.floats(0, 0.10), st.floats(0, 1)).map(lambda fu: (fu[0] * fu[1], fu[0] * (1 - fu[1])))
TRANSFORMS = {
    "jpeg": st.fixed_dictionaries({"quality": st.integers(50, 95)}),
    "resize": st.fixed_dictionaries({"scale": st.floats(0.25, 2.0)}),
    "crop": st.tuples(side, side).map(lambda xy: {"crop": (xy[0][0], xy[1][0], xy[0][1], xy[1][1])}),
    "brightness": st.fixed_dictionaries({"brightness": st.floats(0.8, 1.2)}),
    "contrast": st.fixed_dictionaries({"contrast": st.floats(0.8, 1.2)}),
}


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(0, len(PHOTOS) - 1), params=st.one_of(*TRANSFORMS.values()))
def test_a_copy_within_the_guaranteed_ranges_is_a_near_duplicate(k, params):
    assert distance(k, copy_of(original(k)[0], **params)) <= BITS, params


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(0, len(PHOTOS) - 1), quality=st.integers(50, 95), scale=st.floats(0.5, 2.0),
       crop=TRANSFORMS["crop"])
def test_a_copy_re_encoded_resized_and_cropped_at_once_is_a_near_duplicate(k, quality, scale, crop):
    """The issue's own copies combine transforms (a JPEG q80 of a 3/4 resize of a crop)."""
    assert distance(k, copy_of(original(k)[0], quality=quality, scale=scale, **crop)) <= BITS


def test_no_two_embedded_photos_are_near_duplicates_so_the_build_keeps_all_57():
    fps = np.stack([original(k)[1] for k in range(len(PHOTOS))])
    table = neardup.distances(fps, fps)
    np.fill_diagonal(table, 64)
    assert table.min() > BITS  # the margin (measured: docs/performance.md) is what keeps every photo
    assert len(curate(None).accepted) == len(PHOTOS) == 57


def test_the_distances_are_those_of_imagehash_phash():
    """The whole-photo hash is imagehash's pHash of the normalised photo's grey thumbnail (no hand-made hash)."""
    import imagehash

    image, fp = original(0)
    grey = image.convert("L")
    grey = geometry.resize(grey, (round(grey.width * 128 / max(grey.size)), round(grey.height * 128 / max(grey.size))),
                           Image.Resampling.BOX)  # Image.resize on Pillow <= 12 (tests/test_resize.py)
    assert f"{int(fp[0]):016x}" == str(imagehash.phash(grey))
    assert len(fp) == len(neardup.CROPS) == 36 and neardup.CROPS[0] == (0, 0, 0, 0)


def test_every_crop_hash_is_imagehash_phash_of_the_crop_resized_at_once():
    """Each of the 36 hashes is imagehash's pHash of ``geometry.resize(grey, (32, 32), LANCZOS, box=crop)``: the
    fingerprint shares the horizontal pass between crops that cut the same columns, which must not change a bit;
    on embedded photos and on odd sizes the guard may see (tiny, 32 px wide or high, long strips)."""
    import imagehash

    rng = np.random.default_rng(7)
    odd = [Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
           for h, w in [(32, 32), (32, 100), (100, 32), (5, 7), (1, 1), (33, 31), (128, 128), (200, 64), (40, 900)]]
    for image in [original(k)[0] for k in range(0, len(PHOTOS), 6)] + odd:
        grey = image.convert("L")
        scale = 128 / max(grey.size)
        if scale < 1:
            grey = geometry.resize(grey, (max(1, round(grey.width * scale)), max(1, round(grey.height * scale))),
                                   Image.Resampling.BOX)
        width, height = grey.size
        expected = [int(str(imagehash.phash(geometry.resize(
            grey, (32, 32), Image.Resampling.LANCZOS,
            box=(left * width, top * height, (1 - right) * width, (1 - bottom) * height)))), 16)
            for left, top, right, bottom in neardup.CROPS]
        assert [int(h) for h in neardup.fingerprint(image)] == expected, image.size


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """Four embedded photos (the evaluation set), a training folder holding a copy of each (re-encoded,
    resized, cropped, re-toned) among eight photos of its own."""
    root = tmp_path_factory.mktemp("neardup")
    originals, train = root / "eval", root / "train"
    originals.mkdir()
    for k in range(4):
        shutil.copy(PHOTOS[k], originals / PHOTOS[k].name)
    write_photos(train, 8, start=300)
    made = {
        "copy_q80_3-4.jpg": dict(quality=80, scale=0.75),
        "copy_crop10_corner.png": dict(crop=(0.10, 0.10, 0, 0)),
        "copy_crop5_bright.jpg": dict(quality=90, crop=(0.02, 0, 0.03, 0.05), brightness=1.08),
        "copy_2x_contrast.jpg": dict(quality=60, scale=1.4, contrast=0.92),
    }
    for k, (name, params) in enumerate(made.items()):
        (train / name).write_bytes(copy_of(Image.open(PHOTOS[k]).convert("RGB"), **params))
    return originals, train, list(made)  # copy k is of PHOTOS[k]


def test_the_build_rule_and_curate_flag_each_copy_and_name_its_original(copies, tmp_path, capsys):
    from jigsaw_puzzles.cli import main

    originals, train, names = copies
    mixed = tmp_path / "mixed"
    shutil.copytree(originals, mixed)
    for name in names:
        shutil.copy(train / name, mixed / name)
    records = {r.path: r for r in curate(mixed).records}
    for k, name in enumerate(names):
        assert records[name].status == "rejected" or records[PHOTOS[k].name].status == "rejected"
    flagged = [r for r in records.values() if r.status == "rejected"]
    assert len(flagged) == 4 and all("near duplicate of" in r.reason and "pHash distance" in r.reason
                                     for r in flagged)
    assert main(["curate", str(mixed)]) == 0
    out = capsys.readouterr().out
    assert out.count("near duplicate of") == 4 and "4 accepted, 4 rejected of 8 files" in out
    # the copies alone, with the originals: each copy is dropped in favour of the original the export holds
    kept = curate(mixed, keep={r.source_id for r in records.values() if r.path in {p.name for p in PHOTOS[:4]}})
    assert sorted(r.path for r in kept.records if r.status == "rejected") == sorted(names)


@pytest.mark.slow
def test_the_stream_never_yields_a_copy_of_an_excluded_photo(copies, tmp_path):
    from jigsaw_puzzles.publishing.export import build
    from jigsaw_puzzles.training.stream import training_stream

    originals, train, names = copies
    copy_ids = {r.source_id for r in curate(train).records if r.path in names}
    assert len(copy_ids) == 4
    export = tmp_path / "export"
    build(export, source=originals, configs=["order_generation"], cache_dir=str(tmp_path / "cache"))
    embedded_ids = [s.source_id for s in curate(originals).accepted]

    def streamed(exclude):
        rows = training_stream(train, mixture={"order_generation": 1}, exclude=exclude, eval_fraction=0.0, passes=1)
        return {r["source_id"] for r in rows}

    everything = {s.source_id for s in curate(train).accepted}
    assert copy_ids <= everything  # the copies are photos of the folder: the guard is what keeps them out
    for exclude in (None, originals, export, embedded_ids):  # none (the embedded photos are always excluded), the
        # photos, their export, their ids
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # every form here carries (or finds) the fingerprints: no warning
            got = streamed(exclude)
        assert got == everything - copy_ids, exclude


@pytest.mark.slow
def test_ids_without_fingerprints_exclude_exact_copies_and_say_so(copies):
    """Bare ids of photos of the training folder are found there (fingerprint and pixels: no warning); an id found
    nowhere excludes its exact bytes only, and a warning says so."""
    from jigsaw_puzzles.training.stream import training_stream

    _, train, names = copies
    others = sorted(s.source_id for s in curate(train).accepted if s.relpath not in names)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = training_stream(train, mixture={"order_generation": 1}, exclude=others[:2], eval_fraction=0.0,
                               passes=1)
        assert not {r["source_id"] for r in rows} & set(others[:2])
    with pytest.warns(UserWarning, match="1 of 2 evaluation photos are known by source id only"):
        training_stream(train, mixture={"order_generation": 1}, exclude=["0123456789abcdef", others[0]],
                        eval_fraction=0.0, passes=1)


# --- the duplicate rule through the index (#35.1): the same decisions as comparing each photo with every kept one

def brute_force_keep_originals(candidates: list, keep: frozenset, bits: int) -> list:
    """The rule as it was (generator 3.x): each photo against every kept one, in the same order. The oracle."""
    candidates = sorted(candidates, key=lambda c: (c[0].source_id not in keep, c[0].source_id, c[0].relpath))
    kept, by_id = [], {}
    fps = np.zeros((len(candidates), len(neardup.CROPS)), dtype=np.uint64)
    for source, fp, record in candidates:
        twin = by_id.get(source.source_id)
        near = neardup.distances(fp, fps[:len(kept)])[0] if kept and twin is None else None
        k = int(np.argmax(near <= bits)) if near is not None and (near <= bits).any() else None
        if twin is not None:
            record.reason = f"exact duplicate of {twin.relpath} ({twin.source_id})"
            continue
        if k is not None:
            other = kept[k][0]
            record.reason = (f"near duplicate of {other.relpath} ({other.source_id}"
                             f"{', already in the benchmark' if other.source_id in keep else ''}): pHash distance "
                             f"{near[k]} <= {bits} (a re-encoded, resized, cropped or re-toned copy)")
            continue
        record.status = "accepted"
        fps[len(kept)] = fp
        kept.append((source, fp))
        by_id[source.source_id] = source
    return [source for source, _ in kept]


def both_rules(fps: np.ndarray, ids: list[str], keep: frozenset, bits: int):
    """(kept ids, [(status, reason)] per photo) by the index and by the oracle, on fresh records each."""
    from jigsaw_puzzles.generation.sources import CurationRecord, Source

    out = []
    for rule in (neardup.keep_originals, brute_force_keep_originals):
        records = [CurationRecord(path=f"p{k}.jpg", status="rejected", source_id=sid) for k, sid in enumerate(ids)]
        candidates = [(Source(sid, f"/x/p{k}.jpg", f"p{k}.jpg", 60, 60), fps[k], records[k])
                      for k, sid in enumerate(ids)]
        kept = rule(candidates, keep, bits)
        out.append(([s.source_id for s in kept], [(r.status, r.reason) for r in records]))
    return out


def clustered_fingerprints(seed: int, n: int, flips: int) -> np.ndarray:
    """``n`` fingerprints whose crop hashes lie a few bits from their whole hash (as a photo's do), many of them
    a few bits from an earlier photo's (clusters of near copies), the rest random."""
    rng = np.random.default_rng(seed)
    bit = np.uint64(1) << np.arange(64, dtype=np.uint64)

    def near(h: np.uint64, k: int) -> np.uint64:
        for b in rng.choice(64, size=k, replace=False):
            h ^= bit[b]
        return h

    whole = []
    for k in range(n):
        if whole and rng.random() < 0.6:
            whole.append(near(whole[int(rng.integers(len(whole)))], int(rng.integers(0, flips + 1))))
        else:
            whole.append(np.uint64(rng.integers(0, 1 << 63)) * np.uint64(2) + np.uint64(rng.integers(2)))
    fps = np.array([[h] + [near(h, int(rng.integers(0, 7))) for _ in neardup.CROPS[1:]] for h in whole],
                   dtype=np.uint64)
    return fps


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 60), flips=st.integers(0, 14), bits=st.integers(0, 16),
       dup=st.integers(0, 5), kept=st.integers(0, 4))
def test_the_index_keeps_what_comparing_every_pair_keeps(seed, n, flips, bits, dup, kept):
    rng = np.random.default_rng(seed)
    fps = clustered_fingerprints(seed, n, flips)
    ids = [f"{int(x):016x}" for x in rng.integers(0, 1 << 62, size=n)]
    for _ in range(dup if n > 1 else 0):  # the same file twice (an exact duplicate: same id, same fingerprint)
        a, b = rng.integers(n, size=2)
        ids[b], fps[b] = ids[a], fps[a]
    keep = frozenset(rng.choice(ids, size=min(kept, n), replace=False).tolist()) if n else frozenset()
    index, oracle = both_rules(fps, ids, keep, bits)
    assert index == oracle


def test_the_index_keeps_what_comparing_every_pair_keeps_on_real_fingerprints():
    """The embedded photos' fingerprints, and copies of them (crops, resizes, re-encodes) from the tests above,
    at the threshold and around it."""
    images = [original(k) for k in range(len(PHOTOS))]
    fps = [fp for _, fp in images]
    rng = np.random.default_rng(7)
    for k in range(0, len(PHOTOS), 3):
        params = {"quality": int(rng.integers(50, 95)), "scale": float(rng.uniform(0.5, 1.5)),
                  "crop": tuple(float(x) for x in rng.uniform(0, 0.05, 4))}
        fps.append(neardup.fingerprint(normalise(Image.open(io.BytesIO(copy_of(images[k][0], **params))))))
    fps = np.stack(fps)
    ids = [f"{k:016x}" for k in rng.permutation(len(fps))]
    for bits in (6, 8, 10, 12, 14):
        index, oracle = both_rules(fps, ids, frozenset(ids[:5]), bits)
        assert index == oracle, bits
    assert sum(s == "accepted" for s, _ in both_rules(fps, ids, frozenset(), 8)[0][1]) == len(PHOTOS)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 40), m=st.integers(0, 40), bits=st.integers(0, 20))
def test_near_between_finds_every_pair_distances_finds(seed, n, m, bits):
    fps = clustered_fingerprints(seed, n + m, 12)
    q, r, d = neardup.near_between(fps[:n], fps[n:], bits)
    table = neardup.distances(fps[:n], fps[n:]) if n and m else np.zeros((n, m))
    assert sorted(zip(*np.nonzero(table <= bits))) == sorted(zip(q.tolist(), r.tolist()))
    assert (d == table[q, r]).all()
