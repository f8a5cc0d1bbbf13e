"""Task 6, Order Generation: write the order that puts four shuffled cells back.

The open-ended version of Order Restoration: the very same shuffle (same rng
key) with no options, so the two configs differ only in the answer format.
``order_generation_<R>x<C>`` does the same on an R x C grid, sharing the shuffle of
``order_restoration_<R>x<C>`` (the grid rules are Order Restoration's). ``order_generation_<R>x<C>_rot``
writes each piece's rotation too (``[(2, 90), (3, 0), (1, 270), (4, 180)]``; see Order Restoration's rules).
``order_generation[_<R>x<C>][_rot]_tabs``, ``..._tabs_silhouette`` and ``..._tabs_content`` cut them into
interlocking pieces, as Order Restoration's tab configs do.
"""

from __future__ import annotations

from PIL import Image

from ... import prompts
from ...rng import ItemRNG
from ...spec import format_order, get as get_spec
from .base import Context, Item, Task
from .order_restoration import check, grid_check, rotated_task, shuffle, solver_margin  # noqa: F401  (same rules)
from .order_restoration import tab_task as _tab_task

NUM_SLOTS = 1


def make_item(image: Image.Image, rng: ItemRNG, slot: int = 0, rows: int = 2, cols: int = 2, shuffled=None) -> Item:
    order, pieces = shuffled or shuffle(image, rng, rows, cols)
    if (rows, cols) == (2, 2):
        question = prompts.ORDER_GENERATION
    else:
        n = len(pieces)
        question = prompts.ORDER_GENERATION_GRID.format(images=prompts.image_list(n), n=n,
                                                        grid_words=prompts.grid_words(rows, cols),
                                                        example=format_order(list(range(2, n + 1)) + [1]))
    return Item(
        images=pieces,
        question=question,
        options=[],
        answer=format_order(order),
        metadata={"grid": [rows, cols], "order": order},
    )


def build(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
    return make_item(image, rng, slot)


def grid_task(config: str) -> Task:
    """The task record of ``order_generation_<R>x<C>`` (and of its ``_rot`` variant: the rotated Order
    Restoration's shuffle and rules, :func:`.order_restoration.rotated_task`; its ``_tabs`` cuts likewise)."""
    if get_spec(config).cut != "straight":
        straight = config[:config.index("_tabs")]
        return _tab_task(config, None if get_spec(config).rotated else make_item,
                         base=TASKS[0] if straight == "order_generation" else grid_task(straight))
    if get_spec(config).rotated:
        return rotated_task(config)
    rows, cols = get_spec(config).grid

    def build_grid(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        return make_item(image, rng, slot, rows, cols)

    return Task(config, NUM_SLOTS, grid_check(rows, cols), build_grid,
                f"Order Generation on a {rows}x{cols} grid: write the order of {rows * cols} shuffled cells", __name__,
                annotate=solver_margin(rows, cols))


TASKS = [Task("order_generation", NUM_SLOTS, check, build,
              "Order Generation: write the order of four shuffled cells", __name__)]
