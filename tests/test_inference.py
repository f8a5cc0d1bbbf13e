"""Tests for jigsaw_puzzles.inference: runner (run dir, resume, sharding, one verdict per item, skipped configs),
settings and registry, builtin / transformers (tiny random Qwen2-VL built offline) / openai (local 127.0.0.1
server) / vllm (mocked module) backends, and the eval CLI end to end.

No network, no downloaded weights.
"""
from __future__ import annotations

import json

import numpy as np

from fixtures.rows import make_dataset
from fixtures.stubs import local_server


def make_data(configs, n: int, seed: int = 0, size=(84, 84)) -> dict:
    """Datasets of the shared row factory (tests/fixtures/rows.py): real task items on synthetic photos."""
    return {c: make_dataset(c, n, seed, size) for c in configs}


# ============================================================================================== fixtures
import os
import sys
import types
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

sys.path.insert(0, str(Path(__file__).parent))

from jigsaw_puzzles.inference import RunMismatchError, evaluate_model  # noqa: E402
from jigsaw_puzzles.inference import runner as runner_mod  # noqa: E402
from jigsaw_puzzles.inference.rundir import read_predictions  # noqa: E402


def lines(run_dir):
    return read_predictions(Path(run_dir) / "predictions.jsonl")


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from _tiny_vlm import build_tiny_vlm

    return str(build_tiny_vlm(tmp_path_factory.mktemp("tiny_vlm")))


# ============================================================================================== random baseline
@pytest.mark.slow
def test_random_baseline_within_binomial_interval(tmp_path):
    from jigsaw_puzzles.scoring.score import clopper_pearson

    from jigsaw_puzzles.baselines import CHANCE

    configs = ["piece_localization_easy", "connection_verification", "anomaly_detection", "order_restoration",
               "order_generation"]
    n = 400
    data = make_data(configs, n, size=(72, 72))
    res = evaluate_model("random", data=data, out=tmp_path / "run", progress=False)
    assert res["complete"] and res["n_items"] == n * len(configs)
    for c in configs:
        m = res["metrics"][c]
        assert m["n"] == n
        lo, hi = clopper_pearson(m["correct"], n, 0.999)
        assert lo <= CHANCE[c] <= hi, (c, m["accuracy"], lo, hi)
        assert m["invalid_rate"] == 0
    recs = lines(tmp_path / "run")
    assert len(recs) == n * len(configs) and len({r["id"] for r in recs}) == len(recs)
    keys = {"id", "config", "output", "extracted", "answer", "correct", "prompt_tokens", "completion_tokens",
            "latency_s"}
    assert keys <= set(recs[0])
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["backend"] == "builtin" and run["status"] == "complete"
    assert set(run["dataset"]["fingerprints"]) == set(configs)
    assert run["generation"]["greedy"] is True and "package_version" in run
    on_disk = json.loads((tmp_path / "run" / "results.json").read_text())
    assert on_disk["metrics"]["overall"]["accuracy"] == pytest.approx(res["metrics"]["overall"]["accuracy"])


