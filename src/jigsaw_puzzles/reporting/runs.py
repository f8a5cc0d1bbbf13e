"""The runs a report reads: each run directory's records, ``run.json`` and ``results.json``, checked.

A report believes no file blindly, and no number of ``results.json`` or stored verdict at all: every figure is
re-derived from the run's raw outputs and its item manifest (:mod:`.derive`), and a run whose ``results.json`` says
otherwise (an edited or foreign file: an accuracy of 250, a chance of 90, a config the run never answered, totals
re-saved to match flipped verdicts) is left out of the report with one line naming the number and why; so is a run
without a manifest, or whose manifest does not match its recorded digest. What the records store that their raw
outputs or items do not give (a stored verdict, a reference, an answer to an item never selected) is named under the
table, and the run is shown with the re-derived figures. A run whose ``results.json`` is missing (a run that never
finished a session: "not run"), not JSON, or of the wrong shape is left out with its reason, and the other runs are
reported.
A human test folder becomes one run per participant and a pooled "Human" row; a participant without readable
results is left out of both with its reason, never silently.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ..errors import UsageError, UserError
from ..inference.rundir import RunDir
from ..spec import PAPER_CONFIGS
from ..generation.variants import Variant
from .derive import UNSETTLED, derive, disagreement

TABLE_CONFIGS = PAPER_CONFIGS


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
    circular: bool = False  # asked every multiple-choice item once per rotation of its options
    missing: dict | None = None  # config -> rows asked but unanswered (None: run.json does not say what was asked)
    resolved: dict = field(default_factory=dict)  # unread outputs resolved, per way (inference.resolutions)
    unread: dict = field(default_factory=dict)  # why the reader left outputs unread: reason -> outputs

    def shown(self) -> dict:
        """The entries the table shows as figures: Overall averages exactly these (a config listed as skipped is
        shown as "skipped" and left out of both)."""
        return {c: m for c, m in self.metrics.items() if c not in self.skipped}

    def acc(self, col: str) -> float | None:
        if col == "overall":
            return overall_accuracy(self.shown())
        m = self.metrics.get(col)
        return None if not m or m.get("accuracy") is None else float(m["accuracy"])

    def overall_tasks(self) -> int:
        return sum(1 for c in TABLE_CONFIGS if c in self.shown())

    def partial(self, config: str) -> bool:
        """The run left some of this config's items (or, circular, some of their rotations) unanswered."""
        if self.missing is not None:
            return bool(self.missing.get(config))
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
    run = rundir.read_run() or {}  # not JSON: left out with that reason (it records the run's items)
    try:
        derived = derive(path, run)
    except ValueError as err:
        raise UserError(f"{rundir.path}: {err}") from None
    found = derived.rederived.summary() if derived.rederived is not None else []
    twice = derived.rederived.of("twice") if derived.rederived is not None else []
    if twice:  # which answer is the run's cannot be told from the file: the run is refused, never half-counted
        named = "; ".join(f.item for f in twice[:3]) + ("; ..." if len(twice) > 3 else "")
        raise UserError(f"{rundir.predictions}: {len(twice)} items answered twice with different outputs ({named}); "
                        "left out (a run answers each item once: re-run it with `eval --overwrite`)")
    notes = []
    status = run.get("status")
    live_human = run.get("backend") == "human"  # the human app rewrites results.json after every answer
    if status in UNSETTLED and not live_human:  # results.json predates the answers of the session that did not end
        notes.append(f"figures from its {derived.answered} answered records (run.json says {status!r}: "
                     "results.json predates its last session)")
    else:
        why = disagreement(res, derived)
        if why:
            rewrite = "the human app rewrites it at the next answer" if live_human else \
                "`eval` with the same --out rewrites it from them"
            also = f" ({'; '.join(found)})" if found else ""
            raise UserError(f"{rundir.results_json} does not match the run's records: {why}{also}; left out (the "
                            f"report derives every number from each raw output and the run's items; {rewrite})")
    notes += found  # each named, the re-read verdicts counted, refused answers left out
    if derived.legacy:
        notes.append(f"{derived.legacy} records hold no stored verdict (written before verdicts were stored): "
                     "judged by this package's reader")
    if derived.versions:
        notes.append("its items were made under other versions of the libraries that shape them ("
                     + ", ".join(derived.versions) + "): `jigsaw-puzzles verify` on the run says whether they "
                     "rebuild identically here")
    metrics = {k: v for k, v in derived.metrics.items() if k != "overall"}  # Overall: from the entries shown
    def said(key):  # what run.json (the run's identity) says, then results.json: never a number of the table
        return (run.get(key) if isinstance(run.get(key), str) else None) or res.get(key)

    model = said("model") or path.name
    name = Path(model).name if (os.sep in model and Path(model).exists()) else model
    name += Variant.from_dict(run.get("variant")).tag  # e.g. "qwen [cot]": variants of one model side by side
    params = run.get("parameters")  # recorded by the backend in run.json (results.json only copies it)
    if params is not None and not (_number(params) and params >= 0):  # 0: the built-in baselines
        notes.append(f"parameter count {params!r} ignored (not a positive number)")
        params = None
    dataset = run.get("dataset") if isinstance(run.get("dataset"), dict) else {}
    skipped = {c: (why if isinstance(why, dict) else {"reason": str(why)})
               for c, why in (res.get("skipped") or run.get("skipped") or {}).items()}
    for c in [c for c in skipped if c in metrics]:  # e.g. answered in one session, not buildable in a later one
        notes.append(f"{c} is listed as skipped ({skipped.pop(c).get('reason')}), but its records answer "
                     f"{metrics[c].get('n')} of its items: shown with their figures and counted in Overall")
    return RunSummary(path=path, name=name, model=model, backend=said("backend"),
                      split=said("split"), parameters=params or None, metrics=metrics,
                      skipped=skipped,
                      complete=derived.complete, n_missing=derived.n_missing, n_errors=derived.n_errors,
                      circular=derived.circular, missing=derived.missing, resolved=derived.resolved,
                      unread=dict(derived.unread_reasons()),
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
