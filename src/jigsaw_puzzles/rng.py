"""Per-item randomness that is stable across machines, processes and library versions.

Every random choice an item makes comes from an :class:`ItemRNG` seeded by
``(seed, key, source_id)``.  We do not use ``numpy.random`` or ``random`` here
on purpose: neither guarantees that ``integers``/``choice``/``shuffle`` keep
producing the same stream across releases, and the benchmark promises
byte-identical output for the same sources and seed.  A SHA-256 counter stream
is a few lines, has no global state and cannot drift.
"""

from __future__ import annotations

import hashlib
import heapq
from typing import Iterable, Iterator, MutableSequence, Sequence, TypeVar

T = TypeVar("T")


def _hasher(*parts: object):
    h = hashlib.sha256()
    for part in parts:
        data = str(part).encode("utf-8")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h


def stable_hash(*parts: object) -> str:
    """Hex SHA-256 of the parts, joined unambiguously."""
    return _hasher(*parts).hexdigest()


class ItemRNG:
    """Deterministic random stream derived from a tuple of keys."""

    def __init__(self, *key: object):
        self._key = stable_hash(*key).encode("ascii")
        self._counter = 0

    def child(self, *key: object) -> "ItemRNG":
        """An independent stream for a named sub-step (e.g. distractor choice)."""
        return ItemRNG(self._key.decode("ascii"), *key)

    def token(self, *key: object) -> str:
        """A seeded hash of this stream's key and ``key`` (no state consumed): e.g. a rank for one candidate
        that does not depend on which other candidates exist (rendezvous hashing)."""
        return stable_hash(self._key.decode("ascii"), *key)

    def rendezvous(self, key: object, candidates: Iterable[str]) -> Iterator[str]:
        """``candidates`` in the order of ``(self.token(key, c), c)``, lazily: one hash per candidate and a heap, so
        taking the first few of ``n`` costs ``O(n)``, not a sort of ``n`` tokens. (A token's hex digits order as its
        digest's bytes do, so the digests are compared.)"""
        prefix = _hasher(self._key.decode("ascii"), key)
        heap = []
        for c in candidates:
            h = prefix.copy()
            data = str(c).encode("utf-8")
            h.update(len(data).to_bytes(8, "big"))
            h.update(data)
            heap.append((h.digest(), c))
        heapq.heapify(heap)
        while heap:
            yield heapq.heappop(heap)[1]

    def _next_int(self) -> int:
        digest = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
        self._counter += 1
        return int.from_bytes(digest, "big")

    def randbelow(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 256) - ((1 << 256) % n)
        while True:
            x = self._next_int()
            if x < limit:
                return x % n

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self.randbelow(len(seq))]

    def shuffle(self, seq: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(seq) - 1, 0, -1):
            j = self.randbelow(i + 1)
            seq[i], seq[j] = seq[j], seq[i]

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        pool = list(seq)
        if k > len(pool):
            raise ValueError(f"cannot sample {k} from {len(pool)}")
        self.shuffle(pool)
        return pool[:k]


def item_rng(seed: int, family: str, source_id: str) -> ItemRNG:
    """The one source of randomness of an item: (seed, task family, source id)."""
    return ItemRNG("jigsaw-puzzles", seed, family, source_id)
