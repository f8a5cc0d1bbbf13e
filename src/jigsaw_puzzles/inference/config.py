"""What :func:`~jigsaw_puzzles.inference.evaluate_model` is asked to do: every setting besides the model, as one
typed record that validates itself (the CLI builds it from its flags)."""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

from ..errors import UsageError
from ..generation.variants import Variant
from .options import check_run
from .registry import BACKENDS


@dataclass(frozen=True)
class EvalSettings:
    """Everything :func:`~jigsaw_puzzles.inference.evaluate_model` takes besides the model, typed and checked by
    :meth:`validate` (a wrong value is one :class:`~jigsaw_puzzles.errors.UsageError` naming the option, before any
    run directory is locked, model loaded or item built). The CLI builds one from its flags; Python users may pass
    one (``evaluate_model(model, settings)``) or keyword arguments (``evaluate_model(model, split="lite")``).
    The fields' meanings: :func:`~jigsaw_puzzles.inference.evaluate_model`'s docstring."""

    backend: str | None = None
    configs: tuple[str, ...] | None = None
    split: str = "test"
    source: Any = None  # str | os.PathLike
    seed: int = 0
    out: Any = None  # str | os.PathLike; default runs/<model>-<split>[-variant]
    max_items: int | None = None
    batch_size: int | None = None
    tensor_parallel_size: int = 1
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)  # never printed
    max_new_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    dtype: str = "auto"
    system_prompt: str | None = None
    num_proc: int | None = None
    trust_remote_code: bool = False
    overwrite: bool = False
    progress: bool = True
    data: Mapping[str, Any] | None = field(default=None, repr=False)  # {config: datasets.Dataset} instead of building
    backend_kwargs: Mapping[str, Any] | None = None
    dataset_kwargs: Mapping[str, Any] | None = None
    prompt_style: str = "paper"
    input_format: str = "pieces"
    blind: bool = False
    circular: bool = False

    def __post_init__(self):
        if self.configs is not None and not isinstance(self.configs, tuple):
            configs = [self.configs] if isinstance(self.configs, str) else self.configs
            object.__setattr__(self, "configs", tuple(configs))

    @classmethod
    def of(cls, settings: "EvalSettings | None" = None, **overrides: Any) -> "EvalSettings":
        """``settings`` (default: the defaults) with ``overrides``; an unknown name is a UsageError listing the
        known ones (not a TypeError from deep inside)."""
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(overrides) - set(names))
        if unknown:
            raise UsageError(f"evaluate_model got unknown setting(s) {', '.join(unknown)}; known: {', '.join(names)}")
        return replace(settings or cls(), **overrides)

    def validate(self) -> "EvalSettings":
        """Check every value (the one owner of the rules is :mod:`.options`); returns ``self``."""
        if self.backend is not None and self.backend not in BACKENDS:
            raise UsageError(f"unknown backend {self.backend!r}; choose from {', '.join(BACKENDS)}")
        check_run(out=self.out, max_items=self.max_items, batch_size=self.batch_size,
                  tensor_parallel_size=self.tensor_parallel_size, max_new_tokens=self.max_new_tokens,
                  temperature=self.temperature, top_p=self.top_p, dtype=self.dtype, num_proc=self.num_proc,
                  api_base=self.api_base, backend_kwargs=self.backend_kwargs)
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral):
            raise UsageError(f"--seed must be a whole number, got {self.seed!r}")
        for name in ("trust_remote_code", "overwrite", "progress", "blind", "circular"):
            if not isinstance(getattr(self, name), bool):
                raise UsageError(f"{name} must be True or False, got {getattr(self, name)!r}")
        self.variant()  # an unknown prompt style or input format, or --blind with a composite
        return self

    def variant(self) -> Variant:
        return Variant(self.prompt_style, self.input_format, self.blind, self.circular)
