"""Tests for jigsaw_puzzles.report (table, CSV, Markdown, plots) on hand-made run directories."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.inference import RunDir
from jigsaw_puzzles.report import COLUMNS, LABELS, TABLE_CONFIGS, load_runs, make_report, parse_params, table_rows
from jigsaw_puzzles.scoring import score

CONFIGS = list(TABLE_CONFIGS) + ["order_generation"]
REF = {"missing_piece_selection_easy": "A", "missing_piece_selection_hard": "B", "piece_localization_easy": "A",
       "piece_localization_hard": "C", "connection_verification": "B", "order_restoration": "D",
       "anomaly_detection": "Judgment: A\nError Position:\nError Type:", "order_generation": "[2, 3, 1, 4]"}


def write_run(path, model, accs: dict, n=20, params=None, split="lite", skipped=None, **results):
    """A run dir whose per-config accuracy is accs[config] (% of n items right), scored by the real metric,
    written through RunDir (the one owner of the run directory's layout)."""
    preds, refs, cfgs = [], [], []
    for c, a in accs.items():
        k = round(a * n / 100)
        for i in range(n):
            refs.append(REF[c])
            cfgs.append(c)
            preds.append(REF[c] if i < k else "no idea")
    metrics = score(preds, refs, cfgs)
    rundir = RunDir(path)
    rundir.write_run({"model": model, "backend": "transformers", "split": split, "parameters": params})
    rundir.write_results({"model": model, "backend": "transformers", "split": split, "metrics": metrics,
                          "skipped": skipped or {}, "complete": True, **results})
    return path


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(0)
    out = []
    for k, (name, params) in enumerate([("Small-1B", 1e9), ("Mid-7B", 7e9), ("Big-72B", None), ("Other", None)]):
        accs = {c: float(min(100, 5 * round(rng.uniform(20, 60) / 5) + 10 * k)) for c in CONFIGS}
        out.append(write_run(tmp_path / f"run{k}", name, accs, params=params))
    return out


def test_table_rows_follow_the_paper_columns(runs):
    loaded = load_runs(runs)
    rows = table_rows(loaded)
    assert [r["name"] for r in rows[:2]] == ["Random Guessing", "↑ Random (p < 0.05)"]
    rnd = rows[0]
    assert rnd["missing_piece_selection_easy"] == pytest.approx(25)
    assert rnd["piece_localization_easy"] == pytest.approx(50)
    assert rnd["connection_verification"] == pytest.approx(100 / 3)
    assert rnd["order_generation"] == pytest.approx(100 / 24)
    crit = rows[1]
    assert all(crit[c] > rnd[c] for c in TABLE_CONFIGS)
    assert rows[2]["name"] == "Constant answer (best)"
    run = rows[3]
    assert run["name"] == "Small-1B"
    assert run["overall"] == pytest.approx(np.mean([run[c] for c in TABLE_CONFIGS]))  # Table 2's Overall


def test_report_writes_markdown_csv_and_plots(runs, tmp_path, capsys):
    out = tmp_path / "report"
    res = make_report(runs, out=out, params={"Big-72B": "72B"})
    printed = capsys.readouterr().out
    header = "| Model | " + " | ".join(LABELS[c] for c in COLUMNS) + " |"
    assert header in printed and header in (out / "report.md").read_text()
    assert "| Mid-7B |" in printed
    with open(out / "report.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["name"] for r in rows] == ["Random Guessing", "↑ Random (p < 0.05)", "Constant answer (best)",
                                         "Small-1B", "Mid-7B", "Big-72B", "Other"]
    assert float(rows[5]["parameters"]) == 72e9 and float(rows[0]["MPS Easy"]) == 25.0
    for kind in ("task_bars", "task_correlation", "accuracy_vs_params"):
        p = out / f"{kind}.png"
        assert p.exists() and p.read_bytes()[:4] == b"\x89PNG", kind
    with open(out / "task_correlation.csv") as f:
        corr = list(csv.reader(f))
    assert corr[0][1:] == ["MPS_e", "MPS_h", "PL_e", "PL_h", "CV", "AD", "OR", "OG"]
    assert float(corr[1][1]) == pytest.approx(1.0)
    assert set(res["files"]) >= {"markdown", "csv", "task_bars", "task_correlation", "accuracy_vs_params"}


def test_correlation_matches_numpy_pearson(runs):
    from jigsaw_puzzles.report import task_correlation

    loaded = load_runs(runs)
    tasks, corr = task_correlation(loaded)
    a = [r.acc("missing_piece_selection_easy") for r in loaded]
    b = [r.acc("order_restoration") for r in loaded]
    i, j = tasks.index("missing_piece_selection_easy"), tasks.index("order_restoration")
    assert corr[i, j] == pytest.approx(np.corrcoef(a, b)[0, 1])


def test_few_runs_skip_heatmap_and_mixed_splits_get_own_baselines(tmp_path):
    a = write_run(tmp_path / "a", "A", {c: 50.0 for c in CONFIGS}, split="lite")
    b = write_run(tmp_path / "b", "B", {c: 60.0 for c in CONFIGS}, n=40, split="test")
    res = make_report([a, b], out=tmp_path / "rep", stream=None)
    assert "task_correlation" not in res["files"] and any("3 runs" in n for n in res["notes"])
    assert "accuracy_vs_params" not in res["files"]
    names = [r["name"] for r in res["rows"]]
    assert "Random Guessing [lite]" in names and "Random Guessing [test]" in names


def test_skipped_and_partial_runs_are_marked(tmp_path):
    accs = {c: 40.0 for c in CONFIGS if c != "missing_piece_selection_hard"}
    p = write_run(tmp_path / "a", "A", accs, skipped={"missing_piece_selection_hard": {
        "reason": "ClipWeightsUnavailable: offline", "enable": "cache the CLIP weights"}})
    md = make_report([p], out=None, stream=None)["markdown"]
    row = next(line for line in md.splitlines() if line.startswith("| A |"))
    assert "skipped" in row and "40.00†" in row
    assert "over 6 of 7 tasks" in md and "skipped in " + str(p) + ": ClipWeightsUnavailable." in md
    assert "cache the CLIP weights" not in md and str(p / "results.json") in md  # details once, in results.json


def test_duplicate_model_names_are_disambiguated(tmp_path):
    a = write_run(tmp_path / "x1", "M", {c: 30.0 for c in CONFIGS})
    b = write_run(tmp_path / "x2", "M", {c: 35.0 for c in CONFIGS})
    assert [r.name for r in load_runs([a, b])] == ["M (x1)", "M (x2)"]
    with pytest.raises(UsageError, match="no run named 'nope'"):
        load_runs([a], params={"nope": "7B"})


def test_an_incomplete_run_says_how_many_items_errored(tmp_path):
    p = write_run(tmp_path / "a", "A", {c: 40.0 for c in CONFIGS}, complete=False, n_missing=3, n_errors=2)
    res = make_report([p], out=tmp_path / "rep", stream=None, plots=False)
    assert "| A (incomplete: 3 items unanswered, 2 errored) |" in res["markdown"]
    with open(tmp_path / "rep" / "report.csv") as f:
        row = [r for r in csv.DictReader(f) if r["name"] == "A"][0]
    assert (row["complete"], row["n_missing"], row["n_errors"]) == ("False", "3", "2")


@pytest.mark.parametrize("text,value", [("7B", 7e9), ("500M", 5e8), ("7e9", 7e9), ("72b", 72e9), (3, 3.0)])
def test_parse_params(text, value):
    assert parse_params(text) == pytest.approx(value)
