"""Tests for jigsaw_puzzles.reporting.report (table, CSV, Markdown, plots) on hand-made run directories."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.inference import RunDir
from jigsaw_puzzles.reporting.report import COLUMNS, LABELS, TABLE_CONFIGS, load_runs, make_report, parse_params, table_rows
from fixtures.runs import write_records_run

CONFIGS = list(TABLE_CONFIGS) + ["order_generation"]
REF = {"missing_piece_selection_easy": "A", "missing_piece_selection_hard": "B", "piece_localization_easy": "A",
       "piece_localization_hard": "C", "connection_verification": "B", "order_restoration": "D",
       "anomaly_detection": "Judgment: A\nError Position:\nError Type:", "order_generation": "[2, 3, 1, 4]"}


def write_run(path, model, accs: dict, n=20, params=None, split="lite", skipped=None, fingerprint="f0",
              refs_of=None, wrong="no idea", missing=0, errored=0, finishes=None, status="complete"):
    """A run dir whose per-config accuracy is accs[config] (% of n items right): records judged by the real reader
    (:func:`fixtures.runs.write_records_run`). ``refs_of(config, i)`` gives the i-th reference (default: REF[config]
    for every item); ``fingerprint`` is the datasets' fingerprint in run.json; ``missing`` rows of the first config
    were asked and not answered, ``errored`` of them ended in an error; ``finishes`` = config -> finish per item."""
    records, errors, asked = [], [], {}
    for c, a in accs.items():
        k = round(a * n / 100)
        for i in range(n):
            ref = refs_of(c, i) if refs_of else REF[c]
            finish = (finishes or {}).get(c, [None] * n)[i]
            records.append({"id": f"{c}/{i:04x}", "config": c, "output": ref if i < k else wrong, "answer": ref,
                            "finish": finish})
        asked[c] = n
    if missing:
        c = next(iter(accs))
        asked[c] += missing
        errors = [{"id": f"{c}/{n + i:04x}", "config": c, "answer": REF[c]} for i in range(errored)]
    return write_records_run(path, model, records, split=split, fingerprint=fingerprint, asked=asked,
                             status=status, skipped=skipped, params=params, errored=errors)


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
    from jigsaw_puzzles.reporting.report import task_correlation

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
    assert "A [lite]" in names and "B [test]" in names  # #44 3.5: each run's row says its split too
    assert "| A [lite] |" in res["markdown"] and "| B [test] |" in res["markdown"]
    one = make_report([a], out=None, stream=None)  # one set of items: no tag
    assert [r["name"] for r in one["rows"] if r["kind"] == "run"] == ["A"]


def test_skipped_and_partial_runs_are_marked(tmp_path):
    accs = {c: 40.0 for c in CONFIGS if c != "missing_piece_selection_hard"}
    p = write_run(tmp_path / "a", "A", accs, skipped={"missing_piece_selection_hard": {
        "reason": "ClipWeightsUnavailable: offline", "enable": "cache the CLIP weights"}})
    md = make_report([p], out=None, stream=None)["markdown"]
    row = next(line for line in md.splitlines() if line.startswith("| A |"))
    assert "skipped" in row and "40.00†" in row
    assert "over 6 of 7 tasks" in md and "skipped in " + str(p) + ": ClipWeightsUnavailable." in md
    assert "cache the CLIP weights" not in md and str(p / "results.json") in md  # details once, in results.json


def test_a_config_listed_as_skipped_but_answered_is_one_list_with_overall(tmp_path):
    """#44 1.2: MPS (hard) listed as skipped in results.json yet answered by the records: the cell said "skipped"
    while Overall (no dagger) counted it. What the table shows and what Overall averages are one list."""
    accs = {c: 40.0 for c in CONFIGS}
    accs["missing_piece_selection_hard"] = 100.0
    p = write_run(tmp_path / "a", "A", accs, skipped={"missing_piece_selection_hard": {"reason": "offline"}})
    rep = make_report([p], out=None, stream=None)
    row = next(r for r in rep["rows"] if r["name"] == "A")
    shown = [row[c] for c in TABLE_CONFIGS]
    assert all(isinstance(v, float) for v in shown)  # the records answer it: its figure, not "skipped"
    assert row["overall"] == pytest.approx(np.mean(shown))
    assert "missing_piece_selection_hard is listed as skipped (offline), but its records answer 20" in rep["markdown"]
    run = load_runs([p])[0]  # a summary that lists a config as skipped averages only what it shows
    run.skipped = {"missing_piece_selection_hard": {"reason": "offline"}}
    row = next(r for r in table_rows([run]) if r["name"] == "A")
    assert row["missing_piece_selection_hard"] == "skipped"
    assert row["overall"] == pytest.approx(np.mean([row[c] for c in TABLE_CONFIGS if c != "missing_piece_selection_hard"]))
    assert row["overall_note"] == "over 6 of 7 tasks"


def test_duplicate_model_names_are_disambiguated(tmp_path):
    a = write_run(tmp_path / "x1", "M", {c: 30.0 for c in CONFIGS})
    b = write_run(tmp_path / "x2", "M", {c: 35.0 for c in CONFIGS})
    assert [r.name for r in load_runs([a, b])] == ["M (x1)", "M (x2)"]
    with pytest.raises(UsageError, match="no run named 'nope'"):
        load_runs([a], params={"nope": "7B"})


def test_an_incomplete_run_says_how_many_items_errored(tmp_path):
    p = write_run(tmp_path / "a", "A", {c: 40.0 for c in CONFIGS}, missing=3, errored=2)
    res = make_report([p], out=tmp_path / "rep", stream=None, plots=False)
    assert "| A (incomplete: 3 items unanswered, 2 errored) |" in res["markdown"]
    with open(tmp_path / "rep" / "report.csv") as f:
        row = [r for r in csv.DictReader(f) if r["name"] == "A"][0]
    assert (row["complete"], row["n_missing"], row["n_errors"]) == ("False", "3", "2")


@pytest.mark.parametrize("text,value", [("7B", 7e9), ("500M", 5e8), ("7e9", 7e9), ("72b", 72e9), (3, 3.0)])
def test_parse_params(text, value):
    assert parse_params(text) == pytest.approx(value)


# ------------------------------------------------------------------ issues #20.11, #21.5-21.11, #22.3 (the report)
def _report(tmp_path, capsys, *args):
    from jigsaw_puzzles.cli import main

    code = main(["report", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_folder_without_results_is_listed_as_not_run_and_the_rest_reported(tmp_path, capsys):
    good = write_run(tmp_path / "good", "Good", {c: 40.0 for c in CONFIGS})
    failed = tmp_path / "failed"
    RunDir(failed).write_run({"model": "x", "status": "interrupted"})  # a failed start: run.json only
    code, out, err = _report(tmp_path, capsys, good, failed, "--out", tmp_path / "rep", "--no-plots")
    assert code == 0, err
    assert f"Not in the table: {failed}: not run (no results.json; run.json says 'interrupted')" in out
    assert "| Good |" in (tmp_path / "rep" / "report.md").read_text()
    code, out, err = _report(tmp_path, capsys, failed, "--out", tmp_path / "rep2")
    assert code == 2 and "nothing to report" in err and "Traceback" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("field,value,why", [
    ("accuracy", 250.0, "it says order_restoration accuracy 250.00, its records give 40.00"),
    ("accuracy", float("nan"), "it says order_restoration accuracy nan, its records give 40.00"),
    ("accuracy", "40", "it says order_restoration accuracy '40', its records give 40.00"),
    ("n", -3, "it says order_restoration n -3, its records give 20"),
    ("correct", 19, "it says order_restoration correct 19, its records give 8"),
    ("invalid_rate", 130.0, "it says order_restoration invalid_rate 130.00, its records give 60.00"),
])
def test_results_that_disagree_with_the_records_leave_the_run_out_saying_why(tmp_path, capsys, field, value, why):
    import json

    good = write_run(tmp_path / "good", "Good", {c: 40.0 for c in CONFIGS})
    p = write_run(tmp_path / "a", "A", {c: 40.0 for c in CONFIGS})
    res = json.loads((p / "results.json").read_text())
    res["metrics"]["order_restoration"][field] = value
    (p / "results.json").write_text(json.dumps(res))
    code, out, err = _report(tmp_path, capsys, good, p, "--out", tmp_path / "rep", "--no-plots")
    assert code == 0, err
    assert not any(line.startswith("| A |") for line in out.splitlines())  # left out, not shown with a hole
    line = next(line for line in out.splitlines() if line.startswith(f"Not in the table: {p / 'results.json'}"))
    assert f"does not match the run's records: {why};" in line


@pytest.mark.parametrize("corrupt,why", [({"metrics": [1, 2]}, "'metrics' is a list, not an object"),
                                         ({"complete": "yes"}, "'complete' is 'yes', not true or false"),
                                         ({"n_missing": "many"}, "'n_missing' is 'many', not a count"),
                                         ({"skipped": ["x"]}, "'skipped' is a list, not an object")])
def test_a_type_corrupted_results_file_is_one_line_not_a_traceback(tmp_path, capsys, corrupt, why):
    import json

    good = write_run(tmp_path / "good", "Good", {c: 40.0 for c in CONFIGS})
    bad = write_run(tmp_path / "bad", "Bad", {c: 40.0 for c in CONFIGS})
    res = json.loads((bad / "results.json").read_text())
    (bad / "results.json").write_text(json.dumps({**res, **corrupt}))
    code, out, err = _report(tmp_path, capsys, good, bad, "--out", tmp_path / "rep", "--no-plots")
    assert code == 0 and f"Not in the table: {bad / 'results.json'}: {why}" in out
    code, out, err = _report(tmp_path, capsys, bad, "--out", tmp_path / "rep2", "--no-plots")
    assert code == 2 and why in err and "Traceback" not in err


def test_a_participant_without_results_is_named_not_silently_dropped(tmp_path, capsys):

    root = tmp_path / "human"
    root.mkdir()
    (root / "human.json").write_text("{}")
    people = root / "participants"
    for pid in ("p01", "p02"):
        write_run(people / pid, f"Human ({pid})", {c: 40.0 for c in CONFIGS})
    (people / "p02" / "results.json").unlink()
    code, out, err = _report(tmp_path, capsys, root, "--out", tmp_path / "rep", "--no-plots")
    assert code == 0, err
    assert f"{people / 'p02'}: answers but no results.json" in out and "left out of the Human rows" in out
    assert "| Human (p01) |" in out and "| Human |" in out


def test_unreadable_answers_are_shown_with_n_and_invalid_rate_and_flagged(tmp_path, capsys):

    p = write_run(tmp_path / "a", "A", {c: (0.0 if c in ("order_restoration", "anomaly_detection") else 60.0)
                                        for c in CONFIGS}, n=13,
                  finishes={"order_restoration": ["truncated"] * 4 + ["empty"] * 2 + [None] * 7})
    code, out, err = _report(tmp_path, capsys, p, "--out", tmp_path / "rep", "--no-plots")
    md = (tmp_path / "rep" / "report.md").read_text()
    for text in (out, md):
        row = next(line for line in text.splitlines() if line.startswith("| A |"))
        assert row.count("0.00‡") == 2  # OR and AD: every answer unreadable
        answers = next(line for line in text.splitlines() if line.startswith("| A |") and "·" in line)
        assert "13 · 100% (4 truncated, 2 empty) ‡" in answers and "13 · 38%" in answers
        assert "‡ More than 50% of the answers could not be read" in text
    with open(tmp_path / "rep" / "report.csv") as f:
        row = [r for r in csv.DictReader(f) if r["name"] == "A"][0]
    assert (row["OR n"], row["OR invalid_rate"], row["OR truncated"], row["OR empty"]) == ("13", "100.0000", "4", "2")


def test_baseline_rows_come_from_the_items_whatever_the_order(tmp_path):
    full = write_run(tmp_path / "full", "Full", {c: 40.0 for c in CONFIGS})
    part = write_run(tmp_path / "part", "Part", {"order_restoration": 40.0}, n=3, missing=137)
    rows_a = table_rows(load_runs([part, full]))
    rows_b = table_rows(load_runs([full, part]))
    base = [r for r in rows_a if r["kind"] == "baseline"]
    assert base == [r for r in rows_b if r["kind"] == "baseline"]
    crit = base[1]
    assert crit["order_restoration"] < 50 and "overall_note" not in crit  # n = 20 items, not the 3 of "Part"
    assert not any(r.get(c) is not None and r[c] != r[c] for r in base for c in COLUMNS)  # no NaN


def test_runs_over_different_items_get_their_own_baseline_rows(tmp_path):
    a = write_run(tmp_path / "a", "A", {c: 40.0 for c in CONFIGS}, fingerprint="f0")
    b = write_run(tmp_path / "b", "B", {c: 40.0 for c in CONFIGS}, fingerprint="f1")
    c = write_run(tmp_path / "c", "C", {c: 40.0 for c in CONFIGS}, fingerprint="f0")
    names = [r["name"] for r in table_rows(load_runs([a, b, c])) if r["kind"] == "baseline"]
    assert names == ["Random Guessing [lite, items #1]", "↑ Random (p < 0.05) [lite, items #1]",
                     "Constant answer (best) [lite, items #1]", "Random Guessing [lite, items #2]",
                     "↑ Random (p < 0.05) [lite, items #2]", "Constant answer (best) [lite, items #2]"]


def test_the_constant_answer_row_is_what_a_constant_model_scores(tmp_path):
    """A stub model that always answers "B" scores exactly the Constant answer row where B is the best constant."""
    letters = "BBBACBBDBA" * 2  # B: 12 of 20

    def refs_of(c, i):
        return letters[i] if c == "missing_piece_selection_easy" else REF[c]

    stub = write_run(tmp_path / "stub", "Always-B", {"missing_piece_selection_easy": 0.0}, refs_of=refs_of,
                     wrong="B")  # every answer is "B"
    other = write_run(tmp_path / "other", "Other", {c: 40.0 for c in CONFIGS}, refs_of=refs_of)
    rows = {r["name"]: r for r in make_report([other, stub], out=tmp_path / "rep", stream=None, plots=False)["rows"]}
    const = rows["Constant answer (best)"]
    assert rows["Always-B"]["missing_piece_selection_easy"] == const["missing_piece_selection_easy"] == 60.0
    assert const["answers"]["missing_piece_selection_easy"] == "B"
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| Constant answer (best) | 60.00 |" in md


def test_anomaly_chance_says_why_it_differs_from_the_paper(tmp_path):
    def refs_of(c, i):  # 15 of 20 unaltered
        return REF[c] if i < 15 else "Judgment: B\nError Position: A\nError Type: A"

    p = write_run(tmp_path / "a", "A", {"anomaly_detection": 50.0}, refs_of=refs_of)
    md = make_report([p], out=None, stream=None)["markdown"]
    chance = 100 * (15 * 0.5 + 5 / 16) / 20
    assert f"| Random Guessing | - | - | - | - | - | {chance:.2f} |" in md
    assert f"AD chance is {chance:.2f} on these items, not the paper's 28.12: 15 of 20 items (75%) are unaltered" in md


def test_a_skip_reason_is_one_short_line_naming_the_run_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    reason = ('needs torch and open_clip: pip install -e ".[clip]" in your clone of jigsaw-puzzles. '
              + "A long paragraph. " * 60)
    skipped = {"missing_piece_selection_hard": {"reason": reason, "enable": reason}}
    runs = [write_run(tmp_path / "runs" / n, n, {c: 40.0 for c in CONFIGS if c != "missing_piece_selection_hard"},
                      skipped=skipped) for n in ("x", "y")]
    md = make_report([f"runs/{r.name}" for r in runs], out=None, stream=None)["markdown"]
    lines = [line for line in md.splitlines() if "skipped in" in line]
    assert lines == ["MPS Hard (missing_piece_selection_hard) skipped in runs/x, runs/y: needs torch and open_clip. "
                     "Reason and how to enable it: `skipped` in runs/x/results.json."]
    assert md.count("needs torch") == 1 and "A long paragraph" not in md


def test_task_bars_have_intervals_marks_and_say_split_and_n(tmp_path, monkeypatch):
    from matplotlib.container import ErrorbarContainer
    from matplotlib.figure import Figure

    seen = {}
    real = Figure.savefig

    def spy(fig, *args, **kwargs):
        ax = fig.axes[0]
        seen.update(title=ax.get_title(), texts=[t.get_text() for t in ax.texts],
                    legend=[t.get_text() for t in ax.get_legend().get_texts()],
                    bars=sum(isinstance(c, ErrorbarContainer) for c in ax.containers),
                    hatched=[p.get_hatch() for p in ax.patches if p.get_hatch()])
        return real(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    accs = {c: 40.0 for c in CONFIGS if c != "missing_piece_selection_hard"}
    a = write_run(tmp_path / "random", "random", accs, n=13, skipped={"missing_piece_selection_hard": {"reason": "x"}})
    b = write_run(tmp_path / "b", "B", {c: 40.0 for c in CONFIGS}, n=13, missing=7)  # MPS Easy: 13 of 20
    make_report([a, b], out=tmp_path / "rep", stream=None)
    assert "split lite" in seen["title"] and "n = 13" in seen["title"]
    assert "skipped" in seen["texts"] and seen["hatched"]  # B answered 13 of 20: partial
    assert seen["bars"] == 2  # one error-bar set per run
    assert "random" in seen["legend"] and "Random" not in seen["legend"]
    assert {"chance (uniform guess)", "p < 0.05 above chance", "partial (run incomplete)"} <= set(seen["legend"])


def test_out_never_overwrites_files_the_report_did_not_write(tmp_path, capsys):
    a = write_run(tmp_path / "a", "A", {c: 40.0 for c in CONFIGS})
    out = tmp_path / "rep"
    out.mkdir()
    (out / "report.md").write_text("my notes")
    (out / "photo.jpg").write_text("x")
    code, _, err = _report(tmp_path, capsys, a, "--out", out, "--no-plots")
    assert code == 2 and "report.md not written by `jigsaw-puzzles report`" in err
    assert (out / "report.md").read_text() == "my notes" and not (out / "report.csv").exists()
    (out / "report.md").unlink()
    assert _report(tmp_path, capsys, a, "--out", out)[0] == 0
    code, stdout, _ = _report(tmp_path, capsys, a, "--out", out, "--no-plots")  # an earlier report: replaced, said
    assert code == 0 and f"replacing the earlier report in {out}" in stdout
    assert not (out / "task_bars.png").exists() and (out / "photo.jpg").read_text() == "x"  # stale plot removed
    (out / "report.csv").write_text("edited")
    assert _report(tmp_path, capsys, a, "--out", out)[0] == 2 and (out / "report.csv").read_text() == "edited"


@pytest.mark.parametrize("earlier", [False, True])
def test_a_full_disk_leaves_the_folder_as_it_was_and_the_same_command_works_after(tmp_path, capsys, monkeypatch,
                                                                                   earlier):
    """#44 3.8: a full disk during `report` left a 0-byte report.md, and the same command then refused the folder
    ("holds report.md not written by ..."). Now every file is staged first: all or nothing, like build."""
    import errno
    import pathlib

    a = write_run(tmp_path / "a", "A", {c: 40.0 for c in CONFIGS})
    out = tmp_path / "rep"
    if earlier:
        assert _report(tmp_path, capsys, a, "--out", out, "--no-plots")[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()} if out.exists() else None
    real = pathlib.Path.write_text

    def full(self, data, *args, **kwargs):  # the disk fills while report.md is written: 0 bytes of it
        if self.name == "report.md":
            real(self, "", *args, **kwargs)
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "write_text", full)
    code, _, err = _report(tmp_path, capsys, a, "--out", out, "--no-plots")
    assert code == 2 and "cannot write the report in" in err and "No space left on device" in err
    assert "nothing there was changed" in err and "Traceback" not in err
    after = {p.name: p.read_bytes() for p in out.iterdir()} if out.exists() else None
    assert after == before  # a new folder: none made; an earlier report: byte for byte
    monkeypatch.setattr(pathlib.Path, "write_text", real)
    assert _report(tmp_path, capsys, a, "--out", out, "--no-plots")[0] == 0  # space freed: the same command works
    assert (out / "report.md").read_text().startswith("# Jigsaw-Puzzles results")


def test_a_report_cut_off_while_putting_files_in_place_is_still_known_as_the_package_s(tmp_path, capsys,
                                                                                         monkeypatch):
    """The record goes in first, with the files it replaces: a report killed between the renames leaves files the
    next report recognises (the earlier ones or the new ones), never a refusal."""
    import os

    a = write_run(tmp_path / "a", "A", {c: 40.0 for c in CONFIGS})
    b = write_run(tmp_path / "b", "B", {c: 50.0 for c in CONFIGS})
    out = tmp_path / "rep"
    assert _report(tmp_path, capsys, a, "--out", out, "--no-plots")[0] == 0
    real, moved = os.replace, []

    def cut(src, dst):
        if moved and str(src).endswith("report.csv"):
            raise KeyboardInterrupt  # killed after the record and report.md were put in place
        moved.append(dst)
        return real(src, dst)

    monkeypatch.setattr(os, "replace", cut)
    with pytest.raises(KeyboardInterrupt):
        make_report([b], out=out, stream=None, plots=False)
    monkeypatch.setattr(os, "replace", real)
    assert _report(tmp_path, capsys, b, "--out", out, "--no-plots")[0] == 0
    assert not [p for p in out.iterdir() if p.name.startswith(".jigsaw-report.partial")]
