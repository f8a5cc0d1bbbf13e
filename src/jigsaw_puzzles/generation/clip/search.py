"""Nearest-neighbour search over the bank: chunked on the device, decided exactly on CPU, explicit tie-breaks."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .embed import PatchBank
from .weights import _resolve_device


#: Candidates whose cosine similarity to the true patch (or to an already chosen
#: distractor) exceeds this bound are treated as near duplicates and skipped.
DEFAULT_MAX_SIMILARITY = 0.95
#: Similarities are rounded to this many decimals before ordering / comparing, and recorded so. Three, not six
#: (generator 3.1.0): CPU kernels move a similarity by up to 3.4e-7 (``ONEDNN_MAX_CPU_ISA=SSE41`` vs AVX2,
#: docs/performance.md#reproducibility-across-instruction-sets), which reordered near-equal candidates and
#: changed the sixth decimal; candidates within one 1e-3 step are ordered by pool id, which reads no float, and
#: a decision can change only when a similarity lies within that noise of a rounding edge (:mod:`.ties`).
SIMILARITY_DECIMALS = 3
_SCALE = 10 ** SIMILARITY_DECIMALS
#: Bound on |float32 dot - float64 dot| for unit vectors (D <= ~1024), used as a
#: safety margin between the float32 device pass and the exact CPU decisions.
_SLACK = 1e-4


def _round_sim(s: np.ndarray) -> np.ndarray:
    """Similarity -> int64 units of 10**-SIMILARITY_DECIMALS (rint of float64)."""
    return np.rint(np.asarray(s, dtype=np.float64) * _SCALE).astype(np.int64)


def nearest_neighbours(
    queries: np.ndarray,
    pool: np.ndarray,
    pool_ids: Sequence[str],
    k: int,
    *,
    query_groups: np.ndarray | None = None,
    pool_groups: np.ndarray | None = None,
    query_pixel_keys: np.ndarray | None = None,
    pool_pixel_keys: np.ndarray | None = None,
    max_similarity: float | None = DEFAULT_MAX_SIMILARITY,
    distinct_picks: bool = True,
    chunk_size: int = 16384,
    query_chunk_size: int = 1024,
    margin: int = 16,
    device: str | None = "cpu",
    on_chunk: Callable[[int, int, int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` pool indices per query by cosine similarity, without a Q x P matrix.

    ``queries`` [Q, D] and ``pool`` [P, D] must be L2-normalised.  A pool entry j is
    excluded for query q when ``pool_groups[j] == query_groups[q]`` (same source),
    when ``pool_pixel_keys[j] == query_pixel_keys[q]`` (pixel-identical patch), or
    when its rounded similarity exceeds ``max_similarity``.  With
    ``distinct_picks`` a candidate is also skipped when it is pixel-identical to,
    or has similarity above ``max_similarity`` with, a candidate already picked
    for that query.

    Order: higher similarity rounded to ``SIMILARITY_DECIMALS`` first, then smaller ``pool_ids``
    string.  The pool is scanned in chunks of at most ``chunk_size`` rows (and the
    queries in chunks of ``query_chunk_size``), so peak extra memory is
    ``query_chunk_size x chunk_size`` similarities; a running top-(k+margin) is
    kept with ``torch.topk`` on ``device``.  Ties and rounding are resolved on CPU;
    when the kept set cannot prove the answer (ties at the cut, or too many
    exclusions) that query is rescanned exactly.

    Returns ``(indices [Q, k] int64, similarities [Q, k] float64)``; rows with fewer
    than k admissible candidates are padded with -1 / NaN.
    """
    import torch

    q_np = np.ascontiguousarray(queries, dtype=np.float32)
    p_np = np.ascontiguousarray(pool, dtype=np.float32)
    Q, D = q_np.shape
    P = p_np.shape[0]
    if p_np.shape[1] != D or len(pool_ids) != P:
        raise ValueError("queries/pool/pool_ids shapes disagree")
    if chunk_size < 1 or query_chunk_size < 1 or k < 1:
        raise ValueError("k, chunk_size and query_chunk_size must be >= 1")
    dev = torch.device(_resolve_device(device))
    M = k + max(0, int(margin))
    bound_units = None if max_similarity is None else int(round(max_similarity * _SCALE))
    # The device pass (float32) only *retrieves* candidates.  Every decision is taken
    # on CPU from float64 dot products of the float32 embeddings, which do not depend
    # on device or BLAS path.  float32 dot products of unit vectors are within
    # _SLACK of that value, so the device-side bound is loosened by _SLACK and the
    # completeness test below keeps a _SLACK margin.
    slack_units = max(1, int(np.ceil(_SLACK * _SCALE)))  # at least one step: device rounding may land next door
    dev_bound = None if max_similarity is None else (bound_units + 0.5) / _SCALE + _SLACK

    # Tie-break rank: position of each pool id in sorted order.
    id_rank = np.empty(P, dtype=np.int64)
    id_rank[np.argsort(np.asarray(pool_ids, dtype=object), kind="stable")] = np.arange(P)

    def _col(a, default):
        return np.full(default[0], default[1], np.int64) if a is None else np.asarray(a, np.int64)

    qg = _col(query_groups, (Q, -1))
    pg = _col(pool_groups, (P, -2))
    qk = _col(query_pixel_keys, (Q, 0))
    pk = _col(pool_pixel_keys, (P, 0)) if query_pixel_keys is not None and pool_pixel_keys is not None \
        else None

    # No TF32 / reduced-precision matmul for the retrieval pass (restored afterwards).
    prev_tf32 = torch.backends.cuda.matmul.allow_tf32
    prev_prec = torch.get_float32_matmul_precision()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    try:
        return _nn_search(q_np, p_np, k, M, qg, pg, qk, pk, id_rank, bound_units, dev_bound,
                          slack_units, distinct_picks, chunk_size, query_chunk_size, dev, on_chunk)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev_tf32
        torch.set_float32_matmul_precision(prev_prec)


