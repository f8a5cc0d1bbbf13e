"""Interlocking pieces (``_tabs`` configs), read from their pixels: how two outlines fit, and the seams between.

A shaped piece is an RGBA canvas: its cell plus :func:`~jigsaw_puzzles.geometry.tab_margin` on every side
(:func:`~jigsaw_puzzles.geometry.tab_cell` recovers the cell from the canvas size). The generator's pieces
partition the picture: at every pixel the alphas of the pieces sum to 255. So two pieces fit along a side
exactly when, laid side by side, their alphas sum to 255 over the band around that side; the *misfit*

    misfit(a, side, b) = sum over the band of |alpha_a + alpha_b - 255| / 255 / (cell width * cell height)

is 0 for true neighbours in the right direction and grows with every pixel of gap or overlap (a tab against a
tab, a tab in the wrong blank). The band spans the side's middle (a tab never reaches the corners: see
``generation/tabs/cut.py``) and ``depth`` pixels either way (the tab's reach). A ``flat`` side (the picture's
border: alpha 255 up to the cell's edge, 0 beyond) never fits inside the picture: its misfit is infinite.
The content of the two pieces breaks ties (:func:`seams`). :func:`possible` says which relations of two pieces
their flat sides allow on the grid.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..geometry import TAB_REACH, tab_cell
from .continuity import rho, seam_dissimilarity

SIDES = ("top", "right", "bottom", "left")


def alpha_of(image) -> np.ndarray:
    """The alpha channel of a piece (PIL image, RGBA array, or a 2-D alpha array itself; an image without alpha
    is fully opaque)."""
    if isinstance(image, np.ndarray):
        if image.ndim == 2:
            return image
        return image[..., 3] if image.shape[2] == 4 else np.full(image.shape[:2], 255, np.uint8)
    if image.mode == "RGBA":
        return np.asarray(image)[..., 3]
    return np.full((image.height, image.width), 255, np.uint8)


def geometry_of(size: tuple[int, int]) -> tuple[int, int, int, int]:
    """``(cell width, cell height, margin, depth)`` of a canvas ``(width, height)``: ``depth`` covers a tab's
    reach and its anti-aliased pixel."""
    cw, ch, m = tab_cell(size)
    return cw, ch, m, int(np.ceil(TAB_REACH * min(cw, ch))) + 1


def band(alpha: np.ndarray, side: str, geo) -> np.ndarray:
    """The band across ``side`` (``(along, 2 * depth)``, int64): along the side top-to-bottom or left-to-right,
    across it from inside the cell outwards."""
    cw, ch, m, d = geo
    if side == "right":
        return alpha[m + d:m + ch - d, m + cw - d:m + cw + d].astype(np.int64)
    if side == "left":
        return alpha[m + d:m + ch - d, m - d:m + d][:, ::-1].astype(np.int64)
    if side == "bottom":
        return alpha[m + ch - d:m + ch + d, m + d:m + cw - d].T.astype(np.int64)
    return alpha[m - d:m + d, m + d:m + cw - d][::-1].T.astype(np.int64)


def is_flat(b: np.ndarray) -> bool:
    """A side with no tab and no blank: fully inside up to the cell's edge, empty beyond."""
    d = b.shape[1] // 2
    return bool((b[:, :d] == 255).all() and (b[:, d:] == 0).all())


def misfits(pieces: Sequence, geo=None) -> tuple[np.ndarray, np.ndarray]:
    """``(H, V)``: ``H[i, j]`` the misfit of piece ``j`` to the right of piece ``i``, ``V[i, j]`` below it (inf
    on the diagonal and for a flat side)."""
    alphas = [alpha_of(p) for p in pieces]
    geo = geo or geometry_of(alphas[0].shape[::-1])
    area = geo[0] * geo[1] * 255.0
    n = len(alphas)
    out = []
    for near, far in (("right", "left"), ("bottom", "top")):
        a = np.stack([band(x, near, geo) for x in alphas])
        b = np.stack([band(x, far, geo)[:, ::-1] for x in alphas])  # b's outside column j lies on a's column j
        flat = np.array([is_flat(band(x, near, geo)) for x in alphas])
        flat_b = np.array([is_flat(band(x, far, geo)) for x in alphas])
        m = np.empty((n, n))
        for i in range(n):
            m[i] = np.abs(a[i][None] + b - 255).sum(axis=(1, 2)) / area
        m[flat, :] = np.inf
        m[:, flat_b] = np.inf
        np.fill_diagonal(m, np.inf)
        out.append(m)
    return out[0], out[1]


def _rgb(image) -> np.ndarray:
    arr = np.asarray(image) if not isinstance(image, np.ndarray) else image
    return arr[..., :3].astype(np.float32)


