"""Which item features predict a model's errors: cross-validated classifiers and permutation importance, each
against the same measured on shuffled labels (the null).

Per run, the target is ``not correct`` of every answered item and the inputs are the item features
(:mod:`.features`), plus one indicator per config when the run answered several (so a feature must explain
errors beyond "this task is hard"). Features that are missing for every item of the run, or constant, are left
out. Two models, both with balanced class weights:

* ``logistic``: median imputation, standardisation, L2 logistic regression;
* ``hgb``: scikit-learn's HistGradientBoostingClassifier (missing values handled natively).

Stratified k-fold cross-validation (k = 5, or the minority class's count when smaller; shuffled with ``seed``)
gives the ROC AUC on each held-out fold (reported as mean and standard deviation over folds). Permutation
importance is measured on the held-out folds: the drop in AUC when one feature's column is shuffled
(``n_repeats`` times per fold, ``seed``-ed), averaged over folds and repeats. A run with fewer than
:data:`MIN_ITEMS` items, or with errors only or no error, is skipped with the reason recorded.

**The null.** The same model and cross-validation are fitted again on ``n_permutations`` seeded shuffles of the
labels, shuffled *within* each config (the config's own error rate is kept, so a finding must explain errors
beyond the task). For the AUC this is scikit-learn's ``permutation_test_score`` (``groups`` = the config,
``random_state`` = ``seed``): p = (1 + #{null AUC >= AUC}) / (n + 1). For the importances, each shuffle gives its
largest feature importance (config indicators are covariates, never findings, and are not tested); a feature's
p-value is (1 + #{null largest >= its importance}) / (n + 1), which holds for all features at once. A feature
**beats the null** when its importance is positive and both the AUC's p-value and its own are <= :data:`ALPHA`;
``top`` is the most important feature that beats it, else None (:data:`NO_FINDING`). ``n_permutations=0`` fits
no null and names no feature; 1 to 18 shuffles cannot reach p <= 0.05 and are refused.
"""
from __future__ import annotations

import math
import warnings
from typing import Callable, Sequence

import numpy as np

from ..errors import UsageError
from ..spec import CONFIGS
from .features import NAMES

MIN_ITEMS = 20
FOLDS = 5
MODELS = ("logistic", "hgb")
MODEL_LABELS = {"logistic": "logistic regression", "hgb": "gradient boosting"}
ALPHA = 0.05
MIN_PERMUTATIONS = 19  # the fewest shuffles whose p-value can reach ALPHA: 1 / (19 + 1)
PERMUTATIONS = 19  # the default
NO_FINDING = "no feature beats the shuffled-label null"


def design_matrix(records: Sequence[dict], features_of: Callable[[dict], dict | None]):
    """``(X, y, columns, dropped)``: one row per record that has features; ``y`` = 1 for an error."""
    rows, y = [], []
    for rec in records:
        feats = features_of(rec)
        if feats is None:
            continue
        rows.append((rec["config"], [feats.get(k, math.nan) for k in NAMES]))
        y.append(0 if rec.get("correct") else 1)
    configs = [c for c in CONFIGS if any(r[0] == c for r in rows)]
    columns = list(NAMES) + ([f"config={c}" for c in configs] if len(configs) > 1 else [])
    X = np.array([vals + ([float(c == k) for k in configs] if len(configs) > 1 else []) for c, vals in rows],
                 dtype=float).reshape(len(rows), len(columns))
    keep, dropped = [], {}
    for j, name in enumerate(columns):
        col = X[:, j]
        finite = col[np.isfinite(col)]
        if finite.size == 0:
            dropped[name] = "missing for every item"
        elif np.all(finite == finite[0]) and finite.size == col.size:
            dropped[name] = "constant"
        else:
            keep.append(j)
    return X[:, keep], np.array(y, dtype=int), [columns[j] for j in keep], dropped


def _make(model: str, seed: int):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if model == "logistic":
        return make_pipeline(SimpleImputer(strategy="median", keep_empty_features=True), StandardScaler(),
                             LogisticRegression(class_weight="balanced", max_iter=2000))
    return HistGradientBoostingClassifier(class_weight="balanced", random_state=seed, max_iter=100,
                                          min_samples_leaf=5, learning_rate=0.1)


def skip_reason(y: np.ndarray) -> str | None:
    if len(y) < MIN_ITEMS:
        return f"{len(y)} items with features (< {MIN_ITEMS})"
    if y.min() == y.max():
        return "one class only: " + ("every item wrong" if y[0] else "no error")
    if min(int(y.sum()), int(len(y) - y.sum())) < 2:
        return "fewer than 2 items in the smaller class"
    return None


def check_permutations(n: int) -> int:
    """``n`` shuffles for the null: 0 (no null, no feature named) or enough for a p-value <= ALPHA."""
    if n != 0 and not n >= MIN_PERMUTATIONS:
        raise UsageError(f"permutations: {n} shuffles cannot give a p-value <= {ALPHA}; use 0 (no null, no feature "
                         f"named) or at least {MIN_PERMUTATIONS}")
    return n


