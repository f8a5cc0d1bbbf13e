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


def _margin(best: float, second: float) -> float:
    """``1 - best / second`` clipped to [0, 1] (0: a tie, 1: unambiguous); 0 without a finite, positive
    runner-up."""
    return float(np.clip(1 - best / second, 0, 1)) if np.isfinite(second) and second > 0 else 0.0


def _exhaustive(H, V, rows, cols) -> Placement:
    n = rows * cols
    scored = sorted((_layout_cost(H, V, p, rows, cols), p) for p in itertools.permutations(range(n)))
    best_cost, best = scored[0]
    second = scored[1][0] if len(scored) > 1 else np.inf
    return Placement([piece + 1 for piece in best], _margin(best_cost, second), float(best_cost))


def _greedy(H, V, rows, cols, group=None) -> Placement:
    """``group[m]``: the piece of candidate ``m`` (rotated placing: the 4 turns of a piece are 4 candidates, one
    of which is placed); ``None``: one candidate per piece."""
    n = rows * cols
    group = np.arange(H.shape[0]) if group is None else np.asarray(group)
    # dissimilarity of piece q placed at offset (dr, dc) from piece p: (1, 0) below, (0, 1) right, ...
    def d(p, q, dr, dc):
        if dr == 0:
            return H[p, q] if dc == 1 else H[q, p]
        return V[p, q] if dr == 1 else V[q, p]

    def best_of(row):  # (lowest, second lowest) of a cost row, ignoring inf
        finite = np.sort(row[np.isfinite(row)])
        return (finite[0], finite[1]) if finite.size > 1 else (finite[0] if finite.size else np.inf, np.inf)

    buddies = np.zeros(H.shape[0], dtype=int)
    for p in range(H.shape[0]):
        q = int(np.argmin(H[p]))
        if int(np.argmin(H[:, q])) == p:
            buddies[group[p]] += 1
            buddies[group[q]] += 1
        q = int(np.argmin(V[p]))
        if int(np.argmin(V[:, q])) == p:
            buddies[group[p]] += 1
            buddies[group[q]] += 1
    start = int(np.flatnonzero(group == int(np.argmax(buddies)))[0])  # the first (unturned) candidate
    board = {(0, 0): start}
    free = set(int(m) for m in np.flatnonzero(group != group[start]))
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
            # the runner-up is another piece (a turn of the same piece is no rival for the slot)
            second = next((v for m, v in ranked[1:] if group[m] != group[q]), np.inf)
            # a slot no piece can take (an infinite cost: a flat side of a shaped piece inside the picture) last;
            # then prefer slots with more placed neighbours, then the clearest choice
            key = (not np.isfinite(cost), -len(neighbours),
                   cost / second if np.isfinite(second) and second > 0 else 0.0, cost, slot)
            if best is None or key < best[0]:
                best = (key, slot, q, cost, second)
        _, slot, q, cost, second = best
        board[slot] = q
        free -= set(int(m) for m in np.flatnonzero(group == group[q]))
        costs.append(cost)
        margins.append(_margin(cost, second))
    r0 = min(r for r, _ in board)
    c0 = min(c for _, c in board)
    layout = [board[(r + r0, c + c0)] for r in range(rows) for c in range(cols)]
    return Placement([p + 1 for p in layout], float(np.mean(margins)) if margins else 0.0,
                     _layout_cost(H, V, layout, rows, cols))


def _costs(pieces: Sequence, shaped: bool, between_tabs: bool = False):
    """Pairwise seam costs ``(H, V)``: content seams, or for shaped pieces (``_tabs``) the outlines' misfit with
    the content breaking ties (:mod:`.outline`; ``between_tabs``: pieces of one outline, ``_tabs_content``)."""
    if shaped:
        from .outline import costs

        return costs(pieces, between_tabs=between_tabs)
    return _pairwise([_Piece(_image(p)) for p in pieces])