# ============================================================================================== resume
def test_resume_after_crash_loses_and_repeats_nothing(tmp_path, monkeypatch):
    from jigsaw_puzzles import baselines

    data = make_data(["piece_localization_hard", "order_generation"], 25, size=(72, 72))
    out = tmp_path / "run"
    real = baselines.random_answer
    calls = []

    def crashing(row, config, seed=0):
        if len(calls) == 30:
            raise KeyboardInterrupt("simulated kill")
        calls.append(row["id"])
        return real(row, config, seed)

    monkeypatch.setattr(baselines, "random_answer", crashing)
    with pytest.raises(KeyboardInterrupt):
        evaluate_model("random", data=data, out=out, progress=False)
    assert len(lines(out)) == 30
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    assert not (out / "results.json").exists()
    with open(out / "predictions.jsonl", "a") as f:  # a torn line, as after a power loss mid-write
        f.write('{"id": "piece_localization_hard/torn", "config": "piece_loc')

    first = list(calls)
    calls.clear()
    monkeypatch.setattr(baselines, "random_answer", lambda row, config, seed=0: (calls.append(row["id"]),
                                                                                  real(row, config, seed))[1])
    res = evaluate_model("random", data=data, out=out, progress=False)
    assert res["complete"] and res["n_items"] == 50
    assert len(calls) == 20 and not set(calls) & set(first)  # only the missing items were generated
    recs = lines(out)
    assert len(recs) == 50 and len({r["id"] for r in recs}) == 50
    assert (out / "predictions.jsonl").read_bytes().endswith(b"\n")
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "complete" and len(run["sessions"]) == 2
    # same answers as an uninterrupted run
    ref = evaluate_model("random", data=data, out=tmp_path / "ref", progress=False)
    assert ref["metrics"]["overall"] == res["metrics"]["overall"]
    # a completed run re-run does nothing (and does not even build the backend)
    calls.clear()
    evaluate_model("random", data=data, out=out, progress=False)
    assert calls == [] and len(lines(out)) == 50


def test_resume_refuses_other_settings_or_data(tmp_path):
    data = make_data(["piece_localization_easy"], 6, size=(72, 72))
    out = tmp_path / "run"
    evaluate_model("random", data=data, out=out, progress=False, max_items=3)
    with pytest.raises(RunMismatchError, match="generation"):
        evaluate_model("random", data=data, out=out, progress=False, max_new_tokens=7)
    other = make_data(["piece_localization_easy"], 6, seed=1, size=(72, 72))
    with pytest.raises(RunMismatchError, match="dataset"):
        evaluate_model("random", data=other, out=out, progress=False)
    # raising max_items extends the run
    res = evaluate_model("random", data=data, out=out, progress=False)
    assert res["n_items"] == 6 and len(lines(out)) == 6
    res = evaluate_model("random", data=other, out=out, progress=False, overwrite=True, max_items=2)
    assert res["n_items"] == 2 and len(lines(out)) == 2


class FakeBuilder:
    """``make_builder``'s stand-in: small datasets from the row factory; ``unavailable`` configs raise
    ``ConfigUnavailable`` from ``preparation()`` as the hard config does without CLIP weights."""

    unavailable: dict = {}

    def __init__(self, config, *args, **kwargs):
        self.name, self.kwargs = config, kwargs

    def preparation(self):
        from jigsaw_puzzles.errors import ConfigUnavailable

        if self.name in self.unavailable:
            raise ConfigUnavailable(self.name, self.unavailable[self.name])

    def download_and_prepare(self, num_proc=None):
        pass

    def as_dataset(self, split):
        return make_dataset(self.name, 3, 0, (72, 72))


def test_unbuildable_config_is_skipped_unless_asked_for_and_added_once_enabled(tmp_path, monkeypatch):
    from jigsaw_puzzles.generation import builder
    from jigsaw_puzzles.errors import ConfigUnavailable
    from jigsaw_puzzles.reporting.report import make_report

    hard = "missing_piece_selection_hard"
    reason = ("CLIP weights for model 'ViT-B-32' are not available: offline. Pass a checkpoint file with "
              "--clip-pretrained FILE.")
    monkeypatch.setattr(builder, "make_builder", FakeBuilder)
    monkeypatch.setattr(FakeBuilder, "unavailable", {hard: reason})
    out = tmp_path / "run"
    res = evaluate_model("random", out=out, progress=False)  # every config: the hard one is skipped
    skip = res["skipped"][hard]
    assert skip["reason"] == reason and skip["enable"].startswith("Pass a checkpoint file") and "re-run" in skip["enable"]
    assert res["complete"] and hard not in res["metrics"] and res["n_items"] == 3 * 7
    assert hard in json.loads((out / "results.json").read_text())["skipped"]
    md = make_report([out], out=None, stream=None)["markdown"]
    # one short line in the report (#21.10); how to enable it stays in results.json
    assert "skipped" in md and "are not available" in md and "results.json" in md and "Pass a checkpoint" not in md
    run = json.loads((out / "run.json").read_text())  # the options that shape the hard items, defaults filled in
    assert run["dataset_options"] == {hard: {"clip_model": "ViT-B-32", "clip_pretrained": "openai"}}
    with pytest.raises(ConfigUnavailable, match="CLIP weights"):  # asked for by name: an error, as in `build`
        evaluate_model("random", configs=[hard], out=tmp_path / "other", progress=False)
    assert not (tmp_path / "other" / "run.json").exists()
    monkeypatch.setattr(FakeBuilder, "unavailable", {})  # enabled: the same call resumes and adds it
    res = evaluate_model("random", out=out, progress=False)
    assert res["skipped"] == {} and hard in res["metrics"] and res["n_items"] == 3 * 8
    assert len(json.loads((out / "run.json").read_text())["sessions"]) == 2
    with pytest.raises(RunMismatchError, match=r"dataset_options\[missing_piece_selection_hard\]"):
        evaluate_model("random", out=out, progress=False, dataset_kwargs={"clip_model": "ViT-L-14"})
    # settings that do not shape items (e.g. the CLIP cache) and options of other configs' tasks do not matter
    evaluate_model("random", configs=["order_generation"], out=out, progress=False,
                   dataset_kwargs={"clip_model": "ViT-L-14", "clip_cache_dir": str(tmp_path)})


