"""Answer bias: does a model's distribution of answers follow the references', or does it prefer a position?

Per run and config, the answers the model gave (the extracted letter of a choice task, the judgment A/B of
Anomaly Detection, the order of Order Generation; unreadable answers are counted apart and left out) are compared
with the distribution of the reference answers of the same items by Pearson's chi-square goodness-of-fit test
(``scipy.stats.chisquare``), expected counts = answered items x reference shares, ``k - 1`` degrees of freedom
over the ``k`` answers of the config. When an answer never is the reference, every reference count gets +0.5
(additive smoothing) so that the expectation stays positive.

A run is *flagged* for position bias in a config when it over-chooses one answer beyond what both the content and
position-neutral guessing explain: the answer whose share most exceeds ``max(reference share, 1/k)`` (the
*dominant* answer) exceeds it by at least ``min_excess`` (10 points), the one-sided exact binomial test of its
count against that share has ``p < alpha`` (0.01), and so has the chi-square test. "Always X" when X takes >= 90%
of the answers. (A uniform guesser on items whose references happen to be unbalanced differs from the
references, but prefers no position: it is not flagged.)
"""
from __future__ import annotations

import math
from itertools import permutations
from typing import Sequence

from ..scoring.extraction import classify_response
from ..spec import ANOMALY, CHOICE, CONFIGS, format_order, parse_reference

ALPHA = 0.01
MIN_EXCESS = 0.10
ALWAYS = 0.90


def categories(config: str) -> list[str]:
    """The answers the bias test counts, in order."""
    spec = CONFIGS[config]
    if spec.kind == CHOICE:
        return list(spec.letters)
    if spec.kind == ANOMALY:
        return ["A", "B"]  # the judgment: unchanged / altered
    return [format_order(p) for p in permutations(range(1, spec.order_length + 1))]


def _category(answer: str | None, config: str) -> str | None:
    if answer is None:
        return None
    if CONFIGS[config].kind == ANOMALY:
        first = answer.splitlines()[0] if answer else ""
        return first.rsplit(":", 1)[-1].strip() or None
    return answer


def model_answer(rec: dict) -> str | None:
    """The answer category of a predictions record (its stored extraction; extracted again for old records)."""
    if "status" in rec:
        answer = rec.get("extracted") if rec.get("status") == "parsed" else None
    else:
        answer = classify_response(rec.get("output"), rec["config"]).answer
    return _category(answer, rec["config"])


def reference_answer(rec: dict) -> str | None:
    try:
        return _category(parse_reference(rec.get("answer"), rec["config"]), rec["config"])
    except ValueError:
        return None


def bias_test(model: Sequence[str | None], reference: Sequence[str | None], config: str,
              alpha: float = ALPHA, min_excess: float = MIN_EXCESS) -> dict:
    """The chi-square test of one run on one config (``model[i]``/``reference[i]``: item i's answers)."""
    from scipy.stats import binomtest, chisquare

    cats = categories(config)
    pairs = [(m, r) for m, r in zip(model, reference) if r in cats]
    answered = [(m, r) for m, r in pairs if m in cats]
    n_ref, n = len(pairs), len(answered)
    ref_counts = [sum(r == c for _, r in pairs) for c in cats]
    obs = [sum(m == c for m, _ in answered) for c in cats]
    smooth = 0.5 if 0 in ref_counts else 0.0
    ref_share = [k / n_ref for k in ref_counts] if n_ref else [math.nan] * len(cats)
    expected = [n * (k + smooth) / (n_ref + smooth * len(cats)) for k in ref_counts] if n_ref else []
    model_share = [k / n for k in obs] if n else [math.nan] * len(cats)
    acc_by_ref = {c: (sum(m == r for m, r in pairs if r == c) / k if k else math.nan)
                  for c, k in zip(cats, ref_counts)}
    out = {"config": config, "n": n_ref, "n_answered": n, "n_unreadable": n_ref - n, "categories": cats,
           "model_counts": obs, "reference_counts": ref_counts, "model_share": model_share,
           "reference_share": ref_share, "accuracy_by_reference": acc_by_ref, "chi2": math.nan, "df": len(cats) - 1,
           "p_value": math.nan, "dominant": None, "excess": math.nan, "p_dominant": math.nan, "flagged": False,
           "verdict": "no answers"}
    if n == 0 or n_ref == 0:
        return out
    chi2, p = chisquare(obs, expected)
    neutral = [max(rs, 1 / len(cats)) for rs in ref_share]
    excess = [ms - ns for ms, ns in zip(model_share, neutral)]
    k = max(range(len(cats)), key=lambda i: (excess[i], -i))
    p_dominant = float(binomtest(obs[k], n, min(neutral[k], 1.0), alternative="greater").pvalue)
    flagged = bool(p < alpha and p_dominant < alpha and excess[k] >= min_excess)
    verdict = "follows the references"
    if flagged:
        verdict = (f"always {cats[k]}" if model_share[k] >= ALWAYS else f"prefers {cats[k]}") + \
            f" ({100 * model_share[k]:.0f}% of answers vs {100 * ref_share[k]:.0f}% of references)"
    elif p < alpha:
        verdict = "differs from the references, no position preferred"
    out.update(chi2=float(chi2), p_value=float(p), dominant=cats[k], excess=float(excess[k]),
               p_dominant=p_dominant, flagged=flagged, verdict=verdict)
    return out


