"""Task 5, Order Restoration: pick the order that puts four shuffled 2x2 cells back.

``order[j]`` is the 1-based index of the shuffled image that belongs at region j
(top-left, top-right, bottom-left, bottom-right).  The options are the true
order and three distinct wrong orders drawn from the other 23 permutations;
the true order sits at the planned answer letter.  All 24 shuffles are possible.
A source with two near-identical 2x2 cells is skipped: two orders would be right.

Beyond the paper, ``order_restoration_<R>x<C>`` cuts an R x C grid (regions numbered row by row): the image is
cropped at its right and bottom edge to a multiple of the grid, a cell narrower or lower than
:data:`MIN_CELL` pixels is refused (it carries too little to place), and so is a source with two
near-identical cells; the wrong options are distinct random orders (all of the others when fewer than four
orders exist, e.g. two options on a 1x2 grid). Built items record ``solver_margin``, the any-grid placer's
margin on their pieces (a difficulty signal; the training stream leaves it out).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

from PIL import Image

from .. import geometry, prompts
from ..rng import ItemRNG
from ..spec import format_choice, format_order, get as get_spec
from .base import Context, Item, Task, TaskError, require_distinct

NUM_SLOTS = 4
PERMUTATIONS = [list(p) for p in permutations((1, 2, 3, 4))]
#: The smallest cell side (pixels) a grid config cuts: below it a piece carries too little to place.
MIN_CELL = 32


def check(image: Image.Image) -> str | None:
    return require_distinct(geometry.split(image, 2, 2), "order")


def grid_cells(image: Image.Image, rows: int, cols: int) -> list[Image.Image]:
    """The R x C cells, row by row, of the image cropped to a multiple of the grid; ``TaskError`` below
    :data:`MIN_CELL`."""
    cw, ch = image.width // cols, image.height // rows
    if min(cw, ch) < MIN_CELL:
        raise TaskError(f"a {rows}x{cols} grid of this {image.width}x{image.height} image has {cw}x{ch} px cells, "
                        f"below the minimum of {MIN_CELL} px")
    return geometry.split(image.crop((0, 0, cw * cols, ch * rows)), rows, cols)


def grid_reason(image: Image.Image, rows: int, cols: int, check_cells=None) -> str | None:
    """Why ``image`` cannot be cut on the grid (cells under :data:`MIN_CELL`), else ``check_cells(cells)``'s
    reason (None: well-posed). The grid configs' checks, one place."""
    try:
        cells = grid_cells(image, rows, cols)
    except TaskError as err:
        return str(err)
    return check_cells(cells) if check_cells is not None else None


def grid_check(rows: int, cols: int):
    """The grid check of the order and Connection Verification configs: no two near-identical cells."""
    return lambda image: grid_reason(image, rows, cols, lambda cells: require_distinct(cells, "order"))


def shuffle(image: Image.Image, rng: ItemRNG, rows: int = 2, cols: int = 2) -> tuple[list[int], list[Image.Image]]:
    """Shuffled cells and the true order. Shared with Order Generation (same rng key, same shuffle)."""
    cells = geometry.split(image, 2, 2) if (rows, cols) == (2, 2) else grid_cells(image, rows, cols)
    n = rows * cols
    shown = list(range(n))  # shown[k] = original region of shuffled image k+1
    rng.child("shuffle").shuffle(shown)
    order = [shown.index(region) + 1 for region in range(n)]
    return order, [cells[region] for region in shown]


def wrong_orders(order: list[int], rng: ItemRNG, k: int) -> list[list[int]]:
    """``k`` distinct orders other than ``order``: a sample of all of them up to 5 pieces (the paper's 2x2
    draw), else distinct seeded shuffles."""
    n = len(order)
    if n <= 5:
        return rng.child("options").sample([p for p in _all_orders(n) if p != order], k)
    draw, wrong = rng.child("options"), []
    while len(wrong) < k:
        p = list(range(1, n + 1))
        draw.shuffle(p)
        if p != order and p not in wrong:
            wrong.append(p)
    return wrong


@lru_cache(maxsize=8)
def _all_orders(n: int) -> tuple:
    return tuple(PERMUTATIONS) if n == 4 else tuple(list(p) for p in permutations(range(1, n + 1)))


def make_item(image: Image.Image, rng: ItemRNG, slot: int, rows: int = 2, cols: int = 2,
              num_options: int = 4) -> Item:
    order, pieces = shuffle(image, rng, rows, cols)
    wrong = wrong_orders(order, rng, num_options - 1)
    options_lists = wrong[:slot] + [order] + wrong[slot:]
    options = [format_order(p) for p in options_lists]
    if (rows, cols) == (2, 2):
        question = prompts.ORDER_RESTORATION.format(options=prompts.option_lines(options))
    else:
        question = prompts.ORDER_RESTORATION_GRID.format(
            images=prompts.image_list(len(pieces)), grid_words=prompts.grid_words(rows, cols), n=len(pieces),
            options=prompts.option_lines(options), letters=prompts.letter_list(len(options)))
    return Item(
        images=pieces,
        question=question,
        options=options,
        answer=format_choice(slot),
        metadata={"grid": [rows, cols], "order": order, "option_orders": options_lists},
    )


def build(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
    return make_item(image, rng, slot)


def solver_margin(rows: int, cols: int):
    """``item -> {"solver_margin": m}``: the any-grid placer's margin on the item's pieces, in [0, 1] (how
    clearly the best layout beats the next; a per-item difficulty signal). Recorded by the builder."""
    def annotate(item: Item) -> dict:
        from ..baselines.placer import place

        return {"solver_margin": round(place(item.images, rows, cols).margin, 4)}
    return annotate


def grid_task(config: str) -> Task:
    """The task record of ``order_restoration_<R>x<C>``."""
    spec = get_spec(config)
    rows, cols = spec.grid

    def build_grid(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        return make_item(image, rng, slot, rows, cols, spec.num_options)

    return Task(config, spec.num_options, grid_check(rows, cols), build_grid,
                f"Order Restoration on a {rows}x{cols} grid: choose the order of {rows * cols} shuffled cells",
                __name__, annotate=solver_margin(rows, cols))


TASKS = [Task("order_restoration", NUM_SLOTS, check, build,
              "Order Restoration: choose the order of four shuffled cells", __name__)]
