"""Circular evaluation (issue #22 item 2, and the circular half of item 4): rotations are generated items with ids
that name them, a biased model scores exactly 0 (at most chance) under --circular, the solver keeps its accuracy
where it is always right, and the runner, report, human test, lmms-eval and VLMEvalKit outputs carry it."""
from __future__ import annotations

import hashlib
import io
import json
import string
import sys
from http.server import BaseHTTPRequestHandler

import datasets
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from fixtures.photos import make_photo
from fixtures.rows import make_rows
from fixtures.stubs import local_server, reply_json, vlmevalkit_dataset_class
from jigsaw_puzzles import geometry
from jigsaw_puzzles.baselines import solve
from jigsaw_puzzles.generation.circular import (circular_aggregate, is_circular, is_rotation, parse_rotation,
                                     rotate, rotation_id, rotations)
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.inference import RunMismatchError, evaluate_model
from jigsaw_puzzles.scoring.score import binomial_pmf, circular_score, critical_count, null_distribution, score_items
from jigsaw_puzzles.spec import LETTERS, config_from_id, features, get as get_spec
from jigsaw_puzzles.generation.tasks.piece_localization import draw_masks

#: multiple-choice configs, one per way options turn (images, labels, texts), paper and grid
CHOICE = ["missing_piece_selection_easy", "piece_localization_easy", "piece_localization_hard",
          "connection_verification", "order_restoration", "connection_verification_3x3_8dir",
          "piece_localization_4x4_k6", "missing_piece_selection_easy_2x3_k3", "order_restoration_2x3"]


def small(config: str, n: int):
    """A dataset of ``n`` rows on small photos (fast to send)."""
    return datasets.Dataset.from_list(make_rows(config, n, size=(144, 108)), features=features())


