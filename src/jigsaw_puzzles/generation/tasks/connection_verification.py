"""Task 3, Connection Verification: how were two of the four 2x2 cells placed?

A = horizontal neighbours, B = vertical neighbours, C = not adjacent (diagonal).
Cells: 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right; the pair for the
planned relation and its order are drawn at random.  A source with two
near-identical 2x2 cells is skipped: the shown pair could stand for another pair.

Beyond the paper, ``connection_verification_<R>x<C>`` (at least 2x2) cuts the grid as the order grid configs
do (cropped to a multiple of the grid, cells of at least 32 px, no two near-identical cells); the pair is drawn
from every horizontal neighbour pair (A), vertical neighbour pair (B) or non-adjacent pair (C: diagonal or
farther apart) of the grid, and the question names the grid. ``connection_verification_<R>x<C>_8dir`` is the
8-direction variant (Jigsaw-R1's): two neighbouring cells (sharing an edge or a corner), and the answer is where
<image 2> lies relative to <image 1>: right, left, above, below, upper right, upper left, lower right, lower
left (A-H; the slot is the direction, the pair is drawn among the grid's pairs in that direction).

Interlocking pieces (``<config>_tabs``): the same pair as shaped pieces; a tab meets a blank only for true
neighbours in the right direction. ``_tabs_silhouette`` (not with ``_8dir``) shows them flat grey, its cut re-drawn
until no two sides that are not neighbours fit. ``_tabs_content`` cuts every piece with one outline (the congruent
cut): any two pieces fit either way, so the outlines say nothing of the relation.
"""

from __future__ import annotations

from PIL import Image

from ... import geometry, prompts
from ...rng import ItemRNG
from ...spec import DIRECTIONS, LETTERS, format_choice, get as get_spec
from .base import Context, Item, Task, require_distinct
from .order_restoration import grid_cells, grid_check

NUM_SLOTS = 3
PAIRS = {0: ((0, 1), (2, 3)), 1: ((0, 2), (1, 3)), 2: ((0, 3), (1, 2))}
RELATIONS = ("horizontal", "vertical", "not adjacent")


def check(image: Image.Image) -> str | None:
    return require_distinct(geometry.split(image, 2, 2), "connection_verification")


def make_item(image: Image.Image, rng: ItemRNG, slot: int) -> Item:
    cells = geometry.split(image, 2, 2)
    first, second = rng.child("pair").choice(PAIRS[slot])
    if rng.child("order").randbelow(2):
        first, second = second, first
    return Item(
        images=[cells[first], cells[second]],
        question=prompts.CONNECTION_VERIFICATION.format(
            options=prompts.option_lines(prompts.CONNECTION_OPTIONS)),
        options=list(prompts.CONNECTION_OPTIONS),
        answer=format_choice(slot),
        metadata={"grid": [2, 2], "cells": [first, second],
                  "positions": [geometry.POSITION_NAMES[first], geometry.POSITION_NAMES[second]],
                  "relation": RELATIONS[slot]},
    )


