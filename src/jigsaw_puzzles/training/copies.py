"""Copies of evaluation photos among training photos, as the web makes them: flipped, cropped by up to a quarter,
turned, bordered or letterboxed, put inside a larger frame (a screenshot, a page, a collage), watermarked; and not
two different photos that share a frame (#35.3).

A copy of a photo shows a large part of it, moved by a similarity (scale, turn, shift; a mirror image too) and
otherwise left alone (re-encoded, re-toned, written over in places). So (what Meta's SSCD calls a copy, checked the
way OpenCV's ORB and RANSAC check one):

1. **Local features.** ORB keypoints (OpenCV) of the grey training photo at 512 px, spread over a 4x4 grid of tiles
   (a page's text would take them all otherwise), its corners of a FAST contrast of at least 15 ranked by that
   contrast (10 and a Harris response cost a training photo 1.9 ms more for no copy more caught); of each evaluation
   photo at 512 and 256 px (a photo a quarter of a screenshot is half its size), as it is and mirrored, contrast 10,
   ranked by Harris response.
2. **Candidates through an index.** Each training descriptor looks up its neighbours (Hamming <= 56 of 256 bits)
   among all the evaluation descriptors through locality-sensitive hashing (10 tables keyed on fixed bits, about
   8 descriptors a key);
   each match votes for its evaluation view in a bin of (turn, scale) (the keypoints' angles and sizes: a copy's
   matches agree, chance matches spread), and the views with the highest peaks (at most 8, of at least 8 votes)
   are candidates. The work per training photo does not grow with the training folder.
3. **Geometry.** A similarity fitted to a candidate's matches by RANSAC (``cv2.estimateAffinePartial2D``, its
   fixed seed): at least 12 matches must agree within 4 px.
4. **Pixels.** The training photo is mapped onto the evaluation photo (and back) at 128 px and compared in cells of
   8 px: a cell *agrees* where both are textured (grey std >= 2) and correlate (>= 0.7), *disagrees* where they do
   not, is *flat* where neither is textured, *outside* where the other photo does not reach. A copy is a rectangle
   of at least half of one of the two photos, all inside the other, at least half of its cells agreeing and at most
   a tenth disagreeing, and no more than a fifth of all the cells the other photo covers disagreeing (bar those at
   its edge, where an alignment off by a pixel shows): a crop, a frame or a turn shows such a rectangle and nothing
   against it; two photos in one screenshot, page or collage share their chrome (a wallpaper too), but the photos
   inside it disagree.

The pHash near-duplicate rule of the build (:mod:`..generation.neardup`) runs beside it: a training photo within its
threshold of an evaluation photo is a copy unless local features align the two and their pixels disagree (two
screenshots of one app, 8 bits apart, are not copies of each other); an evaluation photo known by fingerprint
alone (no pixels) is matched by pHash only. The figures, what is and is not caught:
docs/performance.md#copies-of-evaluation-photos (``benchmarks/guard.py``).

Deterministic: OpenCV runs single-threaded inside (its thread count is restored after), RANSAC has a fixed seed,
the hashing bits are fixed, and candidates are ordered by (votes, view); the same photos give the same decisions
in every run (tested across processes). OpenCV is the ``guard`` extra (``opencv-python-headless``); without it
:func:`require_cv2` refuses with the install line.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
from PIL import Image

from ..errors import UsageError, install_hint
from ..generation import neardup

WORK, SMALL = 512, 256  # long sides (px) local features are read at
FEATURES = {"train": 1500, "eval": 500, "small": 250}
FAST = {"train": 15, "eval": 10}  # ORB's FAST thresholds (the evaluation side is computed once)
SCORE = {"train": "FAST", "eval": "HARRIS"}  # what ranks ORB's keypoints (a Harris response costs 0.6 ms a photo)
TILES = 4
MAX_HAMMING = 56
HASH_TABLES, PER_BUCKET = 10, 8  # keys of about log2(descriptors / 8) bits; a bucket past 8x that is skipped
MIN_VOTES, CANDIDATES = 8, 8
MIN_INLIERS, RANSAC_PX = 12, 4.0
SIDE, CELL, TEXTURE, AGREE = 128, 8, 2.0, 0.7  # the pixel check: size, cell, grey std of a textured cell, correlation
SHOWN, MAX_DISAGREE, MIN_AGREE, MAX_CONTRADICTED = 0.5, 0.1, 0.5, 0.2


def require_cv2():
    """OpenCV, or ``UsageError`` with the line that installs it."""
    try:
        import cv2
    except ImportError:
        raise UsageError("excluding evaluation photos needs OpenCV to recognise their copies (flipped, cropped, "
                         f"turned, framed): {install_hint('guard')} (opencv-python-headless)") from None
    return cv2


@contextmanager
def _one_thread(cv2):
    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        yield
    finally:
        cv2.setNumThreads(before)


def grey(image: Image.Image, side: int) -> np.ndarray:
    """The grey image with its long side at most ``side`` (PIL's box filter: the same bytes everywhere)."""
    g = image.convert("L")
    scale = side / max(g.size)
    if scale < 1:
        g = g.resize((max(1, round(g.width * scale)), max(1, round(g.height * scale))), Image.Resampling.BOX)
    return np.asarray(g)


@dataclass
class Features:
    points: np.ndarray  # (n, 2) float32, pixels of the image they were read from
    descriptors: np.ndarray  # (n, 32) uint8
    shape: np.ndarray  # (n, 2) float32: angle (degrees), size (pixels)


def features(cv2, image: np.ndarray, n: int, fast: int = 10, score: str = "HARRIS") -> Features:
    """ORB keypoints of a grey image, at most ``n``, spread over :data:`TILES` x :data:`TILES` tiles (the strongest
    of each tile first, then the strongest left) so that text or one busy corner cannot take them all."""
    orb = cv2.ORB_create(nfeatures=4 * n, scaleFactor=1.2, nlevels=8, edgeThreshold=15, patchSize=31,
                         fastThreshold=fast, scoreType=getattr(cv2, f"ORB_{score}_SCORE"))
    found = orb.detect(image, None)
    if found:
        xy = cv2.KeyPoint_convert(found)
        strength = np.float32([k.response for k in found])
        h, w = image.shape
        tile = (np.minimum(xy[:, 1] * TILES // h, TILES - 1) * TILES + np.minimum(xy[:, 0] * TILES // w, TILES - 1))
        order = np.lexsort((np.arange(len(found)), -strength, tile))
        rank = np.empty(len(found), dtype=np.int64)
        rank[order] = np.arange(len(found)) - np.searchsorted(tile[order], tile[order], side="left")
        chosen = rank < n // TILES ** 2
        rest = np.flatnonzero(~chosen)
        rest = rest[np.lexsort((rest, -strength[rest]))][:max(0, n - int(chosen.sum()))]
        chosen[rest] = True
        found, descriptors = orb.compute(image, [found[k] for k in np.flatnonzero(chosen)])
    if not found or descriptors is None:
        return Features(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8), np.zeros((0, 2), np.float32))
    return Features(cv2.KeyPoint_convert(found), descriptors, np.float32([(k.angle, k.size) for k in found]))


class _Hashing:
    """Locality-sensitive hashing of ORB descriptors: :data:`HASH_TABLES` tables, each keyed on fixed bits of the
    256 (as many as keep about :data:`PER_BUCKET` descriptors a bucket, so a lookup costs the same for 57
    evaluation photos or 1,100); a lookup returns the descriptors sharing a key in any table. A bucket holding more
    than 8x its share (a pattern common to many photos: flat sky, text) is left out: it tells photos apart least."""

    def __init__(self, descriptors: np.ndarray):
        self.words = np.asfortranarray(_words(descriptors))  # a 64-bit word's column contiguous
        n = len(descriptors)
        self.bits = min(24, max(8, int(np.ceil(np.log2(max(2, n) / PER_BUCKET)))))
        self.select = [np.array([(7 * t + 23 * j) % 256 for j in range(self.bits)]) for t in range(HASH_TABLES)]
        self.weights = 1 << np.arange(self.bits, dtype=np.int64)
        bits = np.unpackbits(descriptors, axis=1)
        order, counts, starts = [], [], []
        for select in self.select:
            keys = bits[:, select].astype(np.int64) @ self.weights
            count = np.bincount(keys, minlength=1 << self.bits)
            starts.append(np.cumsum(count) - count)
            count[count > 8 * max(PER_BUCKET, n >> self.bits)] = 0
            counts.append(count)
            order.append(np.argsort(keys, kind="stable"))
        self.order = np.concatenate(order)  # the tables one after another: bucket b of table t at t << bits | b
        self.counts = np.concatenate(counts)
        self.starts = np.concatenate(starts) + np.repeat(np.arange(HASH_TABLES) * n, 1 << self.bits)

    def nearest(self, descriptors: np.ndarray, drop: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """For each descriptor, the nearest indexed one found within :data:`MAX_HAMMING` (``-1``: none) and the
        distance (ties: the one found first, tables in order); indexed descriptors where ``drop`` (a mask) is true
        are never found (the benchmark's photo against the others: as if its own were not indexed)."""
        best = np.full(len(descriptors), -1)
        dist = np.full(len(descriptors), 257)
        if not len(descriptors) or not len(self.words):
            return best, dist
        bits, words = np.unpackbits(descriptors, axis=1), _words(descriptors)
        keys = np.stack([bits[:, select].astype(np.int64) @ self.weights for select in self.select], 1)
        keys += np.arange(HASH_TABLES) << self.bits  # (query, table), in that order: the candidates need no sort
        n = self.counts.take(keys).ravel()
        start = np.cumsum(n) - n
        found = self.order.take(np.repeat(self.starts.take(keys).ravel() - start, n) + np.arange(int(n.sum())))
        per_query = n.reshape(-1, HASH_TABLES).sum(1)
        if drop is not None:
            kept = ~drop.take(found)
            q = np.repeat(np.arange(len(descriptors)), per_query)[kept]
            found, per_query = found[kept], np.bincount(q, minlength=len(descriptors))
        d = np.zeros(len(found), np.uint16)  # Hamming distances, a 64-bit word at a time (gathers: take, repeat)
        for k in range(4):
            d += neardup.popcount(np.repeat(words[:, k], per_query) ^ self.words[:, k].take(found))
        if not len(found):
            return best, dist
        q = np.repeat(np.arange(len(descriptors)), per_query)
        firsts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
        smallest = np.minimum.reduceat(d.astype(np.int64) << 40 | np.arange(len(q)), firsts)  # the first nearest
        at, d = smallest & ((1 << 40) - 1), smallest >> 40
        keep = d <= MAX_HAMMING
        best[q[at[keep]]], dist[q[at[keep]]] = found[at[keep]], d[keep]
        return best, dist


def _words(descriptors: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(descriptors).view(np.uint64).reshape(-1, 4)


@dataclass
class _View:
    photo: int  # index of the evaluation photo
    to_view: np.ndarray  # 3x3: the photo's stored grey (SMALL) pixels -> this view's pixels
    points: np.ndarray


class Evaluation:
    """The evaluation photos, indexed for :meth:`copy_of`. ``photos``: ``(id, image loader or None, pHash
    fingerprint or None)``; a photo without a loader is matched by pHash only, one without either by id only."""

    def __init__(self, photos: Iterable[tuple[str, Callable[[], Image.Image] | None, np.ndarray | None]],
                 bits: int = neardup.DEFAULT_BITS):
        self.ids, self.bits = [], bits
        self.greys: list[np.ndarray | None] = []
        fps, self.fp_rows = [], []
        views, descriptors, shapes = [], [], []
        cv2 = None
        for k, (sid, load, fp) in enumerate(photos):
            self.ids.append(sid)
            if fp is not None:
                fps.append(fp)
                self.fp_rows.append(k)
            self.greys.append(None)
            if load is None:
                continue
            cv2 = cv2 or require_cv2()
            try:
                image = load()
            except Exception:  # the file changed or went since the set was read: matched by pHash alone
                continue
            small = grey(image, SMALL)
            self.greys[k] = small
            with _one_thread(cv2):
                for side, n in ((WORK, FEATURES["eval"]), (SMALL, FEATURES["small"])):
                    g = grey(image, side) if side != SMALL else small
                    scale = _scaling(g.shape[1] / small.shape[1], g.shape[0] / small.shape[0])
                    for mirrored in (False, True):
                        flip = np.array([[-1.0, 0, g.shape[1] - 1], [0, 1, 0], [0, 0, 1]]) if mirrored else np.eye(3)
                        f = features(cv2, np.ascontiguousarray(g[:, ::-1]) if mirrored else g, n, FAST["eval"],
                                     SCORE["eval"])
                        views.append(_View(k, flip @ scale, f.points))
                        descriptors.append(f.descriptors)
                        shapes.append(f.shape)
        self.fps = np.stack(fps) if fps else np.zeros((0, len(neardup.CROPS)), dtype=np.uint64)
        self.views = views
        self.owner = np.concatenate([np.full(len(d), v) for v, d in enumerate(descriptors)]) if views else \
            np.zeros(0, dtype=np.int64)
        self.index_in_view = np.concatenate([np.arange(len(d)) for d in descriptors]) if views else self.owner
        self.shape = np.concatenate(shapes) if views else np.zeros((0, 2), np.float32)
        self.hashing = _Hashing(np.concatenate(descriptors) if views else np.zeros((0, 32), np.uint8))

    def __len__(self) -> int:
        return len(self.ids)

    def copy_of(self, image: Image.Image | None, fp: np.ndarray | None, skip: str | None = None
                ) -> tuple[str, str] | None:
        """``(evaluation id, why)`` when the training photo (its normalised ``image`` and pHash ``fp``) is a copy
        of an evaluation photo (other than ``skip``: the benchmark's photo against all the others, its own features
        left out of the lookup), else ``None``."""
        near = {}
        if fp is not None and len(self.fps):
            _, rows, dist = neardup.near_between(fp[None, :], self.fps, self.bits)
            near = {self.fp_rows[r]: int(d) for r, d in zip(rows, dist) if self.ids[self.fp_rows[r]] != skip}
        if image is None or not self.views:
            k = min(near, key=lambda k: (near[k], k), default=None)
            return None if k is None else (self.ids[k], f"pHash distance {near[k]} <= {self.bits}")
        cv2 = require_cv2()
        with _one_thread(cv2):
            return self._local(cv2, image, near, skip)

    def _local(self, cv2, image: Image.Image, near: dict, skip: str | None) -> tuple[str, str] | None:
        work = grey(image, WORK)
        f = features(cv2, work, FEATURES["train"], FAST["train"], SCORE["train"])
        own = np.array([skip is not None and self.ids[view_.photo] == skip for view_ in self.views])  # its views
        best, _ = self.hashing.nearest(f.descriptors, own[self.owner] if own.any() else None)
        q = np.flatnonzero(best >= 0)
        hit = best[q]
        view = self.owner[hit]
        turn = ((f.shape[q, 0] - self.shape[hit, 0]) % 360 // 30).astype(np.int64)
        scale = np.clip(np.floor(np.log2(f.shape[q, 1] / self.shape[hit, 1]) * 2).astype(np.int64) + 6, 0, 11)
        votes = np.bincount((view * 12 + turn) * 12 + scale, minlength=len(self.views) * 144)
        votes = votes.reshape(len(self.views), 12, 12)
        votes = votes + np.roll(votes, 1, axis=1)
        peak = (votes[:, :, :-1] + votes[:, :, 1:]).reshape(len(self.views), -1).max(1)
        peak[own] = 0
        ranked = [v for v in np.lexsort((np.arange(len(peak)), -peak))[:CANDIDATES] if peak[v] >= MIN_VOTES]
        checked = set()
        for v in ranked + [v for v, view_ in enumerate(self.views) if view_.photo in near and v not in ranked]:
            photo = self.views[v].photo
            pick = view == v
            if pick.sum() < MIN_INLIERS:
                continue
            src = self.views[v].points[self.index_in_view[hit[pick]]]
            fit, inliers = cv2.estimateAffinePartial2D(src, f.points[q[pick]], method=cv2.RANSAC,
                                                       ransacReprojThreshold=RANSAC_PX, maxIters=2000,
                                                       confidence=0.995, refineIters=10)
            if fit is None or int(inliers.sum()) < MIN_INLIERS:
                continue
            checked.add(photo)
            small_to_work = np.vstack([fit, [0, 0, 1]]) @ self.views[v].to_view
            share = shown(cv2, self.greys[photo], work, small_to_work)
            if share >= SHOWN:
                return self.ids[photo], (f"{int(inliers.sum())} local features agree on one similarity and "
                                         f"{share:.0%} of one photo is shown in the other")
        unchecked = [k for k in near if k not in checked]
        k = min(unchecked, key=lambda k: (near[k], k), default=None)
        return None if k is None else (self.ids[k], f"pHash distance {near[k]} <= {self.bits} (too few local "
                                                    "features to check it)")


def shown(cv2, small: np.ndarray, work: np.ndarray, small_to_work: np.ndarray) -> float:
    """The largest share of either photo that the other shows (see the module doc): ``small`` the evaluation
    photo's grey pixels, ``work`` the training photo's, ``small_to_work`` (3x3) mapping the first onto the second."""
    shares = []
    for cells in (_cells(cv2, small, work, small_to_work), _cells(cv2, work, small, np.linalg.inv(small_to_work))):
        inner = np.pad(cells != -2, 1)  # cells whose four neighbours are inside the other photo: an alignment off
        inner = inner[1:-1, 1:-1] & inner[:-2, 1:-1] & inner[2:, 1:-1] & inner[1:-1, :-2] & inner[1:-1, 2:]
        agree, disagree = int((cells[inner] == 2).sum()), int((cells[inner] == -1).sum())  # by a pixel or two
        shares.append(0.0 if disagree > MAX_CONTRADICTED * (agree + disagree) else _rectangle(cells))  # shows there
    return max(shares)


def _cells(cv2, a: np.ndarray, b: np.ndarray, a_to_b: np.ndarray) -> np.ndarray:
    """Each :data:`CELL`-pixel cell of ``a`` at :data:`SIDE` px: 2 agrees, 1 flat, -1 disagrees, -2 outside
    ``b``."""
    f = SIDE / max(a.shape)
    av = cv2.resize(a, (max(CELL, round(a.shape[1] * f)), max(CELL, round(a.shape[0] * f))),
                    interpolation=cv2.INTER_AREA).astype(np.float32)
    f = av.shape[1] / a.shape[1], av.shape[0] / a.shape[0]
    g = min(1.0, (f[0] * f[1]) ** 0.5 / abs(np.linalg.det(a_to_b[:2, :2])) ** 0.5)  # b at the scale it is seen
    bd = cv2.resize(b, (max(1, round(b.shape[1] * g)), max(1, round(b.shape[0] * g))), interpolation=cv2.INTER_AREA)
    g = bd.shape[1] / b.shape[1], bd.shape[0] / b.shape[0]
    m = _scaling(*g) @ a_to_b @ _scaling(1 / f[0], 1 / f[1])  # av pixels -> bd pixels
    size = (av.shape[1], av.shape[0])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    seen = cv2.warpAffine(bd.astype(np.float32), m[:2], size, flags=flags, borderMode=cv2.BORDER_CONSTANT)
    inside = cv2.warpAffine(np.ones(bd.shape, np.float32), m[:2], size, flags=flags, borderMode=cv2.BORDER_CONSTANT)
    gh, gw = av.shape[0] // CELL, av.shape[1] // CELL

    def blocks(x):
        return x[:gh * CELL, :gw * CELL].reshape(gh, CELL, gw, CELL)

    x, y, v = blocks(av), blocks(seen), blocks(inside)
    dx, dy = x - x.mean((1, 3), keepdims=True), y - y.mean((1, 3), keepdims=True)
    sx, sy = np.sqrt((dx ** 2).mean((1, 3))), np.sqrt((dy ** 2).mean((1, 3)))
    corr = (dx * dy).mean((1, 3)) / np.maximum(sx * sy, 1e-6)
    out = np.where((sx >= TEXTURE) | (sy >= TEXTURE), -1, 1)
    out[(sx >= TEXTURE) & (sy >= TEXTURE) & (corr >= AGREE)] = 2
    out[v.min((1, 3)) < 0.99] = -2
    return out


def _scaling(sx: float, sy: float) -> np.ndarray:
    """3x3: pixel centres of an image -> those of the image resized by ``(sx, sy)`` (pixel ``i`` covers
    ``[i - 0.5, i + 0.5]``; a map about pixel 0's centre would be off by half a pixel, and a mirror doubles it)."""
    return np.array([[sx, 0, (sx - 1) / 2], [0, sy, (sy - 1) / 2], [0, 0, 1.0]])


def _rectangle(cells: np.ndarray) -> float:
    """The largest share of the grid a rectangle covers with no cell outside, at most :data:`MAX_DISAGREE` of its
    cells disagreeing and at least :data:`MIN_AGREE` agreeing (every rectangle, by summed-area tables)."""
    gh, gw = cells.shape
    if not gh or not gw:
        return 0.0

    def table(mask):
        return np.pad(mask.astype(np.int32).cumsum(0).cumsum(1), ((1, 0), (1, 0)))

    y0, y1, x0, x1 = np.ix_(np.arange(gh + 1), np.arange(gh + 1), np.arange(gw + 1), np.arange(gw + 1))
    area = np.maximum(y1 - y0, 0) * np.maximum(x1 - x0, 0)

    def count(t):
        return t[y1, x1] - t[y0, x1] - t[y1, x0] + t[y0, x0]

    good = ((area > 0) & (count(table(cells == -2)) == 0) & (count(table(cells == -1)) <= MAX_DISAGREE * area)
            & (count(table(cells == 2)) >= MIN_AGREE * area))
    return float((area * good).max()) / (gh * gw)


def find_copies(evaluation: Evaluation, photos: Sequence[tuple[str, Callable[[], Image.Image] | None,
                                                               np.ndarray | None]],
                progress: bool = False) -> dict[str, tuple[str, str]]:
    """``{training id: (evaluation id, why)}`` for the training ``photos`` (id, image loader, fingerprint) that
    are copies of an evaluation photo."""
    from tqdm.auto import tqdm

    out = {}
    for sid, load, fp in tqdm(photos, desc="checking for copies of evaluation photos", unit="img",
                              disable=not progress):
        found = evaluation.copy_of(load() if load is not None and evaluation.views else None, fp)
        if found is not None:
            out[sid] = found
    return out
