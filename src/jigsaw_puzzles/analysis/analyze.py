"""``jigsaw-puzzles analyze``: why items are hard, over one or more run directories.

Writes into ``out``: ``analysis.md`` (every table, with the figures linked), ``items.csv`` (every answered item
with its verdict and features), ``error_model.csv`` + ``error_model_importance.csv`` + ``error_model_<run>.png``,
``answer_bias.csv`` + ``answer_bias.png``, ``paper.csv`` + ``self_correction.csv`` + the paper's figures
(``task_correlation.png``/``.csv``, ``accuracy_vs_params.png``, ``or_vs_og.png``) and the feature cache
``features/``. docs/analysis.md describes every output and statistic.
"""
from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import UserError, install_hint
from .bias import answer_bias, plot_bias
from .error_model import (MODELS, PERMUTATIONS, check_permutations, design_matrix, finding, fit_error_model,
                          plot_importance)
from .features import NAMES
from .items import ItemSource, item_tables
from .markdown import format_analysis
from .paper import OG, OR, paired_orders, paper_figures, self_correction
from .runs import load_analysis_runs


def require_extra() -> None:
    """One clear line when scikit-learn or scipy is missing (the ``[analysis]`` extra)."""
    missing = []
    for module in ("sklearn", "scipy"):
        try:
            __import__(module)
        except ImportError:
            missing.append({"sklearn": "scikit-learn"}.get(module, module))
    if missing:
        raise UserError(f"analyze needs {' and '.join(missing)}: {install_hint('analysis')}")


def _cell(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.6g}" if isinstance(v, float) else v


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for row in rows:
            w.writerow([_cell(v) for v in row])
    return path