def test_nothing_buildable_is_one_error(tmp_path, monkeypatch):
    from jigsaw_puzzles.generation import builder
    from jigsaw_puzzles.errors import UserError
    from jigsaw_puzzles.spec import CONFIGS

    monkeypatch.setattr(builder, "make_builder", FakeBuilder)
    monkeypatch.setattr(FakeBuilder, "unavailable", {c: "needs at least 1 usable source image. Add photos."
                                                     for c in CONFIGS})
    with pytest.raises(UserError, match="no config can be built here: needs at least 1") as err:
        evaluate_model("random", out=tmp_path / "run", progress=False)
    assert "\n" not in str(err.value)


def test_a_record_with_a_trailing_space_answer_has_one_verdict(tmp_path, monkeypatch):
    """The reference "B  \n" is "B": the runner's per-item verdict and results.json agree (one function)."""
    from jigsaw_puzzles import baselines

    configs = ["piece_localization_hard", "anomaly_detection", "order_generation"]
    data = {c: ds.map(lambda row: {"answer": row["answer"] + "  \n"}) for c, ds in make_data(configs, 6).items()}
    answers = {row["id"]: row["answer"].strip() for ds in data.values() for row in ds}  # baselines never see it
    monkeypatch.setattr(baselines, "random_answer", lambda row, config, seed=0: answers[row["id"]])
    res = evaluate_model("random", data=data, out=tmp_path / "run", progress=False)
    recs = lines(tmp_path / "run")
    assert len(recs) == 18 and all(r["correct"] and r["status"] == "parsed" for r in recs)
    assert all(r["answer"].endswith("  \n") for r in recs)  # the row's reference, as given
    for c in configs:
        assert res["metrics"][c]["correct"] == sum(r["correct"] for r in recs if r["config"] == c) == 6
    on_disk = json.loads((tmp_path / "run" / "results.json").read_text())
    assert on_disk["metrics"]["overall"]["accuracy"] == 100.0


def test_results_are_read_again_from_the_raw_outputs_not_the_stored_verdicts(tmp_path):
    """results.json re-reads every raw output against the run's item manifest (#32.3): flipped stored verdicts
    are ignored, and a resume rewrites the honest figures."""
    data = make_data(["connection_verification"], 5, size=(72, 72))
    out = tmp_path / "run"
    first = evaluate_model("random", data=data, out=out, progress=False)
    recs = lines(out)
    flipped = [{**r, "correct": not r["correct"]} for r in recs]  # a verdict the output alone would not give
    (out / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in flipped))
    res = evaluate_model("random", data=data, out=out, progress=False)
    honest = sum(r["correct"] for r in recs)
    assert res["metrics"]["connection_verification"]["correct"] == honest \
        == first["metrics"]["connection_verification"]["correct"] != sum(r["correct"] for r in flipped)


