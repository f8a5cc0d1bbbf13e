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

Unknown orientation (``order_restoration_<R>x<C>_rot``, 2x2 included): each shuffled piece is also turned
counter-clockwise by 0, 90, 180 or 270 degrees (drawn per piece), and an order names, per region, the image
and the clockwise degrees that turn it upright: ``[(2, 90), (3, 0), (1, 270), (4, 180)]``. The cells are
square (the image cropped at its right and bottom edge to ``s*C x s*R`` with ``s`` the smaller cell side), so a
piece's shape never tells its rotation. A source is refused when a cell looks alike turned by 90, 180 or 270
degrees (its rotation would be ambiguous) or when a cell looks like another cell turned any way. The wrong
options are the true order with other rotations, another order with the pieces' true rotations, and a random
oriented order (each distinct).

Interlocking pieces (``<config>_tabs``, any grid, ``_rot`` too): the same shuffle (and turns) of shaped pieces, each
its cell plus its tabs minus its blanks on one RGBA canvas (:mod:`.shaped`); ``_tabs_silhouette`` shows them flat
grey, its cut re-drawn until the outlines alone fix the layout; ``_tabs_content`` (not ``_rot``) cuts every piece
with one outline (the congruent cut), so the outlines say nothing of the order.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import numpy as np
from PIL import Image

from ... import geometry, prompts
from ...rng import ItemRNG
from ...spec import ROTATIONS, format_choice, format_oriented, format_order, get as get_spec
from .base import MIN_DISTINCT, Context, Item, Task, TaskError, require_distinct

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


def grid_reason(image: Image.Image, rows: int, cols: int, check_cells=None, cut=None) -> str | None:
    """Why ``image`` cannot be cut on the grid (cells under :data:`MIN_CELL`), else ``check_cells(cells)``'s
    reason (None: well-posed). The grid configs' checks, one place; ``cut``: how the cells are cut (default
    :func:`grid_cells`)."""
    try:
        cells = (cut or grid_cells)(image, rows, cols)
    except TaskError as err:
        return str(err)
    return check_cells(cells) if check_cells is not None else None


