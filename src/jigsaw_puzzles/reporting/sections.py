"""The report's figures beyond the plain accuracy: a circular run's circular rows and section, the strict reading.

A circular run (``eval --circular``) gets two rows in the main table, each labelled: ``NAME · plain (rotation 0)``
(the figures of a plain run) and ``NAME · circular (all rotations)`` (an item counts only if every rotation of its
options was answered right; Anomaly Detection and Order Generation, not multiple choice, are answered once and
carry their plain figure), and its item group gets the matching circular baseline rows (chance = the product of
the rotations' chances, and the exact critical value). The "Circular evaluation" section lists the circular
figures per config, all in % with one precision. Where the metric gives a strict reading (``strict_accuracy``: an
answer read only in the task's exact format), the "Strict reading" section shows it beside the flexible headline,
with the gap.
"""
from __future__ import annotations

import math
from typing import Sequence

from ..generation.circular import is_circular
from ..spec import PAPER_CONFIGS

PLAIN_TAG, CIRCULAR_TAG = " · plain (rotation 0)", " · circular (all rotations)"
CIRCULAR_BASELINES = (("chance", "Random Guessing" + CIRCULAR_TAG),
                      ("critical_value", "↑ Random (p < 0.05)" + CIRCULAR_TAG))


def pct(v) -> str:
    """A percentage with two decimals (scientific below 0.01, where two decimals would read 0.00)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.2f}" if v == 0 or abs(v) >= 0.01 else f"{v:.1e}"


def has_circular(run) -> bool:
    return getattr(run, "circular", False) and any(isinstance(m, dict) and isinstance(m.get("circular"), dict)
                                                   for m in run.metrics.values())


def circular_value(metrics: dict, col: str, key: str = "accuracy"):
    """The circular figure ``key`` of ``col`` for a circular run's row: the circular block's for a multiple-choice
    config, the plain one for a config asked once; Overall = the mean of the seven when all are there."""
    if col == "overall":
        vals = [circular_value(metrics, c, key) for c in PAPER_CONFIGS if c in metrics]
        return sum(vals) / len(vals) if vals and all(v is not None for v in vals) else None
    m = metrics.get(col)
    if not isinstance(m, dict):
        return None
    if not is_circular(col):
        return m.get(key)
    block = m.get("circular")
    v = block.get(key) if isinstance(block, dict) else None
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def circular_section(runs: Sequence) -> str:
    """The "Circular evaluation" table (Markdown) for the runs with circular figures; "" when none has."""
    lines = []
    for run in runs:
        for config, m in run.metrics.items():
            block = m.get("circular") if isinstance(m, dict) else None
            if not isinstance(block, dict):
                continue
            partial = f" ({block['n_partial']} without every rotation)" if block.get("n_partial") else ""
            lines.append(f"| {run.name} | `{config}` | {block['rotations']} | {block['n']}{partial} | "
                         f"{pct(m['accuracy'])} | {pct(block['accuracy'])} | {pct(block['chance'])} | "
                         f"{pct(block.get('critical_value'))} |")
    if not lines:
        return ""
    return ("\n### Circular evaluation\n\n| run | config | rotations | n | plain (%) | circular (%) | "
            "circular chance (%) | ↑ chance, p < 0.05 (%) |\n|---|---|---:|---:|---:|---:|---:|---:|\n"
            + "\n".join(lines) + "\n\nCircular = the share of items answered right under every rotation of their "
            "options (MMBench's CircularEval); plain = rotation 0 alone. Circular chance = the product of the "
            "rotations' chances (1/k^k for k options: 25.00% for 2, 3.70% for 3, 0.39% for 4); ↑ = the smallest "
            "circular accuracy that beats it at p < 0.05 (exact; '-' when even n of n would not). All in %, "
            "two decimals (scientific below 0.01%).\n")


def strict_section(runs: Sequence, label) -> str:
    """The "Strict reading" table: per run and config, the flexible accuracy (the headline), the strict one and
    the gap; "" when no run's metric gives a strict reading."""
    lines = []
    for run in runs:
        for config, m in run.metrics.items():
            if not isinstance(m, dict) or m.get("strict_accuracy") is None:
                continue
            gap = m["accuracy"] - m["strict_accuracy"]
            lines.append(f"| {run.name} | {label(config)} | {pct(m['accuracy'])} | {pct(m['strict_accuracy'])} | "
                         f"{gap:+.2f} |")
    if not lines:
        return ""
    return ("\n### Strict reading\n\n| run | config | flexible (%) | strict (%) | flexible - strict |\n"
            "|---|---|---:|---:|---:|\n" + "\n".join(lines) + "\n\nFlexible = the reading rule (the table's "
            "headline); strict = only an answer given in the task's exact format (the whole response or its last "
            "line). The gap is how much the extraction decided.\n")
