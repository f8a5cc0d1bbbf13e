"""Run directories as the analysis reads them: identity (run.json), answers (predictions.jsonl), accuracies.

A run directory needs ``predictions.jsonl``. With ``results.json`` the run is read as the report reads it
(:func:`~jigsaw_puzzles.reporting.derive.derive`): every record's verdict is read again from its raw output against
the run's item manifest, and answers to items the run never selected are left out. An interrupted run has no
``results.json``: its accuracies are then the mean of the stored verdicts per config.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..generation.circular import is_rotation
from ..errors import UserError
from ..inference.rundir import RunDir
from ..reporting.derive import derive
from ..reporting.report import RunSummary, load_run, name_runs
from ..spec import CONFIGS


@dataclass
class AnalysisRun:
    path: Path
    run: dict  # run.json ({} when absent)
    records: list[dict]  # one answered item each, in file order
    summary: RunSummary
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.summary.name

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", self.name).strip("_") or "run"

    @property
    def split(self) -> str | None:
        return self.run.get("split")

    @property
    def seed(self) -> int | None:
        seed = self.run.get("seed")
        return None if seed is None else int(seed)

    @property
    def source(self) -> str | None:
        return self.run.get("source")

    @property
    def dataset_options(self) -> dict:
        options = self.run.get("dataset_options")
        return options if isinstance(options, dict) else {}

    def answer_plan(self, config: str) -> str | None:
        """The answer plan ``config``'s items were made with, as run.json records it (``items.configs``), or None
        (a run written before it was recorded)."""
        made = (self.run.get("items") or {}).get("configs") if isinstance(self.run.get("items"), dict) else None
        plan = made.get(config, {}).get("answer_plan") if isinstance(made, dict) and isinstance(
            made.get(config), dict) else None
        return plan if isinstance(plan, str) else None

    @property
    def fingerprints(self) -> dict[str, str]:
        return dict((self.run.get("dataset") or {}).get("fingerprints") or {})

    def ids_by_config(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for rec in self.records:
            out.setdefault(rec["config"], []).append(rec["id"])
        return {c: out[c] for c in CONFIGS if c in out}


def _summary_from_predictions(path: Path, run: dict, records: list[dict]) -> RunSummary:
    by_config: dict[str, list[bool]] = {}
    for rec in records:
        by_config.setdefault(rec["config"], []).append(bool(rec.get("correct")))
    metrics = {c: {"accuracy": 100.0 * sum(v) / len(v), "n": len(v)} for c, v in by_config.items()}
    model = run.get("model") or path.name
    name = Path(model).name if (os.sep in model and Path(model).exists()) else model  # as report.load_run
    return RunSummary(path=path, name=name, model=model,
                      backend=run.get("backend"), split=run.get("split"), parameters=run.get("parameters") or None,
                      metrics=metrics, skipped=run.get("skipped") or {}, complete=False)


def load_analysis_run(path: str | os.PathLike) -> AnalysisRun:
    rundir = RunDir(path)
    if not rundir.path.is_dir():
        raise UserError(f"{path}: no such run directory (write one with `jigsaw-puzzles eval --out {path}`)")
    if not rundir.predictions.exists():
        raise UserError(f"{path}: not a run directory (no predictions.jsonl; write one with "
                        f"`jigsaw-puzzles eval --out {path}`)")
    run = rundir.read_run() or {}
    records = []
    for rec in rundir.load_predictions().values():
        if is_rotation(rec["id"]):  # a circular run: its items as asked (rotation 0), as the plain figures
            continue
        config = rec.get("config") or str(rec["id"]).split("/", 1)[0]
        if config in CONFIGS:
            records.append({**rec, "config": config})
    if not records:
        raise UserError(f"{path}: predictions.jsonl holds no answered item")
    if rundir.results_json.exists():  # the report's reading: every verdict read again from its raw output
        summary = load_run(rundir.path)
        rd = derive(rundir.path, run).rederived
        judged = {i: ex_ok for i, ex_ok in zip(rd.ids, rd.items)}
        records = [{**r, "correct": judged[r["id"]][1], "status": judged[r["id"]][0].status,
                    "extracted": judged[r["id"]][0].answer} for r in records if r["id"] in judged]
    else:
        summary = _summary_from_predictions(rundir.path, run, records)
    notes = [] if rundir.results_json.exists() else \
        [f"{rundir.path}: no results.json (an interrupted run); accuracies are those of the answered items"]
    return AnalysisRun(path=rundir.path, run=run, records=records, summary=summary, notes=notes)


def load_analysis_runs(paths: Sequence[str | os.PathLike], params: dict[str, str] | None = None) -> list[AnalysisRun]:
    """The runs, named as ``report`` names them (equal model names told apart by directory), with ``params``."""
    runs = [load_analysis_run(p) for p in paths]
    name_runs([r.summary for r in runs], params)
    slugs = [r.slug for r in runs]
    if len(set(slugs)) < len(slugs):  # file names must differ too
        for k, r in enumerate(runs):
            r.summary.name = f"{r.name} #{k + 1}"
    return runs
