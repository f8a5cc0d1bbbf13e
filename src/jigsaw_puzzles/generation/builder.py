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
import numbers
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

import datasets
from tqdm.auto import tqdm

from .._version import __version__
from ..errors import ConfigUnavailable, UsageError, count_value, path_value, python_face, seed_value
from .plan import ANSWER_PLANS, DEFAULT_ANSWER_PLAN, in_shard, lite_ids, plan_slots, shard_value
from .licences import source_terms
from .curation import curate
from .items import item_row
from .sources import DEFAULT_RULES, CurationRules, embedded_folder, folder_fingerprint, load_normalised, resolve_folder
from ..spec import CITATION, GRID_BASES, HOMEPAGE, LITE_FRACTION, ROTATION_BASES, SPLITS, features, \
    get as get_spec, grid_config, is_config
from .probe import verdicts
from .tasks import TASKS, get_task
from .workers import InWorkers

logger = datasets.logging.get_logger(__name__)

CONFIGS = list(TASKS)
_VERSION = datasets.Version("1.0.0")


@lru_cache(maxsize=1)
def code_hash() -> str:
    """Hash of the generator's own code: a change to any task invalidates cached builds."""
    h = hashlib.sha256(__version__.encode())
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


@dataclass
class JigsawPuzzlesConfig(datasets.BuilderConfig):
    """One task (and difficulty) of the benchmark, built from ``source`` with ``seed``.

    Args:
        source: folder of source images (recursive; JPEG, PNG, WebP). ``None``: the embedded photos.
        seed: the benchmark seed; with the same sources it fixes every byte of the output.
        lite_fraction: share of source images in the ``lite`` split.
        fingerprint: cache key of the source folder's contents; filled in automatically.
        options: the task's own options that shape its items (``Task.options``, e.g. the CLIP
            model of the hard config), normalised by the task; part of the cache key.
        answer_plan: ``"quota"`` (default: letters and Lite size exactly balanced, and one photo more, less or
            replaced changes the letters or Lite membership of only a few other items), ``"stable"`` (2.0.0:
            each photo's letter and Lite membership depend on that photo alone, balanced only in expectation)
            or ``"balanced"`` (1.x: exact, but one photo more reshuffles most letters; for a frozen folder);
            see :mod:`jigsaw_puzzles.generation.plan`.
        splits: the splits to generate (``None``: all of :data:`~jigsaw_puzzles.spec.SPLITS`). ``("lite",)``
            cuts only the Lite items, the same bytes as in a full build (curation and the Lite subset still see
            every source; the task's check and probe run on the Lite sources, whose slots depend on no other item),
            for a Lite evaluation in a fraction of the time.
        keep_sources: source ids already in the benchmark (an earlier export's, given by ``export.build``): a
            new file that near-duplicates one of them is the copy curation drops, whatever the ids.
        shard: ``(i, n)``: only the items of the photos in the ``i``-th of ``n`` equal ranges of source ids (a
            content hash: :func:`in_shard`), one machine's part of a build over ``n``; curation and the plan
            stay the whole folder's, so every item is the one a whole build makes.
    """

    source: str | None = None
    seed: int = 0
    lite_fraction: float = LITE_FRACTION
    fingerprint: str | None = None
    options: dict | None = None
    answer_plan: str = DEFAULT_ANSWER_PLAN
    splits: tuple[str, ...] | None = None
    keep_sources: tuple[str, ...] | None = None
    shard: tuple[int, int] | None = None


class _Configs(dict):
    """The builder's configs: the paper's, and a grid config (``order_generation_3x3``) made on first use."""

    def get(self, name, default=None):
        if name not in self and isinstance(name, str) and is_config(name):
            self[name] = JigsawPuzzlesConfig(name=name, version=_VERSION, description=get_task(name).summary)
        return super().get(name, default)


