"""``jigsaw-puzzles report``: the paper's Table 2 (+ Order Generation) over run directories, and plots.

Rows = runs (plus "Random Guessing" and "↑ Random (p < 0.05)" rows computed for the split the runs used),
columns = MPS Easy/Hard, PL Easy/Hard, CV, AD, OR, Overall (mean of the seven, as in Table 2) and OG.
Outputs (``--out DIR``): ``report.md``, ``report.csv``, ``task_bars.png`` (per-task bars),
``task_correlation.png`` + ``task_correlation.csv`` (Pearson correlation between tasks across runs, paper Fig. 5;
needs >= 3 runs) and ``accuracy_vs_params.png`` (overall accuracy vs parameter count, log x, paper Fig. 6; runs
whose parameter count is known from run.json or given with ``--params NAME=7B``).
"""
from __future__ import annotations

import csv
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from .circular import circular_section
from .errors import UsageError
from .inference.rundir import RunDir
from .spec import CONFIGS, PAPER_CONFIGS, get as get_spec, is_config
from .variants import Variant

TABLE_CONFIGS = PAPER_CONFIGS
OPEN_ENDED = tuple(c for c in CONFIGS if c not in PAPER_CONFIGS)  # reported after "Overall"
ORDER_GENERATION = "order_generation"
COLUMNS = TABLE_CONFIGS + ("overall",) + OPEN_ENDED


def columns(runs: Sequence["RunSummary"]) -> tuple[str, ...]:
    """The table's columns: the paper's, then any grid config a run answered (beyond the paper)."""
    extra = sorted({c for r in runs for c in r.metrics if c not in COLUMNS and is_config(c)})
    return COLUMNS + tuple(extra)


def label(col: str) -> str:
    return LABELS.get(col) or get_spec(col).short
LABELS = {**{c: s.short for c, s in CONFIGS.items()}, "overall": "Overall"}
# Fig. 5 abbreviations (initials, _e / _h for Easy / Hard)
SHORT = {c: s.short.replace(" Easy", "_e").replace(" Hard", "_h") for c, s in CONFIGS.items()}
# chance levels of uniform guessing, used only when no run carries the metric's own value
UNIFORM_CHANCE = {c: 100 * s.chance for c, s in CONFIGS.items()}


def _first_sentence(text: str) -> str:
    """The gist of a long error message: up to the first sentence end (the table stays readable)."""
    head = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    return head if head.endswith((".", "!", "?")) else head + "."


@dataclass
class RunSummary:
    path: Path
    name: str
    model: str
    backend: str | None
    split: str | None
    parameters: float | None
    metrics: dict
    skipped: dict = field(default_factory=dict)
    complete: bool = True
    n_missing: int = 0  # items without an answer (an incomplete run)
    n_errors: int = 0  # of which the last attempt ended in an error

    def acc(self, col: str) -> float | None:
        if col == "overall":
            return overall_accuracy(self.metrics)
        m = self.metrics.get(col)
        return None if not m or m.get("accuracy") is None else float(m["accuracy"])

    def overall_tasks(self) -> int:
        return sum(1 for c in TABLE_CONFIGS if c in self.metrics)


def overall_accuracy(metrics: dict) -> float | None:
    """Table-2 Overall: the metric's "overall" entry, else the mean of the seven task accuracies present."""
    o = metrics.get("overall")
    if isinstance(o, dict) and o.get("accuracy") is not None:
        return float(o["accuracy"])
    vals = [float(metrics[c]["accuracy"]) for c in TABLE_CONFIGS if c in metrics and metrics[c].get("accuracy") is not None]
    return sum(vals) / len(vals) if vals else None


def parse_params(text: str | float | int | None) -> float | None:
    """'7B' -> 7e9, '500M' -> 5e8, '7e9' -> 7e9, '72b' -> 7.2e10."""
    if text is None:
        return None
    if isinstance(text, (int, float)):
        return float(text)
    m = re.fullmatch(r"\s*([0-9.]+(?:e[0-9]+)?)\s*([kKmMbBtT]?)\s*", str(text))
    if not m:
        raise UsageError(f"cannot parse a parameter count from {text!r} (use e.g. 7B, 500M, 7e9)")
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}[m.group(2).lower()]


