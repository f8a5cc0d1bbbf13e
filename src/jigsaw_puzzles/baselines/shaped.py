"""The solver on interlocking pieces (``_tabs``, ``_tabs_silhouette``; ``_tabs_content`` with :mod:`.content`).

Outlines first, content to break ties: two sides fit when their alphas sum to 255 across the band between them
(:mod:`.outline`), which holds exactly for true neighbours; a silhouette has no content, so its answer rests on
the outlines alone. Per task:

* **orders**: the placer (:mod:`.placer`) on outline costs (misfit + 1e-3 content seam).
* **Connection Verification**: horizontal or vertical when the two pieces fit that way (a misfit under
  :data:`FIT_PX` pixels; the better fit, content breaking a tie), else not adjacent; with 8 directions, a pair
  that fits no way is a diagonal one, read from its cells' touching corners as for straight pieces.
"""

from __future__ import annotations

import numpy as np

from ..geometry import tab_margin
from ..spec import LETTERS, ConfigSpec, format_anomaly
from .outline import costs, geometry_of, misfits
from .placer import _decoded, solve_grid
from .solver import THRESHOLDS, SolverAnswer, _confidence, _cv_relation

#: Two sides fit when they misfit by less than this many pixels of area (true neighbours: exactly 0).
FIT_PX = 2.0
#: The generator's silhouette cut lines and mask outlines (generation/tabs/render.py's ``LINE``).
LINE = (40, 40, 40)
#: A mask with no unmasked neighbour has no seam: it costs the straight solver's ``pl_isolated``, on the seam's
#: ``nd / (nd + 1)`` scale (it wins only when every other mask fits worse).
ISOLATED = THRESHOLDS["pl_isolated"] / (1 + THRESHOLDS["pl_isolated"])


def _pair(row) -> tuple[list, tuple[int, int, int, int]]:
    pieces = [_decoded(im) for im in row["images"][:2]]
    return pieces, geometry_of(pieces[0].size)


def _fits(pieces, geo) -> dict[str, float]:
    """The misfit (pixels) of <image 2> right of, left of, below and above <image 1>."""
    H, V = misfits(pieces, geo)
    area = geo[0] * geo[1]
    return {"right": H[0, 1] * area, "left": H[1, 0] * area, "below": V[0, 1] * area, "above": V[1, 0] * area}


def _connection(row) -> SolverAnswer:
    pieces, geo = _pair(row)
    fit = _fits(pieces, geo)
    Hc, Vc = costs(pieces)  # misfit + 1e-3 content: breaks a tie of two exact fits
    h, v = min(Hc[0, 1], Hc[1, 0]), min(Vc[0, 1], Vc[1, 0])
    fits_h, fits_v = min(fit["right"], fit["left"]) < FIT_PX, min(fit["below"], fit["above"]) < FIT_PX
    relation = ("h" if h <= v else "v") if fits_h and fits_v else "h" if fits_h else "v" if fits_v else "none"
    cost = {"h": h, "v": v, "none": FIT_PX / (geo[0] * geo[1])}
    cost[relation] = min(cost[relation], 0.0)
    options = row.get("options") or ["horizontal", "vertical", "not adjacent"]
    scores = {LETTERS[j]: float(cost[_cv_relation(o, j)]) for j, o in enumerate(options)}
    best = min(scores, key=scores.get)
    return SolverAnswer(best, _confidence(np.array(list(scores.values())) + 1e-9), {"costs": scores, "misfit_px": fit})


def _direction(row, spec: ConfigSpec) -> SolverAnswer:
    """Connection Verification with 8 directions: an edge neighbour fits exactly; a pair that fits no way is a
    corner neighbour: of the diagonals where two cells of the grid have the pieces' flat sides on their border
    (:func:`.outline.possible`), the one whose cells' touching corners differ least."""
    from ..prompts import direction_options
    from .outline import STEPS, possible
    from .solver import _corner_costs

    pieces, geo = _pair(row)
    fit = _fits(pieces, geo)
    best = min(fit, key=fit.get)
    scores = {"misfit_px": fit}
    if fit[best] >= FIT_PX:
        cw, ch, m, _ = geo
        cells = [np.asarray(p)[m:m + ch, m:m + cw, :3] for p in pieces]
        allowed = possible(spec, [np.asarray(p)[..., 3] for p in pieces])
        corners = {d: v if allowed(*STEPS[d]) else np.inf for d, v in _corner_costs(*cells).items()}
        best, scores["corners"] = min(corners, key=corners.get), corners
    names = tuple(STEPS)
    texts = direction_options(names)
    options = list(row.get("options") or texts)
    text = texts[names.index(best)]
    letter = LETTERS[options.index(text)] if text in options else LETTERS[names.index(best)]
    return SolverAnswer(letter, 1.0 if "corners" not in scores else _confidence(scores["corners"].values()), scores)


