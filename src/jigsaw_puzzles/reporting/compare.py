"""Comparing two runs honestly: paired tests on the items both answered.

For each config, the two runs' per-item verdicts (each raw output read again against the run's item manifest, as
the report derives them: :mod:`.derive`) are paired by item id:

* the accuracy difference ``B - A`` in points, with a 95% paired-bootstrap interval (items resampled);
* McNemar's exact test: under "no difference" the discordant items (right in one run, wrong in the other)
  split 50:50, so the two-sided p-value is ``min(1, 2 * P(X <= min(b, c)))`` for ``X ~ Binomial(b + c, 1/2)``.

Items are paired only where both runs answered the same content: per config the dataset fingerprints in the two
``run.json`` files must be equal and every shared item id must carry the same reference answer; otherwise the
comparison is refused with one line (two seeds, sources or generator versions reuse ids for other items). Every
config both runs answered is compared, grid and rotated configs included; one answered by one run only is named.

Circular runs (``eval --circular``): when both runs are circular, a multiple-choice config is compared on its
circular verdicts, paired item by item (an item is right iff every rotation of its options was answered right; an
item without every rotation answered in both runs is left out), the other configs on their one answer; when only
one is, both are compared on the items as asked (rotation 0). The table says which.

The verdict (``significant``) is McNemar's exact p; the interval is a paired-bootstrap percentile interval. They can
disagree when few items differ (five, all one way: every resampled difference is positive, but p = 0.0625): a row
where they do is marked and the note under the table says why.

Overall (the paper's Table-2 Overall: the mean of the seven Table-2 configs' accuracies): the difference, a 95%
interval and a two-sided p-value from a paired bootstrap that resamples items within each config (stratified).
Bootstrap draws come from ``numpy.random.default_rng(seed)``: the same runs give the same figures.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..generation.circular import is_circular, num_rotations, parse_rotation
from ..errors import UsageError
from ..inference.rundir import RunDir
from .derive import derive
from ..spec import CONFIGS, PAPER_CONFIGS, is_config

ALPHA = 0.05


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


@dataclass
class Paired:
    config: str
    n: int
    acc_a: float
    acc_b: float
    only_a: int  # right in A, wrong in B
    only_b: int
    p_value: float
    ci: tuple[float, float]
    circular: bool = False  # circular verdicts (every rotation right), not rotation 0 alone

    @property
    def diff(self) -> float:
        return self.acc_b - self.acc_a

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA

    @property
    def split_verdict(self) -> bool:
        """The interval and the exact test disagree (the interval excludes 0 and p >= 0.05, or the reverse)."""
        return (self.ci[0] > 0 or self.ci[1] < 0) != self.significant


def _verdicts(path: str | os.PathLike) -> tuple[dict, dict | None, dict]:
    """(config -> item id -> (correct, reference) for the items as asked, config -> item id -> circular verdict
    (None for a run that is not circular), dataset fingerprints) of a run directory: every verdict read again from
    its raw output against the run's manifest (:func:`.derive.derive`), never a stored ``correct``."""
    rundir = RunDir(path)
    if not rundir.path.is_dir():
        raise UsageError(f"{path}: no such run directory")
    run = rundir.read_run() or {}
    rd = derive(rundir.path, run).rederived
    out: dict[str, dict[str, tuple[bool, object]]] = {}
    turns: dict[str, dict[str, dict[int, bool]]] = {}
    for item_id, config, ref, (_, ok) in zip(rd.ids, rd.configs, rd.refs, rd.items):
        base, r = parse_rotation(item_id)
        if r == 0:  # the item as asked: a circular run's rotations are not independent items
            out.setdefault(config, {})[item_id] = (ok, ref)
        if is_circular(config):
            turns.setdefault(config, {}).setdefault(base, {})[r] = ok
    whole = None
    if rd.circular:
        whole = {c: {i: all(g.values()) for i, g in by.items() if sorted(g) == list(range(num_rotations(c)))}
                 for c, by in turns.items()}
    dataset = run.get("dataset")
    fingerprints = dataset.get("fingerprints") if isinstance(dataset, dict) else None
    return out, whole, fingerprints if isinstance(fingerprints, dict) else {}