def load_run(path: str | os.PathLike) -> RunSummary:
    rundir = RunDir(path)
    path = rundir.path
    res = rundir.read_results()
    run = rundir.read_run() or {}
    metrics = res.get("metrics", res)  # tolerate a bare metric dict
    model = res.get("model") or run.get("model") or path.name
    name = Path(model).name if (os.sep in model and Path(model).exists()) else model
    name += Variant.from_dict(run.get("variant")).tag  # e.g. "qwen [cot]": variants of one model side by side
    params = run.get("parameters", res.get("parameters"))
    return RunSummary(path=path, name=name, model=model, backend=res.get("backend") or run.get("backend"),
                      split=res.get("split") or run.get("split"), parameters=params or None,
                      metrics={k: v for k, v in metrics.items() if isinstance(v, dict)},
                      skipped=res.get("skipped") or run.get("skipped") or {}, complete=res.get("complete", True),
                      n_missing=int(res.get("n_missing") or 0), n_errors=int(res.get("n_errors") or 0))


def _human_runs(path: str | os.PathLike) -> list[RunSummary]:
    """A human test folder: one run per participant, then the pooled "Human" row (:mod:`.human.pool`)."""
    from .human.pool import participant_dirs, pooled_metrics

    people = [load_run(d) for d in participant_dirs(path)]
    if not people:
        raise UsageError(f"{path} is a human test without answers yet: run `jigsaw-puzzles human --out {path}` "
                         "and answer at least one item")
    pooled = RunSummary(path=Path(path), name="Human", model="human", backend="human", split=people[0].split,
                        parameters=None, metrics=pooled_metrics([p.metrics for p in people]),
                        complete=all(p.complete for p in people), n_missing=sum(p.n_missing for p in people))
    return people + [pooled]


def load_runs(paths: Iterable[str | os.PathLike], params: dict[str, str] | None = None) -> list[RunSummary]:
    from .human.pool import is_human_test

    return name_runs([r for p in paths for r in (_human_runs(p) if is_human_test(p) else [load_run(p)])], params)


def name_runs(runs: list[RunSummary], params: dict[str, str] | None = None) -> list[RunSummary]:
    """Disambiguate equal model names by run directory and set the ``params`` (``NAME=7B``) given for runs."""
    names = [r.name for r in runs]
    for r in runs:  # disambiguate equal model names by run directory
        if names.count(r.name) > 1:
            r.name = f"{r.name} ({r.path.name})"
    for key, val in (params or {}).items():
        hits = [r for r in runs if key in (r.name, r.model, r.path.name, str(r.path))]
        if not hits:
            raise UsageError(f"--params {key}=...: no run named {key!r} (runs: {[r.name for r in runs]})")
        for r in hits:
            r.parameters = parse_params(val)
    return runs


# ------------------------------------------------------------------------------------------------ the table
def _baseline_value(runs: Sequence[RunSummary], col: str, key: str) -> float | None:
    for r in runs:
        m = r.metrics.get(col)
        if m and m.get(key) is not None:
            return float(m[key])
    if col == "overall":
        vals = [_baseline_value(runs, c, key) for c in TABLE_CONFIGS]
        return sum(vals) / len(vals) if all(v is not None for v in vals) else None
    if key == "chance":
        return UNIFORM_CHANCE.get(col)
    return None


