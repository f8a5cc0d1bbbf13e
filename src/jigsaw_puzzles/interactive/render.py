"""The board image of the interactive jigsaw: what a model sees after each action.

Two boards, one per cut, each a pure function of the puzzle and the state (``board[j]``: the piece at position
``j``; ``turns[j]``: its clockwise turn), byte-identical for the same puzzle and the same actions:

* Straight pieces (:class:`StraightBoard`): each cell under a dark strip with its position number, on a grid with
  :data:`GUTTER`-pixel white gutters, so no label covers a pixel of a piece (:func:`pieces_of` cuts them back out).
* Interlocking pieces (``_tabs``, ``_tabs_silhouette``; :class:`ShapedBoard`): the pieces laid edge to edge, as on a
  table, each piece's RGBA canvas at its position (its tabs reaching into the neighbouring cells, and past the
  picture's border into a white frame as wide as the canvas margin). The pieces are summed by their alphas
  (:func:`jigsaw_puzzles.generation.tabs.assemble`): where every piece fits its neighbours the alphas sum to 255 at
  every pixel and the board *is* the photograph, to the byte; a piece in the wrong place visibly does not fit:
  a blank that no tab fills shows the white paper, and a tab that lands on a neighbour's body shows the two
  overlapping, darker. Silhouettes (flat grey pieces) also get each piece's outline drawn, so that a piece shows
  where it ends even where it fits. Each position's number sits in a small dark tag at its cell's centre, where
  no tab or blank reaches (a tab reaches :data:`~jigsaw_puzzles.geometry.TAB_REACH` of the shorter cell side ``s``
  into a cell, which leaves ``s - 2 ceil(0.22 s) >= 26`` px free across the middle of a cell of at least
  :data:`~jigsaw_puzzles.geometry.MIN_TAB_CELL` px, and a tag is at most 23 x 18 px), so a tag covers the middle
  of the piece placed there, never its outline, and never the cell's corners and edges, which carry the seams.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from .. import geometry
from ..generation import tabs

#: A :class:`.core.Puzzle` (core imports this module, so the type is not imported here).
_Puzzle = Any
#: Pixels between two cells of a straight board.
GUTTER = 4
#: Height of the strip above each cell of a straight board that carries its position number (and the largest tag
#: of a shaped board).
LABEL = 18
_BACKGROUND = (255, 255, 255)
_STRIP = (32, 32, 32)
_TRANSPOSE = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}


def board_size(puzzle: _Puzzle) -> tuple[int, int]:
    """``(width, height)`` of the rendered board."""
    if puzzle.shaped:
        cw, ch, m = geometry.tab_cell(puzzle.pieces[0].size)
        return puzzle.cols * cw + 2 * m, puzzle.rows * ch + 2 * m
    cw, ch = puzzle.pieces[0].size
    return puzzle.cols * cw + (puzzle.cols - 1) * GUTTER, puzzle.rows * (ch + LABEL) + (puzzle.rows - 1) * GUTTER


def cell_boxes(size: tuple[int, int], rows: int, cols: int, shaped: bool = False) -> list[tuple[int, int, int, int]]:
    """The boxes of the cells (no label strip) of a rendered board of ``size``, row by row (public: what a reader
    of the board needs to cut it). ``shaped``: a board of interlocking pieces, whose cells lie edge to edge inside
    a frame of the canvas margin (:func:`shaped_geometry`)."""
    if shaped:
        cw, ch, m = shaped_geometry(size, rows, cols)
        return [(m + c * cw, m + r * ch, m + (c + 1) * cw, m + (r + 1) * ch) for r in range(rows) for c in range(cols)]
    cw = (size[0] - (cols - 1) * GUTTER) // cols
    ch = (size[1] - (rows - 1) * GUTTER) // rows - LABEL
    return [(c * (cw + GUTTER), r * (ch + LABEL + GUTTER) + LABEL, c * (cw + GUTTER) + cw,
             r * (ch + LABEL + GUTTER) + LABEL + ch) for r in range(rows) for c in range(cols)]


def shaped_geometry(size: tuple[int, int], rows: int, cols: int) -> tuple[int, int, int]:
    """``(cell width, cell height, frame)`` of a board of interlocking pieces of ``size``: the one solution of
    ``width = cols * cw + 2 m``, ``height = rows * ch + 2 m`` with ``m = tab_margin(min(cw, ch))`` (the margin
    grows with the cell, so at most one ``m`` fits); ``ValueError`` for a size no such board has."""
    width, height = size
    for m in range(1, min(width, height) // 2):
        cw, cw_rest = divmod(width - 2 * m, cols)
        ch, ch_rest = divmod(height - 2 * m, rows)
        if not cw_rest and not ch_rest and min(cw, ch) > 0 and geometry.tab_margin(min(cw, ch)) == m:
            return cw, ch, m
    raise ValueError(f"{width}x{height} is not the board of a {rows}x{cols} puzzle of interlocking pieces")


def pieces_of(board: Image.Image, rows: int, cols: int, shaped: bool = False) -> list[Image.Image]:
    """The cells of a rendered board, row by row (what a reader of the observation cuts; on a shaped board, the
    square each position's cell covers, with what lies on it)."""
    return [board.crop(box) for box in cell_boxes(board.size, rows, cols, shaped)]


def board(puzzle: _Puzzle) -> "StraightBoard | ShapedBoard":
    """The renderer of ``puzzle``'s board."""
    return ShapedBoard(puzzle) if puzzle.shaped else StraightBoard(puzzle)


class StraightBoard:
    """The board of straight pieces: the numbered template, one paste per cell."""

    def __init__(self, puzzle: _Puzzle):
        self.puzzle = puzzle
        self.blank = self._template()
        self.size = self.blank.size
        self.boxes = cell_boxes(self.size, puzzle.rows, puzzle.cols)
        self._turned: dict[tuple[int, int], Image.Image] = {}
        self._arrays: dict | None = None

    def _template(self) -> Image.Image:
        """The board without pieces: white gutters and the numbered strips."""
        p = self.puzzle
        image = Image.new("RGB", board_size(p), _BACKGROUND)
        draw = ImageDraw.Draw(image)
        font = geometry._font(LABEL - 4)
        for j, (left, top, right, _) in enumerate(cell_boxes(image.size, p.rows, p.cols)):
            draw.rectangle((left, top - LABEL, right - 1, top - 1), fill=_STRIP)
            draw.text(((left + right) / 2, top - LABEL / 2), str(j + 1), fill=(255, 255, 255), font=font, anchor="mm")
        return image

    def piece(self, piece: int, degrees: int) -> Image.Image:
        if degrees == 0:
            return self.puzzle.pieces[piece]
        key = (piece, degrees)
        if key not in self._turned:
            self._turned[key] = self.puzzle.pieces[piece].transpose(_TRANSPOSE[degrees])
        return self._turned[key]

    def render(self, board: list[int], turns: list[int]) -> Image.Image:
        """The board as it stands (a new image each call)."""
        image = self.blank.copy()
        for j, box in enumerate(self.boxes):
            image.paste(self.piece(board[j], turns[j]), box[:2])
        return image

    def render_into(self, canvas: np.ndarray, board: list[int], turns: list[int]) -> None:
        """Draw the board into the top-left corner of ``canvas`` (uint8 ``(H, W, 3)``), pixel for pixel what
        :meth:`render` draws, without a PIL round trip (the Gym face)."""
        if self._arrays is None:
            self._arrays = {"blank": np.asarray(self.blank, dtype=np.uint8)}
        width, height = self.size
        canvas[:height, :width] = self._arrays["blank"]
        for j, (left, top, right, bottom) in enumerate(self.boxes):
            key = (board[j], turns[j])
            if key not in self._arrays:
                self._arrays[key] = np.asarray(self.piece(*key), dtype=np.uint8)
            canvas[top:bottom, left:right] = self._arrays[key]


class ShapedBoard:
    """The board of interlocking pieces (see the module doc): canvases summed by their alphas, then the tags."""

    def __init__(self, puzzle: _Puzzle):
        self.puzzle = puzzle
        width, height = puzzle.pieces[0].size
        cw, ch, m = geometry.tab_cell((width, height))
        self.cell, self.margin = (cw, ch), m
        self.size = board_size(puzzle)
        # piece j's canvas on the board: its cell at (m + c cw, m + r ch), the canvas m further out
        self.boxes = [(c * cw, r * ch, c * cw + width, r * ch + height)
                      for r in range(puzzle.rows) for c in range(puzzle.cols)]
        self.outline = puzzle.cut == "silhouette"
        self._layers: dict[tuple[int, int], tabs.Layer] = {}
        self._tags = self._make_tags()
        # the positions whose canvases meet position j's canvas (every piece that can show inside it)
        self._near = [[k for k, other in enumerate(self.boxes) if _meet(box, other)] for box in self.boxes]
        self._shown: list[tuple[int, int]] | None = None  # the (piece, turn) drawn at each position
        self._pixels: np.ndarray | None = None

    def _make_tags(self) -> list[tuple[tuple[slice, slice], np.ndarray]]:
        """Each position's tag: where it goes on the board and its pixels (a dark square, the number in white)."""
        width = LABEL + (5 if self.puzzle.n >= 10 else 0)  # two digits: a wider tag (23 px: see the module doc)
        font = geometry._font(LABEL - 4)
        out = []
        for j, (left, top, right, bottom) in enumerate(
                cell_boxes(self.size, self.puzzle.rows, self.puzzle.cols, shaped=True)):
            tag = Image.new("RGB", (width, LABEL), _STRIP)
            ImageDraw.Draw(tag).text((width / 2, LABEL / 2), str(j + 1), fill=(255, 255, 255), font=font, anchor="mm")
            x, y = (left + right - width) // 2, (top + bottom - LABEL) // 2
            out.append(((slice(y, y + LABEL), slice(x, x + width)), np.asarray(tag.convert("RGBX"), dtype=np.uint8)))
        return out

    def layer(self, piece: int, degrees: int) -> "tabs.Layer":
        """Piece ``piece`` turned clockwise by ``degrees``, ready to sum (cached)."""
        key = (piece, degrees)
        if key not in self._layers:
            canvas = np.asarray(self.puzzle.pieces[piece].convert("RGBA"), dtype=np.uint8)
            self._layers[key] = tabs.Layer(np.rot90(canvas, -(degrees // 90)), self.outline)
        return self._layers[key]

    def _compose(self, region: tuple[int, int, int, int], keys: list[tuple[int, int]], near) -> np.ndarray:
        """The board's pixels in ``region`` (before the tags), from the canvases of the positions ``near`` (every
        position whose canvas meets the region)."""
        left, top, right, bottom = region
        layers = []
        for k in near:
            x0, y0, x1, y1 = self.boxes[k]
            layers.append((self.layer(*keys[k]), (x0 - left, y0 - top, x1 - left, y1 - top)))
        return tabs.assemble(layers, (right - left, bottom - top), rgbx=True)

    def _draw(self, board: list[int], turns: list[int]) -> np.ndarray:
        """The board as it stands, RGBX (the board's own buffer: read it, never keep it). A step redraws only the
        canvases of the positions whose piece changed (with what lies under them): the same bytes as drawing it
        all again."""
        keys = list(zip(board, turns))
        width, height = self.size
        if self._shown is None:
            self._pixels = self._compose((0, 0, width, height), keys, range(len(keys)))
            changed: list[int] = []
        else:
            changed = [j for j, key in enumerate(keys) if key != self._shown[j]]
        for j in changed:
            left, top, right, bottom = self.boxes[j]
            region = (max(left, 0), max(top, 0), min(right, width), min(bottom, height))
            self._pixels[region[1]:region[3], region[0]:region[2]] = self._compose(region, keys, self._near[j])
        if self._shown is None or changed:
            for where, pixels in self._tags:
                self._pixels[where] = pixels
        self._shown = keys
        return self._pixels

    def render(self, board: list[int], turns: list[int]) -> Image.Image:
        """The board as it stands (a new image each call)."""
        return Image.frombytes("RGB", self.size, self._draw(board, turns).tobytes(), "raw", "RGBX")

    def array(self, board: list[int], turns: list[int]) -> np.ndarray:
        """The board as a uint8 ``(H, W, 3)`` array (a new one each call)."""
        return np.asarray(self.render(board, turns))

    def render_into(self, canvas: np.ndarray, board: list[int], turns: list[int]) -> None:
        """Draw the board into the top-left corner of ``canvas`` (uint8 ``(H, W, 3)``): what :meth:`render` draws."""
        width, height = self.size
        canvas[:height, :width] = self.array(board, turns)


def _meet(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
