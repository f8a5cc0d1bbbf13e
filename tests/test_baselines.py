"""Tests for the weight-free baselines (``--model random`` and ``--model solver``).

Rows come from the shared row factory (tests/fixtures/rows.py: the package's own task modules on
synthetic photos).  The solver only ever sees rows stripped of ``answer`` and ``metadata`` and
wrapped so that any attempt to read those keys fails the test.  Its speed is measured in
benchmarks/, not asserted here.
"""
from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest

from jigsaw_puzzles.spec import features
from PIL import Image

from fixtures.rows import make_rows, strip_labels
from jigsaw_puzzles import CONFIGS
from jigsaw_puzzles.spec import anomaly_answers, format_anomaly, format_order, get as get_spec
from jigsaw_puzzles.baselines import CHANCE, SolverAnswer, random_answer, solve

N_ITEMS = 20
#: minimum solver accuracy on N_ITEMS synthetic rows (it scores 100% on 100+ rows of each
#: while measuring; >= 90% leaves room for two unlucky items without hiding a regression)
MIN_ACC = 0.9

AD_RE = re.compile(r"\AJudgment: A\nError Position:\nError Type:\Z|\AJudgment: B\nError Position: [ABCD]\nError Type: [AB]\Z")
OG_RE = re.compile(r"\A\[([1-4]), ([1-4]), ([1-4]), ([1-4])\]\Z")


class GuardedRow(dict):
    """A row that fails loudly if anyone tries to read the labels."""

    FORBIDDEN = ("answer", "metadata")

    def __getitem__(self, key):
        if key in self.FORBIDDEN:
            raise AssertionError(f"solver read row[{key!r}]")
        return super().__getitem__(key)

    def get(self, key, default=None):
        if key in self.FORBIDDEN:
            raise AssertionError(f"solver read row.get({key!r})")
        return super().get(key, default)


def guarded(row: dict) -> GuardedRow:
    return GuardedRow(strip_labels(row))


_ROWS: dict = {}


def rows_for(config: str, size=(384, 288)):
    key = (config, size)
    if key not in _ROWS:
        _ROWS[key] = make_rows(config, N_ITEMS, seed=7, size=size)
    return _ROWS[key]


def well_formed(text: str, config: str, options) -> bool:
    if config == "anomaly_detection":
        return bool(AD_RE.match(text)) and text in options
    if config == "order_generation":
        m = OG_RE.match(text)
        return bool(m) and sorted(m.groups()) == ["1", "2", "3", "4"]
    return text in "ABCDEFGHI"[: len(options)] and len(text) == 1


# ------------------------------------------------------------------ contract of the rows
@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS)
def test_synthetic_rows_follow_contract(config):
    for row in rows_for(config)[:5]:
        assert set(row) == set(features())  # the row schema of spec.features()
        assert row["id"].startswith(config + "/") and len(row["source_id"]) == 16
        assert well_formed(row["answer"], config, row["options"]) or config == "order_generation"
        n_img = {"connection_verification": 2, "anomaly_detection": 1, "order_restoration": 4,
                 "order_generation": 4}.get(config, 5 if config.startswith("missing") else 2)
        assert len(row["images"]) == n_img


# ------------------------------------------------------------------ solver
@pytest.mark.parametrize("config", CONFIGS)
def test_solver_accuracy(config):
    rows = rows_for(config)
    answers = [solve(guarded(r), config) for r in rows]
    for a, r in zip(answers, rows):
        assert isinstance(a, SolverAnswer)
        assert well_formed(a.text, config, r["options"]), a.text
        assert 0.0 <= a.confidence <= 1.0
        assert isinstance(a.scores, dict) and "costs" in a.scores
    acc = np.mean([a.text == r["answer"] for a, r in zip(answers, rows)])
    assert acc >= MIN_ACC, f"{config}: solver accuracy {acc:.2f}"
    # confidence means something: correct answers are not near-ties
    conf_ok = [a.confidence for a, r in zip(answers, rows) if a.text == r["answer"]]
    assert np.median(conf_ok) > 0.1