def table_rows(runs: Sequence[RunSummary]) -> list[dict]:
    """Rows of the table: per split, Random + p < 0.05 rows, then the runs (in the order given)."""
    rows = []
    cols = columns(runs)
    splits = list(dict.fromkeys(r.split for r in runs))
    for split in splits:
        group = [r for r in runs if r.split == split]
        tag = f" [{split}]" if len(splits) > 1 else ""
        ncols = next((int(r.metrics["overall"].get("n_columns", len(TABLE_CONFIGS))) for r in group
                      if "overall" in r.metrics), len(TABLE_CONFIGS))
        note = {"overall_note": f"over {ncols} of {len(TABLE_CONFIGS)} tasks"} if ncols < len(TABLE_CONFIGS) else {}
        rows.append({"name": f"Random Guessing{tag}", "kind": "baseline", "split": split,
                     **{c: _baseline_value(group, c, "chance") for c in cols}, **note})
        rows.append({"name": f"↑ Random (p < 0.05){tag}", "kind": "baseline", "split": split,
                     **{c: _baseline_value(group, c, "critical_value") for c in cols}, **note})
    for r in runs:
        row = {"name": r.name, "kind": "run", "split": r.split, "model": r.model, "backend": r.backend,
               "parameters": r.parameters, "run_dir": str(r.path), "complete": r.complete,
               "n_missing": r.n_missing, "n_errors": r.n_errors}
        for c in cols:
            row[c] = "skipped" if c in r.skipped else r.acc(c)
        if r.overall_tasks() < len(TABLE_CONFIGS) and row["overall"] is not None:
            row["overall_note"] = f"over {r.overall_tasks()} of {len(TABLE_CONFIGS)} tasks"
        rows.append(row)
    return rows


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    return f"{v:.2f}"


def _incomplete(row: dict) -> str:
    if row.get("complete", True):
        return ""
    errors = f", {row['n_errors']} errored" if row.get("n_errors") else ""
    return f" (incomplete: {row.get('n_missing') or '?'} items unanswered{errors})"


def format_markdown(runs: Sequence[RunSummary], rows: list[dict] | None = None) -> str:
    rows = rows if rows is not None else table_rows(runs)
    cols = columns(runs)
    head = ["Model"] + [label(c) for c in cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * len(cols)) + "|"]
    notes = []
    for row in rows:
        cells = [row["name"] + _incomplete(row)]
        for c in cols:
            s = _fmt(row.get(c))
            if c == "overall" and row.get("overall_note"):
                s += "†"
            cells.append(s)
        lines.append("| " + " | ".join(cells) + " |")
    if any(r.get("overall_note") for r in rows):
        notes.append("† Overall averages only the tasks that were run: "
                     + "; ".join(f"{r['name']}: {r['overall_note']}" for r in rows if r.get("overall_note")) + ".")
    for r in runs:
        for c, why in r.skipped.items():
            where = RunDir(r.path).results_json.relative_to(r.path.parent)
            notes.append(f"{r.name}: {LABELS.get(c, c)} ({c}) skipped - {_first_sentence(why.get('reason', ''))} "
                         f"To enable: {why.get('enable', '')} (full reason in {where})")
    splits = sorted({str(r.split) for r in runs})
    notes.append("Accuracy in % (exact match). Overall = mean of the seven Table-2 tasks; OG = Order Generation "
                 "(open-ended, not in Overall)"
                 + ("; columns after OG are grid configs beyond the paper (e.g. OR 3x3 = order_restoration_3x3)"
                    if len(cols) > len(COLUMNS) else "") + f". Split: {', '.join(splits)}.")
    return "\n".join(lines) + "\n\n" + "\n\n".join(notes) + "\n"


def write_csv(rows: list[dict], path: str | os.PathLike) -> None:
    configs = list(COLUMNS) + sorted({k for r in rows for k in r if k not in COLUMNS and is_config(k)})
    meta = ["name", "kind", "split", "model", "backend", "parameters", "complete", "n_missing", "n_errors"]
    keys = meta + configs + ["run_dir"]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(meta + [label(c) for c in configs] + ["run_dir"])
        for row in rows:
            rec = []
            for key in keys:
                v = row.get(key)
                rec.append("" if v is None else (f"{v:.4f}" if isinstance(v, float) else v))
            w.writerow(rec)