def _same_items(run_a, run_b, config: str, a: dict, b: dict, fa: dict, fb: dict, ids: list[str]) -> None:
    """Refuse (one line) unless ``a`` and ``b`` answered the same content for ``config``."""
    where = f"{run_a} and {run_b} did not answer the same {config} items"
    fix = "compare runs of the same split, seed, source and package version"
    if config not in fa or config not in fb:
        lacking = run_a if config not in fa else run_b
        raise UsageError(f"{where}, as far as can be told: {lacking}/run.json has no dataset fingerprint for "
                         f"{config}; {fix}")
    if fa[config] != fb[config]:
        raise UsageError(f"{where}: dataset fingerprints {fa[config]} and {fb[config]} differ; {fix}")
    other = next((i for i in ids if a[i][1] != b[i][1]), None)
    if other is not None:
        raise UsageError(f"{where}: item {other} has answer {a[other][1]!r} in one and {b[other][1]!r} in the "
                         f"other; {fix}")


def _bootstrap_ci(diffs: np.ndarray, rng: np.random.Generator, draws: int) -> tuple[float, float]:
    idx = rng.integers(0, len(diffs), size=(draws, len(diffs)))
    means = 100.0 * diffs[idx].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def compare(run_a: str | os.PathLike, run_b: str | os.PathLike, draws: int = 2000,
            seed: int = 0) -> dict:
    """``{"configs": [Paired, ...], "overall": {...} | None, "a": path, "b": path, "only": {...}}`` on the shared
    items; ``UsageError`` when the runs answered other items under the same ids."""
    (a, ca, fa), (b, cb, fb) = _verdicts(run_a), _verdicts(run_b)
    both_circular = ca is not None and cb is not None
    rng = np.random.default_rng(seed)
    rows, shared = [], {}
    present = set(a) | set(b)
    order = [*[c for c in CONFIGS if c in present], *sorted(c for c in present if c not in CONFIGS and is_config(c))]
    only = {"a": [c for c in order if c not in b], "b": [c for c in order if c not in a]}
    for config in order:
        ids = sorted(set(a.get(config, {})) & set(b.get(config, {})))
        if not ids:
            continue
        _same_items(run_a, run_b, config, a[config], b[config], fa, fb, ids)
        circ = both_circular and config in ca and config in cb
        if circ:  # paired on the circular verdicts of the items with every rotation answered in both
            ids = [i for i in ids if i in ca[config] and i in cb[config]]
            if not ids:
                continue
        va = np.array([ca[config][i] if circ else a[config][i][0] for i in ids], dtype=float)
        vb = np.array([cb[config][i] if circ else b[config][i][0] for i in ids], dtype=float)
        shared[config] = (va, vb)
        only_a, only_b = int(((va == 1) & (vb == 0)).sum()), int(((va == 0) & (vb == 1)).sum())
        rows.append(Paired(config, len(ids), 100 * va.mean(), 100 * vb.mean(), only_a, only_b,
                           mcnemar_exact(only_a, only_b), _bootstrap_ci(vb - va, rng, draws), circ))
    if not rows:
        raise UsageError(f"{run_a} and {run_b} share no answered item: compare runs on the same split, seed and "
                         f"photos")
    overall = None
    table2 = [c for c in PAPER_CONFIGS if c in shared]
    if len(table2) == len(PAPER_CONFIGS):
        boot = np.zeros(draws)
        for config in table2:
            va, vb = shared[config]
            idx = rng.integers(0, len(va), size=(draws, len(va)))
            boot += 100.0 * (vb[idx].mean(axis=1) - va[idx].mean(axis=1))
        boot /= len(table2)
        diff = float(np.mean([100 * (shared[c][1].mean() - shared[c][0].mean()) for c in table2]))
        p = float(min(1.0, 2 * min((boot <= 0).mean(), (boot >= 0).mean())))
        overall = {"diff": diff, "ci": (float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))),
                   "p_value": p, "significant": p < ALPHA}
    missing = {c: [who for who, have in (("A", a), ("B", b)) if c not in have]
               for c in PAPER_CONFIGS if c not in shared}
    return {"a": str(run_a), "b": str(run_b), "configs": rows, "overall": overall, "only": only,
            "circular": {"a": ca is not None, "b": cb is not None}, "overall_missing": missing}


