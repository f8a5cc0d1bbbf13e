"""``--model solver``: a classical (weight-free) jigsaw solver for every Jigsaw-Puzzles task.

It answers from pixel continuity across piece borders only.  It reads ``row["images"]``,
``row["options"]`` and the config name - never ``answer`` or ``metadata``.

All decisions work on *normalised seam dissimilarities* ``nd`` (see ``continuity.py``):
``nd ~ 1`` means "this border looks like any other pixel line of the image" (a true seam),
while wrong seams are typically several times larger.  For every item the solver builds a
cost per option (lower is better); the answer is the arg-min and

    confidence = 1 - best_cost / second_best_cost        (0 = tie, -> 1 = unambiguous)

The per-option costs are returned in ``SolverAnswer.scores`` (plus a few diagnostics).
"""
from __future__ import annotations

import io
import itertools
import re
from dataclasses import dataclass, field

import numpy as np

from ..geometry import split_array
from ..spec import CONFIGS as _SPECS, LETTERS, format_anomaly, format_order
from .continuity import (
    SIDES,
    as_array,
    edge_strip,
    internal_scale,
    normalised,
    seam_dissimilarity,
)

__all__ = ["SolverAnswer", "solve", "CONFIGS", "THRESHOLDS"]

CONFIGS = tuple(_SPECS)

#: Decision constants (calibrated on synthetic images and on real photos; see
#: the README, 'Built-in baselines').  All are in units of the normalised dissimilarity ``nd``.
THRESHOLDS = {
    # connection_verification: adjacency score s = m * sqrt((m + 0.05) / (M + 0.05)) with
    # m = min(nd_horizontal, nd_vertical), M = max(...): "not adjacent" when s > this
    "cv_not_adjacent": 0.95,
    # piece_localization: cost of a masked cell with no unmasked 4-neighbour (no evidence):
    # it wins when every other masked cell's best fit is worse than this
    "pl_isolated": 1.5,
    # anomaly_detection: a cell is declared altered when undoing one transform brings the
    # mean nd of its two seams down to at most ad_ratio times its current value
    "ad_ratio": 0.9,
}

GREY = np.array([160, 160, 160], np.float32)
WHITE = np.array([255, 255, 255], np.float32)



@dataclass(frozen=True)
class SolverAnswer:
    """Raw text answer (the dataset's answer format), confidence in [0, 1], per-option costs."""

    text: str
    confidence: float
    scores: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- helpers
def _image(img) -> np.ndarray:
    if isinstance(img, dict):  # datasets Image(decode=False) -> {"bytes", "path"}
        from PIL import Image

        img = Image.open(io.BytesIO(img["bytes"])) if img.get("bytes") else Image.open(img["path"])
    return as_array(img)


class _Piece:
    """A piece with cached edge strips and internal scales."""

    __slots__ = ("arr", "_strip", "_scale")

    def __init__(self, arr: np.ndarray):
        self.arr = arr
        self._strip: dict = {}
        self._scale: dict = {}

    def strip(self, side: str) -> np.ndarray:
        s = self._strip.get(side)
        if s is None:
            s = self._strip[side] = edge_strip(self.arr, side)
        return s

    def scale(self, side: str) -> float:
        s = self._scale.get(side)
        if s is None:
            s = self._scale[side] = internal_scale(self.arr, side)
        return s


def _nd(a: _Piece, side: str, b: _Piece) -> float:
    """Normalised dissimilarity of gluing a's ``side`` to b's opposite side."""
    opp = SIDES[side]
    sa, sb = a.strip(side), b.strip(opp)
    if sa.shape != sb.shape:  # sizes differ (never with builder output)
        n = min(sa.shape[0], sb.shape[0])
        sa = sa[np.linspace(0, sa.shape[0] - 1, n).round().astype(int)]
        sb = sb[np.linspace(0, sb.shape[0] - 1, n).round().astype(int)]
    d = seam_dissimilarity(sa, sb)
    return float(normalised(d, a.scale(side), b.scale(opp)))


