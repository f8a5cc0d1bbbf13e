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
    for a, b in ((grey[:, 1:], grey[:, :-1]), (grey[1:, :], grey[:-1, :])):
        a, b = a - a.mean(), b - b.mean()
        denominator = math.sqrt(float((a * a).sum()) * float((b * b).sum()))
        values.append(float((a * b).sum()) / denominator if denominator else 0.0)
    return min(values)


def difference_hash(image: Image.Image) -> int:
    """64-bit difference hash (dHash): the near-duplicate rule before the pHash one (distance <= 4), kept for
    ``benchmarks/neardup.py``, which measures it beside the rule now (it missed crops and re-toned copies)."""
    small = np.asarray(geometry.resize(image.convert("L"), (9, 8), Image.Resampling.BILINEAR), dtype=np.int16)
    bits = (small[:, 1:] > small[:, :-1]).flatten()
    return int("".join("1" if b else "0" for b in bits), 2)
