"""What the contamination guard keeps on disk between processes (``$HF_DATASETS_CACHE/jigsaw_puzzles/guard/``):

* each training photo's local features (:func:`.copies.training_features`: ORB of the grey photo at 512 px, the
  costly half of the check, about 4 ms a photo; 48 bytes a feature, about 70 KB a photo), a function of the photo's
  bytes alone: a new evaluation set checks a folder seen before without decoding it again;
* each evaluation photo's grey pixels at 256 px and the local features of its four views
  (:func:`.copies.evaluation_views`, 8-10 ms a photo to compute with its decoding, about 115 KB a photo): a new
  process indexing an evaluation set seen before reads them instead of decoding the photos (1-2 ms a photo);
* per evaluation set, the verdict on every training photo checked against it (a few dozen bytes a photo): a new
  process (a training job's every rank, a second run) making a stream with the same ``exclude=`` checks nothing.

Both are keyed by everything the result depends on: the guard's code (the source of :mod:`.copies`,
:mod:`.pixel_check`, the pHash rule and the normalisation), the generator version, OpenCV, Pillow and numpy; the
verdicts also by the evaluation set's photos (ids, fingerprints, files with their sizes and modification times) and
the pHash threshold. A stale entry is never found; one that cannot be read is recomputed; writes are atomic.
``JIGSAW_PUZZLES_CACHE`` names another folder (the guard's is ``guard/`` in it), or ``off`` keeps nothing on disk.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..generation.cachefiles import atomic_write_bytes, code_key, kept_dir, record_key

logger = logging.getLogger(__name__)

FORMAT = 1


def guard_cache_dir() -> Path | None:
    """The folder the guard keeps its files in, or ``None`` (``$JIGSAW_PUZZLES_CACHE=off``)."""
    return kept_dir("guard")


@lru_cache(maxsize=1)
def guard_code() -> str:
    """What the guard's results depend on besides its inputs, hashed (16 hex digits)."""
    import PIL

    from ..generation import neardup, sources
    from ..publishing import guard_index
    from ..spec import GENERATOR_VERSION
    from . import copies, pixel_check

    try:
        import cv2
        opencv = cv2.__version__
    except ImportError:  # the guard extra is missing: evaluation photos known by fingerprint are matched by pHash
        opencv = None
    return code_key((copies, pixel_check, neardup, sources, guard_index), format=FORMAT, generator=GENERATOR_VERSION,
                    opencv=opencv, pillow=PIL.__version__, numpy=np.__version__)


def cache_kind(root: Path | None = None):
    """The guard's files, as ``jigsaw-puzzles cache`` lists and frees them (:mod:`...generation.cacheadmin`): a
    features or evaluation folder is current when its name holds :func:`guard_code`, a verdicts folder when its
    record does."""
    from ..generation.cacheadmin import Kind, meta

    def current(entry: Path) -> bool:
        for prefix in ("features-", "evaluation-"):
            if entry.name.startswith(prefix):
                return entry.name[len(prefix):] == guard_code()
        return meta(entry).get("code") == guard_code()

    return Kind("guard", kept_dir("guard", root), "*", r"(?:features|evaluation|verdicts)-[0-9a-f]{16}",
                r"meta\.json|(?:[0-9a-f]{2}/)?\.tmp-[^/]*|[0-9a-f]{2}/[0-9a-f]{16}\.npy|\d+-[0-9a-f]{12}\.json",
                current)


class FeatureStore:
    """Training photos' features by source id (the hash of the file's bytes): ``features-<key>/<id[:2]>/<id>.npy``,
    one ``(n, 48)`` uint8 array a photo (descriptors, then points and shapes as float32 bytes)."""

    def __init__(self, root: Path):
        self.dir = Path(root) / f"features-{guard_code()}"

    def _path(self, source_id: str) -> Path:
        return self.dir / source_id[:2] / f"{source_id}.npy"

    def has(self, source_id: str) -> bool:
        return self._path(source_id).is_file()

    def load(self, source_id: str):
        rows = self._read(source_id)
        if rows is not None and (rows.ndim != 2 or rows.shape[1] != 48):
            logger.warning("ignoring malformed guard cache file %s", self._path(source_id))
            return None
        return None if rows is None else _features(rows)

    def store(self, source_id: str, features) -> None:
        self._write(source_id, _rows(features), "a training photo's features")

    def _read(self, source_id: str) -> np.ndarray | None:
        """The uint8 array kept for a photo, or ``None`` (none kept, or unreadable: a warning; recomputed)."""
        path = self._path(source_id)
        try:
            data = np.load(path, allow_pickle=False)
        except FileNotFoundError:
            return None
        except Exception as e:  # truncated or not ours: recomputed
            logger.warning("ignoring unreadable guard cache file %s (%s)", path, e)
            return None
        if data.dtype != np.uint8:
            logger.warning("ignoring malformed guard cache file %s", path)
            return None
        return data

    def _write(self, source_id: str, data: np.ndarray, what: str) -> None:
        record_key(self.dir, cache="guard", code=guard_code())
        try:
            atomic_write_bytes(self._path(source_id), lambda f: np.save(f, data, allow_pickle=False), durable=False)
        except OSError as e:  # a full or read-only disk costs the next run time, never this one its stream
            logger.warning("could not keep %s in %s (%s)", what, self.dir, e)


