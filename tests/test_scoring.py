"""Scoring: Table-2 chance/critical values, exact statistics, overall, extras."""
import math

import numpy as np
import pytest

from jigsaw_puzzles.spec import PAPER_CONFIGS
from jigsaw_puzzles.scoring.score import (
    PAPER_TABLE2,
    binomial_pmf,
    chance_table,
    clopper_pearson,
    critical_count,
    item_chance,
    kendall_tau,
    null_distribution,
    score,
)

AD_OK = "Judgment: A\nError Position:\nError Type:"
N = 1100

# Exact one-sided binomial critical values for n = 1,100 (smallest k with P(X >= k) < 0.05, as %).
EXACT_1100 = {
    "missing_piece_selection_easy": 300 / 11,  # 27.27  (paper 27.30)
    "missing_piece_selection_hard": 300 / 11,
    "piece_localization_easy": 578 / 11,  # 52.55  (paper 52.50)
    "piece_localization_hard": 300 / 11,
    "connection_verification": 393 / 11,  # 35.73  (paper 35.70)
    "anomaly_detection": 332 / 11,  # 30.18  (paper 30.50 = plain Bin(1100, 0.28125), 335/1100 rounded to 0.1)
    "order_restoration": 300 / 11,
}


def test_table2_chance_matches_paper():
    table = chance_table(N)
    for cfg in PAPER_CONFIGS:
        assert abs(table[cfg]["chance"] - PAPER_TABLE2["chance"][cfg]) < 0.006, cfg
    assert table["anomaly_detection"]["chance"] == pytest.approx(28.125)
    assert table["overall"]["chance"] == pytest.approx(PAPER_TABLE2["chance"]["overall"], abs=0.005)
    assert table["order_generation"]["chance"] == pytest.approx(100 / 24)


def test_table2_critical_values_exact_and_where_paper_rounds_differently():
    table = chance_table(N)
    for cfg, exact in EXACT_1100.items():
        assert table[cfg]["critical_value"] == pytest.approx(exact), cfg
    # The paper prints the exact values rounded to one decimal (27.27 -> 27.3, 52.55 -> 52.5,
    # 35.73 -> 35.7): all four binomial columns agree to within 0.05.
    for cfg in set(EXACT_1100) - {"anomaly_detection"}:
        assert abs(table[cfg]["critical_value"] - PAPER_TABLE2["critical_value"][cfg]) < 0.05, cfg
    # Anomaly Detection: the paper's 30.50 treats all items as Bin(1100, 0.28125) (335/1100 = 30.45);
    # the exact null (550 unchanged at 1/2, 550 altered at 1/16) has less variance -> 30.18.
    ad_plain = 100 * critical_count(binomial_pmf(N, 0.28125)) / N
    assert ad_plain == pytest.approx(335 / 11)
    assert round(ad_plain, 1) == PAPER_TABLE2["critical_value"]["anomaly_detection"]
    assert table["anomaly_detection"]["critical_value"] < ad_plain
    # Overall: the paper averages the column criticals (32.56); ours averages the exact ones (32.51).
    mean_crit = np.mean([EXACT_1100[c] for c in PAPER_CONFIGS])
    assert table["overall"]["critical_value"] == pytest.approx(mean_crit)
    assert round(table["overall"]["critical_value"], 2) == 32.51
    # The exact test on the overall mean needs far less: 31.05%.
    assert round(table["overall"]["critical_value_exact"], 2) == 31.05


def test_binomial_pmf_matches_scipy_where_available():
    stats = pytest.importorskip("scipy.stats")
    for n, p in [(1100, 0.25), (220, 1 / 3), (7, 0.5), (1100, 1 / 16)]:
        np.testing.assert_allclose(binomial_pmf(n, p), stats.binom.pmf(np.arange(n + 1), n, p), rtol=1e-9, atol=1e-300)
    lo, hi = clopper_pearson(30, 100)
    assert lo == pytest.approx(stats.beta.ppf(0.025, 30, 71), abs=1e-10)
    assert hi == pytest.approx(stats.beta.ppf(0.975, 31, 70), abs=1e-10)