def png(image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def rows():
    return {c: make_rows(c, 3) for c in CHOICE}


@pytest.mark.parametrize("config", CHOICE)
def test_rotations_are_deterministic_name_themselves_and_move_the_answer_through_every_letter(rows, config):
    k = get_spec(config).num_options
    for row in rows[config]:
        before = [png(im) for im in row["images"]]
        first, again = rotations(row, config), rotations(row, config)
        assert len(first) == k
        assert first[0]["id"] == row["id"] and first[0]["answer"] == row["answer"]
        assert [png(im) for im in first[0]["images"]] == before
        assert [png(im) for im in row["images"]] == before  # the row itself is never drawn on
        slot = LETTERS.index(row["answer"])
        for r, (a, b) in enumerate(zip(first, again)):
            assert a["id"] == b["id"] == rotation_id(row["id"], r) == (row["id"] if r == 0 else f"{row['id']}#circ{r}")
            assert parse_rotation(a["id"]) == (row["id"], r) and is_rotation(a["id"]) == (r > 0)
            assert config_from_id(a["id"]) == config
            assert [png(im) for im in a["images"]] == [png(im) for im in b["images"]]  # byte-stable
            assert (a["question"], a["options"], a["metadata"]) == (b["question"], b["options"], b["metadata"])
            assert a["answer"] == LETTERS[(slot - r) % k]
            meta = json.loads(a["metadata"])
            assert meta["slot"] == LETTERS.index(a["answer"])
            if r:
                assert meta["circular"] == {"rotation": r, "of": k, "item": row["id"],
                                            "option_order": [(i + r) % k for i in range(k)]}
        assert sorted(a["answer"] for a in first) == list(LETTERS[:k])  # the answer sits once under every letter


@pytest.mark.parametrize("config", CHOICE)
def test_the_solver_answers_every_rotation_as_it_answers_the_item(rows, config):
    """Where the solver is right, it is right under every rotation: circular accuracy = plain accuracy."""
    right = 0
    for row in rows[config]:
        verdicts = [solve(r, config).text == r["answer"] for r in rotations(row, config)]
        assert verdicts[0], f"{row['id']}: the solver misses the item itself"
        assert all(verdicts), f"{row['id']}: the solver misses rotation(s) {[r for r, v in enumerate(verdicts) if not v]}"
        right += 1
    assert right == len(rows[config])


def test_rotated_options_are_the_original_options_moved(rows):
    cv = rows["connection_verification"][0]
    r1 = rotate(cv, "connection_verification", 1)
    assert r1["options"] == cv["options"][1:] + cv["options"][:1]
    assert r1["question"].count("A. " + cv["options"][1]) == 1 and ("C. " + cv["options"][0]) in r1["question"]
    assert [png(im) for im in r1["images"]] == [png(im) for im in cv["images"]]
    mps = rows["missing_piece_selection_easy"][0]
    r3 = rotate(mps, "missing_piece_selection_easy", 3)
    assert r3["options"] == mps["options"] and r3["question"] == mps["question"]
    assert [png(im) for im in r3["images"]] == [png(mps["images"][i]) for i in (0, 4, 1, 2, 3)]
    orr = rows["order_restoration"][0]
    meta, r2 = json.loads(orr["metadata"]), json.loads(rotate(orr, "order_restoration", 2)["metadata"])
    assert r2["option_orders"] == meta["option_orders"][2:] + meta["option_orders"][:2]


@pytest.mark.parametrize("config", ["piece_localization_hard", "piece_localization_4x4_k6"])
def test_piece_localization_labels_are_redrawn_as_the_generator_draws_them(config):
    """The relabelled board is the board drawn with those labels on the clean photo, pixel for pixel."""
    (row,) = make_rows(config, 1)
    sid = row["source_id"]
    photo = next(make_photo(k, (384, 288)) for k in range(64)
                 if hashlib.sha256(f"0:{k}".encode()).hexdigest()[:16] == sid)
    meta = json.loads(row["metadata"])
    rows_, cols = meta["grid"]
    k = get_spec(config).num_options
    board = row["images"][0]
    photo = photo.crop((0, 0, board.width, board.height))
    for r in range(k):
        rotated = rotate(row, config, r)
        expected = photo.copy()
        cells = [meta["masked_cells"][(i + r) % k] for i in range(k)]
        draw_masks(expected, geometry.grid_boxes(expected.size, rows_, cols), cells, LETTERS[:k])
        assert np.array_equal(np.asarray(rotated["images"][0].convert("RGB")), np.asarray(expected))
        assert json.loads(rotated["metadata"])["labels"] == dict(zip(LETTERS[:k], cells))
        assert png(rotated["images"][1]) == png(row["images"][1])  # the piece is the same
        piece = json.loads(rotated["metadata"])["piece_cell"]
        assert json.loads(rotated["metadata"])["labels"][rotated["answer"]] == piece


@pytest.mark.parametrize("config", ["anomaly_detection", "order_generation", "order_generation_3x3"])
def test_configs_that_are_not_multiple_choice_have_no_rotations(config):
    (row,) = make_rows(config, 1)
    assert not is_circular(config)
    assert rotations(row, config) == [row]
    with pytest.raises(ValueError, match="not multiple choice"):
        rotate(row, config, 1)


def test_a_malformed_row_is_refused_not_rotated(rows):
    row = dict(rows["connection_verification"][0])
    with pytest.raises(ValueError, match="rotations 0 to 2"):
        rotate(row, "connection_verification", 3)
    with pytest.raises(ValueError, match="not a connection_verification row"):
        rotate({**row, "answer": "D"}, "connection_verification", 1)
    with pytest.raises(ValueError, match="exactly once"):
        rotate({**row, "question": row["question"].replace("A. ", "A) ")}, "connection_verification", 1)
    pl = rows["piece_localization_hard"][0]
    with pytest.raises(ValueError, match="cannot be redrawn"):
        rotate({**pl, "metadata": "{}"}, "piece_localization_hard", 1)


def test_circular_score_is_the_exact_null_of_products_of_chances():
    n, k = 40, 4
    groups = [[True] * k] * 3 + [[True, True, False, True]] * (n - 3)
    block = circular_score(groups, [[1 / k] * k] * n)
    p = (1 / k) ** k
    assert block["correct"] == 3 and block["n"] == n and block["accuracy"] == pytest.approx(7.5)
    assert block["chance"] == pytest.approx(100 * p)
    pmf = binomial_pmf(n, p)
    crit = int(np.argmax(np.concatenate((np.cumsum(pmf[::-1])[::-1], [0.0])) < 0.05))
    assert crit == critical_count(null_distribution([p] * n)) and block["critical_value"] == pytest.approx(100 * crit / n)
    assert block["p_value"] == pytest.approx(pmf[3:].sum())
    tiny = circular_score([[True, True]], [[0.5, 0.5]])  # even 1 of 1 at chance 1/4 is not significant
    assert tiny["critical_value"] != tiny["critical_value"]
    with pytest.raises(ValueError):
        circular_score([[True]], [[0.5, 0.5]])


# ------------------------------------------------------------------------------------------------ runs
class Biased(BaseHTTPRequestHandler):
    """A model with one answer per question kind: always "A", or always "Judgment: A" on Anomaly Detection."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = body["messages"][-1]["content"]
        text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
        answer = "Judgment: A\nError Position:\nError Type:" if "Judgment:" in text else "A"
        reply_json(self, {"choices": [{"message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]})


@pytest.fixture
def biased():
    with local_server(Biased) as url:
        yield url


BIASED_CONFIGS = ["piece_localization_hard", "connection_verification", "order_restoration", "anomaly_detection"]


def test_a_biased_model_scores_the_constant_row_plain_and_exactly_zero_circular(biased, tmp_path):
    data = {c: small(c, 8) for c in BIASED_CONFIGS}
    res = evaluate_model("always-a", backend="openai", api_base=biased, api_key="x", data=data, batch_size=4,
                         out=tmp_path / "run", progress=False, circular=True,
                         backend_kwargs={"retry_base_delay": 0.0, "max_retries": 1})
    assert res["complete"]
    for config in BIASED_CONFIGS:
        m, answers = res["metrics"][config], data[config]["answer"]
        if config == "anomaly_detection":  # not multiple choice: asked once, no circular figure
            assert "circular" not in m and m["n"] == 8
            assert m["accuracy"] == pytest.approx(100 * answers.count("Judgment: A\nError Position:\nError Type:") / 8)
            continue
        k = get_spec(config).num_options
        assert m["n"] == 8 and m["accuracy"] == pytest.approx(100 * answers.count("A") / 8)  # the plain figure
        block = m["circular"]
        assert block["accuracy"] == 0.0 and block["correct"] == 0 and block["n"] == 8 and block["rotations"] == k
        assert block["chance"] == pytest.approx(100 / k ** k) and block["accuracy"] <= block["chance"]
        crit = critical_count(null_distribution([1 / k ** k] * 8))
        assert block["critical_value"] == pytest.approx(100 * crit / 8) if crit <= 8 else block["critical_value"] != \
            block["critical_value"]
        assert block["p_value"] == 1.0
    records = [json.loads(line) for line in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    assert len(records) == 8 * (4 + 3 + 4 + 1)
    assert {r["id"] for r in records if is_rotation(r["id"])} == {
        rotation_id(i, r) for c in BIASED_CONFIGS[:3] for i in data[c]["id"] for r in range(1, get_spec(c).num_options)}
    # a plain run gives the plain figures of the circular run, and the two never mix in one directory
    plain = evaluate_model("always-a", backend="openai", api_base=biased, api_key="x", data=data, batch_size=4,
                           out=tmp_path / "plain", progress=False,
                           backend_kwargs={"retry_base_delay": 0.0, "max_retries": 1})
    for config in BIASED_CONFIGS:
        assert {k: v for k, v in res["metrics"][config].items() if k != "circular"} == plain["metrics"][config]
    # paired comparison and analysis read a circular run's items as asked (rotation 0), never its rotations
    from jigsaw_puzzles.analysis.runs import load_analysis_run
    from jigsaw_puzzles.reporting.compare import compare

    paired = compare(tmp_path / "plain", tmp_path / "run")
    assert {p.config: (p.n, p.diff) for p in paired["configs"]} == {c: (8, 0.0) for c in BIASED_CONFIGS}
    assert len(load_analysis_run(tmp_path / "run").records) == 8 * len(BIASED_CONFIGS)
    with pytest.raises(RunMismatchError, match="variant"):
        evaluate_model("always-a", backend="openai", api_base=biased, api_key="x", data=data, batch_size=4,
                       out=tmp_path / "plain", progress=False, circular=True)
    with pytest.raises(RunMismatchError, match="variant"):
        evaluate_model("always-a", backend="openai", api_base=biased, api_key="x", data=data, batch_size=4,
                       out=tmp_path / "run", progress=False)


def test_the_solver_keeps_its_accuracy_under_circular_where_it_is_always_right(rows, tmp_path):
    configs = ["piece_localization_hard", "connection_verification", "missing_piece_selection_easy"]
    data = {c: datasets.Dataset.from_list(rows[c], features=features()) for c in configs}
    res = evaluate_model("solver", data=data, out=tmp_path / "run", progress=False, circular=True, max_items=2)
    for c in configs:
        m = res["metrics"][c]
        assert m["n"] == 2 and m["accuracy"] == 100.0
        assert m["circular"]["accuracy"] == m["accuracy"] and m["circular"]["n"] == 2
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["variant"]["circular"] is True and run["max_items"] == 2


def test_cli_eval_circular_and_the_report_show_the_circular_figure(tmp_path, capsys, photo_dir, cache_dir):
    out = tmp_path / "run"
    assert main(["eval", "--model", "random", "--circular", "--configs", "connection_verification",
                 "anomaly_detection", "--source", str(photo_dir), "--cache-dir", cache_dir, "--max-items", "3",
                 "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "### Circular evaluation" in text and "`connection_verification` | 3 | 3 |" in text
    results = json.loads((out / "results.json").read_text())
    assert "circular" in results["metrics"]["connection_verification"]
    assert "circular" not in results["metrics"]["anomaly_detection"]
    assert results["metrics"]["connection_verification"]["n"] == 3
    assert "random [circular]" in text


def test_circular_aggregate_uses_only_items_with_every_rotation_answered():
    rows_ = make_rows("piece_localization_easy", 2)
    rotated = [r for row in rows_ for r in rotations(row, "piece_localization_easy")][:-1]  # one rotation missing
    outputs = [r["answer"] for r in rotated]
    verdicts = score_items(outputs, [r["answer"] for r in rotated], "piece_localization_easy")
    m = circular_aggregate([r["id"] for r in rotated], verdicts, [r["answer"] for r in rotated],
                           ["piece_localization_easy"] * len(rotated))["piece_localization_easy"]
    assert m["n"] == 2 and m["circular"]["n"] == 1 and m["circular"]["n_partial"] == 1


# ------------------------------------------------------------------------------------------------ harnesses
def test_vlmevalkit_circular_tsv_follows_vlmevalkits_layout(rows, tmp_path, monkeypatch):
    from jigsaw_puzzles.integrations.vlmevalkit import export, read_tsv

    data = {c: datasets.Dataset.from_list(rows[c], features=features())
            for c in ["connection_verification", "missing_piece_selection_easy"]}
    data["anomaly_detection"] = small("anomaly_detection", 2)
    written = export(data, tmp_path, circular=True)
    assert set(written) == {"connection_verification", "connection_verification_circular",
                            "missing_piece_selection_easy", "missing_piece_selection_easy_circular",
                            "anomaly_detection"}
    for config in ("connection_verification", "missing_piece_selection_easy"):
        path = written[f"{config}_circular"]
        assert path.name == f"JigsawPuzzles_{config}_circular.tsv"
        table, ours = pd.read_csv(path, sep="\t"), read_tsv(path)
        k, n = get_spec(config).num_options, len(data[config])
        assert len(table) == n * k
        assert sorted(table["index"]) == sorted(i + r * 10 ** 6 for i in range(n) for r in range(k))
        assert list(table["g_index"]) == [int(i % 10 ** 6) for i in table["index"]]  # VLMEvalKit's g_index
        for line, parsed in zip(table.to_dict("records"), ours):
            i, r = line["g_index"], line["index"] // 10 ** 6
            expected = rotate(data[config][i], config, r)
            assert line["answer"] == expected["answer"] and line["id"] == expected["id"]
            assert [line[c] for c in string.ascii_uppercase[:k]] == expected["options"]
            images = [Image.open(io.BytesIO(__import__("base64").b64decode(b))) for b in parsed["image"]]
            assert [png(im.convert("RGB")) for im in images] == [png(im.convert("RGB")) for im in expected["images"]]
    # the dataset class scores a circular file per group, as VLMEvalKit does with g_index
    cls = vlmevalkit_dataset_class(monkeypatch, tmp_path, type("ImageMCQDataset", (), {
        "__init__": lambda self, d: setattr(self, "data", self.load_data(d))}))
    assert "JigsawPuzzles_connection_verification_circular" in cls.supported_datasets()
    assert "JigsawPuzzles_anomaly_detection_circular" not in cls.supported_datasets()
    ds = cls("JigsawPuzzles_connection_verification_circular")
    pred = ds.data.assign(prediction=["A"] * len(ds.data))  # the biased model
    eval_file = tmp_path / "pred.tsv"
    pred.to_csv(eval_file, sep="\t", index=False)
    table = cls.evaluate(ds, str(eval_file)).set_index("config").loc["connection_verification"]
    plain = [r["answer"] for r in rows["connection_verification"]]
    assert table["n"] == len(plain) and table["accuracy"] == pytest.approx(100 * plain.count("A") / len(plain))
    assert table["circular_accuracy"] == 0.0 and table["circular_chance"] == pytest.approx(100 / 27)


def test_lmms_eval_circular_tasks_expand_rotations_and_score_them(rows, tmp_path):
    from jigsaw_puzzles.integrations.lmms_eval_tasks import write_tasks

    export = tmp_path / "export"
    for c in ("connection_verification", "anomaly_detection"):
        (export / c).mkdir(parents=True)
    groups = write_tasks(str(export), tmp_path / "tasks", circular=True)
    assert groups["jigsaw_puzzles_circular"] == ["jigsaw_puzzles_circular_connection_verification"]
    assert groups["jigsaw_puzzles_lite_circular"] == ["jigsaw_puzzles_lite_circular_connection_verification"]
    yaml = (tmp_path / "tasks" / "jigsaw_puzzles_lite_circular_connection_verification.yaml").read_text()
    assert "process_docs: !function utils.circular_docs" in yaml and "test_split: lite" in yaml
    assert "metric: jigsaw_circular_accuracy" in yaml and "aggregation: !function utils.aggregate_circular" in yaml
    assert "dataset_name: connection_verification" in yaml
    sys.path.insert(0, str(tmp_path / "tasks"))
    try:
        import utils as hooks  # the hooks as lmms-eval imports them from the task folder
    finally:
        sys.path.pop(0)
        sys.modules.pop("utils", None)
    ds = datasets.Dataset.from_list(rows["connection_verification"], features=features())
    docs = hooks.circular_docs(ds)
    assert [d["id"] for d in docs] == [rotation_id(i, r) for i in ds["id"] for r in range(3)]
    items = [hooks.process_results_circular(d, ["A"]) for d in docs]
    assert hooks.aggregate_circular([i["jigsaw_circular_accuracy"] for i in items]) == 0.0
    assert hooks.aggregate_plain([i["jigsaw_plain_accuracy"] for i in items]) == pytest.approx(
        100 * ds["answer"].count("A") / len(ds))
    right = [hooks.process_results_circular(d, [d["answer"]]) for d in docs]
    assert hooks.aggregate_circular([i["jigsaw_circular_accuracy"] for i in right]) == 100.0


def test_human_test_circular_shows_rotations_and_reports_the_circular_figure(tmp_path):
    from jigsaw_puzzles.human.session import HumanTest

    data = {"piece_localization_easy": small("piece_localization_easy", 2),
            "anomaly_detection": small("anomaly_detection", 1)}
    test = HumanTest(tmp_path / "human", data, "lite", circular=True)
    try:
        assert len(test.item_ids) == 2 * 2 + 1
        person = test.participant("p01")
        for item_id in list(person.order):
            row = test.row(item_id)
            config = test.config_of(item_id)
            answer = "A" if config != "anomaly_detection" else ("A",)
            person.record(item_id, answer, 1.0)
        results = json.loads((tmp_path / "human" / "participants" / "p01" / "results.json").read_text())
        m = results["metrics"]["piece_localization_easy"]
        assert m["n"] == 2 and m["circular"]["accuracy"] == 0.0 and m["circular"]["chance"] == pytest.approx(25.0)
        assert results["complete"]
        run = json.loads((tmp_path / "human" / "participants" / "p01" / "run.json").read_text())
        assert run["variant"]["circular"] is True
        assert row is not None
    finally:
        test.close()
    with pytest.raises(Exception, match="circular"):
        HumanTest(tmp_path / "human", data, "lite")  # the same folder without --circular is refused


@pytest.mark.slow
def test_lmms_eval_runs_the_circular_group(tmp_path, biased, photo_dir):
    """lmms-eval itself runs a circular task (process_docs, the two metrics) against the biased stub."""
    import os
    import subprocess

    pytest.importorskip("lmms_eval", reason="the [harness] extra (lmms-eval) is not installed")
    from jigsaw_puzzles.publishing.export import build

    export = tmp_path / "export"
    build(export, source=photo_dir, configs=["connection_verification"], cache_dir=str(tmp_path / "cache"))
    tasks = tmp_path / "tasks"
    assert main(["lmms-eval", "--dataset", str(export), "--out", str(tasks), "--circular"]) == 0
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "OPENAI_API_KEY": "x",
           "HF_DATASETS_CACHE": str(tmp_path / "hf"), "HF_HOME": str(tmp_path / "hfhome")}
    proc = subprocess.run([sys.executable, "-m", "lmms_eval", "--include_path", str(tasks), "--tasks",
                           "jigsaw_puzzles_lite_circular", "--model", "openai", "--model_args",
                           f"model_version=stub,base_url={biased},api_key=x", "--batch_size", "1",
                           "--output_path", str(tmp_path / "lmms")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (result_file,) = (tmp_path / "lmms").rglob("*_results.json")
    got = json.loads(result_file.read_text())["results"]["jigsaw_puzzles_lite_circular_connection_verification"]
    lite = datasets.load_dataset(str(export), "connection_verification", split="lite")
    assert got["jigsaw_circular_accuracy,none"] == 0.0
    assert got["jigsaw_plain_accuracy,none"] == pytest.approx(100 * lite["answer"].count("A") / len(lite))