def _nn_search(q_np, p_np, k, M, qg, pg, qk, pk, id_rank, bound_units, dev_bound, slack_units,
               distinct_picks, chunk_size, query_chunk_size, dev, on_chunk):
    import torch
    Q, P = q_np.shape[0], p_np.shape[0]
    pool_t = torch.from_numpy(p_np).to(dev)
    pg_t = torch.from_numpy(pg).to(dev)
    pk_t = torch.from_numpy(pk).to(dev) if pk is not None else None
    neg_inf = float("-inf")

    def _scan(q_idx: np.ndarray, keep: int | None, thresh_units: np.ndarray | None):
        """Scan the whole pool for queries q_idx.

        keep=int: running top-`keep` per query -> (vals [n, keep], idx [n, keep]).
        keep=None: all admissible entries with rounded sim >= thresh_units[q] -> list of arrays.
        """
        qt = torch.from_numpy(q_np[q_idx]).to(dev)
        qg_t = torch.from_numpy(qg[q_idx]).to(dev)[:, None]
        qk_t = torch.from_numpy(qk[q_idx]).to(dev)[:, None] if pk_t is not None else None
        n = len(q_idx)
        if keep is not None:
            best_v = torch.full((n, 0), neg_inf, device=dev)
            best_i = torch.zeros((n, 0), dtype=torch.int64, device=dev)
        else:
            found: list[list[np.ndarray]] = [[] for _ in range(n)]
        for s in range(0, P, chunk_size):
            e = min(P, s + chunk_size)
            if on_chunk is not None:
                on_chunk(int(q_idx[0]), n, s, e)
            sims = qt @ pool_t[s:e].T                       # [n, e-s]
            bad = pg_t[s:e][None, :] == qg_t
            if pk_t is not None:
                bad |= pk_t[s:e][None, :] == qk_t
            if dev_bound is not None:
                bad |= sims > dev_bound
            sims = sims.masked_fill(bad, neg_inf)
            if keep is not None:
                kk = min(keep, e - s)
                v, i = torch.topk(sims, kk, dim=1)
                best_v = torch.cat([best_v, v], dim=1)
                best_i = torch.cat([best_i, i + s], dim=1)
                if best_v.shape[1] > keep:
                    best_v, pos = torch.topk(best_v, keep, dim=1)
                    best_i = torch.gather(best_i, 1, pos)
            else:
                lo = torch.from_numpy((thresh_units[q_idx] - 1 - slack_units) / _SCALE).to(
                    dev, torch.float32)[:, None]
                hit = (sims >= lo) & ~bad
                rows, cols = torch.nonzero(hit, as_tuple=True)
                rows, cols = rows.cpu().numpy(), cols.cpu().numpy() + s
                for r in np.unique(rows):
                    found[r].append(cols[rows == r])
        if keep is not None:
            return best_v.cpu().numpy(), best_i.cpu().numpy()
        return [np.concatenate(f) if f else np.zeros(0, np.int64) for f in found]

    def _select(q: int, cand: np.ndarray):
        """Deterministic greedy pick from candidate indices -> (picked idx, picked units, last units)."""
        cand = np.unique(cand)
        units = _round_sim(p_np[cand].astype(np.float64) @ q_np[q].astype(np.float64))
        ok = pg[cand] != qg[q]
        if pk is not None:
            ok &= pk[cand] != qk[q]
        if bound_units is not None:
            ok &= units <= bound_units
        cand, units = cand[ok], units[ok]
        order = np.lexsort((id_rank[cand], -units))
        picked: list[int] = []
        picked_u: list[int] = []
        for j in order:
            c = int(cand[j])
            if distinct_picks and picked:
                if pk is not None and np.any(pk[picked] == pk[c]):
                    continue
                if bound_units is not None and np.any(_round_sim(
                        p_np[picked].astype(np.float64) @ p_np[c].astype(np.float64)) > bound_units):
                    continue
            picked.append(c)
            picked_u.append(int(units[j]))
            if len(picked) == k:
                break
        return picked, picked_u

    out_idx = np.full((Q, k), -1, dtype=np.int64)
    out_sim = np.full((Q, k), np.nan, dtype=np.float64)
    for qs in range(0, Q, query_chunk_size):
        q_idx = np.arange(qs, min(Q, qs + query_chunk_size))
        vals, idxs = _scan(q_idx, M, None)
        redo = []
        for row, q in enumerate(q_idx):
            valid = np.isfinite(vals[row])
            cand = idxs[row][valid]
            picked, picked_u = _select(int(q), cand)
            full = valid.all() and len(vals[row]) == M   # kept set may have dropped entries
            if full:
                min_units = int(_round_sim(np.float64(vals[row].min()))) + slack_units
                if len(picked) < k or min_units >= picked_u[-1]:
                    redo.append((int(q), picked_u[-1] if len(picked) == k else None))
                    continue
            out_idx[q, :len(picked)] = picked
            out_sim[q, :len(picked)] = np.asarray(picked_u, np.float64) / _SCALE
        # Exact rescans.  Level 1: every admissible entry whose rounded similarity is
        # >= the k-th pick's (all such entries are collected, so the greedy pick is
        # exact if it still reaches k picks at or above that level).  Level 2 (rare:
        # de-duplication among picks pushed the k-th pick lower, or too few
        # admissible entries were kept): every admissible entry.
        everything = -2 * _SCALE
        for level in (1, 2):
            if not redo:
                break
            r_idx = np.array([q for q, _ in redo], dtype=np.int64)
            th = np.full(Q, everything, dtype=np.int64)
            for q, t in redo:
                th[q] = t if (t is not None and level == 1) else everything
            again = []
            for (q, t), cand in zip(redo, _scan(r_idx, None, th)):
                picked, picked_u = _select(int(q), cand)
                if level == 1 and t is not None and (len(picked) < k or picked_u[-1] < t):
                    again.append((q, None))
                    continue
                out_idx[q, :len(picked)] = picked
                out_sim[q, :len(picked)] = np.asarray(picked_u, np.float64) / _SCALE
            redo = again
    return out_idx, out_sim


