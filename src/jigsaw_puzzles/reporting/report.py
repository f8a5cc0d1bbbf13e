"""``jigsaw-puzzles report``: the paper's Table 2 (+ Order Generation) over run directories, and plots.

Rows = per set of items the baseline rows "Random Guessing", "↑ Random (p < 0.05)" and "Constant answer (best)" (from
the items the runs answered, :mod:`.table`), then the runs; columns = MPS Easy/Hard, PL Easy/Hard, CV, AD, OR, Overall
(mean of the seven, as in Table 2) and OG, then grid configs; a second table gives each config's n and invalid rate.
Every number is derived from each run's raw outputs and item manifest (:mod:`.derive`; results.json is a cache, and a
run whose results.json disagrees is left out saying why); runs are read by :mod:`.runs` (a folder that cannot be read
is listed with its reason, the rest reported); a circular run gets circular rows and the strict reading is shown where
the metric gives it (:mod:`.sections`). Outputs (``--out DIR``, rules in :mod:`.out`): ``report.md``, ``report.csv``,
``task_bars.png`` (per-task bars with 95% intervals), ``task_correlation.png`` + ``task_correlation.csv`` (Pearson
correlation between tasks across runs, paper Fig. 5; needs >= 3 runs), ``accuracy_vs_params.png`` (overall accuracy vs
parameter count, log x, paper Fig. 6) and with ``--compare`` ``compare.md`` (:mod:`.compare`).
"""
from __future__ import annotations

import csv
import os
import sys
from pathlib import Path
from typing import Sequence

from ..errors import python_face
from .out import ReportFolder
from .sections import circular_section, resolution_section, strict_section, unread_section
from .plots import (ORDER_GENERATION, _plt, plot_correlation, plot_params, plot_task_bars, task_correlation,
                           write_correlation_csv)
from .runs import (TABLE_CONFIGS, RunSummary, load_run, load_runs, name_runs, overall_accuracy,
                          parse_params)
from .table import (COLUMNS, LABELS, OPEN_ENDED, SHORT, UNIFORM_CHANCE, _baseline_value, columns,
                           format_markdown, label, table_rows, write_csv)

__all__ = ["make_report", "RunSummary", "load_run", "load_runs", "name_runs", "table_rows", "format_markdown",
           "write_csv", "columns", "label", "parse_params", "overall_accuracy", "plot_task_bars", "plot_correlation",
           "plot_params", "task_correlation", "write_correlation_csv", "COLUMNS", "LABELS", "SHORT", "TABLE_CONFIGS",
           "OPEN_ENDED", "ORDER_GENERATION", "UNIFORM_CHANCE", "_baseline_value", "_plt"]


# ------------------------------------------------------------------------------------------------ entry point
@python_face
def make_report(run_dirs: Sequence[str | os.PathLike], out: str | os.PathLike | None = "report",
                params: dict[str, str] | None = None, plots: bool = True, stream=..., compare: bool = False) -> dict:
    """Print the table to ``stream`` (default stdout, None = silent) and write report.md / report.csv / plots
    (and ``compare.md`` with ``compare``: every run against the first) into ``out`` (None = write nothing).
    A run folder that cannot be read is listed under the table with its reason and the others are reported.

    Returns ``{"markdown": text, "rows": rows, "files": {kind: path}, "notes": [...], "left_out": [(path, why)]}``.
    """
    if stream is ...:
        stream = sys.stdout
    from ..human.pool import agreement, format_agreement, is_human_test

    folder = ReportFolder(out) if out is not None else None  # refused before any work
    left_out: list = []
    runs = load_runs(run_dirs, params, left_out=left_out)
    rows = table_rows(runs)
    md = format_markdown(runs, rows, left_out) + circular_section(runs) + strict_section(runs, label) \
        + resolution_section(runs, label) + unread_section(runs)
    humans = {str(p): agreement(p) for p in run_dirs if is_human_test(p) and str(p) not in dict(left_out)}
    for where, agree in humans.items():
        md += (f"\n### Human agreement ({where})\n\n" + format_agreement(agree) + "\nHuman = the mean of the "
               "participants' accuracies; agreement over the items every participant of a config answered.\n")
    files, notes = {}, []
    comparison = None
    if compare:
        from .compare import compare_many

        comparison = compare_many(run_dirs)
    if folder is not None:
        try:  # every file staged first (all or nothing: .out.ReportFolder)
            if folder.replacing:
                notes.append(folder.replacing)
            folder.path("report.md").write_text("# Jigsaw-Puzzles results\n\n" + md, encoding="utf-8")
            files["markdown"] = folder.out / "report.md"
            write_csv(rows, folder.path("report.csv"))
            files["csv"] = folder.out / "report.csv"
            if comparison is not None:
                folder.path("compare.md").write_text(comparison, encoding="utf-8")
                files["compare"] = folder.out / "compare.md"
            if humans:
                with open(folder.path("human_agreement.csv"), "w", newline="", encoding="utf-8") as f:
                    w = csv.DictWriter(f, ["test", "config", "participants", "shared_items", "pairwise_agreement",
                                           "fleiss_kappa", "median_response_s"])
                    w.writeheader()
                    for where, agree in humans.items():
                        for r in agree:
                            w.writerow({"test": where, **r})
                files["human_agreement"] = folder.out / "human_agreement.csv"
            if plots:
                files["task_bars"] = plot_task_bars(runs, folder.path("task_bars.png"))
                p = plot_correlation(runs, folder.path("task_correlation.png"))  # (none written: not in place)
                if p:
                    files["task_correlation"] = p
                    files["task_correlation_csv"] = write_correlation_csv(runs, folder.path("task_correlation.csv"))
                else:
                    notes.append("task_correlation.png not written: needs >= 3 runs sharing >= 2 tasks")
                p = plot_params(runs, folder.path("accuracy_vs_params.png"))
                if p:
                    files["accuracy_vs_params"] = p
                else:
                    notes.append("accuracy_vs_params.png not written: no run has a known parameter count "
                                 "(pass --params NAME=7B)")
        except BaseException as err:
            user = folder.failed(err)
            if user is not None:
                raise user from None
            raise
        notes += [f"removed {folder.out / n}: from the earlier report, not written by this one"
                  for n in folder.finish()]
        files = {k: folder.out / Path(v).name for k, v in files.items()}  # where finish put them
    if stream is not None:
        stream.write(md)
        if comparison is not None:
            stream.write("\n" + comparison)
        for n in notes:
            stream.write(f"note: {n}\n")
        for k, p in files.items():
            stream.write(f"wrote {p}\n")
    return {"markdown": md, "rows": rows, "files": {k: str(v) for k, v in files.items()}, "notes": notes,
            "left_out": left_out, "compare": comparison}
