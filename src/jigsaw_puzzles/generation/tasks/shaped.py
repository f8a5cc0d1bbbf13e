"""What every task's interlocking-piece configs share (``<config>_tabs``, ``_tabs_silhouette``, ``_tabs_content``).

A tab config makes the items of its straight config (one family: the same shuffle, region, masks, pair or
transform, the same answer plan) with shaped pieces: each piece is its cell plus its tabs minus its blanks, an
RGBA image on a canvas the cell plus :func:`~jigsaw_puzzles.geometry.tab_margin` on every side
(:mod:`jigsaw_puzzles.generation.tabs`). It takes the photos its straight config takes whose cells carry a tab
(:data:`~jigsaw_puzzles.geometry.MIN_TAB_CELL` px). The cut comes from the item's RNG (``rng.child("cut", 0)``);
where a rule on the outline fails (a silhouette whose outline alone does not make the answer unique, a turned
piece whose outline barely changes), the cut is re-drawn from ``rng.child("cut", 1)``, ... up to
:data:`MAX_REDRAWS` times, and ``cut_redraws`` in the metadata says how many draws were refused. The rules
depend on the cut alone, never on the answer slot, so the builder's probe item stands for every slot.

A content config (``_tabs_content``) cuts the same puzzle with a :class:`~..tabs.RegularCut` (congruent; Anomaly
Detection: checkerboard), drawn from nothing random: its grid lies inside the photo with a ring of the tab margin
around it (:func:`content`), and the straight item is made from that grid (:func:`content_check` checks it).
"""

from __future__ import annotations

import re
from typing import Callable

import numpy as np
from PIL import Image

from ... import prompts
from ...geometry import MIN_TAB_CELL, tab_margin
from ...rng import ItemRNG
from ...spec import get as get_spec
from ..tabs import Cut, RegularCut, image, piece
from ..tabs.regular import content_cells
from .base import TaskError

#: Cuts drawn for one item before it is skipped.
MAX_REDRAWS = 32
#: Two outlines (or two sides laid together) count as different when they differ on at least this many pixels
#: of area (alpha differences summed, in units of 255): they are not the same shape up to anti-aliasing, so the
#: exact outline tells them apart. How much more they differ is recorded (``outline_margin``).
MIN_MISFIT_PX = 4.0
#: A turned or mirrored piece's outline changes visibly: on at least this share of its cell's area (0.5%: 50 px
#: of a 100 x 100 cell, a 1-2 px sliver along a tab).
MIN_OUTLINE_CHANGE = 0.005


def straight(config: str) -> str:
    """The straight config a tab config cuts differently (``order_generation_3x3_tabs`` -> ``..._3x3``)."""
    return re.sub(r"_tabs(_own)?(_silhouette|_content)?$", "", get_spec(config).name)


def cut_cells(image_in: Image.Image, rows: int, cols: int, square: bool = False) -> tuple[np.ndarray, tuple[int, int]]:
    """The photo cropped at its right and bottom edge to the grid (square cells when ``square``), as an RGB
    array, and the cell size; ``TaskError`` when a cell is smaller than :data:`MIN_TAB_CELL`."""
    cw, ch = image_in.width // cols, image_in.height // rows
    if square:
        cw = ch = min(cw, ch)
    if min(cw, ch) < MIN_TAB_CELL:
        raise TaskError(f"a {rows}x{cols} grid of this {image_in.width}x{image_in.height} image has {cw}x{ch} px "
                        f"cells, below the {MIN_TAB_CELL} px an interlocking piece needs")
    return np.asarray(image_in.convert("RGB"))[:ch * rows, :cw * cols], (cw, ch)


def size_reason(image_in: Image.Image, rows: int, cols: int, square: bool = False) -> str | None:
    try:
        cut_cells(image_in, rows, cols, square)
    except TaskError as err:
        return str(err)
    return None


def check(straight_check: Callable[[Image.Image], str | None], rows: int, cols: int, square: bool = False):
    """A tab config's check: its straight config's, then the cell size."""
    return lambda image_in: straight_check(image_in) or size_reason(image_in, rows, cols, square)


def draw_cut(rng: ItemRNG, rows: int, cols: int, cell: tuple[int, int],
             rule: Callable[..., str | None] | None = None, attempts: bool = False) -> tuple[Cut, int]:
    """``(cut, redraws)``: the first cut of ``rng.child("cut", i)`` that ``rule`` accepts (``None``; ``attempts``:
    the rule is called ``rule(cut, i)``); ``TaskError`` with the last reason after :data:`MAX_REDRAWS` draws."""
    reason = None
    for attempt in range(MAX_REDRAWS):
        cut = Cut.draw(rng.child("cut", attempt), rows, cols, cell)
        reason = None if rule is None else rule(cut, attempt) if attempts else rule(cut)
        if reason is None:
            return cut, attempt
    raise TaskError(f"no cut of {MAX_REDRAWS} draws passes: {reason}")


