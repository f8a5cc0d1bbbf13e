"""Every verdict of a run read again from its raw outputs: the one derivation of ``eval``, ``report`` and ``verify``.

A run's numbers are a function of two things only: the items it selected (their ids, configs, references and
options: :mod:`.manifest`, or the items rebuilt by ``verify``) and each answer's raw ``output``. Everything a
record stores besides its output (``correct``, ``extracted``, ``status``, its copy of the reference) is a cache:
:func:`rederive` reads every output again with :func:`jigsaw_puzzles.scoring.score.score_items` (the reader
``eval`` judges with) against the selected items' references, and names what disagrees:

* ``verdict``: a stored verdict the reading does not give (a flipped ``correct``, a ``"correct": "no"``, an output
  edited after it was judged); the re-read verdict counts, the stored one is ignored;
* ``reference`` / ``config``: a record whose copy of its item's reference or config is not the item's;
* ``outside``: an answer to an id the run never selected; refused: never counted;
* ``twice``: an id answered by two records whose outputs differ (an answer put ahead of another, a second run
  appended to the file); refused: neither is counted, never one chosen by its position in the file. A record
  repeated with the same output (a rank's shard left beside its merged copy) is one answer.
* ``void`` / ``resolution``: a resolution of an unread output (:mod:`.resolutions`) made for another output, or
  whose stored reading its raw text does not give.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ..generation.circular import circular_aggregate, is_rotation
from ..scoring.score import aggregate, score_items
from .resolutions import read_resolutions, resolve
from .rundir import PREDICTIONS

FINISHES = ("truncated", "empty")
KINDS = {"outside": "answers to items the run never selected (refused, not counted)",
         "verdict": "stored verdicts that their raw outputs do not give (ignored: the outputs are read again)",
         "reference": "records whose reference is not their item's (the item's counts)",
         "config": "records whose config is not their item's (the item's counts)",
         "twice": "items answered twice with different outputs (refused: neither counted)",
         "void": "resolutions of unread outputs made for another output (edited since) or for no answer: void",
         "resolution": "resolutions whose stored reading their raw text does not give (read again: that counts)"}


@dataclass
class Records:
    """A run's predictions: the first answered record per id (in file order), the ids with an errored attempt, and
    the ids answered again with another output (``twice``: id -> every output it was answered with)."""

    answered: dict[str, dict] = field(default_factory=dict)
    errored: set = field(default_factory=set)
    twice: dict[str, list] = field(default_factory=dict)
    resolutions: list = field(default_factory=list)  # the lines of resolutions.jsonl (:mod:`.resolutions`)


def read_records(path: str | os.PathLike) -> Records:
    """``predictions.jsonl`` and leftover ``predictions.rank*.jsonl`` shards of a run directory, in one pass (as
    :meth:`~jigsaw_puzzles.inference.rundir.RunDir.load_predictions`: an errored attempt is not an answer)."""
    path = Path(path)
    out = Records()
    for f in [path / PREDICTIONS, *sorted(path.glob("predictions.rank*.jsonl"))]:
        if not f.exists():
            continue
        data = f.read_bytes()
        lines = [x for x in data[:data.rfind(b"\n") + 1].splitlines() if x.strip()]
        try:  # one decode for the whole file; line by line when one is corrupt (to skip it)
            parsed = json.loads(b"[" + b",".join(lines) + b"]")
        except (json.JSONDecodeError, UnicodeDecodeError):
            parsed = None
        if parsed is not None and len(parsed) != len(lines):  # a line holding two values: read line by line
            parsed = None
        for k, line in enumerate(lines):
            try:
                rec = parsed[k] if parsed is not None else json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                print(f"warning: {f}: skipping a corrupt line", file=sys.stderr)
                continue
            if not isinstance(rec, dict) or "id" not in rec:
                continue
            rid = rec["id"] if isinstance(rec["id"], str) else json.dumps(rec["id"])
            if rec.get("error"):
                out.errored.add(rid)
            elif rid not in out.answered:
                out.answered[rid] = rec
            elif rec.get("output") != out.answered[rid].get("output"):
                out.twice.setdefault(rid, [out.answered[rid].get("output")]).append(rec.get("output"))
    out.resolutions = read_resolutions(path)
    return out


@dataclass
class Finding:
    """One named difference between what a record stores and what its raw output and its item give."""

    kind: str  # a key of KINDS
    item: str
    text: str

    def __str__(self) -> str:
        return f"{self.item}: {self.text}"


@dataclass
class Rederived:
    """A run's verdicts read again, in item order, and what they give."""

    ids: list = field(default_factory=list)  # answered selected items
    items: list = field(default_factory=list)  # (Extraction, correct) per answered item
    refs: list = field(default_factory=list)
    configs: list = field(default_factory=list)
    asked: dict = field(default_factory=dict)  # config -> items selected
    missing: dict = field(default_factory=dict)  # config -> selected items without an answer (only those > 0)
    n_errors: int = 0  # of the missing, those whose last attempt ended in an error
    finishes: dict = field(default_factory=dict)  # config -> {"truncated": k, "empty": k} (rotation 0 only)
    findings: list = field(default_factory=list)
    unjudged: int = 0  # records written before verdicts were stored (read here; nothing to compare)
    circular: bool = False
    resolved: dict = field(default_factory=dict)  # unread outputs restated, judged, decided (:mod:`.resolutions`)

    @property
    def n_missing(self) -> int:
        return sum(self.missing.values())

    @property
    def complete(self) -> bool:
        return not self.missing

    def metrics(self) -> dict:
        """Per config (and ``overall``) the metric's figures, with each config's truncated / empty counts."""
        if not self.items:
            return {}
        metrics = circular_aggregate(self.ids, self.items, self.refs, self.configs) if self.circular else \
            aggregate(self.items, self.refs, self.configs)
        for c, tally in self.finishes.items():
            if isinstance(metrics.get(c), dict):
                metrics[c].update(tally)
        return metrics

    def numbers(self) -> dict:
        """What results.json holds of these verdicts (every number of it)."""
        return {"complete": self.complete, "n_items": len(self.ids), "n_missing": self.n_missing,
                "n_errors": self.n_errors, "missing": dict(self.missing), "metrics": self.metrics(),
                **({"resolved": self.resolved} if self.resolved else {})}

    def of(self, kind: str) -> list:
        return [f for f in self.findings if f.kind == kind]

    def summary(self, limit: int = 3) -> list[str]:
        """One line per kind of finding: how many, what it means, the first ``limit`` named."""
        out = []
        for kind, meaning in KINDS.items():
            found = self.of(kind)
            if found:
                named = "; ".join(map(str, found[:limit])) + ("; ..." if len(found) > limit else "")
                out.append(f"{len(found)} {meaning}: {named}")
        return out


