"""Cells and their CLIP embeddings: a source's grid cells (3x3 by default), pixel digests, the embedder, the bank."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import numpy as np
from PIL import Image

from ...geometry import split
from .weights import WeightsSpec


GRID_ROWS = 3
GRID_COLS = 3


def grid_cells(image: Image.Image, rows: int = GRID_ROWS, cols: int = GRID_COLS) -> list[Image.Image]:
    """A normalised source's grid, row-major (index = row * cols + col): the tasks' own cut (the image cropped at
    its right and bottom edge to a multiple of the grid; a no-op for 3x3, which normalised sources divide by)."""
    w, h = image.size
    return split(image.crop((0, 0, w - w % cols, h - h % rows)) if w % cols or h % rows else image, rows, cols)


def pixel_digest(patch: Image.Image) -> str:
    """sha256 of (mode, size, raw pixels): equal iff the patches are pixel-identical."""
    h = hashlib.sha256()
    h.update(f"{patch.mode}:{patch.size[0]}x{patch.size[1]}:".encode())
    h.update(patch.tobytes())
    return h.hexdigest()


def region_id(source_id: str, row: int, col: int) -> str:
    return f"{source_id}/r{row}c{col}"


def _digest_key(hexdigest: str) -> int:
    """First 8 bytes of a digest as a signed int64 (for on-device equality tests)."""
    return int.from_bytes(bytes.fromhex(hexdigest[:16]), "big", signed=True)


# --------------------------------------------------------------------------- #
# Embedding
# --------------------------------------------------------------------------- #
class PatchEmbedder:
    """Embed PIL patches in batches; returns L2-normalised float32 ``[N, D]``.

    On CUDA the forward pass runs under autocast (fp16 by default, the precision
    CLIP was trained in); on CPU it is plain fp32 and deterministic (eval mode,
    inference mode, no dropout, no random ops).  PIL preprocessing of the next
    batch runs in a thread pool while the current batch is encoded.
    """

    def __init__(self, model, preprocess, device: str, *, batch_size: int = 64,
                 precision: str = "auto", num_workers: int | None = None,
                 progress: bool = True):
        import torch
        self.model = model
        self.preprocess = preprocess
        self.device = str(device)
        self.batch_size = int(batch_size)
        self.progress = progress
        on_cuda = self.device.startswith("cuda")
        if precision == "auto":
            precision = "amp-fp16" if on_cuda else "fp32"
        if precision not in {"fp32", "amp-fp16", "amp-bf16"}:
            raise ValueError(f"precision must be fp32, amp-fp16 or amp-bf16, not {precision!r}")
        if precision != "fp32" and not on_cuda:
            raise ValueError("mixed precision is only used on CUDA; use precision='fp32' on CPU")
        self.precision = precision
        self._amp_dtype = {"amp-fp16": torch.float16, "amp-bf16": torch.bfloat16}.get(precision)
        self.num_workers = num_workers if num_workers is not None else min(4, os.cpu_count() or 1)
        self.patches_encoded = 0

    def _prep(self, patches: Sequence[Image.Image], workers: ThreadPoolExecutor | None):
        import torch
        fn = lambda p: self.preprocess(p.convert("RGB"))  # noqa: E731
        tensors = list(workers.map(fn, patches)) if workers is not None else [fn(p) for p in patches]
        x = torch.stack(tensors)
        if self.device.startswith("cuda"):
            x = x.pin_memory()
        return x

    def encode_tensor(self, x):
        """Encode an already preprocessed batch; returns a normalised fp32 tensor."""
        import torch
        import torch.nn.functional as F
        x = x.to(self.device, non_blocking=True)
        with torch.inference_mode():
            if self._amp_dtype is not None:
                with torch.autocast("cuda", dtype=self._amp_dtype):
                    feats = self.model.encode_image(x)
            else:
                feats = self.model.encode_image(x)
            feats = F.normalize(feats.float(), dim=-1)
        return feats

    def embed(self, patches: Sequence[Image.Image], desc: str = "CLIP embeddings") -> np.ndarray:
        n = len(patches)
        out: list[np.ndarray] = []
        if n == 0:
            return np.zeros((0, 0), np.float32)
        from tqdm.auto import tqdm
        bs = self.batch_size
        batches = [patches[s:s + bs] for s in range(0, n, bs)]
        workers = ThreadPoolExecutor(self.num_workers) if self.num_workers > 1 else None
        prefetch = ThreadPoolExecutor(1)  # prepares batch i+1 while batch i is encoded
        try:
            with tqdm(total=n, desc=desc, unit="patch", disable=not self.progress) as bar:
                nxt = prefetch.submit(self._prep, batches[0], workers)
                for i in range(len(batches)):
                    x = nxt.result()
                    if i + 1 < len(batches):
                        nxt = prefetch.submit(self._prep, batches[i + 1], workers)
                    feats = self.encode_tensor(x)
                    out.append(feats.cpu().numpy().astype(np.float32, copy=False))
                    self.patches_encoded += len(x)
                    bar.update(len(x))
        finally:
            prefetch.shutdown(wait=True, cancel_futures=True)
            if workers is not None:
                workers.shutdown(wait=True, cancel_futures=True)
        return np.ascontiguousarray(np.concatenate(out, axis=0))



@dataclasses.dataclass
class EmbedStats:
    sources: int = 0
    sources_from_cache: int = 0
    sources_computed: int = 0
    patches_computed: int = 0
    seconds: float = 0.0


@dataclasses.dataclass
class PatchBank:
    """All grid cells of a source set with their embeddings (row-major per source)."""

    source_ids: list[str]            # per patch
    cells: list[tuple[int, int]]     # per patch (row, col)
    region_ids: list[str]            # per patch "<source_id>/r<row>c<col>"
    pixel_digests: list[str]         # per patch sha256 hex of the cell pixels
    sizes: list[tuple[int, int]]     # per patch (w, h)
    embeddings: np.ndarray           # [P, D] float32, L2-normalised
    stats: EmbedStats
    spec: WeightsSpec
    precision: str
    source_pixel_digests: dict[str, str] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        self._index = {r: i for i, r in enumerate(self.region_ids)}
        uniq = {s: j for j, s in enumerate(dict.fromkeys(self.source_ids))}
        self.group = np.array([uniq[s] for s in self.source_ids], dtype=np.int64)
        self.pixel_keys = np.array([_digest_key(d) for d in self.pixel_digests], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.region_ids)

    def index(self, source_id: str, row: int, col: int) -> int:
        return self._index[region_id(source_id, row, col)]
