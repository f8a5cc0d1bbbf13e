"""What a new user read and got (#33.8): each sentence or message that said something untrue, and each small fault,
held to what the code does."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixtures.rows import make_dataset
from jigsaw_puzzles import evaluate_model
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.errors import ConfigUnavailable

ROOT = Path(__file__).resolve().parents[1]
HARD = "missing_piece_selection_hard"


def last_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return err.strip().splitlines()[-1]


def test_the_lite_solver_time_in_the_docs_is_the_measured_one():
    """docs/evaluation.md said "~2 min" for the Lite solver run, the README "~7 s" (#44 4: 18-24 s on another
    machine); docs/performance.md records the measurement (command, machine, load, what is installed), and the
    evaluation page and the README cite that figure with its machine."""
    perf = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    measured = re.search(r"\| the main job \(`eval --model solver --split lite`\) from an empty cache \| [\d-]+: "
                         r"([\d.]+)-([\d.]+) s of CPU without torch and open_clip", perf)
    assert measured, "docs/performance.md records the main job from an empty cache"
    low, high = float(measured.group(1)), float(measured.group(2))
    evaluation = (ROOT / "docs" / "evaluation.md").read_text(encoding="utf-8")
    line = next(x for x in evaluation.splitlines() if x.startswith("jigsaw-puzzles eval --model solver --split lite"))
    readme = next(x for x in (ROOT / "README.md").read_text(encoding="utf-8").splitlines() if "# main job" in x)
    for text in (line, readme):
        said = re.search(r"about ([\d.]+) s of CPU on a 2-core AMD EPYC", text)
        assert said and low <= float(said.group(1)) <= high and "min" not in text, text
    assert "MPS (hard), which needs the clip extra" in readme  # not "every task": it is skipped without them


def test_build_grid_4x4_writes_the_configs_the_docs_count():
    """docs/tasks.md counted four tasks for `build --grid 4x4`; it writes six configs (five task families), every
    one of them buildable from the embedded photos (measured: docs/performance.md)."""
    from jigsaw_puzzles.generation.builder import select_configs

    configs = select_configs(None, "4x4")
    line = next(x for x in (ROOT / "docs" / "tasks.md").read_text(encoding="utf-8").splitlines()
                if x.startswith("jigsaw-puzzles build --grid 4x4"))
    assert f"# {len(configs)} configs on 4x4" in line, (line, configs)
    named = {"order tasks": ("order_restoration_4x4", "order_generation_4x4"), "CV": ("connection_verification_4x4",),
             "PL": ("piece_localization_4x4",), "AD": ("anomaly_detection_4x4",),
             "MPS easy": ("missing_piece_selection_easy_4x4",)}
    assert all(short in line for short in named) and sorted(c for cs in named.values() for c in cs) == sorted(configs)


@pytest.mark.parametrize("fmt", ["vlmevalkit", "verl"])
def test_an_export_skip_says_how_to_enable_it_not_a_runs_results_json(fmt, tmp_path, capsys, monkeypatch):
    """`export verl` / `export vlmevalkit` skip messages pointed at "the run's results.json", and no run exists."""
    from jigsaw_puzzles.inference import data

    def build(config, split, source, seed, num_proc, dataset_kwargs=None):  # two configs build, the rest cannot
        if config not in ("order_restoration", "connection_verification"):
            raise ConfigUnavailable(config, "no CLIP weights offline. Give --clip-pretrained a local weights file.")
        return make_dataset(config, 2)

    monkeypatch.setattr(data, "build_dataset", build)
    argv = ["export", fmt, "--out", str(tmp_path / "out"), "--split", "lite"] + (["--train-size", "0"] if fmt ==
                                                                                   "verl" else [])
    assert main(argv) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith(f"[jigsaw-puzzles] skipping {HARD}"))
    assert "results.json" not in line and "run resumes" not in line
    assert "how to enable it: Give --clip-pretrained a local weights file; then re-run the same command" in line


@pytest.mark.parametrize("make, why", [
    (lambda p: p / "missing", "source folder not found"),
    (lambda p: (p / "notes.txt").write_text("x") and p / "notes.txt", "must be a folder of photographs, not a file"),
    (lambda p: (p / "empty").mkdir() or p / "empty", "put JPEG, PNG or WebP photographs in it, or give another"),
])
def test_curate_errors_name_the_folder_given_not_a_flag_it_has_not(make, why, tmp_path, capsys):
    """`curate DIR` takes a positional folder; its errors said "give --source"."""
    folder = make(tmp_path)
    assert main(["curate", str(folder)]) == 2
    line = last_line(capsys)
    assert why in line and str(folder) in line and "--source" not in line


def test_a_near_miss_of_a_builtin_model_is_suggested_without_asking_the_hub(tmp_path, capsys, monkeypatch):
    """`--model solvr` looked the name up on the Hub (minutes offline); now one line suggests `solver`."""
    import huggingface_hub

    def no_hub(*args, **kwargs):
        raise AssertionError("the Hub was asked")

    monkeypatch.setattr(huggingface_hub, "model_info", no_hub)
    for typo, meant in (("solvr", "solver"), ("Solver", "solver"), ("randm", "random")):
        assert main(["eval", "--model", typo, "--split", "lite", "--out", str(tmp_path / typo), "--no-progress"]) == 2
        assert f"--model {typo}: no such model here; did you mean {meant}" in last_line(capsys)
        assert not (tmp_path / typo).exists()
    # a served model's name is the server's own: no suggestion there
    from jigsaw_puzzles.inference.options import check_builtin_typo

    check_builtin_typo("solvr", "openai", ("random", "solver"))
    check_builtin_typo("org/solvr", "transformers", ("random", "solver"))


def test_report_compare_without_out_never_replaces_the_last_report(tmp_path, capsys, monkeypatch):
    """`report A B --compare` without --out wrote into report/, replacing the report of all runs made before."""
    monkeypatch.chdir(tmp_path)
    data = {"order_restoration": make_dataset("order_restoration", 6)}
    for model in ("solver", "random"):
        evaluate_model(model, data=data, out=tmp_path / "runs" / model, progress=False)
    runs = [str(tmp_path / "runs" / m) for m in ("solver", "random")]
    assert main(["report", *runs, "--no-plots"]) == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "report").iterdir()}
    assert main(["report", *runs, "--compare", "--no-plots"]) == 0
    assert {p.name: p.read_bytes() for p in (tmp_path / "report").iterdir()} == before  # untouched
    assert (tmp_path / "compare" / "solver-vs-random" / "compare.md").is_file()
    capsys.readouterr()
