"""`jigsaw-puzzles analyze`: every statistic checked on synthetic runs whose answers have a known structure."""
from __future__ import annotations

import csv
import json
import math
import sys
from itertools import permutations

import numpy as np
import pytest

from fixtures.photos import make_photo
from jigsaw_puzzles import spec
from jigsaw_puzzles.analysis import analyze, answer_bias, item_cells, item_features, self_correction, stated_orders
from jigsaw_puzzles.analysis.bias import bias_test
from jigsaw_puzzles.analysis.error_model import NO_FINDING, design_matrix, fit_error_model
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.errors import UserError
from jigsaw_puzzles.inference import RunDir, evaluate_model
from jigsaw_puzzles.inference.data import dataset_fingerprint
from jigsaw_puzzles.inference.runner import verdicts
from jigsaw_puzzles.rng import item_rng
from jigsaw_puzzles.generation.tasks import anomaly_detection, order_generation, order_restoration

OR, OG = "order_restoration", "order_generation"
N_ITEMS = 96


def make_dataset(config: str, n: int, size=(192, 144)):
    """``n`` real items of ``config`` built by its task module from synthetic photos (answer slots cycle)."""
    import datasets

    module = {OR: order_restoration, OG: order_generation, "anomaly_detection": anomaly_detection}[config]
    family = spec.CONFIGS[config].family
    slots = {OR: 4, OG: 1, "anomaly_detection": 16}[config]
    rows = []
    for k in range(n):
        sid = f"{k:016x}"
        item = module.make_item(make_photo(k, size), item_rng(0, family, sid), k % slots)
        rows.append({"id": f"{config}/{sid}", "source_id": sid, "images": item.images, "question": item.question,
                     "options": item.options, "answer": item.answer,
                     "metadata": json.dumps({"config": config, **item.metadata}, sort_keys=True),
                     "source_license": "", "source_attribution": "", "source_url": ""})
    return datasets.Dataset.from_list(rows, features=spec.features())


@pytest.fixture(scope="module")
def or_items():
    return make_dataset(OR, N_ITEMS)


@pytest.fixture(scope="module")
def or_features(or_items):
    return [item_features(or_items[i], OR) for i in range(len(or_items))]


def write_run(path, data: dict, outputs: dict[str, list[str]], model: str = "model", fingerprints=None):
    """A run directory as `eval` writes it: run.json with the items' identity and fingerprints, and one
    predictions line per item with the verdict of the package's own scorer."""
    rundir = RunDir(path)
    rundir.write_run({"model": model, "backend": "builtin", "split": "test", "seed": 0, "source": None,
                      "dataset": {"fingerprints": fingerprints if fingerprints is not None else
                                  {c: dataset_fingerprint(ds) for c, ds in data.items()}}})
    with open(rundir.predictions, "w", encoding="utf-8") as f:
        for config, texts in outputs.items():
            rows = [data[config][i] for i in range(len(texts))]
            records = [{"output": t, "config": config} for t in texts]
            for row, rec, verdict in zip(rows, records, verdicts(records, rows)):
                f.write(json.dumps({"id": row["id"], "config": config, "output": rec["output"],
                                    "answer": row["answer"], **verdict}) + "\n")
    return str(path)


def wrong_letter(answer: str) -> str:
    return "B" if answer == "A" else "A"


# ------------------------------------------------------------------------------------------------ features
def test_cells_of_an_order_item_are_the_original_photo(or_items):
    row = or_items[5]
    rows, cols, cells = item_cells(row, OR)
    photo = np.asarray(make_photo(5, (192, 144)), dtype=np.float32)
    assert (rows, cols) == (2, 2)
    assert np.array_equal(np.vstack([np.hstack(cells[:2]), np.hstack(cells[2:])]), photo)


def test_anomaly_cells_undo_the_transform():
    ds = make_dataset("anomaly_detection", 16)
    altered = [i for i in range(16) if json.loads(ds[i]["metadata"])["altered"]]
    assert altered
    for i in altered[:3]:
        k = int(ds[i]["id"].split("/")[1], 16)
        photo = np.asarray(make_photo(k, (192, 144)), dtype=np.float32)
        _, _, cells = item_cells(ds[i], "anomaly_detection")
        assert np.array_equal(np.vstack([np.hstack(cells[:2]), np.hstack(cells[2:])]), photo)


