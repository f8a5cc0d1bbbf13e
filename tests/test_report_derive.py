"""The report re-derives every number from the run's records (issue #27 section 4) and says what its numbers mean
(issue #28 item 5): an edited results.json cannot change a figure, circular runs are shown and compared on their
circular verdicts, and the plot, the circular table and --compare say exactly what they show."""
from __future__ import annotations

import csv
import json

import datasets
import pytest

from fixtures.rows import make_rows
from fixtures.runs import write_records_run
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.generation.circular import rotations
from jigsaw_puzzles.inference import evaluate_model
from jigsaw_puzzles.reporting.compare import compare, format_comparison
from jigsaw_puzzles.reporting.derive import derive, disagreement
from jigsaw_puzzles.reporting.report import load_runs, make_report
from jigsaw_puzzles.spec import PAPER_CONFIGS, features

CIRC = ["connection_verification", "piece_localization_easy"]  # 3 and 2 options
AD = "anomaly_detection"


@pytest.fixture(scope="module")
def rows():
    return {c: make_rows(c, 6) for c in [*CIRC, AD]}


def circular_run(path, rows, model, rot0_only=False, drop_last=False, status="complete"):
    """A circular run of real rotated items: every rotation answered right, or (``rot0_only``) always the letter
    that is right at rotation 0 (right there, wrong at every other rotation)."""
    records = []
    for c in CIRC:
        for row in rows[c]:
            for rot in rotations(row, c):
                out = row["answer"] if rot0_only else rot["answer"]
                records.append({"id": rot["id"], "config": c, "output": f"Answer: {out}", "answer": rot["answer"],
                                "options": rot["options"]})
    for row in rows[AD]:
        records.append({"id": row["id"], "config": AD, "output": row["answer"], "answer": row["answer"]})
    asked = {c: sum(r["config"] == c for r in records) for c in [*CIRC, AD]}
    if drop_last:
        records = records[:-1]
    return write_records_run(path, model, records, asked=asked, circular=True, status=status)


