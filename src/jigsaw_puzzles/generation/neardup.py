"""Near-duplicate photos: a copy of a photo re-encoded, resized, cropped or lightly re-toned is recognised.

A photo's *fingerprint* is the 64-bit perceptual hash (``imagehash.phash``: the signs of the low DCT
frequencies of a 32x32 grey thumbnail) of the photo and of :data:`CROPS`, 35 crops of it that remove up to 10%
of its width and of its height, split in every way between the two sides on a 5% grid. Two photos are near
duplicates when the hash of either whole photo is within ``bits`` (Hamming distance) of any hash of the other's
fingerprint: a crop of a photo matches the photo's own hash of the nearest crop on the grid (at most 2.5% off
each side), which a global hash alone does not. Re-encodes, resizes and small brightness or contrast changes move
a pHash by a few bits; distinct photos are about 32 bits apart. The figures, the threshold and how it was chosen:
docs/performance.md#near-duplicate-photos (``benchmarks/neardup.py``).

Hashes are computed on the normalised image (:func:`jigsaw_puzzles.generation.sources.normalise`), so the file's
size, format and orientation do not enter. ``imagehash`` (with SciPy) is a dependency of the base install: the
build's duplicate rule decides which photos become items, so it must be the same on every install.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from PIL import Image

from .. import geometry
from .hamming import Table, popcount

#: max Hamming distance between two 64-bit pHashes of near duplicates (chosen in docs/performance.md)
DEFAULT_BITS = 8
_STEPS = (0.0, 0.05, 0.10)
#: (left, top, right, bottom) fractions removed; the first is the whole photo
CROPS: tuple[tuple[float, float, float, float], ...] = tuple(
    (left, top, right, bottom)
    for left in _STEPS for right in _STEPS if left + right <= 0.10 + 1e-9
    for top in _STEPS for bottom in _STEPS if top + bottom <= 0.10 + 1e-9)
_THUMB = 128  # long side of the grey thumbnail the crops are cut from (pHash itself reads 32x32)
_SIDE = 32  # imagehash.phash's own thumbnail (hash_size 8 x highfreq_factor 4)


def fingerprint(image: Image.Image) -> np.ndarray:
    """The pHashes (``uint64``) of ``image`` and of its :data:`CROPS`, the whole photo first."""
    import imagehash

    grey = image.convert("L")
    scale = _THUMB / max(grey.size)
    if scale < 1:
        grey = geometry.resize(grey, (max(1, round(grey.width * scale)), max(1, round(grey.height * scale))),
                               Image.Resampling.BOX)  # the same on every Pillow, as every resize below
    width, height = grey.size
    out = np.empty(len(CROPS), dtype=np.uint64)
    columns: dict[tuple[float, float], Image.Image] = {}
    for k, (left, top, right, bottom) in enumerate(CROPS):
        # phash's thumbnail of the crop, as geometry.resize(grey, (32, 32), LANCZOS, box=crop) makes it: its
        # horizontal pass (which reads only the crop's columns) made once for the crops that share the columns
        x0, x1 = left * width, (1 - right) * width
        if (x0, x1) not in columns:
            columns[x0, x1] = geometry.resize(grey, (_SIDE, height), Image.Resampling.LANCZOS, box=(x0, 0, x1, height))
        thumb = geometry.resize(columns[x0, x1], (_SIDE, _SIDE), Image.Resampling.LANCZOS,
                                box=(0, top * height, _SIDE, (1 - bottom) * height))
        out[k] = int.from_bytes(np.packbits(imagehash.phash(thumb).hash.flatten()).tobytes(), "big")
    return out


def to_hex(fp: np.ndarray) -> list[str]:
    """A fingerprint as 16-digit hex strings (how ``curation_report.json`` records it)."""
    return [f"{int(h):016x}" for h in fp]


def from_hex(values: Sequence[str]) -> np.ndarray | None:
    """The fingerprint recorded by :func:`to_hex`, or ``None`` when ``values`` is not one."""
    try:
        if len(values) != len(CROPS):
            return None
        return np.array([int(v, 16) for v in values], dtype=np.uint64)
    except (TypeError, ValueError):
        return None


def distances(queries: np.ndarray, references: np.ndarray) -> np.ndarray:
    """``(len(queries), len(references))`` distances between fingerprints (``(n, K)`` arrays): the least Hamming
    distance from either photo's whole-photo hash to any hash of the other's fingerprint."""
    queries, references = np.atleast_2d(queries), np.atleast_2d(references)
    out = np.empty((len(queries), len(references)), dtype=np.uint8)
    step = max(1, 200_000 // max(1, len(references) * len(CROPS)))
    for start in range(0, len(queries), step):
        q = queries[start:start + step]
        a = popcount(q[:, None, :1] ^ references[None, :, :]).min(-1)  # the query whole vs the reference's crops
        b = popcount(q[:, None, :] ^ references[None, :, :1]).min(-1)  # the reference whole vs the query's crops
        out[start:start + step] = np.minimum(a, b)
    return out


def near_pairs(fps: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(i, j, d)``: every pair ``i < j`` of rows of ``fps`` (``(n, K)`` fingerprints) whose distance (as
    :func:`distances` measures it) is ``d <= bits``, sorted. Found through :class:`.hamming.Table` (multi-index
    hashing): the work per photo does not grow with the number of photos, bar the pairs it finds."""
    fps = np.asarray(fps, dtype=np.uint64).reshape(-1, len(CROPS))
    k = len(CROPS)
    q, t = Table(fps, bits).within(fps[:, 0], drop=lambda q, t: t // k == q)  # a whole photo vs every other hash
    j = t // k
    pairs = np.unique(np.minimum(q, j) * len(fps) + np.maximum(q, j))
    i, j = pairs // max(1, len(fps)), pairs % max(1, len(fps))
    return i, j, _pair_distances(fps[i], fps[j])


def near_between(queries: np.ndarray, references: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray,
                                                                                   np.ndarray]:
    """``(q, r, d)``: every query (row of ``queries``) and reference within ``bits`` (``d``, as :func:`distances`
    measures it), sorted; through :class:`.hamming.Table` both ways round."""
    queries = np.asarray(queries, dtype=np.uint64).reshape(-1, len(CROPS))
    references = np.asarray(references, dtype=np.uint64).reshape(-1, len(CROPS))
    q1, t1 = Table(references, bits).within(queries[:, 0])
    r2, t2 = Table(queries, bits).within(references[:, 0])
    n = max(1, len(references))
    pairs = np.unique(np.concatenate([q1 * n + t1 // len(CROPS), (t2 // len(CROPS)) * n + r2]))
    q, r = pairs // n, pairs % n
    return q, r, _pair_distances(queries[q], references[r])


def _pair_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`distances` of row ``k`` of ``a`` and row ``k`` of ``b``, for every ``k``."""
    return np.minimum(popcount(a[:, :1] ^ b).min(-1), popcount(b[:, :1] ^ a).min(-1)).astype(np.int64) \
        if len(a) else np.zeros(0, dtype=np.int64)


def keep_originals(candidates: list, keep: frozenset, bits: int) -> list:
    """The build's duplicate rule. ``candidates``: ``[(source, fingerprint, record)]`` of the photos that passed
    every other rule. Of near duplicates one stays: a source in ``keep`` (already in the benchmark: an earlier
    export's), else the smallest source id, whatever the file order. Each dropped record gets its reason (the kept
    photo it copies); the kept ones are marked accepted and returned (sources).

    In that order each photo is compared with the ones kept before it, and the first of them within ``bits`` is
    the one it copies; the pairs within ``bits`` are found once, through :func:`near_pairs`, so the cost per photo
    stays flat as the folder grows (1,000 photos or 100,000: docs/performance.md#near-duplicate-photos)."""
    candidates = sorted(candidates, key=lambda c: (c[0].source_id not in keep, c[0].source_id, c[0].relpath))
    fps = np.zeros((len(candidates), len(CROPS)), dtype=np.uint64)
    for k, (_, fp, _) in enumerate(candidates):
        fps[k] = fp
    earlier: dict[int, list[tuple[int, int]]] = {}  # photo -> [(an earlier photo within bits, distance)], ascending
    for i, j, d in zip(*near_pairs(fps, bits)):
        earlier.setdefault(int(j), []).append((int(i), int(d)))
    kept: list = []
    is_kept = np.zeros(len(candidates), dtype=bool)
    by_id: dict = {}
    for k, (source, fp, record) in enumerate(candidates):
        twin = by_id.get(source.source_id)
        if twin is not None:
            record.reason = f"exact duplicate of {twin.relpath} ({twin.source_id})"
            continue
        near = next(((i, d) for i, d in earlier.get(k, ()) if is_kept[i]), None)
        if near is not None:
            other = candidates[near[0]][0]
            record.reason = (f"near duplicate of {other.relpath} ({other.source_id}"
                             f"{', already in the benchmark' if other.source_id in keep else ''}): pHash distance "
                             f"{near[1]} <= {bits} (a re-encoded, resized, cropped or re-toned copy)")
            continue
        record.status = "accepted"
        is_kept[k] = True
        kept.append(source)
        by_id[source.source_id] = source
    return kept