def test_features_see_blur_duplicates_and_answer_position(or_items, or_features):
    row = dict(or_items[0])
    feats = or_features[0]
    assert feats["grid_cells"] == 4 and feats["answer_position"] == 0  # slot 0: reference A
    assert or_features[3]["answer_position"] == 3 and math.isnan(feats["clip_similarity"])
    assert feats["seam_contrast"] > 1 and 0 <= feats["solver_margin"] <= 1 and feats["solver_solved"] in (0, 1)
    from PIL import ImageFilter

    blurred = {**row, "images": [im.filter(ImageFilter.GaussianBlur(3)) for im in row["images"]]}
    assert item_features(blurred, OR)["sharpness"] < feats["sharpness"] / 5
    same = {**row, "images": [row["images"][0]] * 4, "metadata": json.dumps({"order": [1, 2, 3, 4]})}
    assert item_features(same, OR)["near_duplicate"] == pytest.approx(1.0)


# ------------------------------------------------------------------------------------------------ (a) answer bias
@pytest.mark.slow
def test_always_a_is_flagged_and_uniform_guessing_is_not(or_items, tmp_path):
    refs = [or_items[i]["answer"] for i in range(N_ITEMS)]
    assert {r: refs.count(r) for r in "ABCD"} == {r: N_ITEMS // 4 for r in "ABCD"}
    rng = np.random.default_rng(0)
    always = write_run(tmp_path / "always", {OR: or_items}, {OR: ["A"] * N_ITEMS}, model="always-a")
    uniform = write_run(tmp_path / "uniform", {OR: or_items},
                        {OR: [str(x) for x in rng.choice(list("ABCD"), N_ITEMS)]}, model="uniform")
    res = analyze([always, uniform], tmp_path / "out", data={OR: or_items}, progress=False, n_permutations=0)
    a, u = res["bias"]["always-a"][0], res["bias"]["uniform"][0]
    assert a["model_counts"] == [N_ITEMS, 0, 0, 0] and a["reference_counts"] == [24, 24, 24, 24]
    assert a["chi2"] == pytest.approx(3 * N_ITEMS)  # (96 - 24)^2 / 24 + 3 * 24
    assert a["p_value"] < 0.01 and a["flagged"] and a["verdict"].startswith("always A")
    assert u["p_value"] > 0.01 and not u["flagged"]
    md = (tmp_path / "out" / "analysis.md").read_text()
    assert "**always A (100% of answers vs 25% of references)**" in md


def test_a_uniform_guesser_on_unbalanced_references_prefers_no_position():
    refs = ["A"] * 10 + ["B"] * 70 + ["C"] * 10 + ["D"] * 10
    model = list("ABCD" * 25)  # exactly uniform
    res = bias_test(model, refs, "missing_piece_selection_easy")
    assert res["p_value"] < 0.01 and not res["flagged"]  # differs from the references, prefers nothing
    skewed = bias_test(["C"] * 60 + ["B"] * 40, refs, "missing_piece_selection_easy")
    assert skewed["flagged"] and skewed["dominant"] == "C" and skewed["verdict"].startswith("prefers C")
    unreadable = answer_bias([{"config": "anomaly_detection", "status": "invalid", "extracted": None,
                               "answer": spec.format_anomaly()}])[0]
    assert unreadable["n_unreadable"] == 1 and not unreadable["flagged"]


def test_anomaly_bias_counts_the_judgment():
    recs = [{"config": "anomaly_detection", "status": "parsed", "extracted": spec.format_anomaly(),
             "answer": spec.format_anomaly() if k % 2 else spec.format_anomaly("B", "A")} for k in range(40)]
    res = answer_bias(recs)[0]
    assert res["categories"] == ["A", "B"] and res["model_counts"] == [40, 0] and res["reference_counts"] == [20, 20]
    assert res["flagged"] and res["dominant"] == "A"


# ------------------------------------------------------------------------------------------------ (b) error model
@pytest.mark.slow
def test_errors_on_blurry_items_are_predicted_by_sharpness(or_items, or_features, tmp_path):
    sharp = np.array([f["sharpness"] for f in or_features])
    wrong = sharp < np.median(sharp)  # exactly the less sharp half
    outputs = [wrong_letter(or_items[i]["answer"]) if wrong[i] else or_items[i]["answer"] for i in range(N_ITEMS)]
    run = write_run(tmp_path / "blurry", {OR: or_items}, {OR: outputs}, model="blur-sensitive")
    res = analyze([run], tmp_path / "out", data={OR: or_items}, progress=False)["error_model"]["blur-sensitive"]
    assert res["n"] == N_ITEMS and res["n_errors"] == N_ITEMS // 2 and res["folds"] == 5
    assert res["n_permutations"] == 19
    for model in ("logistic", "hgb"):
        r = res["models"][model]
        assert r["auc_mean"] > 0.9, r
        # no shuffle comes near: the smallest p-value 19 shuffles can give, for the AUC and for the feature
        assert r["auc_p"] == pytest.approx(1 / 20) and max(r["auc_null"]) < 0.8, r["auc_null"]
        assert r["top"] == "sharpness" and r["beats_null"][0] == "sharpness", r["importance"]
        sharpness = r["importance"]["sharpness"]
        assert sharpness["p"] == pytest.approx(1 / 20) and sharpness["mean"] > r["importance_threshold"]
    assert "grid_cells" in res["dropped"] and "clip_similarity" in res["dropped"]
    assert (tmp_path / "out" / "error_model_blur-sensitive.png").stat().st_size > 10_000
    md = (tmp_path / "out" / "analysis.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| blur-sensitive | 96 |"))
    assert "`sharpness` (+" in row and "p = 0.05" in row and NO_FINDING not in row
    with open(tmp_path / "out" / "error_model.csv", newline="") as f:
        table = next(csv.DictReader(f))
    assert table["top_logistic"] == table["top_hgb"] == "sharpness" and float(table["auc_logistic_p"]) == 0.05
    again = analyze([run], tmp_path / "out2", data={OR: or_items}, progress=False)["error_model"]["blur-sensitive"]
    assert again["models"] == res["models"]  # seeded folds, permutations and label shuffles


