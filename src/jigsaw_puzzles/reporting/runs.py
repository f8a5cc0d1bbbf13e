"""The runs a report reads: ``results.json`` (+ ``run.json``) of each run directory, validated.

A report believes no file blindly. A per-config entry whose numbers are not what the metric writes (an accuracy
of 250 or NaN, a count that is not a count, an accuracy that disagrees with ``correct / n``) is left out of the
table with its reason; a run whose ``results.json`` is missing (a run that never finished a session: "not run"),
not JSON, or of the wrong shape is left out of the report with its reason, and the other runs are reported.
A human test folder becomes one run per participant and a pooled "Human" row; a participant without readable
results is left out of both with its reason, never silently.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import UsageError, UserError
from ..inference.rundir import RunDir
from ..spec import PAPER_CONFIGS, is_config
from ..generation.variants import Variant

TABLE_CONFIGS = PAPER_CONFIGS
RATES = ("invalid_rate", "ambiguous_rate", "chance", "ci_low", "ci_high")
COUNTS = ("truncated", "empty")


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
    fingerprints: dict = field(default_factory=dict)  # config -> dataset fingerprint (run.json)
    seed: int | None = None
    source: str | None = None
    selected: dict = field(default_factory=dict)  # config -> items the run was asked to answer (run.json)
    notes: list = field(default_factory=list)  # what was left out of this run's row, and why
    pooled: bool = False  # the pooled "Human" row (no items of its own)

    def acc(self, col: str) -> float | None:
        if col == "overall":
            return overall_accuracy(self.metrics)
        m = self.metrics.get(col)
        return None if not m or m.get("accuracy") is None else float(m["accuracy"])

    def overall_tasks(self) -> int:
        return sum(1 for c in TABLE_CONFIGS if c in self.metrics)

    def partial(self, config: str) -> bool:
        """The run answered fewer of this config's items than it was asked to (an incomplete run)."""
        m = self.metrics.get(config) or {}
        if config in self.selected and m.get("n") is not None:
            return int(m["n"]) < int(self.selected[config])
        return not self.complete and config in self.metrics


def overall_accuracy(metrics: dict) -> float | None:
    """Table-2 Overall: the mean of the seven task accuracies present (recomputed: an entry left out of the
    table is left out of its Overall too)."""
    vals = [float(metrics[c]["accuracy"]) for c in TABLE_CONFIGS
            if c in metrics and metrics[c].get("accuracy") is not None]
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


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _count(v) -> bool:
    return _number(v) and float(v) >= 0 and float(v) == int(v)


def entry_problem(m) -> str | None:
    """Why a results.json per-config entry cannot be shown (None when it can)."""
    if not isinstance(m, dict):
        return f"its entry is a {type(m).__name__}, not an object"
    acc, n = m.get("accuracy"), m.get("n")
    if not _number(acc) or not 0 <= acc <= 100:  # NaN fails both comparisons
        return f"accuracy {acc!r} is not a percentage in [0, 100]"
    if not _count(n) or n < 1:
        return f"n {n!r} is not a count of items"
    if "correct" in m:
        k = m["correct"]
        if not _count(k) or k > n:
            return f"correct {k!r} is not a count of at most n = {n}"
        if abs(acc - 100.0 * k / n) > 1e-6:
            return f"accuracy {acc!r} is not correct / n = {k}/{n}"
    for key in RATES:
        if key in m and (not _number(m[key]) or not 0 <= m[key] <= 100):
            return f"{key} {m[key]!r} is not a percentage in [0, 100]"
    cv = m.get("critical_value")
    if cv is not None and (not _number(cv) or not (math.isnan(cv) or 0 <= cv <= 100)):  # NaN: too few items
        return f"critical_value {cv!r} is not a percentage in [0, 100]"
    for key in COUNTS:
        if key in m and (not _count(m[key]) or m[key] > n):
            return f"{key} {m[key]!r} is not a count of at most n = {n}"
    const = m.get("constant_baseline")
    if const is not None and (not isinstance(const, dict) or not _number(const.get("accuracy"))
                              or not 0 <= const["accuracy"] <= 100):
        return f"constant_baseline {const!r} is not an answer with an accuracy in [0, 100]"
    return None


def _run_problem(res: dict) -> str | None:
    metrics = res.get("metrics", res)
    if not isinstance(metrics, dict):
        return f"'metrics' is a {type(metrics).__name__}, not an object"
    if not isinstance(res.get("complete", True), bool):
        return f"'complete' is {res['complete']!r}, not true or false"
    for key in ("n_missing", "n_errors"):
        if res.get(key) is not None and not _count(res[key]):
            return f"{key!r} is {res[key]!r}, not a count"
    for key in ("model", "split", "backend"):
        if res.get(key) is not None and not isinstance(res[key], str):
            return f"{key!r} is {res[key]!r}, not a string"
    if not isinstance(res.get("skipped") or {}, dict):
        return f"'skipped' is a {type(res['skipped']).__name__}, not an object"
    return None


