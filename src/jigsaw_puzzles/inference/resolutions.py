"""Unread outputs resolved in the open: ``resolutions.jsonl``, and the figures it gives beside the reader's.

An output is *unread* when the reader (:func:`~jigsaw_puzzles.scoring.extraction.classify_response`) gives it no
answer (``status != "parsed"``); it scores as wrong, and the reader's accuracy stays the headline. Three ways may
resolve it, each opt-in, each a line of ``resolutions.jsonl`` beside the predictions (never replacing an output):

``restate``  the model's own restatement in a second turn (``eval --restate``), read by the strict reader alone;
``judge``    a judge model's reading (``eval --judge MODEL``), accepted only with a span of the output that reads
             as its answer (:func:`.resolve_prompts.read_judge_reply`);
``person``   a person's decision in the adjudication app (``jigsaw-puzzles adjudicate RUN_DIR``): one answer or
             "no answer given", with their name and the time.

Every line names the item and the sha256 of the output it was made for (``output_sha256``) and keeps its raw text
(the restatement, the judge's prompt and reply, the person's answer). Like the verdicts, nothing it stores is
believed: :func:`resolve` reads every line again from its raw text, against the record's *current* output. A line
made for another output (an output edited afterwards) or for an item without an answer is void, and named; a line
whose stored reading its raw text does not give (a judge's span that is not in the output) is named, and the
re-reading counts. A line that ended in an error (a judge that timed out) is kept as such: the item stays unread,
and ``eval`` asks again on resume.

The figures (``results.json`` ``resolved``; the report's rows and section; ``verify``): per way that was used, per
config and overall, the accuracy after resolving the unread outputs that way (the reader's answers unchanged),
how many unread outputs it read an answer from, decided had none, refused, ended in an error, and how many stayed
unread; ``combined`` (when several ways were used): each unread output decided by the first way of
:data:`PRECEDENCE` that decided it; ``agreement``: per pair of ways, the outputs both decided and how many alike.
A circular run's figures are its plain ones (rotation 0), as its headline is.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Mapping, Sequence

from ..generation.circular import is_rotation
from ..scoring.extraction import PARSED
from ..scoring.stats import clopper_pearson
from ..spec import PAPER_CONFIGS, is_answer
from .resolve_prompts import read_judge_reply, read_restatement
from .rundir import RESOLUTIONS, PredictionWriter

WAYS = ("restate", "judge", "person")
#: How tables name each way (and ``combined``) beside the reader's headline: the report's rows, the card's table.
WAY_LABELS = {"restate": "restated", "judge": "judged", "person": "decided by a person",
              "combined": "person, else judge, else restatement"}
PRECEDENCE = ("person", "judge", "restate")  # combined: a person's decision first, then a judge's, then the model's
DECIDED = ("read", "no_answer")
VOID, REREAD = "void", "resolution"  # the kinds of finding (named by rederive, the report and verify)


def output_digest(output) -> str:
    """The sha256 (hex) of an output's text, which a resolution is made for."""
    text = output if isinstance(output, str) else json.dumps(output)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_resolutions(path: str | os.PathLike) -> list[dict]:
    """The complete lines of a run directory's ``resolutions.jsonl`` (a torn last line is not one)."""
    file = Path(path) / RESOLUTIONS
    if not file.is_file():
        return []
    data = file.read_bytes()
    out = []
    for line in data[:data.rfind(b"\n") + 1].splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            print(f"warning: {file}: skipping a corrupt line", file=sys.stderr)
            continue
        out.append(rec)
    return out


def writer(path: str | os.PathLike) -> PredictionWriter:
    """An append-only writer of ``resolutions.jsonl`` (one ``write`` per complete line, flushed at once)."""
    Path(path).mkdir(parents=True, exist_ok=True)
    return PredictionWriter(Path(path) / RESOLUTIONS)


def reread(rec: Mapping, output, config: str, options) -> tuple[str, object, str]:
    """``(status, answer, reason)`` of one resolution line read again from its raw text against ``output``."""
    way = rec.get("way")
    if rec.get("error"):
        return "error", None, str(rec["error"])
    if way == "restate":
        return read_restatement(rec.get("restatement"), config, options)
    if way == "judge":
        status, answer, _span, reason = read_judge_reply(rec.get("reply"), output, config, options)
        return status, answer, reason
    if rec.get("status") == "no_answer" and rec.get("answer") is None:
        return "no_answer", None, ""
    answer = rec.get("answer")
    if isinstance(answer, str) and is_answer(answer, config):
        return "read", answer, ""
    return "refused", None, f"{answer!r} is not an answer of this task"


def _said(status, answer) -> str:
    return repr(answer) if status == "read" else str(status)