def _report(capsys, *args):
    code = main(["report", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ the numbers come from the records
def test_what_eval_writes_is_what_the_report_derives_plain_and_circular(rows, tmp_path):
    data = {c: datasets.Dataset.from_list(rows[c], features=features()) for c in [*CIRC, AD]}
    for name, circular, model in (("plain", False, "random"), ("circ", True, "solver")):
        res = evaluate_model(model, data=data, out=tmp_path / name, progress=False, circular=circular, max_items=4)
        derived = derive(tmp_path / name)
        stored = json.loads((tmp_path / name / "results.json").read_text())
        assert disagreement(stored, derived) is None
        assert json.dumps(derived.metrics, sort_keys=True) == json.dumps(res["metrics"], sort_keys=True)
        assert derived.complete
        assert derived.circular is circular and derived.n_missing == 0
    run = load_runs([tmp_path / "circ"])[0]
    assert run.circular and all(run.metrics[c]["circular"]["n"] == 4 for c in CIRC)


@pytest.mark.parametrize("edit,why", [
    (lambda m: m["connection_verification"]["circular"].update(accuracy=250.0),
     "it says connection_verification circular accuracy 250.00, its records give 100.00"),
    (lambda m: m["piece_localization_easy"].update(chance=90.0),
     "it says piece_localization_easy chance 90.00, its records give 50.00"),
    (lambda m: m["connection_verification"]["constant_baseline"].update(accuracy=100.0),
     "it says connection_verification constant_baseline accuracy 100.00, its records give"),
    (lambda m: m.update(order_restoration=dict(m["connection_verification"])),
     "it gives figures for order_restoration, which the run never answered (no record of it)"),
    (lambda m: m[AD].update(truncated=3), "it says anomaly_detection truncated 3, its records give 0"),
])
def test_the_issues_tampered_results_are_refused_with_a_line_saying_why(rows, tmp_path, capsys, edit, why):
    """#27 §4's examples: 250.00% circular accuracy, a 90% "Random Guessing" row, a constant-answer row of 100,
    a config the run never answered: each run is named and left out, the others reported."""
    good = circular_run(tmp_path / "good", rows, "Good")
    bad = circular_run(tmp_path / "bad", rows, "Bad")
    res = json.loads((bad / "results.json").read_text())
    edit(res["metrics"])
    (bad / "results.json").write_text(json.dumps(res))
    code, out, err = _report(capsys, good, bad, "--out", tmp_path / "rep", "--no-plots")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith(f"Not in the table: {bad / 'results.json'}"))
    assert "does not match the run's records: " + why in line
    table = out[:out.index("\n\n")]
    assert "| Bad" not in table and "250.00" not in table and "90.00" not in table
    assert "| Good [circular] · circular (all rotations) |" in table
    code, out, err = _report(capsys, bad, "--out", tmp_path / "rep2", "--no-plots")
    assert code == 2 and why in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_run_whose_last_session_did_not_end_is_shown_from_its_records_not_its_stale_results(rows, tmp_path):
    """results.json from an earlier session (or edited) of a run whose last session was interrupted: every
    figure shown is the records' (corrected), and a note says so."""
    p = circular_run(tmp_path / "run", rows, "M", status="interrupted")
    res = json.loads((p / "results.json").read_text())
    res["metrics"]["connection_verification"]["circular"]["accuracy"] = 250.0
    res["metrics"]["piece_localization_easy"]["chance"] = 90.0
    (p / "results.json").write_text(json.dumps(res))
    rep = make_report([p], out=None, stream=None)
    rows_ = {r["name"]: r for r in rep["rows"]}
    assert rows_["M [circular] · circular (all rotations)"]["connection_verification"] == 100.0
    assert rows_["Random Guessing"]["piece_localization_easy"] == 50.0
    assert "M [circular]: figures from its 36 answered records (run.json says 'interrupted'" in rep["markdown"]


# ------------------------------------------------------------------ circular runs: table, plot, --compare
def test_the_main_table_shows_a_circular_runs_circular_accuracy_labelled(rows, tmp_path):
    p = circular_run(tmp_path / "rot0", rows, "Rot0", rot0_only=True)
    rep = make_report([p], out=None, stream=None)
    by = {r["name"]: r for r in rep["rows"]}
    plain, circ = by["Rot0 [circular] · plain (rotation 0)"], by["Rot0 [circular] · circular (all rotations)"]
    assert plain["connection_verification"] == 100.0 and circ["connection_verification"] == 0.0
    assert circ[AD] == plain[AD] == 100.0  # asked once: its plain figure
    assert circ["overall"] == pytest.approx((0 + 0 + 100) / 3)
    assert by["Random Guessing · circular (all rotations)"]["connection_verification"] == pytest.approx(100 / 27)
    assert by["Random Guessing · circular (all rotations)"]["piece_localization_easy"] == pytest.approx(25.0)
    md = rep["markdown"]
    assert "| Rot0 [circular] · circular (all rotations) | - | - | 0.00 | - | 0.00 | 100.00 |" in md
    assert "A circular run has two rows" in md


def test_the_circular_chance_column_has_one_precision_and_a_unit(rows, tmp_path):
    md = make_report([circular_run(tmp_path / "r", rows, "R")], out=None, stream=None)["markdown"]
    section = md[md.index("### Circular evaluation"):]
    assert "circular chance (%)" in section
    lines = {c: next(x for x in section.splitlines() if f"`{c}`" in x) for c in CIRC}
    assert "| 3.70 |" in lines["connection_verification"] and "| 25.00 |" in lines["piece_localization_easy"]
    assert "3.704" not in section and "| 25 |" not in section


def test_the_plot_does_not_hatch_a_complete_circular_run_but_hatches_a_partial_one(rows, tmp_path, monkeypatch):
    from matplotlib.collections import PathCollection
    from matplotlib.figure import Figure

    seen = []
    real = Figure.savefig

    def spy(fig, *args, **kwargs):
        ax = fig.axes[0]
        if ax.get_title().startswith("Jigsaw-Puzzles: accuracy per task"):
            seen.append(([p.get_hatch() for p in ax.patches if p.get_hatch()],
                         [t.get_text() for t in ax.get_legend().get_texts()],
                         sorted(float(y) for coll in ax.collections if isinstance(coll, PathCollection)
                                for _, y in coll.get_offsets())))
        return real(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    whole = circular_run(tmp_path / "whole", rows, "Whole")
    make_report([whole], out=tmp_path / "rep", stream=None)
    hatched, legend, _ = seen[-1]
    assert not hatched and "partial (run incomplete)" not in legend and "Whole [circular] (plain, rotation 0)" in legend
    part = circular_run(tmp_path / "part", rows, "Part", drop_last=True, rot0_only=True)  # one AD item unanswered
    make_report([part], out=tmp_path / "rep2", stream=None)
    hatched, legend, marks = seen[-1]
    assert len(hatched) == 1 and "partial (run incomplete)" in legend
    assert marks == [0.0, 0.0] and "circular (all rotations) of that run" in legend  # PL Easy, CV: 0 circular


def test_compare_of_two_circular_runs_pairs_their_circular_verdicts(rows, tmp_path, capsys):
    """An always-right model vs one right only at rotation 0: on rotation 0 alone they tie (+0.00, p = 1); on
    the circular verdicts the gap is real."""
    a = circular_run(tmp_path / "rot0", rows, "Rot0", rot0_only=True)
    b = circular_run(tmp_path / "right", rows, "Right")
    result = compare(a, b)
    by = {r.config: r for r in result["configs"]}
    for c in CIRC:
        assert by[c].circular and (by[c].acc_a, by[c].acc_b, by[c].diff) == (0.0, 100.0, 100.0)
        assert (by[c].only_a, by[c].only_b, by[c].n) == (0, 6, 6) and by[c].p_value == pytest.approx(2 / 2 ** 6)
    assert not by[AD].circular and by[AD].diff == 0.0
    code, _, _ = _report(capsys, a, b, "--compare", "--no-plots", "--out", tmp_path / "rep")
    text = (tmp_path / "rep" / "compare.md").read_text()
    assert code == 0 and "Both runs are circular" in text and "`connection_verification` (circular) | 6 |" in text
    assert "+100.00" in text and "| +0.00 | [+0.00, +0.00] |" in text  # AD, asked once, ties


# ------------------------------------------------------------------ --compare says what its numbers mean
def _verdict_run(path, verdicts: dict[str, list[bool]]):
    recs = [{"id": f"{c}/{k:04x}", "config": c, "output": "A" if ok else "B", "answer": "A"}
            for c, vs in verdicts.items() for k, ok in enumerate(vs)]
    return write_records_run(path, path.name, recs)


def test_overall_not_compared_says_why_in_its_own_terms(tmp_path):
    six = [c for c in PAPER_CONFIGS if c not in ("missing_piece_selection_hard", "anomaly_detection")][:5] + [
        "anomaly_detection"]
    letters = [c for c in six if c != "anomaly_detection"]
    a = _verdict_run(tmp_path / "a", {c: [k < 5 for k in range(10)] for c in letters})
    b = _verdict_run(tmp_path / "b", {c: [k < 6 for k in range(10)] for c in letters})
    text = format_comparison(compare(a, b))
    line = next(x for x in text.splitlines() if x.startswith("Overall not compared"))
    assert "the runs do not share all seven" not in text
    assert "2 of them are not answered by both runs: MPS Hard (answered by neither), AD (answered by neither)" in line
    assert "A mean over the 5 they share would not be the table's Overall" in line


def test_an_interval_that_excludes_zero_beside_p_0_0625_is_explained(tmp_path):
    a = _verdict_run(tmp_path / "a", {"order_restoration": [k < 10 for k in range(30)]})
    b = _verdict_run(tmp_path / "b", {"order_restoration": [k < 15 for k in range(30)]})  # 5 discordant, all B
    result = compare(a, b)
    r = result["configs"][0]
    assert (r.only_a, r.only_b) == (0, 5) and r.p_value == pytest.approx(0.0625) and r.ci[0] > 0
    text = format_comparison(result)
    row = next(x for x in text.splitlines() if x.startswith("| `order_restoration`"))
    assert "§" in row and "significant" not in row
    assert "§ The interval and the test disagree on order_restoration" in text
    assert "McNemar's exact test" in text and "paired-bootstrap percentile interval" in text
    same = _verdict_run(tmp_path / "c", {"order_restoration": [k < 10 for k in range(30)]})
    assert "§" not in format_comparison(compare(a, same))  # no disagreement: no note


# ------------------------------------------------------------------ the strict reading, where the metric gives it
def test_the_strict_reading_is_shown_beside_the_flexible_headline_when_present(tmp_path):
    from jigsaw_puzzles.reporting.runs import RunSummary
    from jigsaw_puzzles.reporting.sections import strict_section
    from jigsaw_puzzles.reporting.table import label

    run = RunSummary(path=tmp_path, name="M", model="M", backend=None, split="lite", parameters=None,
                     metrics={"order_restoration": {"accuracy": 60.0, "n": 10, "strict_accuracy": 40.0},
                              AD: {"accuracy": 50.0, "n": 10}})
    text = strict_section([run], label)
    assert "| M | OR | 60.00 | 40.00 | +20.00 |" in text and "AD" not in text
    from jigsaw_puzzles.reporting.table import table_rows, write_csv

    write_csv(table_rows([run]), tmp_path / "r.csv")
    with open(tmp_path / "r.csv") as f:
        line = next(r for r in csv.DictReader(f) if r["name"] == "M")
    assert line["OR strict_accuracy"] == "40.0000" and line["OR"] == "60.0000" and line["AD strict_accuracy"] == ""
    run.metrics["order_restoration"].pop("strict_accuracy")
    assert strict_section([run], label) == ""


def test_results_json_identity_fields_change_nothing_the_report_shows(rows, tmp_path):
    """What results.json says beside its numbers (split, parameters, completeness) is not read where run.json and
    the records say it: an edit there moves no row into another group and no point in the size plot."""
    p = circular_run(tmp_path / "run", rows, "M", drop_last=True)
    before = make_report([p], out=None, stream=None)
    res = json.loads((p / "results.json").read_text())
    res.update(split="test", parameters=7e10, complete=True, model="Other")
    (p / "results.json").write_text(json.dumps(res))
    after = make_report([p], out=None, stream=None)
    assert after["rows"] == before["rows"]
    run = load_runs([p])[0]
    assert (run.split, run.parameters, run.complete, run.n_missing, run.name) == ("lite", None, False, 1,
                                                                                  "M [circular]")


def test_overall_not_compared_names_the_run_that_lacks_a_config(tmp_path):
    seven = {c: [k < 5 for k in range(10)] for c in PAPER_CONFIGS if c != "anomaly_detection"}
    a = _verdict_run(tmp_path / "a", seven)
    b = _verdict_run(tmp_path / "b", {c: v for c, v in seven.items() if c != "order_restoration"})
    line = next(x for x in format_comparison(compare(a, b)).splitlines() if x.startswith("Overall not compared"))
    assert "AD (answered by neither), OR (answered by A only)" in line