# ----------------------------------------------------------------------------------------- boards
def _board(image) -> np.ndarray:
    """A board as an RGBA uint8 array (an image without alpha is opaque)."""
    arr = np.asarray(_decoded(image).convert("RGBA"))
    return arr


def _frame(board: np.ndarray, rows: int, cols: int, ring: bool = False):
    """``(cell width, cell height, margin, canvas box of cell k, origin)`` of a board cut on a rows x cols grid:
    the grid is the board (``_tabs``), or with ``ring`` lies inside it, ``origin`` px in from its left and top
    (a content board, :func:`.content.ring_frame`)."""
    height, width = board.shape[:2]
    if ring:
        from .content import ring_frame

        cw, ch, m = ring_frame((width, height), rows, cols)
    else:
        cw, ch = width // cols, height // rows
        m = tab_margin(min(cw, ch))
    o = m if ring else 0

    def box(k: int) -> tuple[int, int, int, int]:
        r, c = divmod(k, cols)
        return c * cw - m + o, r * ch - m + o, (c + 1) * cw + m + o, (r + 1) * ch + m + o
    return cw, ch, m, box, o


def _over_white(board: np.ndarray) -> np.ndarray:
    a = board[..., 3:].astype(np.float32) / 255
    return board[..., :3].astype(np.float32) * a + 255 * (1 - a)


def _anomaly(row, spec: ConfigSpec) -> SolverAnswer:
    """Anomaly Detection on shaped pieces: the pieces tile the picture exactly, so an unaltered board is opaque
    everywhere and a turned or mirrored piece leaves a gap (transparent pixels) where its old outline was. The
    altered cell is one whose canvas holds every gap; the transform, the one whose undoing mends the seams
    best, read on the cells as for straight pieces."""
    from .solver import _anomaly_hypotheses

    rows, cols = spec.grid
    board = _board(row["images"][0])
    gaps = board[..., 3] < 255
    if not gaps.any():
        return SolverAnswer(format_anomaly(), 1.0, {"gap_px": 0})
    cw, ch, m, box, _ = _frame(board, rows, cols)
    ys, xs = np.nonzero(gaps)
    inside = {}
    for k in range(rows * cols):
        left, top, right, bottom = box(k)
        inside[k] = int(((xs >= left) & (xs < right) & (ys >= top) & (ys < bottom)).sum())
    holders = [k for k, v in inside.items() if v == len(xs)] or [max(inside, key=inside.get)]
    if spec.cut == "silhouette":  # no content: the gap each transform would leave, against the gap seen
        return _anomaly_outline(board, gaps, holders, box, (cw, ch))
    hyp, _ = _anomaly_hypotheses(_over_white(board)[:ch * rows, :cw * cols], rows, cols)
    (k, name, typ), ratio = min(((key, r) for key, r in hyp.items() if key[0] in holders), key=lambda kv: kv[1])
    costs = {f"{LETTERS[kk]}{tp}": float(r) for (kk, _, tp), r in hyp.items() if kk in holders}
    return SolverAnswer(format_anomaly(LETTERS[k], typ), _confidence(costs.values()),
                        {"costs": costs, "gap_px": int(len(xs)), "holders": holders, "undo": name})


_UNDO = {"rot180": (lambda a: np.rot90(a, 2), "A"), "rot90": (lambda a: np.rot90(a, -1), "A"),
         "rot270": (lambda a: np.rot90(a, 1), "A"), "flip_lr": (lambda a: a[:, ::-1], "B"),
         "flip_tb": (lambda a: a[::-1], "B")}


