"""The report's figures: per-task bars (95% intervals, skipped and partial columns marked, split and n said; a
circular run's bars are its plain figures and a diamond marks its circular accuracy),
the task correlation heatmap (paper Fig. 5) and accuracy vs parameter count (paper Fig. 6)."""
from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Sequence

from .runs import RunSummary
from ..generation.circular import is_circular
from .sections import circular_value, has_circular
from .table import (SHORT, TABLE_CONFIGS, _baseline_value, baseline_values, columns, item_groups, label)

ORDER_GENERATION = "order_generation"


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _n_label(runs: Sequence[RunSummary], col: str) -> str:
    ns = sorted({int(r.metrics[col]["n"]) for r in runs if "n" in r.metrics.get(col, {}) and not r.pooled})
    return "" if not ns else f"n={ns[0]}" if len(ns) == 1 else f"n={ns[0]}-{ns[-1]}"


def plot_task_bars(runs: Sequence[RunSummary], path, rows: list[dict] | None = None) -> Path:
    import numpy as np
    from matplotlib.patches import Patch

    plt = _plt()
    cols = [c for c in columns(runs) if c != "overall" and any(c in r.metrics or c in r.skipped for r in runs)]
    x = np.arange(len(cols))
    width = 0.8 / max(1, len(runs))
    fig, ax = plt.subplots(figsize=(max(7.5, 1.1 * len(cols) + 0.25 * len(runs) * len(cols)), 5))
    any_partial = any_skipped = any_circular = False
    for k, r in enumerate(runs):
        pos = x - 0.4 + width * (k + 0.5)
        vals = [r.acc(c) if r.acc(c) is not None else np.nan for c in cols]
        lo = [v - r.metrics[c]["ci_low"] if c in r.metrics and "ci_low" in r.metrics[c] else 0
              for c, v in zip(cols, vals)]
        hi = [r.metrics[c]["ci_high"] - v if c in r.metrics and "ci_high" in r.metrics[c] else 0
              for c, v in zip(cols, vals)]
        name = r.name + (" (plain, rotation 0)" if has_circular(r) else "")
        bars = ax.bar(pos, vals, width, label=name, yerr=[np.nan_to_num(lo), np.nan_to_num(hi)], capsize=2,
                      error_kw={"elinewidth": 0.8, "ecolor": "0.25"})
        if has_circular(r):  # the circular figure on the run's own bar: a diamond where it is multiple choice
            circ = [circular_value(r.metrics, c) if c in r.metrics and is_circular(c) else None for c in cols]
            keep = [(p, v) for p, v in zip(pos, circ) if v is not None]
            if keep:
                ax.scatter([p for p, _ in keep], [v for _, v in keep], marker="D", s=22, color="k", zorder=4, clip_on=False,
                           label=None if any_circular else "circular (all rotations) of that run")
                any_circular = True
        for bar, c, p in zip(bars, cols, pos):
            if r.partial(c):
                bar.set_hatch("///")
                bar.set_edgecolor("0.2")
                any_partial = True
            if c in r.skipped:
                ax.text(p, 1.5, "skipped", rotation=90, ha="center", va="bottom", fontsize=7, color="0.3")
                any_skipped = True
    groups = item_groups(runs)
    if len(groups) == 1:
        for key, style, name in (("chance", dict(colors="k", linestyles="--"), "chance (uniform guess)"),
                                 ("critical_value", dict(colors="r", linestyles=":"), "p < 0.05 above chance"),
                                 ("constant", dict(colors="tab:purple", linestyles="-."), "best constant answer")):
            first = True
            for i, c in enumerate(cols):
                v = baseline_values(groups[0], c).get(key)
                if v is not None:
                    ax.hlines(v, i - 0.45, i + 0.45, linewidth=1, label=name if first else None, **style)
                    first = False
    handles, labels = ax.get_legend_handles_labels()
    if any_partial:
        handles.append(Patch(facecolor="white", edgecolor="0.2", hatch="///"))
        labels.append("partial (run incomplete)")
    ax.set_xticks(x, [f"{label(c)}\n{_n_label(runs, c)}" for c in cols], fontsize=8)
    ax.set_ylabel("accuracy (%), 95% Clopper-Pearson interval")
    ax.set_ylim(0, 105)
    splits = ", ".join(sorted({str(r.split) for r in runs}))
    ns = sorted({int(r.metrics[c]["n"]) for r in runs for c in cols if "n" in r.metrics.get(c, {}) and not r.pooled})
    n_text = "" if not ns else f"n = {ns[0]}" if len(ns) == 1 else f"n = {ns[0]}-{ns[-1]}"
    title = f"Jigsaw-Puzzles: accuracy per task (split {splits}, {n_text} items per task)"
    if len(groups) > 1:
        title += "\nruns over different items: their chance levels are in report.md"
    if any_skipped:
        title += "\n'skipped': config not run (reason in report.md)"
    ax.set_title(title, fontsize=10)
    ax.legend(handles, labels, fontsize=8, ncol=2 if len(runs) > 6 else 1, loc="upper left",
              bbox_to_anchor=(1.005, 1.0))  # outside: never hides a bar
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return Path(path)