def seams(pieces: Sequence, geo=None, between_tabs: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(H, V)``: the content seam of piece ``j`` right of (below) piece ``i``, scaled to [0, 1): the two
    pieces' pixels composited by their alphas across the straight cell line, read as the solver reads a seam
    (:func:`~.continuity.seam_dissimilarity`), ``d / (d + 1)``. ``between_tabs``: read only along the stretches
    of the line where each piece holds its own side of it (not across a tab's neck, where one piece holds both
    sides and any pair looks continuous): the pieces of a congruent cut, which fit every way."""
    alphas = [alpha_of(p).astype(np.float32) / 255 for p in pieces]
    rgbs = [_rgb(p) for p in pieces]
    geo = geo or geometry_of(alphas[0].shape[::-1])
    cw, ch, m, _ = geo
    n = len(pieces)
    out = []
    for vertical in (True, False):
        def strip(k, inner, arrays=None):  # 4 lines across the cell line: 2 of k's cell, 2 beyond (inner: k is on
            if vertical:                   # the far side); the alpha itself when ``arrays`` is given
                cols = slice(m - 2, m + 2) if inner else slice(m + cw - 2, m + cw + 2)
                if arrays is not None:
                    return arrays[k][m:m + ch, cols]
                return rgbs[k][m:m + ch, cols] * alphas[k][m:m + ch, cols, None]
            rows = slice(m - 2, m + 2) if inner else slice(m + ch - 2, m + ch + 2)
            if arrays is not None:
                return arrays[k][rows, m:m + cw].T
            return (rgbs[k][rows, m:m + cw] * alphas[k][rows, m:m + cw, None]).transpose(1, 0, 2)
        near = np.stack([strip(k, False) for k in range(n)])
        far = np.stack([strip(k, True) for k in range(n)])
        if between_tabs:  # along the line: the near piece covers its two lines only, the far piece its own two
            own = np.array([1, 1, 0, 0], np.float32)
            near_ok = np.stack([(strip(k, False, alphas) == own).all(-1) for k in range(n)])
            far_ok = np.stack([(strip(k, True, alphas) == own[::-1]).all(-1) for k in range(n)])
        mat = np.full((n, n), np.inf)
        for i in range(n):
            both = np.clip(near[i][None] + far, 0, 255)  # (n, along, 4, 3)
            if between_tabs:
                a, b = both[:, :, [1, 0]], both[:, :, [2, 3]]
                per_line = (rho(b[..., 0, :] - (2 * a[..., 0, :] - a[..., 1, :])).mean(-1)
                            + rho(a[..., 0, :] - (2 * b[..., 0, :] - b[..., 1, :])).mean(-1))
                use = near_ok[i][None] & far_ok
                d = (per_line * use).sum(1) / np.maximum(use.sum(1), 1)
            else:
                d = seam_dissimilarity(both[:, :, [1, 0]], both[:, :, [2, 3]])
            mat[i] = d / (d + 1)
        np.fill_diagonal(mat, np.inf)
        out.append(mat)
    return out[0], out[1]


def costs(pieces: Sequence, content: bool = True, between_tabs: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise costs for placing shaped pieces: the misfit, the content seam (in [0, 1)) breaking ties by
    ``1e-3`` of it, so the outline decides wherever two fits differ by more than a thousandth of a cell
    (``between_tabs``: :func:`seams`'s, for a congruent cut)."""
    geo = geometry_of(alpha_of(pieces[0]).shape[::-1])
    H, V = misfits(pieces, geo)
    if content:
        sh, sv = seams(pieces, geo, between_tabs)
        H, V = H + 1e-3 * sh, V + 1e-3 * sv
    return H, V


# ------------------------------------------------------------------------- where two pieces may lie
#: Connection Verification's 8 directions (spec.DIRECTIONS, in order): the (row, column) step to <image 2>.
STEPS = {"right": (0, 1), "left": (0, -1), "above": (-1, 0), "below": (1, 0), "upper right": (-1, 1),
         "upper left": (-1, -1), "lower right": (1, 1), "lower left": (1, -1)}


def flat_sides(alpha: np.ndarray) -> frozenset:
    """The sides of a piece (its alpha on its canvas) with no tab and no blank."""
    geo = geometry_of(alpha.shape[::-1])
    return frozenset(s for s in SIDES if is_flat(band(alpha, s, geo)))


def border_sides(k: int, rows: int, cols: int) -> frozenset:
    """The sides of cell ``k`` on the picture's border."""
    r, c = divmod(k, cols)
    return frozenset(s for s, on in zip(SIDES, (r == 0, c == cols - 1, r == rows - 1, c == 0)) if on)


def possible(spec, alphas: Sequence[np.ndarray]):
    """``(dr, dc) -> bool``: whether two cells of the grid lie that way apart with the pieces' flat sides on their
    border sides (a content cut has no flat side, so any two cells do)."""
    rows, cols = spec.grid
    cells = range(rows * cols)
    if spec.cut == "content":
        fits = [list(cells), list(cells)]
    else:
        flats = [flat_sides(a) for a in alphas[:2]]
        fits = [[k for k in cells if border_sides(k, rows, cols) == f] for f in flats]

    def way(dr: int, dc: int, far: bool = False) -> bool:  # far: any two cells not sharing an edge
        for p in fits[0]:
            for q in fits[1]:
                (r1, c1), (r2, c2) = divmod(p, cols), divmod(q, cols)
                if p != q and ((abs(r2 - r1) + abs(c2 - c1) > 1) if far else (r2 - r1, c2 - c1) == (dr, dc)):
                    return True
        return False
    return way
