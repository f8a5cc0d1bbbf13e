"""Interlocking pieces: the cut (:mod:`.cut`) and drawing with it (:mod:`.render`), for the ``_tabs`` configs.

Pure NumPy and Pillow, written here (no LGPL code): a :class:`~.cut.Cut` draws one tab per inner edge of a grid
from an item's RNG and knows every pixel's share of each piece; a :class:`~.regular.RegularCut` is a congruent or
checkerboard cut whose outlines say nothing about the answer (``_tabs_content``); :mod:`.render` makes the RGBA
pieces and the boards. What a task does with them is in its own module under ``generation/tasks``.
"""

from .cut import Cut, Edge
from .regular import RegularCut
from .render import (SILHOUETTE_GREY, Layer, add, assemble, board, image, over, paint, piece, remove, ring,
                     transformed)

__all__ = ["Cut", "Edge", "Layer", "RegularCut", "SILHOUETTE_GREY", "add", "assemble", "board", "image", "over",
           "paint", "piece", "remove", "ring", "transformed"]