def build(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
    return make_item(image, rng, slot)


def grid_pairs(rows: int, cols: int) -> dict[int, list[tuple[int, int]]]:
    """Slot -> the cell pairs (row-major ids, i < j) of that relation on the grid: horizontal neighbours,
    vertical neighbours, not adjacent."""
    out = {0: [], 1: [], 2: []}
    for i in range(rows * cols):
        for j in range(i + 1, rows * cols):
            (ri, ci), (rj, cj) = divmod(i, cols), divmod(j, cols)
            out[0 if ri == rj and cj == ci + 1 else 1 if ci == cj and rj == ri + 1 else 2].append((i, j))
    return out


#: (row, column) step from <image 1> to <image 2> for each of :data:`DIRECTIONS`.
STEPS = {"right": (0, 1), "left": (0, -1), "above": (-1, 0), "below": (1, 0), "upper right": (-1, 1),
         "upper left": (-1, -1), "lower right": (1, 1), "lower left": (1, -1)}


def direction_pairs(rows: int, cols: int) -> dict[int, list[tuple[int, int]]]:
    """Slot (direction index) -> the (first, second) cells with the second in that direction of the first."""
    out = {}
    for slot, name in enumerate(DIRECTIONS):
        dr, dc = STEPS[name]
        out[slot] = [(r * cols + c, (r + dr) * cols + c + dc) for r in range(rows) for c in range(cols)
                     if 0 <= r + dr < rows and 0 <= c + dc < cols]
    return out


def eight_task(config: str) -> Task:
    """The task record of ``connection_verification_<R>x<C>_8dir``."""
    rows, cols = get_spec(config).grid
    pairs = direction_pairs(rows, cols)
    options = prompts.direction_options(DIRECTIONS)

    def build_eight(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        cells = grid_cells(image, rows, cols)
        first, second = rng.child("pair").choice(pairs[slot])
        return Item(
            images=[cells[first], cells[second]],
            question=prompts.CONNECTION_VERIFICATION_8DIR.format(
                grid_words=prompts.grid_words(rows, cols), n=rows * cols, options=prompts.option_lines(options),
                letters=", ".join(LETTERS[:len(options)])),
            options=list(options),
            answer=format_choice(slot),
            metadata={"grid": [rows, cols], "cells": [first, second],
                      "positions": [list(divmod(first, cols)), list(divmod(second, cols))],
                      "relation": DIRECTIONS[slot]},
        )

    return Task(config, len(DIRECTIONS), grid_check(rows, cols), build_eight,
                f"Connection Verification, 8 directions, on a {rows}x{cols} grid", __name__)


def tab_task(config: str) -> Task:
    """The task record of ``connection_verification[_<R>x<C>][_8dir]_tabs`` (``_silhouette``, ``_content``): the
    straight config's item (pair, order, answer) with the two pieces cut interlocking: a tab meets a blank only
    for true neighbours in the right direction. A silhouette's cut is re-drawn until no two sides that are not
    neighbours fit (:func:`.shaped.unique_layout`), so the outlines alone tell the relation."""
    from ..tabs import piece
    from . import shaped

    spec = get_spec(config)
    rows, cols = spec.grid
    straight = shaped.straight(config)
    base = TASKS[0] if straight == TASKS[0].config else grid_task(straight)
    silhouette, content = spec.cut == "silhouette", spec.cut == "content"

    def build_tabs(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        if content:  # every piece one outline: any two fit either way
            photo, image, cut, meta = shaped.content(image, rows, cols)
            item = base.build(image, rng, slot, ctx)
        else:
            photo, cell = shaped.cut_cells(image, rows, cols)
            item = base.build(image, rng, slot, ctx)
            cut, meta = shaped.layout_cut(rng, rows, cols, cell, silhouette)
        item.images = shaped.images([piece(photo, cut, k, silhouette=silhouette) for k in item.metadata["cells"]])
        item.question = shaped.question(item.question, silhouette)
        item.metadata.update(meta)
        return item

    check = shaped.content_check(base.check, rows, cols) if content else shaped.check(base.check, rows, cols)
    return Task(config, base.num_slots, check, build_tabs, f"{base.summary}, as {shaped.words(spec.cut)}", __name__)


def grid_task(config: str) -> Task:
    """The task record of ``connection_verification_<R>x<C>`` (and of its ``_8dir`` and ``_tabs`` variants)."""
    if get_spec(config).cut != "straight":
        return tab_task(config)
    if config.endswith("_8dir"):
        return eight_task(config)
    rows, cols = get_spec(config).grid
    pairs = grid_pairs(rows, cols)

    def build_grid(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        cells = grid_cells(image, rows, cols)
        first, second = rng.child("pair").choice(pairs[slot])
        if rng.child("order").randbelow(2):
            first, second = second, first
        return Item(
            images=[cells[first], cells[second]],
            question=prompts.CONNECTION_VERIFICATION_GRID.format(
                grid_words=prompts.grid_words(rows, cols), n=rows * cols,
                options=prompts.option_lines(prompts.CONNECTION_OPTIONS)),
            options=list(prompts.CONNECTION_OPTIONS),
            answer=format_choice(slot),
            metadata={"grid": [rows, cols], "cells": [first, second],
                      "positions": [list(divmod(first, cols)), list(divmod(second, cols))],
                      "relation": RELATIONS[slot]},
        )

    return Task(config, NUM_SLOTS, grid_check(rows, cols), build_grid,
                f"Connection Verification on a {rows}x{cols} grid: horizontal / vertical / not adjacent", __name__)


TASKS = [Task("connection_verification", NUM_SLOTS, check, build,
              "Connection Verification: horizontal / vertical / not adjacent", __name__)]
