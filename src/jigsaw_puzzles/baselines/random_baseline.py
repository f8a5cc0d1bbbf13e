"""``--model random``: uniform guessing over each task's answer space.

Per item, the generator is seeded from ``sha256(f"{seed}:{row['id']}")`` (first 8 bytes,
big-endian) -> ``numpy.random.default_rng``; no global random state is touched, so the
answer is a pure function of (seed, row id, config, options).

Answer spaces (the row schema of the README):
- letter tasks (missing_piece_selection_*, piece_localization_*, connection_verification,
  order_restoration): a uniform letter among the row's options (A.. for len(options)).
- anomaly_detection: Judgment A/B with probability 1/2 each; if B, a uniform position
  (A-D) and a uniform type (A rotation / B mirroring).  Expected accuracy on the 2:1:1 mix
  is 1/2 * 1/2 + 1/2 * 1/16 = 28.125 %.
- order_generation: a uniform permutation of [1, 2, 3, 4], written "[a, b, c, d]".
"""
from __future__ import annotations

import hashlib

import numpy as np

from ..extraction import TASKS as ANSWER_SPACES, expected_chance

__all__ = ["random_answer", "item_rng", "CHANCE"]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DEFAULT_N_OPTIONS = {c: len(spec.letters) for c, spec in ANSWER_SPACES.items() if spec.kind == "choice"}
#: theoretical accuracy of this baseline (anomaly detection assumes the builder's 2:1:1 mix)
CHANCE = {c: expected_chance(c) for c in ANSWER_SPACES}


def item_rng(seed: int, row_id: str) -> np.random.Generator:
    """Independent generator for one item: sha256("{seed}:{id}") -> default_rng."""
    digest = hashlib.sha256(f"{int(seed)}:{row_id}".encode("utf-8")).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def random_answer(row: dict, config: str, seed: int = 0) -> str:
    """Uniformly random raw answer for ``row`` (reads only ``id`` and ``options``)."""
    rng = item_rng(seed, row["id"])
    if config == "anomaly_detection":
        if rng.integers(2) == 0:
            return "Judgment: A\nError Position:\nError Type:"
        pos = LETTERS[int(rng.integers(4))]
        typ = "AB"[int(rng.integers(2))]
        return f"Judgment: B\nError Position: {pos}\nError Type: {typ}"
    if config == "order_generation":
        perm = rng.permutation(4) + 1
        return "[" + ", ".join(str(int(x)) for x in perm) + "]"
    if config in _DEFAULT_N_OPTIONS:
        n = len(row.get("options") or ()) or _DEFAULT_N_OPTIONS[config]
        return LETTERS[int(rng.integers(n))]
    raise ValueError(f"unknown config {config!r}")
