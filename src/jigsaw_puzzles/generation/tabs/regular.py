"""Cuts whose outlines say nothing about the answer: the ``_tabs_content`` configs (content under a jigsaw cut).

Two classic die-cut patterns, drawn with one canonical tab (each size the middle of the jittered cut's range, the
tab centred on its edge, no lean) and without any random draw: a piece's outline is a function of the grid and the
cell size alone, never of the item's answer.

* ``congruent`` (every task but Anomaly Detection): every edge carries its tab on the same side, so every piece
  has tabs on its right and bottom sides and blanks on its left and top ones: one outline for all, the border
  pieces included. Any piece fits any other in any place, so the outlines cannot tell where a piece belongs.
* ``checkerboard`` (Anomaly Detection): pieces alternate between four tabs and four blanks, each tab centred and
  symmetric, so every piece is its own image turned by 180 degrees (by 90 on square cells) or mirrored either
  way: a turned or mirrored piece fills its place exactly as before, and the board's alpha does not change.

No side is flat: the grid is cut inside the photo with a ring of
:func:`~jigsaw_puzzles.geometry.tab_margin` pixels around it, so that an outer tab shows the photo's own pixels;
an outer blank belongs to a piece that is not shown. The board is the grid and that ring (transparent where no
piece lies).

**Exact by construction.** The canonical tab's region is scan-converted once per edge length at 4 x 4 samples per
pixel in the edge's own frame (:func:`.cut.inside_samples`, as the jittered cut does), its second half replaced
by its first half mirrored, and every side of every piece is that sample mask moved by whole pixels, flipped or
transposed. A sample belongs to one piece (the region swaps it across the edge); a pixel's alpha is its share of
16 samples, rounded down for one piece of a pair and up for the other (:data:`.cut._LO`, ``_HI``): the pieces
tile the grid exactly, two pieces of a pattern are the same array, and a checkerboard piece turned or mirrored is
itself, bit for bit (asserted for every cut made).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ... import geometry
from .cut import _HI, _LO, DIP, HEAD, HEIGHT, NECK, SHOULDER, SUPERSAMPLE, Edge, inside_samples
from .render import transformed

#: The canonical tab, as fractions of the shorter cell side: the middle of each range of the jittered cut.
TAB = {"neck": sum(NECK) / 2, "head": sum(HEAD) / 2, "height": sum(HEIGHT) / 2, "dip": sum(DIP) / 2,
       "shoulder": sum(SHOULDER) / 2}
PATTERNS = ("congruent", "checkerboard")
_S = SUPERSAMPLE


@lru_cache(maxsize=64)
def edge_mask(length: int, side: int) -> np.ndarray:
    """The canonical tab's region on an edge of ``length`` px (cells of shorter side ``side``), at sample
    resolution in the edge's frame: ``4 * length`` rows along the edge, ``8 * depth`` columns across it from
    ``-depth`` to ``depth`` px (:func:`depth`), the tab pointing to the larger columns. Symmetric along the edge
    exactly (read-only)."""
    d = depth(side)
    edge = Edge(0, 1, True, True, centre=length / 2, skew=0.0, **{k: v * side for k, v in TAB.items()})
    (left, top), inside = inside_samples(edge.curve((0, 0)))  # x: across the edge, y: along it
    out = np.zeros((_S * length, 2 * _S * d), bool)
    r0, c0 = _S * top, _S * (left + d)
    if r0 < 0 or c0 < 0 or r0 + inside.shape[0] > out.shape[0] or c0 + inside.shape[1] > out.shape[1]:
        raise AssertionError(f"the canonical tab leaves its zone on a {length} px edge")  # excluded by cut.py's bounds
    out[r0:r0 + inside.shape[0], c0:c0 + inside.shape[1]] = inside.astype(bool)
    half = _S * length // 2
    out[_S * length - half:] = out[:half][::-1]
    out.flags.writeable = False
    return out


def depth(side: int) -> int:
    """How far (px) a side's band reaches either way of its line: the tab's reach and its anti-aliased pixel."""
    return int(np.ceil(geometry.TAB_REACH * side)) + 1


class RegularCut:
    """A ``congruent`` or ``checkerboard`` cut of a ``rows x cols`` grid of ``cell`` = ``(width, height)`` px cells,
    with the interface the tasks use of :class:`.cut.Cut`: ``alpha(k)`` (piece ``k``'s alpha on its canvas),
    ``canvas_box(k)``, ``cell_boxes()``, ``board_alpha()``, ``margin``, ``size`` (the board: the grid and its ring,
    so a piece's canvas lies inside it) and ``metadata()``."""

    def __init__(self, rows: int, cols: int, cell: tuple[int, int], pattern: str):
        if pattern not in PATTERNS:
            raise ValueError(f"pattern is one of {PATTERNS}, not {pattern!r}")
        cw, ch = cell
        if min(cw, ch) < geometry.MIN_TAB_CELL:
            raise ValueError(f"{cw}x{ch} px cells are below the {geometry.MIN_TAB_CELL} px a tab needs")
        self.rows, self.cols, self.cell, self.pattern = rows, cols, (cw, ch), pattern
        self.margin = geometry.tab_margin(min(cw, ch))
        self.size = (cols * cw + 2 * self.margin, rows * ch + 2 * self.margin)
        self._templates: dict[int, np.ndarray] = {}

    def kind(self, k: int) -> int:
        """0: the pattern's first outline (congruent: the only one; checkerboard: four tabs), 1: four blanks."""
        return 0 if self.pattern == "congruent" else sum(divmod(k, self.cols)) % 2

    def alpha(self, k: int) -> np.ndarray:
        """Piece ``k``'s alpha on its canvas (uint8, a fresh array)."""
        kind = self.kind(k)
        if kind not in self._templates:
            self._templates[kind] = self._template(kind)
        return self._templates[kind].copy()

    def alphas(self) -> list[np.ndarray]:
        return [self.alpha(k) for k in range(self.rows * self.cols)]

    def canvas_box(self, k: int) -> tuple[int, int, int, int]:
        """Piece ``k``'s canvas on the board ``(left, top, right, bottom)``: its cell and the margin around it."""
        (cw, ch), m = self.cell, self.margin
        r, c = divmod(k, self.cols)
        return c * cw, r * ch, (c + 1) * cw + 2 * m, (r + 1) * ch + 2 * m

    def cell_boxes(self) -> list[tuple[int, int, int, int]]:
        """Every cell's box on the board, row by row (inside the ring)."""
        (cw, ch), m = self.cell, self.margin
        return [(m + c * cw, m + r * ch, m + (c + 1) * cw, m + (r + 1) * ch)
                for r in range(self.rows) for c in range(self.cols)]

    def board_alpha(self) -> np.ndarray:
        """The pieces laid in place: the board's alpha (opaque over the grid but for outer blanks, the outer tabs in
        the ring, transparent elsewhere): the same for every item of a grid and cell size."""
        total = np.zeros(self.size[::-1], np.int32)
        for k in range(self.rows * self.cols):
            left, top, right, bottom = self.canvas_box(k)
            total[top:bottom, left:right] += self.alpha(k)
        if total.max() > 255:
            raise AssertionError("the pieces of a regular cut overlap")  # excluded by construction
        return total.astype(np.uint8)

    def metadata(self) -> dict:
        return {"tab_margin": self.margin, "pattern": self.pattern}

    def _template(self, kind: int) -> np.ndarray:
        """The alpha of a piece of ``kind``: its cell's samples, each side's tab region swapped across the side's
        line (a tab side: the tab pointing out; a blank side: the neighbour's tab pointing in), rounded as the
        lower-numbered piece of each pair (congruent: right and bottom; checkerboard: the four-tab piece)."""
        (cw, ch), m = self.cell, self.margin
        side, d = min(cw, ch), depth(min(cw, ch))
        height, width = ch + 2 * m, cw + 2 * m
        own = np.zeros((_S * height, _S * width), bool)
        own[_S * m:_S * (m + ch), _S * m:_S * (m + cw)] = True
        lower = np.zeros((height, width), bool)
        for name in ("top", "right", "bottom", "left"):
            tab = kind == 0 and (self.pattern == "checkerboard" or name in ("right", "bottom"))
            mask = edge_mask(ch if name in ("left", "right") else cw, side)
            out = mask if tab else mask[:, ::-1]  # v pointing out of the piece
            if name == "right":
                rows, cols, region = slice(m, m + ch), slice(m + cw - d, m + cw + d), out
            elif name == "left":
                rows, cols, region = slice(m, m + ch), slice(m - d, m + d), out[:, ::-1]
            elif name == "bottom":
                rows, cols, region = slice(m + ch - d, m + ch + d), slice(m, m + cw), out.T
            else:
                rows, cols, region = slice(m - d, m + d), slice(m, m + cw), out[:, ::-1].T
            own[_S * rows.start:_S * rows.stop, _S * cols.start:_S * cols.stop] ^= region
            lower[rows, cols] = tab
        counts = own.reshape(height, _S, width, _S).sum(axis=(1, 3))
        alpha = np.where(lower, _LO[counts], _HI[counts]).astype(np.uint8)
        if self.pattern == "checkerboard":  # a turned or mirrored piece is itself, bit for bit
            for name in geometry.ROTATIONS + geometry.MIRRORS:
                if geometry.shape_preserving(name, (cw, ch)) and not np.array_equal(transformed(alpha, name), alpha):
                    raise AssertionError(f"a checkerboard piece changes under {name}")  # excluded by construction
        return alpha


def content_cells(width: int, height: int, rows: int, cols: int) -> tuple[int, int] | None:
    """The largest cells whose grid, with a ring of :func:`~jigsaw_puzzles.geometry.tab_margin` around it, fits a
    ``width x height`` photo (for each ring ``m`` from 0 up, the cells ``(width - 2m) // cols`` by ``(height - 2m)
    // rows``, until their own margin is at most ``m``); ``None`` below ``geometry.MIN_TAB_CELL``."""
    for m in range(min(width, height)):
        cw, ch = (width - 2 * m) // cols, (height - 2 * m) // rows
        if min(cw, ch) < geometry.MIN_TAB_CELL:
            return None
        if geometry.tab_margin(min(cw, ch)) <= m:
            return cw, ch
    return None
