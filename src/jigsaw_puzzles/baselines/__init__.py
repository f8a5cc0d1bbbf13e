"""Weight-free baselines: ``random`` (guessing), ``solver`` (classical jigsaw solver), ``shape`` (outlines alone).
May import: the root foundations only.

``shape`` reads alpha channels and mask geometry only, never a photo's colour.

>>> from jigsaw_puzzles.baselines import random_answer, shape_answer, solve
>>> random_answer(row, "order_generation", seed=0)      # e.g. "[3, 1, 4, 2]"
>>> ans = solve(row, "anomaly_detection")                # SolverAnswer(text, confidence, scores)
>>> shape_answer(row, "order_generation_tabs").text      # what the outlines alone decide

All are pure functions of a dataset row (dict with ``id``, ``images``, ``options``; none reads ``answer`` or
``metadata``).
"""
from ..spec import get as _get
from .placer import solve_grid
from .random_baseline import CHANCE, answer_rng, random_answer
from .shape import shape_answer
from .solver import CONFIGS as _PAPER, THRESHOLDS, SolverAnswer, solve as _solve_paper


def solve(row: dict, config: str) -> SolverAnswer:
    """The solver's answer to ``row`` of ``config``: the paper's configs by :mod:`.solver`, a grid config
    (``order_generation_3x3``) by the any-grid placer (:func:`.placer.solve_grid`)."""
    if config in _PAPER:
        return _solve_paper(row, config)
    spec = _get(config)  # ValueError for an unknown config
    if spec.cut != "straight":  # interlocking pieces: their outlines first (.shaped)
        from .shaped import solve_shaped

        return solve_shaped(row, spec)
    if config.endswith("_8dir"):
        from .solver import _direction

        return _direction(row)
    if spec.family.startswith("connection_verification"):  # two pieces, whatever the grid: the paper's solver
        return _solve_paper(row, "connection_verification")
    if spec.family.startswith("piece_localization"):
        return _solve_paper(row, config)  # the masks are found from the image, on any grid
    if spec.family.startswith("missing_piece_selection"):
        from .solver import _missing_piece

        return _missing_piece(row, *spec.grid)
    if spec.family.startswith("anomaly_detection"):
        from .solver import _anomaly

        return _anomaly(row, *spec.grid)
    return solve_grid(row, *spec.grid, rotated=spec.rotated)


BASELINES = ("random", "solver", "shape")

__all__ = ["random_answer", "answer_rng", "CHANCE", "solve", "shape_answer", "SolverAnswer", "THRESHOLDS", "BASELINES"]
