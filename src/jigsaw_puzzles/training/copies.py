"""Copies of evaluation photos among training photos, as the web makes them: flipped, cropped by up to a quarter,
turned, bordered or letterboxed, put inside a larger frame (a screenshot, a page, a collage), watermarked; since
#44.4 stretched, keystoned, inverted (a negative); and not two different photos that share a frame (#35.3).

A copy of a photo shows a large part of it, moved by a similarity (scale, turn, shift; a mirror image too; or, where
a similarity's pixels disagree, a homography: a stretch, a keystone) and otherwise left alone (re-encoded,
re-toned, inverted, written over in places). So (what Meta's SSCD calls a copy, checked the
way OpenCV's ORB and RANSAC check one):

1. **Local features.** ORB keypoints (OpenCV) of the grey training photo at 512 px, spread over a 4x4 grid of tiles
   (a page's text would take them all otherwise), its corners of a FAST contrast of at least 15 ranked by that
   contrast (10 and a Harris response cost a training photo 1.9 ms more for no copy more caught); of each evaluation
   photo at 512 and 256 px (a photo a quarter of a screenshot is half its size), as it is and mirrored, contrast 10,
   ranked by Harris response; and its negative at 512 and 256 px and itself at 128 px (a cell of a 4x4 collage),
   the *extra* views (:data:`VIEWS`).
2. **Candidates through an index.** Each training descriptor looks up its neighbours (Hamming <= 56 of 256 bits)
   among all the evaluation descriptors through locality-sensitive hashing (10 tables keyed on fixed bits, about
   8 descriptors a key; the extra views' in a second index of 5 tables, so that they never take the nearest
   neighbours of the others nor fill their buckets);
   each match votes for its evaluation view in a bin of (turn, scale) (the keypoints' angles and sizes: a copy's
   matches agree, chance matches spread), and the views with the highest peaks (at most 8, of at least 8 votes)
   are candidates. The work per training photo does not grow with the training folder.
3. **Geometry.** A similarity fitted to a candidate's matches by RANSAC (``cv2.estimateAffinePartial2D``, its
   fixed seed): at least 12 matches must agree within 4 px. Where its pixels (4.) disagree, a homography of the
   same matches (``cv2.findHomography``, RANSAC, its fixed seed) with as many inliers or more that lays the photo
   down as a photograph of it could (:func:`.pixel_check.plausible`) is checked the same way.
4. **Pixels.** The two photos compared where the similarity lays one on the other: a copy shows at least half
   of one of them with nothing against it (:mod:`.pixel_check`; a negative view's candidate against the negative
   grey).

The pHash near-duplicate rule of the build (:mod:`..generation.neardup`) runs beside it: a training photo within its
threshold of an evaluation photo is a copy unless local features align the two and their pixels disagree, or,
where too few features match to align them, the whole photos laid on each other (as pHash compares them) disagree
on a tenth of the evaluation photo or more (two screenshots of one app, 8 bits apart, are not copies of each
other); an evaluation photo known by fingerprint alone (no pixels) is matched by pHash only. The figures, what is
and is not caught: docs/performance.md#copies-of-evaluation-photos (``benchmarks/guard.py``).

Deterministic: OpenCV runs single-threaded inside (while any check of the process runs, in any of its threads; its
thread count is restored after the last), RANSAC has a fixed seed, the hashing bits are fixed, and candidates are
ordered by (votes, view); a verdict depends on its photo and the evaluation set alone, so the same photos give the
same decisions in every run, process and number of threads checking them (tested). OpenCV is the ``guard`` extra
(``opencv-python-headless``); without it :func:`require_cv2` refuses with the install line.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
from PIL import Image

from ..errors import UsageError, install_hint
from ..generation import neardup
from ..publishing.guard_index import SMALL, WORK, grey, greys_of  # long sides (px) local features are read at
from .pixel_check import SHOWN, contradicted, plausible, scaling, shown

FEATURES = {"train": 1500, "eval": 500, "small": 250, "tiny": 250}
TINY = SMALL // 2  # an evaluation photo's third size: a cell of a 4x4 collage is about 128 px at WORK
FAST = {"train": 15, "eval": 10}  # ORB's FAST thresholds (the evaluation side is computed once)
SCORE = {"train": "FAST", "eval": "HARRIS"}  # what ranks ORB's keypoints (a Harris response costs 0.6 ms a photo)
TILES = 4
MAX_HAMMING = 56
HASH_TABLES, PER_BUCKET = 10, 8  # keys of about log2(descriptors / 8) bits; a bucket past 8x that is skipped
EXTRA_TABLES = 5  # the negatives' and TINY views' lookup: half the tables (its cost), a negative matches plenty
MIN_VOTES, CANDIDATES = 8, 8
MIN_INLIERS, RANSAC_PX = 12, 4.0


def require_cv2():
    """OpenCV, or ``UsageError`` with the line that installs it."""
    try:
        import cv2
    except ImportError:
        raise UsageError("excluding evaluation photos needs OpenCV to recognise their copies (flipped, cropped, "
                         f"turned, framed): {install_hint('guard')} (opencv-python-headless)") from None
    return cv2


_HELD = threading.Lock()
_HOLDERS = [0, None]  # checks running in this process's threads; OpenCV's thread count before the first


@contextmanager
def _one_thread(cv2):
    """OpenCV single-threaded while any check of this process runs (in any of its threads), its thread count
    restored when the last one ends."""
    with _HELD:
        if _HOLDERS[0] == 0:
            _HOLDERS[1] = cv2.getNumThreads()
            cv2.setNumThreads(1)
        _HOLDERS[0] += 1
    try:
        yield
    finally:
        with _HELD:
            _HOLDERS[0] -= 1
            if _HOLDERS[0] == 0:
                cv2.setNumThreads(_HOLDERS[1])


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

    def __init__(self, descriptors: np.ndarray, tables: int = HASH_TABLES):
        self.tables = tables
        self.words = np.asfortranarray(_words(descriptors))  # a 64-bit word's column contiguous
        n = len(descriptors)
        self.bits = min(24, max(8, int(np.ceil(np.log2(max(2, n) / PER_BUCKET)))))
        self.select = [np.array([(7 * t + 23 * j) % 256 for j in range(self.bits)]) for t in range(tables)]
        self.weights = 1 << np.arange(self.bits, dtype=np.int64)
        order, counts, starts = [], [], []
        for keys in self.keys(descriptors).T:
            count = np.bincount(keys, minlength=1 << self.bits)
            starts.append(np.cumsum(count) - count)
            count[count > 8 * max(PER_BUCKET, n >> self.bits)] = 0
            counts.append(count)
            order.append(np.argsort(keys, kind="stable"))
        self.order = np.concatenate(order)  # the tables one after another: bucket b of table t at t << bits | b
        self.counts = np.concatenate(counts)
        self.starts = np.concatenate(starts) + np.repeat(np.arange(tables) * n, 1 << self.bits)

    def keys(self, descriptors: np.ndarray) -> np.ndarray:
        """``(n, tables)``: bit ``j`` of table ``t``'s key is bit ``select[t][j]`` of the descriptor (in
        ``np.unpackbits``' order)."""
        bits = np.unpackbits(descriptors, axis=1)
        return np.stack([bits[:, select].astype(np.int64) @ self.weights for select in self.select], 1)

    def nearest(self, descriptors: np.ndarray, drop: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """For each descriptor, the nearest indexed one found within :data:`MAX_HAMMING` (``-1``: none) and the
        distance (ties: the one found first, tables in order); indexed descriptors where ``drop`` (a mask) is true
        are never found (the benchmark's photo against the others: as if its own were not indexed)."""
        best = np.full(len(descriptors), -1)
        dist = np.full(len(descriptors), 257)
        if not len(descriptors) or not len(self.words):
            return best, dist
        words = _words(descriptors)
        keys = self.keys(descriptors)
        keys += np.arange(self.tables) << self.bits  # (query, table), in that order: the candidates need no sort
        n = self.counts.take(keys).ravel()
        start = np.cumsum(n) - n
        found = self.order.take(np.repeat(self.starts.take(keys).ravel() - start, n) + np.arange(int(n.sum())))
        per_query = n.reshape(-1, self.tables).sum(1)
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
    inverted: bool = False  # a view of the photo's negative: its pixels are compared as 255 - grey
    tiny: bool = False  # a view at TINY px


class Evaluation:
    """The evaluation photos, indexed for :meth:`copy_of`. ``photos``: ``(id, image loader or None, pHash
    fingerprint or None)``, the loader giving the normalised photo or its greys (:func:`evaluation_views`); a photo
    without a loader is matched by pHash only, one without either by id only.
    ``store``: a :class:`.guard_cache.EvaluationStore` each photo's :func:`evaluation_views` are read from and kept
    in (the ids must then be the content ids of the photos' files); ``first``: the photo the views are computed
    from (a rank's share, :func:`~..generation.workers.rank_start`: what another rank kept is read when reached)."""

    def __init__(self, photos: Iterable[tuple[str, Callable[[], Image.Image] | None, np.ndarray | None]],
                 bits: int = neardup.DEFAULT_BITS, store=None, first: int = 0):
        photos = list(photos)
        self.ids, self.bits = [sid for sid, _, _ in photos], bits
        self.greys: list[np.ndarray | None] = [None] * len(photos)
        self.fp_rows = [k for k, (_, _, fp) in enumerate(photos) if fp is not None]
        fps = [photos[k][2] for k in self.fp_rows]
        found: dict = {}
        for k in [*range(first, len(photos)), *range(min(first, len(photos)))]:
            sid, load, _ = photos[k]
            kept = store.load(sid) if store is not None and load is not None else None
            if kept is None and load is not None:
                try:
                    image = load()
                except Exception:  # the file changed or went since the set was read: matched by pHash alone
                    continue
                kept = evaluation_views(image)
                if store is not None:
                    store.store(sid, *kept)
            if kept is not None:
                found[k] = kept
        views, descriptors, shapes = [], [], []
        for k, (small, work_shape, found_views) in sorted(found.items()):
            self.greys[k] = small
            for (side, mirrored, inverted), f in zip(VIEWS, found_views):
                g_shape = {WORK: work_shape, SMALL: small.shape, TINY: _tiny(small).shape}[side]
                scale = scaling(g_shape[1] / small.shape[1], g_shape[0] / small.shape[0])
                flip = np.array([[-1.0, 0, g_shape[1] - 1], [0, 1, 0], [0, 0, 1]]) if mirrored else np.eye(3)
                views.append(_View(k, flip @ scale, f.points, inverted, side == TINY))
                descriptors.append(f.descriptors)
                shapes.append(f.shape)
        self.fps = np.stack(fps) if fps else np.zeros((0, len(neardup.CROPS)), dtype=np.uint64)
        self.views = views
        self.owner = np.concatenate([np.full(len(d), v) for v, d in enumerate(descriptors)]) if views else \
            np.zeros(0, dtype=np.int64)
        self.index_in_view = np.concatenate([np.arange(len(d)) for d in descriptors]) if views else self.owner
        self.shape = np.concatenate(shapes) if views else np.zeros((0, 2), np.float32)
        every = np.concatenate(descriptors) if views else np.zeros((0, 32), np.uint8)
        # two lookups: the photos as they are and mirrored, and the extra views (negatives, TINY), so that neither
        # takes the other's nearest neighbours or fills its buckets (a copy's matches to its photo's own views are
        # those an index of them alone finds)
        extra = np.array([v.inverted or v.tiny for v in views], bool)[self.owner] if views else np.zeros(0, bool)
        self.members = [np.flatnonzero(~extra), np.flatnonzero(extra)]  # global descriptor indices of each lookup
        self.hashing, self.extra_hashing = _Hashing(every[self.members[0]]), _Hashing(every[self.members[1]],
                                                                                      EXTRA_TABLES)

    def __len__(self) -> int:
        return len(self.ids)

    def copy_of(self, image: Image.Image | Callable[[], Image.Image] | None, fp: np.ndarray | None,
                skip: str | None = None, known: Features | None = None) -> tuple[str, str] | None:
        """``(evaluation id, why)`` when the training photo (its normalised ``image``, or a loader of it, and pHash
        ``fp``) is a copy of an evaluation photo (other than ``skip``: the benchmark's photo against all the others,
        its own features left out of the lookup), else ``None``. ``known``: the photo's
        :func:`training_features`, read before (the image is then loaded only if a candidate needs its pixels)."""
        near = {}
        if fp is not None and len(self.fps):
            if len(self.fps) <= 4096:  # one photo against a few thousand: every distance at once, no index to build
                dist = neardup.distances(fp[None, :], self.fps)[0].astype(np.int64)
                rows = np.flatnonzero(dist <= self.bits)
                dist = dist[rows]
            else:
                _, rows, dist = neardup.near_between(fp[None, :], self.fps, self.bits)
            near = {self.fp_rows[r]: int(d) for r, d in zip(rows, dist) if self.ids[self.fp_rows[r]] != skip}
        if image is None or not self.views:
            k = min(near, key=lambda k: (near[k], k), default=None)
            return None if k is None else (self.ids[k], f"pHash distance {near[k]} <= {self.bits}")
        cv2 = require_cv2()
        with _one_thread(cv2):
            return self._local(cv2, image if callable(image) else (lambda: image), near, skip, known)

    def _local(self, cv2, load: Callable[[], Image.Image], near: dict, skip: str | None, f: Features | None
               ) -> tuple[str, str] | None:
        grey_work: list = []

        def work() -> np.ndarray:  # the grey photo at WORK px, made once and only if needed
            if not grey_work:
                grey_work.append(grey(load(), WORK))
            return grey_work[0]

        if f is None:
            f = _training_features(cv2, work())
        own = np.array([skip is not None and self.ids[view_.photo] == skip for view_ in self.views])  # its views
        q, hit = [], []
        for hashing, members in zip((self.hashing, self.extra_hashing), self.members):
            best, _ = hashing.nearest(f.descriptors, own[self.owner[members]] if own.any() else None)
            found = np.flatnonzero(best >= 0)
            q.append(found)
            hit.append(members[best[found]])
        q, hit = np.concatenate(q), np.concatenate(hit)  # (a training feature may match in both lookups)
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
            small = 255 - self.greys[photo] if self.views[v].inverted else self.greys[photo]
            share = shown(cv2, small, work(), small_to_work)
            if share >= SHOWN:
                return self.ids[photo], (f"{int(inliers.sum())} local features agree on one similarity and "
                                         f"{share:.0%} of one photo is shown in the other")
            # features agree but the pixels do not under a similarity: a stretched or keystoned copy? the same
            # matches under a homography (only here: a photo that is no copy seldom gets this far)
            h, agree = cv2.findHomography(src, f.points[q[pick]], cv2.RANSAC, RANSAC_PX, maxIters=2000,
                                          confidence=0.995)
            if h is None or int(agree.sum()) < int(inliers.sum()) or not plausible(h @ self.views[v].to_view,
                                                                                  small.shape):
                continue
            share = shown(cv2, small, work(), h @ self.views[v].to_view)
            if share >= SHOWN:
                return self.ids[photo], (f"{int(agree.sum())} local features agree on one homography (a stretched "
                                         f"or keystoned copy) and {share:.0%} of one photo is shown in the other")
        unchecked = [k for k in near if k not in checked and not (  # the whole photo on the whole photo, as pHash
            self.greys[k] is not None and contradicted(  # compares them: two screenshots of one app that differ
                cv2, self.greys[k], work(), scaling(work().shape[1] / self.greys[k].shape[1],  # in their photos
                                                    work().shape[0] / self.greys[k].shape[0])))]
        k = min(unchecked, key=lambda k: (near[k], k), default=None)
        return None if k is None else (self.ids[k], f"pHash distance {near[k]} <= {self.bits} (too few local "
                                                    "features to check it)")


#: an evaluation photo's views: side, mirrored, inverted (a negative's ORB keypoints lie where the photo's do, but
#: their descriptors and orientations are not the photo's: it is indexed as a photo of its own)
VIEWS = ((WORK, False, False), (WORK, True, False), (SMALL, False, False), (SMALL, True, False), (WORK, False, True),
         (SMALL, False, True), (TINY, False, False))


def _tiny(small: np.ndarray) -> np.ndarray:
    """The :data:`TINY` grey, a function of the :data:`SMALL` one (so of what an export's guard index holds)."""
    from PIL import Image as _Image

    h, w = small.shape
    scale = TINY / max(h, w)
    if scale >= 1:
        return small
    return np.asarray(_Image.fromarray(small).resize((max(1, round(w * scale)), max(1, round(h * scale))),
                                                     _Image.Resampling.BOX))


def evaluation_views(image: Image.Image | tuple) -> tuple[np.ndarray, tuple[int, int], list[Features]]:
    """What :class:`Evaluation` reads from an evaluation photo (a function of its two greys alone,
    :func:`~..publishing.guard_index.greys_of`, which an export's guard index holds; :mod:`.guard_cache` keeps it
    on disk): its grey pixels at :data:`SMALL` px, the shape of its grey at :data:`WORK` px, and the local features
    of each of :data:`VIEWS`. ``image``: the normalised photo, or its greys ``(small, work)``."""
    cv2 = require_cv2()
    small, work = image if isinstance(image, tuple) else greys_of(image)
    out = []
    with _one_thread(cv2):
        tiny = _tiny(small)
        for side, mirrored, inverted in VIEWS:
            g = {WORK: work, SMALL: small, TINY: tiny}[side]
            g = 255 - g if inverted else g
            out.append(features(cv2, np.ascontiguousarray(g[:, ::-1]) if mirrored else g,
                                FEATURES[{WORK: "eval", SMALL: "small", TINY: "tiny"}[side]], FAST["eval"],
                                SCORE["eval"]))
    return small, work.shape, out


def training_features(image: Image.Image) -> Features:
    """The local features :meth:`Evaluation.copy_of` reads from a training photo (a function of its pixels alone:
    :mod:`.guard_cache` keeps them on disk)."""
    cv2 = require_cv2()
    with _one_thread(cv2):
        return _training_features(cv2, grey(image, WORK))


def _training_features(cv2, work: np.ndarray) -> Features:
    return features(cv2, work, FEATURES["train"], FAST["train"], SCORE["train"])


def find_copies(evaluation: Evaluation, photos: Sequence[tuple[str, Callable[[], Image.Image] | None,
                                                               np.ndarray | None]], store=None
                ) -> dict[str, tuple[str, str]]:
    """``{training id: (evaluation id, why)}`` for the training ``photos`` (id, image loader, fingerprint) that
    are copies of an evaluation photo (the progress bar is the caller's: :func:`.exclusion.copies_among`).
    ``store``: a :class:`.guard_cache.FeatureStore` the photos' features are read from and kept in."""
    out = {}
    for sid, load, fp in photos:
        image, known = None, None
        if load is not None and evaluation.views:
            image = _Once(load)
            known = store.load(sid) if store is not None else None
            if known is None and store is not None:
                known = training_features(image())
                store.store(sid, known)
        found = evaluation.copy_of(image, fp, known=known)
        if found is not None:
            out[sid] = found
    return out


class _Once:
    """A loader called at most once."""

    def __init__(self, load: Callable[[], Image.Image]):
        self.load, self.image = load, None

    def __call__(self) -> Image.Image:
        if self.image is None:
            self.image = self.load()
        return self.image
