"""The benchmark's tasks: one module per task, each a pure function of (source image, RNG, slot).

Every task module declares the configs it serves as :class:`~.base.Task` records
(``TASKS = [...]``); this package only collects them, in the order of
:data:`jigsaw_puzzles.spec.CONFIGS`. ``slot`` is the item's place in the answer
plan (:mod:`jigsaw_puzzles.generation.plan`): the answer letter for multiple-choice tasks,
the (position, kind) for Anomaly Detection. Configs that share a ``family``
share their randomness, so e.g. the easy and hard Missing Piece Selection items
differ only in distractors.
"""

from __future__ import annotations

from ...spec import CONFIGS, get as get_spec
from . import (anomaly_detection, connection_verification, missing_piece_selection, order_generation,
               order_restoration, piece_localization)
from .base import Context, Item, Preparation, Task, TaskError

_MODULES = (missing_piece_selection, piece_localization, connection_verification, anomaly_detection,
            order_restoration, order_generation)
_DECLARED = {task.config: task for module in _MODULES for task in module.TASKS}
if set(_DECLARED) != set(CONFIGS):  # a config is one spec entry plus one task record, never one alone
    raise ImportError(f"task modules declare {sorted(_DECLARED)}, the spec names {sorted(CONFIGS)}")

#: config -> how its items are made, in the spec's (paper's table) order.
TASKS: dict[str, Task] = {name: _DECLARED[name] for name in CONFIGS}
_GRID_TASKS: dict[str, Task] = {}


def get_task(config: str) -> Task:
    """The task of a paper config or of a grid config (``order_generation_3x3``: made on first use)."""
    task = TASKS.get(config)
    if task is None:
        task = _GRID_TASKS.get(config)
    if task is None:
        name = get_spec(config).name  # ValueError for an unknown name
        if name != config:  # an alias (order_generation_2x2): its paper config's task
            return get_task(name)
        module = next(m for base, m in (("order_restoration", order_restoration), ("order_generation",
                      order_generation), ("connection_verification", connection_verification),
                      ("piece_localization", piece_localization), ("anomaly_detection", anomaly_detection),
                      ("missing_piece_selection_easy", missing_piece_selection),
                      ("missing_piece_selection_hard", missing_piece_selection))
                      if config.startswith(base + "_"))
        task = _GRID_TASKS[config] = module.grid_task(config)
    return task


__all__ = ["TASKS", "Task", "Context", "Item", "Preparation", "TaskError", "get_task"]
