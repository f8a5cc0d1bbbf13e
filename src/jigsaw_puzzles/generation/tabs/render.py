"""Drawing with a :class:`~.cut.Cut`: shaped pieces, and boards (the assembled picture, with a hole, masks or a
piece turned).

Images are RGBA; a pixel no piece covers is transparent and stored white, so a reader that drops the alpha sees
white paper. A piece's visible pixels are the photo's own pixels inside its outline (or flat grey in a
silhouette), never anything from outside it. Integer arithmetic throughout: the same bytes on every machine.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from .cut import Cut

#: Silhouette pieces are flat grey; silhouette boards draw the cut lines darker (shape only, no content).
SILHOUETTE_GREY = (120, 120, 120)
LINE = (40, 40, 40)
WHITE = (255, 255, 255)


def crop(picture: np.ndarray, box: tuple[int, int, int, int], fill: int = 255) -> np.ndarray:
    """``picture[box]`` with what lies outside the picture filled with ``fill``."""
    left, top, right, bottom = box
    out = np.full((bottom - top, right - left) + picture.shape[2:], fill, dtype=picture.dtype)
    y0, x0 = max(top, 0), max(left, 0)
    y1, x1 = min(bottom, picture.shape[0]), min(right, picture.shape[1])
    if y1 > y0 and x1 > x0:
        out[y0 - top:y1 - top, x0 - left:x1 - left] = picture[y0:y1, x0:x1]
    return out


def rgba(rgb: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """An RGBA array: ``rgb`` where ``alpha`` > 0, white where a pixel is transparent."""
    out = np.empty(alpha.shape + (4,), np.uint8)
    out[..., :3] = rgb
    out[..., 3] = alpha
    clear = alpha == 0
    for channel in range(3):  # per channel: a 2-D mask on a 2-D view is several times faster than on 3-D
        out[..., channel][clear] = 255
    return out


def piece(photo: np.ndarray, cut: Cut, k: int, alpha: np.ndarray | None = None, silhouette: bool = False,
          ) -> np.ndarray:
    """Piece ``k`` on its canvas (RGBA array): the photo's pixels (or flat grey) inside its outline."""
    alpha = cut.alpha(k) if alpha is None else alpha
    if silhouette:
        rgb = np.broadcast_to(np.array(SILHOUETTE_GREY, np.uint8), alpha.shape + (3,))
    else:
        rgb = crop(photo, cut.canvas_box(k))
    return rgba(rgb, alpha)


def image(array: np.ndarray) -> Image.Image:
    return Image.fromarray(np.ascontiguousarray(array), "RGBA")


def labels(cut: Cut) -> np.ndarray:
    """The piece that holds most of each pixel's samples (ties: the lower-numbered one)."""
    base = cut.base_labels(0, 0, *cut.size)
    other = cut.other.astype(np.int64)
    takes = (other >= 0) & ((cut.shared > 8) | ((cut.shared == 8) & (other < base)))
    return np.where(takes, other, base)


def cut_lines(cut: Cut) -> np.ndarray:
    """The cut lines: pixels shared by two pieces, or whose right or lower neighbour belongs to another piece."""
    lab = labels(cut)
    line = (cut.other >= 0) & (cut.shared > 0) & (cut.shared < 16)
    line[:, :-1] |= lab[:, :-1] != lab[:, 1:]
    line[:-1, :] |= lab[:-1, :] != lab[1:, :]
    return line


def board(photo: np.ndarray, cut: Cut, silhouette: bool = False) -> np.ndarray:
    """The assembled picture (RGBA): the photo itself where the pieces lie (their alphas sum to 255 over the
    picture; a :class:`~.regular.RegularCut`'s board adds the ring its outer tabs reach into), or for a silhouette
    the flat grey pieces with the cut lines drawn."""
    height, width = cut.size[1], cut.size[0]
    if not silhouette:
        return rgba(photo[:height, :width], cut.board_alpha())
    rgb = np.empty((height, width, 3), np.uint8)
    rgb[:] = SILHOUETTE_GREY
    rgb[cut_lines(cut)] = LINE
    return rgba(rgb, np.full((height, width), 255, np.uint8))


def ring(alpha: np.ndarray) -> np.ndarray:
    """A shape's outline: its pixels that are partly covered or touch (4-neighbourhood) a pixel it does not
    fully cover."""
    full = alpha == 255
    inner = full.copy()
    inner[1:, :] &= full[:-1, :]
    inner[:-1, :] &= full[1:, :]
    inner[:, 1:] &= full[:, :-1]
    inner[:, :-1] &= full[:, 1:]
    inner[0, :] = inner[-1, :] = False
    inner[:, 0] = inner[:, -1] = False
    return (alpha > 0) & ~inner


