"""Task 3, Connection Verification: how were two of the four 2x2 cells placed?

A = horizontal neighbours, B = vertical neighbours, C = not adjacent (diagonal).
Cells: 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right; the pair for the
planned relation and its order are drawn at random.  A source with two
near-identical 2x2 cells is skipped: the shown pair could stand for another pair.
"""

from __future__ import annotations

from PIL import Image

from .. import geometry, prompts
from ..rng import ItemRNG
from ..spec import format_choice
from .base import Context, Item, Task, require_distinct

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


TASKS = [Task("connection_verification", NUM_SLOTS, check, build,
              "Connection Verification: horizontal / vertical / not adjacent", __name__)]
