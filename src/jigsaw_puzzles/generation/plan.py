"""The answer plan and the Lite subset: which answer slot each item gets, which sources are Lite.

Three plans, each a function of (seed, family, source ids) alone, with explicit tie-breaks, so none depends on
file order or on how generation is split across processes:

* ``"quota"`` (the default since generator 3.0.0): balanced *and* stable. Lite is the ``round(n *
  lite_fraction)`` sources of lowest seeded hash (exact size; one photo more or less moves at most one other
  photo in or out). Then, separately over the Lite items and over the other items, every slot gets an exact
  quota (its share of the first n entries of the task's slot cycle, see :func:`quotas`), and each item has a
  seeded cost for every slot; the plan is the assignment that fills every quota at the least total cost, a
  transportation problem whose optimum is unique (60-bit costs) and so independent of the order it is solved
  in. Every letter's count differs from 1/k of its part by less than one item (on ``test``, the two parts'
  spare items fall on different letters). Adding or removing one item changes its part's optimum along one
  path of moves, at most one per slot class: ``k - 1`` other items; a replaced photo, or one whose Lite change
  moves another photo between the parts, changes at most ``2(k - 1) + 1`` others (7 for four letters).
  ``docs/tasks.md`` has the measured figures.
* ``"stable"`` (generator 2.0.0): each source's answer slot and Lite membership are a function of its own id
  alone (a seeded hash), so one photo changes only its own items; slots and Lite size are balanced only in
  expectation (multinomial: about +-3 points per letter at 1,100 items).
* ``"balanced"`` (generator 1.x): sources ranked by a seeded hash, Lite first, and slot = rank mod the number
  of slots: exact balance, but one added photo shifts the ranks, and with them most letters. Lite as in
  ``"quota"``. For a fixed, frozen folder.
"""

from __future__ import annotations

import heapq
import numbers
from typing import Iterable, Sequence

from ..errors import UsageError
from ..rng import ItemRNG, stable_hash
from ..spec import LITE_FRACTION

ANSWER_PLANS = ("quota", "stable", "balanced")
DEFAULT_ANSWER_PLAN = "quota"
_SCALE = 1 << 256  # stable_hash is 256 bits


def _unit(*parts: object) -> float:
    """A seeded uniform number in [0, 1) of the parts."""
    return int(stable_hash(*parts), 16) / _SCALE


def _check(plan: str) -> None:
    if plan not in ANSWER_PLANS:
        raise ValueError(f"unknown answer plan {plan!r}; choose from {', '.join(ANSWER_PLANS)}")


def lite_ids(source_ids: Iterable[str], seed: int, fraction: float = LITE_FRACTION,
             plan: str = DEFAULT_ANSWER_PLAN) -> list[str]:
    """The seeded Lite subset (sorted): the same source images for every config."""
    _check(plan)
    source_ids = sorted(set(source_ids))
    if not source_ids:
        return []
    if plan == "stable":
        members = [s for s in source_ids if _unit("lite", seed, s) < fraction]
        # never empty: a tiny folder whose hashes all miss the threshold gets its lowest-hash source
        return members or [min(source_ids, key=lambda s: (stable_hash("lite", seed, s), s))]
    # the lowest hashes: one source more or less moves at most one other source in or out
    count = max(1, round(len(source_ids) * fraction))
    return sorted(sorted(source_ids, key=lambda s: (stable_hash("lite", seed, s), s))[:count])


def quotas(cycle: Sequence[int], count: int) -> dict[int, int]:
    """Each slot's exact quota among ``count`` items: its occurrences in the first ``count`` entries of the
    endlessly repeated ``cycle``. One item more raises exactly one quota by one."""
    full, rest = divmod(count, len(cycle))
    out = {slot: 0 for slot in cycle}
    for slot in cycle:
        out[slot] += full
    for slot in cycle[:rest]:
        out[slot] += 1
    return out


def letter_cycle(seed: int, family: str, num_slots: int) -> list[int]:
    """The default slot cycle: every slot once, in a seeded order (which letters take a split's spare items)."""
    cycle = list(range(num_slots))
    ItemRNG("quota-cycle", seed, family).shuffle(cycle)
    return cycle


def _cost(seed: int, family: str, source_id: str, slot: int) -> int:
    return int(stable_hash("quota", seed, family, source_id, slot), 16) >> 196  # 60 bits