def _region(board_array: np.ndarray, box) -> tuple[tuple[slice, slice], tuple[slice, slice]]:
    """Slices of ``box`` clipped to the board, and the matching slices of a canvas of ``box``'s size."""
    left, top, right, bottom = box
    height, width = board_array.shape[:2]
    y0, x0, y1, x1 = max(top, 0), max(left, 0), min(bottom, height), min(right, width)
    return (slice(y0, y1), slice(x0, x1)), (slice(y0 - top, y1 - top), slice(x0 - left, x1 - left))


def remove(board_array: np.ndarray, alpha: np.ndarray, box) -> None:
    """Take a piece of alpha ``alpha`` on canvas ``box`` out of the board, in place (its pixels' alphas drop by
    the piece's share: a hole of exactly its outline)."""
    dst, src = _region(board_array, box)
    a = board_array[dst][..., 3].astype(np.int64) - alpha[src]
    board_array[dst + (3,)] = np.clip(a, 0, 255).astype(np.uint8)
    board_array[dst][board_array[dst][..., 3] == 0] = (255, 255, 255, 0)


def add(board_array: np.ndarray, layer: np.ndarray, box) -> None:
    """Lay an RGBA canvas ``layer`` at ``box`` into the board where it fits, in place: the alphas add up (a piece
    laid back into its own hole, or one of the same outline), the colour their alpha-weighted mean (integer
    arithmetic, rounded to nearest); ``ValueError`` where they would pass 255 (an overlap)."""
    dst, src = _region(board_array, box)
    target, above = board_array[dst], layer[src].astype(np.int32)
    below = target.astype(np.int32)
    total = below[..., 3:] + above[..., 3:]
    if total.max(initial=0) > 255:
        raise ValueError("the layer overlaps the board: it does not fit its hole")
    mixed = (below[..., :3] * below[..., 3:] + above[..., :3] * above[..., 3:] + total // 2) // np.maximum(total, 1)
    target[..., :3] = np.where(total > 0, mixed, 255)
    target[..., 3:] = total


def over(board_array: np.ndarray, top_layer: np.ndarray, box) -> None:
    """Composite an RGBA canvas ``top_layer`` at ``box`` over the board, in place (Porter-Duff *over*, integer
    arithmetic rounded to nearest)."""
    dst, src = _region(board_array, box)
    target, layer = board_array[dst], top_layer[src]
    rows, cols = np.nonzero(layer[..., 3].any(axis=1))[0], np.nonzero(layer[..., 3].any(axis=0))[0]
    if not len(rows):
        return
    shown = (slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1))  # only where the layer shows
    target, layer = target[shown], layer[shown]
    if (target[..., 3] == 255).all():  # an opaque board (the same bytes as below, with a constant divisor)
        a_s = layer[..., 3:].astype(np.int32)
        mixed = layer[..., :3] * a_s + target[..., :3] * (255 - a_s)
        target[..., :3] = (mixed + 127) // 255
        return
    below, above = target.astype(np.int32), layer.astype(np.int32)
    a_s, a_d = above[..., 3:], below[..., 3:]
    den = a_s * 255 + a_d * (255 - a_s)  # int32 holds 255**3
    num = above[..., :3] * (a_s * 255) + below[..., :3] * (a_d * (255 - a_s))
    target[..., :3] = np.where(den > 0, (num + den // 2) // np.maximum(den, 1), 255)
    target[..., 3:] = (den + 127) // 255


def paint(board_array: np.ndarray, alpha: np.ndarray, box, colour, outline=None) -> None:
    """Paint a shape (alpha ``alpha`` on canvas ``box``) in ``colour`` over the board, in place, its outline
    pixels in ``outline`` when given (Piece Localization's masks)."""
    layer = np.empty(alpha.shape + (4,), np.uint8)
    layer[..., :3] = colour
    layer[..., 3] = alpha
    if outline is not None:
        edge = ring(alpha)
        layer[edge, :3] = outline
        layer[edge, 3] = np.where(alpha[edge] > 0, 255, 0)
    over(board_array, layer, box)


def transformed(canvas: np.ndarray, name: str) -> np.ndarray:
    """A piece's canvas turned or mirrored about its centre (its outline with it): the names of
    :data:`jigsaw_puzzles.geometry.ROTATIONS` / ``MIRRORS`` (counter-clockwise turns, as PIL's)."""
    ops = {"rotate_90": lambda a: np.rot90(a, 1), "rotate_180": lambda a: np.rot90(a, 2),
           "rotate_270": lambda a: np.rot90(a, 3), "flip_left_right": lambda a: a[:, ::-1],
           "flip_top_bottom": lambda a: a[::-1]}
    return np.ascontiguousarray(ops[name](canvas))


class Layer:
    """A piece's RGBA canvas ready for :func:`assemble`: its colour (stored RGBX, four bytes a pixel, so that one
    pixel moves as one 32-bit word), its alpha, where it is opaque and where partly covered, and, when ``outline``,
    the pixels of its outline (:func:`ring`)."""

    def __init__(self, canvas: np.ndarray, outline: bool = False):
        alpha = canvas[..., 3]
        self.rgbx = np.zeros(alpha.shape + (4,), np.uint8)
        self.rgbx[..., :3] = canvas[..., :3]
        self.rgb = self.rgbx[..., :3]
        self.alpha = alpha.astype(np.uint16)
        self.opaque = alpha == 255
        self.soft = (alpha > 0) & ~self.opaque
        self.ring = ring(alpha) if outline else None


def _word(colour) -> np.uint32:
    """An RGB colour as one RGBX word."""
    return np.array([*colour, 0], np.uint8).view(np.uint32)[0]


def assemble(layers, size: tuple[int, int], background=WHITE, rgbx: bool = False) -> np.ndarray:
    """Pieces laid on a board of ``size`` ``(width, height)``: ``layers`` are ``(Layer, box)`` pairs (a canvas
    and where it lies; it may reach past the board; at most 257 on one pixel). An RGB uint8 array (``rgbx``: an
    RGBX one, its fourth byte 0), the pieces summed by their alphas:

    * a pixel the pieces cover at most once (their alphas summing to ``S <= 255``) is their alpha-weighted colour
      over ``background`` (``(sum a c + (255 - S) background) / 255``, rounded): the pieces of a cut laid where
      they belong give the photo itself, to the byte (their alphas sum to 255 at every pixel, :mod:`.cut`), and a
      blank no tab fills shows the background;
    * a pixel covered more than once (``S > 255``: two pieces overlapping) is their mean colour darkened by
      ``255 / S`` (``sum a c * 255 / S**2``, rounded): an overlap shows darker than the pieces' mean colour.

    Layers with an outline then draw it in :data:`LINE`. Integer arithmetic: the same bytes on every machine. Only
    the pixels where a piece is partly there or pieces meet are summed; a pixel one opaque piece alone covers is
    that piece's colour (what the sum gives there), one no piece covers the background."""
    width, height = size
    layers = [(layer, box) for layer, box in layers
              if box[0] < width and box[1] < height and box[2] > 0 and box[3] > 0]  # the layers on the board
    cover = np.zeros((height, width), np.uint16)
    soft = np.zeros((height, width), bool)
    out = np.empty((height, width, 4), np.uint8)
    words = out.view(np.uint32)[..., 0]
    words.fill(_word(background))
    for layer, box in layers:
        dst, src = _region(cover, box)
        cover[dst] += layer.alpha[src]
        soft[dst] |= layer.soft[src]
        np.copyto(words[dst], layer.rgbx.view(np.uint32)[..., 0][src], where=layer.opaque[src])
    ys, xs = np.nonzero(soft | ((cover != 255) & (cover != 0)))  # partly covered, or covered more than once
    if len(ys):
        total = np.zeros((len(ys), 3), np.uint32)
        for layer, (left, top, right, bottom) in layers:
            inside = np.flatnonzero((ys >= top) & (ys < bottom) & (xs >= left) & (xs < right))
            ly, lx = ys[inside] - top, xs[inside] - left
            total[inside] += layer.rgb[ly, lx].astype(np.uint32) * layer.alpha[ly, lx, None].astype(np.uint32)
        s = cover[ys, xs].astype(np.uint32)[:, None]
        once = (total + (255 - np.minimum(s, 255)) * np.array(background, np.uint32) + 127) // 255
        overlap = (total * 255 + s * s // 2) // (s * s)
        out[ys, xs, :3] = np.where(s <= 255, once, overlap)
    for layer, box in layers:
        if layer.ring is not None:
            dst, src = _region(cover, box)
            words[dst][layer.ring[src]] = _word(LINE)
    return out if rgbx else out[..., :3]