def config_groups(X: np.ndarray, columns: Sequence[str]) -> np.ndarray:
    """Each row's config, read from the ``config=...`` indicators (one group when there are none)."""
    idx = [j for j, c in enumerate(columns) if c.startswith("config=")]
    return np.argmax(X[:, idx], axis=1) if idx else np.zeros(len(X), dtype=int)


def shuffled_labels(y: np.ndarray, groups: np.ndarray, seed: int, n: int):
    """``n`` shuffles of ``y`` within ``groups``: those of ``permutation_test_score(groups=, random_state=seed)``."""
    rs = np.random.RandomState(seed)
    for _ in range(n):
        idx = np.arange(len(y))
        for g in np.unique(groups):
            mask = groups == g
            idx[mask] = rs.permutation(idx[mask])
        yield y[idx]


def fit_error_model(X: np.ndarray, y: np.ndarray, columns: Sequence[str], seed: int = 0, n_repeats: int = 10,
                    models: Sequence[str] = MODELS, n_permutations: int = PERMUTATIONS) -> dict:
    """Cross-validated AUC and held-out permutation importance of each model, with their shuffled-label null
    (see the module docstring)."""
    from sklearn.model_selection import StratifiedKFold
    from threadpoolctl import threadpool_limits  # installed with scikit-learn

    check_permutations(n_permutations)
    out = {"n": int(len(y)), "n_errors": int(y.sum()), "columns": list(columns), "models": {},
           "n_permutations": n_permutations}
    reason = skip_reason(y)
    if reason is None and not columns:
        reason = "no feature varies across the items"
    if reason is not None:
        out["skipped"] = reason
        return out
    folds = min(FOLDS, int(y.sum()), int(len(y) - y.sum()))
    out["folds"] = folds
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    groups = config_groups(X, columns)
    with threadpool_limits(1):  # a few hundred rows: threads only contend (and one thread is reproducible)
        for model in models:
            aucs, imp = _cross_validate(model, X, y, splitter, seed, n_repeats)
            null = [_cross_validate(model, X, yp, splitter, seed, n_repeats)
                    for yp in shuffled_labels(y, groups, seed, n_permutations)]
            out["models"][model] = _against_null(aucs, imp, null, columns)
    return out