def answer_bias(records: Sequence[dict], alpha: float = ALPHA, min_excess: float = MIN_EXCESS) -> list[dict]:
    """:func:`bias_test` for every config of a run's records, in table order."""
    by_config: dict[str, tuple[list, list]] = {}
    for rec in records:
        m, r = by_config.setdefault(rec["config"], ([], []))
        m.append(model_answer(rec))
        r.append(reference_answer(rec))
    return [bias_test(*by_config[c], c, alpha=alpha, min_excess=min_excess) for c in CONFIGS if c in by_config]


def plot_bias(results: dict[str, list[dict]], path) -> object | None:
    """Grouped bars per config (choice tasks and the anomaly judgment): the reference shares and every run's."""
    from ..reporting.report import LABELS, _plt

    configs = [c for c in CONFIGS if CONFIGS[c].kind in (CHOICE, ANOMALY)
               and any(b["config"] == c and b["n_answered"] for rows in results.values() for b in rows)]
    if not configs:
        return None
    plt = _plt()
    ncols = min(4, len(configs))
    nrows = math.ceil(len(configs) / ncols)
    legend_rows = math.ceil((len(results) + 1) / min(4, len(results) + 1))
    height = 3.0 * nrows + 0.7 + 0.25 * legend_rows
    fig, axes = plt.subplots(nrows, ncols, figsize=(max(3.6 * ncols, 6.0), height), squeeze=False)
    names = list(results)
    width = 0.8 / (len(names) + 1)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, config in zip(axes.ravel(), configs):
        cats = categories(config)
        rows = {name: next((b for b in results[name] if b["config"] == config), None) for name in names}
        ref = next(b for b in rows.values() if b is not None and b["n"])
        xs = range(len(cats))
        ax.bar([x - 0.4 + width / 2 for x in xs], [100 * s for s in ref["reference_share"]], width, color="0.75",
               edgecolor="0.3", hatch="//", label="reference")
        flagged = []
        for k, name in enumerate(names):
            b = rows[name]
            if b is None or not b["n_answered"]:
                continue
            ax.bar([x - 0.4 + width * (k + 1.5) for x in xs], [100 * s for s in b["model_share"]], width,
                   color=colours[k % len(colours)], label=name)
            if b["flagged"]:
                flagged.append(f"{name}: {b['dominant']}")
        labels = cats if CONFIGS[config].kind == CHOICE else ["A (unchanged)", "B (altered)"]
        ax.set_xticks(list(xs), labels)
        ax.set_ylim(0, 105)
        ax.set_ylabel("share of answers (%)")
        title = LABELS.get(config, config) + (" - position bias" if flagged else "")
        ax.set_title(title, fontsize=10, color="firebrick" if flagged else "black")
        if flagged:
            ax.text(0.98, 0.97, "flagged: " + "; ".join(flagged), transform=ax.transAxes, ha="right", va="top",
                    fontsize=7, color="firebrick")
    for ax in axes.ravel()[len(configs):]:
        ax.axis("off")
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", fontsize=8, ncol=min(4, len(labels)), frameon=False)
    fig.suptitle("Share of each answer: references (hatched) vs each run\n(red title: position bias flagged)",
                 fontsize=10)
    fig.tight_layout(rect=(0, (0.25 * legend_rows + 0.1) / height, 1, 1))
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    return path
