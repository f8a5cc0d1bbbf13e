"""VLMEvalKit export (issue #10 part 3): TSV round trip, the prompt VLMEvalKit builds from it, the dataset class.

VLMEvalKit is not on PyPI; its prompt logic is re-stated here from its source
(vlmeval/dataset/image_mcq.py, ``ImageMCQDataset.build_prompt``; vlmeval/dataset/image_base.py for several
images per row), and its modules are stubbed to run the dataset class we ship."""
from __future__ import annotations

import base64
import io
import string

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from fixtures.stubs import vlmevalkit_dataset_class
from jigsaw_puzzles import load_dataset
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.integrations.vlmevalkit import DATASET_CLASS_FILE, export, read_tsv
from jigsaw_puzzles.prompts import option_lines
from jigsaw_puzzles.scoring.score import score

CONFIGS = ["order_restoration", "connection_verification", "anomaly_detection", "order_generation"]


def vlmevalkit_prompt(line: dict) -> str:
    """ImageMCQDataset.build_prompt's text part (no hint column here)."""
    options = {c: line[c] for c in string.ascii_uppercase if c in line and not pd.isna(line[c])}
    prompt = f"Question: {line['question']}\n"
    if options:
        prompt += "Options:\n" + "".join(f"{k}. {v}\n" for k, v in options.items())
        prompt += "Please select the correct answer from the options above. \n"
    return prompt


@pytest.fixture(scope="module")
def exported(tmp_path_factory, photo_dir, cache_dir):
    data = {c: load_dataset(c, split="lite", source=photo_dir, cache_dir=cache_dir) for c in CONFIGS}
    out = tmp_path_factory.mktemp("lmudata")
    return data, export(data, out), out


def test_tsv_round_trip_images_and_prompts(exported):
    data, written, _ = exported
    for config, path in written.items():
        ds = data[config]
        table = pd.read_csv(path, sep="\t")  # what VLMEvalKit's load() does with a .tsv
        ours = read_tsv(path)
        assert len(table) == len(ours) == len(ds)
        for k, row in enumerate(ds):
            line = {**table.iloc[k].to_dict(), "image": ours[k]["image"]}
            assert line["answer"] == row["answer"] and line["category"] == config and line["prompt"] == row["question"]
            decoded = [Image.open(io.BytesIO(base64.b64decode(b))) for b in line["image"]]
            assert [np.asarray(im.convert("RGB")).tobytes() for im in decoded] == \
                   [np.asarray(im.convert("RGB")).tobytes() for im in row["images"]]
            assert len(set(ours[k]["image_path"])) == len(row["images"])
            prompt = vlmevalkit_prompt(line)
            if config in ("order_restoration", "connection_verification"):
                block = option_lines(row["options"]) + "\n"
                assert line["question"] == row["question"].replace(block, "", 1)  # the stem: ours minus options
                for letter, text in zip(string.ascii_uppercase, row["options"]):
                    assert prompt.count(f"{letter}. {text}\n") == 1  # every option printed exactly once
            else:  # not plain multiple choice: no option columns, the paper's prompt as it is
                assert not any(c in line for c in "ABCD") and prompt == f"Question: {row['question']}\n"


def test_the_dataset_class_prompts_like_eval_and_scores_with_the_package(exported, tmp_path, monkeypatch):
    data, written, root = exported

    class ImageMCQDataset:  # the two methods our class relies on, as in image_base.py
        def __init__(self, dataset):
            self.data = self.load_data(dataset)

        def dump_image(self, line):
            paths = []
            for b64, name in zip(eval_free_list(line["image"]), eval_free_list(line["image_path"])):
                path = tmp_path / name
                path.write_bytes(base64.b64decode(b64))
                paths.append(str(path))
            return paths

    def eval_free_list(text):
        import ast
        return ast.literal_eval(text)

    cls = vlmevalkit_dataset_class(monkeypatch, root, ImageMCQDataset)
    assert "JigsawPuzzles_anomaly_detection" in cls.supported_datasets()
    ds = cls("JigsawPuzzles_order_restoration")
    msgs = ds.build_prompt(0)
    row = data["order_restoration"][0]
    assert [m["type"] for m in msgs] == ["image"] * len(row["images"]) + ["text"]
    assert msgs[-1]["value"] == row["question"]
    predictions = ds.data.assign(prediction=["The answer is " + a for a in ds.data["answer"]])
    predictions.loc[0, "prediction"] = "I am not sure"
    eval_file = tmp_path / "pred.tsv"
    predictions.to_csv(eval_file, sep="\t", index=False)
    table = cls.evaluate(ds, str(eval_file)).set_index("config")
    expected = score(list(predictions["prediction"]), list(predictions["answer"]), list(predictions["category"]))
    assert table.loc["order_restoration", "accuracy"] == pytest.approx(expected["order_restoration"]["accuracy"])
    assert table.loc["order_restoration", "accuracy"] < 100.0
    assert (tmp_path / "pred_acc.csv").is_file()


def test_cli_export_and_its_user_errors(tmp_path, capsys, photo_dir, cache_dir, monkeypatch):
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "fresh"))  # the build runs here
    out = tmp_path / "lmu"
    assert main(["export", "vlmevalkit", "--out", str(out), "--source", str(photo_dir), "--split", "lite",
                 "--configs", "connection_verification", "--circular"]) == 0
    assert (out / "JigsawPuzzles_connection_verification.tsv").is_file()
    # #28.4: every step of the export shows a labelled bar on stderr (the source check, the build, the TSVs)
    err = capsys.readouterr().err
    rows = len(load_dataset("connection_verification", split="lite", source=photo_dir, cache_dir=cache_dir))
    for label in ("connection_verification [checking sources]", "connection_verification [lite]",
                  f"VLMEvalKit JigsawPuzzles_connection_verification.tsv: 100%|██████████| {rows}/{rows}",
                  f"VLMEvalKit JigsawPuzzles_connection_verification_circular.tsv: 100%|██████████| {3 * rows}/{3 * rows}"):
        assert label in err, label
    assert (out / DATASET_CLASS_FILE.name).is_file()
    empty = tmp_path / "not_an_export"
    empty.mkdir()
    assert main(["export", "vlmevalkit", "--out", str(out), "--from-export", str(empty)]) == 2
    assert "holds none of the configs" in capsys.readouterr().err
