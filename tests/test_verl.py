"""verl (issue #29 item 4): ``export verl`` writes verl's multimodal RL rows; ``compute_score`` is verl's custom reward.

The plain-Python parts (the row layout, ``compute_score``, loading the reward file by path as verl does) run in the
project's venv. The slow test runs verl 0.9.1 itself in a cached side venv (its transformers pin clashes with the
project's, tests/fixtures/venvs.py): verl's ``RLHFDataset`` reads both parquet files with a tiny Qwen2-VL processor
and drops no row, and verl's reward loading (``reward.custom_reward_function.{path,name}``, the naive reward
manager, responses decoded by the tokenizer) gives the rewards ``jp.rewards`` gives on the same completions.
"""
from __future__ import annotations

import importlib.util
import io
import json
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import jigsaw_puzzles as jp
from fixtures.photos import write_photos
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.integrations import verl
from jigsaw_puzzles.spec import CHOICE, get as get_spec

CONFIGS = ["order_restoration", "connection_verification", "anomaly_detection", "order_generation"]
VERL = ["verl==0.9.1", "transformers==5.10.4", "huggingface_hub==1.33.0", "tokenizers==0.22.2", "ray==2.60.0",
        "hydra-core==1.3.8", "omegaconf==2.3.1", "antlr4-python3-runtime==4.9.3", "codetiming==1.4.0",
        "pylatexenc==2.11", "tensordict==0.10.0", "pyvers==0.1.0", "msgpack==1.2.4", "jsonschema==4.26.0",
        "jsonschema-specifications==2025.9.1", "referencing==0.37.0", "rpds-py==2026.9.1"]


@pytest.fixture(scope="module")
def lite(photo_dir, cache_dir):
    return {c: jp.load_dataset(c, split="lite", source=photo_dir, cache_dir=cache_dir) for c in CONFIGS}


def completions(item: dict) -> list[str]:
    """Right, right in other words, right inside <answer>, wrong, half right (orders), unreadable."""
    answer, config = item["answer"], jp.config_from_id(item["id"])
    kind = get_spec(config).kind
    out = [answer, f"Let me look at the edges.\n<answer>{answer}</answer>", "I cannot tell.", ""]
    if kind == CHOICE:
        wrong = next(letter for letter in get_spec(config).letters if letter != answer)
        out += [f"The answer is ({answer}).", f"The answer is {wrong}.", f"{answer} or {wrong}"]
    elif answer.startswith("["):
        order = json.loads(answer)
        out += [f"Final order: {answer}", json.dumps([order[1], order[0], *order[2:]]), json.dumps(order[::-1])]
    else:  # anomaly detection: one field off
        out += [answer.replace("Judgment: A", "Judgment: B"), answer.splitlines()[0]]
    return out


def rewards_of(text: str, item: dict) -> dict[str, float]:
    """What ``jp.rewards`` gives one completion of ``item`` (the TRL face's columns)."""
    cols = {"answer": [item["answer"]], "config": [jp.config_from_id(item["id"])], "options": [item["options"]],
            "metadata": [item["metadata"]]}
    r = jp.rewards
    fns = {"acc": r.exact_reward, "position": r.position_reward, "adjacency": r.adjacency_reward,
           "format": r.format_reward}
    return {name: fn(completions=[text], **cols)[0] for name, fn in fns.items()}


def test_row_layout_is_verls(lite):
    for config, ds in lite.items():
        for k, item in enumerate(ds):
            row = verl.verl_row(item, k, "val")
            content = row["prompt"][0]["content"]
            assert row["prompt"][0]["role"] == "user" and len(row["prompt"]) == 1
            assert content == "<image>" * len(item["images"]) + item["question"]  # one placeholder per image
            assert content.count("<image>") == len(row["images"]) == get_spec(config).num_images
            assert row["data_source"] == config and row["reward_model"]["ground_truth"] == item["answer"]
            info = row["extra_info"]
            assert (info["id"], info["config"], info["index"], info["split"]) == (item["id"], config, k, "val")
            assert info["options"] == item["options"] and json.loads(info["metadata"]) == json.loads(item["metadata"])
    with pytest.raises(ValueError, match="placeholder"):
        verl.verl_row({**lite["order_restoration"][0], "question": "look at <image> 1"}, 0, "val")


def test_compute_score_is_the_packages_reader(lite):
    seen = set()
    for ds in lite.values():
        for item in ds:
            info = verl.verl_row(item, 0, "val")["extra_info"]
            for text in completions(item):
                want = rewards_of(text, item)
                got = verl.compute_score(data_source=jp.config_from_id(item["id"]), solution_str=text,
                                         ground_truth=item["answer"], extra_info={**info, "num_turns": 1})
                assert got == {"score": want["acc"], **want}, (item["id"], text)
                weighted = verl.compute_score(jp.config_from_id(item["id"]), text, item["answer"], info,
                                              reward="position", format_weight=0.5)
                assert weighted["score"] == want["position"] + 0.5 * want["format"]
                seen.add((want["acc"], want["position"] not in (0.0, 1.0), want["format"]))
    assert {(1.0, False, 1.0), (1.0, False, 0.0), (0.0, False, 0.0), (0.0, True, 1.0)} <= seen  # not vacuous


