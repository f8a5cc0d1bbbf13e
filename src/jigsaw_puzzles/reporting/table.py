"""The report's table: columns, the baseline rows of each set of items, the runs' rows, Markdown and CSV.

Baseline rows (Random Guessing, ↑ Random (p < 0.05), Constant answer (best)) come from the items: runs are
grouped by the items they answered (split and per-config dataset fingerprints from run.json), and each group's
per-config values are the metric's own (exact per-item chance, exact critical value, best constant answer) for
the run of the group that answered the most items of that config, ties broken by path: the same rows whatever
the order the runs are given in.  Runs over different items get a baseline pair each, labelled.
"""
from __future__ import annotations

import csv
import math
import os
from typing import Sequence

from .runs import TABLE_CONFIGS, RunSummary
from .sections import (CIRCULAR_BASELINES, CIRCULAR_TAG, PLAIN_TAG, RESOLVED_NOTE, circular_value, has_circular,
                       resolved_tag, resolved_value, resolved_ways)
from ..spec import ANOMALY_CHANCE_ALTERED, ANOMALY_CHANCE_UNCHANGED, CONFIGS, PAPER_CONFIGS, get as get_spec, is_config

OPEN_ENDED = tuple(c for c in CONFIGS if c not in PAPER_CONFIGS)  # reported after "Overall"
COLUMNS = TABLE_CONFIGS + ("overall",) + OPEN_ENDED
LABELS = {**{c: s.short for c, s in CONFIGS.items()}, "overall": "Overall"}
# Fig. 5 abbreviations (initials, _e / _h for Easy / Hard)
SHORT = {c: s.short.replace(" Easy", "_e").replace(" Hard", "_h") for c, s in CONFIGS.items()}
# chance levels of uniform guessing, used only when no run carries the metric's own value
UNIFORM_CHANCE = {c: 100 * s.chance for c, s in CONFIGS.items()}
BASELINES = (("chance", "Random Guessing"), ("critical_value", "↑ Random (p < 0.05)"),
             ("constant", "Constant answer (best)"))
DOMINANT = 50.0  # a config where more than this % of the answers could not be read is flagged
PAPER_ANOMALY = 100 * (ANOMALY_CHANCE_UNCHANGED + ANOMALY_CHANCE_ALTERED) / 2  # 28.125: the paper's 1:1 mix


def columns(runs: Sequence[RunSummary]) -> tuple[str, ...]:
    """The table's columns: the paper's, then any grid config a run answered or skipped (beyond the paper)."""
    extra = sorted({c for r in runs for c in [*r.metrics, *r.skipped] if c not in COLUMNS and is_config(c)})
    return COLUMNS + tuple(extra)


def label(col: str) -> str:
    return LABELS.get(col) or get_spec(col).short


# ------------------------------------------------------------------------------------------------ baselines
def _compatible(a: RunSummary, b: RunSummary) -> bool:
    if a.split != b.split or bool(a.fingerprints) != bool(b.fingerprints):
        return False
    return all(a.fingerprints[c] == b.fingerprints[c] for c in set(a.fingerprints) & set(b.fingerprints))


def item_groups(runs: Sequence[RunSummary]) -> list[list[RunSummary]]:
    """Runs grouped by the items they answered: same split and no config whose dataset fingerprints differ
    (runs without fingerprints, from hand-made or old run.json files, form their own group per split).
    Membership does not depend on the order of ``runs``; groups are listed by first appearance."""
    groups: list[list[RunSummary]] = []
    for r in sorted(runs, key=lambda r: (str(r.split), str(r.path), r.name)):
        home = next((g for g in groups if all(_compatible(r, o) for o in g)), None)
        if home is None:
            groups.append([r])
        else:
            home.append(r)
    first = {id(r): k for k, r in enumerate(runs)}
    return sorted(groups, key=lambda g: min(first[id(r)] for r in g))


def _source_entry(group: Sequence[RunSummary], col: str) -> dict | None:
    """The metric's entry for ``col`` of the group's run that answered the most of its items (ties: by path)."""
    cands = [r for r in group if not r.pooled and col in r.metrics]
    if not cands:
        return None
    best = min(cands, key=lambda r: (-int(r.metrics[col].get("n") or 0), str(r.path), r.name))
    return best.metrics[col]


