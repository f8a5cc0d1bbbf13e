"""CLIP similarity mining for the hard Missing Piece Selection config (issue #3).

The paper (Sec. 3.1) builds the *Hard* Missing Piece Selection distractors "using
CLIP (Radford et al., 2021) similarity to closely resemble the ground-truth
patch".  This module turns that sentence into a reproducible procedure:

* **Pool.**  Every accepted, normalised source image is cut into its 3x3 grid
  (row-major, cells ``w/3 x h/3``; see :func:`grid_cells`).  A *region* is
  ``(source_id, row, col)`` and its pool id is ``"<source_id>/r<row>c<col>"``.
  Every cell of every source is embedded once, at its native size, through the
  model's own validation transform, and the L2-normalised float32 embeddings
  are cached on disk (:class:`EmbeddingCache`).
* **Search.**  For a target cell, candidates are all cells of all *other*
  sources, ranked by cosine similarity (:func:`nearest_neighbours`).  Excluded:
  (a) every cell of the target's own source, (b) exact pixel duplicates of the
  true patch (same size and bytes), (c) near duplicates: cosine similarity above
  ``max_similarity`` (default :data:`DEFAULT_MAX_SIMILARITY` = 0.95), and
  (d) a candidate that is a pixel duplicate or near duplicate of an already
  chosen distractor (so the four options are pairwise distinct).
* **Order.**  The chunked float32 pass on the device only retrieves a
  candidate short-list; every decision is taken on CPU from the float64 dot
  product of the stored float32 embeddings, rounded to ``1e-6``
  (``rint(s * 1e6)``).  Order is higher rounded similarity first, then the
  smaller pool id string.  Given the same embeddings, CPU and GPU searches
  therefore return identical picks (float32/TF32 noise of the device pass is
  covered by a 1e-4 safety margin and exact rescans).

Nothing here sets global seeds.  Random initialisation (``pretrained=None``) is
only for tests and must be asked for with ``allow_random_init=True``; the
weights are then created under :func:`torch.random.fork_rng` with a fixed local
seed, on CPU, so that every process builds identical weights.

torch and open_clip are imported lazily (extra ``jigsaw-puzzles[clip]``).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
from PIL import Image

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_CLIP_MODEL",
    "DEFAULT_CLIP_PRETRAINED",
    "DEFAULT_MAX_SIMILARITY",
    "SIMILARITY_DECIMALS",
    "GRID_ROWS",
    "GRID_COLS",
    "ClipWeightsUnavailable",
    "WeightsSpec",
    "resolve_clip_weights",
    "load_clip",
    "grid_cells",
    "pixel_digest",
    "region_id",
    "PatchEmbedder",
    "EmbeddingCache",
    "EmbedStats",
    "PatchBank",
    "Distractor",
    "MinedDistractors",
    "ClipMiner",
    "nearest_neighbours",
    "duplicate_source_groups",
    "default_cache_dir",
]

#: Default model: the original OpenAI CLIP (Radford et al., 2021) ViT-B/32 weights.
DEFAULT_CLIP_MODEL = "ViT-B-32"
DEFAULT_CLIP_PRETRAINED = "openai"
#: Candidates whose cosine similarity to the true patch (or to an already chosen
#: distractor) exceeds this bound are treated as near duplicates and skipped.
DEFAULT_MAX_SIMILARITY = 0.95
#: Similarities are rounded to this many decimals before ordering / comparing.
SIMILARITY_DECIMALS = 6
GRID_ROWS = 3
GRID_COLS = 3
#: Seed of the local generator used for ``pretrained=None`` (random init).
RANDOM_INIT_SEED = 0
#: Bump when cell extraction, preprocessing or the stored format changes;
#: part of the cache key, so old entries are simply not found any more.
EMBEDDING_FORMAT_VERSION = 1

_SCALE = 10 ** SIMILARITY_DECIMALS
#: Bound on |float32 dot - float64 dot| for unit vectors (D <= ~1024), used as a
#: safety margin between the float32 device pass and the exact CPU decisions.
_SLACK = 1e-4


class ClipWeightsUnavailable(RuntimeError):
    """The requested CLIP weights are neither cached locally nor downloadable."""


# --------------------------------------------------------------------------- #
# Weights resolution
# --------------------------------------------------------------------------- #
@dataclasses.dataclass(frozen=True)
class WeightsSpec:
    """Where the weights of a CLIP model come from, resolved before any work.

    ``identity`` names the weights in cache keys and metadata: the open_clip
    tag, ``sha256:<hex>`` of a checkpoint file, or ``random-init-seed<N>``.
    """

    model_name: str
    pretrained: str | None
    kind: str  # "tag" | "file" | "random"
    identity: str
    checkpoint_path: str | None = None
    tag_cfg: Mapping[str, Any] | None = None
    seed: int | None = None

    @property
    def preprocess_overrides(self) -> dict:
        """create_model_and_transforms kwargs that the tag implies."""
        if self.kind != "tag" or not self.tag_cfg:
            return {}
        cfg = self.tag_cfg
        out = {"force_quick_gelu": bool(cfg.get("quick_gelu", False))}
        for src, dst in (("mean", "image_mean"), ("std", "image_std"),
                         ("interpolation", "image_interpolation"),
                         ("resize_mode", "image_resize_mode")):
            if cfg.get(src) is not None:
                out[dst] = cfg[src]
        return out

    def metadata(self) -> dict:
        return {"clip_model": self.model_name, "clip_pretrained": self.pretrained,
                "clip_weights": self.identity}


def _env_true(name: str) -> bool:
    return os.environ.get(name, "").strip().upper() in {"1", "ON", "YES", "TRUE"}


def _hub_offline() -> bool:
    try:
        from huggingface_hub import constants
        if constants.HF_HUB_OFFLINE:
            return True
    except Exception:  # pragma: no cover - huggingface_hub is a dependency
        pass
    return _env_true("HF_HUB_OFFLINE")


def _hub_unreachable(timeout: float = 5.0) -> str | None:
    """Why the Hub cannot be reached (DNS or TCP), or None. One quick probe instead of the
    client's minute of retries per file when a machine has no network."""
    import socket
    from urllib.parse import urlparse

    from huggingface_hub import constants
    url = urlparse(constants.ENDPOINT)
    host, port = url.hostname or "huggingface.co", url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as err:
        return f"the Hub ({host}:{port}) is unreachable: {err}"
    return None


