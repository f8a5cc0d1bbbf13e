"""Shared geometry and rendering: grids, cells, masks, labels, transforms, PNG encoding.

Every task module cuts and draws through these functions, so a cell means the
same box everywhere: row-major, cell 0 at the top-left, a ``rows x cols`` grid
dividing the (already normalised) image exactly.
"""

from __future__ import annotations

import hashlib
import io
from contextlib import contextmanager
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Box = tuple[int, int, int, int]

WHITE = (255, 255, 255)
MASK_GREY = (160, 160, 160)
POSITION_NAMES = ("top-left", "top-right", "bottom-left", "bottom-right")

# Transforms used by anomaly detection, grouped by the paper's two kinds of change.
ROTATIONS = ("rotate_180", "rotate_90", "rotate_270")
MIRRORS = ("flip_left_right", "flip_top_bottom")
_TRANSPOSE = {
    "rotate_90": Image.Transpose.ROTATE_90,
    "rotate_180": Image.Transpose.ROTATE_180,
    "rotate_270": Image.Transpose.ROTATE_270,
    "flip_left_right": Image.Transpose.FLIP_LEFT_RIGHT,
    "flip_top_bottom": Image.Transpose.FLIP_TOP_BOTTOM,
}

# PNG settings shared by the builder and the benchmark's floor.
PNG_COMPRESS_LEVEL = 6


def grid_boxes(size: tuple[int, int], rows: int, cols: int, exact: bool = True) -> list[Box]:
    """Boxes ``(left, top, right, bottom)`` of a grid, row-major. The size must divide evenly
    (``exact=False``: cells of ``size // grid``, the remainder at the right/bottom is left out)."""
    width, height = size
    if exact and (width % cols or height % rows):
        raise ValueError(f"image size {size} does not divide into a {rows}x{cols} grid")
    cw, ch = width // cols, height // rows
    return [(c * cw, r * ch, (c + 1) * cw, (r + 1) * ch) for r in range(rows) for c in range(cols)]


def split(image: Image.Image, rows: int, cols: int) -> list[Image.Image]:
    return [image.crop(box) for box in grid_boxes(image.size, rows, cols)]


def split_array(array: np.ndarray, rows: int, cols: int) -> list[np.ndarray]:
    """:func:`split` for an ``(H, W, ...)`` array (views; inexact sizes floor, as the solver reads any image)."""
    height, width = array.shape[:2]
    return [array[t:b, left:right] for left, t, right, b in grid_boxes((width, height), rows, cols, exact=False)]


