"""The hard Missing Piece Selection miner: weights + embeddings (cached) + search, per item."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
from PIL import Image

from .cache import EmbeddingCache
from .embed import GRID_COLS, GRID_ROWS, EmbedStats, PatchBank, PatchEmbedder, grid_cells, pixel_digest, region_id
from .search import DEFAULT_MAX_SIMILARITY, duplicate_source_groups, nearest_neighbours
from .weights import (DEFAULT_CLIP_MODEL, DEFAULT_CLIP_PRETRAINED, RANDOM_INIT_SEED, _build_model, _resolve_device,
                      resolve_clip_weights)


@dataclasses.dataclass(frozen=True)
class Candidate:
    """A mined candidate cell (its grid row/col in ``source_id``), most similar first."""

    source_id: str
    row: int
    col: int
    similarity: float  # cosine similarity to the true patch, rounded to 1e-3
    pool_index: int

    @property
    def region_id(self) -> str:
        return region_id(self.source_id, self.row, self.col)


@dataclasses.dataclass(frozen=True)
class MinedDistractors:
    source_id: str
    row: int
    col: int
    distractors: tuple[Candidate, ...]


class ClipMiner:
    """Resolve weights, embed source grids (cached), mine hard distractors.

    ``rows`` x ``cols``: the grid whose cells are embedded and mined (3x3, the paper's, by default).

    Construction resolves the weights (raising :class:`ClipWeightsUnavailable` or
    ``ValueError`` before any work); the model itself is only built when some
    embedding actually has to be computed.
    """

    def __init__(
        self,
        model_name: str = DEFAULT_CLIP_MODEL,
        pretrained: str | None = DEFAULT_CLIP_PRETRAINED,
        *,
        device: str | None = None,
        allow_random_init: bool = False,
        cache_dir: str | os.PathLike | None = None,
        batch_size: int = 64,
        precision: str = "auto",
        num_workers: int | None = None,
        hf_cache_dir: str | None = None,
        progress: bool = True,
        random_init_seed: int = RANDOM_INIT_SEED,
        rows: int = GRID_ROWS,
        cols: int = GRID_COLS,
    ):
        self.spec = resolve_clip_weights(model_name, pretrained, allow_random_init=allow_random_init,
                                         hf_cache_dir=hf_cache_dir, random_init_seed=random_init_seed)
        self.device = _resolve_device(device)
        if precision == "auto":
            precision = "amp-fp16" if self.device.startswith("cuda") else "fp32"
        self.precision = precision
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.progress = progress
        self.cache = EmbeddingCache(cache_dir, self.spec, precision, rows, cols)
        self._embedder: PatchEmbedder | None = None
        self.patches_computed = 0  # cumulative over this miner's life

    @property
    def embedder(self) -> PatchEmbedder:
        if self._embedder is None:
            model, preprocess = _build_model(self.spec, self.device)
            self._embedder = PatchEmbedder(model, preprocess, self.device, batch_size=self.batch_size,
                                           precision=self.precision, num_workers=self.num_workers,
                                           progress=self.progress)
        return self._embedder

    def embed_sources(self, sources: Mapping[str, Any] | Iterable[tuple[str, Any]],
                      load: Callable[[Any], Image.Image] | None = None) -> PatchBank:
        """Embed all grid cells of every source (normalised PIL images), using the cache.

        Sources are processed in sorted source_id order; a source's cells are
        written to the cache as soon as they are computed, so an interrupted run
        keeps everything finished so far. With ``load``, ``sources`` holds what it
        takes (e.g. paths) and each image is loaded in turn: a folder's images are
        never all in memory at once, nor are their cells kept past their embedding.
        """
        t0 = time.perf_counter()
        items = sources.items() if isinstance(sources, Mapping) else sources
        ordered = sorted(items, key=lambda kv: kv[0])
        seen = set()
        rows, cols = self.cache.rows, self.cache.cols
        stats = EmbedStats(sources=len(ordered))
        per_source: dict[str, np.ndarray] = {}
        meta = []  # (sid, cell sizes, digests)
        pending: list[tuple[str, str, list[Image.Image]]] = []

        def flush():
            if not pending:
                return
            patches = [c for _, _, cells in pending for c in cells]
            emb = self.embedder.embed(patches)
            n = rows * cols
            for j, (sid, src_digest, _) in enumerate(pending):
                e = emb[j * n:(j + 1) * n]
                self.cache.store(sid, src_digest, e)
                per_source[sid] = e
            stats.sources_computed += len(pending)
            stats.patches_computed += len(patches)
            self.patches_computed += len(patches)
            pending.clear()

        for sid, img in ordered:
            if sid in seen:
                raise ValueError(f"duplicate source_id {sid!r}")
            seen.add(sid)
            img = load(img) if load is not None else img
            img = img.convert("RGB") if img.mode != "RGB" else img
            cells = grid_cells(img, rows, cols)
            digests = [pixel_digest(c) for c in cells]
            src_digest = hashlib.sha256("".join(digests).encode()).hexdigest()
            meta.append((sid, [c.size for c in cells], digests))
            cached = self.cache.load(sid, src_digest)
            if cached is not None:
                per_source[sid] = cached
                stats.sources_from_cache += 1
            else:
                pending.append((sid, src_digest, cells))
                if len(pending) * rows * cols >= max(self.batch_size, rows * cols) * 4:
                    flush()
        flush()

        dims = {v.shape[1] for v in per_source.values()}
        if len(dims) > 1:
            raise RuntimeError(f"inconsistent embedding dims in cache: {dims}")
        D = dims.pop() if dims else 0
        src_ids, cell_rc, rids, digs, sizes, embs = [], [], [], [], [], []
        for sid, cell_sizes, digests in meta:
            embs.append(per_source[sid])
            for i, (size, d) in enumerate(zip(cell_sizes, digests)):
                r, cc = divmod(i, cols)
                src_ids.append(sid)
                cell_rc.append((r, cc))
                rids.append(region_id(sid, r, cc))
                digs.append(d)
                sizes.append(size)
        emb = np.concatenate(embs, axis=0) if embs else np.zeros((0, D), np.float32)
        stats.seconds = time.perf_counter() - t0
        src_dig = {sid: hashlib.sha256("".join(d).encode()).hexdigest() for sid, _, d in meta}
        return PatchBank(src_ids, cell_rc, rids, digs, sizes, np.ascontiguousarray(emb, np.float32),
                         stats, self.spec, self.precision, src_dig)

    def mine(self, bank: PatchBank, targets: Sequence[tuple[str, int, int]], k: int = 3, *,
             max_similarity: float | None = DEFAULT_MAX_SIMILARITY, chunk_size: int = 16384,
             query_chunk_size: int = 1024, device: str | None = None,
             merge_duplicate_sources: bool = True,
             strict: bool = True) -> list[MinedDistractors]:
        """Hard distractors for each target cell ``(source_id, row, col)``.

        With ``merge_duplicate_sources`` (default) sources that are duplicates of
        each other (see :func:`duplicate_source_groups`) count as one source, so no
        cell of a copy of the target's image can become a distractor.

        Raises ``RuntimeError`` (``strict``) if some target has fewer than ``k``
        admissible candidates.
        """
        q_index = np.array([bank.index(*t) for t in targets], dtype=np.int64)
        dev = device if device is not None else self.device
        groups = duplicate_source_groups(bank, max_similarity, device=dev, chunk_size=chunk_size) \
            if merge_duplicate_sources else bank.group
        idx, sims = nearest_neighbours(
            bank.embeddings[q_index], bank.embeddings, bank.region_ids, k,
            query_groups=groups[q_index], pool_groups=groups,
            query_pixel_keys=bank.pixel_keys[q_index], pool_pixel_keys=bank.pixel_keys,
            max_similarity=max_similarity, chunk_size=chunk_size,
            query_chunk_size=query_chunk_size, device=dev)
        out = []
        for t, row_i, row_s in zip(targets, idx, sims):
            ds = []
            for j, s in zip(row_i, row_s):
                if j < 0:
                    continue
                r, c = bank.cells[j]
                ds.append(Candidate(bank.source_ids[j], r, c, float(s), int(j)))
            if strict and len(ds) < k:
                raise RuntimeError(f"only {len(ds)} admissible CLIP distractors for {region_id(*t)}; "
                                   "the source set is too small or too repetitive")
            out.append(MinedDistractors(t[0], int(t[1]), int(t[2]), tuple(ds)))
        return out
