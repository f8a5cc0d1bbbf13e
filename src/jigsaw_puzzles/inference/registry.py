"""The backend registry: every backend's name, what it is, its default batch size and its constructor, once.

The CLI's ``--backend`` choices, the runner's defaults and :func:`make_backend` all read :data:`BACKENDS`.
Constructors import their heavy dependencies (torch, transformers, vllm) only when called.
"""
from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from typing import Callable

from ..errors import UsageError, install_hint

from .backends import BUILTIN_MODELS, Backend, BuiltinBackend, TransformersBackend, VLLMBackend
from .openai_backend import OpenAIBackend
from .settings import GenerationSettings


@dataclass(frozen=True)
class BackendEntry:
    summary: str
    default_batch_size: int  # items handed to the backend at once (openai: concurrent requests)
    make: Callable[..., Backend]
    requires: tuple[str, ...] = ()  # the modules its constructor imports
    extra: str | None = None  # the package extra that installs them
    cls: type | None = None  # the backend class, whose own keyword arguments ``backend_kwargs`` may hold


#: keyword arguments every constructor is offered; each takes what it uses, the rest are the backend's own.
COMMON = ("batch_size", "max_images", "tensor_parallel_size", "api_base", "api_key", "num_proc", "trust_remote_code")


def _own(kwargs: dict) -> dict:
    return {k: v for k, v in kwargs.items() if k not in COMMON}


def _builtin(model, settings, *, num_proc=None, **_):
    return BuiltinBackend(model, seed=settings.seed, num_proc=num_proc)


def _transformers(model, settings, *, batch_size, trust_remote_code=False, **kwargs):
    return TransformersBackend(model, settings, batch_size=batch_size, trust_remote_code=trust_remote_code,
                               **_own(kwargs))


def _vllm(model, settings, *, max_images=5, tensor_parallel_size=1, trust_remote_code=False, **kwargs):
    return VLLMBackend(model, settings, max_images=max_images, tensor_parallel_size=tensor_parallel_size,
                       trust_remote_code=trust_remote_code, **_own(kwargs))


def _openai(model, settings, *, batch_size, api_base=None, api_key=None, **kwargs):
    return OpenAIBackend(model, settings, api_base=api_base, api_key=api_key, concurrency=batch_size,
                         **_own(kwargs))


#: name -> entry, in the order the CLI lists them.
BACKENDS: dict[str, BackendEntry] = {
    "builtin": BackendEntry(f"the weight-free baselines ({', '.join(BUILTIN_MODELS)})", 16, _builtin),
    "transformers": BackendEntry("AutoModelForImageTextToText, batched, device_map=auto", 8, _transformers,
                                 ("torch", "transformers"), "inference", TransformersBackend),
    "vllm": BackendEntry("vllm.LLM.chat (offline engine, tensor parallel)", 256, _vllm, ("vllm",), "vllm",
                         VLLMBackend),
    "openai": BackendEntry("any OpenAI-compatible /chat/completions endpoint", 8, _openai, cls=OpenAIBackend),
}
#: What the runner passes every constructor itself (from evaluate_model's own settings), never a backend_kwargs key.
_SET_BY_THE_RUN = {*COMMON, "model", "settings", "concurrency", "seed", "self"}


def own_options(backend: str) -> tuple[str, ...] | None:
    """The keyword arguments ``backend_kwargs`` may hold for ``backend`` (``None``: any, vLLM's engine arguments)."""
    import inspect

    cls = BACKENDS[backend].cls
    if cls is None:
        return ()
    params = inspect.signature(cls.__init__).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return tuple(p.name for p in params if p.name not in _SET_BY_THE_RUN)


def check_backend_kwargs(backend: str, kwargs) -> None:
    """A UsageError for a ``backend_kwargs`` key ``backend`` does not take (the builtin baselines take none) or that
    is one of evaluate_model's own settings, before anything is built: never a TypeError after the build."""
    given = sorted(str(k) for k in (kwargs or {}))
    own = own_options(backend)
    for key in given:
        if key in _SET_BY_THE_RUN:
            raise UsageError(f"backend_kwargs[{key!r}] is set by the run: give it as evaluate_model's own setting")
        if own is not None and key not in own:
            raise UsageError(f"backend_kwargs[{key!r}]: the {backend} backend takes "
                             + (", ".join(own) if own else "no keyword arguments") + " (backend_kwargs)")


def _importable(name: str) -> bool:
    if sys.modules.get(name) is not None:  # imported already (or put there by a test)
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def check_installed(backend: str) -> None:
    """A UsageError naming the extra to install when ``backend``'s modules are missing (the base install has no
    torch), before a run directory is locked or an item built; found by name, nothing is imported."""
    entry = BACKENDS[backend]
    missing = [m for m in entry.requires if not _importable(m)]
    if missing:
        raise UsageError(f"the {backend} backend needs {' and '.join(missing)}, which this Python lacks: "
                         f"{install_hint(entry.extra)}")


def make_backend(backend: str, model: str, settings: GenerationSettings, **kwargs) -> Backend:
    """The backend ``backend`` for ``model``; ``kwargs``: batch_size, max_images, tensor_parallel_size, api_base,
    api_key, num_proc, trust_remote_code and the backend's own keyword arguments (``backend_kwargs``)."""
    try:
        entry = BACKENDS[backend]
    except KeyError:
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}") from None
    kwargs.setdefault("batch_size", entry.default_batch_size)
    return entry.make(model, settings, **kwargs)
