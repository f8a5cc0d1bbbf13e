"""A human test: the items, one run directory per participant, and what each answer records.

Layout of ``OUT`` (``jigsaw-puzzles human --out OUT``)::

    OUT/human.json                       what the test is: split, seed, source, configs, dataset fingerprints
    OUT/participants/<id>/run.json       a run directory in the format of ``eval`` (model "Human (<id>)",
    OUT/participants/<id>/predictions.jsonl  backend "human"), so ``report`` and ``report --compare`` read it
    OUT/participants/<id>/results.json   rewritten after every answer (``complete`` once every item is answered)

A participant's item order is a shuffle of the sorted item ids seeded by (test seed, participant id), recorded
in their run.json (``order``). Items that reveal each other (one photo's items of one task family, e.g. its Order
Restoration and Order Generation, cut with the same shuffle) are never shown to the same participant: each sees
one of them, a seeded pick per participant, and run.json lists the others (``withheld``); an answer is one predictions line (the answer as the canonical text a model would
write, its verdict by the package's own extraction, the response time), written and flushed at once, so a
restart resumes at the first unanswered item of that order. Nothing here imports Gradio.

``circular=True`` (``human --circular``): every multiple-choice item is also shown under each rotation of its
options (:mod:`jigsaw_puzzles.generation.circular`), shuffled among the others; the results keep the plain figures (rotation
0) and add a ``circular`` block per such config, as ``eval --circular`` does.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import re
import statistics
import threading
from pathlib import Path
from typing import Mapping

from .._version import __version__
from ..errors import UserError
from ..generation.circular import expand_datasets, parse_rotation
from ..inference.data import dataset_fingerprint
from ..inference.rundir import PredictionWriter, RunDir, atomic_write_json
from ..inference.extend import Prior
from ..inference.manifest import entries_of, extend
from ..inference.rederive import Records, rederive
from ..inference.runner import verdicts
from ..inference.settings import GenerationSettings, RunIdentity
from ..rng import ItemRNG
from ..generation.variants import Variant
from ..spec import (ANOMALY, CHOICE, LETTERS, ORIENTED, ROTATIONS, format_anomaly, format_order, format_oriented,
                    get as get_spec, is_config)

HUMAN_JSON = "human.json"
PARTICIPANTS = "participants"
BACKEND = "human"
_PARTICIPANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_participant(participant: str) -> str:
    """The participant id, stripped; a ``UserError`` saying what is allowed otherwise (it names a folder)."""
    pid = str(participant or "").strip()
    if not _PARTICIPANT.fullmatch(pid):
        raise UserError("a participant id is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit")
    return pid


def participant_order(item_ids, seed: int, participant: str, reveals: Mapping[str, object] | None = None) -> list[str]:
    """The item order shown to ``participant``: the sorted ids shuffled by (seed, participant): the same on
    every restart, different between participants, independent of the order the datasets list the items.

    ``reveals`` maps an item id to the key of the items it would give away (items with one key reveal each
    other): of each such group the participant gets one item, picked by (seed, participant, key), so over many
    participants every item is answered, never two of one group by the same person. An item's circular
    rotations (``<id>#circ<r>``) come with it: asking one item under every rotation is what circular evaluation
    is."""
    order = []
    for key, units in reveal_groups(item_ids, reveals).items():
        names = sorted(units)
        pick = ItemRNG("jigsaw-puzzles", int(seed), "human", participant, "group", str(key)).randbelow(len(names)) \
            if len(names) > 1 else 0
        order += units[names[pick]]
    ItemRNG("jigsaw-puzzles", int(seed), "human", participant).shuffle(order)
    return order


def reveal_groups(item_ids, reveals: Mapping[str, object] | None = None) -> dict[object, dict[str, list[str]]]:
    """``{reveal key: {item: [the item and its circular rotations]}}``: a participant answers one item per key."""
    groups: dict[object, dict[str, list[str]]] = {}
    for item_id in sorted(item_ids):
        unit = parse_rotation(item_id)[0]
        groups.setdefault((reveals or {}).get(item_id, unit), {}).setdefault(unit, []).append(item_id)
    return groups


def response_time(value) -> float | None:
    """A response time as stored: seconds, finite and >= 0, to the millisecond; anything else (NaN, inf, a negative
    number, text, the browser's "" before the first paint) is no time at all: never stored, never averaged."""
    try:
        seconds = float(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else None
    except (ValueError, OverflowError):
        return None
    return round(seconds, 3) if seconds is not None and math.isfinite(seconds) and seconds >= 0 else None


def _numbers(values, n: int) -> list[int] | None:
    """``n`` whole numbers from the order editor (ints or short digit strings), else None: never a traceback."""
    if not isinstance(values, (list, tuple)) or len(values) != n:
        return None
    out = [v if isinstance(v, int) and not isinstance(v, bool) else int(v) if isinstance(v, str) and
           v.strip().isdigit() and len(v.strip()) <= 4 else None for v in values]
    return None if None in out else out


def reveal_key(config: str, source_id: str) -> str:
    """Items with one key give each other away: one photo's items of one task family share their randomness
    (the shuffle of Order Restoration and Order Generation, the blank of Missing Piece Selection easy/hard)."""
    return f"{get_spec(config).family}/{source_id}"


def answer_text(config: str, answer) -> str:
    """A participant's answer as the canonical text a model would write: ``"B"``; the three anomaly lines from
    ``(judgment, position, type)``; ``[2, 3, 1, 4]`` from a list; ``[(2, 90), ...]`` from ``(order, rotations)``. ``UserError`` if incomplete."""
    kind = get_spec(config).kind
    if kind == CHOICE:
        letter = str(answer or "").strip().upper()
        if letter not in get_spec(config).letters:
            raise UserError(f"choose one of {', '.join(get_spec(config).letters)}")
        return letter
    if kind == ANOMALY:
        if not isinstance(answer, (list, tuple)):
            raise UserError("answer the judgment first: A (correct) or B (incorrect)")
        judgment, position, type_ = (list(answer) + [None, None, None])[:3]
        judgment = str(judgment or "")[:1].upper()
        if judgment == "A":
            return format_anomaly()
        if judgment != "B":
            raise UserError("answer the judgment first: A (correct) or B (incorrect)")
        position, type_ = str(position or "")[:1].upper(), str(type_ or "")[:1].upper()
        letters = LETTERS[:get_spec(config).num_options]
        if position not in letters or not position or type_ not in "AB" or not type_:
            raise UserError(f"an incorrect image needs the error position (A-{letters[-1]}) and the error type "
                            "(A or B)")
        return format_anomaly(position, type_)
    n = get_spec(config).order_length
    if kind == ORIENTED:  # (order, rotations)
        order, rotations = (list(answer) + [None, None])[:2] if isinstance(answer, (list, tuple)) else (None, None)
        order, rotations = _numbers(order, n), _numbers(rotations, n)
        if order is None or rotations is None or sorted(order) != list(range(1, n + 1)) or \
                not set(rotations) <= set(ROTATIONS):
            raise UserError(f"the answer lists each of the {n} images once, each with its rotation (0, 90, 180 or "
                            "270 degrees clockwise)")
        return format_oriented(order, rotations)
    order = _numbers(answer, n)
    if order is None or sorted(order) != list(range(1, n + 1)):
        raise UserError(f"the order lists each of the {n} images once")
    return format_order(order)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


class HumanTest:
    """The items of one human test and its folder ``OUT``; :meth:`participant` opens a participant's run."""

    def __init__(self, out, datasets: Mapping, split: str, seed: int = 0, source: str | None = None,
                 skipped: Mapping | None = None, max_items: int | None = None, circular: bool = False):
        self.root = Path(out)
        self.split, self.seed, self.source, self.circular = split, int(seed), source, bool(circular)
        self.datasets = {c: ds for c, ds in datasets.items() if is_config(c)}
        if self.circular:  # the first max_items items, each followed by its rotations
            self.datasets = expand_datasets(self.datasets, max_items)
        limit = None if self.circular else max_items
        if not self.datasets:
            raise UserError("no config to test: pass --configs with at least one config that builds here")
        self.skipped = dict(skipped or {})
        self.where: dict[str, tuple[str, int]] = {}
        self.reveals: dict[str, str] = {}
        for c, ds in self.datasets.items():
            n = len(ds) if limit is None else min(len(ds), int(limit))
            cols = ds.select_columns(["id", "source_id"])[:n]
            for i, (item_id, source_id) in enumerate(zip(cols["id"], cols["source_id"])):
                self.where[item_id] = (c, i)
                self.reveals[item_id] = reveal_key(c, source_id)
        self.fingerprints = {c: dataset_fingerprint(ds) for c, ds in self.datasets.items()}
        self.entries = {e["id"]: e for c, ds in self.datasets.items()  # what each run's manifest records of an item
                        for e in entries_of(ds, c, sum(1 for v in self.where.values() if v[0] == c))}
        self.manifest = {"kind": "human", "split": split, "seed": self.seed, "source": source,
                         "configs": list(self.datasets), "max_items": max_items, "fingerprints": self.fingerprints,
                         "skipped": self.skipped, **({"circular": True} if self.circular else {})}
        self._check_manifest()
        self._participants: dict[str, Participant] = {}
        self._lock = threading.Lock()

    def _check_manifest(self) -> None:
        path = self.root / HUMAN_JSON
        if path.exists():
            try:
                old = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                raise UserError(f"{path} is not valid JSON ({err}); use another --out") from None
            keys = ("split", "seed", "source", "configs", "max_items", "fingerprints")
            diffs = [k for k in keys if old.get(k) != self.manifest[k]] + \
                (["circular"] if bool(old.get("circular")) != self.circular else [])
            if diffs:
                raise UserError(f"{self.root} holds a human test with other {', '.join(diffs)}; use the same "
                                "--split/--configs/--seed/--source/--max-items to go on with it, or another --out")
            return
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write_json(path, {**self.manifest, "package_version": __version__, "created_at": _now()})

    @property
    def item_ids(self) -> list[str]:
        return list(self.where)

    @property
    def per_participant(self) -> tuple[int, int]:
        """(fewest, most) items a participant answers: one item (with its rotations) of each group of items that
        give each other away; the two differ only when a circular group mixes items of unequal rotations."""
        groups = reveal_groups(self.item_ids, self.reveals).values()
        return (sum(min(map(len, g.values())) for g in groups), sum(max(map(len, g.values())) for g in groups))

    def row(self, item_id: str) -> dict:
        config, i = self.where[item_id]
        return self.datasets[config][i]

    def config_of(self, item_id: str) -> str:
        return self.where[item_id][0]

    def participant(self, participant: str) -> "Participant":
        pid = check_participant(participant)
        with self._lock:
            if pid not in self._participants:
                self._participants[pid] = Participant(self, pid)
            return self._participants[pid]

    def close(self) -> None:
        with self._lock:
            for p in self._participants.values():
                p.close()
            self._participants.clear()


class Participant:
    """One participant's run directory: the recorded order, the answers so far, and :meth:`record`."""

    def __init__(self, test: HumanTest, pid: str):
        self.test, self.id = test, pid
        self.rundir = RunDir(test.root / PARTICIPANTS / pid)
        self.rundir.lock()  # one app at a time writes a participant (a second one is refused, naming the first)
        try:
            self.identity = RunIdentity(model=f"Human ({pid})", backend=BACKEND, split=test.split, seed=test.seed,
                                        source=test.source, generation=GenerationSettings(seed=test.seed),
                                        variant=Variant(circular=True).to_dict() if test.circular else None)
            old = self.rundir.read_run() or {}
            planned = participant_order(test.item_ids, test.seed, pid, test.reveals)
            self.order = list(old.get("order") or planned)
            if sorted(self.order) != sorted(planned):
                raise UserError(f"{self.rundir.path} was recorded for other items; use another --out")
            withheld = sorted(set(test.item_ids) - set(self.order))
            details = {"participant": pid, "order": self.order, "withheld": withheld,
                       "withheld_reason": "each reveals an item of the order (same photo, same task family)",
                       "package": "jigsaw-puzzles",
                       "package_version": __version__, "configs": list(test.datasets), "skipped": test.skipped,
                       "dataset": {"split": test.split, "seed": test.seed, "source": test.source,
                                   "sizes": {c: len(ds) for c, ds in test.datasets.items()},
                                   "selected": {c: sum(1 for v in test.where.values() if v[0] == c)
                                                for c in test.datasets}}}
            prior = Prior(self.rundir.path, old)  # its manifest: the items of this participant's order
            self.manifest = extend(self.rundir.path, prior.manifest, [test.entries[i] for i in self.order])
            made = prior.details(list(test.datasets), test.datasets, {}, {}, (), None)["made"]
            details["items"] = {**self.manifest.record(), "configs": made}
            self.run = self.rundir.start(self.identity, test.fingerprints, details)
            self.answers = self.rundir.load_predictions(repair=True)
            self._writer = PredictionWriter(self.rundir.predictions)
        except BaseException:
            self.rundir.unlock()
            raise
        self._lock = threading.Lock()
        self._write_results()

    # ---- progress
    @property
    def done(self) -> int:
        return sum(1 for i in self.order if i in self.answers)

    @property
    def total(self) -> int:
        return len(self.order)

    def next_item(self) -> str | None:
        """The first item of the recorded order without an answer (None when the test is finished)."""
        return next((i for i in self.order if i not in self.answers), None)

    # ---- answers
    def record(self, item_id: str, answer, response_time_s: float | None) -> dict | None:
        """Record the answer to ``item_id``, the item on screen. A second answer to an answered item (a double
        click) is ignored (None); an incomplete answer, an answer of another kind than the item's (a letter for
        an order) or one to an item that is not on screen raises ``UserError`` and records nothing. A response time
        that is not a finite number of seconds >= 0 is not stored (:func:`response_time`)."""
        with self._lock:
            if not isinstance(item_id, str) or item_id in self.answers:
                return None
            if item_id != self.next_item():
                raise UserError(f"item {str(item_id)[:80]!r} is not the item on screen; reload the page")
            config = self.test.config_of(item_id)
            row = self.test.row(item_id)
            output = answer_text(config, answer)
            verdict = verdicts([{"output": output, "config": config}], [row])[0]
            rt = response_time(response_time_s)
            rec = {"id": item_id, "config": config, "output": output, "answer": row["answer"], **verdict,
                   "participant": self.id, "response_time_s": rt, "latency_s": rt,
                   "position": self.order.index(item_id), "answered_at": _now()}
            self._writer.write(rec)  # one line, flushed at once
            self._writer.sync()
            self.answers[item_id] = rec
            self._write_results()
            return rec

    def _write_results(self) -> None:
        derived = rederive(self.manifest.entries, Records(dict(self.answers)), self.test.circular)
        recs = [self.answers[i] for i in derived.ids]
        metrics = derived.metrics()
        times: dict[str, list[float]] = {}
        for r in recs:
            if response_time(r.get("response_time_s")) is not None:
                times.setdefault(r["config"], []).append(response_time(r["response_time_s"]))
        for c, ts in times.items():
            metrics.setdefault(c, {})["median_response_s"] = round(statistics.median(ts), 3)
        complete = derived.complete
        self.rundir.write_results({
            "model": self.identity.model, "backend": BACKEND, "split": self.test.split,
            "participant": self.id, "complete": complete, "n_items": len(recs), "n_missing": derived.n_missing,
            "n_errors": 0, "metrics": metrics, "skipped": self.test.skipped, "parameters": None,
            "package_version": __version__, "time": _now()})
        if complete and self.run.get("status") != "complete":
            self.rundir.end(self.run, "complete")

    def close(self) -> None:
        if self.run.get("status") == "running":
            self.rundir.end(self.run, "incomplete")
        self._writer.close()
        self.rundir.unlock()
