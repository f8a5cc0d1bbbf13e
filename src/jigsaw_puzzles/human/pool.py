"""The human rows of a report: one per participant, a pooled "Human" row, and the agreement between participants.

``report OUT`` on a human test folder (:data:`~jigsaw_puzzles.human.session.HUMAN_JSON`) reads every participant's
run directory as a run ("Human (<id>)") and adds "Human": per config the mean of the participants' accuracies
(the paper's human row averages its three participants), Overall the mean of those over the Table-2 configs.
Agreement is measured on the items every participant of a config answered: the mean pairwise agreement of their
answers (the share of participant pairs giving the same answer, averaged over items) and Fleiss' kappa over the
answers as categories. Fleiss' kappa is six lines of arithmetic (Fleiss 1971); it is written here rather than
adding statsmodels as a dependency for it.
"""
from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path
from typing import Sequence

from ..inference.rundir import RunDir
from ..spec import CONFIGS, PAPER_CONFIGS, get as get_spec, is_config
from .session import HUMAN_JSON, PARTICIPANTS, response_time


def is_human_test(path) -> bool:
    return (Path(path) / HUMAN_JSON).is_file()


def participant_dirs(root) -> list[Path]:
    """The participants of a human test folder with at least one answer, sorted by id."""
    base = Path(root) / PARTICIPANTS
    if not base.is_dir():
        return []
    return [p for p in sorted(base.iterdir()) if (p / "results.json").is_file() and (p / "predictions.jsonl").is_file()
            and RunDir(p).load_predictions()]


def participant_folders(root) -> list[tuple[Path, str | None]]:
    """Every participant folder of a human test, sorted by id, with the reason it cannot be reported (None when
    it has answers and a results.json): the report says who was left out of the Human rows, and why."""
    base = Path(root) / PARTICIPANTS
    if not base.is_dir():
        return []
    out = []
    for p in sorted(q for q in base.iterdir() if q.is_dir()):
        if not (p / "predictions.jsonl").is_file() or not RunDir(p).load_predictions():
            out.append((p, f"{p}: no answer yet"))
        elif not (p / "results.json").is_file():
            out.append((p, f"{p}: answers but no results.json (re-open the participant in `jigsaw-puzzles "
                           "human` to rewrite it)"))
        else:
            out.append((p, None))
    return out


def fleiss_kappa(ratings: Sequence[Sequence[str]]) -> float | None:
    """Fleiss' kappa of ``ratings`` (one list of categories per item, the same number of raters on each);
    None when it is undefined (fewer than 2 raters or items, or one category only)."""
    ratings = [list(r) for r in ratings]
    if len(ratings) < 2 or len(ratings[0]) < 2 or len({len(r) for r in ratings}) != 1:
        return None
    n = len(ratings[0])
    counts = [Counter(r) for r in ratings]
    p_items = [(sum(v * v for v in c.values()) - n) / (n * (n - 1)) for c in counts]
    totals = Counter()
    for c in counts:
        totals.update(c)
    p_e = sum((v / (len(ratings) * n)) ** 2 for v in totals.values())
    if p_e >= 1:
        return None
    return (statistics.fmean(p_items) - p_e) / (1 - p_e)


def pairwise_agreement(ratings: Sequence[Sequence[str]]) -> float | None:
    """Mean over items of the share of rater pairs that gave the same answer (in %)."""
    shares = []
    for r in ratings:
        n = len(r)
        if n < 2:
            continue
        same = sum(v * (v - 1) for v in Counter(r).values())
        shares.append(same / (n * (n - 1)))
    return 100 * statistics.fmean(shares) if shares else None


def agreement(root) -> list[dict]:
    """Per config: participants, items answered by all of them, pairwise agreement (%), Fleiss' kappa and the
    median response time (s) over all answers."""
    answers = {p.name: RunDir(p).load_predictions() for p in participant_dirs(root)}
    rows = []
    present = {r.get("config") for recs in answers.values() for r in recs.values()}
    for config in [*CONFIGS, *sorted(c for c in present if c not in CONFIGS and is_config(c))]:
        who = {pid: {i: r for i, r in recs.items() if r.get("config") == config} for pid, recs in answers.items()}
        who = {pid: recs for pid, recs in who.items() if recs}
        if not who:
            continue
        shared = sorted(set.intersection(*(set(recs) for recs in who.values())))
        ratings = [[str(who[pid][i].get("extracted")) for pid in sorted(who)] for i in shared]
        times = [response_time(r.get("response_time_s")) for recs in who.values() for r in recs.values()]
        times = [t for t in times if t is not None]  # NaN, inf or negative (hand-edited, or older runs): no time
        rows.append({"config": config, "participants": len(who), "shared_items": len(shared),
                     "pairwise_agreement": pairwise_agreement(ratings) if len(who) > 1 else None,
                     "fleiss_kappa": fleiss_kappa(ratings) if len(who) > 1 else None,
                     "median_response_s": statistics.median(times) if times else None})
    return rows


def pooled_metrics(participant_metrics: Sequence[dict]) -> dict:
    """The "Human" row: per config the mean accuracy over the participants who answered it (with their count),
    chance and critical value as the participants' (same items); Overall the mean over the Table-2 configs."""
    pooled = {}
    present = {c for m in participant_metrics for c in m if c != "overall" and is_config(c)}
    for config in [*CONFIGS, *sorted(present - set(CONFIGS))]:
        ms = [m[config] for m in participant_metrics if isinstance(m.get(config), dict)
              and m[config].get("accuracy") is not None]
        if not ms:
            continue
        pooled[config] = {"accuracy": statistics.fmean(float(m["accuracy"]) for m in ms), "participants": len(ms),
                          "n": max(int(m.get("n", 0)) for m in ms),
                          **{k: ms[0][k] for k in ("chance", "critical_value") if k in ms[0]}}
    table = [pooled[c] for c in PAPER_CONFIGS if c in pooled]
    if table:
        pooled["overall"] = {"accuracy": statistics.fmean(m["accuracy"] for m in table), "n_columns": len(table),
                             **{k: statistics.fmean(m[k] for m in table) for k in ("chance", "critical_value")
                                if all(k in m for m in table)}}
    return pooled


def format_agreement(rows: list[dict]) -> str:
    """The report's "Human agreement" table (Markdown)."""
    def f(v, fmt):
        return "-" if v is None else format(v, fmt)

    lines = ["| Config | Participants | Items all answered | Pairwise agreement (%) | Fleiss' kappa | "
             "Median response (s) |", "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {get_spec(r['config']).short} | {r['participants']} | {r['shared_items']} | "
                     f"{f(r['pairwise_agreement'], '.1f')} | {f(r['fleiss_kappa'], '.2f')} | "
                     f"{f(r['median_response_s'], '.1f')} |")
    return "\n".join(lines) + "\n"