class EvaluationStore(FeatureStore):
    """Evaluation photos' :func:`.copies.evaluation_views` by source id: ``evaluation-<key>/<id[:2]>/<id>.npy``, one
    uint8 array a photo: a header row (the grey's and the work grey's shapes, each view's feature count, as int32
    bytes), the grey's pixels, then each view's features as :class:`FeatureStore` lays them out."""

    def __init__(self, root: Path):
        self.dir = Path(root) / f"evaluation-{guard_code()}"

    def load(self, source_id: str):
        from .copies import VIEWS

        data = self._read(source_id)
        if data is None:
            return None
        try:
            head = data[:4 * (4 + len(VIEWS))].view(np.int32).astype(np.int64)
            (h, w, wh, ww), counts = (int(x) for x in head[:4]), head[4:]
            at = 4 * len(head)
            if min(h, w, wh, ww, *counts) < 0 or not min(h, w, wh, ww) or at + h * w + 48 * counts.sum() != len(data):
                raise ValueError("sizes do not add up")
            small = data[at:at + h * w].reshape(h, w)
            rows = data[at + h * w:].reshape(-1, 48)
        except Exception as e:
            logger.warning("ignoring malformed guard cache file %s (%s)", self._path(source_id), e)
            return None
        ends = np.cumsum(counts)
        return np.ascontiguousarray(small), (wh, ww), [_features(rows[end - n:end]) for n, end in zip(counts, ends)]

    def store(self, source_id: str, small, work_shape, views) -> None:
        head = np.int32([*small.shape, *work_shape, *(len(f.descriptors) for f in views)]).view(np.uint8)
        self._write(source_id, np.concatenate([head, np.ascontiguousarray(small, dtype=np.uint8).ravel(),
                                               *(_rows(f).ravel() for f in views)]), "an evaluation photo's features")


def _features(rows: np.ndarray):
    """:class:`.copies.Features` of ``(n, 48)`` rows (:func:`_rows`)."""
    from .copies import Features

    return Features(np.ascontiguousarray(rows[:, 32:40]).view(np.float32), np.ascontiguousarray(rows[:, :32]),
                    np.ascontiguousarray(rows[:, 40:]).view(np.float32))


def _rows(features) -> np.ndarray:
    """``(n, 48)`` uint8: descriptors, then points and shapes as float32 bytes."""
    return np.concatenate([features.descriptors.astype(np.uint8).reshape(-1, 32),
                           features.points.astype(np.float32).reshape(-1, 2).view(np.uint8),
                           features.shape.astype(np.float32).reshape(-1, 2).view(np.uint8)], axis=1)


class VerdictStore:
    """The verdicts against one evaluation set: ``verdicts-<key>/<writer>.json`` files, ``{training id: null or
    [evaluation id, why]}``, one per check that decided something new (a process id and a random tag name it, so
    two processes checking at once never overwrite each other); :meth:`load` reads them all. ``signature``: the
    evaluation set as :func:`.exclusion.copies_among` knows it."""

    def __init__(self, root: Path, signature):
        h = hashlib.sha256(guard_code().encode())
        h.update(repr(signature).encode())
        self.dir = Path(root) / f"verdicts-{h.hexdigest()[:16]}"

    def load(self) -> dict:
        out: dict = {}
        for path in sorted(self.dir.glob("*-*.json")):  # not meta.json
            try:
                data = json.loads(path.read_text())
                out.update({str(k): None if v is None else (str(v[0]), str(v[1]))
                            for k, v in data["verdicts"].items()})
            except Exception as e:  # truncated or not ours: those photos are checked again
                logger.warning("ignoring unreadable guard cache file %s (%s)", path, e)
        return out

    def store(self, verdicts: dict) -> None:
        record_key(self.dir, cache="guard", code=guard_code())
        data = json.dumps({"format": FORMAT, "verdicts": {k: None if v is None else list(v)
                                                          for k, v in sorted(verdicts.items())}}).encode()
        path = self.dir / f"{os.getpid()}-{os.urandom(6).hex()}.json"
        try:
            atomic_write_bytes(path, lambda f: f.write(data), durable=False)
        except OSError as e:
            logger.warning("could not keep the guard's verdicts in %s (%s)", self.dir, e)
