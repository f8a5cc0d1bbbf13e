"""Image statistics of the curation rules (:mod:`jigsaw_puzzles.generation.sources`): blur, structure; the old
near-duplicate hash (the rule now: :mod:`jigsaw_puzzles.generation.neardup`)."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image

from .. import geometry


def sharpness(grey: np.ndarray) -> float:
    """Variance of the 4-neighbour Laplacian (a standard blur measure)."""
    lap = (grey[:-2, 1:-1] + grey[2:, 1:-1] + grey[1:-1, :-2] + grey[1:-1, 2:]
           - 4.0 * grey[1:-1, 1:-1])
    return float(lap.var())


def structure(grey: np.ndarray) -> float:
    """Correlation of neighbouring pixels, the lower of the horizontal and vertical one: about 0 for pixels
    drawn independently (noise), near 1 for a photograph, whose neighbours are alike."""
    values = []
    # Pearson's r of each pair of shifted copies, written into one scratch array (three contiguous parts, reused)
    # instead of a new array per product: the same operations in the same order, so the same bits as
    # ``a, b = a - a.mean(), b - b.mean(); (a * b).sum() / sqrt((a * a).sum() * (b * b).sum())``, at a third of
    # the memory traffic (tests/test_sources.py holds both equal).
    scratch = np.empty(3 * grey.size, dtype=np.float64)
    for a, b in ((grey[:, 1:], grey[:, :-1]), (grey[1:, :], grey[:-1, :])):
        n = a.size
        x = np.subtract(a, a.mean(), out=scratch[:n].reshape(a.shape))
        y = np.subtract(b, b.mean(), out=scratch[n:2 * n].reshape(a.shape))
        product = scratch[2 * n:3 * n].reshape(a.shape)
        xx = float(np.multiply(x, x, out=product).sum())
        yy = float(np.multiply(y, y, out=product).sum())
        xy = float(np.multiply(x, y, out=product).sum())
        denominator = math.sqrt(xx * yy)
        values.append(xy / denominator if denominator else 0.0)
    return min(values)


def difference_hash(image: Image.Image) -> int:
    """64-bit difference hash (dHash): the near-duplicate rule before the pHash one (distance <= 4), kept for
    ``benchmarks/neardup.py``, which measures it beside the rule now (it missed crops and re-toned copies)."""
    small = np.asarray(geometry.resize(image.convert("L"), (9, 8), Image.Resampling.BILINEAR), dtype=np.int16)
    bits = (small[:, 1:] > small[:, :-1]).flatten()
    return int("".join("1" if b else "0" for b in bits), 2)
