"""Weight-free baselines: ``random`` (uniform guessing) and ``solver`` (classical jigsaw solver).

>>> from jigsaw_puzzles.baselines import random_answer, solve
>>> random_answer(row, "order_generation", seed=0)      # e.g. "[3, 1, 4, 2]"
>>> ans = solve(row, "anomaly_detection")                # SolverAnswer(text, confidence, scores)

Both are pure functions of a dataset row (dict with ``id``, ``images``, ``options``; the
solver never reads ``answer`` or ``metadata``).
"""
from .random_baseline import CHANCE, answer_rng, random_answer
from .solver import THRESHOLDS, SolverAnswer, solve

BASELINES = ("random", "solver")

__all__ = ["random_answer", "answer_rng", "CHANCE", "solve", "SolverAnswer", "THRESHOLDS", "BASELINES"]
