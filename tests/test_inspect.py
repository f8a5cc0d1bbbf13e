"""Inspect AI integration (issue #29 item 2): the tasks run in Inspect's own eval loop, offline, and the log's
per-sample verdicts and metrics equal this package's score() on the same responses; ``inspect eval`` runs the
task from the command line. A log is judged by its ``status`` (Inspect exits 0 even when no sample ran)."""
from __future__ import annotations

import configparser
from importlib.metadata import entry_points
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import jigsaw_puzzles as jp

pytest.importorskip("inspect_ai", reason="the [harness] extra (inspect-ai) is not installed")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ContentImage, ContentText, ModelOutput, ModelUsage, get_model  # noqa: E402

from jigsaw_puzzles.integrations import inspect_eval as ie  # noqa: E402
from jigsaw_puzzles.inference import evaluate_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = "connection_verification,anomaly_detection"
#: Responses of every kind the reader meets: right-looking letters, prose, anomaly lines, hedges, nothing.
RESPONSES = ["A", "B", "The answer is C.", "(B)", "Judgment: A\nError Position:\nError Type:",
             "Judgment: B\nError Position: A\nError Type: B", "no idea", "A or B", "", "**Answer: A**",
             "Judgment: B", "C"]


def _metrics(log) -> dict[str, float]:
    return {m.name: m.value for s in log.results.scores for m in s.metrics.values()}


def _expected(result: dict) -> dict[str, float]:
    out = {}
    for config, column in result.items():
        for key in ie.KEYS:
            value = column.get(key)
            if isinstance(value, (int, float)) and math.isfinite(value):
                out[f"{config}/{key}"] = float(value)
    return out


def _mock_outputs(n: int):
    """Offline mock outputs: each carries its usage, so Inspect's mockllm never counts tokens with tiktoken."""
    for i in range(n):
        out = ModelOutput.from_content(model="mockllm", content=RESPONSES[i % len(RESPONSES)])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        yield out


def test_samples_are_the_items_with_images_then_the_question_verbatim():
    rows = {r["id"]: r for r in jp.load_dataset("connection_verification", split="lite")}
    samples = ie.samples(["connection_verification"], split="lite")
    assert len(samples) == len(rows) > 0
    for sample in samples:
        row = rows[sample.id]
        parts = sample.input[0].content
        assert [type(p) for p in parts] == [ContentImage] * len(row["images"]) + [ContentText]
        assert parts[-1].text == row["question"] and sample.target == row["answer"]
        assert all(p.image.startswith("data:image/png;base64,") for p in parts[:-1])
        assert sample.metadata["config"] == "connection_verification"


@pytest.mark.slow
def test_the_mock_models_log_equals_score_on_the_same_responses(tmp_path):
    task = ie.connection_verification(configs=CONFIGS)
    n = len(task.dataset)
    model = get_model("mockllm/model", custom_outputs=_mock_outputs(n))
    log = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success", log.error
    assert len(log.samples) == n and n > 0
    responses = [s.output.completion for s in log.samples]
    assert set(responses) > {"A", "no idea", ""}  # the responses really were the mock's
    meta = [s.metadata for s in log.samples]
    args = ([s.target for s in log.samples], [m["config"] for m in meta], [m["options"] for m in meta])
    verdicts = jp.score_items(responses, *args)
    for sample, (extraction, ok) in zip(log.samples, verdicts):
        value = sample.scores["jigsaw_scorer"]
        assert value.value["correct"] == int(ok) and value.answer == extraction.answer
        assert value.explanation == extraction.status
    expected = jp.score(responses, *args)
    assert _metrics(log) == pytest.approx(_expected(expected))
    assert "anomaly_detection/critical_value" in _metrics(log) and "overall/accuracy" in _metrics(log)
    if any("strict_accuracy" in c for c in expected.values()):  # the package's strict reading, when it has one
        assert _metrics(log)["overall/strict_accuracy"] == pytest.approx(expected["overall"]["strict_accuracy"])


def test_a_bad_task_argument_is_one_clear_error():
    with pytest.raises(jp.UserError, match="unknown config"):
        ie.order_generation(configs="order_generation_9x1x")
    with pytest.raises(jp.UserError, match="unknown split"):
        ie.order_generation(split="dev")