def _confidence(costs) -> float:
    c = np.sort(np.asarray(list(costs), dtype=np.float64))
    if c.size < 2 or not np.isfinite(c[1]) or c[1] <= 0:
        return 0.0
    return float(np.clip(1.0 - c[0] / c[1], 0.0, 1.0))


def _neighbours(k: int, g: int, cols: int | None = None):
    """(neighbour index, side of the neighbour that faces cell k) for the 4-neighbourhood of a ``g`` x ``cols``
    grid (square when ``cols`` is None)."""
    rows, cols = g, cols or g
    r, c = divmod(k, cols)
    out = []
    if r > 0:
        out.append(((r - 1) * cols + c, "bottom"))
    if r < rows - 1:
        out.append(((r + 1) * cols + c, "top"))
    if c > 0:
        out.append((r * cols + c - 1, "right"))
    if c < cols - 1:
        out.append((r * cols + c + 1, "left"))
    return out


def _fraction_equal(cell: np.ndarray, colour: np.ndarray) -> float:
    """The share of the cell's pixels that are exactly ``colour``."""
    if cell.ndim != 3 or cell.shape[-1] != len(colour):
        return float(np.all(cell == colour, axis=-1).mean())
    match = cell[..., 0] == colour[0]  # channel by channel: numpy's all() over a last axis of 3 is slow
    for k in range(1, len(colour)):
        match &= cell[..., k] == colour[k]
    return float(match.mean())


def _resize_to(arr: np.ndarray, shape) -> np.ndarray:
    if arr.shape[:2] == tuple(shape[:2]):
        return arr
    from PIL import Image

    im = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    return as_array(im.resize((shape[1], shape[0]), Image.BICUBIC))


def _parse_order(text: str):
    nums = [int(x) for x in re.findall(r"\d+", str(text))]
    return nums if sorted(nums) == [1, 2, 3, 4] else None


# --------------------------------------------------------------------------- tasks
def _missing_piece(row, rows: int = 3, cols: int = 3) -> SolverAnswer:
    big = _image(row["images"][0])
    cells = split_array(big, rows, cols)
    white = [_fraction_equal(c, WHITE) for c in cells]
    k = int(np.argmax(white))
    h, w = cells[k].shape[:2]
    neigh = [(_Piece(cells[n]), side) for n, side in _neighbours(k, rows, cols)]
    n_opts = len(row["options"]) or len(row["images"]) - 1
    costs = {}
    for j, img in enumerate(row["images"][1:1 + n_opts]):
        cand = _Piece(_resize_to(_image(img), (h, w)))
        costs[LETTERS[j]] = float(np.mean([_nd(p, side, cand) for p, side in neigh]))
    best = min(costs, key=costs.get)
    return SolverAnswer(best, _confidence(costs.values()), {"costs": costs, "blank_cell": k})


def _piece_localization(row, config: str) -> SolverAnswer:
    n_masks = len(row["options"]) or (2 if config.endswith("easy") else 4)
    if config.endswith("easy"):
        g = cols = 2
    elif config.endswith("hard"):
        g = cols = 3
    elif config.startswith("piece_localization_"):  # a grid config: piece_localization_4x4[_k6]
        from ..spec import get

        g, cols = get(config).grid
    else:
        g = cols = 2 if n_masks == 2 else 3
    big = _image(row["images"][0])
    cells = split_array(big, g, cols)
    grey = np.array([_fraction_equal(c, GREY) for c in cells])
    masked = sorted(int(i) for i in np.argsort(-grey, kind="stable")[:n_masks])  # reading order
    masked = _by_label(cells, masked)  # masked[j]: the cell labelled LETTERS[j] (read from the board)
    h, w = cells[0].shape[:2]
    piece = _Piece(_resize_to(_image(row["images"][1]), (h, w)))
    costs, evidence = {}, {}
    for j, m in enumerate(masked):
        sides = [(n, side) for n, side in _neighbours(m, g, cols) if n not in masked]
        evidence[LETTERS[j]] = len(sides)
        if sides:
            costs[LETTERS[j]] = float(np.mean([_nd(_Piece(cells[n]), side, piece) for n, side in sides]))
        else:
            costs[LETTERS[j]] = THRESHOLDS["pl_isolated"]
    best = min(costs, key=costs.get)
    return SolverAnswer(best, _confidence(costs.values()),
                        {"costs": costs, "masked_cells": masked, "n_sides": evidence})


