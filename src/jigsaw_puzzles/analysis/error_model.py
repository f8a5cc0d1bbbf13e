"""Which item features predict a model's errors: cross-validated classifiers and permutation importance.

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
"""
from __future__ import annotations

import math
import warnings
from typing import Callable, Sequence

import numpy as np

from ..spec import CONFIGS
from .features import NAMES

MIN_ITEMS = 20
FOLDS = 5
MODELS = ("logistic", "hgb")
MODEL_LABELS = {"logistic": "logistic regression", "hgb": "gradient boosting"}


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


def fit_error_model(X: np.ndarray, y: np.ndarray, columns: Sequence[str], seed: int = 0, n_repeats: int = 10,
                    models: Sequence[str] = MODELS) -> dict:
    """Cross-validated AUC and held-out permutation importance of each model (see the module docstring)."""
    from sklearn.model_selection import StratifiedKFold
    from threadpoolctl import threadpool_limits  # installed with scikit-learn

    out = {"n": int(len(y)), "n_errors": int(y.sum()), "columns": list(columns), "models": {}}
    reason = skip_reason(y)
    if reason is None and not columns:
        reason = "no feature varies across the items"
    if reason is not None:
        out["skipped"] = reason
        return out
    folds = min(FOLDS, int(y.sum()), int(len(y) - y.sum()))
    out["folds"] = folds
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    with threadpool_limits(1):  # a few hundred rows: threads only contend (and one thread is reproducible)
        for model in models:
            out["models"][model] = _cross_validate(model, X, y, columns, splitter, seed, n_repeats)
    return out


def _cross_validate(model: str, X, y, columns, splitter, seed: int, n_repeats: int) -> dict:
    """One model's held-out AUC per fold and permutation importance over folds and repeats."""
    from sklearn.inspection import permutation_importance
    from sklearn.metrics import roc_auc_score

    aucs, imps = [], []
    for k, (train, test) in enumerate(splitter.split(X, y)):
        est = _make(model, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence / all-NaN-in-fold notices: the AUC says enough
            est.fit(X[train], y[train])
            aucs.append(roc_auc_score(y[test], est.predict_proba(X[test])[:, 1]))
            imp = permutation_importance(est, X[test], y[test], scoring="roc_auc", n_repeats=n_repeats,
                                         random_state=seed + k)
        imps.append(imp.importances)  # (features, repeats)
    allimp = np.concatenate(imps, axis=1)
    mean = allimp.mean(axis=1)
    order = sorted(range(len(columns)), key=lambda j: (-mean[j], columns[j]))
    return {
        "auc_mean": float(np.mean(aucs)), "auc_sd": float(np.std(aucs, ddof=1)) if len(aucs) > 1 else 0.0,
        "auc_folds": [float(a) for a in aucs],
        "importance": {columns[j]: {"mean": float(mean[j]), "sd": float(allimp[j].std(ddof=1))} for j in order},
        "top": columns[order[0]],
    }


def plot_importance(result: dict, path, title: str) -> object | None:
    """Horizontal bars: permutation importance (drop in AUC) per feature, one bar per model, with its sd."""
    if result.get("skipped") or not result["models"]:
        return None
    from ..report import _plt

    plt = _plt()
    columns = result["columns"]
    first = result["models"][next(iter(result["models"]))]["importance"]
    order = sorted(columns, key=lambda c: first[c]["mean"])  # most important at the top
    fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.38 * len(columns)))
    height = 0.8 / len(result["models"])
    for k, (model, res) in enumerate(result["models"].items()):
        ys = [i - 0.4 + height * (k + 0.5) for i in range(len(order))]
        ax.barh(ys, [res["importance"][c]["mean"] for c in order], height,
                xerr=[res["importance"][c]["sd"] for c in order], capsize=2,
                label=f"{MODEL_LABELS[model]} (AUC {res['auc_mean']:.2f} ± {res['auc_sd']:.2f})")
    ax.set_yticks(range(len(order)), order)
    ax.axvline(0, color="k", linewidth=0.8)
    ax.set_xlabel("permutation importance: drop in held-out ROC AUC")
    ax.set_title(f"What predicts the errors of {title}\n({result['n']} items, {result['n_errors']} wrong, "
                 f"{result['folds']}-fold CV)", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.7 / (1.2 + 0.38 * len(columns)) - 0.04))
    fig.tight_layout()
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    return path
