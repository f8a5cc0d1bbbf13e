"""An unlimited, verifiable training stream of Jigsaw-Puzzles items, disjoint from evaluation.

``jp.training_stream(source, mixture={...}, seed=...)`` is a ``datasets.IterableDataset`` (so ``.shuffle``,
``.map``, ``.take`` and ``datasets.distributed.split_dataset_by_node`` work) that re-cuts items forever: pass
``p`` over the training photos builds every item with the key ``("stream", seed, p, config, photo)``, so each
pass gives new shuffles, answer letters and distractors of the same photos, reproducibly.

There is no default folder: the embedded photos are the default benchmark's evaluation photos, so ``source`` is
required (``source="embedded"`` streams them for a smoke test only, with a warning each time).

Contamination guard. Photos are split once, by a seeded-free hash of their content id, into ``train`` and
``eval`` (:func:`holdout`; ``eval_fraction`` of them, 20% by default, a number in [0, 1)): the stream never
yields an ``eval`` photo. ``exclude=`` takes an evaluation set, read by its ``source_id`` column: an export
folder written by ``jigsaw-puzzles build``, a ``save_to_disk`` folder, a parquet file or a folder of them, a
``datasets.Dataset`` or ``DatasetDict``, a folder of photos, source ids (16 hex digits), or a list of any of
these. Its photos are never yielded either, nor are copies of them (flipped, cropped, turned, framed,
watermarked, re-encoded, resized or re-toned: :mod:`.copies`; what each form carries and what is looked up:
:mod:`.exclusion`, with a warning where only a fingerprint or an id is known); anything else (a path that does not
exist, a dataset without ``source_id``, an ``IterableDataset``, a set that names no photo) is refused with one
line, never ignored.
A training folder whose fingerprint is the one the evaluation export was built from is refused outright
(train on another folder, or on the ``train`` side of the same folder by exporting its ``eval`` side only).

A pass over a shard's photos that yields no item is explained, never looped on: unless some photo there can
carry a config of the mixture (the pass was empty by chance) the stream raises ``UsageError`` with each
config's reasons. Shards are dealt out evenly (at least 4 photos each, or ``training_stream`` refuses at once).

Rows hand PIL images (no PNG round trip) with the benchmark's columns (``id``, ``source_id``, ``images``,
``question``, ``options``, ``answer``, ``metadata``), plus ``config`` and a TRL-ready conversational
``prompt`` (one user turn: the images as content parts in the order the question numbers them, then the
question). Rewards: :mod:`jigsaw_puzzles.training.rewards`.

Curriculum (:class:`Curriculum`): the mixture can change with the number of items served (a schedule of
``(from_item, mixture)`` stages) or advance when the recent reward of the current stage passes a threshold
(:meth:`Curriculum.update`, fed by the trainer, e.g. from a reward function). In-process only: with
DataLoader worker processes each worker keeps its own copy of a reward-driven curriculum. :meth:`Curriculum.grids`
grows the grid one stage at a time (2x2, 3x3, ... up to 8x8), straight or cut into interlocking pieces (``_tabs``,
``_tabs_content``).
"""

from __future__ import annotations

import json
import math
import numbers
import os
import warnings
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ..errors import UsageError, path_value, seed_value
from ..rng import ItemRNG, stable_hash
from ..generation.sources import accepted_ids, load_normalised, photos_fingerprint
from ..generation.cluster import engine_context
from ..generation.curation import curate
from ..spec import CONFIGS, MAX_GRID_SIDE, canonical, grid_config, is_config
from .exclusion import Known, copies_among, evaluation_photos, package_photos
from .trl_helpers import to_prompt

#: The configs the stream can cut without a whole-folder preparation step (the CLIP-mined hard configs, the paper's
#: and its grid ones, need one).
#: ``training_stream(source=EMBEDDED)``: the embedded photos, for a smoke test only (they are the default
#: benchmark's evaluation photos; a warning says so each time).
EMBEDDED = "embedded"
STREAM_CONFIGS = tuple(c for c in CONFIGS if c != "missing_piece_selection_hard")
_SCALE = 1 << 256


def holdout(source_id: str, eval_fraction: float = 0.2) -> str:
    """``"eval"`` or ``"train"``: a photo's side of the train/eval split, a function of its content id alone
    (no seed: the same photo is on the same side in every run and every folder)."""
    _check_fraction(eval_fraction)
    return "eval" if int(stable_hash("holdout", source_id), 16) / _SCALE < eval_fraction else "train"


