"""The answer plan and the Lite subset: which answer slot each item gets, which sources are Lite.

Both are functions of (seed, family, source ids) alone, with explicit tie-breaks, so
they do not depend on file order or on how generation is split across processes.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from .rng import stable_hash
from .spec import LITE_FRACTION


def lite_ids(source_ids: Iterable[str], seed: int, fraction: float = LITE_FRACTION) -> list[str]:
    """The seeded Lite subset: the same source images for every config."""
    source_ids = list(source_ids)
    if not source_ids:
        return []
    count = max(1, round(len(source_ids) * fraction))
    return sorted(sorted(source_ids, key=lambda s: (stable_hash("lite", seed, s), s))[:count])


def plan_slots(source_ids: Sequence[str], lite: Sequence[str], seed: int, family: str,
               num_slots: int) -> dict[str, int]:
    """Assign answer slots so that every slot is used equally often (counts differ by <= 1).

    Sources are ranked by a seeded hash (ties broken by id), Lite sources first,
    and slot = rank mod num_slots: balanced over the whole split and over Lite,
    independent of file order and of how generation is split across processes.
    """
    lite_set = set(lite)

    def rank(sid: str):
        return (sid not in lite_set, stable_hash("plan", seed, family, sid), sid)

    ordered = sorted(source_ids, key=rank)
    return {sid: i % num_slots for i, sid in enumerate(ordered)}
