"""A run's figures re-derived from its per-item records: ``results.json`` is a cache the report never believes.

Every number the report shows (accuracy, chance, critical value, p-value, intervals, the constant-answer row,
circular accuracy, the truncated / empty counts, the strict reading where the metric gives one) is computed here
from ``predictions.jsonl``: each record's stored verdict (:func:`~jigsaw_puzzles.inference.runner.stored_verdict`,
the one ``eval`` wrote, or the metric's verdict on its output for a record that predates stored verdicts) and its
reference answer, through the functions ``eval`` itself uses (:func:`~jigsaw_puzzles.scoring.score.aggregate`,
:func:`~jigsaw_puzzles.generation.circular.circular_aggregate` for a circular run). The records are read rather
than the items rebuilt: a record carries its item's id, config and reference answer, which is all the metric reads,
and rebuilding a run's items would cost what building them cost (minutes for the CLIP config) on every report.

Which items the run was asked (``run.json``: ``dataset.selected`` per config, a human participant's ``order``)
gives what is missing. ``results.json`` is then checked against the derivation: when the session that wrote it
ended (``run.json`` status not ``running`` / ``interrupted``) every number it holds must be the derived one, and
a run where one is not (an edited or foreign ``results.json``) is left out of the report with one line saying
which number and why. When the run's last session did not end, ``results.json`` predates the latest answers: the
derived figures are shown and a note says so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..generation.circular import circular_aggregate, is_rotation, parse_rotation
from ..inference.rundir import RunDir, read_predictions
from ..inference.runner import stored_verdict
from ..scoring.score import aggregate, score_items
from ..spec import is_config

#: per-config keys the report shows: a results.json holding one the records do not give is refused
SHOWN = ("accuracy", "n", "correct", "chance", "critical_value", "p_value", "ci_low", "ci_high", "invalid_rate",
         "constant_baseline", "circular", "truncated", "empty", "strict_accuracy", "strict_correct")
UNSETTLED = ("running", "interrupted")  # a session that did not end: results.json predates its answers


@dataclass
class Derived:
    metrics: dict
    answered: int
    complete: bool | None  # None: run.json does not say which items the run was asked
    n_missing: int | None
    n_errors: int
    missing: dict = field(default_factory=dict)  # config -> rows asked but unanswered
    circular: bool = False
    legacy: int = 0  # records without a stored verdict (judged here)


def _asked(run: dict, records: dict) -> dict[str, set] | dict[str, int] | None:
    order = run.get("order")
    if isinstance(order, list):  # a human participant: the recorded order
        out: dict = {}
        for item_id in order:
            base = parse_rotation(str(item_id))[0]
            out.setdefault(base.split("/", 1)[0], set()).add(str(item_id))
        return out
    selected = (run.get("dataset") or {}).get("selected") if isinstance(run.get("dataset"), dict) else None
    if isinstance(selected, dict) and all(isinstance(v, int) and not isinstance(v, bool) for v in selected.values()):
        return dict(selected)
    return None


def derive(path, run: dict | None = None) -> Derived:
    """The figures of the run in ``path`` from its records (``run``: its run.json, read when None).
    ``ValueError`` (one line) for a record the metric cannot read."""
    rundir = RunDir(path)
    run = (rundir.read_run() or {}) if run is None else run
    records: dict[str, dict] = {}  # as RunDir.load_predictions and errored_ids, in one pass over the files
    errored: set[str] = set()
    for f in [rundir.predictions, *rundir.shards()]:
        for rec in read_predictions(f):
            if rec.get("error"):
                errored.add(rec["id"])
            else:
                records.setdefault(rec["id"], rec)
    variant = run.get("variant") if isinstance(run.get("variant"), dict) else {}
    circular = bool(variant.get("circular")) or any(is_rotation(i) for i in records)
    ids, items, refs, configs, legacy = [], [], [], [], 0
    finishes: dict[str, dict[str, int]] = {}
    count: dict[str, int] = {}
    for item_id, rec in records.items():
        config, ref = rec.get("config"), rec.get("answer")
        if config not in count and (not isinstance(config, str) or not is_config(config)):
            raise ValueError(f"record {item_id!r} names config {config!r}, not a config of this package")
        if not isinstance(ref, str):
            raise ValueError(f"record {item_id!r} has no reference answer ({ref!r})")
        if "status" in rec:
            items.append(stored_verdict(rec))
        elif isinstance(rec.get("output"), str):  # a record from before verdicts were stored: judged here
            items.append(score_items([rec["output"]], [ref], [config])[0])
            legacy += 1
        else:
            raise ValueError(f"record {item_id!r} holds neither a verdict nor an output")
        ids.append(item_id)
        refs.append(ref)
        configs.append(config)
        count[config] = count.get(config, 0) + 1
        tally = finishes.setdefault(config, {"truncated": 0, "empty": 0})
        if rec.get("finish") in tally and not is_rotation(item_id):  # counted like n: rotation 0
            tally[rec["finish"]] += 1
    score = (lambda *a: circular_aggregate(ids, *a)) if circular else aggregate  # as eval scores the run
    metrics = score(items, refs, configs) if items else {}
    for c, tally in finishes.items():
        if isinstance(metrics.get(c), dict):
            metrics[c].update(tally)
    asked = _asked(run, records)
    errored -= set(records)
    if asked is None:
        return Derived(metrics, len(records), None, None, len(errored), circular=circular, legacy=legacy)
    if all(isinstance(v, set) for v in asked.values()):
        missing = {c: len(v - set(records)) for c, v in asked.items()}
    else:
        missing = {c: max(0, n - count.get(c, 0)) for c, n in asked.items()}
    missing = {c: m for c, m in missing.items() if m}
    n_missing = sum(missing.values())
    return Derived(metrics, len(records), n_missing == 0, n_missing, len(errored), missing, circular, legacy)


# ------------------------------------------------------------------------------------------------ the check
def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= 1e-6 * max(1.0, abs(b))
    return a == b


def _fmt(v) -> str:
    return f"{v:.2f}" if isinstance(v, float) and not math.isnan(v) else repr(v)


def _entry_disagreement(config: str, stored, derived: dict, prefix: str = "") -> str | None:
    if not isinstance(stored, dict):
        return f"its {config} entry is {stored!r}, not the metric's figures"
    for key, value in derived.items():
        if key not in stored:
            continue  # written by an older metric that did not give it
        if isinstance(value, dict):
            why = _entry_disagreement(config, stored[key], value, prefix + key + " ")
            if why:
                return why
        elif not _same(stored[key], value):
            return f"it says {config} {prefix}{key} {_fmt(stored[key])}, its records give {_fmt(value)}"
    extra = next((k for k in stored if k in SHOWN and k not in derived), None) if not prefix else None
    if extra is not None:
        shown = "..." if isinstance(stored[extra], dict) else _fmt(stored[extra])
        return f"it gives {config} a {extra} ({shown}) that its records do not"
    return None


def disagreement(stored: dict, derived: Derived) -> str | None:
    """Why a results.json's numbers are not its run's records' (None when every shown number agrees)."""
    metrics = stored.get("metrics", stored)
    got = {k: v for k, v in metrics.items() if is_config(k) or k == "overall"}
    for config in got:
        if config != "overall" and config not in derived.metrics:
            return f"it gives figures for {config}, which the run never answered (no record of it)"
    for config, values in derived.metrics.items():
        if config not in got:
            if config == "overall":
                continue
            return f"it leaves out {config}, which the run answered ({values.get('n')} records)"
        why = _entry_disagreement(config, got[config], values)
        if why:
            return why
    if derived.n_missing is not None and stored.get("n_missing") is not None \
            and not _same(stored["n_missing"], derived.n_missing):
        return f"it says {stored['n_missing']!r} items unanswered, its records and run.json give {derived.n_missing}"
    return None
