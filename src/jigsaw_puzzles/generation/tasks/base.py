"""What every task module declares and returns, and the checks they share.

A task module is a pure function of (normalised source image, :class:`~jigsaw_puzzles.rng.ItemRNG`,
answer slot, :class:`Context`) -> :class:`Item`, plus a :class:`Task` record per config it
serves (``TASKS = [...]`` at module level). What the config *is* (family, answer kind,
chance, ...) is said once, in :mod:`jigsaw_puzzles.spec`; the record binds to it by name.
"""

from __future__ import annotations

import importlib
import inspect
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np
from PIL import Image

from ... import geometry
from ...spec import ConfigSpec, get as get_spec
from ...rng import ItemRNG

# Two cells (or a cell and its transform) closer than this mean absolute difference
# (0-255 grey levels) are treated as the same picture: using them would give an item
# two right answers.
MIN_DISTINCT = 8.0


class TaskError(ValueError):
    """A source that cannot yield a well-posed item for a task; the message is the reason."""


@dataclass
class Item:
    images: list[Image.Image]
    question: str
    options: list[str]
    answer: str
    metadata: dict = field(default_factory=dict)


PatchGetter = Callable[[str, int, tuple[int, int]], Image.Image]
SourceLoader = Callable[[str], Image.Image]


@dataclass
class Context:
    """What an item may need beyond its own source.

    pool_ids / load: the other accepted sources, and their normalised images by id (distractors);
    prepared: this item's share of the task's preparation (see :class:`Preparation`), or ``None``.
    """

    source_id: str
    pool_ids: Sequence[str] = ()
    load: SourceLoader | None = None
    prepared: Any = None


class Preparation(Protocol):
    """A whole-folder step a task runs once before its items (e.g. CLIP mining for the hard config).

    ``prepare`` gets every accepted source (``id -> path``), the ids that become items, the seed and
    a loader of normalised images; it returns a JSON-able payload per item id, handed to the
    item's ``build`` as ``Context.prepared``. ``metadata`` describes the step for the card/run.
    """

    def prepare(self, sources: Mapping[str, str], item_ids: Sequence[str], seed: int,
                load: Callable[[str], Image.Image]) -> dict[str, Any]: ...


Build = Callable[[Image.Image, ItemRNG, int, Context], Item]


@dataclass(frozen=True)
class Task:
    """How one config's items are made.

    check: a source's well-posedness for this task (``None`` or the reason it is skipped).
    build: the pure item function. num_slots: size of the answer plan's cycle.
    options: builder options that shape the items, with their defaults (part of the cache key).
    settings: builder options that only steer how (device, cache), never what; not in the cache key.
    preparer: ``(options, settings) -> Preparation``; raises ``ConfigUnavailable`` when the
        config cannot be built here. Resolved before any work.
    annotate: ``item -> dict`` of extra metadata the builder records (not the stream).
    slot_cycle: the answer plan's quota order (:func:`jigsaw_puzzles.generation.plan.quotas`) when slots are not plain
        letters (Anomaly Detection); ``None``: every slot once, in a seeded order.
    """

    config: str
    num_slots: int
    check: Callable[[Image.Image], str | None]
    build: Build
    summary: str
    module: str
    options: Mapping[str, Any] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)
    preparer: Callable[[Mapping[str, Any], Mapping[str, Any]], Preparation] | None = None
    configure: Callable[[dict], dict] | None = None
    min_sources: int = 1
    #: metadata the builder adds to each built item (e.g. the solver's margin, a difficulty signal); the
    #: training stream leaves it out, for speed.
    annotate: Callable[[Item], dict] | None = None
    slot_cycle: tuple[int, ...] | None = None

    @property
    def spec(self) -> ConfigSpec:
        return get_spec(self.config)

    @property
    def family(self) -> str:
        return self.spec.family

    @property
    def rules(self) -> str:
        """The task module's docstring: the rules as implemented (used in the dataset card)."""
        return inspect.cleandoc(importlib.import_module(self.module).__doc__ or "")


def pairwise_differences(cells: list[Image.Image]) -> np.ndarray:
    arrays = [geometry.as_array(c) for c in cells]
    n = len(arrays)
    out = np.full((n, n), np.inf, dtype=np.float64)
    for i, j in combinations(range(n), 2):
        if arrays[i].shape == arrays[j].shape:
            out[i, j] = out[j, i] = float(np.abs(arrays[i] - arrays[j]).mean())
    return out


def distinct_subsets(cells: list[Image.Image], k: int) -> list[tuple[int, ...]]:
    """All k-subsets of cells (sorted tuples, lexicographic) whose members are pairwise distinct."""
    diffs = pairwise_differences(cells)
    return [c for c in combinations(range(len(cells)), k)
            if all(diffs[i, j] >= MIN_DISTINCT for i, j in combinations(c, 2))]


def require_distinct(cells: list[Image.Image], what: str) -> str | None:
    diffs = pairwise_differences(cells)
    i, j = np.unravel_index(np.argmin(diffs), diffs.shape)
    if diffs[i, j] < MIN_DISTINCT:
        return (f"{what}: cells {i} and {j} are near-identical "
                f"(mean abs diff {diffs[i, j]:.2f} < {MIN_DISTINCT}), the answer would be ambiguous")
    return None


_PER_IMAGE: OrderedDict[tuple, tuple[weakref.ref, Any]] = OrderedDict()
_PER_IMAGE_SIZE = 1024  # above the stream's 512 cached photos, a few configs each
_PER_IMAGE_LOCK = threading.Lock()  # the human app serves items from threads


def per_image(image: Image.Image, key: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()``, a pure function of ``image``'s pixels and ``key``, once per image object: the stream serves
    many items of one cached photo, and a check that looks at every cell (Piece Localization's pairwise-distinct
    sets) need not run again for each. The same object (a weak reference checks it is not a new image at a
    recycled address); a source image is never drawn on in place (items draw on copies). The most recently used
    :data:`_PER_IMAGE_SIZE` kept."""
    k = (id(image), *key)
    with _PER_IMAGE_LOCK:
        hit = _PER_IMAGE.get(k)
        if hit is not None and hit[0]() is image:
            _PER_IMAGE.move_to_end(k)
            return hit[1]
    value = compute()
    with _PER_IMAGE_LOCK:
        _PER_IMAGE[k] = (weakref.ref(image), value)
        while len(_PER_IMAGE) > _PER_IMAGE_SIZE:
            _PER_IMAGE.popitem(last=False)
    return value
