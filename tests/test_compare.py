"""Comparing runs (issue #12 part 2): paired tests on the same items, checked where the answer is known."""
from __future__ import annotations

import math

import pytest

from jigsaw_puzzles import load_dataset
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.reporting.compare import compare, mcnemar_exact
from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.inference import evaluate_model
from fixtures.runs import write_records_run
from jigsaw_puzzles.spec import CONFIGS, PAPER_CONFIGS

NO_CLIP = [c for c in CONFIGS if c != "missing_piece_selection_hard"]
REF = {"anomaly_detection": "Judgment: A\nError Position:\nError Type:", "order_generation": "[1, 2, 3, 4]",
       "order_restoration_3x3": "A", "order_generation_2x2_rot": "[(1, 0), (2, 0), (3, 0), (4, 0)]"}


def write_run(path, verdicts: dict[str, list[bool]], fingerprint="0123456789abcdef", answer="A"):
    """A run directory whose records have the given per-item verdicts (judged by the real reader, as `eval` writes
    them), and a run.json with the datasets' fingerprints (None: none recorded)."""
    records = [{"id": f"{config}/{k:016x}", "config": config, "output": REF.get(config, answer) if ok else "no idea",
                "answer": REF.get(config, answer)}
               for config, values in verdicts.items() for k, ok in enumerate(values)]
    return write_records_run(path, path.name, records, fingerprint=fingerprint)


def test_mcnemar_exact_matches_the_binomial_formula():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 10) == pytest.approx(2 * 0.5 ** 10)
    assert mcnemar_exact(3, 7) == pytest.approx(2 * sum(math.comb(10, i) for i in range(4)) / 2 ** 10)
    assert mcnemar_exact(5, 5) == 1.0


def test_known_synthetic_differences(tmp_path):
    n = 40
    a = {"order_restoration": [k < 10 for k in range(n)], "connection_verification": [k % 2 == 0 for k in range(n)]}
    b = {"order_restoration": [k < 30 for k in range(n)],  # 20 items only B gets right, none only A
         "connection_verification": [k % 2 == 1 for k in range(n)]}  # 20 each way: same accuracy
    result = compare(write_run(tmp_path / "a", a), write_run(tmp_path / "b", b))
    rows = {r.config: r for r in result["configs"]}
    orr, cv = rows["order_restoration"], rows["connection_verification"]
    assert (orr.only_a, orr.only_b, orr.diff) == (0, 20, 50.0)
    assert orr.p_value == pytest.approx(2 * 0.5 ** 20) and orr.significant and orr.ci[0] > 0
    assert (cv.only_a, cv.only_b, cv.diff, cv.p_value) == (20, 20, 0.0, 1.0) and not cv.significant
    assert cv.ci[0] < 0 < cv.ci[1]
    assert result["overall"] is None  # not all seven Table-2 configs
    again = {r.config: r for r in compare(tmp_path / "a", tmp_path / "b")["configs"]}
    assert again["order_restoration"].ci == orr.ci  # seeded: reproducible
    write_run(tmp_path / "c", {"anomaly_detection": [True]})
    with pytest.raises(UsageError, match="share no answered item"):
        compare(tmp_path / "a", tmp_path / "c")


def test_overall_over_the_seven_table2_configs(tmp_path):
    a = {c: [k < 10 for k in range(30)] for c in PAPER_CONFIGS}
    b = {c: [k < 16 for k in range(30)] for c in PAPER_CONFIGS}  # +20 points on every config
    overall = compare(write_run(tmp_path / "a", a), write_run(tmp_path / "b", b))["overall"]
    assert overall["diff"] == pytest.approx(20.0) and overall["significant"] and overall["ci"][0] > 0
    same = compare(tmp_path / "a", write_run(tmp_path / "a2", a))["overall"]
    assert same["diff"] == 0.0 and not same["significant"]


