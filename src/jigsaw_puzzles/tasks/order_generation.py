"""Task 6, Order Generation: write the order that puts four shuffled cells back.

The open-ended version of Order Restoration: the very same shuffle (same rng
key) with no options, so the two configs differ only in the answer format.
"""

from __future__ import annotations

from PIL import Image

from .. import prompts
from ..rng import ItemRNG
from ..spec import format_order
from .base import Context, Item, Task
from .order_restoration import check, shuffle  # noqa: F401  (same well-posedness rule)

NUM_SLOTS = 1


def make_item(image: Image.Image, rng: ItemRNG, slot: int = 0) -> Item:
    order, pieces = shuffle(image, rng)
    return Item(
        images=pieces,
        question=prompts.ORDER_GENERATION,
        options=[],
        answer=format_order(order),
        metadata={"grid": [2, 2], "order": order},
    )


def build(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
    return make_item(image, rng, slot)


TASKS = [Task("order_generation", NUM_SLOTS, check, build,
              "Order Generation: write the order of four shuffled cells", __name__)]