def test_rows_are_read_as_ds_getitem_gives_them_with_each_image_decoded_once(monkeypatch):
    """The runner reads rows with each image decoded once (datasets decodes a list's first image twice): the same
    rows as ``ds[i]``, on a dataset, a selection of it (an indices mapping) and a formatted one (read as ds[i])."""
    import datasets

    from jigsaw_puzzles.inference.data import images_per_item, read_rows

    ds = make_data(["missing_piece_selection_easy"], 4)["missing_piece_selection_easy"]
    decodes = []
    original = datasets.Image.decode_example

    def counting(self, value, token_per_repo_id=None):
        decodes.append(1)
        return original(self, value, token_per_repo_id)
    for data in (ds, ds.select([3, 1]), ds.with_format("numpy")):
        indices = list(range(len(data)))
        expected = [data[i] for i in indices]
        monkeypatch.setattr(datasets.Image, "decode_example", counting)
        decodes.clear()
        got = read_rows(data, indices)
        monkeypatch.undo()
        assert [sorted(r) for r in got] == [sorted(r) for r in expected]
        for row, want in zip(got, expected):
            if data.format["type"] is None:
                assert {k: v for k, v in row.items() if k != "images"} == \
                    {k: v for k, v in want.items() if k != "images"}
            assert [np.asarray(im).tobytes() for im in row["images"]] == \
                [np.asarray(im).tobytes() for im in want["images"]]
        if data.format["type"] is None:
            assert len(decodes) == sum(len(r["images"]) for r in expected)  # once each
            assert all(im.mode == "RGB" for r in got for im in r["images"])
        assert images_per_item(data) == len(expected[0]["images"]) == 5
    assert images_per_item(ds.select([])) == 0
    # a custom dataset with a row without images and an image missing from a list reads as ds[i] reads it
    odd = ds.select([0, 1]).map(lambda row, i: {"images": None if i == 0 else [None, *row["images"][1:]]},
                                with_indices=True)
    assert [r["images"] is None for r in read_rows(odd, [0, 1])] == [r["images"] is None for r in (odd[0], odd[1])]
    assert read_rows(odd, [1])[0]["images"][0] is None and len(read_rows(odd, [1])[0]["images"]) == 5


def test_run_identity_is_typed_and_compared_field_by_field():
    from jigsaw_puzzles.inference import GenerationSettings, RunIdentity

    settings = GenerationSettings(max_new_tokens=7.0, temperature=0)
    assert settings == GenerationSettings(max_new_tokens=7) and settings.greedy
    assert GenerationSettings.from_dict(settings.to_dict()) == settings
    with pytest.raises(Exception):
        settings.max_new_tokens = 8  # frozen
    ident = RunIdentity("m", "openai", "test", 0, None, settings, "http://a/v1",
                        {"missing_piece_selection_hard": {"clip_model": "ViT-B-32"}})
    recorded = ident.to_dict()
    assert ident.differences(recorded) == {}
    assert set(ident.differences({**recorded, "api_base": "http://b/v1", "seed": 1})) == {"api_base", "seed"}
    other = {**recorded, "dataset_options": {"order_generation": {}}}  # another config's options: not compared
    assert ident.differences(other) == {}
    other = {**recorded, "generation": GenerationSettings(max_new_tokens=8).to_dict()}
    assert list(ident.differences(other)) == ["generation"]


def test_backend_registry_lists_each_backend_once():
    from jigsaw_puzzles.inference import BACKENDS, make_backend
    from jigsaw_puzzles.inference.backends import BuiltinBackend
    from jigsaw_puzzles.inference.openai_backend import OpenAIBackend
    from jigsaw_puzzles.inference.settings import GenerationSettings

    assert list(BACKENDS) == ["builtin", "transformers", "vllm", "openai"]
    b = make_backend("openai", "m", GenerationSettings(), api_base="http://127.0.0.1:9/v1/", timeout=3)
    assert isinstance(b, OpenAIBackend) and b.concurrency == BACKENDS["openai"].default_batch_size
    assert b.url == "http://127.0.0.1:9/v1/chat/completions" and b.timeout == 3
    assert isinstance(make_backend("builtin", "random", GenerationSettings(), num_proc=1), BuiltinBackend)
    with pytest.raises(ValueError, match="choose from builtin, transformers, vllm, openai"):
        make_backend("nope", "m", GenerationSettings())