def task_correlation(runs: Sequence[RunSummary]):
    """(task names, Pearson matrix) across runs, over the tasks every run has.  None if < 3 runs."""
    import numpy as np

    tasks = [c for c in TABLE_CONFIGS + (ORDER_GENERATION,) if all(isinstance(r.acc(c), float) for r in runs)]
    if len(runs) < 3 or len(tasks) < 2:
        return None
    m = np.array([[r.acc(c) for c in tasks] for r in runs], dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.corrcoef(m, rowvar=False)
    return tasks, corr


def plot_correlation(runs: Sequence[RunSummary], path) -> Path | None:
    import numpy as np

    tc = task_correlation(runs)
    if tc is None:
        return None
    tasks, corr = tc
    plt = _plt()
    fig, ax = plt.subplots(figsize=(1 + 0.8 * len(tasks), 0.6 + 0.7 * len(tasks)))
    im = ax.imshow(np.ma.masked_invalid(corr), cmap="RdBu_r", vmin=-1, vmax=1)
    labels = [SHORT[t] for t in tasks]
    ax.set_xticks(range(len(tasks)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(tasks)), labels)
    for i in range(len(tasks)):
        for j in range(len(tasks)):
            v = corr[i, j]
            ax.text(j, i, "" if math.isnan(v) else f"{v:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if abs(v) > 0.6 else "black")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="Pearson r")
    ax.set_title(f"Task similarity across {len(runs)} runs")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return Path(path)


def write_correlation_csv(runs: Sequence[RunSummary], path) -> Path | None:
    """The Fig. 5 matrix as CSV (task abbreviations as row and column names); None if < 3 runs."""
    tc = task_correlation(runs)
    if tc is None:
        return None
    tasks, corr = tc
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([""] + [SHORT[t] for t in tasks])
        for t, line in zip(tasks, corr):
            w.writerow([SHORT[t]] + [f"{v:.4f}" for v in line])
    return Path(path)


def plot_params(runs: Sequence[RunSummary], path) -> Path | None:
    pts = [(float(r.parameters), r.acc("overall"), r.name) for r in runs
           if r.parameters and r.parameters > 0 and r.acc("overall") is not None]
    if not pts:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.scatter([p[0] for p in pts], [p[1] for p in pts])
    for x, y, n in pts:
        ax.annotate(n, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ch = _baseline_value(runs, "overall", "chance") if len(item_groups(runs)) == 1 else None
    if ch is not None:
        ax.axhline(ch, color="k", linestyle="--", linewidth=1, label="chance (uniform guess)")
        ax.legend(fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("parameters (log scale)")
    ax.set_ylabel("overall accuracy (%)")
    ax.set_title("Accuracy vs model size")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return Path(path)
