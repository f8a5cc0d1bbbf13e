"""The on-disk embedding cache (atomic writes; keyed by weights, precision and cell pixels)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

import numpy as np

from ..cachefiles import atomic_write_bytes, cache_root, record_key
from .embed import GRID_COLS, GRID_ROWS
from .weights import WeightsSpec

logger = logging.getLogger(__name__)

#: Bump when cell extraction, preprocessing or the stored format changes;
#: part of the cache key, so old entries are simply not found any more.
EMBEDDING_FORMAT_VERSION = 1


def default_cache_dir() -> Path:
    """``$HF_DATASETS_CACHE/jigsaw_puzzles/clip`` (datasets' cache root)."""
    return cache_root() / "clip"


def cache_kind(root: Path | None = None):
    """The embeddings kept in the default folder, as ``jigsaw-puzzles cache`` lists and frees them
    (:mod:`..cacheadmin`): an entry is current when its ``meta.json`` holds this :data:`EMBEDDING_FORMAT_VERSION`
    (other weights and precisions stay current: another run may ask for them)."""
    from ..cacheadmin import Kind, meta

    return Kind("clip", (root or cache_root()) / "clip", "*", r"[^/]+__[^/]+__[^/]+__[0-9a-f]{16}",
                r"meta\.json|\.tmp-[^/]*|[^/]+\.g\d+x\d+\.[0-9a-f]{16}\.npy",
                lambda entry: meta(entry).get("format") == EMBEDDING_FORMAT_VERSION)


def _safe(s: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in s)[:60]


class EmbeddingCache:
    """Per-source ``.npy`` files (``[rows*cols, D]`` float32, row-major cells).

    Layout::

        <root>/<model>__<weights>__<precision>__<key16>/
            meta.json                                    # what the key means
            <source_id>.g3x3.<pixels16>.npy              # one source

    ``key16`` hashes (model name, weights identity, tag preprocessing, precision,
    grid, :data:`EMBEDDING_FORMAT_VERSION`).  ``<pixels16>`` hashes the pixels of
    the normalised cells, so a change in the normalisation can never serve stale
    embeddings.  Writes are atomic (temp file + ``os.replace``); unreadable or
    malformed files are treated as missing and recomputed.
    """

    def __init__(self, root: str | os.PathLike | None, spec: WeightsSpec, precision: str,
                 rows: int = GRID_ROWS, cols: int = GRID_COLS):
        self.root = Path(root) if root is not None else default_cache_dir()
        self.rows, self.cols = rows, cols
        key = {
            "model": spec.model_name,
            "weights": spec.identity,
            "preprocess": {k: spec.preprocess_overrides[k] for k in sorted(spec.preprocess_overrides)},
            "precision": precision,
            "grid": [rows, cols],
            "format": EMBEDDING_FORMAT_VERSION,
        }
        blob = json.dumps(key, sort_keys=True, default=list).encode()
        self.key = key
        self.key_hash = hashlib.sha256(blob).hexdigest()[:16]
        w = spec.identity if not spec.identity.startswith("sha256:") else "file-" + spec.identity[7:19]
        self.dir = self.root / f"{_safe(spec.model_name)}__{_safe(w)}__{precision}__{self.key_hash}"

    def _ensure_meta(self):
        try:
            import open_clip
            import torch
            written_by = {"open_clip": open_clip.__version__, "torch": torch.__version__}
        except Exception:  # pragma: no cover
            written_by = None
        record_key(self.dir, **self.key, written_by=written_by)

    def path(self, source_id: str, pixels: str) -> Path:
        return self.dir / f"{source_id}.g{self.rows}x{self.cols}.{pixels[:16]}.npy"

    def load(self, source_id: str, pixels: str, dim: int | None = None) -> np.ndarray | None:
        p = self.path(source_id, pixels)
        try:
            arr = np.load(p, allow_pickle=False)
        except FileNotFoundError:
            return None
        except Exception as e:  # truncated / corrupt: recompute
            logger.warning("ignoring unreadable CLIP cache file %s (%s)", p, e)
            return None
        n = self.rows * self.cols
        if arr.dtype != np.float32 or arr.ndim != 2 or arr.shape[0] != n \
                or (dim is not None and arr.shape[1] != dim) or not np.isfinite(arr).all():
            logger.warning("ignoring malformed CLIP cache file %s", p)
            return None
        return arr

    def store(self, source_id: str, pixels: str, emb: np.ndarray) -> Path:
        emb = np.ascontiguousarray(emb, dtype=np.float32)
        self._ensure_meta()
        p = self.path(source_id, pixels)
        atomic_write_bytes(p, lambda f: np.save(f, emb, allow_pickle=False))
        return p
