"""Border-continuity primitives shared by the classical solver.

Everything here is plain numpy on float32 RGB arrays of shape (H, W, 3).

Dissimilarity of a seam (prediction-based, in the spirit of Pomeranz et al. 2011)
--------------------------------------------------------------------------------
Take a piece ``A`` whose side ``s`` is to be glued to the opposite side of piece ``B``.
An *edge strip* holds the two pixel lines nearest that side, ordered from the border
inwards: ``a0`` (the border line) and ``a1`` (the next one); likewise ``b0``, ``b1``
for ``B``.  Each piece linearly extrapolates itself one pixel across the seam and the
prediction is compared with what the other piece actually has there::

    e_AB = b0 - (2 a0 - a1)        # A predicts B's border line
    e_BA = a0 - (2 b0 - b1)        # B predicts A's border line

    D(A, B) = mean over pixels n and channels c of  rho(e_AB) + rho(e_BA)   (symmetric)
    rho(e)  = sqrt(|e| + 1) - 1    # a smooth robust norm (L1 near 0 ... sqrt for large)

``e`` mixes a colour jump (a0 vs b0) and a gradient mismatch, so it penalises both.

Internal scale
--------------
A seam value means little in absolute terms (a textured region has large prediction
errors everywhere).  ``internal_scale`` measures the *same* quantity on pixel-line
"seams" just inside the piece, next to the side in question (offsets 2..5 lines in,
averaged).  A true seam then has a *normalised dissimilarity*

    nd(A, B) = D(A, B) / (0.5 * (S_A + S_B) + eps)

close to 1 (the seam looks like any other line of the image), whereas a false seam is
typically 2-10x larger.  ``nd`` is what every decision rule in ``solver.py`` works on.
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "SIDES",
    "EPS",
    "as_array",
    "edge_strip",
    "rho",
    "seam_dissimilarity",
    "internal_scale",
    "normalised",
]

#: side -> opposite side
SIDES = {"right": "left", "left": "right", "bottom": "top", "top": "bottom"}
#: floor added to the internal scale (in rho units) so flat regions do not explode ratios
EPS = 0.05
#: depth (in pixel lines) of the internal reference seams
_INTERNAL_OFFSETS = (2, 3, 4, 5)


def as_array(img) -> np.ndarray:
    """PIL image (any mode) or array -> float32 (H, W, 3) RGB array."""
    if isinstance(img, np.ndarray):
        arr = img
    else:
        if img.mode != "RGB":
            img = img.convert("RGB")
        arr = np.asarray(img)
    if arr.ndim == 2:
        arr = np.repeat(arr[:, :, None], 3, axis=2)
    return np.ascontiguousarray(arr[:, :, :3], dtype=np.float32)


def edge_strip(piece: np.ndarray, side: str, depth: int = 2, offset: int = 0) -> np.ndarray:
    """Lines ``offset .. offset+depth-1`` counted inwards from ``side``, shape (N, depth, 3).

    ``N`` runs top->bottom for left/right sides and left->right for top/bottom sides, so a
    strip of A's right side lines up element-wise with a strip of B's left side.
    """
    h, w = piece.shape[:2]
    if side == "right":
        s = piece[:, w - 1 - offset - np.arange(depth)]            # (H, depth, 3)
    elif side == "left":
        s = piece[:, offset + np.arange(depth)]
    elif side == "bottom":
        s = piece[h - 1 - offset - np.arange(depth)].transpose(1, 0, 2)  # (W, depth, 3)
    elif side == "top":
        s = piece[offset + np.arange(depth)].transpose(1, 0, 2)
    else:  # pragma: no cover - programming error
        raise ValueError(side)
    return s


def rho(e: np.ndarray) -> np.ndarray:
    """Robust per-element penalty: ~|e|/2 for small errors, ~sqrt(|e|) for outliers."""
    return np.sqrt(np.abs(e) + 1.0) - 1.0


def seam_dissimilarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Symmetric prediction dissimilarity of two edge strips (..., N, 2, 3) -> (...)."""
    a0, a1 = a[..., 0, :], a[..., 1, :]
    b0, b1 = b[..., 0, :], b[..., 1, :]
    e_ab = b0 - (2.0 * a0 - a1)
    e_ba = a0 - (2.0 * b0 - b1)
    return (rho(e_ab).mean(axis=(-2, -1)) + rho(e_ba).mean(axis=(-2, -1))).astype(np.float64)


def internal_scale(piece: np.ndarray, side: str) -> float:
    """Mean seam dissimilarity of pixel-line seams just inside ``piece`` next to ``side``.

    For offset k the "left" strip is lines (k, k+1) read outwards and the "right" strip is
    lines (k-1, k-2) read inwards, i.e. the seam between line k and line k-1.
    """
    vals = []
    for k in _INTERNAL_OFFSETS:
        inner = edge_strip(piece, side, depth=4, offset=k - 2)  # lines k-2, k-1, k, k+1
        # seam between line k-1 (border side) and line k (interior side)
        a = inner[:, [2, 3]]   # interior piece: its "border" is line k, next is k+1
        b = inner[:, [1, 0]]   # outer piece: its "border" is line k-1, next is k-2
        vals.append(seam_dissimilarity(a, b))
    return float(np.mean(vals))


def normalised(d, s_a, s_b):
    """Normalised dissimilarity nd = D / (mean internal scale + EPS)."""
    return np.asarray(d) / (0.5 * (np.asarray(s_a) + np.asarray(s_b)) + EPS)