def test_compute_score_refuses_what_it_cannot_read(lite):
    item = lite["order_restoration"][0]
    with pytest.raises(ValueError, match="not a Jigsaw-Puzzles config"):
        verl.compute_score("openai/gsm8k", "A", item["answer"])
    with pytest.raises(ValueError, match="disagree"):
        verl.compute_score("order_restoration", "A", item["answer"], {"config": "order_generation"})
    with pytest.raises(ValueError, match="reward must be"):
        verl.compute_score("order_restoration", "A", item["answer"], reward="partial")
    with pytest.raises(ValueError):
        verl.compute_score("order_restoration", "A", "[2, 3, 1, 4]")  # a reference that is no option letter


def test_the_reward_file_loads_by_path_as_verl_loads_it(lite):
    """verl's ``load_extern_object``: ``spec_from_file_location`` on the file, under a name of its own."""
    spec = importlib.util.spec_from_file_location("custom_module_jp", verl.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    item = lite["connection_verification"][0]
    assert module.compute_score("connection_verification", f"({item['answer']})", item["answer"])["score"] == 1.0


def export_verl(tmp_path, photo_dir, cache_dir, train_size=8) -> tuple[Path, str]:
    train_photos = tmp_path / "train_photos"
    write_photos(train_photos, 12, start=100)
    out = tmp_path / "verl"
    stdout = io.StringIO()
    from contextlib import redirect_stdout

    with redirect_stdout(stdout):
        rc = main(["export", "verl", "--out", str(out), "--source", str(photo_dir), "--train-source",
                   str(train_photos), "--configs", *CONFIGS, "--split", "lite", "--train-size", str(train_size)])
    assert rc == 0
    return out, stdout.getvalue()


@pytest.mark.slow
def test_export_verl_writes_train_from_the_stream_and_val_from_the_evaluation(tmp_path, photo_dir, cache_dir, lite):
    out, printed = export_verl(tmp_path, photo_dir, cache_dir)
    train = pq.read_table(out / "train.parquet").to_pylist()
    val = pq.read_table(out / "val.parquet").to_pylist()
    assert len(train) == 8 and len(val) == sum(len(ds) for ds in lite.values())
    assert [r["extra_info"]["id"] for r in val] == [item["id"] for ds in lite.values() for item in ds]
    assert [r["extra_info"]["index"] for r in train] == list(range(8))
    assert {r["data_source"] for r in train} <= set(CONFIGS)
    assert not {r["extra_info"]["id"] for r in train} & {r["extra_info"]["id"] for r in val}
    for row in train + val:
        assert row["prompt"][0]["content"].count("<image>") == len(row["images"])
        assert all(im["bytes"][:8] == b"\x89PNG\r\n\x1a\n" for im in row["images"])
    reward_path = printed.split("custom_reward_function.path=")[1].split()[0]
    assert Path(reward_path).resolve() == Path(verl.__file__).resolve()
    assert main(["export", "verl", "--out", str(tmp_path / "x"), "--train-size", "-1"]) == 2


@pytest.mark.slow
def test_verl_reads_the_rows_and_its_reward_loading_gives_jp_rewards(tmp_path, photo_dir, cache_dir, lite):
    from fixtures.venvs import REPO, side_env, side_venv

    out, _ = export_verl(tmp_path, photo_dir, cache_dir)
    val = {item["id"]: item for ds in lite.values() for item in ds}
    job = {"parquet": [str(out / "train.parquet"), str(out / "val.parquet")], "reward_path": str(verl.__file__),
           "completions": {i: completions(item) for i, item in val.items()}, "out": str(tmp_path / "verl_side.json")}
    (tmp_path / "job.json").write_text(json.dumps(job))
    python = side_venv("verl", VERL)
    proc = subprocess.run([str(python), str(REPO / "tests" / "_verl_side.py"), str(tmp_path / "job.json")],
                          cwd=tmp_path, env=side_env(), capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads((tmp_path / "verl_side.json").read_text())
    assert result["versions"] == {"verl": "0.9.1", "transformers": "5.10.4"}
    for path, seen in result["files"].items():
        assert seen["rows"] == seen["kept"] > 0, f"verl dropped {seen['rows'] - seen['kept']} rows of {path}"
        for row in seen["items"]:  # every <image> became an image part and the processor's image tokens
            n = get_spec(jp.config_from_id(row["id"])).num_images
            assert row["image_parts"] == row["vision_starts"] == n, row["id"]
            if row["id"] in val:
                assert row["text"] == val[row["id"]]["question"]
    assert set(result["rewards"]) == set(val)
    assert result["pkg_rewards"] == result["rewards"]  # reward.custom_reward_function.path=pkg://... gives the same
    for item_id, got in result["rewards"].items():
        for text, reward in zip(job["completions"][item_id], got, strict=True):
            want = rewards_of(text, val[item_id])
            assert reward == {"reward_score": want["acc"], "score": want["acc"], **want}, (item_id, text)