def test_data_parallel_shards_are_merged(tmp_path, monkeypatch):
    data = make_data(["connection_verification", "order_restoration"], 9, size=(72, 72))
    out = tmp_path / "run"
    monkeypatch.setattr(runner_mod, "_sync_barrier", lambda world: None)
    monkeypatch.setenv("WORLD_SIZE", "2")
    for rank in (1, 0):  # rank 0 finishes last and merges
        monkeypatch.setenv("RANK", str(rank))
        monkeypatch.setenv("LOCAL_RANK", str(rank))
        evaluate_model("random", data=data, out=out, progress=False)
    assert not list(out.glob("predictions.rank*.jsonl"))
    recs = lines(out)
    assert len(recs) == 18 and len({r["id"] for r in recs}) == 18
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.setenv("RANK", "0")
    single = evaluate_model("random", data=data, out=tmp_path / "single", progress=False)
    assert json.loads((out / "results.json").read_text())["metrics"]["overall"]["accuracy"] == \
        pytest.approx(single["metrics"]["overall"]["accuracy"])


# ============================================================================================== transformers
def test_transformers_backend_tiny_vlm_end_to_end(tmp_path, tiny_vlm):
    data = make_data(["missing_piece_selection_easy", "anomaly_detection", "order_generation"], 3)
    out = tmp_path / "run"
    res = evaluate_model(tiny_vlm, backend="transformers", data=data, out=out, batch_size=2, max_new_tokens=5,
                         progress=False)
    assert res["complete"] and res["n_items"] == 9
    recs = lines(out)
    assert len(recs) == 9
    for r in recs:
        assert 1 <= r["completion_tokens"] <= 5 and r["prompt_tokens"] > 20 and r["latency_s"] > 0
        assert isinstance(r["output"], str) and r["correct"] in (True, False)
        assert r.get("finish") in (None, "truncated", "empty")
        if r.get("finish") == "truncated":  # cut by max_new_tokens, not ended by the model
            assert r["completion_tokens"] == 5
    cut = [r for r in recs if r.get("finish") == "truncated"]
    assert cut  # a random tiny model does not say EOS within 5 tokens
    for c in data:
        assert res["metrics"][c]["truncated"] == sum(r["config"] == c and r.get("finish") == "truncated" for r in recs)
        assert res["metrics"][c]["empty"] == sum(r["config"] == c and r.get("finish") == "empty" for r in recs)
    run = json.loads((out / "run.json").read_text())
    from transformers import AutoModelForImageTextToText

    n_params = AutoModelForImageTextToText.from_pretrained(tiny_vlm).num_parameters()
    assert run["parameters"] == n_params == run["backend_info"]["parameters"]
    assert run["generation"]["max_new_tokens"] == 5 and run["generation"]["greedy"]
    assert run["backend_info"]["model_class"] == "Qwen2VLForConditionalGeneration"
    # batching changes nothing (left padding, greedy)
    res1 = evaluate_model(tiny_vlm, backend="transformers", data=data, out=tmp_path / "bs1", batch_size=1,
                          max_new_tokens=5, progress=False)
    assert res1["complete"]
    by_id = {r["id"]: r["output"] for r in lines(tmp_path / "bs1")}
    assert {r["id"]: r["output"] for r in recs} == by_id