# ------------------------------------------------------------------------------------------------ plots
def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_task_bars(runs: Sequence[RunSummary], path, rows: list[dict] | None = None) -> Path:
    import numpy as np

    plt = _plt()
    cols = [c for c in columns(runs) if any(isinstance(r.acc(c), float) for r in runs)]
    x = np.arange(len(cols))
    width = 0.8 / max(1, len(runs))
    fig, ax = plt.subplots(figsize=(max(7, 1.1 * len(cols) + 0.25 * len(runs) * len(cols)), 4.5))
    for k, r in enumerate(runs):
        vals = [r.acc(c) if r.acc(c) is not None else np.nan for c in cols]
        ax.bar(x - 0.4 + width * (k + 0.5), vals, width, label=r.name)
    chance = [_baseline_value(runs, c, "chance") for c in cols]
    crit = [_baseline_value(runs, c, "critical_value") for c in cols]
    for i, (ch, cv) in enumerate(zip(chance, crit)):
        if ch is not None:
            ax.hlines(ch, i - 0.45, i + 0.45, colors="k", linestyles="--", linewidth=1,
                      label="Random" if i == 0 else None)
        if cv is not None:
            ax.hlines(cv, i - 0.45, i + 0.45, colors="r", linestyles=":", linewidth=1,
                      label="Random (p < 0.05)" if i == 0 else None)
    ax.set_xticks(x, [label(c) for c in cols])
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Jigsaw-Puzzles: accuracy per task")
    ax.legend(fontsize=8, ncol=2 if len(runs) > 6 else 1, loc="upper left", bbox_to_anchor=(1.005, 1.0))  # outside: never hides a bar
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
    ch = _baseline_value(runs, "overall", "chance")
    if ch is not None:
        ax.axhline(ch, color="k", linestyle="--", linewidth=1, label="Random")
        ax.legend(fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("parameters (log scale)")
    ax.set_ylabel("overall accuracy (%)")
    ax.set_title("Accuracy vs model size")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return Path(path)


# ------------------------------------------------------------------------------------------------ entry point
def make_report(run_dirs: Sequence[str | os.PathLike], out: str | os.PathLike | None = "report",
                params: dict[str, str] | None = None, plots: bool = True, stream=...) -> dict:
    """Print the table to ``stream`` (default stdout, None = silent) and write report.md / report.csv / plots
    into ``out`` (None = write nothing).

    Returns ``{"markdown": text, "rows": rows, "files": {kind: path}, "notes": [...]}``.
    """
    if stream is ...:
        stream = sys.stdout
    from .human.pool import agreement, format_agreement, is_human_test

    runs = load_runs(run_dirs, params)
    rows = table_rows(runs)
    md = format_markdown(runs, rows) + circular_section(runs)  # "" unless a run is circular
    humans = {str(p): agreement(p) for p in run_dirs if is_human_test(p)}
    for where, agree in humans.items():
        md += (f"\n### Human agreement ({where})\n\n" + format_agreement(agree) + "\nHuman = the mean of the "
               "participants' accuracies; agreement over the items every participant of a config answered.\n")
    files, notes = {}, []
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.md").write_text("# Jigsaw-Puzzles results\n\n" + md, encoding="utf-8")
        files["markdown"] = out / "report.md"
        write_csv(rows, out / "report.csv")
        files["csv"] = out / "report.csv"
        if humans:
            with open(out / "human_agreement.csv", "w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, ["test", "config", "participants", "shared_items", "pairwise_agreement",
                                       "fleiss_kappa", "median_response_s"])
                w.writeheader()
                for where, agree in humans.items():
                    for r in agree:
                        w.writerow({"test": where, **r})
            files["human_agreement"] = out / "human_agreement.csv"
        if plots:
            files["task_bars"] = plot_task_bars(runs, out / "task_bars.png")
            p = plot_correlation(runs, out / "task_correlation.png")
            if p:
                files["task_correlation"] = p
                files["task_correlation_csv"] = write_correlation_csv(runs, out / "task_correlation.csv")
            else:
                notes.append("task_correlation.png not written: needs >= 3 runs sharing >= 2 tasks")
            p = plot_params(runs, out / "accuracy_vs_params.png")
            if p:
                files["accuracy_vs_params"] = p
            else:
                notes.append("accuracy_vs_params.png not written: no run has a known parameter count "
                             "(pass --params NAME=7B)")
    if stream is not None:
        stream.write(md)
        for n in notes:
            stream.write(f"note: {n}\n")
        for k, p in files.items():
            stream.write(f"wrote {p}\n")
    return {"markdown": md, "rows": rows, "files": {k: str(v) for k, v in files.items()}, "notes": notes}
