"""Near-ties: can another machine's float noise explain why a hard item's distractors differ from ours?

Every decision of the search reads a similarity rounded to ``SIMILARITY_DECIMALS`` (order, the 0.95 bound, two
picks too alike); candidates within one step are ordered by pool id. Another machine's kernels move a similarity
by up to ~3.4e-7 (measured, docs/performance.md), so a decision can differ only where a similarity lies within
that noise of a rounding edge. :func:`explain_item` re-runs this item's selection here with such values (within
:data:`NEAR_TIE_MARGIN` of an edge) put on the other side of the edge, one or two at a time; the difference is a
near-tie only when one of these re-runs gives exactly the recorded distractors (source, cell, similarity). Any
other difference (an edited item, another generator) is not explained. Merges of duplicate sources are taken as
they are here (a source-level similarity at an edge is not re-run).
"""

from __future__ import annotations

import itertools
from typing import Callable, Sequence

import numpy as np

from .embed import PatchBank
from .search import _SCALE, DEFAULT_MAX_SIMILARITY

#: How close (in cosine) to a rounding edge a similarity must be for another machine to round it the other way:
#: 30x the largest change measured between CPU kernels (3.4e-7).
NEAR_TIE_MARGIN = 1e-5


def _edge_distance(s: np.ndarray) -> np.ndarray:
    scaled = np.asarray(s, np.float64) * _SCALE
    return np.abs(scaled - np.floor(scaled) - 0.5) / _SCALE


def _other_side(s: float) -> int:
    """The rounding of ``s`` had it lain just across its nearest edge (``x.5`` steps)."""
    x = s * _SCALE
    units = int(np.rint(x))
    return units + 1 if x >= units else units - 1


def _select(bank: PatchBank, emb: np.ndarray, rank: np.ndarray, groups: np.ndarray, q: int, units: np.ndarray,
            k: int, bound: int, pair_flip: set, pairs_seen: list | None):
    """The search's greedy pick (:func:`.search.nearest_neighbours`, exact) with the given rounded similarities."""
    ok = (groups != groups[q]) & (bank.pixel_keys != bank.pixel_keys[q]) & (units <= bound)
    cand = np.nonzero(ok)[0]
    order = cand[np.lexsort((rank[cand], -units[cand]))]
    picked: list[int] = []
    for c in order:
        c = int(c)
        clash = False
        for p in picked:
            if bank.pixel_keys[p] == bank.pixel_keys[c]:
                clash = True
                break
            s = float(emb[p] @ emb[c])
            u = int(np.rint(s * _SCALE))
            if (p, c) in pair_flip:
                u = _other_side(s)
            if pairs_seen is not None and u in (bound, bound + 1) and _edge_distance(s) < NEAR_TIE_MARGIN:
                pairs_seen.append((p, c))
            if u > bound:
                clash = True
                break
        if not clash:
            picked.append(c)
            if len(picked) == k:
                break
    cols = max(c for _, c in bank.cells) + 1
    return [(bank.source_ids[j], bank.cells[j][0] * cols + bank.cells[j][1], int(units[j]) / _SCALE)
            for j in picked], [int(units[j]) for j in picked]


def explain_item(bank: PatchBank, groups: np.ndarray, q: int, recorded: Sequence[dict], local: Sequence[dict], *,
                 k: int, shown: Callable[[list], list | None],
                 max_similarity: float = DEFAULT_MAX_SIMILARITY) -> str | None:
    """Why ``recorded`` (an export's ``distractors``) may differ from ``local`` (this machine's) for pool entry
    ``q`` (the item's blank), or ``None`` when float noise cannot explain it. ``groups``: the bank's duplicate-source
    groups; ``k``: the candidates mined; ``shown(candidates)``: the distractors the item shows from mined
    ``(source_id, cell, similarity)`` candidates (the pixel rule), as ``{source_id, cell, similarity}`` dicts."""
    want = [(d.get("source_id"), d.get("cell"), d.get("similarity")) for d in recorded]
    emb = bank.embeddings.astype(np.float64)
    rank = np.empty(len(bank), np.int64)
    rank[np.argsort(np.asarray(bank.region_ids, dtype=object), kind="stable")] = np.arange(len(bank))
    sims = emb @ emb[q]
    units = np.rint(sims * _SCALE).astype(np.int64)
    bound = int(round(max_similarity * _SCALE))
    pairs: list = []
    base, base_units = _select(bank, emb, rank, groups, q, units, k, bound, set(), pairs)

    def key(ds):
        return None if ds is None else [(d["source_id"], d["cell"], d["similarity"]) for d in ds]

    if key(shown(base)) != key(list(local)):
        return None  # this machine's own re-run does not give its own item: nothing to explain from
    floor = (min(base_units) if base_units else -_SCALE) - 1
    eligible = (groups != groups[q]) & (bank.pixel_keys != bank.pixel_keys[q]) & (units >= floor)
    fragile = [("cell", int(j)) for j in np.nonzero(eligible & (_edge_distance(sims) < NEAR_TIE_MARGIN))[0]]
    fragile += [("pair", p) for p in dict.fromkeys(pairs)]
    depth = 2 if len(fragile) <= 24 else 1
    for n in range(1, depth + 1):
        for flips in itertools.combinations(fragile, n):
            u = units.copy()
            pair_flip = set()
            for kind, what in flips:
                if kind == "cell":
                    u[what] = _other_side(float(sims[what]))
                else:
                    pair_flip.add(what)
            got, _ = _select(bank, emb, rank, groups, q, u, k, bound, pair_flip, None)
            if key(shown(got)) == want:
                words = [f"{bank.region_ids[w]} at {sims[w]:.7f}" if kind == "cell" else
                         f"{bank.region_ids[w[0]]} ~ {bank.region_ids[w[1]]}" for kind, w in flips]
                return "near-tie: " + "; ".join(words) + f" within {NEAR_TIE_MARGIN:g} of a rounding edge"
    return None