@pytest.mark.slow
def test_errors_independent_of_the_features_give_chance_auc_and_no_finding(or_items, or_features, tmp_path):
    wrong = np.random.default_rng(7).permutation(np.arange(N_ITEMS) % 2).astype(bool)
    outputs = [wrong_letter(or_items[i]["answer"]) if wrong[i] else or_items[i]["answer"] for i in range(N_ITEMS)]
    run = write_run(tmp_path / "coin", {OR: or_items}, {OR: outputs}, model="coin")
    res = analyze([run], tmp_path / "out", data={OR: or_items}, progress=False)["error_model"]["coin"]
    for model in ("logistic", "hgb"):
        r = res["models"][model]
        assert 0.35 <= r["auc_mean"] <= 0.65, r
        assert r["auc_p"] > 0.05 and r["top"] is None and r["beats_null"] == [], r
    md = (tmp_path / "out" / "analysis.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| coin | 96 |"))
    assert row.count(NO_FINDING) == 2 and "`" not in row  # no feature named, by either model
    with open(tmp_path / "out" / "error_model_importance.csv", newline="") as f:
        assert {r["beats_null"] for r in csv.DictReader(f)} == {"0"}
    # one draw of coin-flip errors scatters around 0.5 (sd ~0.07 at 96 items); the mean of eight draws is close
    X, _, columns, _ = design_matrix([{"config": OR, "id": or_items[i]["id"]} for i in range(N_ITEMS)],
                                     lambda rec: or_features[int(rec["id"].split("/")[1], 16)])
    aucs = {"logistic": [], "hgb": []}
    for seed in range(8):
        y = np.random.default_rng(seed).permutation(np.arange(N_ITEMS) % 2)
        for model, r in fit_error_model(X, y, columns, seed=seed, n_repeats=1, n_permutations=0)["models"].items():
            aucs[model].append(r["auc_mean"])
            assert r["auc_p"] is None and r["top"] is None  # no null fitted: nothing named
    for model, values in aucs.items():
        assert 0.42 <= np.mean(values) <= 0.58, (model, values)


@pytest.fixture(scope="module")
def random_guesser(or_items, tmp_path_factory):
    """`eval --model random`'s answers on Order Restoration and Order Generation, analysed."""
    from jigsaw_puzzles.baselines import random_answer

    tmp = tmp_path_factory.mktemp("random_guesser")
    data = {OR: or_items, OG: make_dataset(OG, N_ITEMS)}
    outputs = {c: [random_answer(ds[i], c, seed=3) for i in range(N_ITEMS)] for c, ds in data.items()}
    run = write_run(tmp / "random", data, outputs, model="random")
    return analyze([run], tmp / "out", data=data, progress=False)["error_model"]["random"], tmp / "out"