def _said(ex, ok: bool, ref: str) -> str:
    read = ex.status if ex.answer is None else f"{ex.answer!r}"
    return f"{read} against the answer {ref!r}: {'correct' if ok else 'wrong'}"


def _stored(rec: dict) -> str:
    correct = rec.get("correct")
    head = ("correct" if correct else "wrong") if isinstance(correct, bool) else f"correct={correct!r}"
    extracted = rec.get("extracted")
    return f"{head} ({rec.get('status')}{'' if extracted is None else ' ' + repr(extracted)})"


def _verdict_disagrees(rec: dict, ex, ok: bool) -> bool:
    correct = rec.get("correct")
    return not isinstance(correct, bool) or correct is not ok or rec.get("status") != ex.status \
        or rec.get("extracted") != ex.answer


def rederive(entries: Mapping[str, Mapping], records: Records, circular: bool = False) -> Rederived:
    """Every answered item of ``entries`` (id -> ``{"config", "answer", "options"}``: the run's manifest, or the
    items as ``verify`` rebuilt them) read again from its record's raw output; the records' stored verdicts,
    references and configs compared with it (:class:`Finding`); answers to ids outside ``entries`` refused."""
    out = Rederived(circular=circular or any(is_rotation(i) for i in entries))
    outputs, options, stored = [], [], []
    for item_id, entry in entries.items():
        config = entry["config"]
        out.asked[config] = out.asked.get(config, 0) + 1
        rec = records.answered.get(item_id)
        if item_id in records.twice:
            said = records.twice[item_id]
            shown = ", ".join(repr(str(o)[:40]) for o in said[:3]) + (", ..." if len(said) > 3 else "")
            times = "twice" if len(said) == 2 else f"{len(said)} times"
            out.findings.append(Finding("twice", item_id, f"answered {times} with different outputs ({shown}): "
                                                          "refused, neither counted"))
            continue
        if rec is None:
            out.missing[config] = out.missing.get(config, 0) + 1
            out.n_errors += item_id in records.errored
            continue
        if rec.get("config") != config:
            out.findings.append(Finding("config", item_id, f"its record says config {rec.get('config')!r}, the "
                                                           f"item is {config}"))
        if rec.get("answer") != entry["answer"]:
            out.findings.append(Finding("reference", item_id, f"its record says the answer is {rec.get('answer')!r}, "
                                                              f"the run's item says {entry['answer']!r}"))
        out.ids.append(item_id)
        out.refs.append(entry["answer"])
        out.configs.append(config)
        outputs.append(rec.get("output"))
        options.append(entry.get("options"))
        stored.append(rec)
        if rec.get("finish") in FINISHES and not is_rotation(item_id):  # counted like n: rotation 0
            tally = out.finishes.setdefault(config, dict.fromkeys(FINISHES, 0))
            tally[rec["finish"]] += 1
    for config in dict.fromkeys(out.configs):  # every answered config gets both counts
        out.finishes.setdefault(config, dict.fromkeys(FINISHES, 0))
    out.items = score_items(outputs, out.refs, out.configs, options)
    for item_id, rec, ref, (ex, ok) in zip(out.ids, stored, out.refs, out.items):
        if "status" not in rec and "correct" not in rec:
            out.unjudged += 1  # written before verdicts were stored: nothing to compare
        elif _verdict_disagrees(rec, ex, ok):
            out.findings.append(Finding("verdict", item_id, f"stored {_stored(rec)}; its output reads "
                                                            f"{_said(ex, ok, ref)}"))
    out.resolved, found = resolve(out.ids, out.items, out.refs, out.configs, outputs, options, records.resolutions)
    out.findings += [Finding(*f) for f in found]
    outside = [i for i in records.answered if i not in entries]
    out.findings += [Finding("outside", i, "not an item the run selected") for i in outside]
    return out