def baseline_values(group: Sequence[RunSummary], col: str) -> dict:
    """``{"chance", "critical_value", "constant", "n", "n_altered"}`` for one column of one group of runs."""
    if col == "overall":
        per = [baseline_values(group, c) for c in TABLE_CONFIGS if _source_entry(group, c) is not None]
        out = {"tasks": len(per)}
        for key, _ in BASELINES:
            vals = [v.get(key) for v in per]
            ok = per and all(v is not None and not math.isnan(v) for v in vals)
            out[key] = sum(vals) / len(vals) if ok else None
        return out
    m = _source_entry(group, col)
    if m is None:  # no run answered an item of it (skipped): no items, no baseline
        return {}
    const = m.get("constant_baseline") or {}
    cv = m.get("critical_value")
    return {"chance": m.get("chance"), "critical_value": None if cv is None or math.isnan(cv) else cv,
            "constant": const.get("accuracy"), "constant_answer": const.get("answer"), "n": int(m.get("n") or 0),
            "n_altered": m.get("n_altered")}


def circular_baselines(group: Sequence[RunSummary], col: str) -> dict:
    """The circular chance and critical value of one column for the group's circular runs (a config asked once:
    its plain figures), from the circular run that answered the most items; {} without a circular run."""
    cands = [r for r in group if has_circular(r) and circular_value(r.metrics, col) is not None]
    if not cands:
        return {}
    if col == "overall":
        best = min(cands, key=lambda r: str(r.path))
    else:
        best = min(cands, key=lambda r: (-int(r.metrics[col].get("n") or 0), str(r.path), r.name))
    return {key: circular_value(best.metrics, col, key) for key, _ in CIRCULAR_BASELINES}


def _baseline_value(runs: Sequence[RunSummary], col: str, key: str) -> float | None:
    """One baseline figure for runs over the same items (kept for the analysis' figures)."""
    return baseline_values(runs, col).get(key)


def group_tags(groups: list[list[RunSummary]]) -> list[str]:
    """" [lite]", " [lite, seed 7]", ... : what tells the groups' items apart ("" for one group)."""
    if len(groups) < 2:
        return [""]
    tags = []
    for g in groups:
        r = g[0]
        parts = [str(r.split)]
        if len({str(x[0].seed) for x in groups}) > 1:
            parts.append(f"seed {r.seed}")
        if len({str(x[0].source) for x in groups}) > 1:
            parts.append(f"source {os.path.basename(str(r.source or 'embedded'))}")
        tags.append(parts)
    keys = [str(t) for t in tags]
    for k, parts in enumerate(tags):
        if keys.count(keys[k]) > 1:
            parts.append(f"items #{k + 1}")
    return [f" [{', '.join(p)}]" for p in tags]


