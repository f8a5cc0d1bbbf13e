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
from .clip_mining import DEFAULT_CLIP_MODEL, DEFAULT_CLIP_PRETRAINED  # constants only: torch loads lazily
from .geometry import encode_png
from .rng import stable_hash
from .sources import DEFAULT_RULES, CurationRules, curate, folder_fingerprint, load_normalised, resolve_folder
from .tasks import TASKS, Context, TaskError, item_rng, plan_slots
from .tasks.missing_piece_selection import cell_patch

logger = datasets.logging.get_logger(__name__)

CONFIGS = list(TASKS)
SPLITS = ("test", "lite")
LITE_FRACTION = 0.2  # 220 of the paper's 1,100 images
HARD = "missing_piece_selection_hard"
CLIP_OPTIONS = ("clip_model", "clip_pretrained")
RANDOM_INIT = "random-init"  # how an explicit clip_pretrained=None is stored (datasets drops None kwargs)
MINED_CANDIDATES = 6  # the 3 distractors are the first of these that also pass the pixel rule
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
        clip_model, clip_pretrained: the open_clip model and weights (tag or checkpoint file) that mine
            the hard Missing Piece Selection distractors; ``clip_pretrained=None`` is random
            initialisation, allowed only when asked for explicitly (tests). Other configs ignore them.
    """

    source: str | None = None
    seed: int = 0
    lite_fraction: float = LITE_FRACTION
    fingerprint: str | None = None
    clip_model: str = DEFAULT_CLIP_MODEL
    clip_pretrained: str | None = DEFAULT_CLIP_PRETRAINED
    clip_weights_fingerprint: str | None = None


class JigsawPuzzles(datasets.GeneratorBasedBuilder):
    """Jigsaw-Puzzles items generated on demand from a folder of photographs."""

    VERSION = _VERSION
    BUILDER_CONFIG_CLASS = JigsawPuzzlesConfig
    BUILDER_CONFIGS = [JigsawPuzzlesConfig(name=name, version=_VERSION, description=spec.summary)
                       for name, spec in TASKS.items()]
    DEFAULT_WRITER_BATCH_SIZE = 64  # rows of several PNGs each: keep writer memory small
    rules: CurationRules = DEFAULT_RULES

    def __init__(self, *args, clip_cache_dir: str | None = None, clip_device: str | None = None,
                 clip_batch_size: int = 64, **kwargs):
        """``clip_*`` arguments only steer how embeddings are computed and cached, not the output."""
        self.clip_settings = {"cache_dir": clip_cache_dir, "device": clip_device, "batch_size": clip_batch_size}
        self._miner = None
        if "clip_pretrained" in kwargs and kwargs["clip_pretrained"] is None:
            kwargs["clip_pretrained"] = RANDOM_INIT
        pretrained = kwargs.get("clip_pretrained")
        if pretrained and os.path.isfile(str(pretrained)):
            st = os.stat(pretrained)
            kwargs["clip_weights_fingerprint"] = stable_hash(os.path.abspath(pretrained), st.st_size,
                                                             st.st_mtime_ns)[:16]
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
        miner = self.clip_miner() if self.config.name == HARD else None  # fails before any work
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
                      "lite": lite, "slots": slots, "extra": {}}
        if miner is not None:
            self._plan["extra"] = self._mine_hard_distractors(miner, curation.accepted, sorted(feasible_ids))
        return self._plan

    def clip_miner(self):
        """The CLIP miner of the hard config; resolves the weights (or raises) without loading them."""
        if self._miner is None:
            try:
                from .clip_mining import ClipMiner
                import open_clip  # noqa: F401
                import torch  # noqa: F401
            except ImportError as err:
                raise ImportError(f"{HARD} needs torch and open_clip: pip install 'jigsaw-puzzles[clip]' "
                                  f"({err})") from err
            pretrained = None if self.config.clip_pretrained == RANDOM_INIT else self.config.clip_pretrained
            self._miner = ClipMiner(self.config.clip_model, pretrained,
                                    allow_random_init=pretrained is None,
                                    cache_dir=self.clip_settings["cache_dir"],
                                    device=self.clip_settings["device"],
                                    batch_size=self.clip_settings["batch_size"])
        return self._miner

    def _mine_hard_distractors(self, miner, accepted, item_ids) -> dict[str, str]:
        """Embed every 3x3 cell of every source once (disk-cached), then mine each item's blank."""
        from .clip_mining import DEFAULT_MAX_SIMILARITY
        from .tasks.missing_piece_selection import choose_region

        bank = miner.embed_sources({s.source_id: load_normalised(s.path, self.rules) for s in accepted})
        family = TASKS[HARD].family
        regions = {sid: choose_region(item_rng(self.config.seed, family, sid)) for sid in item_ids}
        targets = [(sid, regions[sid] // 3, regions[sid] % 3) for sid in item_ids]
        mined = miner.mine(bank, targets, k=MINED_CANDIDATES, strict=False)
        clip = {**miner.spec.metadata(), "clip_precision": miner.precision,
                "clip_max_similarity": DEFAULT_MAX_SIMILARITY}
        return {m.source_id: json.dumps({
            "region": regions[m.source_id], "clip": clip,
            "candidates": [[d.source_id, d.row * 3 + d.col, d.similarity] for d in m.distractors]})
            for m in mined}

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

        extra = plan["extra"]

        def work(sources):
            return [(s.source_id, s.path, slots[s.source_id], extra.get(s.source_id, "")) for s in sources]

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

        for source_id, path, slot, extra in items:
            image = load_normalised(path, rules)
            rng = item_rng(self.config.seed, spec.family, source_id)
            mined = json.loads(extra) if extra else None
            context = Context(source_id=source_id, pool_ids=pool_ids, get_patch=get_patch,
                              hard_distractors=_hard_distractors(mined, get_patch))
            try:
                item = spec.build(image, rng, slot, context)
            except TaskError as err:  # recorded, never a crash mid-build
                logger.warning(f"{self.config.name}: skipped {source_id} ({Path(path).name}): {err}")
                continue
            metadata = {"config": self.config.name, "seed": self.config.seed, "slot": slot,
                        "source_size": list(image.size), **item.metadata}
            if mined is not None:
                metadata.update(mined["clip"])
            key = f"{self.config.name}/{source_id}"
            yield key, {
                "id": key,
                "source_id": source_id,
                "images": [{"bytes": encode_png(im), "path": None} for im in item.images],
                "question": item.question,
                "options": item.options,
                "answer": item.answer,
                "metadata": json.dumps(metadata, sort_keys=True),
            }


def _hard_distractors(mined: dict | None, get_patch):
    if mined is None:
        return None

    def pick(source_id, region, truth):
        from .tasks.missing_piece_selection import chosen_distractors
        if region != mined["region"]:
            raise TaskError(f"mined region {mined['region']} differs from the item's region {region}")
        return chosen_distractors([tuple(c) for c in mined["candidates"]], truth, get_patch)
    return pick


def make_builder(config: str, source: str | os.PathLike | None = None, seed: int = 0,
                 cache_dir: str | None = None, **kwargs) -> JigsawPuzzles:
    if config not in TASKS:
        raise ValueError(f"unknown config {config!r}; choose from {', '.join(CONFIGS)}")
    if config != HARD:  # CLIP settings only shape the hard config; keep other cache keys clean
        for option in CLIP_OPTIONS:
            kwargs.pop(option, None)
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
