"""Exact statistics of a random guesser: the binomial pmf, the null of a mixed column, its critical count, the
Clopper-Pearson interval and Kendall's tau (what :mod:`.score` reports beside each accuracy).

Computed with numpy (binomial pmf in log space) rather than scipy: scipy is not a dependency of this package, the
few functions needed are short, and the log-space pmf is accurate to ~1e-12, far below what can move a 0.05
threshold (the tests cross-check against scipy where it is installed).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np

#: The significance level of the exact one-sided test against chance.
ALPHA = 0.05


def binomial_pmf(n: int, p: float) -> np.ndarray:
    """Exact Binomial(n, p) pmf over 0..n, computed in log space (no scipy)."""
    k = np.arange(n + 1)
    if p <= 0.0 or p >= 1.0:
        out = np.zeros(n + 1)
        out[0 if p <= 0.0 else n] = 1.0
        return out
    return np.exp(_log_comb(n) + k * math.log(p) + (n - k) * math.log1p(-p))


@lru_cache(maxsize=64)
def _log_comb(n: int) -> np.ndarray:
    """log C(n, k) for k = 0..n, as a running sum of log((n - i + 1) / i); cached (read-only): the interval's
    bisection evaluates the same n a hundred times."""
    steps = np.log(np.arange(n, 0, -1, dtype=float)) - np.log(np.arange(1, n + 1, dtype=float))
    out = np.concatenate(([0.0], np.cumsum(steps)))
    out.flags.writeable = False
    return out


def null_distribution(chances: Iterable[float]) -> np.ndarray:
    """pmf of the number of correct answers of a random guesser, items independent.

    Items are grouped by their chance; each group is a binomial and the groups are
    convolved (for Anomaly Detection: Bin(n_unchanged, 1/2) * Bin(n_altered, 1/16)).
    """
    groups: Counter = Counter()
    for c, count in Counter(chances).items():  # few distinct values: round each once, not once per item
        groups[round(float(c), 15)] += count
    pmf = np.ones(1)
    for p, count in sorted(groups.items()):
        pmf = _convolve(pmf, binomial_pmf(count, p))
    return pmf


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.convolve`` of two pmfs over their nonzero spans: Bin(n, p) underflows to 0 beyond about
    sqrt(1400 n p (1 - p)) of its mean, so nulls of n items convolve in O(n), not O(n^2) (the same to rounding)."""
    (ia,), (ib,), out = np.nonzero(a), np.nonzero(b), np.zeros(len(a) + len(b) - 1)
    if len(ia) and len(ib):
        out[ia[0] + ib[0]:ia[-1] + ib[-1] + 1] = np.convolve(a[ia[0]:ia[-1] + 1], b[ib[0]:ib[-1] + 1])
    return out


def _upper_tail(pmf: np.ndarray) -> np.ndarray:
    """sf[k] = P(X >= k) for k = 0..n+1."""
    return np.concatenate((np.cumsum(pmf[::-1])[::-1], [0.0]))


def critical_count(pmf: np.ndarray, alpha: float = ALPHA) -> int:
    """Smallest k with P(X >= k) < alpha: getting k right beats chance at level alpha."""
    sf = _upper_tail(pmf)
    return int(np.argmax(sf < alpha))


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval for a binomial proportion, as fractions.

    Found by bisection on the exact binomial tails (60 halvings: error < 1e-15).
    """
    if n <= 0:
        return (float("nan"), float("nan"))
    a = (1.0 - confidence) / 2.0

    def solve(f, lo=0.0, hi=1.0):  # f increasing in p, root of f(p) = a
        for _ in range(60):
            mid = (lo + hi) / 2.0
            if f(mid) < a:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2.0

    lower = 0.0 if k <= 0 else solve(lambda p: binomial_pmf(n, p)[k:].sum())
    upper = 1.0 if k >= n else 1.0 - solve(lambda q: binomial_pmf(n, 1.0 - q)[: k + 1].sum())
    return lower, upper


def _beta_cdf(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (Lentz's continued fraction, Numerical Recipes 6.4)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1.0) / (a + b + 2.0):  # the fraction converges fast below the mean
        return 1.0 - _beta_cdf(1.0 - x, b, a)
    front = math.exp(a * math.log(x) + b * math.log1p(-x) + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)) / a
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    out = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d, c = 1.0 + num * d, 1.0 + num / c
            d, c = 1.0 / (d if abs(d) > tiny else tiny), c if abs(c) > tiny else tiny
            out *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return front * out


def mean_interval(counts: Sequence[tuple[int, int]], confidence: float = 0.95) -> tuple[float, float]:
    """A 95% interval (fractions) for the mean of the proportions ``correct / n`` of independent columns, by the
    columns' own rule: the Clopper-Pearson interval of the mean over the effective count n_eff = k^2 / sum(1/n_i)
    items (Korn & Graubard 1998: the size at which one binomial has the mean's variance when the columns' chances
    are equal; with equal n it is the pooled count, and a sum of unequal chances varies less than that binomial,
    so the interval is conservative there). One column: exactly its :func:`clopper_pearson`."""
    if not counts or any(n <= 0 for _, n in counts):
        return (float("nan"), float("nan"))
    k = len(counts)
    n_eff = k * k / sum(1.0 / n for _, n in counts)
    x = n_eff * sum(c / n for c, n in counts) / k
    if abs(n_eff - round(n_eff)) < 1e-9 and abs(x - round(x)) < 1e-9:  # equal n: the pooled counts, exactly
        return clopper_pearson(int(round(x)), int(round(n_eff)), confidence)
    a = (1.0 - confidence) / 2.0

    def quantile(q: float, s: float, t: float) -> float:  # Beta(s, t)'s q-quantile, by bisection
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2.0
            lo, hi = (mid, hi) if _beta_cdf(mid, s, t) < q else (lo, mid)
        return (lo + hi) / 2.0

    lower = 0.0 if x <= 0 else quantile(a, x, n_eff - x + 1.0)
    upper = 1.0 if x >= n_eff else quantile(1.0 - a, x + 1.0, n_eff - x)
    return lower, upper


def kendall_tau(pred: Sequence[int], true: Sequence[int]) -> float:
    """Kendall's tau-a between two equal-length sequences without ties (here: orders of 4)."""
    n = len(true)
    s = 0
    for i in range(n):
        for j in range(i + 1, n):
            a = (pred[i] > pred[j]) - (pred[i] < pred[j])
            b = (true[i] > true[j]) - (true[i] < true[j])
            s += a * b
    return s / (n * (n - 1) / 2)
