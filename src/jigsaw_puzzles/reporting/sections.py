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
from ..inference.resolutions import WAY_LABELS
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


RESOLVED_NOTE = ("A row '· restated', '· judged', '· decided by a person' is the run's accuracy after that way "
                 "resolved the outputs the reader left unread (the reader's answers unchanged; an output it read is "
                 "never re-decided); its name says how many unread outputs it read an answer from and how many stayed "
                 "unread. The reader's row above it is the headline: resolved answers are never merged into it. "
                 "'person, else judge, else restatement' takes, for each unread output, the first of those ways that "
                 "decided it.")


def resolved_ways(run) -> list[tuple[str, dict]]:
    """``(way, figures)`` of every way that resolved some of the run's unread outputs (``combined`` last)."""
    resolved = getattr(run, "resolved", None) or {}
    return [(w, resolved[w]) for w in WAY_LABELS if isinstance(resolved.get(w), dict)]


def resolved_tag(way: str, figures: dict) -> str:
    o = figures.get("overall") or {}
    return (f" · {WAY_LABELS[way]}: {o.get('read', 0)} of {o.get('unread', 0)} unread read, "
            f"{o.get('still_unread', 0)} still unread")


def resolved_value(figures: dict, col: str):
    """A resolved row's cell: the accuracy after that way (Overall: the mean of the seven, as the headline's)."""
    m = figures.get(col)
    return m.get("accuracy") if isinstance(m, dict) else None


def resolution_section(runs: Sequence, label) -> str:
    """The "Unread answers resolved" table: per run, way and config with unread outputs, the reader's accuracy (the
    headline), the accuracy after that way, and what the way did with the unread outputs; then the agreement
    between the ways. "" when no run has a resolution."""
    lines, agree = [], []
    for run in runs:
        for way, figures in resolved_ways(run):
            for config, f in figures.items():
                if not isinstance(f, dict) or (config != "overall" and not f.get("unread")):
                    continue
                head = run.acc(config) if config != "overall" else run.acc("overall")
                name = "Overall" if config == "overall" else label(config)
                lines.append(f"| {run.name} | {WAY_LABELS[way]} | {name} | {pct(head)} | {pct(f.get('accuracy'))} | "
                             f"{f['unread']} | {f['read']} ({f['read_correct']}) | {f['no_answer']} | {f['refused']}"
                             f"{' + ' + str(f['disputed']) + ' disputed' if f.get('disputed') else ''} | "
                             f"{f['errors']} | {f['still_unread']} |")
        for pair in (run.resolved or {}).get("agreement") or []:
            a, b = pair["ways"]
            share = f" ({100 * pair['agree'] / pair['both']:.0f}%)" if pair["both"] else ""
            agree.append(f"{run.name}: {WAY_LABELS[a]} and {WAY_LABELS[b]} both decided {pair['both']} unread "
                         f"outputs, alike on {pair['agree']}{share}.")
    if not lines:
        return ""
    return ("\n### Unread answers resolved\n\n| run | way | config | reader (%) | after (%) | unread | read (right) | "
            "no answer | refused | errors | still unread |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            + "\n".join(lines) + "\n\n" + ("Agreement: " + " ".join(agree) + "\n\n" if agree else "")
            + "Reader = the headline (an unread output counts as wrong); after = the same answers with the unread "
            "outputs this way read counted too. Read (right): unread outputs it read an answer from (of which right); "
            "no answer: it decided the output gives none; refused: its reading was refused (a restatement not in the "
            "exact format; a judge whose quote is not in the output or does not name its answer, or whose answer is "
            "not an option); errors: the request failed (asked again on the next `eval`).\n")


def unread_section(runs: Sequence, top: int = 5) -> str:
    """The "Why answers went unread" list: per run, its ``top`` most frequent reasons the reader gave for leaving an
    output unread (each counted as wrong), with how many outputs; "" when every output was read."""
    lines = []
    for run in runs:
        reasons = sorted((getattr(run, "unread", None) or {}).items(), key=lambda kv: (-kv[1], kv[0]))
        if reasons:
            total = sum(n for _, n in reasons)
            lines.append(f"- {run.name}: {total} unread; " + "; ".join(f"{n} × {why}" for why, n in reasons[:top])
                         + (f"; {total - sum(n for _, n in reasons[:top])} other" if len(reasons) > top else ""))
    if not lines:
        return ""
    return ("\n### Why answers went unread\n\n" + "\n".join(lines) + "\n\nEach reason is the reader's (`Extraction.detail`"
            ", quoted words folded into (...)); an unread answer counts as wrong. `eval --restate`, `eval --judge` and "
            "`adjudicate` resolve them in the open, counted apart ([unread answers](docs/evaluation.md)).\n")