def test_transformers_prompt_has_images_in_order_then_question(tiny_vlm):
    from jigsaw_puzzles.inference.backends import GenerationSettings, Request, TransformersBackend

    b = TransformersBackend(tiny_vlm, GenerationSettings(max_new_tokens=2), batch_size=2)
    row = make_dataset("order_restoration", 1)[0]
    text = b.prompt_text(Request(row["id"], "order_restoration", row["question"], row["images"]))
    assert text.count("<|image_pad|>") == 4
    assert text.rindex("<|image_pad|>") < text.index(row["question"][:30])


def test_cli_eval_on_built_dataset_and_report(tmp_path, tiny_vlm, photo_dir, capsys):
    """The whole CLI path on datasets built by jigsaw_puzzles.load_dataset (small source folder)."""
    from jigsaw_puzzles.cli import main

    out = tmp_path / "runs" / "tiny"
    rc = main(["eval", "--model", tiny_vlm, "--source", str(photo_dir), "--split", "test",
               "--configs", "piece_localization_easy", "order_generation", "--max-items", "2",
               "--max-new-tokens", "3", "--batch-size", "2", "--out", str(out), "--no-progress"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "| Model |" in printed and "Random Guessing" in printed and "PL Easy" in printed
    assert len(lines(out)) == 4
    rc = main(["eval", "--model", "random", "--source", str(photo_dir), "--configs", "piece_localization_easy",
               "order_generation", "--max-items", "2", "--out", str(tmp_path / "runs" / "random"), "--no-progress"])
    assert rc == 0
    rc = main(["report", str(out), str(tmp_path / "runs" / "random"), "--out", str(tmp_path / "report"),
               "--params", "random=0"])
    assert rc == 0
    assert (tmp_path / "report" / "report.md").exists() and (tmp_path / "report" / "report.csv").exists()
    assert (tmp_path / "report" / "accuracy_vs_params.png").exists()  # the tiny model's count is in run.json


# ============================================================================================== openai
class _ChatHandler(BaseHTTPRequestHandler):
    requests: list = []
    fail_first_with_429 = True
    reject_ids: set = set()

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        cls = type(self)
        cls.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if cls.fail_first_with_429:
            cls.fail_first_with_429 = False
            return self._send(429, {"error": {"message": "rate limited"}}, {"Retry-After": "0"})
        first_image = body["messages"][-1]["content"][0].get("image_url", {}).get("url", "")
        if first_image in cls.reject_ids:  # items told apart by their pixels (questions are templates)
            return self._send(400, {"error": {"message": "content filtered"}})
        n_images = sum(1 for p in body["messages"][-1]["content"] if p["type"] == "image_url")
        reply = f" {n_images} images.\nAnswer: B"  # the image count shows what was sent; the answer is read
        return self._send(200, {"choices": [{"message": {"role": "assistant", "content": reply},
                                             "finish_reason": "stop"}],
                                "usage": {"prompt_tokens": 100 + n_images, "completion_tokens": 2}})

    def _send(self, code, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def chat_server():
    _ChatHandler.requests = []
    _ChatHandler.fail_first_with_429 = True
    _ChatHandler.reject_ids = set()
    with local_server(_ChatHandler) as url:
        yield url, _ChatHandler


def test_openai_backend_against_local_server(tmp_path, chat_server):
    import base64
    import io

    from PIL import Image

    url, handler = chat_server
    data = make_data(["missing_piece_selection_easy", "connection_verification"], 4)
    res = evaluate_model("my-served-vlm", api_base=url, api_key="sk-test", data=data, out=tmp_path / "run",
                         batch_size=3, max_new_tokens=9, progress=False,
                         backend_kwargs={"retry_base_delay": 0.01})
    assert res["backend"] == "openai" and res["complete"] and res["n_items"] == 8
    assert len(handler.requests) == 9  # 8 items + the one 429 retried
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["backend_info"]["retries"] == 1
    req = handler.requests[-1]
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test"
    body = req["body"]
    assert body["model"] == "my-served-vlm" and body["temperature"] == 0 and body["max_tokens"] == 9
    recs = {r["id"]: r for r in lines(tmp_path / "run")}
    assert all(r["output"] == f"{5 if r['config'].startswith('missing') else 2} images.\nAnswer: B"
               for r in recs.values())
    assert all(r["completion_tokens"] == 2 and r["extracted"] == "B" for r in recs.values())
    # images arrive as PNG data URLs, in the row's order, followed by the question (every item's question is
    # the paper's template, so items are told apart by their pixels)
    def pixels(image):
        return np.asarray(image.convert("RGB")).tobytes()

    sent = []
    for q in handler.requests[1:]:
        parts = q["body"]["messages"][-1]["content"]
        assert [p["type"] for p in parts[:-1]] == ["image_url"] * (len(parts) - 1) and parts[-1]["type"] == "text"
        images = []
        for p in parts[:-1]:
            head, b64 = p["image_url"]["url"].split(",", 1)
            assert head == "data:image/png;base64"
            images.append(pixels(Image.open(io.BytesIO(base64.b64decode(b64)))))
        sent.append((tuple(images), parts[-1]["text"]))
    for c, ds in data.items():
        for row in ds:
            assert (tuple(pixels(im) for im in row["images"]), row["question"]) in sent


def test_openai_errored_item_is_never_done_and_is_retried_on_resume(tmp_path, chat_server):
    url, handler = chat_server
    handler.fail_first_with_429 = False
    data = make_data(["piece_localization_easy"], 3, size=(72, 72))
    bad = data["piece_localization_easy"][1]
    from jigsaw_puzzles.inference.backends import image_to_data_url

    handler.reject_ids = {image_to_data_url(bad["images"][0])}
    res = evaluate_model("m", backend="openai", api_base=url, data=data, out=tmp_path / "run", batch_size=1,
                         progress=False, backend_kwargs={"retry_base_delay": 0.01})
    recs = {r["id"]: r for r in lines(tmp_path / "run")}
    assert len(handler.requests) == 3 and not res["complete"] and res["n_errors"] == 1 and res["n_items"] == 2
    assert "HTTP 400" in recs[bad["id"]]["error"] and recs[bad["id"]]["output"] == "" and not recs[bad["id"]]["correct"]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["status"] == "incomplete"
    handler.reject_ids = set()  # the cause is fixed: the same command answers only the errored item
    res = evaluate_model("m", backend="openai", api_base=url, data=data, out=tmp_path / "run", batch_size=1,
                         progress=False, backend_kwargs={"retry_base_delay": 0.01})
    assert len(handler.requests) == 4 and res["complete"] and res["n_errors"] == 0 and res["n_items"] == 3


def test_openai_gives_up_after_max_retries_and_resumes(tmp_path):
    from jigsaw_puzzles.inference.backends import GenerationSettings, Request
    from jigsaw_puzzles.inference.openai_backend import APIError, OpenAIBackend

    b = OpenAIBackend("m", GenerationSettings(), api_base="http://127.0.0.1:9/v1", max_retries=3,
                      sleep=lambda s: None)
    n = {"calls": 0}

    def always_busy(body, limit):
        assert 0 < limit <= b.timeout  # each attempt bounded as a whole
        n["calls"] += 1
        raise APIError(503, "overloaded")

    b._post = always_busy
    row = make_dataset("piece_localization_easy", 1, size=(72, 72))[0]
    with pytest.raises(RuntimeError, match="giving up after 3 retries"):
        list(b.generate([Request(row["id"], "piece_localization_easy", row["question"], row["images"])]))
    assert n["calls"] == 4 and b.retries == 3


# ============================================================================================== vllm (mocked)
def test_vllm_backend_builds_the_right_request(tmp_path, monkeypatch):
    calls = {}

    class SamplingParams:
        def __init__(self, **kw):
            calls["sampling"] = kw

    class LLM:
        def __init__(self, **kw):
            calls["llm"] = kw

        def chat(self, messages, sampling_params=None, use_tqdm=True, **kw):
            calls.setdefault("chat", []).append(messages)
            assert isinstance(sampling_params, SamplingParams)
            outs = []
            for conv in messages:
                n = sum(p["type"] == "image_url" for p in conv[-1]["content"])
                outs.append(types.SimpleNamespace(
                    prompt_token_ids=list(range(50 + n)),
                    outputs=[types.SimpleNamespace(text=f"Answer: A ({n} images)", token_ids=[1, 2, 3])]))
            return outs

    fake = types.ModuleType("vllm")
    fake.LLM, fake.SamplingParams, fake.__version__ = LLM, SamplingParams, "0.0-mock"
    monkeypatch.setitem(sys.modules, "vllm", fake)
    data = make_data(["missing_piece_selection_easy", "order_generation"], 3, size=(72, 72))
    res = evaluate_model("org/some-vlm", backend="vllm", data=data, out=tmp_path / "run", tensor_parallel_size=4,
                         batch_size=2, max_new_tokens=32, dtype="bfloat16", progress=False,
                         backend_kwargs={"max_model_len": 8192})
    assert res["complete"] and res["n_items"] == 6
    llm = calls["llm"]
    assert llm["model"] == "org/some-vlm" and llm["tensor_parallel_size"] == 4
    assert llm["limit_mm_per_prompt"] == {"image": 5} and llm["dtype"] == "bfloat16" and llm["max_model_len"] == 8192
    assert calls["sampling"]["temperature"] == 0 and calls["sampling"]["max_tokens"] == 32
    assert [len(c) for c in calls["chat"]] == [2, 1, 2, 1]  # batches of --batch-size conversations
    conv = calls["chat"][0][0]
    assert conv[-1]["role"] == "user"
    assert [p["type"] for p in conv[-1]["content"]] == ["image_url"] * 5 + ["text"]
    assert conv[-1]["content"][0]["image_url"]["url"].startswith("data:image/png;base64,")
    recs = lines(tmp_path / "run")
    assert {r["prompt_tokens"] for r in recs} == {55, 54} and {r["completion_tokens"] for r in recs} == {3}


def fake_vllm(monkeypatch, finish_reason="stop", load_error=None):
    class SamplingParams:
        def __init__(self, **kw):
            pass

    class LLM:
        def __init__(self, **kw):
            if load_error is not None:
                raise load_error

        def chat(self, messages, sampling_params=None, use_tqdm=True, **kw):
            return [types.SimpleNamespace(prompt_token_ids=[1] * 9, outputs=[types.SimpleNamespace(
                text="The pieces" if finish_reason == "length" else "", token_ids=[1, 2], finish_reason=finish_reason)])
                for _ in messages]

    fake = types.ModuleType("vllm")
    fake.LLM, fake.SamplingParams, fake.__version__ = LLM, SamplingParams, "0.0-mock"
    monkeypatch.setitem(sys.modules, "vllm", fake)


@pytest.mark.parametrize("finish_reason, finish", [("length", "truncated"), ("stop", "empty")])
def test_vllm_truncated_and_empty_answers_are_recorded_and_counted(tmp_path, monkeypatch, finish_reason, finish):
    fake_vllm(monkeypatch, finish_reason)
    data = make_data(["order_generation"], 3, size=(72, 72))
    res = evaluate_model("org/some-vlm", backend="vllm", data=data, out=tmp_path / "run", progress=False)
    assert res["complete"] and [r["finish"] for r in lines(tmp_path / "run")] == [finish] * 3
    assert res["metrics"]["order_generation"][finish] == 3


def test_vllm_model_that_cannot_be_loaded_is_one_line_and_leaves_no_run(tmp_path, monkeypatch):
    from jigsaw_puzzles.errors import UserError  # what the CLI prints as one line, exit code 2

    fake_vllm(monkeypatch, load_error=OSError("org/typo is not a local folder and is not a valid model identifier\n"
                                              "If this is a private repository, ..."))
    data = make_data(["order_generation"], 2, size=(72, 72))
    with pytest.raises(UserError, match="model org/typo: vLLM cannot load it: org/typo is not") as err:
        evaluate_model("org/typo", backend="vllm", data=data, out=tmp_path / "run", progress=False)
    assert "\n" not in str(err.value) and not (tmp_path / "run").exists()
