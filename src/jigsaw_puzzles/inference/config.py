"""What :func:`~jigsaw_puzzles.inference.evaluate_model` is asked to do: every setting besides the model, as one
typed record that validates itself (the CLI builds it from its flags)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

from ..errors import UnknownArgument, UsageError, mapping_value, path_value, python_face, seed_value
from ..generation.builder import BUILDER_ARGUMENTS, KNOWN_OPTIONS, check_builder_kwargs
from ..generation.variants import Variant
from ..spec import SPLITS
from .judge import JudgeSettings
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
    restate: bool = False
    judge: str | None = None
    judge_kwargs: Mapping[str, Any] | None = field(default=None, repr=False)  # may hold the judge's api_key

    def __post_init__(self):  # a name or a list of names is a tuple; anything else is left for validate to name
        if isinstance(self.configs, str):
            object.__setattr__(self, "configs", (self.configs,))
        elif isinstance(self.configs, list):
            object.__setattr__(self, "configs", tuple(self.configs))

    @classmethod
    def of(cls, settings: "EvalSettings | None" = None, **overrides: Any) -> "EvalSettings":
        """``settings`` (default: the defaults) with ``overrides``; an unknown name is a UsageError listing the
        known ones (not a TypeError from deep inside)."""
        _known(overrides, "evaluate_model")
        return replace(settings or cls(), **overrides)

    @python_face
    def validate(self) -> "EvalSettings":
        """Check every value (the shared rules: :mod:`jigsaw_puzzles.errors` for seeds, paths and mappings,
        :mod:`.options` for the run's numbers, the builder for its options); returns the record with its values
        normalised (a numpy integer seed is its ``int``)."""
        if self.backend is not None and (not isinstance(self.backend, str) or self.backend not in BACKENDS):
            raise UsageError(f"unknown backend {self.backend!r}; choose from {', '.join(BACKENDS)}")
        configs = self.configs
        if configs is not None and (not isinstance(configs, tuple) or not configs
                                    or not all(isinstance(c, str) for c in configs)):
            raise UsageError(f"configs must be a config name or a non-empty list of config names (leave it out, None, "
                             f"for every config), not {configs!r}")
        if not isinstance(self.split, str) or (self.data is None and self.split not in SPLITS):
            raise UsageError(f"unknown split {self.split!r}; choose from {', '.join(SPLITS)}")
        path_value(self.source, "source", "a folder of photographs", "the embedded photos")
        path_value(self.out, "out", "a run directory", "runs/<model>-<split>")
        seed = seed_value(self.seed, "seed")
        for name in ("api_base", "api_key", "system_prompt"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise UsageError(f"{name} must be a str or None, not {type(getattr(self, name)).__name__}")
        for name in ("dtype", "prompt_style", "input_format"):
            if not isinstance(getattr(self, name), str):
                raise UsageError(f"{name} must be a str, not {getattr(self, name)!r}")
        backend_kwargs = mapping_value(self.backend_kwargs, "backend_kwargs", "the backend's keyword arguments")
        dataset_kwargs = mapping_value(self.dataset_kwargs, "dataset_kwargs", "the builder's options")
        if dataset_kwargs:
            check_builder_kwargs(dataset_kwargs, "evaluate_model's dataset_kwargs", allowed=DATASET_KWARGS)
        check_data(self.data)
        check_run(out=self.out, max_items=self.max_items, batch_size=self.batch_size,
                  tensor_parallel_size=self.tensor_parallel_size, max_new_tokens=self.max_new_tokens,
                  temperature=self.temperature, top_p=self.top_p, dtype=self.dtype, num_proc=self.num_proc,
                  api_base=self.api_base, backend_kwargs=backend_kwargs)
        for name in ("trust_remote_code", "overwrite", "progress", "blind", "circular", "restate"):
            if not isinstance(getattr(self, name), bool):
                raise UsageError(f"{name} must be True or False, not {getattr(self, name)!r}")
        self.variant()  # an unknown prompt style or input format, or --blind with a composite
        self.judge_settings()
        return self if type(self.seed) is int else replace(self, seed=seed)

    def variant(self) -> Variant:
        return Variant(self.prompt_style, self.input_format, self.blind, self.circular)

    def judge_settings(self) -> JudgeSettings | None:
        """The judge of ``judge`` and ``judge_kwargs``, checked (None without a judge)."""
        kwargs = mapping_value(self.judge_kwargs, "judge_kwargs", "the judge's settings")
        if self.judge is None:
            if kwargs:
                raise UsageError("judge_kwargs are given without a judge: name the judge model (--judge MODEL)")
            return None
        return JudgeSettings.of(self.judge, kwargs)


def _known(given: Mapping[str, Any], who: str) -> None:
    """An :class:`~jigsaw_puzzles.errors.UnknownArgument` (a UsageError and a TypeError) naming the settings
    ``given`` that EvalSettings does not have, and the ones it has."""
    names = [f.name for f in fields(EvalSettings)]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise UnknownArgument(f"{who} got unknown setting(s) {', '.join(unknown)}; known: {', '.join(names)}")


_dataclass_init = EvalSettings.__init__


@functools.wraps(_dataclass_init)
def _init(self, *args, **kwargs):  # EvalSettings(bogus=1): the package's error naming the known settings
    _known(kwargs, "EvalSettings")
    if len(args) > len(fields(EvalSettings)):
        raise UnknownArgument(f"EvalSettings takes at most {len(fields(EvalSettings))} settings; give them by name")
    _dataclass_init(self, *args, **kwargs)


EvalSettings.__init__ = _init


#: What ``dataset_kwargs`` may hold: the tasks' options and settings (``clip_model``, ``clip_cache_dir``, ...), the
#: ``datasets`` cache and the builder's arguments (a resume checks the items' fingerprints), but not what the run
#: sets itself (``splits``; ``source``, ``seed``, ``num_proc`` are its own settings).
DATASET_KWARGS = (*sorted(KNOWN_OPTIONS), "cache_dir", *(a for a in BUILDER_ARGUMENTS if a != "splits"))


def check_data(data: Any) -> None:
    """``data`` is None or ``{config name: datasets.Dataset}`` whose rows carry what a run reads."""
    if data is None:
        return
    import datasets

    if not isinstance(data, Mapping) or not data:
        raise UsageError(f"data must be a non-empty dict {{config: datasets.Dataset}}, not {data!r:.60}")
    for config, ds in data.items():
        if not isinstance(config, str) or not isinstance(ds, datasets.Dataset):
            raise UsageError(f"data must map config names to datasets.Dataset; got {config!r:.40}: "
                             f"{type(ds).__name__}")
        missing = [c for c in ("id", "question", "images", "answer") if c not in ds.column_names]
        if missing:
            raise UsageError(f"data[{config!r}] has no {', '.join(missing)} column (a benchmark row's columns: "
                             "jp.load_dataset gives them)")