def pieces(photo: np.ndarray, cut: Cut, silhouette: bool) -> list[np.ndarray]:
    """Every piece's RGBA canvas, row by row."""
    return [piece(photo, cut, k, silhouette=silhouette) for k in range(cut.rows * cut.cols)]


def images(arrays) -> list[Image.Image]:
    return [image(a) for a in arrays]


def words(cut: str) -> str:
    """How a task's summary names the cut's pieces."""
    return {"silhouette": "silhouettes of interlocking pieces",
            "content": "interlocking pieces whose outlines say nothing of the answer"}.get(cut, "interlocking pieces")


def question(text: str, silhouette: bool) -> str:
    """The straight config's question with the one sentence on shaped pieces (:data:`prompts.TABS_NOTE`)."""
    return prompts.with_tabs(text, silhouette)


def metadata(cut: Cut, silhouette: bool, redraws: int, **extra) -> dict:
    return {"cut": "silhouette" if silhouette else "tabs", "cut_redraws": redraws, **cut.metadata(), **extra}


def layout_margin(cut: Cut) -> float:
    """The smallest misfit (pixels of area) of two sides that do not belong together: laid side by side, any
    other piece's side leaves at least this much gap or overlap (a flat side never fits inside the picture)."""
    from ...baselines.outline import misfits

    H, V = misfits(cut.alphas())
    cols, n = cut.cols, cut.rows * cut.cols
    for i in range(n):  # the true neighbours fit exactly: leave them out
        if i % cols < cols - 1:
            H[i, i + 1] = np.inf
        if i + cols < n:
            V[i, i + cols] = np.inf
    return float(min(H.min(), V.min()) * cut.cell[0] * cut.cell[1])


def unique_layout(cut: Cut) -> str | None:
    """Why the outlines alone do not fix every piece's neighbours (``None`` when they do): two sides that do not
    belong together differ by less than :data:`MIN_MISFIT_PX`. Otherwise every layout but the true one has a
    seam that misfits, while the true one fits exactly: the order, and which pieces are neighbours in which
    direction, follow from the shapes alone."""
    margin = layout_margin(cut)
    return None if margin >= MIN_MISFIT_PX else \
        f"two sides that are not neighbours fit by their outlines alone (misfit {margin:.1f} px)"


def layout_cut(rng: ItemRNG, rows: int, cols: int, cell: tuple[int, int], silhouette: bool) -> tuple[Cut, dict]:
    """The cut of an order or Connection Verification item and its metadata: a silhouette's is re-drawn until
    the outlines alone fix the layout (:func:`unique_layout`), its ``outline_margin`` recorded."""
    cut, redraws = draw_cut(rng, rows, cols, cell, unique_layout if silhouette else None)
    extra = {"outline_margin": round(layout_margin(cut), 1)} if silhouette else {}
    return cut, metadata(cut, silhouette, redraws, **extra)


# ------------------------------------------------------------------------------------ content under a jigsaw cut
def content(image_in: Image.Image, rows: int, cols: int, pattern: str = "congruent"):
    """``(photo, grid, cut, metadata)`` of a content config: the photo's region that the grid and its ring cover
    (an RGB array, cropped at the right and bottom), the grid as an image (what the straight item is made from),
    the :class:`~..tabs.RegularCut` and the item's cut metadata; ``TaskError`` for cells below
    :data:`MIN_TAB_CELL`."""
    grid, cell, margin = content_grid(image_in, rows, cols)
    cut = RegularCut(rows, cols, cell, pattern)
    photo = np.asarray(image_in.convert("RGB"))[:cut.size[1], :cut.size[0]]
    return photo, grid, cut, {"cut": "content", "cut_redraws": 0, **cut.metadata()}


def content_grid(image_in: Image.Image, rows: int, cols: int) -> tuple[Image.Image, tuple[int, int], int]:
    """``(grid image, cell, margin)``: the grid a content config cuts inside ``image_in``."""
    cell = content_cells(image_in.width, image_in.height, rows, cols)
    if cell is None:
        raise TaskError(f"a {rows}x{cols} grid with a ring for its outer tabs leaves this {image_in.width}x"
                        f"{image_in.height} image cells below the {MIN_TAB_CELL} px an interlocking piece needs")
    (cw, ch), m = cell, tab_margin(min(cell))
    return image_in.crop((m, m, m + cols * cw, m + rows * ch)), cell, m


def content_check(straight_check: Callable[[Image.Image], str | None], rows: int, cols: int):
    """A content config's check: the cell size, then its straight config's check on the grid it cuts."""
    def check_content(image_in: Image.Image) -> str | None:
        try:
            grid = content_grid(image_in, rows, cols)[0]
        except TaskError as err:
            return str(err)
        return straight_check(grid)
    return check_content
