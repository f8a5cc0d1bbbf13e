"""Task 2, Piece Localization: which masked cell does the piece come from?

Easy: 2x2 grid, two masked cells labelled A, B.  Hard: 3x3 grid, four masked
cells labelled A-D.  A mask is uniform grey (160, 160, 160) with a large black
letter outlined in white; labels follow the reading order of the masked cells.
Image 2 is the original content of the masked cell whose label is the answer.
The masked cells are drawn among the sets whose cells are pairwise distinct
(mean absolute difference >= 8 grey levels), so the piece fits exactly one mask.
"""

from __future__ import annotations

from PIL import Image

from .. import geometry, prompts
from ..rng import ItemRNG
from ..spec import LETTERS
from .base import Context, Item, Task, TaskError, distinct_subsets

LEVELS = {"easy": (2, 2, prompts.PIECE_LOCALIZATION_EASY),
          "hard": (3, 4, prompts.PIECE_LOCALIZATION_HARD)}


def num_slots(level: str) -> int:
    return LEVELS[level][1]


def check(image: Image.Image, level: str) -> str | None:
    grid, masks, _ = LEVELS[level]
    if not distinct_subsets(geometry.split(image, grid, grid), masks):
        return f"piece_localization_{level}: no {masks} pairwise-distinct cells to mask"
    return None


def make_item(image: Image.Image, rng: ItemRNG, slot: int, level: str) -> Item:
    grid, masks, template = LEVELS[level]
    cells = geometry.split(image, grid, grid)
    subsets = distinct_subsets(cells, masks)
    if not subsets:
        raise TaskError(check(image, level))
    masked = rng.child("masked cells").choice(subsets)
    boxes = geometry.grid_boxes(image.size, grid, grid)
    board = image.copy()
    for letter, cell in zip(LETTERS, masked):
        geometry.fill(board, boxes[cell], geometry.MASK_GREY)
        geometry.draw_label(board, boxes[cell], letter)
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


TASKS = [_task("easy", "Piece Localization (easy): 2x2 grid, two masks"),
         _task("hard", "Piece Localization (hard): 3x3 grid, four masks")]