def _sha256_file(path: str | os.PathLike, bufsize: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(bufsize)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def _hf_filenames(filename: str) -> list[str]:
    # open_clip prefers a .safetensors twin of the default .bin file.
    from open_clip.constants import HF_SAFE_WEIGHTS_NAME, HF_WEIGHTS_NAME
    if filename == HF_WEIGHTS_NAME:
        return [HF_SAFE_WEIGHTS_NAME, HF_WEIGHTS_NAME]
    if filename.endswith(".bin"):
        return [filename[:-4] + ".safetensors", filename]
    return [filename]


def _unavailable(model_name: str, tag: str, where: str, cause: str,
                 download_cmd: str) -> ClipWeightsUnavailable:
    return ClipWeightsUnavailable(
        f"CLIP weights for model {model_name!r} with pretrained tag {tag!r} are not "
        f"available: {cause}. They are looked up in {where}. Nothing has been built. "
        "Two ways out: (1) pass a local checkpoint file instead of the tag, e.g. "
        f"clip_pretrained='/path/to/open_clip_model.safetensors' (CLI: --clip-pretrained "
        "/path/to/file); or (2) pre-download the weights into the Hugging Face cache on a "
        f"machine with internet access, e.g. `{download_cmd}` "
        "(or `python -c \"import open_clip; open_clip.create_model_and_transforms("
        f"'{model_name}', pretrained='{tag}')\"`), then copy the cache "
        "(HF_HUB_CACHE, default ~/.cache/huggingface/hub) to this machine if needed. "
        "No fallback to other or random weights is made."
    )


def resolve_clip_weights(
    model_name: str,
    pretrained: str | os.PathLike | None,
    *,
    allow_random_init: bool = False,
    hf_cache_dir: str | None = None,
    random_init_seed: int = RANDOM_INIT_SEED,
) -> WeightsSpec:
    """Resolve ``pretrained`` to a local file (downloading if online) or raise.

    Does no model construction.  Raises ``ValueError`` for an unknown model/tag or
    for ``pretrained=None`` without ``allow_random_init``, and
    :class:`ClipWeightsUnavailable` when a tag's weights are not in the local cache
    and cannot be downloaded (``HF_HUB_OFFLINE=1`` or the Hub is unreachable).
    """
    import open_clip
    from open_clip import pretrained as oc_pretrained

    if model_name not in open_clip.list_models():
        raise ValueError(f"Unknown open_clip model {model_name!r}; see open_clip.list_models().")
    if pretrained is None:
        if not allow_random_init:
            raise ValueError(
                f"clip_pretrained=None would use a randomly initialised {model_name!r}; "
                "this is only allowed when asked for explicitly (allow_random_init=True, "
                "tests). Pass an open_clip tag such as 'openai' or a checkpoint file.")
        return WeightsSpec(model_name, None, "random", f"random-init-seed{random_init_seed}",
                           seed=random_init_seed)

    pretrained = os.fspath(pretrained)
    cfg = oc_pretrained.get_pretrained_cfg(model_name, pretrained)
    if not cfg:
        if os.path.isfile(pretrained):
            path = os.path.abspath(pretrained)
            return WeightsSpec(model_name, pretrained, "file", "sha256:" + _sha256_file(path),
                               checkpoint_path=path)
        tags = oc_pretrained.list_pretrained_tags_by_model(model_name)
        raise ValueError(
            f"clip_pretrained={pretrained!r} is neither an open_clip tag of {model_name!r} "
            f"(known tags: {tags}) nor an existing checkpoint file.")

    offline = _hub_offline()
    hf_hub = cfg.get("hf_hub") or ""
    if hf_hub:
        from huggingface_hub import hf_hub_download, try_to_load_from_cache
        # open_clip convention: "org/repo/" (default file) or "org/repo/filename".
        repo_id, filename = os.path.split(hf_hub)
        from open_clip.constants import HF_WEIGHTS_NAME
        names = _hf_filenames(filename or HF_WEIGHTS_NAME)
        path = None
        for name in names:
            hit = try_to_load_from_cache(repo_id, name, cache_dir=hf_cache_dir)
            if isinstance(hit, str) and os.path.isfile(hit):
                path = hit
                break
        where = f"Hugging Face repo {repo_id} (files {names}) in the HF cache"
        cmd = f"huggingface-cli download {repo_id} {names[0]}"
        if path is None:
            if offline:
                raise _unavailable(model_name, pretrained, where,
                                   "HF_HUB_OFFLINE=1 and they are not in the local cache", cmd)
            unreachable = _hub_unreachable()
            if unreachable:
                raise _unavailable(model_name, pretrained, where,
                                   f"not in the local cache and {unreachable}", cmd)
            errors = []
            for name in names:
                try:
                    path = hf_hub_download(repo_id, name, cache_dir=hf_cache_dir,
                                           library_name="open_clip")
                    break
                except Exception as e:  # network errors, missing file, ...
                    errors.append(f"{name}: {type(e).__name__}: {e}")
            if path is None:
                raise _unavailable(model_name, pretrained, where,
                                   "not in the local cache and the download failed ("
                                   + " | ".join(errors)[:600] + ")", cmd)
    else:
        url = cfg.get("url") or ""
        if not url:
            raise ValueError(f"open_clip has no download location for {model_name!r}/{pretrained!r}.")
        root = hf_cache_dir or os.path.expanduser("~/.cache/clip")
        path = os.path.join(root, os.path.basename(url))
        where = f"{path} (open_clip URL cache)"
        cmd = f"curl -L -o {path} {url}"
        if not os.path.isfile(path):
            if offline:
                raise _unavailable(model_name, pretrained, where,
                                   "HF_HUB_OFFLINE=1 and they are not in the local cache", cmd)
            try:
                path = oc_pretrained.download_pretrained_from_url(url, cache_dir=root)
            except Exception as e:
                raise _unavailable(model_name, pretrained, where,
                                   f"download failed ({type(e).__name__}: {e})", cmd) from e
    return WeightsSpec(model_name, pretrained, "tag", pretrained, checkpoint_path=path,
                       tag_cfg=dict(cfg))


def _resolve_device(device: str | None) -> str:
    import torch
    if device is None or device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return str(device)


def _build_model(spec: WeightsSpec, device: str):
    import open_clip
    import torch

    kwargs = spec.preprocess_overrides
    if spec.kind == "random":
        # Local RNG only: the caller's global RNG state is restored afterwards.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(spec.seed if spec.seed is not None else RANDOM_INIT_SEED)
            model, _, preprocess = open_clip.create_model_and_transforms(
                spec.model_name, pretrained=None, device="cpu", **kwargs)
    else:
        # A resolved local file: open_clip performs no network access from here on.
        model, _, preprocess = open_clip.create_model_and_transforms(
            spec.model_name, pretrained=spec.checkpoint_path, device="cpu", **kwargs)
    model.eval()
    model.to(device)
    return model, preprocess


def load_clip(
    model_name: str,
    pretrained: str | None,
    device: str | None = None,
    allow_random_init: bool = False,
    *,
    hf_cache_dir: str | None = None,
):
    """Return ``(model, preprocess, device)`` for an open_clip model.

    ``pretrained`` is an open_clip tag (weights from the HF cache or the Hub), a
    local checkpoint path, or ``None`` (random init; ValueError unless
    ``allow_random_init``).  Weights are resolved before the model is built, see
    :func:`resolve_clip_weights`.  ``preprocess`` is open_clip's val transform.
    """
    spec = resolve_clip_weights(model_name, pretrained, allow_random_init=allow_random_init,
                                hf_cache_dir=hf_cache_dir)
    dev = _resolve_device(device)
    model, preprocess = _build_model(spec, dev)
    return model, preprocess, dev


# --------------------------------------------------------------------------- #
# Cells, pixel hashes, ids
# --------------------------------------------------------------------------- #
def grid_cells(image: Image.Image, rows: int = GRID_ROWS, cols: int = GRID_COLS) -> list[Image.Image]:
    """Cut a normalised source into its grid, row-major (index = row * cols + col)."""
    w, h = image.size
    if w % cols or h % rows:
        raise ValueError(f"image size {w}x{h} is not divisible by the {rows}x{cols} grid")
    cw, ch = w // cols, h // rows
    return [image.crop((c * cw, r * ch, (c + 1) * cw, (r + 1) * ch))
            for r in range(rows) for c in range(cols)]


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


# --------------------------------------------------------------------------- #
# On-disk cache
# --------------------------------------------------------------------------- #
def default_cache_dir() -> Path:
    """``$HF_DATASETS_CACHE/jigsaw_puzzles/clip`` (datasets' cache root)."""
    try:
        from datasets import config
        root = Path(config.HF_DATASETS_CACHE)
    except Exception:  # pragma: no cover
        root = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "datasets"
    return root / "jigsaw_puzzles" / "clip"


def _safe(s: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in s)[:60]


def _atomic_write_bytes(path: Path, writer: Callable[[Any], None]) -> None:
    """Write via a temp file in the same directory, fsync, then os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-" + path.name + ".", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            writer(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


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
        meta = self.dir / "meta.json"
        if not meta.exists():
            info = dict(self.key)
            try:
                import open_clip
                import torch
                info["written_by"] = {"open_clip": open_clip.__version__, "torch": torch.__version__}
            except Exception:  # pragma: no cover
                pass
            data = json.dumps(info, indent=2, sort_keys=True, default=list).encode()
            _atomic_write_bytes(meta, lambda f: f.write(data))

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
        _atomic_write_bytes(p, lambda f: np.save(f, emb, allow_pickle=False))
        return p


# --------------------------------------------------------------------------- #
# Patch bank
# --------------------------------------------------------------------------- #
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


@dataclasses.dataclass(frozen=True)
class Distractor:
    source_id: str
    row: int
    col: int
    similarity: float  # cosine similarity to the true patch, rounded to 1e-6
    pool_index: int

    @property
    def region_id(self) -> str:
        return region_id(self.source_id, self.row, self.col)


@dataclasses.dataclass(frozen=True)
class MinedDistractors:
    source_id: str
    row: int
    col: int
    distractors: tuple[Distractor, ...]

    def to_metadata(self, spec: WeightsSpec | None = None,
                    max_similarity: float | None = None) -> dict:
        """JSON-ready record for the item's ``metadata`` field."""
        d: dict = {}
        if spec is not None:
            d.update(spec.metadata())
        d["distractor_selection"] = "clip_top3_cosine"
        if max_similarity is not None:
            d["clip_max_similarity"] = max_similarity
        d["distractors"] = [
            {"source_id": x.source_id, "row": x.row, "col": x.col,
             "region": x.region_id, "clip_similarity": x.similarity}
            for x in self.distractors]
        return d


# --------------------------------------------------------------------------- #
# Nearest-neighbour search
# --------------------------------------------------------------------------- #
def _round_sim(s: np.ndarray) -> np.ndarray:
    """Similarity -> int64 units of 1e-6 (rint of float64)."""
    return np.rint(np.asarray(s, dtype=np.float64) * _SCALE).astype(np.int64)


def nearest_neighbours(
    queries: np.ndarray,
    pool: np.ndarray,
    pool_ids: Sequence[str],
    k: int,
    *,
    query_groups: np.ndarray | None = None,
    pool_groups: np.ndarray | None = None,
    query_pixel_keys: np.ndarray | None = None,
    pool_pixel_keys: np.ndarray | None = None,
    max_similarity: float | None = DEFAULT_MAX_SIMILARITY,
    distinct_picks: bool = True,
    chunk_size: int = 16384,
    query_chunk_size: int = 1024,
    margin: int = 16,
    device: str | None = "cpu",
    on_chunk: Callable[[int, int, int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` pool indices per query by cosine similarity, without a Q x P matrix.

    ``queries`` [Q, D] and ``pool`` [P, D] must be L2-normalised.  A pool entry j is
    excluded for query q when ``pool_groups[j] == query_groups[q]`` (same source),
    when ``pool_pixel_keys[j] == query_pixel_keys[q]`` (pixel-identical patch), or
    when its rounded similarity exceeds ``max_similarity``.  With
    ``distinct_picks`` a candidate is also skipped when it is pixel-identical to,
    or has similarity above ``max_similarity`` with, a candidate already picked
    for that query.

    Order: higher similarity rounded to 1e-6 first, then smaller ``pool_ids``
    string.  The pool is scanned in chunks of at most ``chunk_size`` rows (and the
    queries in chunks of ``query_chunk_size``), so peak extra memory is
    ``query_chunk_size x chunk_size`` similarities; a running top-(k+margin) is
    kept with ``torch.topk`` on ``device``.  Ties and rounding are resolved on CPU;
    when the kept set cannot prove the answer (ties at the cut, or too many
    exclusions) that query is rescanned exactly.

    Returns ``(indices [Q, k] int64, similarities [Q, k] float64)``; rows with fewer
    than k admissible candidates are padded with -1 / NaN.
    """
    import torch

    q_np = np.ascontiguousarray(queries, dtype=np.float32)
    p_np = np.ascontiguousarray(pool, dtype=np.float32)
    Q, D = q_np.shape
    P = p_np.shape[0]
    if p_np.shape[1] != D or len(pool_ids) != P:
        raise ValueError("queries/pool/pool_ids shapes disagree")
    if chunk_size < 1 or query_chunk_size < 1 or k < 1:
        raise ValueError("k, chunk_size and query_chunk_size must be >= 1")
    dev = torch.device(_resolve_device(device))
    M = k + max(0, int(margin))
    bound_units = None if max_similarity is None else int(round(max_similarity * _SCALE))
    # The device pass (float32) only *retrieves* candidates.  Every decision is taken
    # on CPU from float64 dot products of the float32 embeddings, which do not depend
    # on device or BLAS path.  float32 dot products of unit vectors are within
    # _SLACK of that value, so the device-side bound is loosened by _SLACK and the
    # completeness test below keeps a _SLACK margin.
    slack_units = int(_SLACK * _SCALE)
    dev_bound = None if max_similarity is None else (bound_units + 0.5) / _SCALE + _SLACK

    # Tie-break rank: position of each pool id in sorted order.
    id_rank = np.empty(P, dtype=np.int64)
    id_rank[np.argsort(np.asarray(pool_ids, dtype=object), kind="stable")] = np.arange(P)

    def _col(a, default):
        return np.full(default[0], default[1], np.int64) if a is None else np.asarray(a, np.int64)

    qg = _col(query_groups, (Q, -1))
    pg = _col(pool_groups, (P, -2))
    qk = _col(query_pixel_keys, (Q, 0))
    pk = _col(pool_pixel_keys, (P, 0)) if query_pixel_keys is not None and pool_pixel_keys is not None \
        else None

    # No TF32 / reduced-precision matmul for the retrieval pass (restored afterwards).
    prev_tf32 = torch.backends.cuda.matmul.allow_tf32
    prev_prec = torch.get_float32_matmul_precision()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    try:
        return _nn_search(q_np, p_np, k, M, qg, pg, qk, pk, id_rank, bound_units, dev_bound,
                          slack_units, distinct_picks, chunk_size, query_chunk_size, dev, on_chunk)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev_tf32
        torch.set_float32_matmul_precision(prev_prec)


def _nn_search(q_np, p_np, k, M, qg, pg, qk, pk, id_rank, bound_units, dev_bound, slack_units,
               distinct_picks, chunk_size, query_chunk_size, dev, on_chunk):
    import torch
    Q, P = q_np.shape[0], p_np.shape[0]
    pool_t = torch.from_numpy(p_np).to(dev)
    pg_t = torch.from_numpy(pg).to(dev)
    pk_t = torch.from_numpy(pk).to(dev) if pk is not None else None
    neg_inf = float("-inf")

    def _scan(q_idx: np.ndarray, keep: int | None, thresh_units: np.ndarray | None):
        """Scan the whole pool for queries q_idx.

        keep=int: running top-`keep` per query -> (vals [n, keep], idx [n, keep]).
        keep=None: all admissible entries with rounded sim >= thresh_units[q] -> list of arrays.
        """
        qt = torch.from_numpy(q_np[q_idx]).to(dev)
        qg_t = torch.from_numpy(qg[q_idx]).to(dev)[:, None]
        qk_t = torch.from_numpy(qk[q_idx]).to(dev)[:, None] if pk_t is not None else None
        n = len(q_idx)
        if keep is not None:
            best_v = torch.full((n, 0), neg_inf, device=dev)
            best_i = torch.zeros((n, 0), dtype=torch.int64, device=dev)
        else:
            found: list[list[np.ndarray]] = [[] for _ in range(n)]
        for s in range(0, P, chunk_size):
            e = min(P, s + chunk_size)
            if on_chunk is not None:
                on_chunk(int(q_idx[0]), n, s, e)
            sims = qt @ pool_t[s:e].T                       # [n, e-s]
            bad = pg_t[s:e][None, :] == qg_t
            if pk_t is not None:
                bad |= pk_t[s:e][None, :] == qk_t
            if dev_bound is not None:
                bad |= sims > dev_bound
            sims = sims.masked_fill(bad, neg_inf)
            if keep is not None:
                kk = min(keep, e - s)
                v, i = torch.topk(sims, kk, dim=1)
                best_v = torch.cat([best_v, v], dim=1)
                best_i = torch.cat([best_i, i + s], dim=1)
                if best_v.shape[1] > keep:
                    best_v, pos = torch.topk(best_v, keep, dim=1)
                    best_i = torch.gather(best_i, 1, pos)
            else:
                lo = torch.from_numpy((thresh_units[q_idx] - 1 - slack_units) / _SCALE).to(
                    dev, torch.float32)[:, None]
                hit = (sims >= lo) & ~bad
                rows, cols = torch.nonzero(hit, as_tuple=True)
                rows, cols = rows.cpu().numpy(), cols.cpu().numpy() + s
                for r in np.unique(rows):
                    found[r].append(cols[rows == r])
        if keep is not None:
            return best_v.cpu().numpy(), best_i.cpu().numpy()
        return [np.concatenate(f) if f else np.zeros(0, np.int64) for f in found]

    def _select(q: int, cand: np.ndarray):
        """Deterministic greedy pick from candidate indices -> (picked idx, picked units, last units)."""
        cand = np.unique(cand)
        units = _round_sim(p_np[cand].astype(np.float64) @ q_np[q].astype(np.float64))
        ok = pg[cand] != qg[q]
        if pk is not None:
            ok &= pk[cand] != qk[q]
        if bound_units is not None:
            ok &= units <= bound_units
        cand, units = cand[ok], units[ok]
        order = np.lexsort((id_rank[cand], -units))
        picked: list[int] = []
        picked_u: list[int] = []
        for j in order:
            c = int(cand[j])
            if distinct_picks and picked:
                if pk is not None and np.any(pk[picked] == pk[c]):
                    continue
                if bound_units is not None and np.any(_round_sim(
                        p_np[picked].astype(np.float64) @ p_np[c].astype(np.float64)) > bound_units):
                    continue
            picked.append(c)
            picked_u.append(int(units[j]))
            if len(picked) == k:
                break
        return picked, picked_u

    out_idx = np.full((Q, k), -1, dtype=np.int64)
    out_sim = np.full((Q, k), np.nan, dtype=np.float64)
    for qs in range(0, Q, query_chunk_size):
        q_idx = np.arange(qs, min(Q, qs + query_chunk_size))
        vals, idxs = _scan(q_idx, M, None)
        redo = []
        for row, q in enumerate(q_idx):
            valid = np.isfinite(vals[row])
            cand = idxs[row][valid]
            picked, picked_u = _select(int(q), cand)
            full = valid.all() and len(vals[row]) == M   # kept set may have dropped entries
            if full:
                min_units = int(_round_sim(np.float64(vals[row].min()))) + slack_units
                if len(picked) < k or min_units >= picked_u[-1]:
                    redo.append((int(q), picked_u[-1] if len(picked) == k else None))
                    continue
            out_idx[q, :len(picked)] = picked
            out_sim[q, :len(picked)] = np.asarray(picked_u, np.float64) / _SCALE
        # Exact rescans.  Level 1: every admissible entry whose rounded similarity is
        # >= the k-th pick's (all such entries are collected, so the greedy pick is
        # exact if it still reaches k picks at or above that level).  Level 2 (rare:
        # de-duplication among picks pushed the k-th pick lower, or too few
        # admissible entries were kept): every admissible entry.
        everything = -2 * _SCALE
        for level in (1, 2):
            if not redo:
                break
            r_idx = np.array([q for q, _ in redo], dtype=np.int64)
            th = np.full(Q, everything, dtype=np.int64)
            for q, t in redo:
                th[q] = t if (t is not None and level == 1) else everything
            again = []
            for (q, t), cand in zip(redo, _scan(r_idx, None, th)):
                picked, picked_u = _select(int(q), cand)
                if level == 1 and t is not None and (len(picked) < k or picked_u[-1] < t):
                    again.append((q, None))
                    continue
                out_idx[q, :len(picked)] = picked
                out_sim[q, :len(picked)] = np.asarray(picked_u, np.float64) / _SCALE
            redo = again
    return out_idx, out_sim


def duplicate_source_groups(bank: PatchBank, max_similarity: float | None = DEFAULT_MAX_SIMILARITY,
                            *, neighbours: int = 8, device: str | None = "cpu",
                            chunk_size: int = 16384) -> np.ndarray:
    """Per-patch group ids in which duplicate sources are merged.

    Two sources are duplicates when their normalised pixels are identical, or
    when the mean cosine similarity of their corresponding cells (the cosine of
    the concatenated, rescaled 9-cell embeddings) exceeds ``max_similarity``.
    Found with the chunked :func:`nearest_neighbours` (``neighbours`` per source)
    and merged transitively; the group id is the smallest source index.
    """
    sids = list(dict.fromkeys(bank.source_ids))
    n_src = len(sids)
    parent = list(range(n_src))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(a, b):
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    first = {}
    for j, sid in enumerate(sids):
        d = bank.source_pixel_digests.get(sid)
        if d is not None:
            if d in first:
                union(first[d], j)
            else:
                first[d] = j
    if max_similarity is not None and n_src > 1:
        cells = len(bank) // n_src
        vec = bank.embeddings.reshape(n_src, cells * bank.embeddings.shape[1]) / np.sqrt(cells)
        ar = np.arange(n_src, dtype=np.int64)
        idx, sim = nearest_neighbours(vec, vec, sids, min(neighbours, n_src - 1), query_groups=ar,
                                      pool_groups=ar, max_similarity=None, distinct_picks=False,
                                      chunk_size=chunk_size, device=device)
        bound = int(round(max_similarity * _SCALE))
        for a in range(n_src):
            for b, s in zip(idx[a], sim[a]):
                if b >= 0 and int(round(s * _SCALE)) > bound:
                    union(a, int(b))
    root = np.array([find(j) for j in range(n_src)], dtype=np.int64)
    return root[bank.group]


# --------------------------------------------------------------------------- #
# High-level miner
# --------------------------------------------------------------------------- #
class ClipMiner:
    """Resolve weights, embed source grids (cached), mine hard distractors.

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
        self.cache = EmbeddingCache(cache_dir, self.spec, precision)
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

    def embed_sources(self, sources: Mapping[str, Image.Image] | Iterable[tuple[str, Image.Image]]
                      ) -> PatchBank:
        """Embed all 3x3 cells of every source (normalised PIL images), using the cache.

        Sources are processed in sorted source_id order; a source's 9 cells are
        written to the cache as soon as they are computed, so an interrupted run
        keeps everything finished so far.
        """
        t0 = time.perf_counter()
        items = sources.items() if isinstance(sources, Mapping) else sources
        ordered = sorted(items, key=lambda kv: kv[0])
        seen = set()
        rows, cols = self.cache.rows, self.cache.cols
        stats = EmbedStats(sources=len(ordered))
        per_source: dict[str, np.ndarray] = {}
        meta = []  # (sid, cells, digests)
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
            img = img.convert("RGB") if img.mode != "RGB" else img
            cells = grid_cells(img, rows, cols)
            digests = [pixel_digest(c) for c in cells]
            src_digest = hashlib.sha256("".join(digests).encode()).hexdigest()
            meta.append((sid, cells, digests))
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
        for sid, cells, digests in meta:
            embs.append(per_source[sid])
            for i, (c, d) in enumerate(zip(cells, digests)):
                r, cc = divmod(i, cols)
                src_ids.append(sid)
                cell_rc.append((r, cc))
                rids.append(region_id(sid, r, cc))
                digs.append(d)
                sizes.append(c.size)
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
                ds.append(Distractor(bank.source_ids[j], r, c, float(s), int(j)))
            if strict and len(ds) < k:
                raise RuntimeError(f"only {len(ds)} admissible CLIP distractors for {region_id(*t)}; "
                                   "the source set is too small or too repetitive")
            out.append(MinedDistractors(t[0], int(t[1]), int(t[2]), tuple(ds)))
        return out