def test_binomial_pmf_small_case_by_hand():
    np.testing.assert_allclose(binomial_pmf(3, 0.5), [1 / 8, 3 / 8, 3 / 8, 1 / 8])
    np.testing.assert_allclose(null_distribution([0.5, 0.25]), [0.375, 0.5, 0.125])
    assert critical_count(binomial_pmf(4, 0.25)) == 4  # P(X>=3)=13/256 > .05, P(X>=4)=1/256


def test_clopper_pearson_edges():
    assert clopper_pearson(0, 10)[0] == 0.0
    assert clopper_pearson(10, 10)[1] == 1.0
    assert clopper_pearson(0, 10)[1] == pytest.approx(1 - 0.025 ** (1 / 10))


def test_item_chance_anomaly_depends_on_reference():
    assert item_chance(AD_OK, "anomaly_detection") == 0.5
    assert item_chance("Judgment: B\nError Position: C\nError Type: A", "anomaly_detection") == 1 / 16
    with pytest.raises(ValueError):
        item_chance("Judgment: B", "anomaly_detection")


def _paper_like_run(acc_by_cfg, n=N):
    preds, refs, cfgs = [], [], []
    for cfg, acc in acc_by_cfg.items():
        k = round(acc * n / 100)
        if cfg == "anomaly_detection":
            ref_list = [AD_OK] * (n // 2) + ["Judgment: B\nError Position: D\nError Type: B"] * (n - n // 2)
            wrong = "Judgment: B\nError Position: A\nError Type: A"
        else:
            ref_list = ["A"] * n
            wrong = "B"
        for i, ref in enumerate(ref_list):
            preds.append(ref if i < k else wrong)
            refs.append(ref)
            cfgs.append(cfg)
    return preds, refs, cfgs


def test_score_reproduces_a_paper_row():
    # Gemini-2.5-Pro, Table 2: 99.91 97.18 78.82 61.09 59.36 70.00 73.64 -> overall 77.14
    row = dict(zip(PAPER_CONFIGS, [99.91, 97.18, 78.82, 61.09, 59.36, 70.00, 73.64]))
    res = score(*_paper_like_run(row))
    for cfg, acc in row.items():
        assert round(res[cfg]["accuracy"], 2) == acc
        assert res[cfg]["n"] == N and res[cfg]["invalid_rate"] == 0
        assert res[cfg]["p_value"] < 1e-6
        assert res[cfg]["ci_low"] < res[cfg]["accuracy"] < res[cfg]["ci_high"] or res[cfg]["ci_high"] == 100
    assert round(res["overall"]["accuracy"], 2) == 77.14
    assert res["overall"]["n_columns"] == 7
    assert round(res["overall"]["chance"], 2) == 30.21


def test_near_chance_model_is_not_significant():
    # Aya-Vision-8B is at/below chance on most columns.
    res = score(*_paper_like_run({"missing_piece_selection_easy": 26.82, "piece_localization_easy": 49.64}))
    assert res["missing_piece_selection_easy"]["p_value"] > 0.05
    assert res["missing_piece_selection_easy"]["accuracy"] < res["missing_piece_selection_easy"]["critical_value"]
    res = score(*_paper_like_run({"missing_piece_selection_easy": 27.27}))
    assert res["missing_piece_selection_easy"]["p_value"] < 0.05  # exactly at the critical value


def test_invalid_answers_score_zero_and_are_counted():
    res = score(["B", "no idea", "A or B", "Answer: C"], ["B", "A", "A", "A"], "piece_localization_easy")
    col = res["piece_localization_easy"]
    assert col["accuracy"] == 25.0 and col["correct"] == 1
    assert col["invalid_rate"] == 75.0 and col["ambiguous_rate"] == 25.0


def test_anomaly_extras_do_not_change_exact_match():
    refs = [AD_OK, "Judgment: B\nError Position: C\nError Type: A", "Judgment: B\nError Position: B\nError Type: B"]
    preds = [
        "Judgment: A\nError Position:\nError Type:",  # correct
        "Judgment: B\nError Position: C\nError Type: B",  # right judgment + position, wrong type
        "Judgment: B\nError Position: D",  # incomplete: invalid, judgment still counts
    ]
    col = score(preds, refs, "anomaly_detection")["anomaly_detection"]
    assert col["accuracy"] == pytest.approx(100 / 3)
    assert col["judgment_accuracy"] == 100.0
    assert col["n_altered"] == 2
    assert col["position_accuracy"] == 50.0 and col["type_accuracy"] == 0.0
    assert col["invalid_rate"] == pytest.approx(100 / 3)
    assert col["chance"] == pytest.approx(100 * (0.5 + 1 / 16 + 1 / 16) / 3)


def test_order_generation_extras():
    refs = ["[1, 2, 3, 4]", "[2, 3, 1, 4]", "[4, 3, 2, 1]", "[1, 2, 3, 4]"]
    preds = ["[1, 2, 3, 4]", "[2, 3, 4, 1]", "[1, 2, 3, 4]", "nothing"]
    col = score(preds, refs, "order_generation")["order_generation"]
    assert col["accuracy"] == 25.0
    assert col["position_accuracy"] == pytest.approx(100 * (1 + 0.5 + 0 + 0) / 4)
    assert col["kendall_tau"] == pytest.approx((1 + kendall_tau([2, 3, 4, 1], [2, 3, 1, 4]) - 1 + 0) / 4)
    assert col["chance"] == pytest.approx(100 / 24)
    assert "overall" not in score(preds, refs, "order_generation")  # not a Table-2 column


def test_kendall_tau():
    assert kendall_tau([1, 2, 3, 4], [1, 2, 3, 4]) == 1.0
    assert kendall_tau([4, 3, 2, 1], [1, 2, 3, 4]) == -1.0
    assert kendall_tau([2, 1, 3, 4], [1, 2, 3, 4]) == pytest.approx(4 / 6)


def test_overall_exact_test_matches_pooled_convolution():
    cfgs = ["piece_localization_easy"] * 20 + ["connection_verification"] * 20
    refs = ["A"] * 40
    preds = ["A"] * 14 + ["B"] * 6 + ["A"] * 10 + ["B"] * 10
    res = score(preds, refs, cfgs)
    pmf = np.convolve(binomial_pmf(20, 0.5), binomial_pmf(20, 1 / 3))
    assert res["overall"]["p_value"] == pytest.approx(pmf[24:].sum())
    assert res["overall"]["accuracy"] == pytest.approx((70 + 50) / 2)
    # unequal n: the exact test on the mean is not defined here -> NaN, never a wrong number
    res = score(preds[:-1], refs[:-1], cfgs[:-1])
    assert math.isnan(res["overall"]["p_value"])


def test_too_few_items_have_no_critical_value():
    res = score(["A", "A"], ["A", "A"], "piece_localization_easy")
    assert math.isnan(res["piece_localization_easy"]["critical_value"])


def test_input_validation():
    with pytest.raises(ValueError):
        score(["A"], ["E"], "missing_piece_selection_easy")  # invalid reference
    with pytest.raises(ValueError):
        score(["A"], ["A", "B"], "missing_piece_selection_easy")
    with pytest.raises(ValueError):
        score(["A"], ["A"], ["nope"])


# ------------------------------------------------------------------ references: normalised, never guessed

AD_CA = "Judgment: B\nError Position: C\nError Type: A"


@pytest.mark.parametrize("reference, config, prediction", [
    ("Judgment: A\nError Position: \nError Type: ", "anomaly_detection", AD_OK),  # trailing spaces
    ("Judgment: A\r\nError Position:\r\nError Type:\r\n", "anomaly_detection", AD_OK),  # CRLF
    ("Judgment: A\rError Position:\rError Type:", "anomaly_detection", AD_OK),  # lone CR (old Mac files)
    ("judgment: b\nerror position: c\nerror type: a", "anomaly_detection", AD_CA),  # lower case
    ("Judgment:B\n\nError  Position:\tC \nError Type: A\n", "anomaly_detection", AD_CA),  # blank line, tab, spaces
    (" b ", "piece_localization_easy", "B"),
    ("c\r\n", "missing_piece_selection_hard", "C"),
    ("[2,3,1,4]", "order_generation", "[2, 3, 1, 4]"),
    (" [ 2 , 3 , 1 , 4 ]\n", "order_generation", "[2, 3, 1, 4]"),
])
def test_references_are_normalised_like_predictions(reference, config, prediction):
    col = score([prediction], [reference], config)[config]
    assert col["accuracy"] == 100.0 and col["invalid_rate"] == 0.0
    assert item_chance(reference, config) == item_chance(prediction, config)


@pytest.mark.parametrize("reference, config", [
    ("E", "missing_piece_selection_easy"),  # outside A-D
    ("C", "piece_localization_easy"),  # outside A/B
    ("A or B", "piece_localization_easy"),
    ("", "missing_piece_selection_easy"),
    ("Judgment: B", "anomaly_detection"),  # no position/type
    ("Judgment: A\nError Position: B\nError Type: A", "anomaly_detection"),  # contradictory
    ("Judgment: B\nError Position: E\nError Type: A", "anomaly_detection"),
    ("Judgment: A Error Position: Error Type:", "anomaly_detection"),  # one line is a prediction form, not a reference
    ("[1, 1, 2, 3]", "order_generation"),  # not a permutation
    ("[1, 2, 3]", "order_generation"),
    ("2, 3, 1, 4", "order_generation"),  # no brackets
])
def test_malformed_references_are_rejected(reference, config):
    for _ in range(2):  # a refused reference is never remembered as valid
        with pytest.raises(ValueError, match="not a valid"):
            score(["A"], [reference], config)


def test_reference_memo_is_per_config():
    from jigsaw_puzzles.spec import parse_reference

    assert parse_reference("c", "missing_piece_selection_easy") == "C"
    with pytest.raises(ValueError):
        parse_reference("c", "piece_localization_easy")  # same text, other config: still refused
    with pytest.raises(ValueError):
        parse_reference("A", "no_such_config")


@pytest.mark.parametrize("config,refs,constant", [
    ("missing_piece_selection_easy", list("BBBACBBDBA"), "B"),
    ("anomaly_detection", ["Judgment: A\nError Position:\nError Type:"] * 3
     + ["Judgment: B\nError Position: C\nError Type: A"] * 2, "Judgment: A\nError Position:\nError Type:"),
    ("order_generation", ["[2, 1, 3, 4]"] * 2 + ["[1, 2, 3, 4]"] * 2 + ["[4, 3, 2, 1]"], "[1, 2, 3, 4]"),  # tie: first
])
def test_constant_baseline_is_what_a_constant_answer_scores(config, refs, constant):
    res = score([constant] * len(refs), refs, config)[config]
    assert res["constant_baseline"] == {"answer": constant, "accuracy": res["accuracy"]}
    others = {r for r in refs if r != constant}
    assert all(score([o] * len(refs), refs, config)[config]["accuracy"] <= res["accuracy"] for o in others)


def test_nulls_convolve_over_their_nonzero_spans_as_numpy_convolves_them():
    """The exact nulls are convolved over their nonzero spans (a binomial of many items underflows to 0 far from its
    mean), so the overall null of n items costs O(n), not O(n^2): the same pmf as np.convolve on the whole arrays, and
    the same critical counts, on binomials of 1 to 20,000 items and on pmfs with zeros anywhere."""
    from jigsaw_puzzles.scoring.stats import _convolve, binomial_pmf

    rng = np.random.default_rng(5)
    pairs = [(binomial_pmf(int(n), p), binomial_pmf(int(m), q)) for n, m, p, q in
             [(1, 1, 0.5, 0.5), (20_000, 9_000, 0.25, 1 / 24), (3_000, 5, 0.28125, 0.5), (0, 7, 0.3, 0.3)]]
    for _ in range(200):
        a, b = rng.random(rng.integers(1, 40)), rng.random(rng.integers(1, 40))
        a[rng.random(len(a)) < 0.4] = 0.0
        b[: rng.integers(0, len(b))] = 0.0
        pairs.append((a / max(a.sum(), 1e-300), b / max(b.sum(), 1e-300)))
    pairs.append((np.zeros(3), np.ones(2)))
    for a, b in pairs:
        got, want = _convolve(a, b), np.convolve(a, b)
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-12, atol=1e-300)
        if want.sum() > 0.5:
            assert critical_count(got) == critical_count(want)