def _by_label(cells, masked: list[int]) -> list[int]:
    """The masked cells ordered by the letter each one shows: every letter is drawn on a grey box of the cell's
    size as the generator draws labels (``geometry.draw_label``) and each cell takes the nearest; the reading order
    (the generator's own labelling) unless that reads every letter exactly once."""
    from PIL import Image

    from ..geometry import MASK_GREY, draw_label

    letters = LETTERS[:len(masked)]
    h, w = cells[masked[0]].shape[:2]
    glyphs = []
    for letter in letters:
        box = Image.new("RGB", (w, h), MASK_GREY)
        draw_label(box, (0, 0, w, h), letter)
        glyphs.append(np.asarray(box, np.float32))
    read = []
    for m in masked:
        if cells[m].shape[:2] != (h, w):
            return masked
        read.append(int(np.argmin([np.abs(cells[m] - g).mean() for g in glyphs])))
    if sorted(read) != list(range(len(masked))):
        return masked
    return [m for _, m in sorted(zip(read, masked))]


_CORNERS = {"upper right": ((0, -1), (-1, 0)), "upper left": ((0, 0), (-1, -1)),
            "lower right": ((-1, -1), (0, 0)), "lower left": ((-1, 0), (0, -1))}


def _direction(row) -> SolverAnswer:
    """Connection Verification with 8 directions: where <image 2> lies around <image 1>. The adjacency score of
    :func:`_connection` tells an edge neighbour from a corner one; an edge neighbour takes the best-fitting of
    the four edges, a corner one the diagonal whose touching corners (4x4 pixels) differ least."""
    a, b = (_Piece(_image(im)) for im in row["images"][:2])
    edges = {"right": _nd(a, "right", b), "left": _nd(b, "right", a),
             "below": _nd(a, "bottom", b), "above": _nd(b, "bottom", a)}
    return _direction_answer(edges, a.arr, b.arr, row.get("options"))


def _direction_answer(edges: dict, a: np.ndarray, b: np.ndarray, options) -> SolverAnswer:
    """The 8-direction answer from the four edge seams (normalised) and the two cells' pixels (their corners)."""
    h, v = min(edges["right"], edges["left"]), min(edges["below"], edges["above"])
    m, M = min(h, v), max(h, v)
    adjacency = m * np.sqrt((m + 0.05) / (M + 0.05))
    diagonals = _corner_costs(a, b)
    edge = adjacency <= THRESHOLDS["cv_not_adjacent"]
    pool = edges if edge else diagonals
    best = min(pool, key=pool.get)
    names = ("right", "left", "above", "below", "upper right", "upper left", "lower right", "lower left")
    from ..prompts import direction_options

    texts = direction_options(names)  # the option that says it, wherever the row lists it (rotated options)
    options = list(options or texts)
    letter = LETTERS[options.index(texts[names.index(best)])] if texts[names.index(best)] in options \
        else LETTERS[names.index(best)]
    return SolverAnswer(letter, _confidence(pool.values()),
                        {"edges": edges, "corners": diagonals, "adjacency_score": float(adjacency)})


def _corner_costs(a: np.ndarray, b: np.ndarray, k: int = 4) -> dict[str, float]:
    """For each diagonal direction, how much the two cells' touching ``k`` x ``k`` corners differ."""
    patch = {0: slice(0, k), -1: slice(-k, None)}
    return {name: float(np.abs(a[patch[ra], patch[ca]].astype(np.float32)
                               - b[patch[rb], patch[cb]].astype(np.float32)).mean())
            for name, ((ra, ca), (rb, cb)) in _CORNERS.items()}