@pytest.mark.slow
@pytest.mark.parametrize("model", ["solver", "random"])
def test_the_baselines_as_inspect_models_score_what_eval_scores(tmp_path, model):
    log = inspect_eval(ie.order_generation(configs="order_generation,order_restoration"), model=f"jigsaw/{model}",
                       display="none", log_dir=str(tmp_path / "logs"))[0]
    assert log.status == "success", log.error
    ran = evaluate_model(model, configs=["order_generation", "order_restoration"], split="lite",
                         out=tmp_path / "run", progress=False)
    metrics = _metrics(log)
    for config in ("order_generation", "order_restoration"):
        assert metrics[f"{config}/accuracy"] == pytest.approx(ran["metrics"][config]["accuracy"])
        assert metrics[f"{config}/n"] == ran["metrics"][config]["n"]
    predictions = {json.loads(line)["id"]: json.loads(line)["output"]
                   for line in (Path(ran["run_dir"]) / "predictions.jsonl").read_text().splitlines()}
    assert {s.id: s.output.completion for s in log.samples} == predictions  # the very same answers, item by item


@pytest.mark.slow
@pytest.mark.parametrize("spec,model", [("jigsaw_puzzles/connection_verification", "jigsaw/solver"),
                                        ("FILE@connection_verification", "jigsaw/random")])
def test_inspect_eval_runs_the_task_from_the_command_line(tmp_path, spec, model):
    """``inspect eval`` (the console script, a subprocess, offline) on the task by its registry name (found through
    the ``inspect_ai`` entry point that setup.cfg declares, installed as an install writes it) and by its file,
    with the package's ``jigsaw/`` models."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    entry = cfg["options.entry_points"]["inspect_ai"].strip()
    assert entry == "jigsaw_puzzles = jigsaw_puzzles.integrations.inspect_eval"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "NO_COLOR": "1"}
    if not any(ep.value == entry.split(" = ")[1] for ep in entry_points(group="inspect_ai")):
        # an install older than the entry point (a worktree run): write it as an install does. Where the package
        # is installed (CI, a user), its own metadata is used as it is (PYTHONPATH untouched: a src/*.egg-info
        # found first would hide the install's direct_url.json, and with it the `jigsaw_puzzles/` namespace)
        dist = tmp_path / "site" / "jigsaw_puzzles_inspect_ep-0.dist-info"
        dist.mkdir(parents=True)
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: jigsaw-puzzles-inspect-ep\nVersion: 0\n")
        (dist / "entry_points.txt").write_text(f"[inspect_ai]\n{entry}\n")
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(tmp_path / "site")])
    inspect = Path(sys.executable).with_name("inspect")
    task_file = ROOT / "src" / "jigsaw_puzzles" / "integrations" / "inspect_eval.py"
    proc = subprocess.run([str(inspect), "eval", spec.replace("FILE", str(task_file)), "--model", model,
                           "-T", "split=lite", "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
                          env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    logs = sorted((tmp_path / "logs").glob("*.eval"))
    assert proc.returncode == 0 and len(logs) == 1, proc.stderr[-2000:]
    log = read_eval_log(str(logs[0]))
    assert log.status == "success", log.error
    responses = [s.output.completion for s in log.samples]
    assert len(responses) == len(jp.load_dataset("connection_verification", split="lite"))
    expected = jp.score(responses, [s.target for s in log.samples], "connection_verification",
                        [s.metadata["options"] for s in log.samples])
    assert _metrics(log) == pytest.approx(_expected(expected))


def test_a_config_that_cannot_be_built_is_skipped_unless_asked_for_by_name(monkeypatch, capsys):
    """As `jigsaw-puzzles eval` does: the default configs go on without one that cannot be built here (the hard
    config without CLIP weights offline), said on stderr; asked for by name, it stops the task."""
    from jigsaw_puzzles.errors import ConfigUnavailable
    from jigsaw_puzzles.integrations import inspect_eval

    def load(config, **kwargs):
        if config == "missing_piece_selection_hard":
            raise ConfigUnavailable(config, "CLIP weights are not available offline. Pass a local file.")
        return [{"images": [], "question": "q", "answer": "A", "options": ["a", "b"], "id": f"{config}/x",
                 "source_id": "x"}]

    monkeypatch.setattr(inspect_eval, "load_dataset", load)
    got = inspect_eval.samples(["missing_piece_selection_easy", "missing_piece_selection_hard"], explicit=False)
    assert [s.metadata["config"] for s in got] == ["missing_piece_selection_easy"]
    assert "skipping missing_piece_selection_hard: CLIP weights are not available offline." in capsys.readouterr().err
    with pytest.raises(ConfigUnavailable):
        inspect_eval.samples(["missing_piece_selection_hard"], explicit=True)
