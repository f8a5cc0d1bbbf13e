"""``--model shape``: what the outlines alone decide (the shape baseline).

It reads each image's alpha channel and the marks the generator draws on boards (where the grey masks lie and the
letters on them, the cut lines of masks and silhouettes), never a photo's colour; and the row's ``id``,
``options`` and config name, never ``answer`` or ``metadata``. On a ``_tabs`` config it shows how much the
outlines give away; on a ``_tabs_content`` config, whose outlines say nothing of the answer, and on a straight
config (every piece the same rectangle), it has nothing to go on.

Per item it scores every answer by the outlines alone (lower is better), keeps those within :data:`TIE_PX` pixels
of area of the best (:data:`TIE` on Piece Localization's mixed score) and draws among them with its own seeded
stream (seed, row id); when the outlines leave every answer, it gives the random baseline's own answer
(:func:`.random_baseline.random_answer`). So it is right where the outlines decide and at chance where they do
not. ``confidence`` is ``1 / (answers left)``, 0 when every answer is left.

* **straight**: one outline for every piece: the random baseline's answer.
* **orders**: each layout's misfit (:func:`.outline.misfits`: gaps and overlaps of the alphas laid side by side,
  a flat side inside the picture never fits); up to 6 pieces (``_rot``: 4) every layout is scored, beyond the
  greedy placer runs on the misfits plus a seeded tie-breaking jitter; a ``_rot`` layout's turn as a whole is
  drawn among the turns that fit (an outline cannot tell it).
* **Connection Verification** (8 directions too): each relation costs the misfit of the pieces laid that way
  (a diagonal or far pair costs :data:`.shaped.FIT_PX`; nothing when the pair fits every way, as every pair of a
  congruent cut does: then a fit tells nothing), if some two cells of the grid in that relation have the pieces'
  flat sides on their border sides (``_tabs``, silhouettes: the picture's border is flat).
* **Anomaly Detection**: on ``_tabs`` and silhouettes an unaltered board is opaque and every transform the
  generator applies leaves a gap (docs/tasks.md), so no gap is *unchanged* and a gap names the cells whose canvas
  holds it; a silhouette's drawn cut line also tells the transform (:func:`.shaped._anomaly_outline`), a
  ``_tabs`` board's alpha does not (both types stay). A content board's alpha is the same for every answer (its
  checkerboard pieces are their own images under every transform): the random baseline's answer.
* **Missing Piece Selection, Piece Localization**: the solver's outline terms (:mod:`.shaped`) without its seam.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..rng import ItemRNG
from ..spec import (ANOMALY, CHOICE, LETTERS, ConfigSpec, format_anomaly, format_order, format_oriented,
                    get as get_spec, parse_oriented)
from .outline import STEPS, alpha_of, geometry_of, misfits, possible
from .placer import _decoded, _greedy, _layout_cost, _turned
from .random_baseline import random_answer
from .solver import SolverAnswer, _cv_relation

#: Answers whose outline misfits lie within this many pixels of area of the best are tied.
TIE_PX = 1.0
#: Piece Localization's outline score (flat sides, band misfits, outline off the mask's line) ties within this.
TIE = 1e-4
#: Layouts scored one by one up to this many pieces (``_rot``: :data:`EXHAUSTIVE_ROTATED`).
EXHAUSTIVE, EXHAUSTIVE_ROTATED = 6, 4
#: What a scorer returns when the outlines leave every answer.
ALL = None


def shape_answer(row: dict, config: str, seed: int = 0) -> SolverAnswer:
    """The shape baseline's answer to ``row`` of ``config`` (see the module doc)."""
    spec = get_spec(config)
    if spec.cut == "straight" or not row.get("images") or \
            (spec.cut == "content" and spec.family.startswith("anomaly_detection")):
        return SolverAnswer(random_answer(row, config, seed), 0.0, {"tied": "all"})
    rng = ItemRNG("shape-baseline", seed, row["id"])
    family = spec.family
    if family.startswith("order"):
        scored = _orders(row, spec, rng)
    elif family.startswith("connection_verification"):
        scored = _connection(row, spec)
    elif family.startswith("anomaly_detection"):
        scored = _anomaly(row, spec)
    else:
        from .shaped import _missing_piece, _piece_localization

        if family.startswith("missing_piece_selection"):
            answer = _missing_piece(row, spec, seam=False)
            area = _cell_area(row["images"][1])
            scored = {k: v * area for k, v in answer.scores["misfit"].items()}, TIE_PX
        else:
            scored = _piece_localization(row, spec, seam=False).scores["costs"], TIE
    if scored is ALL:
        return SolverAnswer(random_answer(row, config, seed), 0.0, {"tied": "all"})
    if isinstance(scored, str):  # a layout the placer drew among the tied ones (a large grid)
        return SolverAnswer(scored, 0.0, {"tied": "drawn"})
    costs, tie = scored
    best = min(costs.values())
    tied = sorted(a for a, c in costs.items() if c <= best + tie)
    if len(tied) == len(costs) and _complete(costs, row, spec):
        return SolverAnswer(random_answer(row, config, seed), 0.0, {"tied": "all"})
    return SolverAnswer(tied[rng.randbelow(len(tied))], 1 / len(tied), {"tied": tied})