class JigsawPuzzles(InWorkers, datasets.GeneratorBasedBuilder):
    """Jigsaw-Puzzles items generated on demand from a folder of photographs."""

    VERSION = _VERSION
    BUILDER_CONFIG_CLASS = JigsawPuzzlesConfig
    BUILDER_CONFIGS = [JigsawPuzzlesConfig(name=name, version=_VERSION, description=task.summary)
                       for name, task in TASKS.items()]
    builder_configs = _Configs((c.name, c) for c in BUILDER_CONFIGS)
    DEFAULT_WRITER_BATCH_SIZE = 64  # rows of several PNGs each: keep writer memory small
    rules: CurationRules = DEFAULT_RULES

    def __init__(self, *args, settings: dict | None = None, progress: bool = False, **kwargs):
        """``settings`` (``Task.settings``) only steer how a task's preparation runs, not the output, with one
        exception: ``clip_device`` on CUDA embeds in fp16 autocast, which changes some hard items (recorded in
        their ``clip_precision``; docs/performance.md#reproducibility-across-instruction-sets) and is not part
        of the ``datasets`` cache key: use another ``cache_dir`` for a CUDA build and a CPU one;
        ``progress`` shows one bar per split labelled with the config (the CLI turns ``datasets``' own unnamed
        "Generating ... split" bars off)."""
        self.settings = dict(settings or {})
        self.progress = progress
        kwargs.setdefault("dataset_name", "jigsaw_puzzles")
        kwargs.setdefault("hash", code_hash())
        if kwargs.get("answer_plan", DEFAULT_ANSWER_PLAN) not in ANSWER_PLANS:
            raise UsageError(f"unknown answer plan {kwargs['answer_plan']!r}; choose from {', '.join(ANSWER_PLANS)}")
        if kwargs.get("splits") is not None:  # datasets sets config kwargs as attributes: checked here
            kwargs["splits"] = tuple(dict.fromkeys(kwargs["splits"]))
            unknown = [s for s in kwargs["splits"] if s not in SPLITS]
            if unknown or not kwargs["splits"]:
                raise UsageError(f"unknown split(s) {unknown or []}; choose from {', '.join(SPLITS)}")
        if kwargs.get("source") is not None:
            kwargs["source"] = str(resolve_folder(kwargs["source"]))
        if kwargs.get("keep_sources") is not None:
            kwargs["keep_sources"] = tuple(sorted(set(kwargs["keep_sources"]))) or None
        kwargs["shard"] = shard_value(kwargs.get("shard"))
        if kwargs.get("fingerprint") is None:
            kwargs["fingerprint"] = folder_fingerprint(kwargs.get("source"))
        super().__init__(*args, **kwargs)
        self._plan: dict | None = None
        self._curation = None  # the folder's curation when the caller has it already (a resumed Ray build)
        self._preparation = None
        self._num_proc: int | None = None

    @property
    def task(self):
        return get_task(self.config.name)

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=f"Jigsaw-Puzzles, {self.config.description or self.config.name}.",
            features=features(),
            homepage=HOMEPAGE,
            citation=CITATION,
            license="Apache-2.0 (code); source images keep their own licences",
        )

    def preparation(self):
        """The task's whole-folder step, resolved (or ``ConfigUnavailable``) before any work; ``None``
        for tasks without one."""
        if self._preparation is None and self.task.preparer is not None:
            self._preparation = self.task.preparer(self.config.options or {}, self.settings)
        return self._preparation

    def plan(self, num_proc: int | None = None) -> dict:
        """Curate the sources, find the ones that yield an item, and assign their answer slots (memoised).

        Every accepted source (of a Lite-only build: every Lite source) is put through the task's check and then
        built once as a probe (slot 0: a task's failures do not depend on the slot), so a source that cannot yield
        an item is a recorded skip with its reason, and slots go only to items that are really generated
        (:mod:`.probe`). ``ConfigUnavailable`` (before anything is written) when the sources cannot make one item.
        ``num_proc``: curation and the probe run in that many worker processes (the same plan; default: the
        ``num_proc`` given to ``download_and_prepare``). Returns a dict with the curation, the task's skips, the
        items' sources (``feasible``), the Lite ids, the slot of every item and the prepared payloads.
        """
        if self._plan is not None:
            return self._plan
        num_proc = num_proc if num_proc is not None else self._num_proc
        task, seed = self.task, self.config.seed
        preparation = self.preparation()  # fails before any work
        curation = self._curation or curate(self.config.source, self.rules, keep=self.config.keep_sources,
                                            progress=self.progress, num_proc=num_proc)
        if len(curation.accepted) < max(1, task.min_sources):
            raise ConfigUnavailable(self.config.name, (
                f"needs at least {max(1, task.min_sources)} usable source images, {len(curation.accepted)} of "
                f"{len(curation.records)} files in {curation.folder} qualify (`jigsaw-puzzles curate DIR` says why)"))
        plan = self.config.answer_plan
        lite = lite_ids([s.source_id for s in curation.accepted], seed, self.config.lite_fraction, plan)
        # A Lite-only build checks and probes the Lite sources alone: under every answer plan a Lite item's slot
        # depends on the Lite items only (plan_slots), so the bytes are a full build's. A task with a whole-folder
        # preparation sees every feasible source, as does the search for one item when no Lite source yields.
        lite_only = self.config.splits == ("lite",) and preparation is None
        lite_set = set(lite)
        sources = [s for s in curation.accepted if s.source_id in lite_set] if lite_only else curation.accepted
        paths = {s.source_id: s.path for s in curation.accepted}
        pool_ids = tuple(s.source_id for s in curation.accepted)  # sorted, as curation sorts them
        bar = tqdm(total=len(sources), desc=f"{self.config.name} [checking sources]", unit="img",
                   disable=not self.progress)

        def judge(sources, check: bool, build: bool, prepared: dict, workers=num_proc):  # -> reasons, None: yields
            return verdicts(task, seed, paths, pool_ids, self.rules,
                            [(s.source_id, check, build, prepared.get(s.source_id)) for s in sources], workers,
                            done=bar.update if build else None)

        def skip(source, reason: str) -> dict:
            return {"path": source.relpath, "source_id": source.source_id, "reason": reason}

        with bar:  # the task's check, then (after its preparation, if any) the probe build
            prepared: dict[str, Any] = {}
            feasible = sources
            if preparation is not None:
                reasons = judge(sources, True, False, {})
                feasible = [s for s, r in zip(sources, reasons) if r is None]
                skipped = [skip(s, r) for s, r in zip(sources, reasons) if r]
                if feasible:
                    prepared = preparation.prepare(paths, [s.source_id for s in feasible], seed,
                                                   lambda path: load_normalised(path, self.rules))
            reasons = judge(feasible, preparation is None, True, prepared)
            items = [s for s, r in zip(feasible, reasons) if r is None]
            skipped = (skipped if preparation is not None else []) + [skip(s, r) for s, r in zip(feasible, reasons)
                                                                       if r]
        if not items and lite_only:  # no Lite item: an empty Lite split, or a folder the task cannot use at all?
            for source in (s for s in curation.accepted if s.source_id not in lite_set):  # one by one, up to the
                reason = judge([source], True, True, {}, None)[0]                      # first that yields an item
                if reason is None:
                    break
                skipped.append(skip(source, reason))
            else:
                lite_only = False  # every source probed: the message below is the full build's
        if not items and not lite_only:
            first = f" (first reason: {skipped[0]['reason']})" if skipped else ""
            raise ConfigUnavailable(self.config.name, (
                f"no source image yields an item: the task skips all {len(curation.accepted)} accepted sources "
                f"in {curation.folder}{first}; add more varied photographs (builder.report lists every reason)"))
        skipped.sort(key=lambda s: s["source_id"])
        item_ids = [s.source_id for s in items]
        item_set = set(item_ids)
        slots = plan_slots(item_ids, [s for s in lite if s in item_set], seed, task.family, task.num_slots,
                           plan, task.slot_cycle)
        self._plan = {"curation": curation, "task_skips": skipped, "feasible": items,
                      "lite": lite, "slots": slots, "prepared": {k: v for k, v in prepared.items() if k in slots}}
        return self._plan

    def _loader(self, curation):
        """Normalised image by source id; the file must still hold the bytes it was curated with."""
        paths, rules = {s.source_id: s.path for s in curation.accepted}, self.rules
        return lambda source_id: load_normalised(paths[source_id], rules, source_id)

    def _as_dataset(self, split=datasets.Split.TRAIN, in_memory: bool = False) -> datasets.Dataset:
        """As ``datasets`` does, but a split without rows (e.g. a Lite split whose sources the task skipped) is
        an empty dataset with the schema, not ``Instruction "lite" corresponds to no data!``."""
        info = (self.info.splits or {}).get(str(split))
        if info is not None and info.num_examples == 0:
            table = datasets.table.InMemoryTable(self.info.features.arrow_schema.empty_table())
            return datasets.Dataset(table, info=self.info.copy(), split=str(split),
                                    fingerprint=self._get_dataset_fingerprint(split))
        return super()._as_dataset(split, in_memory)

    @property
    def report(self) -> dict:
        """Curation report plus this config's skips, JSON-ready."""
        plan = self.plan()
        return {"config": self.config.name, "seed": self.config.seed,
                "curation": plan["curation"].to_dict(), "task_skips": plan["task_skips"]}

    def _split_generators(self, dl_manager):
        plan = self.plan()
        curation, feasible, slots = plan["curation"], plan["feasible"], plan["slots"]
        if curation.rejected or plan["task_skips"]:  # every one recorded with its reason in builder.report
            logger.warning(
                f"{self.config.name}: {len(curation.accepted)} of {len(curation.records)} files accepted; "
                f"{len(curation.rejected)} rejected by curation, {len(plan['task_skips'])} skipped by the task "
                f"(reasons: `jigsaw-puzzles curate DIR --skips` or builder.report)")
        pool = tuple((s.source_id, s.path) for s in curation.accepted)
        lite_set = set(plan["lite"])
        prepared = plan["prepared"]

        terms = source_terms(curation.folder, [(s.source_id, s.relpath) for s in feasible],
                             embedded=Path(curation.folder) == embedded_folder().resolve())

        def work(sources):  # prepared payloads and licences travel as JSON text: picklable, and hashed stably
            return [(s.source_id, s.path, slots[s.source_id],
                     json.dumps(prepared[s.source_id]) if s.source_id in prepared else "",
                     json.dumps(terms[s.source_id], sort_keys=True))
                    for s in sources]

        feasible = [s for s in feasible if in_shard(s.source_id, self.config.shard)]
        members = {"test": feasible, "lite": [s for s in feasible if s.source_id in lite_set]}
        return [datasets.SplitGenerator(name=split, gen_kwargs={"items": work(members[split]), "pool": pool,
                                                                 "split": split})
                for split in self.config.splits or SPLITS]

    def _generate_examples(self, items, pool, split="test"):
        task = self.task
        paths = dict(pool)
        pool_ids = tuple(sorted(paths))
        rules = self.rules

        def load(source_id):
            return load_normalised(paths[source_id], rules, source_id)

        bar = tqdm(items, desc=f"{self.config.name} [{split}]", unit="item", disable=not self.progress)
        for source_id, path, slot, prepared, terms in bar:
            yield f"{self.config.name}/{source_id}", item_row(task, self.config.name, self.config.seed, source_id, path,
                                                               slot, prepared, terms, load, pool_ids)


