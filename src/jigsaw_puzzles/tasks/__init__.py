"""The benchmark's tasks: one module per task, each a pure function of (source image, RNG, slot).

``slot`` is the item's place in the answer plan (see :func:`plan_slots`): the
answer letter for multiple-choice tasks, the (position, kind) for anomaly
detection.  Configs that share a ``family`` share their randomness, so e.g.
the easy and hard Missing Piece Selection items differ only in distractors.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable, Sequence

from PIL import Image

from ..rng import ItemRNG, stable_hash
from . import (anomaly_detection, connection_verification, missing_piece_selection,
               order_generation, order_restoration, piece_localization)
from .base import Item, TaskError
from .missing_piece_selection import Distractor, PatchGetter


@dataclass
class Context:
    """What an item may need beyond its own source: the other sources (distractors)."""

    source_id: str
    pool_ids: Sequence[str] = ()
    get_patch: PatchGetter | None = None
    hard_distractors: Callable[[str, int, Image.Image], list[Distractor]] | None = None


@dataclass(frozen=True)
class TaskSpec:
    config: str
    family: str
    num_slots: int
    check: Callable[[Image.Image], str | None]
    build: Callable[[Image.Image, ItemRNG, int, Context], Item]
    summary: str = field(default="", compare=False)
    module: object = field(default=None, compare=False, repr=False)

    @property
    def rules(self) -> str:
        """The task module's docstring: the rules as implemented (used in the dataset card)."""
        return inspect.cleandoc(self.module.__doc__ or "")


def _missing_piece(difficulty: str):
    def build(image, rng, slot, ctx: Context) -> Item:
        region = missing_piece_selection.choose_region(rng)
        truth = missing_piece_selection.cell_patch(image, region)
        if difficulty == "easy":
            distractors = missing_piece_selection.random_distractors(
                rng, ctx.source_id, ctx.pool_ids, truth, ctx.get_patch)
        else:
            distractors = ctx.hard_distractors(ctx.source_id, region, truth)
        return missing_piece_selection.make_item(image, rng, slot, region, distractors, difficulty)
    return build


TASKS: dict[str, TaskSpec] = {spec.config: spec for spec in [
    TaskSpec("missing_piece_selection_easy", missing_piece_selection.RNG_KEY,
             missing_piece_selection.NUM_SLOTS, missing_piece_selection.check, _missing_piece("easy"),
             "Missing Piece Selection (easy): random distractors", module=missing_piece_selection),
    TaskSpec("missing_piece_selection_hard", missing_piece_selection.RNG_KEY,
             missing_piece_selection.NUM_SLOTS, missing_piece_selection.check, _missing_piece("hard"),
             "Missing Piece Selection (hard): the three most CLIP-similar distractors",
             module=missing_piece_selection),
    TaskSpec("piece_localization_easy", "piece_localization_easy", piece_localization.num_slots("easy"),
             lambda im: piece_localization.check(im, "easy"),
             lambda im, rng, slot, ctx: piece_localization.make_item(im, rng, slot, "easy"),
             "Piece Localization (easy): 2x2 grid, two masks", module=piece_localization),
    TaskSpec("piece_localization_hard", "piece_localization_hard", piece_localization.num_slots("hard"),
             lambda im: piece_localization.check(im, "hard"),
             lambda im, rng, slot, ctx: piece_localization.make_item(im, rng, slot, "hard"),
             "Piece Localization (hard): 3x3 grid, four masks", module=piece_localization),
    TaskSpec("connection_verification", "connection_verification", connection_verification.NUM_SLOTS,
             connection_verification.check,
             lambda im, rng, slot, ctx: connection_verification.make_item(im, rng, slot),
             "Connection Verification: horizontal / vertical / not adjacent", module=connection_verification),
    TaskSpec("anomaly_detection", "anomaly_detection", anomaly_detection.NUM_SLOTS,
             anomaly_detection.check,
             lambda im, rng, slot, ctx: anomaly_detection.make_item(im, rng, slot),
             "Anomaly Detection: one cell rotated, mirrored, or none", module=anomaly_detection),
    TaskSpec("order_restoration", "order", order_restoration.NUM_SLOTS, order_restoration.check,
             lambda im, rng, slot, ctx: order_restoration.make_item(im, rng, slot),
             "Order Restoration: choose the order of four shuffled cells", module=order_restoration),
    TaskSpec("order_generation", "order", order_generation.NUM_SLOTS, order_generation.check,
             lambda im, rng, slot, ctx: order_generation.make_item(im, rng, slot),
             "Order Generation: write the order of four shuffled cells", module=order_generation),
]}


def item_rng(seed: int, family: str, source_id: str) -> ItemRNG:
    """The one source of randomness of an item: (seed, task family, source id)."""
    return ItemRNG("jigsaw-puzzles", seed, family, source_id)


def plan_slots(source_ids: Sequence[str], lite_ids: Sequence[str], seed: int, family: str,
               num_slots: int) -> dict[str, int]:
    """Assign answer slots so that every slot is used equally often (counts differ by <= 1).

    Sources are ranked by a seeded hash (ties broken by id), Lite sources first,
    and slot = rank mod num_slots: balanced over the whole split and over Lite,
    independent of file order and of how generation is split across processes.
    """
    lite = set(lite_ids)

    def rank(sid: str):
        return (sid not in lite, stable_hash("plan", seed, family, sid), sid)

    ordered = sorted(source_ids, key=rank)
    return {sid: i % num_slots for i, sid in enumerate(ordered)}


__all__ = ["TASKS", "TaskSpec", "Context", "Item", "TaskError", "Distractor", "item_rng", "plan_slots"]