def load_run(path: str | os.PathLike) -> RunSummary:
    """One run directory; ``UserError`` (one line) when its results cannot be read at all."""
    rundir = RunDir(path)
    path = rundir.path
    if not path.is_dir():
        raise UserError(f"{path}: not a run directory")
    if not rundir.results_json.exists():
        status = ""
        try:
            status = (rundir.read_run() or {}).get("status") or ""
        except UserError:
            pass
        raise UserError(f"{path}: not run (no results.json" + (f"; run.json says {status!r}" if status else "")
                        + ")")
    res = rundir.read_results()
    problem = _run_problem(res)
    if problem:
        raise UserError(f"{rundir.results_json}: {problem}")
    try:
        run = rundir.read_run() or {}
    except UserError:
        run = {}
    metrics, notes = {}, []
    for k, v in res.get("metrics", res).items():
        if k == "overall" or not is_config(k):
            continue  # "overall" is recomputed from the entries shown; other keys of a bare dict are not configs
        why = entry_problem(v)
        if why:
            notes.append(f"{k} left out: {why} (in {rundir.results_json})")
        else:
            metrics[k] = v
    model = res.get("model") or (run.get("model") if isinstance(run.get("model"), str) else None) or path.name
    name = Path(model).name if (os.sep in model and Path(model).exists()) else model
    name += Variant.from_dict(run.get("variant")).tag  # e.g. "qwen [cot]": variants of one model side by side
    params = run.get("parameters", res.get("parameters"))
    if params is not None and not (_number(params) and params >= 0):  # 0: the built-in baselines
        notes.append(f"parameter count {params!r} ignored (not a positive number)")
        params = None
    dataset = run.get("dataset") if isinstance(run.get("dataset"), dict) else {}
    skipped = {c: (why if isinstance(why, dict) else {"reason": str(why)})
               for c, why in (res.get("skipped") or run.get("skipped") or {}).items()}
    return RunSummary(path=path, name=name, model=model, backend=res.get("backend") or run.get("backend"),
                      split=res.get("split") or run.get("split"), parameters=params or None, metrics=metrics,
                      skipped=skipped, complete=res.get("complete", True),
                      n_missing=int(res.get("n_missing") or 0), n_errors=int(res.get("n_errors") or 0),
                      fingerprints=dict(dataset.get("fingerprints") or {}), seed=run.get("seed"),
                      source=run.get("source"), selected=dict(dataset.get("selected") or {}), notes=notes)


def _human_runs(path: str | os.PathLike, left_out: list) -> list[RunSummary]:
    """A human test folder: one run per participant, then the pooled "Human" row (:mod:`.human.pool`)."""
    from ..human.pool import participant_folders, pooled_metrics

    people = []
    for folder, why in participant_folders(path):
        if why:
            left_out.append((str(folder), f"{why}; left out of the Human rows"))
            continue
        try:
            people.append(load_run(folder))
        except UserError as err:
            left_out.append((str(folder), f"{err}; left out of the Human rows"))
    if not people:
        raise UserError(f"{path} is a human test without readable answers yet: run `jigsaw-puzzles human --out "
                        f"{path}` and answer at least one item")
    pooled = RunSummary(path=Path(path), name="Human", model="human", backend="human", split=people[0].split,
                        parameters=None, metrics=pooled_metrics([p.metrics for p in people]),
                        complete=all(p.complete for p in people), n_missing=sum(p.n_missing for p in people),
                        fingerprints=dict(people[0].fingerprints), seed=people[0].seed, source=people[0].source,
                        pooled=True)
    return people + [pooled]


def load_runs(paths: Iterable[str | os.PathLike], params: dict[str, str] | None = None,
              left_out: list | None = None) -> list[RunSummary]:
    """The runs of ``paths`` in the order given.  With ``left_out`` (a list), a folder that cannot be read is
    appended to it as ``(path, reason)`` and the others are read; without it, it raises (one line)."""
    from ..human.pool import is_human_test

    runs, skipped = [], []
    for p in paths:
        if not os.path.exists(p):
            raise UsageError(f"{p}: no such run directory (no results.json to report)")
        try:
            runs.extend(_human_runs(p, skipped) if is_human_test(p) else [load_run(p)])
        except UserError as err:
            skipped.append((str(p), " ".join(str(err).split())))
    if left_out is None and skipped:
        raise UserError(skipped[0][1])
    if left_out is not None:
        left_out.extend(skipped)
    if not runs:
        raise UserError("nothing to report: " + "; ".join(why for _, why in skipped))
    return name_runs(runs, params)


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