def _check_fraction(eval_fraction: Any) -> None:
    if isinstance(eval_fraction, bool) or not isinstance(eval_fraction, numbers.Real) or not 0 <= eval_fraction < 1:
        raise UsageError(f"eval_fraction must be a number in [0, 1), not {eval_fraction!r}: it is the share of photos "
                         "held out for evaluation (1 would hold out every photo)")


@dataclass
class Curriculum:
    """Which mixture of configs the stream draws from, by stage.

    ``stages``: a list of mixtures ``{config: weight}``, easiest first. ``schedule``: the item count at which
    each stage after the first starts (``len(stages) - 1`` increasing numbers), or ``None`` to advance by
    reward: the stage moves on when the mean of the last ``window`` rewards given to :meth:`update` reaches
    ``threshold`` (Jigsaw-R1's 2x1 -> 3x1 -> 4x1 style).
    """

    stages: Sequence[Mapping[str, float]]
    schedule: Sequence[int] | None = None
    threshold: float = 0.8
    window: int = 256
    stage: int = 0
    _recent: deque = field(default_factory=deque, repr=False)

    def __post_init__(self):
        if not self.stages:
            raise UsageError("a curriculum needs at least one stage (a mixture of configs)")
        if self.schedule is not None and (len(self.schedule) != len(self.stages) - 1
                                          or list(self.schedule) != sorted(self.schedule)):
            raise UsageError("curriculum schedule: one increasing item count per stage after the first")
        for mixture in self.stages:
            _check_mixture(mixture)
        self.stages = [_canonical(mixture) for mixture in self.stages]
        if self.schedule is None and (isinstance(self.window, bool) or not isinstance(self.window, numbers.Integral)
                                      or self.window < 1 or not math.isfinite(self.threshold)):
            raise UsageError("a reward-driven curriculum needs a window of at least 1 reward and a finite threshold")

    @classmethod
    def grids(cls, base: str = "order_generation", sides: Iterable[int] = (2, 3, 4), cut: str = "straight",
              rotated: bool = False, schedule: Sequence[int] | None = None, threshold: float = 0.8,
              window: int = 256) -> "Curriculum":
        """One stage per square grid, ``sides`` in order (``range(2, 9)``: 2x2 up to 8x8), each the config of
        ``base`` on that grid: cut straight, into interlocking pieces (``cut="tabs"``: ``order_generation_3x3_tabs``,
        ...), their silhouettes (``"silhouette"``) or pieces of one outline (``"content"``: ``..._tabs_content``),
        ``rotated`` for turned pieces. ``schedule`` or ``threshold`` /
        ``window`` as for any curriculum. A grid whose cells a photo is too small for is that photo's skip (a
        ``_tabs`` cell needs :data:`~jigsaw_puzzles.geometry.MIN_TAB_CELL` px: an 8x8 grid needs a photo of 384 px
        or more each way); a stage no photo can carry is a ``UsageError`` with the reasons."""
        suffix = {"straight": "", "tabs": "_tabs", "silhouette": "_tabs_silhouette",
                  "content": "_tabs_content"}.get(cut)
        if suffix is None:
            raise UsageError(f"cut is 'straight', 'tabs', 'silhouette' or 'content', not {cut!r}")
        sides = list(sides)
        if not sides or any(isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 2 <= n <= MAX_GRID_SIDE
                            for n in sides):
            raise UsageError(f"sides are grid sides from 2 to {MAX_GRID_SIDE} (2: the 2x2 grid), not {sides!r}")
        try:
            stages = [{grid_config(base, n, n, rotated=rotated) + suffix: 1.0} for n in sides]
            for stage in stages:
                canonical(next(iter(stage)))  # a cut the base does not have (a rotated silhouette) is refused here
        except ValueError as err:
            raise UsageError(f"no grid curriculum of {base!r} cut {cut!r}{' rotated' if rotated else ''}: {err}") \
                from None
        return cls(stages, schedule=schedule, threshold=threshold, window=window)

    def mixture(self, served: int) -> Mapping[str, float]:
        """The mixture for the next item, after ``served`` items."""
        if self.schedule is not None:
            self.stage = sum(served >= start for start in self.schedule)
        return self.stages[self.stage]

    def update(self, rewards: Iterable[float]) -> int:
        """Feed rewards of the current stage; returns the stage (advanced when the recent mean passes)."""
        if self.schedule is not None:
            return self.stage
        rewards = list(rewards)
        bad = [r for r in rewards if isinstance(r, bool) or not isinstance(r, numbers.Real) or not math.isfinite(r)]
        if bad:  # checked before any is kept: a refused batch leaves the window as it was
            raise UsageError(f"Curriculum.update takes the rewards as finite numbers, not {bad[0]!r}")
        for r in rewards:
            self._recent.append(float(r))
            while len(self._recent) > self.window:
                self._recent.popleft()
        if (len(self._recent) >= self.window and sum(self._recent) / len(self._recent) >= self.threshold
                and self.stage < len(self.stages) - 1):
            self.stage += 1
            self._recent.clear()
        return self.stage