def _cv_relation(option: str, j: int) -> str:
    t = option.lower()
    if "not adjacent" in t or "non-adjacent" in t or "not" in t.split():
        return "none"
    if "horizontal" in t or "left-right" in t:
        return "h"
    if "vertical" in t or "top-bottom" in t or "above" in t:
        return "v"
    return ("h", "v", "none")[j] if j < 3 else "none"


def _connection(row) -> SolverAnswer:
    a, b = (_Piece(_image(im)) for im in row["images"][:2])
    h = min(_nd(a, "right", b), _nd(b, "right", a))
    v = min(_nd(a, "bottom", b), _nd(b, "bottom", a)) if a.arr.shape[1] == b.arr.shape[1] else np.inf
    if a.arr.shape[0] != b.arr.shape[0]:
        h = np.inf
    return _cv_answer(h, v, row["options"])


def _cv_answer(h: float, v: float, options) -> SolverAnswer:
    """Connection Verification from the best horizontal and vertical seams ``h``, ``v`` (normalised)."""
    # a true neighbour both fits well (m ~ 1) and fits clearly better in its orientation than
    # in the other one (M >> m); diagonal pairs fit moderately in both.  The winning
    # orientation's cost is shrunk by sqrt((m + .05) / (M + .05)).
    m, M = min(h, v), max(h, v)
    s = m * np.sqrt((m + 0.05) / (M + 0.05)) if np.isfinite(M) else m
    rel_cost = {"h": s if h <= v else h, "v": s if v < h else v, "none": THRESHOLDS["cv_not_adjacent"]}
    options = options or ["horizontal", "vertical", "not adjacent"]
    costs = {LETTERS[j]: float(rel_cost[_cv_relation(o, j)]) for j, o in enumerate(options)}
    best = min(costs, key=costs.get)
    return SolverAnswer(best, _confidence(costs.values()),
                        {"costs": costs, "h": h, "v": v, "adjacency_score": float(s)})


def _undo_transforms(square: bool):
    """(name, function, error type letter) for every transform the builder may have applied.

    Undoing a rotation by k*90 degrees is a rotation too, and flips are involutions, so the
    set of *undo* operations equals the set of operations.
    """
    ts = [("rot180", lambda x: x[::-1, ::-1], "A"),
          ("flip_lr", lambda x: x[:, ::-1], "B"),
          ("flip_tb", lambda x: x[::-1], "B")]
    if square:
        ts += [("rot90", lambda x: np.rot90(x, 1), "A"), ("rot270", lambda x: np.rot90(x, 3), "A")]
    return ts


def _anomaly(row, rows: int = 2, cols: int = 2) -> SolverAnswer:
    hyp, before = _anomaly_hypotheses(_image(row["images"][0]), rows, cols)
    (k, name, typ), ratio = min(hyp.items(), key=lambda kv: kv[1])
    altered = ratio <= THRESHOLDS["ad_ratio"]
    if altered:
        text = format_anomaly(LETTERS[k], typ)
    else:
        text = format_anomaly()
    # option costs: best ratio per (position, type) and the threshold for "unchanged"
    costs = {"unchanged": THRESHOLDS["ad_ratio"]}
    for (kk, nm, tp), r in hyp.items():
        key = f"{LETTERS[kk]}{tp}"
        costs[key] = min(costs.get(key, np.inf), float(r))
    return SolverAnswer(text, _confidence(costs.values()),
                        {"costs": costs, "best": {"cell": LETTERS[k], "undo": name, "ratio": float(ratio)},
                         "seam_cost_before": before})