def _anomaly_outline(board: np.ndarray, gaps: np.ndarray, holders, box, cell) -> SolverAnswer:
    """A silhouette board: the altered piece is drawn last with its whole cut line, so the region its line
    encloses around its cell's centre is its new shape; undoing a transform on that shape gives its old one, and
    the old shape less the new is the gap it would leave. The cell and transform whose predicted gap matches the
    gap seen best win."""
    costs, best = {}, None
    for k in holders:
        canvas = _crop(board, box(k))
        seen = _crop(gaps, box(k), False)
        picture = _crop(np.ones(gaps.shape, bool), box(k), False)
        wall = (canvas[..., :3] == LINE).all(-1) | (canvas[..., 3] == 0)
        shape = ~_erode(~_fill(~wall, (wall.shape[0] // 2, wall.shape[1] // 2)), 1)  # with its line
        for name, (undo, typ) in _UNDO.items():
            old = undo(shape)
            if old.shape != shape.shape or (name in ("rot90", "rot270") and cell[0] != cell[1]):
                continue
            predicted = old & ~shape & picture
            cost = float((predicted ^ seen).sum()) / max(1, int(seen.sum()))
            key = f"{LETTERS[k]}{typ}"
            costs[key] = min(costs.get(key, np.inf), cost)
            if best is None or cost < best[0]:
                best = (cost, k, typ, name)
    _, k, typ, name = best
    return SolverAnswer(format_anomaly(LETTERS[k], typ), _confidence(costs.values()),
                        {"costs": costs, "gap_px": int(gaps.sum()), "holders": list(holders), "undo": name})


def _runs(free: np.ndarray) -> np.ndarray:
    """A label per maximal run of ``free`` pixels along each row (0 off the runs)."""
    starts = free & ~np.pad(free, ((0, 0), (1, 0)))[:, :-1]
    return np.cumsum(starts.ravel()).reshape(free.shape) * free


def _fill(free: np.ndarray, start: tuple[int, int]) -> np.ndarray:
    """The 4-connected region of ``free`` pixels around ``start``: grown to whole row runs, then whole column runs,
    until it stops growing (a few rounds for a piece's shape)."""
    region = np.zeros(free.shape, bool)
    if not free[start]:
        return region
    by_row, by_col = _runs(free), _runs(free.T).T
    region[start] = True
    while True:
        grown = region
        for labels in (by_row, by_col):
            hit = np.zeros(labels.max() + 1, bool)
            hit[labels[grown]] = True
            hit[0] = False
            grown = hit[labels]
        if grown.sum() == region.sum():
            return grown
        region = grown


def _erode(mask: np.ndarray, k: int) -> np.ndarray:
    out = mask.copy()
    for _ in range(k):
        shrunk = out.copy()
        shrunk[1:] &= out[:-1]
        shrunk[:-1] &= out[1:]
        shrunk[:, 1:] &= out[:, :-1]
        shrunk[:, :-1] &= out[:, 1:]
        shrunk[0, :] = shrunk[-1, :] = shrunk[:, 0] = shrunk[:, -1] = False
        out = shrunk
    return out


def _across(picture: np.ndarray, inside: np.ndarray, valid: np.ndarray) -> float:
    """The solver's prediction-based seam dissimilarity (:func:`~.continuity.seam_dissimilarity`) across the
    boundary of ``inside``, in every direction, on pixel pairs with two valid pixels either side; nan without
    any."""
    total, count = 0.0, 0
    height, width = inside.shape
    for axis in (0, 1):
        for step in (1, -1):
            size = height if axis == 0 else width
            lo, hi = (1, size - 2) if step == 1 else (2, size - 1)  # p - step and p + 2 step stay inside

            def at(offset):  # index p of the slice reads pixel p + offset * step
                sl = [slice(None), slice(None)]
                sl[axis] = slice(lo + offset * step, hi + offset * step)
                return tuple(sl)
            a1, a0, b0, b1 = at(-1), at(0), at(1), at(2)
            ok = inside[a0] & inside[a1] & ~inside[b0] & ~inside[b1] & valid[a0] & valid[a1] & valid[b0] & valid[b1]
            if not ok.any():
                continue
            pa0, pa1, pb0, pb1 = (picture[s][ok] for s in (a0, a1, b0, b1))
            e_ab, e_ba = pb0 - (2 * pa0 - pa1), pa0 - (2 * pb0 - pb1)
            total += float((np.sqrt(np.abs(e_ab) + 1) - 1).sum() + (np.sqrt(np.abs(e_ba) + 1) - 1).sum())
            count += int(ok.sum()) * 3
    return total / count if count else float("nan")


def _outline_seam(picture: np.ndarray, inside: np.ndarray, valid: np.ndarray, missing: float = 1.0) -> float:
    """How well a shape sits in a picture by its content, scaled to [0, 1): the seam across its outline over the
    same measure 2-4 px inside and outside it (the picture's own texture), ``nd / (nd + 1)``; ``missing`` with no
    seam."""
    seam = _across(picture, inside, valid)
    scale = [_across(picture, _erode(inside, k), valid) for k in (2, 3, 4)] + \
        [_across(picture, ~_erode(~inside, k), valid) for k in (2, 3, 4)]
    scale = [v for v in scale if np.isfinite(v)]
    if not np.isfinite(seam) or not scale:
        return missing
    nd = seam / (float(np.mean(scale)) + 0.05)
    return nd / (nd + 1)


def _crop(array: np.ndarray, box, fill=0) -> np.ndarray:
    left, top, right, bottom = box
    out = np.full((bottom - top, right - left) + array.shape[2:], fill, dtype=array.dtype)
    y0, x0, y1, x1 = max(top, 0), max(left, 0), min(bottom, array.shape[0]), min(right, array.shape[1])
    if y1 > y0 and x1 > x0:
        out[y0 - top:y1 - top, x0 - left:x1 - left] = array[y0:y1, x0:x1]
    return out


def _canvas(image, size: tuple[int, int]) -> np.ndarray:
    """A candidate piece as an RGBA array of the hole's canvas size."""
    im = _decoded(image).convert("RGBA")
    return np.asarray(im if im.size == size else im.resize(size))


def _laid_in(below: np.ndarray, above: np.ndarray, picture: np.ndarray):
    """``(picture, inside, valid)``: ``above`` laid into ``below`` (RGBA canvases), where their alphas add up
    (the two are meant to tile), its own pixels (``inside``) and the pixels that hold some of either."""
    a_b, a_a = below[..., 3:].astype(np.float32) / 255, above[..., 3:].astype(np.float32) / 255
    total = a_b + a_a
    filled = (below[..., :3] * a_b + above[..., :3] * a_a) / np.maximum(total, 1e-6)
    return filled, above[..., 3] >= 128, picture & (total[..., 0] > 0.5)


def _missing_piece(row, spec: ConfigSpec, seam: bool = True) -> SolverAnswer:
    """Missing Piece Selection on shaped pieces: the hole is the board's transparent region; a candidate misfits
    it by the pixels where its alpha and the board's do not sum to 255 (0 for the true piece and, under the
    ``same outline`` policy, for every candidate), its content breaking ties (``seam``): the seam across the
    hole's outline once the candidate is laid in."""
    rows, cols = spec.grid
    board = _board(row["images"][0])
    cw, ch, m, box, o = _frame(board, rows, cols, spec.cut == "content")
    deficit = 255 - board[..., 3].astype(np.int64)
    hole = int(np.argmax([deficit[o + (k // cols) * ch:o + (k // cols + 1) * ch,
                                  o + (k % cols) * cw:o + (k % cols + 1) * cw].sum() for k in range(rows * cols)]))
    below = _crop(board, box(hole))
    picture = _crop(np.ones(board.shape[:2], bool), box(hole), False)
    n = len(row.get("options") or []) or len(row["images"]) - 1
    costs, misfit = {}, {}
    for j, image in enumerate(row["images"][1:1 + n]):
        above = _canvas(image, below.shape[1::-1])
        gap = np.abs(below[..., 3].astype(np.int64) + above[..., 3] - 255)[picture].sum() / 255 / (cw * ch)
        misfit[LETTERS[j]] = float(gap)
        costs[LETTERS[j]] = float(gap + (1e-3 * _outline_seam(*_laid_in(below, above, picture)) if seam else 0))
    best = min(costs, key=costs.get)
    return SolverAnswer(best, _confidence(costs.values()), {"costs": costs, "misfit": misfit, "hole_cell": hole})


def _ring(alpha: np.ndarray) -> np.ndarray:
    """A shape's outline pixels: partly covered, or fully covered next to a pixel that is not."""
    full = alpha == 255
    inner = full.copy()
    inner[1:] &= full[:-1]
    inner[:-1] &= full[1:]
    inner[:, 1:] &= full[:, :-1]
    inner[:, :-1] &= full[:, 1:]
    return (alpha > 0) & ~inner


def _piece_localization(row, spec: ConfigSpec, seam: bool = True) -> SolverAnswer:
    """Piece Localization on shaped pieces: the masks are the cells most covered by the mask grey, read by their
    letters as for straight pieces. The piece misfits a mask by its flat sides off the picture's border (or a tab
    or blank on it; a content board has no flat side), by its alpha against the mask's grey across each side
    whose neighbour is not masked too, and by the share of its outline off the mask's drawn outline; its content
    breaks ties (``seam``): the seam across its outline once laid into the mask."""
    from ..geometry import MASK_GREY
    from .outline import band, is_flat
    from .solver import _by_label, _fraction_equal, _neighbours

    rows, cols = spec.grid
    board = _board(row["images"][0])
    ring = spec.cut == "content"
    cw, ch, m, box, o = _frame(board, rows, cols, ring)
    rgb = _over_white(board)[o:o + ch * rows, o:o + cw * cols]
    cells = [rgb[r * ch:(r + 1) * ch, c * cw:(c + 1) * cw] for r in range(rows) for c in range(cols)]
    k_masks = len(row.get("options") or []) or spec.num_options
    grey = np.array([_fraction_equal(c, np.array(MASK_GREY, np.float32)) for c in cells])
    masked = _by_label(cells, sorted(int(i) for i in np.argsort(-grey, kind="stable")[:k_masks]))
    above = _canvas(row["images"][1], (cw + 2 * m, ch + 2 * m))
    geo = (cw, ch, m, int(np.ceil(0.22 * min(cw, ch))) + 1)
    facing = {"top": (-1, 0), "bottom": (1, 0), "left": (0, -1), "right": (0, 1)}
    flat = {side: is_flat(band(above[..., 3], side, geo)) for side in facing}
    edge = _ring(above[..., 3])
    within = (above[..., 3] > 0) & ~edge  # the piece less its outline ring: what a mask's line encloses
    costs = {}
    for j, k in enumerate(masked):
        below = _crop(board, box(k))
        ink = below[..., :3]
        line = (ink == LINE).all(-1) & (below[..., 3] > 0)
        maskish = ((ink == MASK_GREY).all(-1) | line) & (below[..., 3] > 0)
        # the mask within its drawn cut line (the line is the piece's outline ring): what the line encloses around
        # the cell's centre, against the piece less its own ring; a photo pixel of the mask's grey is never in it
        inner = _fill(~(line | (below[..., 3] == 0)), (below.shape[0] // 2, below.shape[1] // 2))
        r, c = divmod(k, cols)
        gap = 0.0
        for side, (dr, dc) in facing.items():
            nr, nc = r + dr, c + dc
            inside = 0 <= nr < rows and 0 <= nc < cols
            if flat[side] == inside and not ring:  # a flat side lies on the picture's border, a tab or blank inside
                gap += 1.0
            elif inside and nr * cols + nc not in masked:  # masks side by side: only their cut line tells them
                gap += np.abs(band(inner.astype(np.int64), side, geo)
                              - band(within.astype(np.int64), side, geo)).sum() / (cw * ch)
        near = line.copy()  # the mask's cut line, give or take a pixel
        near[1:] |= line[:-1]
        near[:-1] |= line[1:]
        near[:, 1:] |= line[:, :-1]
        near[:, :-1] |= line[:, 1:]
        gap += 0.1 * (1 - near[edge].mean())  # the piece's outline lies on the mask's drawn outline
        if ring and seam:  # a content board: every mask has the piece's outline, only the seam tells them apart
            gap = 0.0
        picture = _crop(np.ones(board.shape[:2], bool), box(k), False)
        other_masks = maskish & ~(above[..., 3] > 0)
        below_clear = below.copy()
        below_clear[maskish, 3] = 0  # the mask is what the piece replaces
        filled, inside, valid = _laid_in(below_clear, above, picture)
        fit = _outline_seam(filled, inside, valid & ~other_masks, ISOLATED) if seam else 0.0
        costs[LETTERS[j]] = float(gap + 1e-3 * fit)
    best = min(costs, key=costs.get)
    return SolverAnswer(best, _confidence(costs.values()), {"costs": costs, "masked_cells": masked})


def solve_shaped(row: dict, spec: ConfigSpec) -> SolverAnswer:
    """The solver's answer to a row of a tab config (``spec.cut`` is ``tabs``, ``silhouette`` or ``content``)."""
    family = spec.family
    if family.startswith("order"):
        return solve_grid(row, *spec.grid, rotated=spec.rotated, shaped=True, between_tabs=spec.cut == "content")
    if spec.cut == "content" and not family.startswith(("missing_piece_selection", "piece_localization")):
        from . import content  # outlines that fit everywhere: the seams of the pieces laid together

        if family.startswith("connection_verification"):
            return content.direction(row) if family.endswith("_8dir") else content.connection(row)
        return content.anomaly(row, spec)
    if family.startswith("connection_verification"):
        return _direction(row, spec) if family.endswith("_8dir") else _connection(row)
    if family.startswith("anomaly_detection"):
        return _anomaly(row, spec)
    if family.startswith("missing_piece_selection"):
        return _missing_piece(row, spec)
    if family.startswith("piece_localization"):
        return _piece_localization(row, spec)
    raise ValueError(f"{spec.name}: no solver for this tab config yet")