def _check_mixture(mixture: Mapping[str, float]) -> None:
    if not isinstance(mixture, Mapping):
        raise UsageError(f"a mixture is a mapping {{config: weight}}, not a {type(mixture).__name__}")
    bad = [c for c in mixture if c not in STREAM_CONFIGS and not (c not in CONFIGS and is_config(c)
                                                                   and not c.startswith("missing_piece_selection_hard"))]
    if bad:
        raise UsageError(f"the training stream cannot cut {', '.join(bad)}; choose from {', '.join(STREAM_CONFIGS)}, "
                         "or a grid config such as order_generation_3x3")
    if not mixture or any(isinstance(w, bool) or not isinstance(w, numbers.Real) or not math.isfinite(w) or w < 0
                          for w in mixture.values()) or not sum(mixture.values()) > 0:
        raise UsageError("a mixture needs non-negative finite weights with a positive sum")


def _canonical(mixture: Mapping[str, float]) -> dict[str, float]:
    """The mixture by configs' own names: ``order_generation_2x2`` (an alias) is ``order_generation``."""
    out: dict[str, float] = {}
    for config, weight in mixture.items():
        out[canonical(config)] = out.get(canonical(config), 0) + weight
    return out


class _Sources:
    """Normalised training photos by id, with a bounded per-process cache (no PNG encoding anywhere)."""

    def __init__(self, paths: Mapping[str, str], cache_size: int):
        self.paths, self.cache_size, self.cache = dict(paths), cache_size, OrderedDict()
        self.verdicts: dict[tuple[str, str], str | None] = {}  # (config, source id) -> its task's check

    def check(self, task, source_id: str) -> str | None:
        """``task.check`` of a photo, once per (config, photo): a pure function of the normalised image, so a
        later pass reuses it (a few bytes per pair, unbounded like the id list itself)."""
        key = (task.config, source_id)
        if key not in self.verdicts:
            self.verdicts[key] = task.check(self.load(source_id))
        return self.verdicts[key]

    def load(self, source_id: str):
        image = self.cache.pop(source_id, None)
        if image is None:
            image = load_normalised(self.paths[source_id], source_id=source_id)
        self.cache[source_id] = image
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        return image


def _pick(rng: ItemRNG, mixture: Mapping[str, float]) -> str:
    names = sorted(c for c, w in mixture.items() if w > 0)
    total = sum(mixture[c] for c in names)
    x = rng.randbelow(1 << 53) / (1 << 53) * total
    for name in names:
        x -= mixture[name]
        if x < 0:
            return name
    return names[-1]


def _shards(paths: Iterable[str], num_shards: int) -> list[list[str]]:
    """The photos of each shard: ranked by a stable hash of their id and dealt out in turn, so the shards differ
    in size by at most one photo (a hash modulo the shard count can leave a shard empty)."""
    ranked = sorted(paths, key=lambda s: (stable_hash("shard", s), s))
    return [ranked[k::num_shards] for k in range(num_shards)]