def stitch(cells: list[Image.Image], rows: int, cols: int) -> Image.Image:
    cw, ch = cells[0].size
    out = Image.new("RGB", (cw * cols, ch * rows))
    for i, cell in enumerate(cells):
        if cell.size != (cw, ch):
            raise ValueError("all cells must have the same size to be stitched")
        out.paste(cell, ((i % cols) * cw, (i // cols) * ch))
    return out


def resize(image: Image.Image, size: tuple[int, int], resample: Image.Resampling = Image.Resampling.LANCZOS,
           box: tuple[float, float, float, float] | None = None) -> Image.Image:
    """``image.resize(size, resample, box)`` with the same pixels on every Pillow (modes ``L`` and ``RGB``): the
    horizontal pass, then the vertical one, each a resize of one axis. Pillow resizes both axes in two such
    passes, horizontal first up to Pillow 12; Pillow 13 runs the vertical pass first when the height shrinks by
    more than twice as many pixels as the width, and the rounding between the passes then gives other pixels
    (docs/tasks.md#determinism). A resize of one axis is the same on every Pillow the package allows
    (``benchmarks/pillow_versions.py``), so this is what Pillow 10 to 12 give for the whole resize (but for an
    image over 100 times taller than wide, which Pillow 12.3 shrinks vertically first: no photo or cell is)."""
    if image.mode not in ("L", "RGB"):  # Pillow premultiplies alpha around each call: two calls would differ
        raise ValueError(f"geometry.resize takes L or RGB images, not {image.mode}")
    width, height = size
    left, top, right, bottom = box if box is not None else (0, 0, *image.size)
    out = image
    if width != image.width or left or right != image.width:  # Pillow's own test for a horizontal pass
        out = out.resize((width, image.height), resample, box=(left, 0, right, image.height))
    if height != image.height or top or bottom != image.height:
        out = out.resize((width, height), resample, box=(0, top, width, bottom))
    return out if out is not image else image.copy()


def fill(image: Image.Image, box: Box, color: tuple[int, int, int]) -> None:
    ImageDraw.Draw(image).rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=color)


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # Pillow's bundled scalable default font: identical on every machine with the same Pillow.
    return ImageFont.load_default(size=size)


def draw_label(image: Image.Image, box: Box, letter: str) -> None:
    """A large black letter with a white outline, centred in ``box``."""
    width, height = box[2] - box[0], box[3] - box[1]
    size = max(12, int(min(width, height) * 0.45))
    draw = ImageDraw.Draw(image)
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    draw.text(centre, letter, fill=(0, 0, 0), font=_font(size), anchor="mm",
              stroke_width=max(1, size // 16), stroke_fill=WHITE)


def transform(image: Image.Image, name: str) -> Image.Image:
    return image.transpose(_TRANSPOSE[name])


def shape_preserving(name: str, size: tuple[int, int]) -> bool:
    """Quarter turns only keep the cell's size when the cell is square."""
    return name not in ("rotate_90", "rotate_270") or size[0] == size[1]


def as_array(image: Image.Image) -> np.ndarray:
    return np.asarray(image, dtype=np.float32)


def mean_abs_diff(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute pixel difference in 0-255 units (images of equal size)."""
    return float(np.abs(as_array(a) - as_array(b)).mean())


def texture(image: Image.Image) -> float:
    """Standard deviation of the grey levels: low means near-uniform (sky, wall, blur)."""
    return float(np.asarray(image.convert("L"), dtype=np.float32).std())


def encode_png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    data = buf.getvalue()
    if _HELD["budget"] and image.mode in _LOSSLESS and not {"icc_profile", "transparency"} & image.info.keys():
        key = hashlib.sha256(data).digest()
        size = image.width * image.height * len(image.getbands())
        if key in _HELD["images"]:  # the same bytes again (items that share a piece): given back as often
            _HELD["images"][key][1] += 1
        elif _HELD["bytes"] + size <= _HELD["budget"]:
            held = image.copy()
            held.info = {}  # as decoded: the PNG carries no chunk but the pixels' (no profile, no transparency)
            _HELD["images"][key] = [held, 1, size]
            _HELD["bytes"] += size
    return data


#: while :func:`keep_encoded` is active, the images :func:`encode_png` encoded, by their PNG bytes' digest
_HELD: dict = {"budget": 0, "bytes": 0, "images": {}}
_LOSSLESS = ("RGB", "RGBA", "L")  # modes a PNG gives back as they were


@contextmanager
def keep_encoded(budget: int = 256 << 20):
    """Within it, :func:`encode_png` keeps each image it encodes (up to ``budget`` bytes of pixels held at once) and
    :func:`decoded_png` gives it back for those bytes (as many times as they were encoded) instead of decoding them:
    an eval that builds its items and reads them at once (PNG is lossless: the pixels, size and mode are those the
    bytes decode to)."""
    _HELD.update(budget=budget, bytes=0, images={})
    try:
        yield
    finally:
        _HELD.update(budget=0, bytes=0, images={})


def decoded_png(data: bytes) -> Image.Image | None:
    """The image :func:`encode_png` encoded to ``data`` within :func:`keep_encoded` (given back as many times as it
    was encoded, a copy but the last time), else ``None`` (decode the bytes)."""
    if not _HELD["images"]:
        return None
    key = hashlib.sha256(data).digest()
    entry = _HELD["images"].get(key)
    if entry is None:
        return None
    entry[1] -= 1
    if entry[1] > 0:
        return entry[0].copy()
    del _HELD["images"][key]
    _HELD["bytes"] -= entry[2]
    return entry[0]


# ----------------------------------------------------------------------------- interlocking pieces (``_tabs``)
#: The smallest cell side (pixels) that carries a tab: below it a tab's neck would be a few pixels wide and the
#: tabs of two edges could come within 2 px of each other (generation/tabs/cut.py proves the bounds).
MIN_TAB_CELL = 48
#: A tab reaches at most this share of the shorter cell side beyond its cell; a piece's canvas adds
#: :func:`tab_margin` on every side, so every piece of an item has one size.
TAB_REACH = 0.22


def tab_margin(side: int) -> int:
    """The margin (pixels) a shaped piece's canvas adds around its cell of shorter side ``side``: the tab's
    reach plus its anti-aliased pixel, ``ceil(side / 4)``."""
    return -(-int(side) // 4)


def tab_cell(canvas: tuple[int, int]) -> tuple[int, int, int]:
    """``(cell width, cell height, margin)`` of a shaped piece's canvas ``(width, height)``, the inverse of
    ``canvas = cell + 2 * tab_margin(min(cell))`` (strictly increasing in the cell side, so unique);
    ``ValueError`` for a size no cell gives."""
    width, height = canvas
    shorter = min(width, height)
    for side in range(max(1, shorter * 2 // 3 - 2), shorter + 1):
        if side + 2 * tab_margin(side) == shorter:
            margin = tab_margin(side)
            return width - 2 * margin, height - 2 * margin, margin
    raise ValueError(f"{width}x{height} is not the canvas of a shaped piece")