def _cross_validate(model: str, X, y, splitter, seed: int, n_repeats: int):
    """One model's held-out AUC per fold, and permutation importances ``(features, folds x repeats)``."""
    aucs, imps = [], []
    for k, (train, test) in enumerate(splitter.split(X, y)):
        est = _make(model, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence / all-NaN-in-fold notices: the AUC says enough
            est.fit(X[train], y[train])
            auc, imp = held_out_importance(est, X[test], y[test], n_repeats, seed + k)
        aucs.append(auc)
        imps.append(imp)  # (features, repeats)
    return aucs, np.concatenate(imps, axis=1)


def auc_columns(y: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """ROC AUC of every column of ``scores`` (``roc_auc_score``'s value: ties count one half)."""
    from scipy.stats import rankdata

    ranks = rankdata(scores, axis=0)
    pos = int(y.sum())
    return (ranks[y == 1].sum(axis=0) - pos * (pos + 1) / 2) / (pos * (len(y) - pos))


def held_out_importance(est, X: np.ndarray, y: np.ndarray, n_repeats: int, seed: int):
    """``(AUC, importances (features, repeats))``: the values of ``sklearn.inspection.permutation_importance(est,
    X, y, scoring="roc_auc", n_repeats=n_repeats, random_state=seed)`` (the same shuffles), scored in one
    ``decision_function`` call per feature over its permuted copies instead of one scorer call per copy (the null
    fits the model twenty times over: the scorer's overhead would dominate)."""
    n, F = X.shape
    column_seed = np.random.RandomState(seed).randint(np.iinfo(np.int32).max + 1)
    base = float(auc_columns(y, est.decision_function(X)[:, None])[0])
    imp = np.empty((F, n_repeats))
    for j in range(F):  # one call per feature: memory stays n x repeats x features
        rs, idx, Xp, copies = np.random.RandomState(column_seed), np.arange(n), X.copy(), []
        for _ in range(n_repeats):
            rs.shuffle(idx)
            Xp[:, j] = Xp[idx, j]
            copies.append(Xp.copy())
        imp[j] = base - auc_columns(y, est.decision_function(np.concatenate(copies)).reshape(n_repeats, n).T)
    return base, imp


def _against_null(aucs, allimp, null, columns) -> dict:
    """The observed AUC and importances, their null distributions, p-values and the features that beat it."""
    mean = allimp.mean(axis=1)
    order = sorted(range(len(columns)), key=lambda j: (-mean[j], columns[j]))
    tested = [j for j, c in enumerate(columns) if not c.startswith("config=")]
    n = len(null)
    auc = float(np.mean(aucs))
    null_auc = [float(np.mean(a)) for a, _ in null]
    null_max = [float(imp.mean(axis=1)[tested].max()) for _, imp in null] if tested else []
    auc_p = (1 + sum(v >= auc for v in null_auc)) / (n + 1) if n else None
    importance = {}
    for j in order:
        p = (1 + sum(v >= float(mean[j]) for v in null_max)) / (n + 1) if n and j in tested else None
        importance[columns[j]] = {
            "mean": float(mean[j]), "sd": float(allimp[j].std(ddof=1)), "p": p,
            "beats_null": bool(p is not None and auc_p <= ALPHA and p <= ALPHA and mean[j] > 0)}
    beating = [c for c, v in importance.items() if v["beats_null"]]
    k = math.floor(ALPHA * (n + 1) + 1e-9)  # an importance above the k-th largest null maximum has p <= ALPHA
    return {
        "auc_mean": auc, "auc_sd": float(np.std(aucs, ddof=1)) if len(aucs) > 1 else 0.0,
        "auc_folds": [float(a) for a in aucs], "auc_p": auc_p, "auc_null": null_auc,
        "auc_null_mean": float(np.mean(null_auc)) if n else None,
        "auc_null_95": float(np.percentile(null_auc, 95)) if n else None,
        "importance": importance, "importance_null_max": null_max,
        "importance_threshold": sorted(null_max, reverse=True)[k - 1] if null_max and k >= 1 else None,
        "beats_null": beating, "top": beating[0] if beating else None,
    }


def finding(res: dict | None, n_permutations: int) -> str:
    """What a model's result says, in words: the top feature that beats the null, or that none does."""
    if res is None:
        return ""
    if not n_permutations:
        return "no null fitted (0 shuffles): no feature named"
    return res["top"] or NO_FINDING


def auc_text(res: dict, digits: int = 3) -> str:
    """``0.712 ± 0.050 (null 0.64, p = 0.15)``: the held-out AUC against its shuffled-label null."""
    text = f"{res['auc_mean']:.{digits}f} ± {res['auc_sd']:.{digits}f}"
    if res.get("auc_p") is not None:
        text += f" (null {res['auc_null_mean']:.2f}, p = {res['auc_p']:.3g})"
    return text


def plot_importance(result: dict, path, title: str) -> object | None:
    """Horizontal bars: permutation importance (drop in AUC) per feature, one bar per model, with its sd, and
    each model's null threshold (dashed); the title says which feature beats the null, or that none does."""
    if result.get("skipped") or not result["models"]:
        return None
    from ..reporting.report import _plt

    plt = _plt()
    columns = result["columns"]
    models = result["models"]
    first = models[next(iter(models))]["importance"]
    order = sorted(columns, key=lambda c: first[c]["mean"])  # most important at the top
    fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.38 * len(columns)))
    height, handles = 0.8 / len(models), []
    for k, (model, res) in enumerate(models.items()):
        ys = [i - 0.4 + height * (k + 0.5) for i in range(len(order))]
        handles.append(ax.barh(ys, [res["importance"][c]["mean"] for c in order], height, color=f"C{k}",
                               xerr=[res["importance"][c]["sd"] for c in order], capsize=2,
                               label=f"{MODEL_LABELS[model]}: AUC {auc_text(res, 2)}"))
        if res.get("importance_threshold") is not None:
            handles.append(ax.axvline(res["importance_threshold"], color=f"C{k}", linestyle="--", linewidth=1,
                                      label=f"{MODEL_LABELS[model]}'s null: to beat at p <= {ALPHA}"))
    beat = {c for res in models.values() for c in res.get("beats_null", [])}
    ax.set_yticks(range(len(order)), [f"{c} *" if c in beat else f"{c} (covariate)" if c.startswith("config=")
                                      else c for c in order])
    ax.axvline(0, color="k", linewidth=0.8)
    ax.set_xlabel("permutation importance: drop in held-out ROC AUC" + ("   (* beats the null)" if beat else ""))
    found = {MODEL_LABELS[m]: res["top"] and f"{res['top']} beats the shuffled-label null" or
             finding(res, result["n_permutations"]) for m, res in models.items()}
    said = next(iter(found.values())) if len(set(found.values())) == 1 else \
        "; ".join(f"{m}: {v}" for m, v in found.items())
    ax.set_title(f"What predicts the errors of {title}\n({result['n']} items, {result['n_errors']} wrong, "
                 f"{result['folds']}-fold CV, {result['n_permutations']} label shuffles)\n{said}", fontsize=10)
    ax.legend(handles=handles, fontsize=8, loc="upper center",
              bbox_to_anchor=(0.5, -0.7 / (1.2 + 0.38 * len(columns)) - 0.04))
    fig.tight_layout()
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    return path