def analyze(runs: Sequence[str | os.PathLike], out: str | os.PathLike = "analysis", data: Mapping | None = None,
            params: Mapping[str, str] | None = None, features_dir: str | os.PathLike | None = None,
            from_export: str | os.PathLike | None = None, dataset_kwargs: Mapping | None = None, seed: int = 0,
            n_repeats: int = 10, n_permutations: int = PERMUTATIONS, progress: bool = True, stream=None) -> dict:
    """Analyse run directories ``runs`` into ``out`` (see the module docstring).

    data: ``{config: datasets.Dataset}``, the items instead of rebuilding them from run.json (checked against
        the fingerprints the runs recorded). from_export: a folder written by ``jigsaw-puzzles build`` to read
        the items from. dataset_kwargs: builder settings for the rebuild (``cache_dir``, ``answer_plan``).
    features_dir: the feature cache (default ``out/features``). seed, n_repeats: cross-validation shuffles and
        permutation importance. n_permutations: label shuffles of the error model's null (0: none, and no
        feature is named; else >= 19). Returns the tables as Python objects, the Markdown and the files written.
    """
    require_extra()
    check_permutations(n_permutations)
    if not runs:
        raise UserError("analyze needs at least one run directory")
    out = Path(out)
    loaded = load_analysis_runs(runs, dict(params or {}))
    source = ItemSource(features_dir if features_dir is not None else out / "features", data, from_export,
                        dataset_kwargs, progress)
    tables = item_tables(loaded, source)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    notes = [n for r in loaded for n in r.notes] + source.notes

    def features_of(run):
        return lambda rec: tables[run.name][rec["config"]].features(rec["id"])

    # ---- items.csv
    item_rows = []
    for run in loaded:
        get = features_of(run)
        for rec in run.records:
            feats = get(rec) or {}
            extracted = rec.get("extracted")  # an anomaly block on one line: "Judgment: A / Error Position: ..."
            extracted = None if extracted is None else " / ".join(str(extracted).splitlines())
            item_rows.append([run.name, rec["id"], rec["config"], int(bool(rec.get("correct"))), rec.get("status"),
                              extracted] + [feats.get(k) for k in NAMES])
    files["items"] = write_csv(out / "items.csv", ["run", "id", "config", "correct", "status", "extracted",
                                                   *NAMES], item_rows)

    # ---- error model
    models = {}
    for run in loaded:
        X, y, columns, dropped = design_matrix(run.records, features_of(run))
        result = fit_error_model(X, y, columns, seed=seed, n_repeats=n_repeats, n_permutations=n_permutations)
        result["dropped"] = dropped
        png = plot_importance(result, out / f"error_model_{run.slug}.png", run.name)
        if png:
            files[f"error_model_{run.slug}"] = Path(png)
            result["plot"] = Path(png).name
        models[run.name] = result
    stats = ("mean", "sd", "p", "null_mean", "null_95")
    files["error_model"] = write_csv(
        out / "error_model.csv",
        ["run", "n", "n_errors", "folds", "permutations", *[f"auc_{m}_{s}" for m in MODELS for s in stats],
         *[f"threshold_{m}" for m in MODELS], *[f"top_{m}" for m in MODELS], "skipped", "dropped"],
        [[name, r["n"], r["n_errors"], r.get("folds"), r["n_permutations"]]
         + [r["models"].get(m, {}).get(f"auc_{s}") for m in MODELS for s in stats]
         + [r["models"].get(m, {}).get("importance_threshold") for m in MODELS]
         + [finding(r["models"].get(m), r["n_permutations"]) for m in MODELS]
         + [r.get("skipped"), "; ".join(f"{k}: {v}" for k, v in r["dropped"].items())]
         for name, r in models.items()])
    files["error_model_importance"] = write_csv(
        out / "error_model_importance.csv",
        ["run", "model", "feature", "importance_mean", "importance_sd", "p_value", "beats_null"],
        [[name, m, feat, v["mean"], v["sd"], v["p"], int(v["beats_null"])] for name, r in models.items()
         for m, res in r["models"].items() for feat, v in res["importance"].items()])

    # ---- answer bias
    bias = {run.name: answer_bias(run.records) for run in loaded}
    files["answer_bias"] = write_csv(
        out / "answer_bias.csv",
        ["run", "config", "n", "n_answered", "n_unreadable", "answer", "model_count", "model_share",
         "reference_count", "reference_share", "accuracy_by_reference", "chi2", "df", "p_value", "dominant",
         "excess", "p_dominant", "flagged", "verdict"],
        [[name, b["config"], b["n"], b["n_answered"], b["n_unreadable"], cat, b["model_counts"][i],
          b["model_share"][i], b["reference_counts"][i], b["reference_share"][i], b["accuracy_by_reference"][cat],
          b["chi2"], b["df"], b["p_value"], b["dominant"], b["excess"], b["p_dominant"], int(b["flagged"]),
          b["verdict"]]
         for name, rows in bias.items() for b in rows for i, cat in enumerate(b["categories"])])
    png = plot_bias(bias, out / "answer_bias.png")
    if png:
        files["answer_bias_png"] = Path(png)

    # ---- paper analyses
    summaries = [r.summary for r in loaded]
    figures, paper_notes = paper_figures(summaries, out)
    files.update(figures)
    notes += paper_notes
    paper = {}
    for run in loaded:
        table = tables[run.name].get(OR)
        paper[run.name] = {"or_accuracy": run.summary.acc(OR), "og_accuracy": run.summary.acc(OG),
                           "self_correction": self_correction(run.records, table.options) if table else None,
                           "paired": paired_orders(run.records)}
    files["paper"] = write_csv(
        out / "paper.csv",
        ["run", "or_accuracy", "og_accuracy", "or_n", "or_free_order", "or_self_corrected", "pairs", "both_right",
         "or_only", "og_only", "neither"],
        [[name, p["or_accuracy"], p["og_accuracy"]]
         + [(p["self_correction"] or {}).get(k) for k in ("n", "n_free_order", "n_self_corrected")]
         + [(p["paired"] or {}).get(k) for k in ("n_pairs", "both", "or_only", "og_only", "neither")]
         for name, p in paper.items()])
    files["self_correction"] = write_csv(
        out / "self_correction.csv", ["run", "id"],
        [[name, i] for name, p in paper.items() for i in (p["self_correction"] or {}).get("self_corrected_ids", [])])

    md = format_analysis(loaded, tables, models, bias, paper, files, notes)
    (out / "analysis.md").write_text(md, encoding="utf-8")
    files["markdown"] = out / "analysis.md"
    if stream is not None:
        for note in notes:
            stream.write(f"note: {note}\n")
        stream.write(f"wrote {out / 'analysis.md'} and {len(files) - 1} other files in {out}\n")
    return {"runs": [r.name for r in loaded], "error_model": models, "bias": bias, "paper": paper,
            "files": {k: str(v) for k, v in files.items()}, "notes": notes, "markdown": md}