@pytest.mark.parametrize("config", ["anomaly_detection", "connection_verification", "order_generation"])
def test_solver_square_images(config):
    """Square sources: anomaly rotations may be 90/270 degrees."""
    rows = rows_for(config, size=(288, 288))
    acc = np.mean([solve(guarded(r), config).text == r["answer"] for r in rows])
    assert acc >= MIN_ACC, f"{config} (square): solver accuracy {acc:.2f}"


def test_solver_never_reads_labels():
    row = rows_for("order_restoration")[0]
    g = guarded(row)
    with pytest.raises(AssertionError):
        g["answer"]
    assert "answer" not in g and "metadata" not in g
    solve(g, "order_restoration")  # must not raise


def test_solver_order_restoration_matches_generation():
    """OR picks, among its options, the order OG would rank best."""
    for r in rows_for("order_restoration")[:5]:
        a = solve(guarded(r), "order_restoration")
        all_costs = a.scores["all_orders"]
        picked = r["options"]["ABCD".index(a.text)]
        assert all_costs[picked] == min(all_costs[o] for o in r["options"])


def test_solver_rejects_unknown_config():
    with pytest.raises(ValueError):
        solve(guarded(rows_for("order_generation")[0]), "jigsaw_sudoku")


# ------------------------------------------------------------------ random baseline
@pytest.mark.parametrize("config", CONFIGS)
def test_random_well_formed_and_deterministic(config):
    rows = rows_for(config)
    for r in rows:
        a = random_answer(guarded(r), config, seed=3)
        assert well_formed(a, config, r["options"]), a
        assert a == random_answer(guarded(r), config, seed=3)
    # different seeds / ids give different streams (not a constant answer)
    answers = {random_answer(r, config, seed=s) for r in rows for s in range(3)}
    assert len(answers) > 1


def _binomial_interval(n: int, p: float, level: float = 0.99):
    """Exact central binomial interval [lo, hi] for the number of successes."""
    k = np.arange(n + 1)
    logpmf = (math.lgamma(n + 1) - np.array([math.lgamma(i + 1) + math.lgamma(n - i + 1) for i in k])
              + k * math.log(p) + (n - k) * math.log1p(-p))
    cdf = np.cumsum(np.exp(logpmf - logpmf.max()))
    cdf /= cdf[-1]
    tail = (1 - level) / 2
    return int(np.searchsorted(cdf, tail)), int(np.searchsorted(cdf, 1 - tail))


def _label_only_rows(config: str, n: int):
    """Image-free rows with answers spread as the contract prescribes (random only reads id/options)."""
    rng = np.random.default_rng(11)
    spec = get_spec(config)
    perms = [format_order(p) for p in itertools.permutations([1, 2, 3, 4])]
    rows = []
    for i in range(n):
        if spec.kind == "anomaly":
            opts = anomaly_answers()
            kind = (None, None, "A", "B")[i % 4]  # exact 2:1:1 mix
            ans = format_anomaly() if kind is None else format_anomaly("ABCD"[int(rng.integers(4))], kind)
        elif spec.kind == "order":
            opts, ans = [], perms[int(rng.integers(24))]
        else:
            opts = [f"option {j}" for j in range(spec.num_options)]
            ans = spec.letters[int(rng.integers(spec.num_options))]
        rows.append({"id": f"{config}/{i:016x}", "options": opts, "answer": ans})
    return rows


@pytest.mark.parametrize("config", CONFIGS)
def test_random_accuracy_is_chance(config):
    n = 4000
    rows = _label_only_rows(config, n)
    hits = sum(random_answer({"id": r["id"], "options": r["options"]}, config, seed=0) == r["answer"] for r in rows)
    lo, hi = _binomial_interval(n, CHANCE[config])
    assert lo <= hits <= hi, f"{config}: {hits}/{n} outside [{lo}, {hi}] (p={CHANCE[config]:.4f})"


def test_random_chance_values_match_contract():
    assert CHANCE["anomaly_detection"] == pytest.approx(0.28125)
    assert CHANCE["order_generation"] == pytest.approx(1 / 24)
    assert CHANCE["connection_verification"] == pytest.approx(1 / 3)
