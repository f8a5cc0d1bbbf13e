"""The plan's probe: which accepted sources yield an item of a config, and why the others do not.

Each source is put through the task's check, and (once the task's preparation, if any, has run) built once as
an item with slot 0: a task's failures do not depend on the slot, so what fails here is a recorded skip and
the answer plan only gives slots to items that are really generated. A pure function of each source (and of the
pool every worker gets once), so :func:`verdicts` runs in ``num_proc`` worker processes with the same result.
"""

from __future__ import annotations

import multiprocessing
from typing import Any, Callable, Mapping, Sequence

from ..rng import item_rng
from .sources import CurationRules, SourceError, load_normalised
from .tasks import Context, Task, TaskError, get_task
from .workers import chunks, current_engine, ordered_map, parallel

_STATE: dict[str, Any] = {}


def _set_state(task: Task | str, seed: int, paths: Mapping[str, str], pool_ids: tuple[str, ...],
               rules: CurationRules) -> None:
    _STATE.update(task=get_task(task) if isinstance(task, str) else task, seed=seed, paths=paths, rules=rules,
                  pool_ids=pool_ids)


def _load(source_id: str):
    return load_normalised(_STATE["paths"][source_id], _STATE["rules"], source_id)


def _verdict(source_id: str, check: bool, build: bool, prepared: Any) -> str | None:
    task = _STATE["task"]
    if check:
        try:
            reason = task.check(_load(source_id))
        except SourceError as err:  # unreadable since curation (e.g. deleted): a skip, not a crash
            return f"cannot be read any more: {err}"
        if reason:
            return reason
    if build:
        try:
            task.build(_load(source_id), item_rng(_STATE["seed"], task.family, source_id), 0,
                       Context(source_id=source_id, pool_ids=_STATE["pool_ids"], load=_load, prepared=prepared))
        except TaskError as err:
            return str(err)
    return None


def _verdicts(job: Sequence[tuple[str, bool, bool, Any]]) -> list[str | None]:
    return [_verdict(*entry) for entry in job]


def verdicts(task: Task, seed: int, paths: Mapping[str, str], pool_ids: tuple[str, ...], rules: CurationRules,
             entries: Sequence[tuple[str, bool, bool, Any]], num_proc: int | None = None,
             done: Callable[[int], Any] | None = None) -> list[str | None]:
    """The reason each of ``entries`` (``(source_id, check, build, prepared payload)``) is skipped, or ``None``
    where it yields an item; ``paths``: every accepted source (the distractor pool, ``pool_ids`` its ids sorted);
    ``done(n)`` after each ``n`` sources (a progress bar)."""
    # the task itself where workers are forked (they inherit it as it is here), else its name (a task's functions
    # may be closures, which do not pickle; an engine's workers are never forked from here)
    forked = not parallel(num_proc, len(entries)) or (multiprocessing.get_start_method() == "fork"
                                                      and current_engine() is None)
    out: list[str | None] = []
    for result in ordered_map(_verdicts, chunks(list(entries), num_proc), num_proc, initializer=_set_state,
                              initargs=(task if forked else task.config, seed, paths, pool_ids, rules),
                              done=None if done is None else lambda job, _: done(len(job)), what="the plan"):
        out.extend(result)
    return out