#: Every option any task takes, so a caller may pass e.g. CLIP options to every config alike.
KNOWN_OPTIONS = {k for task in TASKS.values() for k in (*task.options, *task.settings)}
#: The other keyword arguments :func:`make_builder` (and so ``jp.load_dataset``) takes: the config's fields, the
#: builder's bar, and the ``datasets`` writer settings that do not change an item.
BUILDER_ARGUMENTS = ("answer_plan", "lite_fraction", "splits", "keep_sources", "shard", "progress",
                     "writer_batch_size", "storage_options")


def check_builder_kwargs(kwargs: Mapping[str, Any], who: str = "load_dataset",
                         allowed: Sequence[str] | None = None) -> None:
    """A ``UsageError`` naming any keyword argument the builder does not take (``splt=``), and the valid ones,
    before ``datasets`` sees it; ``allowed``: the caller's own list (default: every option and argument)."""
    valid = sorted(KNOWN_OPTIONS | set(BUILDER_ARGUMENTS) if allowed is None else allowed)
    unknown = sorted(str(k) for k in kwargs if k not in valid)
    if unknown:
        raise UsageError(f"{who} got unknown argument(s) {', '.join(unknown)}; the builder's options are "
                         f"{', '.join(valid)}")


@python_face
def make_builder(config: str, source: str | os.PathLike | None = None, seed: int = 0,
                 cache_dir: str | None = None, grid: tuple[int, int] | str | None = None, rotated: bool = False,
                 **kwargs) -> JigsawPuzzles:
    """The builder of ``config``; ``kwargs`` may hold any task's options and settings (each config
    keeps its own and ignores the others') and ``datasets`` builder arguments. ``grid`` (``(3, 3)`` or
    ``"3x3"``) cuts an order config on another grid: ``order_generation`` with ``grid=(3, 3)`` is the config
    ``order_generation_3x3``; ``rotated=True`` turns the pieces too (``order_generation_3x3_rot``)."""
    check_builder_kwargs(kwargs, "make_builder")
    seed = seed_value(seed)  # np.int64(3) is seed 3: the same items, and JSON-safe metadata
    if not isinstance(rotated, bool):
        raise UsageError(f"rotated must be True or False, not {rotated!r}")
    path_value(source, "source", "a folder of photographs", "the embedded photos")
    if not isinstance(config, str):
        raise UsageError(f"config must be a config name (a str), not {config!r}; choose from {', '.join(CONFIGS)}")
    if rotated and grid is None and is_config(config):  # the config's own grid, pieces turned
        grid = get_spec(config).grid
    config = with_grid(config, grid, rotated)
    if not is_config(config):
        raise UsageError(f"unknown config {config!r}; choose from {', '.join(CONFIGS)}, or a grid config such as "
                         "order_generation_3x3")
    config = get_spec(config).name  # an alias (order_generation_2x2) builds its paper config, same items and ids
    task = get_task(config)
    options = {k: kwargs.pop(k, default) for k, default in task.options.items()}
    settings = {k: kwargs.pop(k, default) for k, default in task.settings.items()}
    for key in KNOWN_OPTIONS:
        kwargs.pop(key, None)
    if task.configure is not None:
        options = task.configure(options)
    return JigsawPuzzles(config_name=config, source=None if source is None else str(source),
                         seed=seed, cache_dir=cache_dir, options=options or None, settings=settings,
                         **kwargs)


