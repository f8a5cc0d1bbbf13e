"""A run's figures re-derived from its raw outputs and its item manifest: no stored verdict or total is believed.

Every number the report shows (accuracy, chance, critical value, p-value, intervals, the constant-answer row,
circular accuracy, the truncated / empty counts, the strict reading where the metric gives one) is computed here
by :func:`jigsaw_puzzles.inference.rederive.rederive`, the derivation ``eval`` writes ``results.json`` with: every
record's raw ``output`` read again by the reader (:func:`~jigsaw_puzzles.scoring.score.score_items`) against the
reference and options of its item in the run's manifest (``items.jsonl``, checked against the sha256 ``run.json``
records), through :func:`~jigsaw_puzzles.scoring.score.aggregate` (or
:func:`~jigsaw_puzzles.generation.circular.circular_aggregate` for a circular run). What a record stores besides its
output is compared and named where it disagrees (:attr:`Derived.findings`): a stored verdict the output does not
give is ignored, a record's edited reference is not believed, an answer to an id the run never selected is refused.
A run without a manifest, or whose manifest does not match its digest, raises
:class:`~jigsaw_puzzles.inference.manifest.ManifestError` (the report leaves it out with that reason). The items
themselves are rebuilt only by ``jigsaw-puzzles verify RUN_DIR`` (:mod:`.verify_run`): rebuilding on every report
would cost what building them cost (minutes for the CLIP config).

``results.json`` is then checked against the derivation: when the session that wrote it ended (``run.json`` status
not ``running`` / ``interrupted``) every number it holds must be the derived one, and a run where one is not (an
edited or foreign ``results.json``, or one written from stored verdicts its outputs do not give) is left out of the
report with one line saying which number and why. When the run's last session did not end, ``results.json``
predates the latest answers: the derived figures are shown and a note says so.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from ..generation.versions import item_versions, version_differences
from ..inference.manifest import read_manifest
from ..inference.rederive import Rederived, read_records, rederive
from ..inference.rundir import RunDir
from ..scoring.extraction import PARSED
from ..spec import is_config

_QUOTED = re.compile(r"\(.*\)|'.*'|\".*\"")

#: per-config keys the report shows: a results.json holding one the records do not give is refused
SHOWN = ("accuracy", "n", "correct", "chance", "critical_value", "p_value", "ci_low", "ci_high", "invalid_rate",
         "constant_baseline", "circular", "truncated", "empty", "strict_accuracy", "strict_correct")
UNSETTLED = ("running", "interrupted")  # a session that did not end: results.json predates its answers


@dataclass
class Derived:
    metrics: dict
    answered: int
    complete: bool
    n_missing: int
    n_errors: int
    missing: dict = field(default_factory=dict)  # config -> rows asked but unanswered
    circular: bool = False
    legacy: int = 0  # records without a stored verdict (nothing to compare: read here)
    rederived: Rederived | None = None  # every verdict read again, and what the records store that disagrees
    versions: list = field(default_factory=list)  # item-shaping libraries whose version here is not the run's
    resolved: dict = field(default_factory=dict)  # unread outputs restated, judged, decided (inference.resolutions)

    @property
    def findings(self) -> list:
        return self.rederived.findings if self.rederived is not None else []

    def unread_reasons(self) -> Counter:
        """Why the reader left outputs unread: each reason (its quoted words and examples folded into "(...)", so
        that alike reasons count together) -> how many outputs."""
        items = self.rederived.items if self.rederived is not None else []
        return Counter(_QUOTED.sub("(...)", ex.detail or ex.status) for ex, _ in items if ex.status != PARSED)


def run_versions(run: dict) -> dict[str, dict]:
    """config -> the item-shaping versions its items were made under (run.json ``items.configs``)."""
    made = (run.get("items") or {}).get("configs") if isinstance(run.get("items"), dict) else None
    return {c: m["versions"] for c, m in (made or {}).items()
            if isinstance(m, dict) and isinstance(m.get("versions"), dict)}


def versions_note(run: dict) -> list[str]:
    """One phrase per library whose version made some of the run's items and differs on this machine."""
    out: list[str] = []
    for config, versions in run_versions(run).items():
        for phrase in version_differences(versions, item_versions([config])):
            if phrase not in out:
                out.append(phrase)
    return out


def derive(path, run: dict | None = None) -> Derived:
    """The figures of the run in ``path`` from its raw outputs and its manifest (``run``: its run.json, read when
    None). ``ManifestError`` (one line) when the run records no manifest or its manifest does not match."""
    rundir = RunDir(path)
    run = (rundir.read_run() or {}) if run is None else run
    manifest = read_manifest(rundir.path, run)
    variant = run.get("variant") if isinstance(run.get("variant"), dict) else {}
    rd = rederive(manifest.entries, read_records(rundir.path), bool(variant.get("circular")))
    return Derived(rd.metrics(), len(rd.ids), rd.complete, rd.n_missing, rd.n_errors, dict(rd.missing),
                   rd.circular, rd.unjudged, rd, versions_note(run), rd.resolved)


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