# ------------------------------------------------------------------------------------------------ rows
def table_rows(runs: Sequence[RunSummary]) -> list[dict]:
    """Rows of the table: per set of items the baseline rows, then the runs (in the order given)."""
    rows = []
    cols = columns(runs)
    groups = item_groups(runs)
    tags = {id(r): tag for group, tag in zip(groups, group_tags(groups)) for r in group}  # a run's items, said
    for group, tag in zip(groups, group_tags(groups)):
        values = {c: baseline_values(group, c) for c in cols}
        ntasks = values["overall"]["tasks"]
        note = {"overall_note": f"over {ntasks} of {len(TABLE_CONFIGS)} tasks"} if ntasks < len(TABLE_CONFIGS) else {}
        for key, name in BASELINES:
            row = {"name": name + tag, "kind": "baseline", "split": group[0].split, **note,
                   **{c: values[c].get(key) for c in cols}}
            if key == "constant":
                row["answers"] = {c: values[c].get("constant_answer") for c in cols if values[c].get("constant_answer")}
                if not row["answers"]:
                    continue  # runs scored before the metric computed it
            rows.append(row)
        if any(has_circular(r) for r in group):
            circ = {c: circular_baselines(group, c) for c in cols}
            for key, name in CIRCULAR_BASELINES:
                rows.append({"name": name + tag, "kind": "baseline", "split": group[0].split, **note,
                             **{c: circ[c].get(key) for c in cols}})
    for r in runs:
        circular = has_circular(r)
        row = {"name": r.name + tags[id(r)] + (PLAIN_TAG if circular else ""), "kind": "run", "split": r.split,
               "model": r.model,
               "backend": r.backend, "parameters": r.parameters, "run_dir": str(r.path), "complete": r.complete,
               "n_missing": r.n_missing, "n_errors": r.n_errors, "counts": {}}
        for c in cols:
            row[c] = "skipped" if c in r.skipped else r.acc(c)
            m = r.metrics.get(c)
            if m:
                row["counts"][c] = {"n": m.get("n"), "invalid_rate": m.get("invalid_rate"),
                                    "truncated": int(m.get("truncated") or 0), "empty": int(m.get("empty") or 0),
                                    "strict_accuracy": m.get("strict_accuracy")}
        if r.overall_tasks() < len(TABLE_CONFIGS) and row["overall"] is not None:
            row["overall_note"] = f"over {r.overall_tasks()} of {len(TABLE_CONFIGS)} tasks"
        rows.append(row)
        if circular:  # the same run's circular figures, on a row of their own (its answers are counted once)
            crow = {k: v for k, v in row.items() if k not in cols and k != "counts"}
            crow.update(name=r.name + tags[id(r)] + CIRCULAR_TAG, kind="circular",
                        **{c: "skipped" if c in r.skipped else circular_value(r.shown(), c) for c in cols})
            rows.append(crow)
        for way, figures in resolved_ways(r):  # each way of resolving unread outputs: a row of its own, labelled
            rrow = {k: v for k, v in row.items() if k not in cols and k != "counts"}
            rrow.update(name=r.name + resolved_tag(way, figures), kind="resolved", way=way,
                        **{c: "skipped" if c in r.skipped else resolved_value(figures, c) for c in cols})
            rows.append(rrow)
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


def _dominated(row: dict, c: str) -> bool:
    rate = (row.get("counts") or {}).get(c, {}).get("invalid_rate")
    return rate is not None and rate > DOMINANT


