"""What every task module returns, and the checks they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from PIL import Image

from .. import geometry

# Two cells (or a cell and its transform) closer than this mean absolute difference
# (0-255 grey levels) are treated as the same picture: using them would give an item
# two right answers.
MIN_DISTINCT = 8.0


class TaskError(ValueError):
    """A source that cannot yield a well-posed item for a task; the message is the reason."""


@dataclass
class Item:
    images: list[Image.Image]
    question: str
    options: list[str]
    answer: str
    metadata: dict = field(default_factory=dict)


def pairwise_differences(cells: list[Image.Image]) -> np.ndarray:
    arrays = [geometry.as_array(c) for c in cells]
    n = len(arrays)
    out = np.full((n, n), np.inf, dtype=np.float64)
    for i, j in combinations(range(n), 2):
        if arrays[i].shape == arrays[j].shape:
            out[i, j] = out[j, i] = float(np.abs(arrays[i] - arrays[j]).mean())
    return out


def distinct_subsets(cells: list[Image.Image], k: int) -> list[tuple[int, ...]]:
    """All k-subsets of cells (sorted tuples, lexicographic) whose members are pairwise distinct."""
    diffs = pairwise_differences(cells)
    return [c for c in combinations(range(len(cells)), k)
            if all(diffs[i, j] >= MIN_DISTINCT for i, j in combinations(c, 2))]


def require_distinct(cells: list[Image.Image], what: str) -> str | None:
    diffs = pairwise_differences(cells)
    i, j = np.unravel_index(np.argmin(diffs), diffs.shape)
    if diffs[i, j] < MIN_DISTINCT:
        return (f"{what}: cells {i} and {j} are near-identical "
                f"(mean abs diff {diffs[i, j]:.2f} < {MIN_DISTINCT}), the answer would be ambiguous")
    return None
