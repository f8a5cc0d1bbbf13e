"""lmms-eval integration (issue #10 part 2): the task folder runs in lmms-eval with its OpenAI-compatible model
against a local stub server and gives the same per-config accuracies as `jigsaw-puzzles eval` on the same
answers."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from http.server import BaseHTTPRequestHandler

import datasets
import pytest

from fixtures.stubs import local_server, reply_json
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.publishing.export import build
from jigsaw_puzzles.inference import evaluate_model

pytest.importorskip("lmms_eval", reason="the [harness] extra (lmms-eval) is not installed")

CONFIGS = ["order_restoration", "connection_verification", "anomaly_detection", "order_generation"]
ANSWERS = ["A", "B", "The answer is C.", "[2, 1, 4, 3]", "Judgment: A\nError Position:\nError Type:",
           "Judgment: B\nError Position: A\nError Type: B", "no idea", "(A)", "[1, 2, 3, 4]"]


class Answers(BaseHTTPRequestHandler):
    """A chat-completions endpoint whose answer is a fixed function of the question text: both harnesses get
    the same answer for the same item."""

    texts: list = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content
                                                                if p.get("type") == "text")
        text = text.strip()
        type(self).texts.append(text)
        answer = ANSWERS[int(hashlib.sha256(text.encode()).hexdigest(), 16) % len(ANSWERS)]
        reply_json(self, {"id": "stub", "object": "chat.completion", "created": 0, "model": body.get("model"),
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": answer}}],
                          "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


@pytest.fixture
def endpoint():
    with local_server(Answers) as url:
        yield url


@pytest.mark.slow
def test_lmms_eval_gives_the_same_accuracies_as_jigsaw_puzzles_eval(tmp_path, endpoint, photo_dir):
    export = tmp_path / "export"
    build(export, source=photo_dir, configs=CONFIGS, cache_dir=str(tmp_path / "cache"))
    tasks = tmp_path / "tasks"
    assert main(["lmms-eval", "--dataset", str(export), "--out", str(tasks)]) == 0
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "OPENAI_API_KEY": "x",
           "HF_DATASETS_CACHE": str(tmp_path / "hf"), "HF_HOME": str(tmp_path / "hfhome")}
    proc = subprocess.run([sys.executable, "-m", "lmms_eval", "--include_path", str(tasks), "--tasks",
                           "jigsaw_puzzles_lite", "--model", "openai", "--model_args",
                           f"model_version=stub,base_url={endpoint},api_key=x", "--batch_size", "1",
                           "--output_path", str(tmp_path / "lmms")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (result_file,) = (tmp_path / "lmms").rglob("*_results.json")
    results = json.loads(result_file.read_text())["results"]
    theirs = {task.removeprefix("jigsaw_puzzles_lite_"): metrics.get("jigsaw_accuracy,none",
                                                                     metrics.get("jigsaw_exact_match,none"))
              for task, metrics in results.items() if task != "jigsaw_puzzles_lite"}

    data = {c: datasets.load_dataset(str(export), c, split="lite") for c in CONFIGS}
    ours = evaluate_model("stub", backend="openai", api_base=endpoint, api_key="x", split="lite", data=data,
                          out=str(tmp_path / "run"), progress=False)
    assert set(theirs) == set(CONFIGS)
    for config in CONFIGS:
        assert theirs[config] == pytest.approx(ours["metrics"][config]["accuracy"]), config
    table2 = [c for c in CONFIGS if c != "order_generation"]  # the group is the paper's Overall: OG apart
    assert results["jigsaw_puzzles_lite"]["jigsaw_accuracy,none"] == pytest.approx(
        sum(theirs[c] for c in table2) / len(table2))
    assert any(ours["metrics"][c]["accuracy"] > 0 for c in CONFIGS)  # the stub's answers are sometimes right
    lmms_texts = set(Answers.texts)  # both harnesses sent the paper's question text, item for item
    assert {q.strip() for c in CONFIGS for q in data[c]["question"]} <= lmms_texts
