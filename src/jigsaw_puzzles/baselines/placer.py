"""The classical solver on any grid: place ``rows x cols`` shuffled pieces from their pixels alone.

Seams are scored with the solver's prediction-based, normalised dissimilarity (:mod:`.continuity`). From it,
Gallagher's (2012) *compatibility* of a pair on one side is ``1 - d / d2`` where ``d2`` is the second-lowest
dissimilarity of the first piece on that side, and two pieces are *best buddies* when each is the other's most
compatible neighbour on facing sides (Pomeranz et al. 2011).

* Up to :data:`EXHAUSTIVE_MAX` pieces every layout is scored (mean dissimilarity of its internal seams) and the
  best wins: exact for the paper's 2x2.
* Beyond, a greedy placer: start from the piece with the most best buddies, then repeatedly fill the free slot
  next to the placed pieces (inside the ``rows x cols`` frame, which floats until the placed block fixes it)
  with the unplaced piece that fits its placed neighbours best, best-buddy agreements first.

``margin`` in [0, 1] is a per-item difficulty signal: how clearly the chosen layout beats the alternative
(exhaustive: ``1 - best / second best`` cost; greedy: the mean of that ratio over the placements).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .solver import _image, _pairwise, _Piece

#: Layouts of up to this many pieces are scored exhaustively (6! = 720).
EXHAUSTIVE_MAX = 6


@dataclass(frozen=True)
class Placement:
    """``order[j]``: the 1-based index of the piece placed at region ``j`` (row-major), as the benchmark's
    order answers; ``margin``: confidence in [0, 1]; ``cost``: mean seam dissimilarity of the layout."""

    order: list[int]
    margin: float
    cost: float


def _layout_cost(H: np.ndarray, V: np.ndarray, layout: Sequence[int], rows: int, cols: int) -> float:
    total, count = 0.0, 0
    for r in range(rows):
        for c in range(cols):
            j = r * cols + c
            if c + 1 < cols:
                total, count = total + H[layout[j], layout[j + 1]], count + 1
            if r + 1 < rows:
                total, count = total + V[layout[j], layout[j + cols]], count + 1
    return total / count if count else 0.0


def _exhaustive(H, V, rows, cols) -> Placement:
    n = rows * cols
    scored = sorted((_layout_cost(H, V, p, rows, cols), p) for p in itertools.permutations(range(n)))
    best_cost, best = scored[0]
    second = scored[1][0] if len(scored) > 1 else np.inf
    margin = float(np.clip(1 - best_cost / second, 0, 1)) if np.isfinite(second) and second > 0 else 0.0
    return Placement([piece + 1 for piece in best], margin, float(best_cost))


def _greedy(H, V, rows, cols) -> Placement:
    n = rows * cols
    # dissimilarity of piece q placed at offset (dr, dc) from piece p: (1, 0) below, (0, 1) right, ...
    def d(p, q, dr, dc):
        if dr == 0:
            return H[p, q] if dc == 1 else H[q, p]
        return V[p, q] if dr == 1 else V[q, p]

    def best_of(row):  # (lowest, second lowest) of a cost row, ignoring inf
        finite = np.sort(row[np.isfinite(row)])
        return (finite[0], finite[1]) if finite.size > 1 else (finite[0] if finite.size else np.inf, np.inf)

    buddies = np.zeros(n, dtype=int)
    for p in range(n):
        q = int(np.argmin(H[p]))
        if int(np.argmin(H[:, q])) == p:
            buddies[p] += 1
            buddies[q] += 1
        q = int(np.argmin(V[p]))
        if int(np.argmin(V[:, q])) == p:
            buddies[p] += 1
            buddies[q] += 1
    start = int(np.argmax(buddies))
    board = {(0, 0): start}
    free = set(range(n)) - {start}
    margins, costs = [], []
    while free:
        rs = [r for r, _ in board]
        cs = [c for _, c in board]
        candidates = []
        for (r, c) in list(board):
            for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                slot = (r + dr, c + dc)
                if slot in board:
                    continue
                if (max(*rs, slot[0]) - min(*rs, slot[0]) >= rows
                        or max(*cs, slot[1]) - min(*cs, slot[1]) >= cols):
                    continue
                candidates.append(slot)
        best = None
        for slot in set(candidates):
            neighbours = [(board[(slot[0] - dr, slot[1] - dc)], dr, dc)
                          for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)) if (slot[0] - dr, slot[1] - dc) in board]
            scores = {q: np.mean([d(p, q, dr, dc) for p, dr, dc in neighbours]) for q in free}
            ranked = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))
            q, cost = ranked[0]
            second = ranked[1][1] if len(ranked) > 1 else np.inf
            # prefer slots with more placed neighbours, then the clearest choice
            key = (-len(neighbours), cost / second if np.isfinite(second) and second > 0 else 0.0, cost, slot)
            if best is None or key < best[0]:
                best = (key, slot, q, cost, second)
        _, slot, q, cost, second = best
        board[slot] = q
        free.discard(q)
        costs.append(cost)
        margins.append(float(np.clip(1 - cost / second, 0, 1)) if np.isfinite(second) and second > 0 else 0.0)
    r0 = min(r for r, _ in board)
    c0 = min(c for _, c in board)
    layout = [board[(r + r0, c + c0)] for r in range(rows) for c in range(cols)]
    return Placement([p + 1 for p in layout], float(np.mean(margins)) if margins else 0.0,
                     _layout_cost(H, V, layout, rows, cols))


def place(pieces: Sequence, rows: int, cols: int) -> Placement:
    """Place ``pieces`` (PIL images or arrays, shuffled, all of one cell size) on a ``rows x cols`` grid."""
    if len(pieces) != rows * cols:
        raise ValueError(f"{len(pieces)} pieces do not fill a {rows}x{cols} grid")
    parts = [_Piece(_image(p)) for p in pieces]
    H, V = _pairwise(parts)
    if rows * cols <= EXHAUSTIVE_MAX:
        return _exhaustive(H, V, rows, cols)
    return _greedy(H, V, rows, cols)


def solve_grid(row: dict, rows: int, cols: int):
    """The solver's answer to a grid order item (``order_generation_3x3``, ``order_restoration_4x4``, ...):
    the placed order, or for a choice item the option whose layout has the lowest seam cost."""
    import re

    from ..spec import LETTERS, format_order
    from .solver import SolverAnswer

    pieces = list(row["images"])
    if not row.get("options"):
        placed = place(pieces, rows, cols)
        return SolverAnswer(format_order(placed.order), placed.margin, {"cost": placed.cost})
    H, V = _pairwise([_Piece(_image(p)) for p in pieces])
    costs = {}
    for j, option in enumerate(row["options"]):
        order = [int(x) for x in re.findall(r"\d+", str(option))]
        ok = sorted(order) == list(range(1, rows * cols + 1))
        costs[LETTERS[j]] = _layout_cost(H, V, [i - 1 for i in order], rows, cols) if ok else np.inf
    ranked = sorted(costs.values())
    margin = float(np.clip(1 - ranked[0] / ranked[1], 0, 1)) if len(ranked) > 1 and np.isfinite(ranked[1]) \
        and ranked[1] > 0 else 0.0
    return SolverAnswer(min(costs, key=costs.get), margin, {"costs": costs})