def _answers_table(runs: Sequence[RunSummary], rows: list[dict], cols: Sequence[str]) -> str:
    """Per run and config: n · invalid % (t truncated, e empty)."""
    cols = [c for c in cols if c != "overall"]
    lines = ["| Answers: n · invalid % | " + " | ".join(label(c) for c in cols) + " |",
             "|" + "|".join(["---"] + ["---:"] * len(cols)) + "|"]
    for row in rows:
        if row["kind"] != "run":
            continue
        cells = []
        for c in cols:
            k = row["counts"].get(c)
            if not k:
                cells.append("skipped" if row.get(c) == "skipped" else "-")
                continue
            s = f"{k['n']} · " + ("-" if k["invalid_rate"] is None else f"{k['invalid_rate']:.0f}%")
            extra = ", ".join(f"{k[x]} {x}" for x in ("truncated", "empty") if k[x])
            cells.append(s + (f" ({extra})" if extra else "") + (" ‡" if _dominated(row, c) else ""))
        lines.append(f"| {row['name']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _skip_notes(runs: Sequence[RunSummary]) -> list[str]:
    """One short line per skipped config and reason, naming the runs; the full reason stays in results.json."""
    by = {}
    for r in runs:
        if r.pooled:
            continue
        for c, why in r.skipped.items():
            reason = str(why.get("reason") or "no reason recorded").strip()
            head = reason.split(". ")[0].split("; ")[0].split(": ")[0].rstrip(".")  # the gist: what is missing
            by.setdefault((c, head), []).append(str(r.path))
    return [f"{label(c)} ({c}) skipped in {', '.join(paths)}: {head}. Reason and how to enable it: "
            f"`skipped` in {os.path.join(paths[0], 'results.json')}." for (c, head), paths in by.items()]


def _anomaly_note(rows: list[dict], runs) -> list[str]:
    notes = []
    for group, tag in zip(item_groups(runs), group_tags(item_groups(runs))):
        v = baseline_values(group, "anomaly_detection")
        if not v.get("n") or v.get("n_altered") is None or abs(v["chance"] - PAPER_ANOMALY) < 0.01:
            continue
        unaltered = v["n"] - int(v["n_altered"])
        notes.append(f"AD chance{tag} is {v['chance']:.2f} on these items, not the paper's 28.12: {unaltered} of "
                     f"{v['n']} items ({100 * unaltered / v['n']:.0f}%) are unaltered, and a guess is right on an "
                     "unaltered item with p = 1/2 but on an altered one with p = 1/16 (the paper's 28.12 is for "
                     "half unaltered); the exact per-item null is used.")
    return notes


def format_markdown(runs: Sequence[RunSummary], rows: list[dict] | None = None, left_out=()) -> str:
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
            if _dominated(row, c):
                s += "‡"
            cells.append(s)
        lines.append("| " + " | ".join(cells) + " |")
    table = "\n".join(lines) + "\n\n" + _answers_table(runs, rows, cols)
    if any(r.get("overall_note") for r in rows):
        notes.append("† Overall averages only the tasks that were run: "
                     + "; ".join(f"{r['name']}: {r['overall_note']}" for r in rows if r.get("overall_note")) + ".")
    if any(_dominated(r, c) for r in rows for c in cols):
        notes.append(f"‡ More than {DOMINANT:.0f}% of the answers could not be read (invalid): the accuracy says "
                     "more about the answer format than about the task.")
    if any(r["kind"] == "circular" for r in rows):
        notes.append(f"A circular run has two rows: '{PLAIN_TAG.strip(' ·')}' is its answers to the items as "
                     f"asked (the figures of a plain run), '{CIRCULAR_TAG.strip(' ·')}' counts an item only if every "
                     "rotation of its options was answered right (Anomaly Detection and Order Generation, not "
                     "multiple choice, are asked once and keep their plain figure). Read the circular row against "
                     "the 'circular' baseline rows (chance = the product of the rotations' chances).")
    if any(r["kind"] == "resolved" for r in rows):
        notes.append(RESOLVED_NOTE)
    notes += _skip_notes(runs)
    consts = [r for r in rows if r.get("answers")]
    for r in consts:
        notes.append(f"{r['name']}: the most frequent answer of each config, always given (a model not above it "
                     "has not beaten the shortcut): " + "; ".join(f"{label(c)} {a!r}".replace("\\n", " / ")
                                                                   for c, a in r["answers"].items()) + ".")
    notes += _anomaly_note(rows, runs)
    for r in runs:
        notes += [f"{r.name}: {n}" for n in r.notes]
    notes += [f"Not in the table: {why}" for _, why in left_out]
    splits = sorted({str(r.split) for r in runs})
    notes.append("Accuracy in % (exact match). Overall = mean of the seven Table-2 tasks; OG = Order Generation "
                 "(open-ended, not in Overall)"
                 + ("; columns after OG are grid configs beyond the paper (e.g. OR 3x3 = order_restoration_3x3)"
                    if len(cols) > len(COLUMNS) else "") + f". Split: {', '.join(splits)}. Answers: items answered "
                 "(n) and the share that could not be read (invalid: unreadable, ambiguous, truncated or empty).")
    return table + "\n\n" + "\n\n".join(notes) + "\n"


def write_csv(rows: list[dict], path: str | os.PathLike) -> None:
    configs = list(COLUMNS) + sorted({k for r in rows for k in r if k not in COLUMNS and is_config(k)})
    meta = ["name", "kind", "split", "model", "backend", "parameters", "complete", "n_missing", "n_errors"]
    counted = [c for c in configs if c != "overall"]
    strict = any(k.get("strict_accuracy") is not None for r in rows for k in (r.get("counts") or {}).values())
    keys = ("n", "invalid_rate", "truncated", "empty") + (("strict_accuracy",) if strict else ())
    extra = [(c, k) for c in counted for k in keys]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(meta + [label(c) for c in configs] + ["run_dir"] + [f"{label(c)} {k}" for c, k in extra])
        for row in rows:
            rec = []
            for key in meta + configs + ["run_dir"]:
                v = row.get(key)
                rec.append("" if v is None else (f"{v:.4f}" if isinstance(v, float) else v))
            for c, k in extra:
                v = (row.get("counts") or {}).get(c, {}).get(k)
                rec.append("" if v is None else (f"{v:.4f}" if isinstance(v, float) else v))
            w.writerow(rec)
