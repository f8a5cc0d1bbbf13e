"""The ``datasets`` builder: curate sources, plan answers, and let the task modules make items.

It only orchestrates.  What an item looks like is decided in ``tasks/``; what a
usable source is, in ``sources``; all randomness in ``rng``.  Modelled on the
packaged builders of ``datasets`` (``imagefolder``): a ``BuilderConfig`` per
config, ``_split_generators`` that lists the work and ``_generate_examples``
that does it, sharded over ``num_proc`` processes by the list in ``gen_kwargs``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import datasets

from . import __version__
from .rng import stable_hash
from .sources import DEFAULT_RULES, CurationRules, curate, folder_fingerprint, load_normalised, resolve_folder
from .tasks import TASKS, Context, TaskError, item_rng, plan_slots
from .tasks.missing_piece_selection import cell_patch

logger = datasets.logging.get_logger(__name__)

CONFIGS = list(TASKS)
SPLITS = ("test", "lite")
LITE_FRACTION = 0.2  # 220 of the paper's 1,100 images
_VERSION = datasets.Version("1.0.0")

_CITATION = """\
@misc{lyu2025jigsawpuzzles,
  title={Jigsaw-Puzzles: From Seeing to Understanding to Reasoning in Vision-Language Models},
  author={Lyu, Zesen and Zhang, Dandan and Ye, Wei and Li, Fangdi and Jiang, Zhihang and Yang, Yao},
  howpublished={\\url{https://zesen01.github.io/jigsaw-puzzles}},
  year={2025}
}
"""
_HOMEPAGE = "https://zesen01.github.io/jigsaw-puzzles"

FEATURES = datasets.Features({
    "id": datasets.Value("string"),
    "source_id": datasets.Value("string"),
    "images": datasets.List(datasets.Image()),
    "question": datasets.Value("string"),
    "options": datasets.List(datasets.Value("string")),
    "answer": datasets.Value("string"),
    "metadata": datasets.Value("string"),
})


@lru_cache(maxsize=1)
def code_hash() -> str:
    """Hash of the generator's own code: a change to any task invalidates cached builds."""
    h = hashlib.sha256(__version__.encode())
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def lite_ids(source_ids, seed: int, fraction: float = LITE_FRACTION) -> list[str]:
    """The seeded Lite subset: the same source images for every config."""
    if not source_ids:
        return []
    count = max(1, round(len(source_ids) * fraction))
    return sorted(sorted(source_ids, key=lambda s: (stable_hash("lite", seed, s), s))[:count])


@dataclass
class JigsawPuzzlesConfig(datasets.BuilderConfig):
    """One task (and difficulty) of the benchmark, built from ``source`` with ``seed``.

    Args:
        source: folder of source images (recursive; JPEG, PNG, WebP). ``None``: the embedded photos.
        seed: the benchmark seed; with the same sources it fixes every byte of the output.
        lite_fraction: share of source images in the ``lite`` split.
        fingerprint: cache key of the source folder's contents; filled in automatically.
    """

    source: str | None = None
    seed: int = 0
    lite_fraction: float = LITE_FRACTION
    fingerprint: str | None = None


class JigsawPuzzles(datasets.GeneratorBasedBuilder):
    """Jigsaw-Puzzles items generated on demand from a folder of photographs."""

    VERSION = _VERSION
    BUILDER_CONFIG_CLASS = JigsawPuzzlesConfig
    BUILDER_CONFIGS = [JigsawPuzzlesConfig(name=name, version=_VERSION, description=spec.summary)
                       for name, spec in TASKS.items()]
    DEFAULT_WRITER_BATCH_SIZE = 64  # rows of several PNGs each: keep writer memory small
    rules: CurationRules = DEFAULT_RULES

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("dataset_name", "jigsaw_puzzles")
        kwargs.setdefault("hash", code_hash())
        if kwargs.get("source") is not None:
            kwargs["source"] = str(resolve_folder(kwargs["source"]))
        if kwargs.get("fingerprint") is None:
            kwargs["fingerprint"] = folder_fingerprint(kwargs.get("source"))
        super().__init__(*args, **kwargs)
        self._plan: dict | None = None

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=f"Jigsaw-Puzzles, {self.config.description or self.config.name}.",
            features=FEATURES,
            homepage=_HOMEPAGE,
            citation=_CITATION,
            license="Apache-2.0 (code); source images keep their own licences",
        )

    def plan(self) -> dict:
        """Curate the sources, apply the task's checks, and assign answer slots (memoised).

        Returns a dict with the curation, the task's skipped sources with reasons,
        the feasible sources, the Lite ids and the slot of every item.
        """
        if self._plan is not None:
            return self._plan
        spec = TASKS[self.config.name]
        curation = curate(self.config.source, self.rules)
        feasible, skipped = [], []
        for source in curation.accepted:
            reason = spec.check(load_normalised(source.path, self.rules))
            if reason:
                skipped.append({"path": source.relpath, "source_id": source.source_id, "reason": reason})
            else:
                feasible.append(source)
        lite = lite_ids([s.source_id for s in curation.accepted], self.config.seed, self.config.lite_fraction)
        feasible_ids = {s.source_id for s in feasible}
        slots = plan_slots(sorted(feasible_ids), [s for s in lite if s in feasible_ids],
                           self.config.seed, spec.family, spec.num_slots)
        self._plan = {"curation": curation, "task_skips": skipped, "feasible": feasible,
                      "lite": lite, "slots": slots}
        return self._plan

    @property
    def report(self) -> dict:
        """Curation report plus this config's skips, JSON-ready."""
        plan = self.plan()
        return {"config": self.config.name, "seed": self.config.seed,
                "curation": plan["curation"].to_dict(), "task_skips": plan["task_skips"]}

    def _split_generators(self, dl_manager):
        plan = self.plan()
        curation, feasible, slots = plan["curation"], plan["feasible"], plan["slots"]
        if curation.rejected or plan["task_skips"]:
            logger.warning(
                f"{self.config.name}: {len(curation.accepted)} of {len(curation.records)} files accepted; "
                f"{len(curation.rejected)} rejected by curation, {len(plan['task_skips'])} skipped by the task "
                f"(reasons: `jigsaw-puzzles curate DIR` or builder.report)")
        if not feasible:
            raise ValueError(f"{self.config.name}: no usable source image in {curation.folder}")
        pool = tuple((s.source_id, s.path) for s in curation.accepted)
        lite_set = set(plan["lite"])

        def work(sources):
            return [(s.source_id, s.path, slots[s.source_id]) for s in sources]

        return [
            datasets.SplitGenerator(name="test", gen_kwargs={"items": work(feasible), "pool": pool}),
            datasets.SplitGenerator(
                name="lite",
                gen_kwargs={"items": work([s for s in feasible if s.source_id in lite_set]), "pool": pool}),
        ]

    def _generate_examples(self, items, pool):
        spec = TASKS[self.config.name]
        paths = dict(pool)
        pool_ids = tuple(sorted(paths))
        rules = self.rules

        def get_patch(source_id, cell, size):
            return cell_patch(load_normalised(paths[source_id], rules), cell, size)

        for source_id, path, slot in items:
            image = load_normalised(path, rules)
            rng = item_rng(self.config.seed, spec.family, source_id)
            context = Context(source_id=source_id, pool_ids=pool_ids, get_patch=get_patch)
            try:
                item = spec.build(image, rng, slot, context)
            except TaskError as err:  # recorded, never a crash mid-build
                logger.warning(f"{self.config.name}: skipped {source_id} ({Path(path).name}): {err}")
                continue
            metadata = {"config": self.config.name, "seed": self.config.seed, "slot": slot,
                        "source_size": list(image.size), **item.metadata}
            key = f"{self.config.name}/{source_id}"
            yield key, {
                "id": key,
                "source_id": source_id,
                "images": [{"bytes": _png(im), "path": None} for im in item.images],
                "question": item.question,
                "options": item.options,
                "answer": item.answer,
                "metadata": json.dumps(metadata, sort_keys=True),
            }


def _png(image) -> bytes:
    from .geometry import encode_png
    return encode_png(image)


def make_builder(config: str, source: str | os.PathLike | None = None, seed: int = 0,
                 cache_dir: str | None = None, **kwargs) -> JigsawPuzzles:
    if config not in TASKS:
        raise ValueError(f"unknown config {config!r}; choose from {', '.join(CONFIGS)}")
    return JigsawPuzzles(config_name=config, source=None if source is None else str(source),
                         seed=seed, cache_dir=cache_dir, **kwargs)


def load_dataset(config: str, split: str | None = "test", source: str | os.PathLike | None = None,
                 seed: int = 0, num_proc: int | None = None, cache_dir: str | None = None,
                 **kwargs) -> datasets.Dataset | datasets.DatasetDict:
    """Build (or reload from the ``datasets`` cache) one config of the benchmark.

    >>> import jigsaw_puzzles as jp
    >>> ds = jp.load_dataset("order_restoration", split="lite")  # embedded photos, seed 0
    """
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {SPLITS}")
    builder = make_builder(config, source, seed, cache_dir, **kwargs)
    builder.download_and_prepare(num_proc=num_proc)
    return builder.as_dataset(split=split)
