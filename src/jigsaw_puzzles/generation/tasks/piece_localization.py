"""Task 2, Piece Localization: which masked cell does the piece come from?

Easy: 2x2 grid, two masked cells labelled A, B.  Hard: 3x3 grid, four masked
cells labelled A-D.  A mask is uniform grey (160, 160, 160) with a large black
letter outlined in white; labels follow the reading order of the masked cells.
Image 2 is the original content of the masked cell whose label is the answer.
The masked cells are drawn among the sets whose cells are pairwise distinct
(mean absolute difference >= 8 grey levels), so the piece fits exactly one mask.

Beyond the paper, ``piece_localization_<R>x<C>`` masks 4 cells (all but one of a smaller grid) of an R x C
grid, and ``piece_localization_<R>x<C>_k<K>`` masks K (2-26; at least one cell stays unmasked: the piece
needs a context); the grid is cut as the order grid configs cut
it (cells of at least 32 px). The K masked cells are the first K pairwise-distinct cells of a seeded shuffle
of the grid (a photo without K pairwise-distinct cells that way is refused), labelled A, B, ... in reading
order; the question names the grid and the labels.

Interlocking pieces (``<config>_tabs``, ``_tabs_silhouette``): each mask is its piece's exact outline (grey, with
its cut line) and the piece keeps its tabs, so its outline fits exactly one mask. ``_tabs_content`` cuts every
piece with one outline (the congruent cut) on a board of the grid and its ring: the piece fits every mask.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from ... import geometry, prompts
from ...rng import ItemRNG
from ...spec import LETTERS, get as get_spec
from .base import MIN_DISTINCT, Context, Item, Task, TaskError, distinct_subsets, pairwise_differences, per_image
from .order_restoration import grid_cells, grid_reason

LEVELS = {"easy": (2, 2, prompts.PIECE_LOCALIZATION_EASY),
          "hard": (3, 4, prompts.PIECE_LOCALIZATION_HARD)}


def num_slots(level: str) -> int:
    return LEVELS[level][1]


def _subsets(image: Image.Image, cells: list[Image.Image] | None, grid: int, masks: int) -> list[tuple[int, ...]]:
    """The pairwise-distinct mask sets of ``image`` cut ``grid`` x ``grid``, once per image (:func:`.base.per_image`)."""
    return per_image(image, ("piece_localization", grid, masks),
                     lambda: distinct_subsets(cells or geometry.split(image, grid, grid), masks))


def check(image: Image.Image, level: str) -> str | None:
    grid, masks, _ = LEVELS[level]
    if not _subsets(image, None, grid, masks):
        return f"piece_localization_{level}: no {masks} pairwise-distinct cells to mask"
    return None


def draw_masks(board: Image.Image, boxes, masked, labels) -> None:
    """Mask cell ``masked[j]`` of ``board`` (uniform grey over its whole box) and label it ``labels[j]``, in place:
    the one way masks are drawn (the items, and the circular evaluation's relabelled boards)."""
    for letter, cell in zip(labels, masked):
        geometry.fill(board, boxes[cell], geometry.MASK_GREY)
        geometry.draw_label(board, boxes[cell], letter)


def make_item(image: Image.Image, rng: ItemRNG, slot: int, level: str) -> Item:
    grid, masks, template = LEVELS[level]
    cells = geometry.split(image, grid, grid)
    subsets = _subsets(image, cells, grid, masks)
    if not subsets:
        raise TaskError(check(image, level))
    masked = rng.child("masked cells").choice(subsets)
    boxes = geometry.grid_boxes(image.size, grid, grid)
    board = image.copy()
    draw_masks(board, boxes, masked, LETTERS)
    piece_cell = masked[slot]
    labels = list(LETTERS[:masks])
    return Item(
        images=[board, cells[piece_cell]],
        question=template,
        options=labels,
        answer=labels[slot],
        metadata={"grid": [grid, grid], "masked_cells": list(masked),
                  "labels": dict(zip(labels, masked)), "piece_cell": piece_cell},
    )


def _task(level: str, summary: str) -> Task:
    def build(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        return make_item(image, rng, slot, level)

    def check_level(image: Image.Image) -> str | None:
        return check(image, level)

    return Task(f"piece_localization_{level}", num_slots(level), check_level, build, summary, __name__)


def distinct_pick(cells: list[Image.Image], k: int, order: list[int]) -> list[int] | None:
    """The first ``k`` cells in ``order`` that are pairwise distinct from those taken before (sorted), or
    None: linear in the grid, where listing every k-subset of a large grid is not."""
    diffs = pairwise_differences(cells)
    taken: list[int] = []
    for i in order:
        if all(diffs[i, j] >= MIN_DISTINCT for j in taken):
            taken.append(i)
            if len(taken) == k:
                return sorted(taken)
    return None


def draw_tab_masks(board_array, cut, masked, labels, alphas=None, content: bool = False) -> Image.Image:
    """Mask the pieces ``masked`` of an assembled board (an RGBA array, :func:`..tabs.board`) by their outlines:
    each painted uniform grey with its cut line drawn (two masks side by side stay apart), labelled ``labels[j]``
    at its cell's centre. Returns the board as an RGB image: it is opaque everywhere (the pieces tile it); a
    ``content`` board (the grid and its ring) as an RGBA one, each mask laid in its piece's place (its alpha the
    piece's: the board's alpha is the same whichever pieces are masked)."""
    from ..tabs import add, paint, remove, ring
    from ..tabs.render import LINE

    board_alpha = board_array[..., 3].copy()
    for k in masked:
        alpha, box = cut.alpha(k) if alphas is None else alphas[k], cut.canvas_box(k)
        if content:  # grey in the piece's place, its cut line drawn in LINE: the board's alpha unchanged
            layer = np.empty(alpha.shape + (4,), np.uint8)
            layer[..., :3], layer[..., 3] = geometry.MASK_GREY, alpha
            remove(board_array, alpha, box)
            add(board_array, layer, box)
            paint(board_array, np.where(ring(alpha), 255, 0).astype(np.uint8), box, LINE)
            board_array[..., 3][...] = board_alpha
        else:
            paint(board_array, alpha, box, geometry.MASK_GREY, outline=LINE)
    if not content and not (board_array[..., 3] == 255).all():
        raise AssertionError("a Piece Localization board is opaque: its pieces tile it")
    out = Image.fromarray(np.ascontiguousarray(board_array if content else board_array[..., :3]))
    boxes = cut.cell_boxes()
    for letter, k in zip(labels, masked):
        geometry.draw_label(out, boxes[k], letter)
    return out


def relabel_tab_masks(board: Image.Image, rows: int, cols: int, masked, labels, ring: int = 0) -> None:
    """Redraw the letters of shaped masks in place (circular evaluation): each masked cell's middle, clear of
    every tab and blank (they reach at most ``TAB_REACH`` of the cell in from its edges), painted grey again and
    its new letter drawn, as :func:`draw_tab_masks` draws it. ``ring``: the margin around the grid of a content
    board (its ``tab_margin``)."""
    boxes = geometry.grid_boxes((board.width - 2 * ring, board.height - 2 * ring), rows, cols)
    for letter, k in zip(labels, masked):
        left, top, right, bottom = (v + ring for v in boxes[k])
        d = int(np.ceil(geometry.TAB_REACH * min(right - left, bottom - top))) + 1
        geometry.fill(board, (left + d, top + d, right - d, bottom - d), geometry.MASK_GREY)
        geometry.draw_label(board, (left, top, right, bottom), letter)


def tab_task(config: str) -> Task:
    """The task record of ``piece_localization_<easy|hard|R>x<C>[_k<K>]>_tabs`` and ``..._tabs_silhouette`` (and
    ``..._tabs_content``, the congruent cut, every mask and the piece one outline): the
    straight config's masked cells and answer, each mask the exact outline of its piece (grey, its cut line drawn),
    the piece cut with its tabs: its outline fits exactly one mask. A silhouette's cut is re-drawn until the
    masked pieces' outlines differ pairwise (:data:`.shaped.MIN_MISFIT_PX`), so the shape alone tells the mask."""
    from ..tabs import board, piece
    from . import shaped

    spec = get_spec(config)
    rows, cols = spec.grid
    straight = shaped.straight(config)
    base = next((t for t in TASKS if t.config == straight), None) or grid_task(straight)
    silhouette, content = spec.cut == "silhouette", spec.cut == "content"

    def build_content(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        photo, grid, cut, meta = shaped.content(image, rows, cols)
        item = base.build(grid, rng, slot, ctx)
        masked, k = list(item.metadata["masked_cells"]), item.metadata["piece_cell"]
        item.images = [draw_tab_masks(board(photo, cut), cut, masked, item.options, content=True),
                       shaped.images([piece(photo, cut, k)])[0]]
        item.question = shaped.question(item.question, False)
        item.metadata.update(meta)
        return item

    def build_tabs(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        photo, cell = shaped.cut_cells(image, rows, cols)
        item = base.build(image, rng, slot, ctx)
        masked = list(item.metadata["masked_cells"])

        def distinct(cut) -> str | None:
            alphas = {k: cut.alpha(k).astype(np.int64) for k in masked}
            for i in masked:
                for j in masked:
                    diff = np.abs(alphas[i] - alphas[j]).sum() / 255
                    if i < j and diff < shaped.MIN_MISFIT_PX:
                        return f"masked pieces {i} and {j} have the same outline ({diff:.1f} px apart)"
            return None

        cut, redraws = shaped.draw_cut(rng, rows, cols, cell, distinct if silhouette else None)
        alphas = {k: cut.alpha(k) for k in masked}
        board_image = draw_tab_masks(board(photo, cut, silhouette), cut, masked, item.options, alphas)
        k = item.metadata["piece_cell"]
        item.images = [board_image, shaped.images([piece(photo, cut, k, alphas[k], silhouette=silhouette)])[0]]
        item.question = shaped.question(item.question, silhouette)
        item.metadata.update(shaped.metadata(cut, silhouette, redraws))
        return item

    if content:
        return Task(config, base.num_slots, shaped.content_check(base.check, rows, cols), build_content,
                    f"{base.summary}, as {shaped.words(spec.cut)}", __name__)
    return Task(config, base.num_slots, shaped.check(base.check, rows, cols), build_tabs,
                f"{base.summary}, as {shaped.words(spec.cut)}", __name__)


def grid_task(config: str) -> Task:
    """The task record of ``piece_localization_<R>x<C>[_k<K>]`` (and of its ``_tabs`` variants)."""
    spec = get_spec(config)
    if spec.cut != "straight":
        return tab_task(config)
    rows, cols = spec.grid
    k = spec.num_options

    def check_grid(image: Image.Image) -> str | None:
        return grid_reason(image, rows, cols, lambda cells: None if distinct_pick(cells, k, list(range(len(cells))))
                           is not None else f"{config}: no {k} pairwise-distinct cells to mask")

    def build_grid(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        cells = grid_cells(image, rows, cols)
        order = list(range(len(cells)))
        rng.child("masked cells").shuffle(order)
        masked = distinct_pick(cells, k, order)
        if masked is None:
            raise TaskError(f"{config}: no {k} pairwise-distinct cells to mask")
        width, height = cells[0].size
        board = image.crop((0, 0, width * cols, height * rows))
        draw_masks(board, geometry.grid_boxes(board.size, rows, cols), masked, LETTERS)
        labels = list(LETTERS[:k])
        question = prompts.PIECE_LOCALIZATION_GRID.format(
            grid_words=prompts.grid_words(rows, cols), k=k, labels=prompts.and_list(labels),
            choices=prompts.and_list(labels, "or"),
            quoted=prompts.and_list([f'"{x}"' for x in labels], "or"))
        return Item(images=[board, cells[masked[slot]]], question=question, options=labels, answer=labels[slot],
                    metadata={"grid": [rows, cols], "masked_cells": masked, "labels": dict(zip(labels, masked)),
                              "piece_cell": masked[slot]})

    return Task(config, k, check_grid, build_grid,
                f"Piece Localization on a {rows}x{cols} grid: {k} masks", __name__)


TASKS = [_task("easy", "Piece Localization (easy): 2x2 grid, two masks"),
         _task("hard", "Piece Localization (hard): 3x3 grid, four masks")]
