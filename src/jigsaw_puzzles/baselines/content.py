"""The solver on content configs (``_tabs_content``): interlocking pieces whose outlines say nothing of the answer.

Every piece of a congruent cut has one outline, so any two fit either way and outlines cannot place them (the
shape baseline, :mod:`.shape`, is at chance there); the solver reads the content across the seams instead:

* **orders**: the placer on outline costs (all zero) plus the content seam, as on ``_tabs`` (:mod:`.shaped`);
* **Connection Verification**: for each way the pair could meet, the two pieces laid together (their alphas add
  up to 255 along the seam: a tab fills the other's blank) and the seam across their cells' line read with the
  straight solver's normalised measure and rule; with 8 directions the cells' touching corners too, as there;
* **Anomaly Detection**: the straight rule on the grid's cells (a checkerboard piece turned or mirrored fills its
  place exactly: undoing the transform on its cell mends its seams but where a tab crosses the cell line);
* **Missing Piece Selection, Piece Localization**: as on ``_tabs`` (:mod:`.shaped`), in the content board's frame
  (:func:`ring_frame`: the grid inside a ring of the tab margin) and with no flat side anywhere.
"""

from __future__ import annotations

import numpy as np

from ..geometry import tab_margin
from ..spec import ConfigSpec
from .outline import geometry_of
from .solver import SolverAnswer, _anomaly, _cv_answer, _direction_answer, _nd, _Piece


def ring_frame(size: tuple[int, int], rows: int, cols: int) -> tuple[int, int, int]:
    """``(cell width, cell height, margin)`` of a content board of ``size`` ``(width, height)``: ``width = cols *
    cw + 2 m`` and ``height = rows * ch + 2 m`` with ``m = tab_margin(min(cw, ch))``; ``ValueError`` for a size
    no grid gives."""
    width, height = size
    for m in range(min(width, height) // 2):
        if (width - 2 * m) % cols or (height - 2 * m) % rows:
            continue
        cw, ch = (width - 2 * m) // cols, (height - 2 * m) // rows
        if tab_margin(min(cw, ch)) == m:
            return cw, ch, m
    raise ValueError(f"{width}x{height} is not the board of a {rows}x{cols} content cut")


def rgba(image) -> np.ndarray:
    from .placer import _decoded

    return np.asarray(_decoded(image).convert("RGBA"))


def joined(a: np.ndarray, b: np.ndarray, geo, across: bool) -> tuple[np.ndarray, np.ndarray]:
    """The cells of two RGBA canvases laid together, ``b`` right of ``a`` (``across``) or below it, each pixel the
    alpha-weighted mean of the two (white where neither lies): float RGB arrays of ``a``'s cell and ``b``'s."""
    cw, ch, m, _ = geo
    dx, dy = (cw, 0) if across else (0, ch)
    height, width = a.shape[:2]
    total = np.zeros((height + dy, width + dx, 3), np.float32)
    weight = np.zeros((height + dy, width + dx, 1), np.float32)
    for canvas, (x, y) in ((a, (0, 0)), (b, (dx, dy))):
        alpha = canvas[..., 3:].astype(np.float32)
        total[y:y + height, x:x + width] += canvas[..., :3] * alpha
        weight[y:y + height, x:x + width] += alpha
    laid = np.where(weight > 0, total / np.maximum(weight, 1e-6), 255.0).astype(np.float32)
    return laid[m:m + ch, m:m + cw], laid[m + dy:m + dy + ch, m + dx:m + dx + cw]


def _edges(row) -> tuple[dict, np.ndarray, np.ndarray, tuple]:
    a, b = (rgba(im) for im in row["images"][:2])
    geo = geometry_of(a.shape[1::-1])

    def seam(first, second, across):
        cell_first, cell_second = joined(first, second, geo, across)
        return _nd(_Piece(cell_first), "right" if across else "bottom", _Piece(cell_second))
    edges = {"right": seam(a, b, True), "left": seam(b, a, True), "below": seam(a, b, False),
             "above": seam(b, a, False)}
    return edges, a, b, geo


def connection(row) -> SolverAnswer:
    """Horizontal, vertical or not adjacent, by the straight rule on the seams of the pieces laid together."""
    edges, *_ = _edges(row)
    answer = _cv_answer(min(edges["right"], edges["left"]), min(edges["below"], edges["above"]), row.get("options"))
    return SolverAnswer(answer.text, answer.confidence, {**answer.scores, "edges": edges})


def direction(row) -> SolverAnswer:
    """Where <image 2> lies around <image 1>: edge seams of the pieces laid together, corners of their cells."""
    edges, a, b, (cw, ch, m, _) = _edges(row)
    cells = [x[m:m + ch, m:m + cw, :3].astype(np.float32) for x in (a, b)]
    return _direction_answer(edges, cells[0], cells[1], row.get("options"))


def anomaly(row, spec: ConfigSpec) -> SolverAnswer:
    """The straight Anomaly Detection rule on the board's grid (over white: its outer blanks are transparent)."""
    rows, cols = spec.grid
    board = rgba(row["images"][0])
    cw, ch, m = ring_frame(board.shape[1::-1], rows, cols)
    alpha = board[..., 3:].astype(np.float32) / 255
    over_white = board[..., :3].astype(np.float32) * alpha + 255 * (1 - alpha)
    return _anomaly({"images": [over_white[m:m + rows * ch, m:m + cols * cw]]}, rows, cols)
