"""Task 5, Order Restoration: pick the order that puts four shuffled 2x2 cells back.

``order[j]`` is the 1-based index of the shuffled image that belongs at region j
(top-left, top-right, bottom-left, bottom-right).  The options are the true
order and three distinct wrong orders drawn from the other 23 permutations;
the true order sits at the planned answer letter.  All 24 shuffles are possible.
A source with two near-identical 2x2 cells is skipped: two orders would be right.
"""

from __future__ import annotations

from itertools import permutations

from PIL import Image

from .. import geometry, prompts
from ..rng import ItemRNG
from ..spec import format_choice, format_order
from .base import Context, Item, Task, require_distinct

NUM_SLOTS = 4
PERMUTATIONS = [list(p) for p in permutations((1, 2, 3, 4))]


def check(image: Image.Image) -> str | None:
    return require_distinct(geometry.split(image, 2, 2), "order")


def shuffle(image: Image.Image, rng: ItemRNG) -> tuple[list[int], list[Image.Image]]:
    """Shuffled cells and the true order. Shared with Order Generation (same rng key, same shuffle)."""
    cells = geometry.split(image, 2, 2)
    shown = [0, 1, 2, 3]  # shown[k] = original region of shuffled image k+1
    rng.child("shuffle").shuffle(shown)
    order = [shown.index(region) + 1 for region in range(4)]
    return order, [cells[region] for region in shown]


def make_item(image: Image.Image, rng: ItemRNG, slot: int) -> Item:
    order, pieces = shuffle(image, rng)
    wrong = rng.child("options").sample([p for p in PERMUTATIONS if p != order], 3)
    options_lists = wrong[:slot] + [order] + wrong[slot:]
    options = [format_order(p) for p in options_lists]
    return Item(
        images=pieces,
        question=prompts.ORDER_RESTORATION.format(options=prompts.option_lines(options)),
        options=options,
        answer=format_choice(slot),
        metadata={"grid": [2, 2], "order": order, "option_orders": options_lists},
    )


def build(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
    return make_item(image, rng, slot)


TASKS = [Task("order_restoration", NUM_SLOTS, check, build,
              "Order Restoration: choose the order of four shuffled cells", __name__)]
