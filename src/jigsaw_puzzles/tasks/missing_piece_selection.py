"""Task 1, Missing Piece Selection: which of four candidates fills the white blank?

The missing region is one cell of the source's 3x3 grid, blanked pure white.
Distractors are cells of the 3x3 grids of *other* sources (the candidate pool),
resized to the blank's size when their size differs.  A candidate closer than 8
grey levels (mean absolute difference) to the truth or to another distractor is
never used.  Easy draws them at random.  Hard takes the most CLIP-similar pool
cells by cosine similarity (ties: smaller region id), excluding near-duplicates
(cosine > 0.95); the default model is open_clip ``ViT-B-32`` with the original
``openai`` weights, because the paper cites the original CLIP (Radford et al.,
2021) and names no variant (see ``clip_mining``).  Easy
and hard share the region, the answer letter and everything else but the
distractors, because both derive their randomness from the key
``missing_piece_selection``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from PIL import Image

from .. import geometry, prompts
from ..rng import ItemRNG
from .base import MIN_DISTINCT, Item, TaskError

NUM_SLOTS = 4
GRID = 3
NUM_DISTRACTORS = 3
RNG_KEY = "missing_piece_selection"


@dataclass
class Distractor:
    source_id: str
    cell: int
    patch: Image.Image
    similarity: float | None = None


PatchGetter = Callable[[str, int, tuple[int, int]], Image.Image]


def check(image: Image.Image) -> str | None:
    return None  # every 3x3 cell is textured by curation; distractors are checked when drawn


def choose_region(rng: ItemRNG) -> int:
    return rng.child("region").randbelow(GRID * GRID)


def cell_patch(image: Image.Image, cell: int, size: tuple[int, int] | None = None) -> Image.Image:
    """Cell ``cell`` of the 3x3 grid, resized to ``size`` (Lanczos) when it differs."""
    patch = image.crop(geometry.grid_boxes(image.size, GRID, GRID)[cell])
    if size is not None and patch.size != tuple(size):
        patch = patch.resize(tuple(size), Image.Resampling.LANCZOS)
    return patch


def acceptable(patch: Image.Image, truth: Image.Image, chosen: Sequence[Distractor]) -> bool:
    """Not a (near-)copy of the true patch nor of a distractor already chosen."""
    return (geometry.mean_abs_diff(patch, truth) >= MIN_DISTINCT
            and all(geometry.mean_abs_diff(patch, d.patch) >= MIN_DISTINCT for d in chosen))


def random_distractors(rng: ItemRNG, source_id: str, pool_ids: Sequence[str], truth: Image.Image,
                       get_patch: PatchGetter) -> list[Distractor]:
    """Three random cells of three distinct other sources (easy difficulty)."""
    others = sorted(s for s in pool_ids if s != source_id)
    if len(others) < NUM_DISTRACTORS:
        raise TaskError(f"missing_piece_selection needs at least {NUM_DISTRACTORS + 1} accepted sources")
    draw = rng.child("random distractors")
    chosen: list[Distractor] = []
    tried: set[int] = set()
    while len(chosen) < NUM_DISTRACTORS and len(tried) < len(others):
        index = draw.randbelow(len(others))
        if index in tried:
            continue
        tried.add(index)
        cell = draw.randbelow(GRID * GRID)
        patch = get_patch(others[index], cell, truth.size)
        if acceptable(patch, truth, chosen):
            chosen.append(Distractor(others[index], cell, patch))
    if len(chosen) < NUM_DISTRACTORS:
        raise TaskError("missing_piece_selection: fewer than 3 distinct distractors in the pool")
    return chosen


def chosen_distractors(candidates: Sequence[tuple[str, int, float]], truth: Image.Image,
                       get_patch: PatchGetter) -> list[Distractor]:
    """The first three mined candidates ``(source_id, cell, similarity)``, most similar first,
    that pass the same pixel rule as random ones (hard difficulty)."""
    chosen: list[Distractor] = []
    for source_id, cell, similarity in candidates:
        patch = get_patch(source_id, cell, truth.size)
        if acceptable(patch, truth, chosen):
            chosen.append(Distractor(source_id, cell, patch, similarity))
            if len(chosen) == NUM_DISTRACTORS:
                return chosen
    raise TaskError("missing_piece_selection_hard: fewer than 3 mined candidates pass the pixel rule")


def make_item(image: Image.Image, rng: ItemRNG, slot: int, region: int,
              distractors: Sequence[Distractor], difficulty: str) -> Item:
    box = geometry.grid_boxes(image.size, GRID, GRID)[region]
    truth = image.crop(box)
    blanked = image.copy()
    geometry.fill(blanked, box, geometry.WHITE)
    candidates = [d.patch for d in distractors]
    candidates.insert(slot, truth)
    options = list(prompts.MISSING_PIECE_OPTIONS)
    return Item(
        images=[blanked] + candidates,
        question=prompts.MISSING_PIECE_SELECTION.format(options=prompts.option_lines(options)),
        options=options,
        answer=prompts.LETTERS[slot],
        metadata={
            "grid": [GRID, GRID], "region": region, "box": list(box), "difficulty": difficulty,
            "distractors": [{"source_id": d.source_id, "cell": d.cell,
                             "similarity": d.similarity} for d in distractors],
        },
    )