@pytest.mark.slow
def test_random_vs_random_is_mostly_not_significant_and_solver_vs_random_is(tmp_path, capsys, photo_dir, cache_dir):
    data = {c: load_dataset(c, source=photo_dir, cache_dir=cache_dir) for c in NO_CLIP}
    runs = {}
    for name, model, seed in (("random1", "random", 1), ("random2", "random", 2), ("solver", "solver", 0)):
        evaluate_model(model, data=data, seed=seed, out=str(tmp_path / name), progress=False)
        runs[name] = str(tmp_path / name)
    same = compare(runs["random1"], runs["random2"])
    assert sum(r.significant for r in same["configs"]) <= 1  # at alpha 0.05, at most one of seven by chance
    better = compare(runs["random1"], runs["solver"])
    assert all(r.significant and r.diff > 0 for r in better["configs"]), [(r.config, r.p_value) for r in better["configs"]]
    assert main(["report", runs["random1"], runs["random2"], runs["solver"], "--compare", "--no-plots",
                 "--out", str(tmp_path / "report")]) == 0
    text = (tmp_path / "report" / "compare.md").read_text()
    assert text.count("McNemar") == 2 and "significant" in text
    assert PAPER_CONFIGS  # the overall needs all seven Table-2 configs: the hard one is skipped here
    assert "Overall not compared" in text


# ------------------------------------------------------------------ issues #20.10, #21.11 (report --compare)
def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_runs_of_other_items_are_refused_not_paired(tmp_path, capsys):
    verdicts = {"order_restoration": [k < 10 for k in range(20)]}
    a = write_run(tmp_path / "a", verdicts, fingerprint="seed0fingerprnt")
    b = write_run(tmp_path / "b", verdicts, fingerprint="seed7fingerprnt")  # another seed: same ids, other items
    code, out, err = _cli(capsys, "report", a, b, "--compare", "--no-plots", "--out", tmp_path / "rep")
    assert code == 2 and "Traceback" not in err and len(err.splitlines()) == 1
    assert "did not answer the same order_restoration items: dataset fingerprints" in err
    assert not (tmp_path / "rep" / "compare.md").exists()
    c = write_run(tmp_path / "c", verdicts, answer="B")  # equal fingerprints but other answers under the same ids
    with pytest.raises(UsageError, match="has answer 'A' in one and 'B' in the other"):
        compare(write_run(tmp_path / "a2", verdicts), c)
    d = write_run(tmp_path / "d", verdicts, fingerprint=None)  # nothing says which items it answered
    with pytest.raises(UsageError, match="has no dataset fingerprint"):
        compare(tmp_path / "a2", d)


def test_grid_and_rotated_configs_are_compared_too(tmp_path):
    grid = {"order_restoration_3x3": [k < 5 for k in range(20)], "order_generation_2x2_rot": [False] * 20,
            "order_restoration": [True] * 20}
    better = {"order_restoration_3x3": [k < 15 for k in range(20)], "order_generation_2x2_rot": [k < 8 for k in range(20)]}
    result = compare(write_run(tmp_path / "a", grid), write_run(tmp_path / "b", better))
    rows = {r.config: r for r in result["configs"]}
    assert set(rows) == {"order_restoration_3x3", "order_generation_2x2_rot"}
    assert rows["order_restoration_3x3"].diff == 50.0 and rows["order_generation_2x2_rot"].only_b == 8
    assert result["only"]["a"] == ["order_restoration"]
    from jigsaw_puzzles.reporting.compare import format_comparison

    assert "Not compared, answered by A only: order_restoration." in format_comparison(result)


def test_the_heading_follows_the_order_given_and_out_follows_the_report_rules(tmp_path, capsys):
    a = write_run(tmp_path / "first", {"order_restoration": [k < 5 for k in range(20)]})
    b = write_run(tmp_path / "second", {"order_restoration": [k < 15 for k in range(20)]})
    out = tmp_path / "report"
    out.mkdir()
    (out / "compare.md").write_text("my own comparison")
    code, _, err = _cli(capsys, "report", a, b, "--compare", "--no-plots", "--out", out)
    assert code == 2 and "compare.md not written by `jigsaw-puzzles report`" in err
    assert (out / "compare.md").read_text() == "my own comparison"
    (out / "compare.md").unlink()
    code, stdout, _ = _cli(capsys, "report", a, b, "--compare", "--no-plots", "--out", out)
    text = (out / "compare.md").read_text()
    assert code == 0 and text.startswith(f"**A** = `{a}`, **B** = `{b}`: B - A") and "| +50.00 |" in text
    assert text in stdout
    code, stdout, _ = _cli(capsys, "report", a, b, "--no-plots", "--out", out)  # no --compare: the old one goes
    assert code == 0 and f"replacing the earlier report in {out}" in stdout and not (out / "compare.md").exists()