def place(pieces: Sequence, rows: int, cols: int, rotated: bool = False, shaped: bool = False,
          between_tabs: bool = False) -> Placement:
    """Place ``pieces`` (PIL images or arrays, shuffled, all of one cell size) on a ``rows x cols`` grid;
    ``rotated``: the pieces are turned too (see :func:`place_rotated`); ``shaped``: interlocking pieces, placed
    by their outlines (:mod:`.outline`; ``between_tabs``: of one outline, by the seams between their tabs)."""
    if len(pieces) != rows * cols:
        raise ValueError(f"{len(pieces)} pieces do not fill a {rows}x{cols} grid")
    if rotated:
        return place_rotated(pieces, rows, cols, shaped)
    H, V = _costs(pieces, shaped, between_tabs)
    if rows * cols <= EXHAUSTIVE_MAX:
        return _exhaustive(H, V, rows, cols)
    return _greedy(H, V, rows, cols)


# ----------------------------------------------------------------------------------- unknown orientation
#: Rotated layouts are scored exhaustively up to this many pieces (4! * 4**4 = 6,144 layouts).
EXHAUSTIVE_ROTATED_MAX = 4
#: Weights of the upright cues (see :func:`upright_score`), fitted on the embedded photos.
UPRIGHT_WEIGHTS = (1.0, 1.0, 2.0)


@dataclass(frozen=True)
class RotatedPlacement(Placement):
    """A :class:`Placement` plus ``rotations[j]``: the clockwise degrees that turn the piece at region j
    upright."""

    rotations: list[int] = ()


def upright_score(image: np.ndarray) -> float:
    """How upright a photo looks: the top third brighter and bluer than the bottom third, and the bottom
    third more textured (sky above, ground below), weighted by :data:`UPRIGHT_WEIGHTS`. Seams cannot tell a
    layout from the same layout turned as a whole; this prior picks the turn (about 8 in 10 right on the
    embedded photos among 4 turns, 9 in 10 between upright and upside down)."""
    h = image.shape[0] // 3
    if h < 1:
        return 0.0
    top, bottom = image[:h], image[-h:]

    def texture(x):
        grey = x.mean(-1)
        return float(np.abs(np.diff(grey, axis=1)).mean() + np.abs(np.diff(grey, axis=0)).mean())

    cues = (float(top.mean() - bottom.mean()),
            float((top[..., 2] - top[..., 0]).mean() - (bottom[..., 2] - bottom[..., 0]).mean()),
            texture(bottom) - texture(top))
    return float(np.dot(UPRIGHT_WEIGHTS, cues))