# ------------------------------------------------------------------------------------------------ #44 3.6
def test_one_item_gives_the_same_interval_for_its_config_and_for_overall():
    """n = 1: overall's interval was [100, 100] (a Wald interval) while its config's was [2.5, 100]."""
    res = score(["B"], ["B"], ["connection_verification"])
    assert (res["overall"]["ci_low"], res["overall"]["ci_high"]) == \
        (res["connection_verification"]["ci_low"], res["connection_verification"]["ci_high"])
    assert res["overall"]["ci_low"] == pytest.approx(2.5)


def test_the_interval_of_the_mean_is_clopper_pearson_on_the_effective_count():
    """Generated column counts (hypothesis): one column is its own interval, equal n the pooled one, and any n the
    beta quantiles scipy gives for the effective count; the mean lies inside."""
    from hypothesis import given, settings, strategies as st

    from jigsaw_puzzles.scoring.stats import mean_interval

    scipy_stats = pytest.importorskip("scipy.stats")
    column = st.integers(1, 300).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))

    @settings(max_examples=150, deadline=None)
    @given(st.lists(column, min_size=1, max_size=7))
    def check(counts):
        lo, hi = mean_interval(counts)
        k = len(counts)
        n_eff = k * k / sum(1 / n for _, n in counts)
        x = n_eff * sum(c / n for c, n in counts) / k
        want_lo = 0.0 if x <= 1e-12 else scipy_stats.beta.ppf(0.025, x, n_eff - x + 1)
        want_hi = 1.0 if x >= n_eff - 1e-12 else scipy_stats.beta.ppf(0.975, x + 1, n_eff - x)
        assert lo == pytest.approx(want_lo, abs=1e-7) and hi == pytest.approx(want_hi, abs=1e-7)
        assert lo <= x / n_eff <= hi
        if k == 1:
            assert (lo, hi) == clopper_pearson(*counts[0])
        if len({n for _, n in counts}) == 1:
            assert (lo, hi) == clopper_pearson(sum(c for c, _ in counts), sum(n for _, n in counts))

    check()