def _overall_missing(result: dict) -> str:
    """Why the Overall was not compared, in its own terms: which Table-2 configs are not answered by both."""
    missing = result.get("overall_missing") or {}
    said = []
    for c, lacking in missing.items():
        who = "answered by neither" if len(lacking) == 2 else \
            f"answered by {'B' if lacking == ['A'] else 'A'} only" if lacking else "no item answered by both"
        said.append(f"{CONFIGS[c].short} ({who})")
    return (f"\nOverall not compared: the Table-2 Overall is the mean of all seven Table-2 configs, and "
            f"{len(missing)} of them {'is' if len(missing) == 1 else 'are'} not answered by both runs: "
            f"{', '.join(said)}. A mean over the {len(PAPER_CONFIGS) - len(missing)} they share would not be the "
            "table's Overall; compare the configs above.")


def format_comparison(result: dict) -> str:
    """Markdown: one row per config and the overall, B - A with its interval and p-value."""
    lines = [f"**A** = `{result['a']}`, **B** = `{result['b']}`: B - A, paired on the items both answered", ""]
    circ = result.get("circular") or {}
    if circ.get("a") and circ.get("b"):
        lines += [("Both runs are circular: a config marked (circular) is compared on its circular verdicts (an "
                   "item is right only if every rotation of its options was), paired item by item; the others on "
                   "their one answer."), ""]
    elif circ.get("a") or circ.get("b"):
        lines += [(f"{'A' if circ.get('a') else 'B'} is circular and the other is not: both are compared on the "
                   "items as asked (rotation 0)."), ""]
    lines += ["| config | n | A | B | B - A | 95% CI | only A right | only B right | p (McNemar exact) | |",
              "|---|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    for r in result["configs"]:
        mark = " §" if r.split_verdict else ""
        lines.append(f"| `{r.config}`{' (circular)' if r.circular else ''} | {r.n} | {r.acc_a:.2f} | "
                     f"{r.acc_b:.2f} | {r.diff:+.2f} | [{r.ci[0]:+.2f}, {r.ci[1]:+.2f}]{mark} | {r.only_a} | "
                     f"{r.only_b} | {r.p_value:.4f} | {'significant' if r.significant else ''} |")
    o = result["overall"]
    if o is not None:
        lines.append(f"| **Overall** | | | | {o['diff']:+.2f} | [{o['ci'][0]:+.2f}, {o['ci'][1]:+.2f}] | | | "
                     f"{o['p_value']:.4f} (paired bootstrap) | {'significant' if o['significant'] else ''} |")
    else:
        lines.append(_overall_missing(result))
    split = [r for r in result["configs"] if r.split_verdict]
    if split:
        lines.append(f"\n§ The interval and the test disagree on {', '.join(r.config for r in split)}. The verdict "
                     "is McNemar's exact test, which reads only the items the runs disagree on (only A right, only "
                     "B right): with few of them it cannot reach p < 0.05 (even 5 of 5 one way give p = 0.0625). "
                     "The 95% CI is a paired-bootstrap percentile interval, which resamples the observed items and "
                     "is too narrow when few items differ (every resample then leans one way). Read it as "
                     "\"not shown\": more items would settle it.")
    for key in ("a", "b"):
        if result.get("only", {}).get(key):
            lines.append(f"\nNot compared, answered by {key.upper()} only: {', '.join(result['only'][key])}.")
    return "\n".join(lines) + "\n"


def compare_many(run_dirs: Sequence[str | os.PathLike]) -> str:
    """Every run against the first (A), in the order given: Markdown."""
    if len(run_dirs) < 2:
        raise UsageError("--compare needs at least two run directories (the first is the baseline A)")
    return "\n".join(format_comparison(compare(run_dirs[0], other)) for other in run_dirs[1:])


def compare_runs(run_dirs: Sequence[str | os.PathLike], out: str | os.PathLike | None = None) -> str:
    """:func:`compare_many`, written to ``out/compare.md`` under the report's ``--out`` rules (:mod:`.out`:
    an existing compare.md is replaced only if an earlier report wrote it)."""
    from .out import ReportFolder

    folder = ReportFolder(out, manages=("compare.md",)) if out is not None else None
    text = compare_many(run_dirs)
    if folder is not None:
        try:
            folder.path("compare.md").write_text(text, encoding="utf-8")
        except OSError as err:
            raise folder.failed(err) or err from None
        folder.finish()
    return text