def _generate(shards: Sequence[tuple[int, Sequence[str]]], num_shards: int, paths: Mapping[str, str], seed: int,
              curriculum: Curriculum, cache_size: int, passes: int | None) -> Iterator[dict]:
    from ..generation.tasks import Context, TaskError, get_task

    sources = _Sources(paths, cache_size)
    mine = sorted(s for _, ids in shards for s in ids)
    pool = tuple(sorted(paths))
    served, p = 0, 0
    carried: set = set()  # mixtures a photo of this shard was seen to carry (an empty pass was then chance)
    while mine and (passes is None or p < passes):
        order = list(mine)
        ItemRNG("stream order", seed, p, tuple(k for k, _ in shards)).shuffle(order)
        failures: dict[str, str] = {}  # config -> the last reason a drawn photo gave no item
        before = served
        for sid in order:
            mixture = curriculum.mixture(served)
            config = _pick(ItemRNG("stream config", seed, p, sid), mixture)
            task = get_task(config)
            rng = ItemRNG("stream", seed, p, task.family, sid)
            reason = sources.check(task, sid)
            if reason is not None:
                failures[config] = reason
                continue  # this photo cannot carry this task; the next pass may draw another config
            image = sources.load(sid)
            try:
                item = task.build(image, rng, rng.child("slot").randbelow(task.num_slots),
                                  Context(source_id=sid, pool_ids=pool, load=sources.load))
            except TaskError as e:
                failures[config] = str(e)
                continue
            served += 1
            yield {"id": f"{config}/{sid}/{seed}.{p}", "source_id": sid, "config": config, "images": item.images,
                   "question": item.question, "options": item.options, "answer": item.answer,
                   "metadata": json.dumps({"config": config, "seed": seed, "pass": p, "stage": curriculum.stage,
                                           **item.metadata}, sort_keys=True),
                   "prompt": to_prompt(len(item.images), item.question)}
        if served == before:  # a whole pass without an item: chance, or no photo here can carry the mixture
            mixture = curriculum.mixture(served)
            key = tuple(sorted(mixture.items()))
            if key not in carried:
                _explain_empty_pass(mixture, mine, sources, failures, pool, seed, p, shards, num_shards)
                carried.add(key)
        p += 1


def _explain_empty_pass(mixture, mine, sources, failures, pool, seed, p, shards, num_shards) -> None:
    """After a pass without an item: return when some (config, photo) pair of the mixture builds an item (the
    pass was empty by chance), else raise ``UsageError`` with each config's reasons."""
    from ..generation.tasks import Context, TaskError, get_task

    for config in sorted(c for c, w in mixture.items() if w > 0):
        task = get_task(config)
        reasons: dict[str, int] = {}
        for sid in mine:
            reason = sources.check(task, sid)
            if reason is None:
                rng = ItemRNG("stream probe", seed, p, task.family, sid)
                try:
                    task.build(sources.load(sid), rng, rng.child("slot").randbelow(task.num_slots),
                               Context(source_id=sid, pool_ids=pool, load=sources.load))
                    return
                except TaskError as e:
                    reason = str(e)
            reasons[reason] = reasons.get(reason, 0) + 1
        failures[config] = "; ".join(f"{r} ({n} of {len(mine)} photos)" for r, n in
                                     sorted(reasons.items(), key=lambda kv: -kv[1])[:2])
    shard = ", ".join(str(k) for k, _ in shards)
    raise UsageError(f"the training stream cut no item in a whole pass over the {len(mine)} photos of shard "
                     f"{shard} of {num_shards}: no photo there can carry the mixture "
                     f"({', '.join(sorted(mixture))}). Reasons: "
                     + " | ".join(f"{c}: {failures[c]}" for c in sorted(failures) if c in mixture))


def _training_source(source: Any) -> str | os.PathLike | None:
    """The folder :func:`curate` reads (``None``: the embedded photos, only when asked for by :data:`EMBEDDED`)."""
    if source is None:
        raise UsageError("training_stream needs source=, a folder of your own training photos: the embedded photos "
                         "are the default benchmark's evaluation photos (for a smoke test only, "
                         f"source={EMBEDDED!r} streams them, with a warning)")
    if isinstance(source, str) and source == EMBEDDED:
        warnings.warn("training_stream(source='embedded') streams the embedded photos, which are the default "
                      "benchmark's evaluation photos: a model trained on them is contaminated for every default "
                      "evaluation (a smoke test only; train on a folder of your own photos)", UserWarning,
                      stacklevel=3)
        return None
    return path_value(source, "source", "a folder of your own training photos")