def with_grid(config: str, grid: tuple[int, int] | str | None, rotated: bool = False) -> str:
    """``config`` cut on ``grid`` (``(3, 3)``, ``"3x3"``): its grid config name, its ``_rot`` variant when
    ``rotated``; ``config`` when ``grid`` is None. ``UsageError`` for a config without grids or a grid out of
    range."""
    if grid is None:
        return config
    rows, cols = grid_size(grid)
    try:
        return grid_config(config, rows, cols, rotated=rotated)
    except ValueError as err:
        raise UsageError(f"--grid {grid}: {err}") from None


def grid_size(grid: Any) -> tuple[int, int]:
    """``(rows, cols)`` of ``"3x3"`` or ``(3, 3)``; a ``UsageError`` saying the form for anything else (``"3"``,
    ``"abc"``, ``(3,)``), never Python's own words."""
    if isinstance(grid, str):
        found = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", grid)
        if found:
            return int(found.group(1)), int(found.group(2))
    elif isinstance(grid, (tuple, list)) and len(grid) == 2 and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in grid):
        return int(grid[0]), int(grid[1])
    raise UsageError(f"grid {grid!r}: not rows x columns; give e.g. 3x3 (or (3, 3) in Python), 1-8 a side")


def select_configs(configs: Sequence[str] | None, grid: tuple[int, int] | str | None = None,
                   rotated: bool = False) -> list[str]:
    """The configs ``grid`` and ``rotated`` make of ``configs`` (the CLI's ``--grid`` and ``--rotated``).

    ``grid``: every grid-capable config on that grid (without ``configs``: all of them but the CLIP-mined one,
    which needs weights and is asked for by name); ``rotated``: the order configs with turned pieces, on their own
    grid or on ``grid`` (without ``configs``: both). Other configs are kept as they are; ``UsageError`` when
    neither option applies to any of ``configs``."""
    if rotated:
        asked = list(configs or ROTATION_BASES)
        if not any(c in ROTATION_BASES for c in asked):
            raise UsageError(f"--rotated applies to {' and '.join(ROTATION_BASES)}; none of --configs is one of them")
        configs = list(dict.fromkeys(with_grid(c, grid or get_spec(c).grid, rotated=True)
                                     if c in ROTATION_BASES else c for c in asked))
    if not grid:
        return list(configs or [])
    capable = (*GRID_BASES, "piece_localization_easy", "piece_localization_hard")  # PL easy/hard: one base
    asked = list(configs or [b for b in GRID_BASES if b != "missing_piece_selection_hard"])
    if not rotated and not any(c in capable for c in asked):
        raise UsageError(f"--grid applies to {', '.join(capable[:-2])}; none of --configs is one of them")
    return list(dict.fromkeys(with_grid(c, grid) if c in capable else c for c in asked))


@python_face
def load_dataset(config: str, split: str | None = "test", source: str | os.PathLike | None = None,
                 seed: int = 0, num_proc: int | None = None, cache_dir: str | None = None,
                 grid: tuple[int, int] | str | None = None, rotated: bool = False,
                 **kwargs) -> datasets.Dataset | datasets.DatasetDict:
    """Build (or reload from the ``datasets`` cache) one config of the benchmark.

    >>> import jigsaw_puzzles as jp
    >>> ds = jp.load_dataset("order_restoration", split="lite")  # embedded photos, seed 0

    A split asked for is the only one built (``splits=(split,)``, as ``eval`` does): Lite cuts only the Lite
    items, the same bytes as a full build's Lite split; ``split=None`` builds every split.
    """
    check_builder_kwargs(kwargs, "load_dataset")
    count_value(num_proc, "num_proc", "one process")
    if split is not None and split not in SPLITS:
        raise UsageError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    if split is not None:
        kwargs.setdefault("splits", (split,))
    builder = make_builder(config, source, seed, cache_dir, grid, rotated, **kwargs)
    builder.download_and_prepare(num_proc=num_proc)
    return builder.as_dataset(split=split)