def _complete(costs: dict, row: dict, spec: ConfigSpec) -> bool:
    """Whether ``costs`` scores the whole answer space (then a tie of all is the random baseline's draw)."""
    if spec.kind == CHOICE:
        return set(costs) == set(LETTERS[:len(row.get("options") or []) or spec.num_options])
    return spec.kind != ANOMALY and len(costs) == np.prod(range(1, spec.order_length + 1))


def _alphas(row) -> list[np.ndarray]:
    return [alpha_of(_decoded(image)) for image in row["images"]]


def _cell_area(image) -> int:
    cw, ch, _, _ = geometry_of(_decoded(image).size)
    return cw * ch


# ------------------------------------------------------------------------------------------------- orders
def _orders(row, spec: ConfigSpec, rng: ItemRNG):
    rows, cols = spec.grid
    alphas = _alphas(row)
    cw, ch, _, _ = geometry_of(alphas[0].shape[::-1])
    if spec.rotated:
        return _rotated(row, alphas, rows, cols, cw * ch, rng)
    H, V = misfits(alphas)
    H, V = H * cw * ch, V * cw * ch
    n = rows * cols
    if row.get("options"):
        costs = {}
        for j, option in enumerate(row["options"]):
            order = [int(x) for x in "".join(c if c.isdigit() else " " for c in str(option)).split()]
            ok = sorted(order) == list(range(1, n + 1))
            costs[LETTERS[j]] = _layout_cost(H, V, [i - 1 for i in order], rows, cols) if ok else np.inf
        return costs, TIE_PX
    if n <= EXHAUSTIVE:
        return {format_order([p + 1 for p in perm]): _layout_cost(H, V, perm, rows, cols)
                for perm in itertools.permutations(range(n))}, TIE_PX
    off = ~np.eye(n, dtype=bool)
    if all(np.isfinite(M[off]).all() and np.ptp(M[off]) <= TIE_PX for M in (H, V)):
        return ALL  # every piece fits every other either way: every layout fits
    placed = _greedy(H + _jitter(rng, n, 0), V + _jitter(rng, n, 1), rows, cols)
    return format_order(placed.order)