def duplicate_source_groups(bank: PatchBank, max_similarity: float | None = DEFAULT_MAX_SIMILARITY,
                            *, neighbours: int = 8, device: str | None = "cpu",
                            chunk_size: int = 16384) -> np.ndarray:
    """Per-patch group ids in which duplicate sources are merged.

    Two sources are duplicates when their normalised pixels are identical, or
    when the mean cosine similarity of their corresponding cells (the cosine of
    the concatenated, rescaled 9-cell embeddings) exceeds ``max_similarity``.
    Found with the chunked :func:`nearest_neighbours` (``neighbours`` per source)
    and merged transitively; the group id is the smallest source index.
    """
    sids = list(dict.fromkeys(bank.source_ids))
    n_src = len(sids)
    parent = list(range(n_src))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(a, b):
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    first = {}
    for j, sid in enumerate(sids):
        d = bank.source_pixel_digests.get(sid)
        if d is not None:
            if d in first:
                union(first[d], j)
            else:
                first[d] = j
    if max_similarity is not None and n_src > 1:
        cells = len(bank) // n_src
        vec = bank.embeddings.reshape(n_src, cells * bank.embeddings.shape[1]) / np.sqrt(cells)
        ar = np.arange(n_src, dtype=np.int64)
        idx, sim = nearest_neighbours(vec, vec, sids, min(neighbours, n_src - 1), query_groups=ar,
                                      pool_groups=ar, max_similarity=None, distinct_picks=False,
                                      chunk_size=chunk_size, device=device)
        bound = int(round(max_similarity * _SCALE))
        for a in range(n_src):
            for b, s in zip(idx[a], sim[a]):
                if b >= 0 and int(round(s * _SCALE)) > bound:
                    union(a, int(b))
    root = np.array([find(j) for j in range(n_src)], dtype=np.int64)
    return root[bank.group]
