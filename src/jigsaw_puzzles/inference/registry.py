"""The backend registry: a backend name -> its class, built with the run's settings."""
from __future__ import annotations

from .backends import (BACKENDS, Backend, BuiltinBackend, GenerationSettings, TransformersBackend,
                       VLLMBackend)
from .openai_backend import OpenAIBackend


def make_backend(backend: str, model: str, settings: GenerationSettings, *, batch_size: int, max_images: int = 5,
                 tensor_parallel_size: int = 1, api_base: str | None = None, api_key: str | None = None,
                 num_proc: int | None = None, trust_remote_code: bool = False, **kwargs) -> Backend:
    if backend == "builtin":
        return BuiltinBackend(model, seed=settings.seed, num_proc=num_proc)
    if backend == "transformers":
        return TransformersBackend(model, settings, batch_size=batch_size, trust_remote_code=trust_remote_code,
                                   **kwargs)
    if backend == "vllm":
        return VLLMBackend(model, settings, max_images=max_images, tensor_parallel_size=tensor_parallel_size,
                           trust_remote_code=trust_remote_code, **kwargs)
    if backend == "openai":
        return OpenAIBackend(model, settings, api_base=api_base, api_key=api_key, concurrency=batch_size, **kwargs)
    raise ValueError(f"unknown backend {backend!r}; choose from {BACKENDS}")