def _jitter(rng: ItemRNG, n: int, which: int) -> np.ndarray:
    """An ``n x n`` seeded tie-break, below 1e-6 px of area: the greedy placer's choice among equal fits."""
    raw = b"".join(bytes.fromhex(rng.token("jitter", which, i)) for i in range(-(-n * n // 16)))
    return np.frombuffer(raw, ">u2")[:n * n].reshape(n, n) / 65536 * 1e-6


def _rotated(row, alphas, rows: int, cols: int, area: int, rng: ItemRNG):
    """A ``_rot`` item: candidates ``4 * piece + q`` (piece turned clockwise by ``q`` quarters), as the placer's."""
    turns = [np.ascontiguousarray(np.rot90(a, -q)) for a in alphas for q in range(4)]
    H, V = misfits(turns)
    H, V = H * area, V * area
    group = np.repeat(np.arange(len(alphas)), 4)
    same = group[:, None] == group[None, :]
    H[same], V[same] = np.inf, np.inf
    n = rows * cols

    def oriented(layout):
        return format_oriented([m // 4 + 1 for m in layout], [90 * (m % 4) for m in layout])
    if row.get("options"):
        costs = {}
        for j, option in enumerate(row["options"]):
            parsed = parse_oriented(str(option))
            ok = parsed is not None and sorted(parsed[0]) == list(range(1, n + 1))
            costs[LETTERS[j]] = _layout_cost(H, V, [4 * (i - 1) + r // 90 for i, r in zip(*parsed)], rows, cols) \
                if ok else np.inf
        return costs, TIE_PX
    if n <= EXHAUSTIVE_ROTATED:
        return {oriented([4 * p + q for p, q in zip(perm, qs)]):
                _layout_cost(H, V, [4 * p + q for p, q in zip(perm, qs)], rows, cols)
                for perm in itertools.permutations(range(n)) for qs in itertools.product(range(4), repeat=n)}, TIE_PX
    found = [(p.cost, [m - 1 for m in p.order], *frame) for frame in [(rows, cols)] + ([(cols, rows)] * (rows != cols))
             for p in [_greedy(H + _jitter(rng, 4 * n, 0), V + _jitter(rng, 4 * n, 1), *frame, group=group)]]
    _, layout, r, c = min(found, key=lambda f: f[0])
    whole = [t for q in range(4) for t in [_turned(layout, r, c, q)] if t[1:] == (rows, cols)]
    return oriented(whole[rng.randbelow(len(whole))][0])  # the outlines cannot tell a turn of the whole picture


# ------------------------------------------------------------------------------------------ two pieces
def _connection(row, spec: ConfigSpec):
    from ..prompts import direction_options
    from .shaped import FIT_PX, _fits

    alphas = _alphas(row)[:2]
    fit = _fits(alphas, geometry_of(alphas[0].shape[::-1]))
    possible_way = possible(spec, alphas)
    steps = STEPS
    apart = 0.0 if max(fit.values()) < FIT_PX else FIT_PX  # fitting every way, a fit tells nothing (content)
    way = {d: (fit[d] if d in fit else apart) if possible_way(*steps[d]) else np.inf for d in steps}
    options = list(row.get("options") or [])
    if spec.family.endswith("_8dir"):
        texts = direction_options(tuple(steps))
        return {LETTERS[j]: way[list(steps)[texts.index(o)]] if o in texts else np.inf
                for j, o in enumerate(options)}, TIE_PX
    relation = {"h": min(way["right"], way["left"]), "v": min(way["above"], way["below"]),
                "none": apart if possible_way(0, 0, far=True) else np.inf}
    options = options or ["horizontal", "vertical", "not adjacent"]
    return {LETTERS[j]: relation[_cv_relation(o, j)] for j, o in enumerate(options)}, TIE_PX


# --------------------------------------------------------------------------------------------- anomaly
def _anomaly(row, spec: ConfigSpec):
    from .shaped import _anomaly_outline, _board, _frame

    rows, cols = spec.grid
    board = _board(row["images"][0])
    gaps = board[..., 3] < 255
    unchanged = format_anomaly()
    if not gaps.any():  # every transform the generator applies leaves a gap
        return {unchanged: 0.0, "altered": np.inf}, 0.0
    cw, ch, _, box, _ = _frame(board, rows, cols)
    ys, xs = np.nonzero(gaps)
    inside = {k: int(((xs >= box(k)[0]) & (xs < box(k)[2]) & (ys >= box(k)[1]) & (ys < box(k)[3])).sum())
              for k in range(rows * cols)}
    holders = [k for k, v in inside.items() if v == len(xs)] or [max(inside, key=inside.get)]
    if spec.cut == "silhouette":  # the drawn cut line tells the new shape, so the transform too
        costs = _anomaly_outline(board, gaps, holders, box, (cw, ch)).scores["costs"]  # keys: position, type
        return {format_anomaly(key[0], key[1]): v for key, v in costs.items()} | {unchanged: np.inf}, 1e-9
    return {format_anomaly(LETTERS[k], t): 0.0 for k in holders for t in "AB"} | {unchanged: np.inf}, 0.0
