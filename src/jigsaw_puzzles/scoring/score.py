"""Scoring for Jigsaw-Puzzles: exact-match accuracy with chance levels and exact significance.

:func:`score` turns raw model responses into the paper's numbers (Section 4.1 and
Table 2): per config the exact-match ``accuracy`` (%), the expected accuracy of
uniform random guessing (``chance``), the smallest accuracy that beats chance at
p < 0.05 under an exact one-sided test (``critical_value``), the test's
``p_value``, a 95% Clopper-Pearson interval, the share of responses that could
not be read (``invalid_rate``) and the best constant answer on these items
(``constant_baseline``); plus ``overall``, the mean over the paper's seven
Table-2 columns that are present.

The exact statistics (binomial nulls, critical counts, intervals) are in :mod:`.stats`.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Optional, Sequence, Union

import numpy as np

from ..errors import UsageError
from .stats import (ALPHA, _convolve, _upper_tail, binomial_pmf, clopper_pearson,  # noqa: F401 (re-exported)
                    critical_count, kendall_tau, mean_interval, null_distribution)
from .extraction import AMBIGUOUS, PARSED, Extraction, classify_response
from ..spec import (ANOMALY, ANOMALY_CHANCE_ALTERED, ANOMALY_CHANCE_UNCHANGED, CONFIGS, ORDER, ORIENTED, PAPER_CONFIGS, format_anomaly,
                   anomaly_chance_altered, get as get_spec, parse_reference)

__all__ = [
    "score",
    "score_items",
    "aggregate",
    "item_chance",
    "null_distribution",
    "critical_count",
    "binomial_pmf",
    "clopper_pearson",
    "kendall_tau",
    "constant_baseline",
    "chance_table",
    "circular_score",
    "PAPER_TABLE2",
    "ALPHA",
]

#: The baseline rows of the paper's Table 2 (n = 1,100 per column), as printed.
PAPER_TABLE2 = {
    "chance": {
        "missing_piece_selection_easy": 25.00,
        "missing_piece_selection_hard": 25.00,
        "piece_localization_easy": 50.00,
        "piece_localization_hard": 25.00,
        "connection_verification": 33.33,
        "anomaly_detection": 28.13,
        "order_restoration": 25.00,
        "overall": 30.21,
    },
    "critical_value": {
        "missing_piece_selection_easy": 27.30,
        "missing_piece_selection_hard": 27.30,
        "piece_localization_easy": 52.50,
        "piece_localization_hard": 27.30,
        "connection_verification": 35.70,
        "anomaly_detection": 30.50,
        "order_restoration": 27.30,
        "overall": 32.56,
    },
}

def item_chance(reference: str, config: str) -> float:
    """Probability that a uniform random guess over the answer space is right for this item.

    Choice tasks: 1/#options. Order Generation: 1/24 (uniform over the permutations of 4).
    Anomaly Detection: the guess is uniform per field - judgment A/B, then (only if B)
    position A-D and type A/B - so 1/2 for an unchanged item and 1/2 * 1/4 * 1/2 = 1/16
    for an altered one (28.125% for the 2:1:1 mix of unchanged/rotated/mirrored).
    """
    spec = get_spec(config)
    if spec.kind == ANOMALY:  # the one kind whose chance depends on the item
        unchanged = parse_reference(reference, config) == format_anomaly()
        return ANOMALY_CHANCE_UNCHANGED if unchanged else anomaly_chance_altered(spec.num_options)
    return float(spec.chance)


# --------------------------------------------------------------------------- scoring


def _as_list(x: Union[str, Sequence[Any]], n: int, name: str) -> list:
    if isinstance(x, str):
        return [x] * n
    x = list(x)
    if len(x) != n:
        raise UsageError(f"{name} has {len(x)} entries but there are {n} predictions")
    return x


def score_items(
    predictions: Sequence[Any],
    references: Sequence[str],
    configs: Union[str, Sequence[str]],
    options: Optional[Sequence[Optional[Sequence[str]]]] = None,
) -> list[tuple[Extraction, bool]]:
    """Per item: the :class:`~jigsaw_puzzles.scoring.extraction.Extraction` and whether it is correct."""
    if isinstance(predictions, (str, bytes)):  # never read letter by letter as several answers
        raise UsageError(f"predictions is one {type(predictions).__name__} ({predictions[:40]!r}), not a list: give "
                         "one model output per item, e.g. [\"The answer is B.\"]")
    predictions = list(predictions)
    n = len(predictions)
    references = _as_list(references, n, "references")
    configs = _as_list(configs, n, "configs")
    options = [None] * n if options is None else _as_list(options, n, "options")
    out = []
    for pred, ref, cfg, opts in zip(predictions, references, configs, options):
        ref = parse_reference(ref, cfg)  # also refuses an unknown config
        ex = classify_response(pred, cfg, opts)
        out.append((ex, ex.status == PARSED and ex.answer == ref))
    return out


def _column(config: str, refs: list[str], items: list[tuple[Extraction, bool]],
            pmf: np.ndarray | None = None, chances: list[float] | None = None) -> dict[str, float]:
    n = len(items)
    correct = sum(ok for _, ok in items)
    strict = sum(ex.strict is not None and ex.strict == r for r, (ex, _) in zip(refs, items))
    chances = [item_chance(r, config) for r in refs] if chances is None else chances
    pmf = null_distribution(chances) if pmf is None else pmf
    sf = _upper_tail(pmf)
    k_crit = critical_count(pmf)
    lo, hi = clopper_pearson(correct, n)
    statuses = Counter(ex.status for ex, _ in items)
    res = {
        "accuracy": 100.0 * correct / n,
        "n": n,
        "correct": correct,
        "strict_accuracy": 100.0 * strict / n,  # the strict reader: only the exact format (extraction.strict)
        "strict_correct": strict,
        "chance": 100.0 * float(np.mean(chances)),
        # NaN when even n/n correct would not reach p < alpha (too few items).
        "critical_value": 100.0 * k_crit / n if k_crit <= n else float("nan"),
        "p_value": float(min(1.0, sf[correct])),
        "ci_low": 100.0 * lo,
        "ci_high": 100.0 * hi,
        "invalid_rate": 100.0 * (n - statuses[PARSED]) / n,
        "ambiguous_rate": 100.0 * statuses[AMBIGUOUS] / n,
        "constant_baseline": constant_baseline(refs),
    }
    if config == "anomaly_detection":
        res.update(_anomaly_extras(refs, items))
    elif get_spec(config).kind == ORDER:  # order_generation, and its grid configs
        res.update(_order_extras(refs, items))
    elif get_spec(config).kind == ORIENTED:  # order_generation_<R>x<C>_rot
        res.update(_oriented_extras(refs, items))
    return res


def constant_baseline(refs: Sequence[str]) -> dict:
    """The best a constant answer does on these items: ``{"answer": the most frequent reference (ties: the first
    in sort order), "accuracy": its share in %}``. Any constant answer is right exactly where the reference equals
    it, so no constant answer (always "A", always "no anomaly", one fixed order) scores higher."""
    counts = Counter(refs)
    answer = min(counts, key=lambda r: (-counts[r], r))
    return {"answer": answer, "accuracy": 100.0 * counts[answer] / len(refs)}


def _anomaly_extras(refs: list[str], items: list[tuple[Extraction, bool]]) -> dict[str, float]:
    judg_ok = pos_ok = type_ok = altered = 0
    for ref, (ex, _) in zip(refs, items):
        lines = [ln.split(":", 1)[1].strip() for ln in ref.split("\n")]
        parts = ex.parts or {}
        judg_ok += parts.get("judgment") == lines[0]
        if lines[0] == "B":
            altered += 1
            pos_ok += parts.get("position") == lines[1]
            type_ok += parts.get("type") == lines[2]
    n = len(items)
    nan = float("nan")
    return {
        "judgment_accuracy": 100.0 * judg_ok / n,
        "position_accuracy": 100.0 * pos_ok / altered if altered else nan,
        "type_accuracy": 100.0 * type_ok / altered if altered else nan,
        "n_altered": altered,
    }


def _order_extras(refs: list[str], items: list[tuple[Extraction, bool]]) -> dict[str, float]:
    slots = taus = 0.0
    for ref, (ex, _) in zip(refs, items):
        true = tuple(int(x) for x in ref.strip("[]").split(","))
        pred = (ex.parts or {}).get("order")
        if pred and len(pred) == len(true):
            slots += sum(a == b for a, b in zip(pred, true)) / len(true)
        if ex.status == PARSED and pred:
            taus += kendall_tau(pred, true)  # an unreadable answer counts as tau = 0 (a random guess's mean)
    n = len(items)
    return {"position_accuracy": 100.0 * slots / n, "kendall_tau": taus / n}


def _oriented_extras(refs: list[str], items: list[tuple[Extraction, bool]]) -> dict[str, float]:
    """Rotated orders: the share of regions with the right image turned right (``position_accuracy``), the
    share of answers whose order alone is right (``order_accuracy``) and the share of images given their
    right rotation wherever they were placed (``rotation_accuracy``); unreadable answers count as wrong."""
    from ..spec import parse_oriented

    slots = orders = turns = 0.0
    for ref, (ex, _) in zip(refs, items):
        true_order, true_turns = parse_oriented(ref)
        parts = ex.parts or {}
        order, rotations = parts.get("order"), parts.get("rotations")
        if not order or len(order) != len(true_order):
            continue
        slots += sum(a == b for a, b in zip(zip(order, rotations), zip(true_order, true_turns))) / len(true_order)
        orders += list(order) == true_order
        truth = dict(zip(true_order, true_turns))
        turns += sum(truth.get(i) == r for i, r in zip(order, rotations)) / len(true_order)
    n = len(items)
    return {"position_accuracy": 100.0 * slots / n, "order_accuracy": 100.0 * orders / n,
            "rotation_accuracy": 100.0 * turns / n}


def _overall(columns: dict[str, dict], nulls: dict[str, np.ndarray]) -> dict[str, float]:
    present = [c for c in PAPER_CONFIGS if c in columns]
    cols = [columns[c] for c in present]
    k = len(cols)
    acc = [c["accuracy"] for c in cols]
    res = {
        "accuracy": float(np.mean(acc)),
        "strict_accuracy": float(np.mean([c["strict_accuracy"] for c in cols])),
        "n": int(sum(c["n"] for c in cols)),
        "n_columns": k,
        "chance": float(np.mean([c["chance"] for c in cols])),
        # The paper's "Overall" critical value is the mean of the column critical values.
        "critical_value": float(np.mean([c["critical_value"] for c in cols])),
        "invalid_rate": float(np.mean([c["invalid_rate"] for c in cols])),
        "ambiguous_rate": float(np.mean([c["ambiguous_rate"] for c in cols])),
    }
    ns = {c["n"] for c in cols}
    if len(ns) == 1:
        # Equal n: the mean accuracy is (total correct) / (k n), so the exact test is on the
        # total, whose null is the convolution of the column nulls.
        pmf = np.ones(1)
        for c in present:
            pmf = _convolve(pmf, nulls[c])
        total = sum(c["correct"] for c in cols)
        k_crit = critical_count(pmf)
        res["critical_value_exact"] = 100.0 * k_crit / res["n"] if k_crit <= res["n"] else float("nan")
        res["p_value"] = float(min(1.0, _upper_tail(pmf)[total]))
    else:
        res["critical_value_exact"] = float("nan")
        res["p_value"] = float("nan")
    # 95% interval of the mean of the columns' proportions, by the columns' own (Clopper-Pearson) rule
    lo, hi = mean_interval([(c["correct"], c["n"]) for c in cols])
    res["ci_low"], res["ci_high"] = 100.0 * lo, 100.0 * hi
    return res


def score(
    predictions: Sequence[Any],
    references: Sequence[str],
    configs: Union[str, Sequence[str]],
    options: Optional[Sequence[Optional[Sequence[str]]]] = None,
) -> dict[str, dict[str, float]]:
    """Score raw model responses exactly as the paper does, with chance and significance.

    Args:
        predictions: raw model outputs (any text; the final answer is extracted with
            :func:`jigsaw_puzzles.scoring.extraction.classify_response`).
        references: ``row["answer"]`` for each prediction.
        configs: the config name of each prediction (or one name for all).
        options: optional ``row["options"]`` per item (lets option *text* answers map
            to letters, e.g. an Order Restoration list).

    Returns:
        ``{config: {...}, ..., "overall": {...}}``. Per config: ``accuracy``, ``n``,
        ``correct``, ``strict_accuracy``/``strict_correct`` (the strict reader's: only the exact format),
        ``chance``, ``critical_value``, ``p_value``, ``ci_low``/``ci_high``
        (95% Clopper-Pearson), ``invalid_rate``, ``ambiguous_rate`` - all percentages
        except ``n``/``correct``/``p_value`` - and ``constant_baseline`` (``{"answer", "accuracy"}``: the
        best constant answer on these items and its accuracy); Anomaly Detection adds
        ``judgment_accuracy``/``position_accuracy``/``type_accuracy``/``n_altered``, Order
        Generation adds ``position_accuracy``/``kendall_tau``. ``overall`` (present when
        at least one of the seven Table-2 configs is) holds the means over those columns,
        ``critical_value`` being the paper's mean of column critical values, plus
        ``critical_value_exact``/``p_value`` of the exact test on the mean and its 95%
        interval by the columns' rule (:func:`.stats.mean_interval`).
    """
    return aggregate(score_items(predictions, references, configs, options), references, configs)


def aggregate(items: Sequence[tuple[Extraction, bool]], references: Sequence[str],
              configs: Union[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """:func:`score` from per-item verdicts already made by :func:`score_items` (e.g. stored in a run's
    predictions file), so a run's per-item records and its totals can never disagree."""
    items = list(items)
    n = len(items)
    references = _as_list(references, n, "references")
    configs = _as_list(configs, n, "configs")
    by_cfg: dict[str, list[int]] = {}
    for i, cfg in enumerate(configs):
        by_cfg.setdefault(cfg, []).append(i)
    result: dict[str, dict[str, float]] = {}
    nulls: dict[str, np.ndarray] = {}
    for cfg in [*CONFIGS, *(c for c in by_cfg if c not in CONFIGS)]:  # table order, then grid configs
        idx = by_cfg.get(cfg)
        if not idx:
            continue
        refs = [parse_reference(references[i], cfg) for i in idx]
        chances = [item_chance(r, cfg) for r in refs]
        nulls[cfg] = null_distribution(chances)  # once per column: its statistics and the Overall's
        result[cfg] = _column(cfg, refs, [items[i] for i in idx], nulls[cfg], chances)
    if any(c in result for c in PAPER_CONFIGS):
        result["overall"] = _overall(result, nulls)
    return result


def circular_score(groups: Sequence[Sequence[bool]], chances: Sequence[Sequence[float]]) -> dict[str, float]:
    """Circular evaluation (MMBench's CircularEval) of items asked once per rotation of their options:
    ``groups[i]`` the verdicts of item i's rotations, ``chances[i]`` their chances under uniform guessing.

    An item is right iff all its rotations are; its chance is the product of its rotations' chances (a guesser
    draws each rotation's answer independently: ``1/k**k`` for k options), and the critical value and p-value
    are those of the exact null of :func:`null_distribution` over these item chances, as for a plain column.
    Returns ``accuracy``, ``n``, ``correct``, ``chance``, ``critical_value`` (NaN when even n of n would not
    reach p < 0.05), ``p_value`` (percentages except ``n``/``correct``/``p_value``)."""
    groups, chances = [list(g) for g in groups], [list(c) for c in chances]
    if not groups or len(groups) != len(chances) or any(len(g) != len(c) or not g for g, c in zip(groups, chances)):
        raise ValueError("circular_score needs, per item, one verdict and one chance per rotation")
    n = len(groups)
    correct = sum(all(g) for g in groups)
    item_chances = [math.prod(c) for c in chances]
    pmf = null_distribution(item_chances)
    k_crit = critical_count(pmf)
    return {"accuracy": 100.0 * correct / n, "n": n, "correct": correct,
            "chance": 100.0 * float(np.mean(item_chances)),
            "critical_value": 100.0 * k_crit / n if k_crit <= n else float("nan"),
            "p_value": float(min(1.0, _upper_tail(pmf)[correct]))}


def chance_table(n: int = 1100, anomaly_mix: tuple[int, int] = (2, 2)) -> dict[str, dict[str, float]]:
    """Chance and exact critical values for ``n`` items per column (the paper's Table 2 rows).

    ``anomaly_mix`` = (unchanged, altered) proportions; the paper's 2:1:1 mix of
    unchanged/rotated/mirrored is 2:2.
    """
    u, a = anomaly_mix
    n_unchanged = round(n * u / (u + a))
    out: dict[str, dict[str, float]] = {}
    nulls = {}
    for cfg in PAPER_CONFIGS + ("order_generation",):
        if cfg == "anomaly_detection":
            chances = [ANOMALY_CHANCE_UNCHANGED] * n_unchanged + [ANOMALY_CHANCE_ALTERED] * (n - n_unchanged)
        else:
            chances = [get_spec(cfg).chance] * n
        pmf = null_distribution(chances)
        nulls[cfg] = pmf
        out[cfg] = {"chance": 100.0 * float(np.mean(chances)), "critical_value": 100.0 * critical_count(pmf) / n}
    cols = [out[c] for c in PAPER_CONFIGS]
    pmf = np.ones(1)
    for c in PAPER_CONFIGS:
        pmf = _convolve(pmf, nulls[c])
    out["overall"] = {
        "chance": float(np.mean([c["chance"] for c in cols])),
        "critical_value": float(np.mean([c["critical_value"] for c in cols])),
        "critical_value_exact": 100.0 * critical_count(pmf) / (n * len(cols)),
    }
    return out