def _turned(layout: list[int], rows: int, cols: int, quarter: int) -> tuple[list[int], int, int]:
    """``layout`` of turn candidates (``4 * piece + quarter turns clockwise``) turned as a whole clockwise by
    ``quarter`` quarter turns: the new layout and its (rows, cols)."""
    for _ in range(quarter % 4):
        layout = [4 * (layout[(rows - 1 - c) * cols + r] // 4) + (layout[(rows - 1 - c) * cols + r] % 4 + 1) % 4
                  for r in range(cols) for c in range(rows)]
        rows, cols = cols, rows
    return layout, rows, cols


def place_rotated(pieces: Sequence, rows: int, cols: int, shaped: bool = False) -> RotatedPlacement:
    """Place shuffled pieces that were also turned by multiples of 90 degrees.

    Each piece enters as its 4 clockwise turns (candidates ``4 * piece + quarter``) of which one is placed; seams
    are scored as for :func:`place` (exhaustively up to :data:`EXHAUSTIVE_ROTATED_MAX` pieces, else the greedy
    placer, in a ``rows x cols`` and, for a non-square grid, a ``cols x rows`` frame turned back). The seams fix
    the layout up to a turn of the whole picture; :func:`upright_score` picks the turn (among the 4 of a square
    grid, the 2 of another)."""
    arrays = [np.asarray(p) if shaped else _image(p) for p in pieces]
    turns = [np.ascontiguousarray(np.rot90(a, -q)) for a in arrays for q in range(4)]
    H, V = _costs(turns, shaped)
    if shaped:  # the upright cue reads each turn's cell
        from .outline import geometry_of

        cw, ch, m, _ = geometry_of(turns[0].shape[1::-1])
        turns = [_image(t[m:m + ch, m:m + cw, :3]) for t in turns]
    parts = [_Piece(t) for t in turns]
    group = np.repeat(np.arange(len(arrays)), 4)
    same = group[:, None] == group[None, :]
    H[same], V[same] = np.inf, np.inf
    n = rows * cols
    if n <= EXHAUSTIVE_ROTATED_MAX:
        scored = sorted((_layout_cost(H, V, [4 * p + q for p, q in zip(perm, turns)], rows, cols), perm, turns)
                        for perm in itertools.permutations(range(n))
                        for turns in itertools.product(range(4), repeat=n))
        cost, perm, turns = scored[0]
        layout = [4 * p + q for p, q in zip(perm, turns)]
        alike = {tuple(_turned(layout, rows, cols, k)[0]) for k in range(4)}
        second = next((c for c, p, t in scored[1:] if tuple(4 * a + b for a, b in zip(p, t)) not in alike), np.inf)
        found = [(cost, _margin(cost, second), layout, rows, cols)]
    else:
        found = []
        for frame in [(rows, cols)] + ([(cols, rows)] if rows != cols else []):
            placed = _greedy(H, V, *frame, group=group)
            found.append((placed.cost, placed.margin, [m - 1 for m in placed.order], *frame))
    cost, margin, layout, r, c = min(found, key=lambda f: (f[0], f[3]))
    best = None
    for quarter in range(4):
        turned, tr, tc = _turned(layout, r, c, quarter)
        if (tr, tc) != (rows, cols):
            continue
        picture = np.concatenate([np.concatenate([parts[turned[i * tc + j]].arr for j in range(tc)], axis=1)
                                  for i in range(tr)], axis=0)
        key = (-upright_score(picture), quarter)
        if best is None or key < best[0]:
            best = (key, turned)
    turned = best[1]
    return RotatedPlacement([m // 4 + 1 for m in turned], margin, float(cost), [90 * (m % 4) for m in turned])


def solve_grid(row: dict, rows: int, cols: int, rotated: bool = False, shaped: bool = False,
               between_tabs: bool = False):
    """The solver's answer to a grid order item (``order_generation_3x3``, ``order_restoration_4x4``, ...):
    the placed order, or for a choice item the option whose layout has the lowest seam cost; ``shaped``:
    interlocking pieces (``_tabs``; ``between_tabs``: of one outline, ``_tabs_content``)."""
    import re

    from ..spec import LETTERS, format_order
    from .solver import SolverAnswer

    pieces = [_decoded(p) for p in row["images"]] if shaped else list(row["images"])
    if rotated:
        return _solve_rotated(row, pieces, rows, cols, shaped)
    if not row.get("options"):
        placed = place(pieces, rows, cols, shaped=shaped, between_tabs=between_tabs)
        return SolverAnswer(format_order(placed.order), placed.margin, {"cost": placed.cost})
    H, V = _costs(pieces, shaped, between_tabs)
    costs = {}
    for j, option in enumerate(row["options"]):
        order = [int(x) for x in re.findall(r"\d+", str(option))]
        ok = sorted(order) == list(range(1, rows * cols + 1))
        costs[LETTERS[j]] = _layout_cost(H, V, [i - 1 for i in order], rows, cols) if ok else np.inf
    ranked = sorted(costs.values())
    margin = _margin(ranked[0], ranked[1] if len(ranked) > 1 else np.inf)
    return SolverAnswer(min(costs, key=costs.get), margin, {"costs": costs})


def _decoded(image):
    """A row's image as PIL (``datasets`` may hand ``{"bytes": ...}``), keeping its alpha."""
    if isinstance(image, dict):
        import io

        from PIL import Image

        return Image.open(io.BytesIO(image["bytes"])) if image.get("bytes") else Image.open(image["path"])
    return image


def _solve_rotated(row: dict, pieces: list, rows: int, cols: int, shaped: bool = False):
    """A ``_rot`` item: the placed oriented order, or for a choice item the option that agrees most with it
    (the share of regions whose image and rotation match; ties to the earlier letter)."""
    from ..spec import LETTERS, format_oriented, parse_oriented
    from .solver import SolverAnswer

    placed = place_rotated(pieces, rows, cols, shaped)
    mine = list(zip(placed.order, placed.rotations))
    if not row.get("options"):
        return SolverAnswer(format_oriented(placed.order, placed.rotations), placed.margin, {"cost": placed.cost})
    agree = {}
    for j, option in enumerate(row["options"]):
        parsed = parse_oriented(str(option))
        agree[LETTERS[j]] = sum(a == b for a, b in zip(mine, zip(*parsed))) / len(mine) if parsed else -1.0
    letter = max(agree, key=lambda k: (agree[k], -ord(k)))
    return SolverAnswer(letter, placed.margin, {"agreement": agree})
