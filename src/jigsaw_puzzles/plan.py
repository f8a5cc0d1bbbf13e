"""The answer plan and the Lite subset: which answer slot each item gets, which sources are Lite.

Two plans, both functions of (seed, family, source ids) alone, with explicit tie-breaks, so neither depends on
file order or on how generation is split across processes:

* ``"stable"`` (the default since generator 2.0.0): each source's answer slot and Lite membership are a
  function of its own id alone (a seeded hash), so adding, removing or re-encoding one photo changes only the
  items of that photo. Slots are balanced in expectation, not exactly: each is a uniform draw, so the letter
  counts of a split follow a multinomial (measured in ``docs/tasks.md``: at 1,100 items and four letters the
  largest deviation of any letter from 25% is under 3.3 points for 95% of seeds). Lite holds the sources whose
  hash falls below ``lite_fraction`` (about 20%, binomial: 197-241 of 1,100 for 90% of seeds; never empty).
* ``"balanced"`` (generator 1.x behaviour): sources are ranked by a seeded hash, Lite first, and slot = rank
  mod the number of slots, so every slot is used equally often (counts differ by <= 1) over the split and over
  Lite, and Lite is exactly ``round(n * lite_fraction)`` sources. Adding one photo shifts the ranks, and with
  them the letters of most items: use it for a fixed, frozen folder.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from .rng import stable_hash
from .spec import LITE_FRACTION

ANSWER_PLANS = ("stable", "balanced")
DEFAULT_ANSWER_PLAN = "stable"
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
    count = max(1, round(len(source_ids) * fraction))
    return sorted(sorted(source_ids, key=lambda s: (stable_hash("lite", seed, s), s))[:count])


def plan_slots(source_ids: Sequence[str], lite: Sequence[str], seed: int, family: str,
               num_slots: int, plan: str = DEFAULT_ANSWER_PLAN) -> dict[str, int]:
    """The answer slot of every item (source id -> slot in ``range(num_slots)``).

    ``"stable"``: a seeded hash of (seed, family, source id) alone, so one item's slot never depends on the
    other sources. ``"balanced"``: sources ranked by a seeded hash (ties broken by id), Lite first, and
    slot = rank mod ``num_slots``: every slot used equally often (counts differ by <= 1) over the split and
    over Lite.
    """
    _check(plan)
    if plan == "stable":
        return {sid: int(stable_hash("slot", seed, family, sid), 16) % num_slots for sid in source_ids}
    lite_set = set(lite)

    def rank(sid: str):
        return (sid not in lite_set, stable_hash("plan", seed, family, sid), sid)

    ordered = sorted(source_ids, key=rank)
    return {sid: i % num_slots for i, sid in enumerate(ordered)}
