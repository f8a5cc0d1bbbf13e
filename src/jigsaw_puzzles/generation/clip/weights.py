"""CLIP weights: resolve a model + tag / checkpoint before any work (fails fast offline), build the model."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from typing import Any, Mapping



#: Default model: the original OpenAI CLIP (Radford et al., 2021) ViT-B/32 weights.
DEFAULT_CLIP_MODEL = "ViT-B-32"
DEFAULT_CLIP_PRETRAINED = "openai"
#: Seed of the local generator used for ``pretrained=None`` (random init).
RANDOM_INIT_SEED = 0
#: How random-init weights are named (``<identity><seed>``): the portable draw of :func:`portable_random_init`
#: (generator 3.1.0; before it, ``random-init-seed<N>`` named torch's own, machine-dependent draw).
RANDOM_INIT_IDENTITY = "random-init-portable-seed"


class ClipWeightsUnavailable(RuntimeError):
    """The requested CLIP weights are neither cached locally nor downloadable."""


#: Where open_clip keeps the default weights (its pretrained table: ``hf_hub`` repo and the file names it tries,
#: .safetensors first). Lets :func:`quick_unavailable` say "not here" without importing open_clip (~10 s of CPU
#: with timm); tests/test_clip_mining.py checks it against open_clip's own table.
KNOWN_HF_WEIGHTS = {(DEFAULT_CLIP_MODEL, DEFAULT_CLIP_PRETRAINED): (
    "timm/vit_base_patch32_clip_224.openai", ("open_clip_model.safetensors", "open_clip_pytorch_model.bin"))}


def quick_unavailable(model_name: str, pretrained: object, hf_cache_dir: str | None = None) -> None:
    """Raise :class:`ClipWeightsUnavailable` (the message :func:`resolve_clip_weights` gives) when a known tag's
    weights are not in the HF cache and the Hub is off (``HF_HUB_OFFLINE``); else return and let the full
    resolution decide. Imports no torch and no open_clip."""
    known = KNOWN_HF_WEIGHTS.get((model_name, pretrained))
    if known is None or not _hub_offline():
        return
    from huggingface_hub import try_to_load_from_cache

    repo_id, names = known
    for name in names:
        hit = try_to_load_from_cache(repo_id, name, cache_dir=hf_cache_dir)
        if isinstance(hit, str) and os.path.isfile(hit):
            return
    raise _unavailable(model_name, str(pretrained), f"Hugging Face repo {repo_id} (files {list(names)}) in the HF "
                       "cache", "HF_HUB_OFFLINE=1 and they are not in the local cache",
                       f"hf download {repo_id} {names[0]}")


# --------------------------------------------------------------------------- #
# Weights resolution
# --------------------------------------------------------------------------- #
@dataclasses.dataclass(frozen=True)
class WeightsSpec:
    """Where the weights of a CLIP model come from, resolved before any work.

    ``identity`` names the weights in cache keys and metadata: the open_clip
    tag, ``sha256:<hex>`` of a checkpoint file, or ``random-init-portable-seed<N>``.
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
        # a checkpoint file is named, never located (no path of the build machine in an export); its
        # sha256 is the identity
        pretrained = os.path.basename(self.pretrained) if self.kind == "file" and self.pretrained else self.pretrained
        return {"clip_model": self.model_name, "clip_pretrained": pretrained, "clip_weights": self.identity}


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
        return WeightsSpec(model_name, None, "random", f"{RANDOM_INIT_IDENTITY}{random_init_seed}",
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
        cmd = f"hf download {repo_id} {names[0]}"
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


def portable_random_init(model, seed: int) -> None:
    """Redraw a freshly initialised model's random weights so that every machine gets the same bits.

    torch's own ``normal_`` fills a tensor with a vectorised Box-Muller whose ``log``/``cos`` differ in the
    last bit between CPU kernels (``ATEN_CPU_CAPABILITY=avx2`` vs ``default``, which AVX-512 and ARM machines
    use), so open_clip's random init is not the same model everywhere. Here each tensor that torch filled at
    random is replaced by uniform values of the same standard deviation (rounded to two significant digits)
    drawn with numpy's PCG64, seeded by (``seed``, the tensor's name): integer arithmetic and one correctly
    rounded multiplication per value, identical on every CPU. Constant tensors (LayerNorm weights, zero
    biases, the logit scale) are kept as they are."""
    import numpy as np
    import torch

    with torch.no_grad():
        for name, tensor in sorted(model.state_dict(keep_vars=True).items()):
            if not tensor.is_floating_point() or tensor.numel() < 2:
                continue
            flat = tensor.detach().reshape(-1)
            if bool((flat == flat[0]).all()):
                continue
            std = float(f"{float(flat.double().std()):.1e}")
            key = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
            u = np.random.Generator(np.random.PCG64([seed, key])).random(tensor.numel())
            values = ((2.0 * u - 1.0) * (std * np.sqrt(3.0))).astype(np.float32).reshape(tuple(tensor.shape))
            tensor.copy_(torch.from_numpy(values))


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
        portable_random_init(model, spec.seed if spec.seed is not None else RANDOM_INIT_SEED)
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
