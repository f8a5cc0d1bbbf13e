"""The typed, immutable records of a run: what it is asked to do, its decoding settings and its identity.

:class:`EvalSettings` is every setting of :func:`~jigsaw_puzzles.inference.evaluate_model`, validated at once.

:class:`GenerationSettings` is what every backend decodes with; :class:`RunIdentity` is everything that can
change an answer (model, backend, split, seed, source, decoding, dataset options, endpoint).  ``run.json``
records the identity at its top level, and a resumed run whose identity differs is refused
(:meth:`RunIdentity.differences`), so a run directory never mixes answers made under different settings.
"""
from __future__ import annotations

import json
import numbers
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Mapping

from ..errors import UsageError


@dataclass(frozen=True)
class GenerationSettings:
    """Decoding settings (typed, immutable), recorded in run.json and compared on resume.  Greedy by default."""

    max_new_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    dtype: str = "auto"
    system_prompt: str | None = None

    def __post_init__(self):  # normalise types so that 7 and 7.0 are one setting
        object.__setattr__(self, "max_new_tokens", int(self.max_new_tokens))
        object.__setattr__(self, "temperature", float(self.temperature))
        object.__setattr__(self, "top_p", float(self.top_p))
        object.__setattr__(self, "seed", int(self.seed))

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0

    def to_dict(self) -> dict:
        return {**asdict(self), "greedy": self.greedy}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "GenerationSettings":
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


@dataclass(frozen=True)
class RunIdentity:
    """What makes two runs the same run.  Every field must match on resume, except that ``dataset_options``
    (per config) is compared only for the configs both runs have, so adding a config extends a run."""

    model: str
    backend: str
    split: str
    seed: int
    source: str | None
    generation: GenerationSettings
    api_base: str | None = None  # the endpoint (openai backend): another server may serve other weights
    dataset_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # config -> its Task.options
    variant: Mapping[str, Any] | None = None  # jigsaw_puzzles.generation.variants.Variant.to_dict(); None = the paper's setting

    def to_dict(self) -> dict:
        """The run.json keys of this identity."""
        return {"model": self.model, "backend": self.backend, "split": self.split, "seed": int(self.seed),
                "source": self.source, "generation": self.generation.to_dict(), "api_base": self.api_base,
                "dataset_options": {c: dict(o) for c, o in self.dataset_options.items()},
                **({"variant": dict(self.variant)} if self.variant else {})}

    def differences(self, recorded: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
        """``{key: (recorded value, this value)}`` for every key where ``recorded`` (a run.json) disagrees."""
        mine = self.to_dict()
        diffs = {}
        if not _same(recorded.get("variant"), mine.get("variant")):  # a paper run and a variant never mix
            diffs["variant"] = (recorded.get("variant"), mine.get("variant"))
        for key, value in mine.items():
            if key == "variant":
                continue
            old = recorded.get(key)
            if key == "dataset_options":
                old = old if isinstance(old, Mapping) else {}
                for config in sorted(set(old) & set(value)):
                    if not _same(old[config], value[config]):
                        diffs[f"dataset_options[{config}]"] = (old[config], value[config])
            elif not _same(old, value):
                diffs[key] = (old, value)
        return diffs


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
        from .options import check_run
        from .registry import BACKENDS

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

    def variant(self):
        from ..generation.variants import Variant

        return Variant(self.prompt_style, self.input_format, self.blind, self.circular)
