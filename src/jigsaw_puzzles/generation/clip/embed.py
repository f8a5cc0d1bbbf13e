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
class _NotRGB8(Exception):
    """(internal) the PIL part of a transform gave pixels other than 8-bit RGB."""


def split_preprocess(preprocess):
    """open_clip's eval transform as (its PIL part, mean, std) when it ends in to-tensor + ``Normalize`` (the
    float work the GPU can do), else None (the whole transform then runs on the CPU)."""
    steps = getattr(preprocess, "transforms", None)
    if not steps or len(steps) < 3:
        return None
    to_tensor, norm = steps[-2], steps[-1]
    if type(to_tensor).__name__ not in {"ToTensor", "MaybeToTensor"} or type(norm).__name__ != "Normalize" \
            or getattr(norm, "inplace", False) or len(norm.mean) != 3:
        return None
    from torchvision.transforms import Compose
    return Compose(list(steps[:-2])), tuple(float(m) for m in norm.mean), tuple(float(v) for v in norm.std)


class PatchEmbedder:
    """Embed PIL patches in batches; returns L2-normalised float32 ``[N, D]``.

    On CUDA the forward pass runs under autocast (fp16 by default, the precision
    CLIP was trained in); on CPU it is plain fp32 and deterministic (eval mode,
    inference mode, no dropout, no random ops).  PIL preprocessing of the next
    batch runs in a thread pool while the current batch is encoded.  On CUDA, when
    the transform ends in open_clip's to-tensor and ``Normalize``, the PIL part runs
    on the CPU and the batch travels as uint8 (a quarter of the bytes); the scaling
    and normalisation run on the GPU as a look-up in the values the CPU's operations
    give (``device_normalise``): equal to the CPU's tensors, docs/performance.md#gpu.
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
        self.num_workers = num_workers if num_workers is not None else min(8 if on_cuda else 4, os.cpu_count() or 1)
        self.patches_encoded = 0
        self._split = split_preprocess(preprocess) if on_cuda else None
        self.device_normalise = self._split is not None
        self._lut = None  # _normalise's table, on the device of the last batch

    def _prep(self, patches: Sequence[Image.Image], workers: ThreadPoolExecutor | None):
        import torch
        if self.device_normalise:
            pil_part = self._split[0]

            def fn(p):
                pixels = np.array(pil_part(p.convert("RGB")))
                if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] != 3:
                    raise _NotRGB8
                return torch.from_numpy(pixels)
        else:
            fn = lambda p: self.preprocess(p.convert("RGB"))  # noqa: E731
        try:
            tensors = list(workers.map(fn, patches)) if workers is not None else [fn(p) for p in patches]
        except _NotRGB8:  # a transform whose PIL part gives other pixels: the whole transform on the CPU from now on
            self.device_normalise = False
            return self._prep(patches, workers)
        x = torch.stack(tensors)
        if self.device.startswith("cuda"):
            x = x.pin_memory()
        return x

    def _normalise(self, x):
        """(CUDA) A uint8 batch (B, H, W, 3) -> what ToTensor + Normalize give, float32 (B, 3, H, W): a look-up in
        the 3 x 256 values those operations give, computed by them on the CPU. (Computing on the GPU is not the
        same: its division by a number multiplies by the reciprocal, a last-bit difference, seen on an H100.)"""
        import torch
        if self._lut is None or self._lut.device != x.device:
            _, mean, std = self._split
            values = torch.arange(256, dtype=torch.uint8).to(torch.float32).div(255)  # ToTensor's
            lut = values[None, :].sub(torch.tensor(mean, dtype=torch.float32)[:, None]).div(
                torch.tensor(std, dtype=torch.float32)[:, None])  # Normalize's
            self._lut = lut.reshape(-1).to(x.device)
        index = x.to(torch.int64) + torch.arange(0, 3 * 256, 256, device=x.device)
        return self._lut[index].permute(0, 3, 1, 2).contiguous()

    def encode_tensor(self, x):
        """Encode an already preprocessed batch; returns a normalised fp32 tensor."""
        import torch
        import torch.nn.functional as F
        x = x.to(self.device, non_blocking=True)
        if x.dtype == torch.uint8:
            x = self._normalise(x)
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
