"""The typed, immutable records of a run: its decoding settings and its identity.

:class:`GenerationSettings` is what every backend decodes with; :class:`RunIdentity` is everything that can
change an answer (model, backend, split, seed, source, decoding, dataset options, endpoint).  ``run.json``
records the identity at its top level, and a resumed run whose identity differs is refused
(:meth:`RunIdentity.differences`), so a run directory never mixes answers made under different settings.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping


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