def assign(source_ids: Sequence[str], quota: dict[int, int], seed: int, family: str) -> dict[str, int]:
    """The least-cost assignment of the sources to slots that fills every quota exactly.

    Successive shortest paths over the slots (a transportation problem with few sinks): sources are added one
    by one, each along the cheapest path of moves to a slot with room (Dijkstra with slot prices, each slot
    pair's cheapest move kept in a heap), so the assignment stays optimal for the sources added so far. The
    optimum is unique for distinct path costs (60-bit seeded costs), so the result does not depend on the
    order of ``source_ids``; it is ``O(n k^2 log n)`` for n sources and k slots.
    """
    ids = sorted(set(source_ids))
    if sum(quota.values()) != len(ids):
        raise ValueError(f"quotas sum to {sum(quota.values())}, not to the {len(ids)} sources")
    slots = sorted(s for s, q in quota.items() if q > 0)
    cost = {sid: {s: _cost(seed, family, sid, s) for s in slots} for sid in ids}
    where: dict[str, int] = {}
    load = {s: 0 for s in slots}
    price = {s: 0 for s in slots}
    moves = {(a, b): [] for a in slots for b in slots if a != b}  # (c_b - c_a, id) for ids now in a

    def place(sid: str, slot: int) -> None:
        where[sid] = slot
        for b in slots:
            if b != slot:
                heapq.heappush(moves[slot, b], (cost[sid][b] - cost[sid][slot], sid))

    def cheapest(a: int, b: int):
        heap = moves[a, b]
        while heap and where.get(heap[0][1]) != a:
            heapq.heappop(heap)  # stale: that source has moved since
        return heap[0] if heap else None

    for sid in ids:
        dist = {s: cost[sid][s] - price[s] for s in slots}  # reduced distances; prices keep them >= 0 below
        back: dict[int, tuple[int | None, str]] = {s: (None, sid) for s in slots}
        done: set[int] = set()
        while len(done) < len(slots):
            a = min((s for s in slots if s not in done), key=lambda s: (dist[s], s))
            done.add(a)
            for b in slots:
                if b in done:
                    continue
                top = cheapest(a, b)
                if top is not None and dist[a] + top[0] + price[a] - price[b] < dist[b]:
                    dist[b] = dist[a] + top[0] + price[a] - price[b]
                    back[b] = (a, top[1])
        target = min((s for s in slots if load[s] < quota[s]), key=lambda s: (dist[s] + price[s], s))
        load[target] += 1
        slot = target
        while True:  # walk the path back: each hop moves one source into the slot after it
            previous, mover = back[slot]
            place(mover, slot)
            if previous is None:
                break
            slot = previous
        for s in slots:
            price[s] += dist[s]
    return where


def plan_slots(source_ids: Sequence[str], lite: Sequence[str], seed: int, family: str,
               num_slots: int, plan: str = DEFAULT_ANSWER_PLAN,
               cycle: Sequence[int] | None = None) -> dict[str, int]:
    """The answer slot of every item (source id -> slot in ``range(num_slots)``).

    ``"quota"``: exact quotas from ``cycle`` (the task's, e.g. Anomaly Detection's unaltered/position/type
    order; default :func:`letter_cycle`) filled at least seeded cost, over the Lite items and over the rest
    apart (the rest read the cycle backwards, so the two parts' spare items fall on different slots).
    ``"stable"``: a seeded hash of (seed, family, source id) alone. ``"balanced"``: sources ranked by a
    seeded hash (ties broken by id), Lite first, and slot = rank mod ``num_slots``.
    """
    _check(plan)
    if plan == "stable":
        return {sid: int(stable_hash("slot", seed, family, sid), 16) % num_slots for sid in source_ids}
    lite_set = set(lite)
    if plan == "quota":
        cycle = list(cycle) if cycle is not None else letter_cycle(seed, family, num_slots)
        if not cycle or any(not 0 <= s < num_slots for s in cycle):
            raise ValueError(f"a slot cycle of slots in range({num_slots}) is needed, got {cycle}")
        out: dict[str, int] = {}
        for part, order in (([s for s in source_ids if s in lite_set], cycle),
                            ([s for s in source_ids if s not in lite_set], cycle[::-1])):
            out.update(assign(part, quotas(order, len(set(part))), seed, family))
        return {sid: out[sid] for sid in source_ids}

    def rank(sid: str):
        return (sid not in lite_set, stable_hash("plan", seed, family, sid), sid)

    ordered = sorted(source_ids, key=rank)
    return {sid: i % num_slots for i, sid in enumerate(ordered)}


def shard_value(shard) -> tuple[int, int] | None:
    """``(i, n)`` from ``(i, n)`` or ``"i/n"`` (``None`` passes), or a ``UsageError``."""
    if shard is None:
        return None
    try:
        i, n = (int(v) if isinstance(v, str) or (isinstance(v, numbers.Integral) and not isinstance(v, bool)) else None
                for v in (shard.split("/") if isinstance(shard, str) else shard))
        if i is None or n is None:
            raise TypeError
    except (TypeError, ValueError):
        raise UsageError(f"shard must be i/n (e.g. 0/4: the first of four), not {shard!r}") from None
    if n < 1:
        raise UsageError(f"shard {i}/{n}: n is the number of shards (machines), at least 1")
    if not 0 <= i < n:
        raise UsageError(f"shard {i}/{n}: i counts from 0 to n - 1 (the shards of a build over {n} machines "
                         f"are 0/{n} ... {n - 1}/{n})")
    return i, n


def in_shard(source_id: str, shard: tuple[int, int] | None) -> bool:
    """Whether a photo's items belong to ``shard`` ``(i, n)``: its id (16 hex digits of its content's SHA-256) in
    the ``i``-th of ``n`` equal ranges, so the shards in turn hold the items in a whole build's order."""
    return shard is None or int(source_id, 16) * shard[1] >> 64 == shard[0]