def test_a_random_guesser_names_no_feature(random_guesser):
    """~0.7 held-out AUC, all of it the tasks' different chance levels (1/4 and 1/24). The null keeps each task's
    error rate (labels shuffled within config), so it is as high, and no feature is credited."""
    res, out = random_guesser
    for model in ("logistic", "hgb"):
        r = res["models"][model]
        assert r["auc_mean"] > 0.65 and r["auc_null_mean"] > 0.6, r  # the tasks' chance levels, in the null too
        assert r["auc_p"] > 0.05 and r["top"] is None and r["beats_null"] == [], r["importance"]
    md = (out / "analysis.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| random | 192 |"))
    assert row.count(NO_FINDING) == 2 and "`" not in row
    with open(out / "error_model.csv", newline="") as f:
        table = next(csv.DictReader(f))
    assert table["top_logistic"] == table["top_hgb"] == NO_FINDING


@pytest.mark.slow
def test_a_null_shuffled_across_tasks_would_credit_the_task(random_guesser, monkeypatch):
    """Why the labels are shuffled within config: the same items and errors against a null shuffled across tasks
    "find" `answer_position`, which is missing for Order Generation items and so encodes the task."""
    from jigsaw_puzzles.analysis import error_model

    with open(random_guesser[1] / "items.csv", newline="") as f:
        records = list(csv.DictReader(f))
    X, y, columns, _ = design_matrix(
        [{**r, "correct": r["correct"] == "1"} for r in records],
        lambda r: {k: float(r[k]) if r[k] else math.nan for k in error_model.NAMES})
    monkeypatch.setattr(error_model, "config_groups", lambda X, columns: np.zeros(len(X), dtype=int))
    assert fit_error_model(X, y, columns, models=("hgb",))["models"]["hgb"]["top"] == "answer_position"


@pytest.mark.filterwarnings("ignore:The groups parameter is ignored")
def test_the_null_is_permutation_test_score_within_configs():
    """The AUC's null is scikit-learn's permutation_test_score (groups = config, same seed) and the held-out
    importances are sklearn's permutation_importance, computed in one batch."""
    from sklearn.inspection import permutation_importance
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, permutation_test_score

    from jigsaw_puzzles.analysis.error_model import _make, config_groups, held_out_importance, shuffled_labels

    rng = np.random.default_rng(1)
    config = np.repeat([0, 1, 2], 30)
    X = np.column_stack([rng.normal(size=(90, 2)), np.eye(3)[config]])
    y = (rng.random(90) < np.array([0.2, 0.5, 0.8])[config]).astype(int)
    columns = ["f0", "f1", "config=a", "config=b", "config=c"]
    assert np.array_equal(config_groups(X, columns), config)
    for yp in shuffled_labels(y, config, 0, 5):  # each config keeps its error count
        assert [int(yp[config == g].sum()) for g in range(3)] == [int(y[config == g].sum()) for g in range(3)]
    res = fit_error_model(X, y, columns, seed=4, n_repeats=2, models=("logistic",))["models"]["logistic"]
    score, null, p = permutation_test_score(_make("logistic", 4), X, y, groups=config, scoring="roc_auc",
                                            cv=StratifiedKFold(5, shuffle=True, random_state=4), n_permutations=19,
                                            random_state=4)
    assert res["auc_mean"] == pytest.approx(score) and res["auc_p"] == pytest.approx(p)
    assert np.allclose(res["auc_null"], null)
    assert set(res["importance"]) == set(columns) and res["importance"]["config=a"]["p"] is None  # covariates
    for model in ("logistic", "hgb"):
        est = _make(model, 0).fit(X[:60], y[:60])
        auc, imp = held_out_importance(est, X[60:], y[60:], 3, 11)
        ref = permutation_importance(est, X[60:], y[60:], scoring="roc_auc", n_repeats=3, random_state=11)
        assert np.allclose(imp, ref.importances)
        assert auc == pytest.approx(roc_auc_score(y[60:], est.predict_proba(X[60:])[:, 1]))