def current(ids: Sequence[str], configs: Sequence[str], outputs: Sequence, options: Sequence,
            resolutions: Sequence[Mapping]) -> tuple[dict, list[tuple[str, str, str]]]:
    """``({way: {item: (status, answer)}}, findings)``: each way's standing resolution of each answered item (the
    last line of the item and way; a person's: the decision of every person who decided it when they agree,
    ``"disputed"`` when not), read again; findings as ``(kind, item, text)``."""
    where = {i: k for k, i in enumerate(ids)}
    found: list[tuple[str, str, str]] = []
    lines: dict[str, dict] = {w: {} for w in WAYS}
    for n, rec in enumerate(resolutions, 1):
        rid, way = rec.get("id") if isinstance(rec, dict) else None, rec.get("way") if isinstance(rec, dict) else None
        if not isinstance(rid, str) or way not in WAYS:
            found.append((VOID, f"{RESOLUTIONS} line {n}", "not a resolution line (an item id and a way: "
                                                             f"{', '.join(WAYS)})"))
            continue
        if rid not in where:
            found.append((VOID, rid, f"a {way} resolution of an output the run holds no answer to (not counted)"))
            continue
        k = where[rid]
        if rec.get("output_sha256") != output_digest(outputs[k]):
            found.append((VOID, rid, f"its {way} resolution was made for another output (sha256 "
                                     f"{str(rec.get('output_sha256'))[:12]}..., this output's is "
                                     f"{output_digest(outputs[k])[:12]}...): the output was edited; void"))
            continue
        status, answer, reason = reread(rec, outputs[k], configs[k], options[k])
        if status != "error" and (rec.get("status") != status or rec.get("answer") != answer):
            found.append((REREAD, rid, f"its {way} resolution says {_said(rec.get('status'), rec.get('answer'))}; "
                                       f"its raw text reads {_said(status, answer)}"
                                       + (f" ({reason})" if reason else "") + "; the re-reading counts"))
        key = str(rec.get("name")) if way == "person" else ""
        slot = lines[way].setdefault(rid, {})
        if status == "error" and slot.get(key, ("error",))[0] != "error":
            continue  # an attempt that failed after a reading: the reading stands
        slot[key] = (status, answer)
    out: dict[str, dict] = {}
    for way, by_item in lines.items():
        for rid, by_name in by_item.items():
            decided = {v for v in by_name.values() if v[0] in DECIDED}
            if way == "person" and len(decided) > 1:
                out.setdefault(way, {})[rid] = ("disputed", None)
            else:
                out.setdefault(way, {})[rid] = next(iter(decided)) if decided else list(by_name.values())[-1]
    return out, found


def _column(rows: list, n: int, reader_correct: int) -> dict:
    """One config's figures for one way: ``rows`` = (status, answer, correct) per unread output."""
    counts = {s: sum(r[0] == s for r in rows) for s in ("read", "no_answer", "refused", "error", "disputed")}
    correct = reader_correct + sum(1 for r in rows if r[0] == "read" and r[2])
    low, high = clopper_pearson(correct, n)
    col = {"accuracy": 100.0 * correct / n, "n": n, "correct": correct, "ci_low": 100.0 * low,
           "ci_high": 100.0 * high, "unread": len(rows), "read": counts["read"], "read_correct":
           sum(1 for r in rows if r[0] == "read" and r[2]), "no_answer": counts["no_answer"],
           "refused": counts["refused"], "errors": counts["error"], "still_unread": len(rows) - counts["read"],
           "not_asked": sum(r[0] is None for r in rows)}
    if counts["disputed"]:
        col["disputed"] = counts["disputed"]
    return col


def _overall(cols: dict) -> dict:
    shown = [c for c in PAPER_CONFIGS if c in cols]
    keys = ("n", "unread", "read", "read_correct", "no_answer", "refused", "errors", "still_unread", "not_asked")
    out = {k: sum(cols[c][k] for c in cols) for k in keys}
    out["accuracy"] = sum(cols[c]["accuracy"] for c in shown) / len(shown) if shown else None
    out["tasks"] = len(shown)
    return out


def resolve(ids: Sequence[str], items: Sequence, refs: Sequence[str], configs: Sequence[str], outputs: Sequence,
            options: Sequence, resolutions: Sequence[Mapping]) -> tuple[dict, list[tuple[str, str, str]]]:
    """``(figures, findings)`` for the answered items (``items``: (Extraction, correct) per item, as the reader
    read them); figures ``{}`` when no resolution stands (see the module)."""
    standing, found = current(ids, configs, outputs, options, resolutions)
    plain = [k for k, i in enumerate(ids) if not is_rotation(i)]
    unread = [k for k in plain if items[k][0].status != PARSED]
    unread_ids = {ids[k] for k in unread}
    ways = [w for w in WAYS if any(i in unread_ids for i in standing.get(w, {}))]
    if not ways:
        return {}, found
    tally: dict[str, list] = {}  # config -> [n, reader correct, unread ks]
    for k in plain:
        t = tally.setdefault(configs[k], [0, 0, []])
        t[0] += 1
        t[1] += bool(items[k][1])
        if items[k][0].status != PARSED:
            t[2].append(k)

    def figures(pick) -> dict:
        cols = {}
        for config, (n, right, ks) in tally.items():
            rows = []
            for k in ks:
                status, answer = pick(ids[k])
                rows.append((status, answer, status == "read" and answer == refs[k]))
            cols[config] = _column(rows, n, right)
        return {**cols, "overall": _overall(cols)}

    out = {w: figures(lambda i, w=w: standing[w].get(i, (None, None))) for w in ways}
    if len(ways) > 1:
        def first(i):
            return next((standing[w][i] for w in PRECEDENCE if standing.get(w, {}).get(i, ("",))[0] in DECIDED),
                        (None, None))

        out["combined"] = figures(first)
        out["combined"]["overall"]["decided_by"] = {
            w: sum(1 for k in unread if next((v for v in PRECEDENCE if standing.get(v, {}).get(ids[k], ("",))[0]
                                              in DECIDED), None) == w) for w in ways}
        agreement = []
        for a_i, a in enumerate(ways):
            for b in ways[a_i + 1:]:
                both = [i for i in unread_ids if standing[a].get(i, ("",))[0] in DECIDED
                        and standing[b].get(i, ("",))[0] in DECIDED]
                agreement.append({"ways": [a, b], "both": len(both),
                                  "agree": sum(standing[a][i] == standing[b][i] for i in both)})
        out["agreement"] = agreement
    return out, found