def square_cells(image: Image.Image, rows: int, cols: int) -> list[Image.Image]:
    """The R x C square cells of side ``min(width // C, height // R)``, row by row (the rotated configs: a
    turned piece keeps its shape); ``TaskError`` below :data:`MIN_CELL`."""
    side = min(image.width // cols, image.height // rows)
    if side < MIN_CELL:
        raise TaskError(f"a {rows}x{cols} grid of square cells of this {image.width}x{image.height} image has "
                        f"{side} px cells, below the minimum of {MIN_CELL} px")
    return geometry.split(image.crop((0, 0, side * cols, side * rows)), rows, cols)


def rotation_reason(cells: list[Image.Image]) -> str | None:
    """Why the rotated order of ``cells`` would be ambiguous: a cell that looks alike turned by 90, 180 or 270
    degrees, or a cell that looks like another cell turned any way (mean absolute difference under
    ``MIN_DISTINCT``); ``None`` when every (piece, rotation) is told apart."""
    arrays = [geometry.as_array(c) for c in cells]
    turns = [[np.rot90(a, k) for k in range(4)] for a in arrays]
    for i, a in enumerate(arrays):
        for k in (1, 2, 3):
            diff = float(np.abs(a - turns[i][k]).mean())
            if diff < MIN_DISTINCT:
                return (f"rotated order: cell {i} looks alike turned by {90 * k} degrees (mean abs diff {diff:.2f} < "
                        f"{MIN_DISTINCT}), its rotation would be ambiguous")
    for i in range(len(arrays)):
        for j in range(i + 1, len(arrays)):
            for k in range(4):
                diff = float(np.abs(arrays[i] - turns[j][k]).mean())
                if diff < MIN_DISTINCT:
                    return (f"rotated order: cell {i} looks like cell {j} turned by {90 * k} degrees (mean abs diff "
                            f"{diff:.2f} < {MIN_DISTINCT}), the answer would be ambiguous")
    return None


def rotated_check(rows: int, cols: int):
    """The check of the ``_rot`` configs: square cells of at least :data:`MIN_CELL`, told apart any way turned."""
    return lambda image: grid_reason(image, rows, cols, rotation_reason, cut=square_cells)


_TURN = {90: Image.Transpose.ROTATE_90, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_270}


def rotated_shuffle(image: Image.Image, rng: ItemRNG, rows: int, cols: int):
    """``(order, rotations, pieces)``: the square cells shuffled, shown image k turned counter-clockwise by its
    own draw from :data:`ROTATIONS`; ``rotations[j]`` is the clockwise turn that makes the image placed at
    region j upright. Shared by the rotated Order Restoration and Generation (same rng key)."""
    cells = square_cells(image, rows, cols)
    n = rows * cols
    shown = list(range(n))
    rng.child("shuffle").shuffle(shown)
    turn = rng.child("rotate")
    turns = [ROTATIONS[turn.randbelow(len(ROTATIONS))] for _ in range(n)]  # turns[k]: image k+1's rotation
    pieces = [cells[region] if t == 0 else cells[region].transpose(_TURN[t]) for region, t in zip(shown, turns)]
    order = [shown.index(region) + 1 for region in range(n)]
    return order, [turns[i - 1] for i in order], pieces


def wrong_oriented(order: list[int], rotations: list[int], rng: ItemRNG, k: int) -> list[tuple[list[int], list[int]]]:
    """``k`` distinct wrong oriented orders: the true order with other rotations, another order with each piece's
    true rotation, then random ones, in turn."""
    n = len(order)
    draw = rng.child("options")
    by_piece = {i: r for i, r in zip(order, rotations)}
    wrong: list[tuple[list[int], list[int]]] = []
    step = 0
    while len(wrong) < k:
        kind = step % 3
        step += 1
        perm = list(order)
        if kind != 0:
            draw.shuffle(perm)
        if kind == 1:
            turns = [by_piece[i] for i in perm]
        else:
            turns = [ROTATIONS[draw.randbelow(len(ROTATIONS))] for _ in range(n)]
        cand = (perm, turns)
        if cand != (order, rotations) and cand not in wrong:
            wrong.append(cand)
    return wrong


def rotated_item(image: Image.Image, rng: ItemRNG, slot: int, rows: int, cols: int, num_options: int,
                 shuffled=None) -> Item:
    """A rotated Order Restoration item (``num_options`` > 0) or Order Generation item (0); ``shuffled``: the
    ``(order, rotations, pieces)`` of shaped pieces (:func:`tab_shuffle`)."""
    order, rotations, pieces = shuffled or rotated_shuffle(image, rng, rows, cols)
    n = len(pieces)
    common = dict(images=prompts.image_list(n), grid_words=prompts.grid_words(rows, cols), n=n)
    meta = {"grid": [rows, cols], "order": order, "rotations": rotations}
    if not num_options:
        example = format_oriented(list(range(2, n + 1)) + [1], [90, 0, 270, 180, 0, 90, 180, 270, 0][:n])
        return Item(images=pieces, question=prompts.ORDER_GENERATION_ROT.format(example=example, **common),
                    options=[], answer=format_oriented(order, rotations), metadata=meta)
    wrong = wrong_oriented(order, rotations, rng, num_options - 1)
    chosen = wrong[:slot] + [(order, rotations)] + wrong[slot:]
    options = [format_oriented(*o) for o in chosen]
    question = prompts.ORDER_RESTORATION_ROT.format(options=prompts.option_lines(options),
                                                    letters=prompts.letter_list(len(options)), **common)
    meta["option_orders"] = [o[0] for o in chosen]
    meta["option_rotations"] = [o[1] for o in chosen]
    return Item(images=pieces, question=question, options=options, answer=format_choice(slot), metadata=meta)


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
              num_options: int = 4, shuffled=None) -> Item:
    order, pieces = shuffled or shuffle(image, rng, rows, cols)
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


def solver_margin(rows: int, cols: int, rotated: bool = False, shaped: bool = False, between_tabs: bool = False):
    """``item -> {"solver_margin": m}``: the any-grid placer's margin on the item's pieces, in [0, 1] (how
    clearly the best layout beats the next; a per-item difficulty signal). Recorded by the builder."""
    def annotate(item: Item) -> dict:
        from ...baselines.placer import place

        return {"solver_margin": round(place(item.images, rows, cols, rotated=rotated, shaped=shaped,
                                             between_tabs=between_tabs).margin, 4)}
    return annotate