def test_fewer_than_19_shuffles_are_refused(or_items, tmp_path, capsys):
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(UserError, match="at least 19"):
        fit_error_model(X, np.arange(30) % 2, ["a", "b", "c"], n_permutations=5)
    run = write_run(tmp_path / "r", {OR: or_items}, {OR: ["A"] * 24})
    assert main(["analyze", run, "--out", str(tmp_path / "out"), "--permutations", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "5 shuffles cannot give a p-value <= 0.05" in err
    assert not (tmp_path / "out").exists()  # refused before anything is read or written


def test_small_or_one_class_runs_are_skipped_with_a_reason():
    X = np.random.default_rng(0).normal(size=(30, 3))
    assert fit_error_model(X[:10], np.arange(10) % 2, ["a", "b", "c"])["skipped"] == "10 items with features (< 20)"
    assert fit_error_model(X, np.zeros(30, int), ["a", "b", "c"])["skipped"] == "one class only: no error"
    assert "smaller class" in fit_error_model(X, (np.arange(30) == 0).astype(int), ["a", "b", "c"])["skipped"]


# ------------------------------------------------------------------------------------------------ (c) self-correction
def test_stated_orders_are_read_as_lists_only():
    assert stated_orders("first [2, 3, 1, 4], then (4 3 2 1) and 1,2,4,3.") == [(2, 3, 1, 4), (4, 3, 2, 1),
                                                                              (1, 2, 4, 3)]
    assert stated_orders("[1, 2, 3, 4, 5] or 1, 2, 3 or [1, 1, 2, 3] or 12, 3, 4, 1 or 2 3 1 4") == []


def test_self_correction_is_counted_exactly(or_items, tmp_path):
    outputs, expected = [], 0
    for i in range(12):
        row = or_items[i]
        offered = {tuple(int(x) for x in o.strip("[]").split(",")) for o in row["options"]}
        free = next(p for p in permutations((1, 2, 3, 4)) if p not in offered)
        own = "[" + ", ".join(map(str, free)) + "]"
        right, wrong = row["answer"], wrong_letter(row["answer"])
        case = i % 4
        if case == 0:  # a free order, then the right letter: self-corrected
            outputs.append(f"My first guess is {own}, which is not among the options. I re-checked the seams. "
                           f"The answer is {right}.")  # the answer's statement in the reader's words
            expected += 1
        elif case == 1:  # a free order as a bare comma list, the right letter: self-corrected
            outputs.append(f"I see the order {own.strip('[]')} but it is not offered.\nAnswer: {right}")
            expected += 1
        elif case == 2:  # a free order and a wrong letter: not corrected
            outputs.append(f"It should be {own}; none fits, so I pick {wrong}.\nAnswer: {wrong}")
        else:  # only an offered order, the right letter: no free order
            outputs.append(f"Option {right} is {row['options']['ABCD'.index(right)]}.\nAnswer: {right}")
    run = write_run(tmp_path / "thinker", {OR: or_items}, {OR: outputs}, model="thinker")
    res = analyze([run], tmp_path / "out", data={OR: or_items}, progress=False, n_permutations=0)
    sc = res["paper"]["thinker"]["self_correction"]
    assert (sc["n"], sc["n_free_order"], sc["n_self_corrected"], sc["n_correct"]) == (12, 9, expected, 9)
    assert expected == 6
    assert len((tmp_path / "out" / "self_correction.csv").read_text().splitlines()) == 1 + expected
    assert self_correction([{"config": "anomaly_detection", "id": "x"}], lambda i: []) is None


def test_order_items_are_paired_by_photo():
    from jigsaw_puzzles.analysis.paper import paired_orders

    pattern = {"s1": (True, True), "s2": (True, False), "s3": (True, False), "s4": (False, True), "s5": (False, False)}
    recs = [{"config": c, "id": f"{c}/{s}", "correct": ok[k]} for s, ok in pattern.items()
            for k, c in enumerate((OR, "order_generation"))]
    recs.append({"config": OR, "id": f"{OR}/s6", "correct": True})  # no OG partner: not paired
    assert paired_orders(recs) == {"n_pairs": 5, "both": 1, "or_only": 2, "og_only": 1, "neither": 1}
    assert paired_orders([r for r in recs if r["config"] == OR]) is None


def test_paper_figures_reuse_the_report(tmp_path):
    from jigsaw_puzzles.analysis.paper import paper_figures
    from jigsaw_puzzles.reporting.report import RunSummary

    accs = [(30.0, 5.0, 40.0), (50.0, 10.0, 45.0), (80.0, 35.0, 70.0), (60.0, 20.0, 42.0)]
    runs = [RunSummary(path=tmp_path, name=f"m{k}", model=f"m{k}", backend=None, split="test",
                       parameters=[1e9, 7e9, 7.2e10, None][k],
                       metrics={OR: {"accuracy": a}, "order_generation": {"accuracy": b},
                                "anomaly_detection": {"accuracy": c}}) for k, (a, b, c) in enumerate(accs)]
    files, notes = paper_figures(runs, tmp_path)
    assert set(files) == {"task_correlation", "task_correlation_csv", "accuracy_vs_params", "or_vs_og"} and not notes
    with open(files["task_correlation_csv"], newline="") as f:
        table = list(csv.reader(f))
    assert table[0] == ["", "AD", "OR", "OG"]
    expected = np.corrcoef(np.array(accs)[:, [2, 0, 1]], rowvar=False)
    assert np.allclose([[float(v) for v in row[1:]] for row in table[1:]], expected, atol=1e-4)
    (tmp_path / "one").mkdir()
    files, notes = paper_figures(runs[:1], tmp_path / "one")
    assert set(files) == {"accuracy_vs_params", "or_vs_og"} and "Fig. 5" in notes[0]


def test_task_correlation_needs_three_distinct_runs(tmp_path):
    """Three runs, two of them the same predictions: two points, every r = +-1. Refused, with the reason; a
    repeated run among four is counted once."""
    from jigsaw_puzzles.analysis.paper import paper_figures
    from jigsaw_puzzles.reporting.report import RunSummary

    def summary(name, accs):
        return RunSummary(path=tmp_path, name=name, model=name, backend=None, split="test", parameters=None,
                          metrics={c: {"accuracy": a} for c, a in zip((OR, OG, "anomaly_detection"), accs)})

    a, b, b2, c = (summary("a", (30.0, 5.0, 40.0)), summary("b", (50.0, 10.0, 45.0)),
                   summary("b-again", (50.0, 10.0, 45.0)), summary("c", (80.0, 35.0, 70.0)))
    (tmp_path / "three").mkdir()
    files, notes = paper_figures([a, b, b2], tmp_path / "three")
    assert "task_correlation" not in files and not (tmp_path / "three" / "task_correlation.png").exists()
    assert not (tmp_path / "three" / "task_correlation.csv").exists()
    note = next(n for n in notes if "Fig. 5" in n)
    assert "3 runs but only 2 distinct" in note and "b-again has the same accuracy on every task as b" in note
    (tmp_path / "four").mkdir()
    files, notes = paper_figures([a, b, b2, c], tmp_path / "four")
    assert "task_correlation" in files
    with open(files["task_correlation_csv"], newline="") as f:
        table = list(csv.reader(f))
    expected = np.corrcoef(np.array([[40.0, 30.0, 5.0], [45.0, 50.0, 10.0], [70.0, 80.0, 35.0]]), rowvar=False)
    assert np.allclose([[float(v) for v in row[1:]] for row in table[1:]], expected, atol=1e-4)  # b once
    assert any("over the 3 distinct runs" in n and "b-again" in n for n in notes)


# ------------------------------------------------------------------------------------------------ checks and errors
def test_items_that_differ_from_the_run_are_refused(or_items, tmp_path):
    run = write_run(tmp_path / "r", {OR: or_items}, {OR: ["A"] * 20}, fingerprints={OR: "0123456789abcdef"})
    with pytest.raises(UserError, match="fingerprint 0123456789abcdef"):
        analyze([run], tmp_path / "out", data={OR: or_items}, progress=False)


def test_a_run_s_recorded_answer_plan_rebuilds_its_items(tmp_path, photo_dir, cache_dir):
    """#44 4: `analyze --help` said run.json does not record the answer plan; it does, and analyze now uses it (a
    `stable` run was refused as "items differ" unless --answer-plan stable was given)."""
    run = tmp_path / "stable"
    evaluate_model("random", configs=[OR], source=photo_dir, out=str(run), progress=False,
                   dataset_kwargs={"answer_plan": "stable", "cache_dir": cache_dir})
    assert json.loads((run / "run.json").read_text())["items"]["configs"][OR]["answer_plan"] == "stable"
    res = analyze([str(run)], tmp_path / "out", dataset_kwargs={"cache_dir": cache_dir}, progress=False,
                  n_permutations=0)
    assert res["error_model"]["random"]["n"] == 16


def test_items_from_an_export_folder(or_items, tmp_path):
    from jigsaw_puzzles.publishing.export import write_parquet

    folder = tmp_path / "export"
    write_parquet(or_items, folder / OR / "test-00000-of-00001.parquet")
    (folder / "README.md").write_text("---\nconfigs:\n- config_name: order_restoration\n  data_files:\n"
                                      "  - split: test\n    path: order_restoration/test-*.parquet\n---\n")
    run = write_run(tmp_path / "r", {OR: or_items}, {OR: ["A"] * 24})
    res = analyze([run], tmp_path / "out", from_export=folder, dataset_kwargs={"cache_dir": str(tmp_path / "hf")},
                  progress=False, n_permutations=0)
    assert res["error_model"]["model"]["n"] == 24 and not any("unchecked" in n for n in res["notes"])
    other = RunDir(tmp_path / "g")
    other.write_run({"model": "m", "split": "test", "seed": 0})
    other.predictions.write_text(json.dumps({"id": "order_generation/0", "config": "order_generation",
                                             "output": "[1, 2, 3, 4]", "answer": "[1, 2, 3, 4]"}) + "\n")
    with pytest.raises(UserError, match="holds no order_generation"):
        analyze([str(other.path)], tmp_path / "out2", from_export=folder, progress=False)


def test_cli_errors_are_one_line(tmp_path, capsys, monkeypatch, or_items):
    assert main(["analyze", str(tmp_path / "nope"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no such run directory" in err
    run = write_run(tmp_path / "r", {OR: or_items}, {OR: ["A"] * 4})
    monkeypatch.setitem(sys.modules, "sklearn", None)  # the [analysis] extra is missing
    assert main(["analyze", run, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and 'pip install -e ".[analysis]"' in err


# ------------------------------------------------------------------------------------------------ (d) end to end
@pytest.mark.slow
def test_cli_on_two_baseline_runs(tmp_path, capsys, monkeypatch, photo_dir, cache_dir):
    configs = [OR, "order_generation", "connection_verification", "anomaly_detection"]
    runs = []
    for model in ("random", "solver"):
        evaluate_model(model, configs=configs, source=photo_dir, max_items=8, out=str(tmp_path / model),
                       progress=False, dataset_kwargs={"cache_dir": cache_dir})
        runs.append(str(tmp_path / model))
    out = tmp_path / "analysis"
    argv = ["analyze", *runs, "--out", str(out), "--cache-dir", cache_dir, "--params", "solver=1M"]
    assert main(argv) == 0
    assert "wrote" in capsys.readouterr().out
    for name in ("analysis.md", "items.csv", "error_model.csv", "error_model_importance.csv", "answer_bias.csv",
                 "paper.csv", "self_correction.csv", "answer_bias.png", "or_vs_og.png", "accuracy_vs_params.png",
                 "error_model_random.png"):
        assert (out / name).stat().st_size > 0, name
    md = (out / "analysis.md").read_text()
    assert "| random |" in md and "| solver |" in md and "![answer bias](answer_bias.png)" in md
    with open(out / "items.csv", newline="") as f:
        items_csv = list(csv.DictReader(f))
    assert len(items_csv) == 2 * 8 * len(configs) == len((out / "items.csv").read_text().splitlines()) - 1
    assert {r["run"] for r in items_csv} == {"random", "solver"} and all(r["sharpness"] for r in items_csv)
    assert sorted(p.name.split("-")[0] for p in (out / "features").iterdir()) == sorted(configs)
    # the second analysis reads the cached features: nothing is rebuilt
    from jigsaw_puzzles.analysis import items

    monkeypatch.setattr(items, "build_dataset", lambda *a, **k: pytest.fail("rebuilt despite the cache"))
    assert main(argv[:3] + ["--out", str(tmp_path / "again"), "--features-dir", str(out / "features")]) == 0
    # a run whose recorded fingerprint differs from the rebuilt items is refused in one line
    monkeypatch.undo()
    run_json = RunDir(runs[0]).read_run()
    run_json["dataset"]["fingerprints"][OR] = "ffffffffffffffff"
    RunDir(runs[0]).write_run(run_json)
    capsys.readouterr()
    assert main(["analyze", runs[0], "--out", str(tmp_path / "bad"), "--cache-dir", cache_dir]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "ffffffffffffffff" in err