def _anomaly_hypotheses(big: np.ndarray, rows: int, cols: int) -> tuple[dict, list[float]]:
    """``({(cell, undo, type letter): after / before}, before)``: for every cell and every transform that may have
    altered it, its seams' mean normalised dissimilarity once undone, over the current one."""
    cells = split_array(big, rows, cols)
    pieces = [_Piece(c) for c in cells]
    square = cells[0].shape[0] == cells[0].shape[1]
    # seams touching each cell: (neighbour, side of *this* cell facing it)
    if (rows, cols) == (2, 2):
        touching = {0: [(1, "right"), (2, "bottom")], 1: [(0, "left"), (3, "bottom")],
                    2: [(3, "right"), (0, "top")], 3: [(2, "left"), (1, "top")]}
    else:
        touching = {k: [(n, SIDES[side]) for n, side in _neighbours(k, rows, cols)] for k in range(rows * cols)}

    def cell_cost(p: _Piece, k: int) -> float:
        vals = []
        for n, side in touching[k]:
            if side in ("right", "bottom"):
                vals.append(_nd(p, side, pieces[n]))
            else:
                vals.append(_nd(pieces[n], SIDES[side], p))
        return float(np.mean(vals))

    before = [cell_cost(pieces[k], k) for k in range(len(cells))]
    hyp = {}
    for k in range(len(cells)):
        for name, fn, typ in _undo_transforms(square):
            t = fn(cells[k])
            if t.shape != cells[k].shape:
                continue
            after = cell_cost(_Piece(t), k)
            hyp[(k, name, typ)] = after / max(before[k], 1e-9)
    return hyp, before


def _pairwise(pieces):
    n = len(pieces)
    H = np.full((n, n), np.inf)
    V = np.full((n, n), np.inf)
    for i in range(n):
        for j in range(n):
            if i != j:
                if pieces[i].arr.shape[0] == pieces[j].arr.shape[0]:
                    H[i, j] = _nd(pieces[i], "right", pieces[j])
                if pieces[i].arr.shape[1] == pieces[j].arr.shape[1]:
                    V[i, j] = _nd(pieces[i], "bottom", pieces[j])
    return H, V


def _perm_cost(H, V, order) -> float:
    """Mean nd of the 4 internal seams for order = (TL, TR, BL, BR) as 0-based piece ids."""
    tl, tr, bl, br = order
    return float((H[tl, tr] + H[bl, br] + V[tl, bl] + V[tr, br]) / 4.0)


def _order(row, config: str) -> SolverAnswer:
    pieces = [_Piece(_image(im)) for im in row["images"][:4]]
    H, V = _pairwise(pieces)
    all_costs = {format_order([i + 1 for i in p]): _perm_cost(H, V, p) for p in itertools.permutations(range(4))}
    if config == "order_generation" or not row.get("options"):
        best = min(all_costs, key=all_costs.get)
        return SolverAnswer(best, _confidence(all_costs.values()), {"costs": all_costs})
    costs = {}
    for j, opt in enumerate(row["options"]):
        order = _parse_order(opt)
        costs[LETTERS[j]] = all_costs[format_order(order)] if order else np.inf
    best = min(costs, key=costs.get)
    return SolverAnswer(best, _confidence(costs.values()), {"costs": costs, "all_orders": all_costs})


# --------------------------------------------------------------------------- entry point
def solve(row: dict, config: str) -> SolverAnswer:
    """Answer one row of ``config`` from its images and options only.

    ``row`` needs ``images`` (list of PIL images) and ``options``; ``answer`` and
    ``metadata`` are never read (they may be absent).
    """
    if config.startswith("missing_piece_selection"):
        return _missing_piece(row)
    if config.startswith("piece_localization"):
        return _piece_localization(row, config)
    if config == "connection_verification":
        return _connection(row)
    if config == "anomaly_detection":
        return _anomaly(row)
    if config in ("order_restoration", "order_generation"):
        return _order(row, config)
    raise ValueError(f"unknown config {config!r}; expected one of {CONFIGS} (grid configs: baselines.solve)")
