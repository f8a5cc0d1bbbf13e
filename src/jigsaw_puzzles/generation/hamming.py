"""Every pair of 64-bit hashes within ``radius`` bits of each other, found by multi-index hashing, not by
comparing all pairs.

Multi-index hashing (Norouzi, Punjani and Fleet, "Fast search in Hamming space with multi-index hashing", CVPR
2012): cut each 64-bit hash into ``m`` substrings; two hashes within ``r`` bits differ in at most ``r`` of them
spread over the ``m`` substrings, so (pigeonhole) in at least one substring they are within ``r // m`` bits.
Each substring indexes a table (a bucket per value: counting sort, so a lookup is two array reads); a query probes,
in each table, every value within ``r // m`` bits of its own substring, and each hash found there is then
compared in full. A table of N hashes keys on at most log2(N) + 2 bits of its substring, so buckets hold about
one hash or less at every size and a small table is small. The result is exact (every pair within ``radius``, no other), whatever the data; how many
hashes a probe returns depends on the data (random 64-bit hashes: about 2 per probe with 21-bit substrings).

Why by hand: the one maintained library with an exact Hamming range search by multi-index hashing is
``faiss-cpu`` (``IndexBinaryMultiHash``), a 25 MB native wheel with OpenMP that the base install (the build's
duplicate rule decides items, so it must be on every install) would then need for some 60 lines of numpy;
``pybktree`` (a pure-Python BK-tree, last released 2017) visits most of a 64-bit tree at radius 8.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

#: candidates examined per block of queries (bounds the memory: about 40 bytes each)
_BLOCK = 4_000_000


def popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each ``uint64`` (any shape)."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(x)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    return table[np.ascontiguousarray(x, dtype=np.uint64).view(np.uint8)].reshape(*x.shape, 8).sum(-1)


def substrings(radius: int) -> list[tuple[int, int]]:
    """``(shift, width)`` of each substring: at least 3, and enough that each is probed within 2 bits."""
    m = max(3, -(-(radius + 1) // 3))
    widths = [64 // m + (k < 64 % m) for k in range(m)]
    return [(sum(widths[:k]), w) for k, w in enumerate(widths)]


@lru_cache(maxsize=None)
def _masks(width: int, within: int) -> np.ndarray:
    """Every XOR mask of at most ``within`` of ``width`` bits (the probes around a substring)."""
    out = [0]
    for k in range(1, within + 1):
        out.extend(sum(1 << b for b in bits) for bits in combinations(range(width), k))
    return np.array(out, dtype=np.int64)


class Table:
    """The hashes ``values`` (``uint64``, any order, repeats allowed), indexed for :meth:`within`."""

    def __init__(self, values: np.ndarray, radius: int):
        self.values = np.ascontiguousarray(values, dtype=np.uint64).ravel()
        self.radius = radius
        self.parts = []
        for shift, width in substrings(radius):
            # a small table keys on the substring's low bits only (about 2 values per bucket at most): fewer
            # probes and buckets; a value found is still compared in full
            width = min(width, max(1, int(len(self.values)).bit_length() + 1))
            keys = ((self.values >> np.uint64(shift)) & np.uint64((1 << width) - 1)).astype(np.int64)
            order = np.argsort(keys, kind="stable")
            counts = np.bincount(keys, minlength=1 << width)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            self.parts.append((shift, width, order, counts, starts))

    def within(self, queries: np.ndarray, drop=None) -> tuple[np.ndarray, np.ndarray]:
        """``(q, t)``: every pair of a query (its position in ``queries``) and a value of the table (its position)
        within ``radius`` bits, each pair once, sorted by ``q`` then ``t``. ``drop(q, t)`` (arrays in, a mask out)
        leaves out pairs the caller has no use for before they are collected (a photo's own hashes)."""
        queries = np.ascontiguousarray(queries, dtype=np.uint64).ravel()
        found = []
        for shift, width, order, counts, starts in self.parts:
            masks = _masks(width, self.radius // len(self.parts))  # every key within r // m bits of the query's
            keys = ((queries >> np.uint64(shift)) & np.uint64((1 << width) - 1)).astype(np.int64)
            per_query = max(1, len(masks) * max(1, len(self.values) >> width))
            step = max(1, _BLOCK // per_query)
            for lo in range(0, len(queries), step):
                probes = keys[lo:lo + step, None] ^ masks[None, :]
                n = counts[probes].ravel()
                hit = np.flatnonzero(n)
                n, first = n[hit], starts[probes].ravel()[hit]
                q = np.repeat(hit // len(masks) + lo, n)
                # positions first[k] .. first[k] + n[k] - 1 of ``order``, for every probe k that found something
                pos = np.repeat(first - np.concatenate([[0], np.cumsum(n)[:-1]]), n) + np.arange(int(n.sum()))
                t = order[pos]
                keep = popcount(queries[q] ^ self.values[t]) <= self.radius
                if drop is not None:
                    keep &= ~drop(q, t)
                found.append(q[keep] * len(self.values) + t[keep])
        pairs = np.sort(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
        pairs = pairs[np.concatenate([[True], pairs[1:] != pairs[:-1]])] if len(pairs) else pairs
        return pairs // max(1, len(self.values)), pairs % max(1, len(self.values))
