"""The paper's analyses on any set of runs: Fig. 5 (task correlation) and Fig. 6 (accuracy vs parameters) through
:mod:`jigsaw_puzzles.reporting.report`, Fig. 8 (Order Restoration vs Order Generation) and Fig. 7 (self-correction).

Self-correction (Fig. 7): an Order Restoration answer whose text states a free order - a bracketed list
(``[2, 3, 1, 4]``, ``[2 3 1 4]``, ``(2, 3, 1, 4)``) or a comma list (``2, 3, 1, 4``) of a permutation of 1-4 -
that is *not* among the item's four options, and whose chosen option letter is nevertheless right: the model's
own order was not offered, and it went back to the options and chose well. Lists are read with regular
expressions only; a list of another length or with other numbers is no order.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from ..reporting.report import (ORDER_GENERATION, SHORT, TABLE_CONFIGS, RunSummary, _baseline_value, plot_correlation,
                      plot_params, write_correlation_csv)
from ..spec import CONFIGS

OR, OG = "order_restoration", "order_generation"
MIN_DISTINCT = 3  # Pearson r over two distinct points is +-1 whatever the tasks: no figure below three
_LIST = re.compile(r"[\[(]\s*\d+(?:\s*[,\s]\s*\d+)*\s*[\])]|(?<![\d,])\d+(?:\s*,\s*\d+)+(?![\d,])")
_INT = re.compile(r"\d+")


def stated_orders(text: str | None) -> list[tuple[int, ...]]:
    """Every permutation of 1-4 the text states as a bracketed or comma list, in order of appearance."""
    out = []
    for m in _LIST.finditer(str(text or "")):
        nums = tuple(int(x) for x in _INT.findall(m.group(0)))
        if sorted(nums) == [1, 2, 3, 4]:
            out.append(nums)
    return out


def option_orders(options: Sequence[str]) -> set[tuple[int, ...]]:
    return {tuple(int(x) for x in _INT.findall(str(o))) for o in options}


def self_correction(records: Sequence[dict], options_of) -> dict | None:
    """Counts over a run's Order Restoration records (``options_of(id)``: the item's four option strings)."""
    recs = [r for r in records if r["config"] == OR]
    if not recs:
        return None
    free, corrected = [], []
    for rec in recs:
        offered = option_orders(options_of(rec["id"]))
        if not offered:
            continue
        if any(order not in offered for order in stated_orders(rec.get("output"))):
            free.append(rec["id"])
            if rec.get("correct"):
                corrected.append(rec["id"])
    return {"n": len(recs), "n_correct": sum(bool(r.get("correct")) for r in recs), "n_free_order": len(free),
            "n_self_corrected": len(corrected), "self_corrected_ids": corrected}


def paired_orders(records: Sequence[dict]) -> dict | None:
    """Order Restoration and Order Generation share their shuffles (same source photo): items paired by source."""
    by = {c: {str(r["id"]).split("/", 1)[-1]: bool(r.get("correct")) for r in records if r["config"] == c}
          for c in (OR, OG)}
    shared = sorted(set(by[OR]) & set(by[OG]))
    if not shared:
        return None
    pairs = [(by[OR][s], by[OG][s]) for s in shared]
    return {"n_pairs": len(pairs), "both": sum(a and b for a, b in pairs),
            "or_only": sum(a and not b for a, b in pairs), "og_only": sum(b and not a for a, b in pairs),
            "neither": sum(not a and not b for a, b in pairs)}


def plot_or_vs_og(runs: Sequence[RunSummary], path) -> Path | None:
    """Fig. 8: Order Restoration (x) vs Order Generation (y) accuracy per run, with chance and the diagonal."""
    pts = [(r.acc(OR), r.acc(OG), r.name) for r in runs if r.acc(OR) is not None and r.acc(OG) is not None]
    if not pts:
        return None
    from ..reporting.report import _plt

    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 5))
    ax.plot([0, 100], [0, 100], color="0.6", linewidth=1, linestyle="-", label="OG = OR")
    for config, line in ((OR, ax.axvline), (OG, ax.axhline)):
        chance = _baseline_value(runs, config, "chance")
        if chance is not None:
            line(chance, color="k", linestyle="--", linewidth=0.8)
    ax.scatter([p[0] for p in pts], [p[1] for p in pts], zorder=3)
    labels: dict[tuple, list[str]] = {}
    for x, y, name in pts:  # runs on the same point share one label
        labels.setdefault((round(x, 6), round(y, 6)), []).append(name)
    for (x, y), names in labels.items():
        name = ", ".join(names)
        right = x > 80
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(-4 if right else 4, -10 if y > 90 else 4),
                    ha="right" if right else "left", fontsize=8)
    ax.set_xlim(-2, 102)
    ax.set_ylim(-2, 102)
    ax.set_xlabel(f"{CONFIGS[OR].title} accuracy (%) - with options")
    ax.set_ylabel(f"{CONFIGS[OG].title} accuracy (%) - open-ended")
    ax.set_title("Order Restoration vs Order Generation (paper Fig. 8)\ndashed: random guessing", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return Path(path)


def correlated_tasks(runs: Sequence[RunSummary]) -> list[str]:
    """The tasks Fig. 5 correlates: those every run has an accuracy for (as ``report.task_correlation``)."""
    return [c for c in TABLE_CONFIGS + (ORDER_GENERATION,) if all(isinstance(r.acc(c), float) for r in runs)]


def distinct_runs(runs: Sequence[RunSummary]) -> tuple[list[RunSummary], dict[str, str]]:
    """``(distinct runs, {repeat: the run it repeats})``: a run with the same accuracy on every correlated task as an
    earlier one (e.g. the same predictions analysed twice) is one point of the correlation, not two."""
    tasks = correlated_tasks(runs)
    kept, first, same = [], {}, {}
    for r in runs:
        key = tuple(round(r.acc(c), 9) for c in tasks)
        if key in first:
            same[r.name] = first[key]
        else:
            first[key] = r.name
            kept.append(r)
    return kept, same


def _correlation(runs: Sequence[RunSummary], out: Path, files: dict, notes: list[str]) -> None:
    """Fig. 5 over the distinct runs, refused (with the reason in ``notes``) under :data:`MIN_DISTINCT` of them."""
    tasks = correlated_tasks(runs)
    if len(runs) < MIN_DISTINCT or len(tasks) < 2:
        notes.append("task_correlation.png (Fig. 5) not drawn: needs >= 3 runs sharing >= 2 tasks")
        return
    kept, same = distinct_runs(runs)
    repeats = "; ".join(f"{a} has the same accuracy on every task as {b}" for a, b in same.items())
    if len(kept) < MIN_DISTINCT:
        notes.append(f"task_correlation.png (Fig. 5) not drawn: {len(runs)} runs but only {len(kept)} distinct "
                     f"({repeats}); a correlation needs >= {MIN_DISTINCT} distinct runs (over two points every "
                     f"r is +-1)")
        return
    if not plot_correlation(kept, out / "task_correlation.png"):
        notes.append("task_correlation.png (Fig. 5) not drawn: needs >= 3 runs sharing >= 2 tasks")
        return
    files["task_correlation"] = out / "task_correlation.png"
    files["task_correlation_csv"] = write_correlation_csv(kept, out / "task_correlation.csv")
    if same:
        notes.append(f"task_correlation.png (Fig. 5) is over the {len(kept)} distinct runs: {repeats} (counted "
                     "once)")
    flat = [SHORT[c] for c in tasks if len({round(r.acc(c), 9) for r in kept}) == 1]
    if flat:
        notes.append(f"task_correlation.png (Fig. 5): {', '.join(flat)} {'has' if len(flat) == 1 else 'have'} the same "
                     "accuracy in every run: correlations undefined (blank cells)")


def paper_figures(runs: Sequence[RunSummary], out: Path) -> tuple[dict, list[str]]:
    """Figs. 5, 6 and 8 into ``out``: ``({kind: path}, notes on what could not be drawn)``."""
    files, notes = {}, []
    _correlation(runs, out, files, notes)
    if plot_params(runs, out / "accuracy_vs_params.png"):
        files["accuracy_vs_params"] = out / "accuracy_vs_params.png"
    else:
        notes.append("accuracy_vs_params.png (Fig. 6) not drawn: no run has a known parameter count "
                     "(pass --params NAME=7B)")
    if plot_or_vs_og(runs, out / "or_vs_og.png"):
        files["or_vs_og"] = out / "or_vs_og.png"
    else:
        notes.append("or_vs_og.png (Fig. 8) not drawn: no run answered both Order Restoration and Generation")
    return files, notes