def training_stream(source: str | os.PathLike | None = None, mixture: Mapping[str, float] | None = None,
                    seed: int = 0, *, curriculum: Curriculum | None = None, exclude: Any = None,
                    eval_fraction: float = 0.2, num_shards: int | None = None, cache_size: int = 512,
                    passes: int | None = None, num_proc: int | None = None, engine: str = "local",
                    ray_address: str | None = None):
    """An endless ``datasets.IterableDataset`` of freshly cut items from the ``train`` photos of ``source``.

    Args:
        source: the folder of your training photographs (required). The embedded photos are the default
            benchmark's evaluation photos, so there is no default: ``None`` is a ``UsageError``, and
            ``source="embedded"`` (:data:`EMBEDDED`) streams them for a smoke test only, with a warning (a folder
            of that name is ``"./embedded"``).
        mixture: ``{config: weight}`` (default: every config the stream can cut, equally); or ``curriculum``.
        seed: the stream's seed; with the same photos it fixes every item of every pass.
        exclude: an evaluation set whose photos are never yielded (the forms: see the module doc; anything else
            is a ``UsageError``); a training folder that is the evaluation export's own folder is refused.
        eval_fraction: share of photos held out by :func:`holdout` (never yielded), in [0, 1).
        num_shards: the number of consumers (nodes x DataLoader workers; default ``$WORLD_SIZE`` or 1). The
            photos are ranked by a stable hash and dealt out to this many shards (sizes differ by at most one;
            at least 4 photos each) and each shard is an endless stream of its
            own photos, so each consumer must hold exactly one shard: ``split_dataset_by_node(ds, rank,
            world_size)`` with ``num_shards == world_size`` (or ``world_size * num_workers`` with a DataLoader).
            With one shard, ``split_dataset_by_node`` still gives disjoint rows (every node skips the others').
        cache_size: normalised photos kept in memory per process.
        passes: stop after this many passes (default: never).
        num_proc: making the stream, a new folder is curated and its photos checked against ``exclude=`` in this
            many worker processes (the same stream; the items are cut in the consumer, as ``num_shards`` deals).
        engine: ``"ray"`` curates the folder and makes the guard's first check against ``exclude=`` as Ray Data
            stages (the cluster at ``ray_address``, or Ray started here; ``num_proc``: jobs at once), into the
            verdict store every later stream over the same folder and set reads, on this machine or, with
            ``JIGSAW_PUZZLES_CACHE`` on shared storage, on every node (docs/training_stream.md#on-a-ray-cluster).
            The items are cut in the consumer, as always.
    """
    import datasets

    if num_shards is None:
        num_shards = int(os.environ.get("WORLD_SIZE", 1))
    for name, value, low in (("num_shards", num_shards, 1), ("passes", passes, 1), ("cache_size", cache_size, 0),
                             ("num_proc", num_proc, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low):
            raise UsageError(f"{name} must be a whole number of at least {low}, not {value!r}")
    _check_fraction(eval_fraction)
    seed = seed_value(seed)  # np.int64(3) streams what 3 streams
    if mixture is not None and curriculum is not None:
        raise UsageError("give either a mixture or a curriculum, not both")
    curriculum = curriculum or Curriculum([{c: 1.0 for c in STREAM_CONFIGS} if mixture is None else mixture])
    source = _training_source(source)
    with engine_context(engine, ray_address, num_proc):  # curation and the guard's first check: here or on Ray
        curation = curate(source, num_proc=num_proc)
        fingerprint = photos_fingerprint(accepted_ids(curation))  # an export of these photos records the same
        given = evaluation_photos(exclude, fingerprint)
        # the embedded photos are the default benchmark's evaluation photos: always excluded, with their copies
        # (unless they are what was asked for, source="embedded": a smoke test, warned above)
        package = package_photos() if source is not None else {}
        evaluation = {sid: given.get(sid, Known()) | package.get(sid, Known()) for sid in {**package, **given}}
        train = [s for s in curation.accepted if holdout(s.source_id, eval_fraction) == "train"]
        banned = set(evaluation) | (copies_among(train, curation, evaluation, num_proc,
                                                 quiet=set(package) - set(given))
                                    if evaluation else set())
    paths = {s.source_id: s.path for s in train if s.source_id not in banned}
    if len(paths) < 4 * num_shards:
        out = sum(s.source_id in banned for s in train)
        raise UsageError(f"the training stream needs at least 4 training photos per shard ({num_shards}); {len(paths)} of "
                         f"{len(curation.accepted)} usable photos in {curation.folder} are left after the "
                         f"evaluation hold-out ({eval_fraction:.0%}) and the excluded evaluation set"
                         + (f" ({out} are evaluation photos or copies of them" + (
                             ": the embedded photos, the default benchmark's, are always excluded" if package
                             else "") + ")" if out else ""))
    shards = [(k, tuple(ids)) for k, ids in enumerate(_shards(paths, num_shards))]  # each >= 4 photos (above)
    return datasets.IterableDataset.from_generator(
        _generate, gen_kwargs={"shards": shards, "num_shards": num_shards, "paths": paths,
                               "seed": seed, "curriculum": curriculum, "cache_size": cache_size,
                               "passes": passes})
