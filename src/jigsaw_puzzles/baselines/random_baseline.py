"""``--model random``: uniform guessing over each task's answer space.

Per item, the guess comes from the package's SHA-256 stream :class:`~jigsaw_puzzles.rng.ItemRNG`
keyed by (seed, row id); no global random state is touched and no numpy stream (not stable
across releases) is used, so the answer is a pure function of (seed, row id, config, options).

Answer spaces (the row schema of the README):
- letter tasks (missing_piece_selection_*, piece_localization_*, connection_verification,
  order_restoration): a uniform letter among the row's options (A.. for len(options)).
- anomaly_detection: Judgment A/B with probability 1/2 each; if B, a uniform position
  (A-D) and a uniform type (A rotation / B mirroring).  Expected accuracy on the 2:1:1 mix
  is 1/2 * 1/2 + 1/2 * 1/16 = 28.125 %.
- order_generation: a uniform permutation of [1, 2, 3, 4], written "[a, b, c, d]".
"""
from __future__ import annotations

from ..rng import ItemRNG
from ..spec import ANOMALY, CONFIGS, LETTERS, ORDER, ORIENTED, ROTATIONS, format_anomaly, format_order, \
    format_oriented, get as get_spec

__all__ = ["random_answer", "answer_rng", "CHANCE"]

#: theoretical accuracy of this baseline (anomaly detection assumes the builder's 2:1:1 mix)
CHANCE = {c: spec.chance for c, spec in CONFIGS.items()}


def answer_rng(seed: int, row_id: str) -> ItemRNG:
    """Independent stream for one item's guess: (seed, row id), the package's stable SHA-256 stream."""
    return ItemRNG("random-baseline", seed, row_id)


def random_answer(row: dict, config: str, seed: int = 0) -> str:
    """Uniformly random raw answer for ``row`` (reads only ``id`` and ``options``)."""
    spec = get_spec(config)
    rng = answer_rng(seed, row["id"])
    if spec.kind == ANOMALY:
        if rng.randbelow(2) == 0:
            return format_anomaly()
        return format_anomaly(LETTERS[rng.randbelow(spec.num_options)], "AB"[rng.randbelow(2)])
    if spec.kind in (ORDER, ORIENTED):
        perm = list(range(1, spec.order_length + 1))
        rng.shuffle(perm)
        if spec.kind == ORIENTED:
            return format_oriented(perm, [ROTATIONS[rng.randbelow(4)] for _ in perm])
        return format_order(perm)
    n = len(row.get("options") or ()) or spec.num_options
    return LETTERS[rng.randbelow(n)]
