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
import threading
from collections import OrderedDict
from typing import Callable, Collection, Iterable, Iterator, MutableSequence, Sequence, TypeVar

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


class HashRing:
    """Consistent hashing (Karger et al., 1997) over a set of ids: each id holds :attr:`POINTS` places on a 64-bit
    ring, hashes of the id alone; a walk draws points from a seeded stream and takes, for each, the first id
    clockwise not yet taken (and accepted, where the walk is given a test). Made once for a set (``POINTS / 4``
    hashes per id, 12 bytes per place); each id a walk gives then costs a hash and a binary search, however many
    ids there are. An id added to or removed from the set changes a walk only where it
    becomes or was one of the ids the walk took. With 16 places an id's share of the ring is within about 25% of
    the mean (one place: an exponential spread)."""

    POINTS = 16

    def __init__(self, ids: Iterable[str]):
        import numpy as np

        self.ids = sorted(set(ids))
        self.index = {c: k for k, c in enumerate(self.ids)}
        places = bytearray()
        for c in self.ids:
            prefix = _hasher("jigsaw-puzzles hash ring", c)
            for j in range(self.POINTS // 4):
                h = prefix.copy()
                h.update(j.to_bytes(8, "big"))
                places += h.digest()
        pos = np.frombuffer(bytes(places), dtype=">u8").astype(np.uint64)
        owner = np.repeat(np.arange(len(self.ids), dtype=np.int32), self.POINTS)
        order = np.lexsort((owner, pos))  # equal places (never seen): the smaller id first
        self._pos, self._owner = pos[order], owner[order]

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, c: object) -> bool:
        return c in self.index

    def walk(self, rng: ItemRNG, key: object, exclude: Collection[str] = (),
             accept: Callable[[str], bool] | None = None) -> Iterator[str]:
        """Ids not in ``exclude``, each once, lazily: the k-th is found from the point ``rng.token(key, k)`` (its
        first 64 bits), the first id clockwise that was not taken, excluded or refused before and that ``accept``
        takes (an id it refuses is skipped from then on). So an id that ``accept`` refuses, or that is not in the
        set at all, changes nothing else the walk gives."""
        import numpy as np

        skip = {self.index[c] for c in exclude if c in self.index}
        places, k = len(self._owner), 0
        while len(skip) < len(self.ids):
            point = np.uint64(int(rng.token(key, k)[:16], 16))
            k += 1
            i = int(np.searchsorted(self._pos, point, side="left"))
            while len(skip) < len(self.ids):
                owner = int(self._owner[i % places])
                while owner in skip:
                    i += 1
                    owner = int(self._owner[i % places])
                skip.add(owner)
                if accept is None or accept(self.ids[owner]):
                    yield self.ids[owner]
                    break


_RINGS: "OrderedDict[int, tuple[tuple, HashRing]]" = OrderedDict()
_RINGS_LOCK = threading.Lock()


def hash_ring(ids: Sequence[str]) -> HashRing:
    """The :class:`HashRing` of ``ids``; made once per tuple (a build's or a stream's pool, shared by its items:
    kept for the last 4 tuples, by identity), anew for any other sequence."""
    if not isinstance(ids, tuple):
        return HashRing(ids)
    with _RINGS_LOCK:
        hit = _RINGS.get(id(ids))
        if hit is not None and hit[0] is ids:
            _RINGS.move_to_end(id(ids))
            return hit[1]
    ring = HashRing(ids)
    with _RINGS_LOCK:
        _RINGS[id(ids)] = (ids, ring)
        while len(_RINGS) > 4:
            _RINGS.popitem(last=False)
    return ring