def test_the_interval_of_the_mean_covers_the_true_mean_of_unequal_chances():
    """2,000 seeded draws of seven columns of 40 items with chances 0.05-0.95: at least 95% of the intervals hold
    the true mean (conservative with equal n)."""
    import numpy as np

    from jigsaw_puzzles.scoring.stats import mean_interval

    rng = np.random.default_rng(0)
    p = np.array([0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95])
    hits = 0
    for _ in range(2000):
        lo, hi = mean_interval([(int(c), 40) for c in rng.binomial(40, p)])
        hits += lo <= p.mean() <= hi
    assert hits / 2000 >= 0.95


@pytest.mark.parametrize("output", [b"B", bytearray(b"B"), memoryview(b"B"), 66, None, ["B"]])
def test_an_output_that_is_not_text_is_invalid_everywhere(output):
    """Issue #44 1.4: ``jp.score``, the rewards and verl's ``compute_score`` read one rule: an output that is not
    text (bytes included) is invalid and earns nothing, where ``"B"`` is right."""
    import jigsaw_puzzles as jp
    from jigsaw_puzzles.integrations import verl
    from jigsaw_puzzles.training import rewards

    config = "piece_localization_easy"
    assert jp.classify_response(output, config).status == "invalid"
    for text, right in ((output, 0.0), ("B", 100.0)):
        assert jp.score([text], ["B"], [config])[config]["accuracy"] == right
        assert rewards.exact_reward(completions=[text], answer=["B"], config=[config]) == [right / 100]
        assert verl.compute_score(config, text, "B")["score"] == right / 100