def tab_shuffle(image: Image.Image, rng: ItemRNG, rows: int, cols: int, silhouette: bool, rotated: bool = False,
                content: bool = False):
    """``(order, rotations, pieces, metadata)`` of the interlocking cut: the straight config's shuffle (and turns)
    of shaped pieces (``rotations`` None unless ``rotated``). A silhouette's cut is re-drawn until the outlines
    alone fix the layout; ``content``: the congruent cut (every piece one outline). Shared by the order tab configs
    (same rng key)."""
    from . import shaped

    if content:
        photo, _, cut, meta = shaped.content(image, rows, cols)
    else:
        photo, cell = shaped.cut_cells(image, rows, cols, square=rotated)
        cut, meta = shaped.layout_cut(rng, rows, cols, cell, silhouette)
    canvases = shaped.pieces(photo, cut, silhouette)
    n = rows * cols
    shown = list(range(n))
    rng.child("shuffle").shuffle(shown)
    order = [shown.index(region) + 1 for region in range(n)]
    if not rotated:
        return order, None, shaped.images([canvases[region] for region in shown]), meta
    turn = rng.child("rotate")
    turns = [ROTATIONS[turn.randbelow(len(ROTATIONS))] for _ in range(n)]  # counter-clockwise, as rotated_shuffle
    pieces = [np.rot90(canvases[region], t // 90) for region, t in zip(shown, turns)]
    return order, [turns[i - 1] for i in order], shaped.images(pieces), meta


def tab_task(config: str, make=None, base: Task | None = None) -> Task:
    """The task record of an order config's interlocking cut (``order_restoration[_<R>x<C>][_rot]_tabs``,
    ``..._tabs_silhouette``, ``..._tabs_content``); Order Generation's passes its item maker ``make`` (the same
    shuffle, no options) and its straight task ``base``."""
    from . import shaped

    spec = get_spec(config)
    rows, cols = spec.grid
    straight = shaped.straight(config)
    base = base or (TASKS[0] if straight == TASKS[0].config else grid_task(straight))
    silhouette, content = spec.cut == "silhouette", spec.cut == "content"

    def build_tabs(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        order, rotations, pieces, meta = tab_shuffle(image, rng, rows, cols, silhouette, spec.rotated, content)
        if spec.rotated:
            item = rotated_item(image, rng, slot, rows, cols, spec.num_options, shuffled=(order, rotations, pieces))
        elif make is not None:
            item = make(image, rng, slot, rows, cols, shuffled=(order, pieces))
        else:
            item = make_item(image, rng, slot, rows, cols, spec.num_options, shuffled=(order, pieces))
        item.question = shaped.question(item.question, silhouette)
        item.metadata.update(meta)
        return item

    check = shaped.content_check(base.check, rows, cols) if content else \
        shaped.check(base.check, rows, cols, spec.rotated)
    return Task(config, base.num_slots, check, build_tabs, f"{base.summary}, as {shaped.words(spec.cut)}", __name__,
                annotate=solver_margin(rows, cols, spec.rotated, shaped=True, between_tabs=content))


def rotated_task(config: str) -> Task:
    """The task record of ``order_restoration_<R>x<C>_rot`` or ``order_generation_<R>x<C>_rot``."""
    spec = get_spec(config)
    rows, cols = spec.grid

    def build_rotated(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        return rotated_item(image, rng, slot, rows, cols, spec.num_options)

    what = "choose" if spec.num_options else "write"
    return Task(config, max(1, spec.num_options), rotated_check(rows, cols), build_rotated,
                f"{spec.title}: {what} the order and the rotation of {rows * cols} shuffled, turned cells",
                __name__, annotate=solver_margin(rows, cols, rotated=True))


def grid_task(config: str) -> Task:
    """The task record of ``order_restoration_<R>x<C>`` (and of its ``_rot`` and ``_tabs`` variants)."""
    spec = get_spec(config)
    if spec.cut != "straight":
        return tab_task(config)
    if spec.rotated:
        return rotated_task(config)
    rows, cols = spec.grid

    def build_grid(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        return make_item(image, rng, slot, rows, cols, spec.num_options)

    return Task(config, spec.num_options, grid_check(rows, cols), build_grid,
                f"Order Restoration on a {rows}x{cols} grid: choose the order of {rows * cols} shuffled cells",
                __name__, annotate=solver_margin(rows, cols))


TASKS = [Task("order_restoration", NUM_SLOTS, check, build,
              "Order Restoration: choose the order of four shuffled cells", __name__)]
