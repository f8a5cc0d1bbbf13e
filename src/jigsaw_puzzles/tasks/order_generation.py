"""Task 6, Order Generation: write the order that puts four shuffled cells back.

The open-ended version of Order Restoration: the very same shuffle (same rng
key) with no options, so the two configs differ only in the answer format.
"""

from __future__ import annotations

from PIL import Image

from .. import prompts
from ..rng import ItemRNG
from .base import Item
from .order_restoration import check, shuffle  # noqa: F401  (same well-posedness rule)

NUM_SLOTS = 1


def make_item(image: Image.Image, rng: ItemRNG, slot: int = 0) -> Item:
    order, pieces = shuffle(image, rng)
    return Item(
        images=pieces,
        question=prompts.ORDER_GENERATION,
        options=[],
        answer=prompts.format_order(order),
        metadata={"grid": [2, 2], "order": order},
    )
