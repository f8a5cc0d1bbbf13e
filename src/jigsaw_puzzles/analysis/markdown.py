"""``analysis.md``: the analysis's tables in Markdown, with its figures linked."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..reporting.report import LABELS
from ..spec import CONFIGS, ORDER
from .bias import ALPHA, MIN_EXCESS
from .error_model import ALPHA as NULL_ALPHA, MIN_ITEMS, MODEL_LABELS, MODELS, NO_FINDING, auc_text, finding
from .features import FEATURES, NAMES


def _name(text) -> str:
    return str(text).replace("|", "\\|")


def _num(v, fmt: str = ".2f") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return format(v, fmt)


def _p(p) -> str:
    if p is None or math.isnan(p):
        return "-"
    return "< 1e-4" if p < 1e-4 else f"{p:.4f}"


def _table(head: list[str], rows: list[list[str]], align: str | None = None) -> list[str]:
    align = align or "l" + "r" * (len(head) - 1)
    marks = {"l": "---", "r": "---:"}
    return ["| " + " | ".join(head) + " |", "|" + "|".join(marks[a] for a in align) + "|"] + \
        ["| " + " | ".join(row) + " |" for row in rows]


def _runs(runs) -> list[str]:
    rows = []
    for r in runs:
        seed = r.seed if r.seed is not None else "-"
        overall = r.summary.acc("overall")
        rows.append([_name(r.name), _name(r.summary.model), str(r.split or "-"), str(seed), str(len(r.records)),
                     ", ".join(LABELS[c] for c in r.ids_by_config()), _num(overall), f"`{r.path}`"])
    return _table(["run", "model", "split", "seed", "items", "configs", "overall acc. (%)", "directory"], rows,
                  "llrrrlrl")


def _features(tables) -> list[str]:
    per_config: dict[str, dict[str, dict]] = {}
    for by_config in tables.values():
        for config, table in by_config.items():
            per_config.setdefault(config, {}).update(table.items)
    lines = ["Median of each feature over the distinct items the runs answered ('-': does not apply; every item "
             "and value in `items.csv`):", ""]
    rows = []
    for config in CONFIGS:
        items = per_config.get(config)
        if not items:
            continue
        vals = []
        for k in NAMES:
            col = np.array([np.nan if e["features"].get(k) is None else e["features"][k] for e in items.values()],
                           dtype=float)
            vals.append(_num(float(np.nanmedian(col)) if np.isfinite(col).any() else None, ".3g"))
        rows.append([LABELS[config], str(len(items))] + vals)
    lines += _table(["config", "items", *NAMES], rows)
    lines += ["", "<details><summary>Feature definitions</summary>", ""]
    lines += [f"- `{k}`: {v}" for k, v in FEATURES.items()]
    return lines + ["", "</details>"]


def _finding(res: dict, n_permutations: int) -> str:
    text = finding(res, n_permutations)
    if not res.get("top"):
        return text
    v = res["importance"][res["top"]]
    return f"`{text}` ({v['mean']:+.3f} > null {res['importance_threshold']:.3f}, p = {v['p']:.3g})"


def _error_model(runs, models) -> list[str]:
    lines = [f"Per run: predict *wrong* from the item features ({', '.join(MODEL_LABELS[m] for m in MODELS)}; "
             f"balanced class weights), stratified k-fold cross-validation, ROC AUC on the held-out folds (mean ± "
             f"sd over folds; 0.5 = the features say nothing about the errors). Importance = drop in held-out AUC "
             f"when the feature is permuted. Skipped below {MIN_ITEMS} items or with one class only.", "",
             "**Null.** The same model and cross-validation fitted on labels shuffled within each config (the "
             "task's own error rate is kept). AUC p = share of shuffles reaching the AUC (null: their mean). A "
             "feature is named only when it *beats the null*: its importance exceeds the largest feature importance "
             f"of all but {NULL_ALPHA:.0%} of the shuffles (p <= {NULL_ALPHA}) and the AUC's p <= {NULL_ALPHA}; "
             f"otherwise the table says \"{NO_FINDING}\". `config=` indicators are covariates, never findings.",
             ""]
    rows = []
    for run in runs:
        r = models[run.name]
        if r.get("skipped"):
            rows.append([_name(run.name), str(r["n"]), str(r["n_errors"]), "-", "-", "-", "-",
                         f"skipped: {r['skipped']}"])
            continue
        res = [r["models"][m] for m in MODELS]
        dropped = ", ".join(f"{k} ({v})" for k, v in r["dropped"].items() if not k.startswith("config="))
        rows.append([_name(run.name), str(r["n"]), str(r["n_errors"]), str(r["folds"]),
                     *[auc_text(x) for x in res], _finding(res[0], r["n_permutations"]),
                     f"boosting: {_finding(res[1], r['n_permutations'])}" + (f"; left out: {dropped}" if dropped
                                                                             else "")])
    lines += _table(["run", "items", "errors", "folds", "AUC logistic", "AUC boosting", "finding (logistic)",
                     "notes"], rows, "lrrrrrll")
    for run in runs:
        if models[run.name].get("plot"):
            lines += ["", f"![error model of {_name(run.name)}]({models[run.name]['plot']})"]
    return lines + ["", "Every feature's importance, p-value and verdict per model: `error_model_importance.csv`."]


def _shares(b: dict, top: int | None = None) -> str:
    pairs = list(zip(b["categories"], b["model_share"], b["reference_share"], b["model_counts"]))
    if top is not None:
        pairs = sorted(pairs, key=lambda x: -x[3])[:top]
    return " · ".join(f"{c} {_num(100 * m, '.0f')}/{_num(100 * r, '.0f')}" for c, m, r, _ in pairs)


def _bias(runs, bias, files) -> list[str]:
    lines = ["Per run and config: the share (%) of each answer among the model's readable answers / among the "
             "references of the same items (Anomaly Detection: the judgment, A = unchanged, B = altered; Order "
             "Generation: the three commonest answers). p: chi-square goodness of fit with expected counts from the "
             f"references. **Flagged** (position bias) when one answer is chosen >= {100 * MIN_EXCESS:.0f} points "
             f"more often than both its reference share and 1/k, with p < {ALPHA} in the chi-square test and in a "
             "one-sided binomial test of that answer's count.", ""]
    rows = []
    for run in runs:
        for b in bias[run.name]:
            verdict = f"**{b['verdict']}**" if b["flagged"] else b["verdict"]
            top = 3 if CONFIGS[b["config"]].kind == ORDER else None
            rows.append([_name(run.name), LABELS[b["config"]], str(b["n"]), str(b["n_unreadable"]),
                         _shares(b, top), _num(b["chi2"]), str(b["df"]), _p(b["p_value"]), verdict])
    lines += _table(["run", "config", "items", "unreadable", "model / reference (%)", "chi²", "df", "p", "verdict"],
                    rows, "llrrlrrrl")
    if "answer_bias_png" in files:
        lines += ["", f"![answer bias]({Path(files['answer_bias_png']).name})"]
    return lines + ["", "Counts, shares and accuracy by reference answer: `answer_bias.csv`."]


def _paper(runs, paper, files, notes) -> list[str]:
    lines = []
    for key, title in (("task_correlation", "Fig. 5: task correlation across runs (Pearson)"),
                       ("accuracy_vs_params", "Fig. 6: accuracy vs parameter count"),
                       ("or_vs_og", "Fig. 8: Order Restoration vs Order Generation")):
        if key in files:
            lines += [f"**{title}**", "", f"![{title}]({Path(files[key]).name})", ""]
        elif key == "task_correlation":  # why not: too few (distinct) runs
            lines += [f"**{title}**: {n.split(': ', 1)[1]}." for n in notes if n.startswith(f"{key}.png") and
                      "not drawn" in n] + [""]
    rows = []
    for run in runs:
        p = paper[run.name]
        sc, pr = p["self_correction"] or {}, p["paired"] or {}
        rows.append([_name(run.name), _num(p["or_accuracy"]), _num(p["og_accuracy"]),
                     str(pr.get("n_pairs", "-")), str(pr.get("or_only", "-")), str(pr.get("og_only", "-")),
                     str(sc.get("n", "-")), str(sc.get("n_free_order", "-")), str(sc.get("n_self_corrected", "-"))])
    lines += ["**Order Restoration (OR) vs Order Generation (OG), and self-correction (Fig. 7)**", "",
              "Pairs: the OR and OG items of one photo (same shuffle); OR only / OG only: right in one of the two. "
              "Free order: the OR answer states an order (a bracketed or comma list of 1-4) that is not among the "
              "item's options; self-corrected: such an answer whose chosen letter is right (ids in "
              "`self_correction.csv`).", ""]
    lines += _table(["run", "OR acc. (%)", "OG acc. (%)", "pairs", "OR only", "OG only", "OR items",
                     "free order", "self-corrected"], rows)
    return lines


def format_analysis(runs, tables, models, bias, paper, files, notes) -> str:
    lines = [f"# Why items are hard: {len(runs)} run{'s' if len(runs) != 1 else ''}", ""]
    lines += _runs(runs)
    lines += ["", "## Item features", ""] + _features(tables)
    lines += ["", "## Error model: which features predict the errors", ""] + _error_model(runs, models)
    lines += ["", "## Answer bias", ""] + _bias(runs, bias, files)
    lines += ["", "## The paper's analyses", ""] + _paper(runs, paper, files, notes)
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    lines += ["", "What each table and statistic means: docs/analysis.md in the jigsaw-puzzles repository."]
    return "\n".join(lines) + "\n"
