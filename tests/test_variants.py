"""Prompt and input variants: the CoT prompt and its extraction, composite sheets, blind runs (#12 part 1)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import jigsaw_puzzles as jp
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.scoring.extraction import classify_response
from jigsaw_puzzles.inference import evaluate_model
from jigsaw_puzzles.inference.rundir import RunMismatchError
from jigsaw_puzzles.reporting.report import make_report
from jigsaw_puzzles.generation.variants import COT_INSTRUCTION, Variant, composite, cot_question

CONFIGS = [c for c in jp.spec.CONFIGS if c != "missing_piece_selection_hard"]


@pytest.fixture(scope="module")
def lite():
    return {c: jp.load_dataset(c, split="lite") for c in CONFIGS}


def test_cot_drops_every_answer_only_clause_and_asks_for_a_final_answer(lite):
    for c, ds in lite.items():
        paper = ds[0]["question"]
        cot = cot_question(paper)
        assert not re.search(r"\bonly\b|explanation|additional text|extra text", cot), (c, cot)
        assert cot.endswith(COT_INSTRUCTION.strip())
        # everything else of the paper's question is kept: the options and the format it asks for
        for line in paper.splitlines():
            if re.match(r"^[A-D]\. ", line) or line.startswith(("Judgment", "Error")):
                assert line in cot
    assert Variant().apply("Q", ["img"]) == ("Q", ["img"], None)  # the paper's setting changes nothing


COT_OUTPUTS = [  # reasoning that names other answers, then the final answer
    ("order_restoration", "Option A [2, 4, 3, 1] puts image 2 top-left, which seems wrong. Option D fits best.\n"
                          "Final answer: D", "D"),
    ("order_restoration", "A has image 2 first. B has image 1 first, so B is plausible. However C is better.\n\n"
                          "Final answer: C", "C"),
    ("order_generation", "Image 3 has the sky, maybe [3, 1, 2, 4]? No: image 2 continues the horizon.\n"
                         "Final answer: [3, 2, 4, 1]", "[3, 2, 4, 1]"),
    ("anomaly_detection", "The top-left looks fine. The bottom-right is upside down, so Judgment: B; rotated.\n"
                          "Final answer:\nJudgment: B\nError Position: D\nError Type: A",
     "Judgment: B\nError Position: D\nError Type: A"),
    ("anomaly_detection", "All four seams continue; nothing is mirrored.\nFinal answer:\nJudgment: A\n"
                          "Error Position:\nError Type:", "Judgment: A\nError Position:\nError Type:"),
    ("connection_verification", "Image 1's right edge continues into image 2: horizontal, not B or C.\n"
                                "Final answer: A", "A"),
    ("piece_localization_hard", "The piece shows grass, like areas C and D. It meets the leaf at C.\n"
                                "Final answer: C", "C"),
    ("missing_piece_selection_easy", "Candidates B and D are the wrong colour. A vs C: C matches.\n"
                                     "Final answer: **C**", "C"),
]


@pytest.mark.parametrize("config,text,want", COT_OUTPUTS)
def test_extraction_reads_the_final_answer_after_reasoning(config, text, want):
    e = classify_response(text, config)
    assert e.status == "parsed" and e.answer == want


def test_composite_sheet_holds_every_image_pixel_for_pixel(lite):
    for c in ("missing_piece_selection_easy", "order_restoration", "connection_verification"):
        row = lite[c][0]
        question, images, boxes = Variant(input_format="composite").apply(row["question"], row["images"])
        assert len(images) == 1 and len(boxes) == len(row["images"])
        assert question.startswith(f'The input is a single image showing {len(boxes)} labelled panels')
        assert question.endswith(row["question"])
        for im, box in zip(row["images"], boxes):
            assert np.array_equal(np.asarray(images[0].crop(box)), np.asarray(im.convert("RGB")))
    row = lite["anomaly_detection"][0]  # one image: unchanged
    assert Variant(input_format="composite").apply(row["question"], row["images"])[1:] == (row["images"], None)
    sheet, boxes = composite([row["images"][0]] * 7)  # wraps at three per row
    assert len({b[1] for b in boxes}) == 3 and sheet.width < 4 * row["images"][0].width


def test_variant_rejects_what_cannot_be_combined():
    with pytest.raises(UsageError):
        Variant(blind=True, input_format="composite")
    with pytest.raises(UsageError):
        Variant(prompt_style="fewshot")
    assert Variant("cot", "composite").tag == " [cot, composite]" and Variant().tag == ""
    assert Variant.from_dict(Variant("cot", blind=True).to_dict()) == Variant("cot", blind=True)


@pytest.mark.slow
def test_baselines_under_variants_and_the_report_names(tmp_path, lite):
    data = {c: ds for c, ds in lite.items()}
    paper = evaluate_model("solver", data=data, out=tmp_path / "paper", progress=False)
    comp = evaluate_model("solver", data=data, out=tmp_path / "comp", progress=False, input_format="composite")
    assert comp["complete"]
    # the solver reads the panels back from the sheet: the same answers as from separate images
    by_id = lambda d: {r["id"]: r["output"] for r in map(json.loads, (d / "predictions.jsonl").read_text().splitlines())}
    assert by_id(tmp_path / "paper") == by_id(tmp_path / "comp")
    blind = {m: evaluate_model(m, data=data, out=tmp_path / f"{m}-blind", progress=False, blind=True)
             for m in ("random", "solver")}
    # no image: no baseline beats chance (a leak in the text would show here). 14 tests of one family: each at
    # 0.05 / 14 (Bonferroni), or a fair guesser fails one about half the time (as the random one does on
    # generator 3.0.0's PL-hard Lite items: 6 of 11, p = 0.034)
    for m, res in blind.items():
        for c in CONFIGS:
            assert res["metrics"][c]["p_value"] > 0.05 / (len(CONFIGS) * len(blind)), (m, c, res["metrics"][c])
    # with the images, the same solver is above chance on (nearly) every config of these 13 items each
    assert sum(paper["metrics"][c]["p_value"] < 0.05 for c in CONFIGS) >= len(CONFIGS) - 1
    run = json.loads((tmp_path / "solver-blind" / "run.json").read_text())
    assert run["variant"] == {"prompt_style": "paper", "input_format": "pieces", "blind": True}
    assert "variant" not in json.loads((tmp_path / "paper" / "run.json").read_text())
    with pytest.raises(RunMismatchError):  # a resume never mixes variants
        evaluate_model("solver", data=data, out=tmp_path / "solver-blind", progress=False)
    with pytest.raises(RunMismatchError):
        evaluate_model("solver", data=data, out=tmp_path / "paper", progress=False, prompt_style="cot")
    rep = make_report([tmp_path / d for d in ("paper", "comp", "solver-blind", "random-blind")], out=None, stream=None)
    names = [r["name"] for r in rep["rows"] if r["kind"] == "run"]
    assert names == ["solver", "solver [composite]", "solver [blind]", "random [blind]"]


def test_cli_variant_options(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--model", "random", "--split", "lite", "--configs", "connection_verification",
                 "--prompt-style", "cot", "--max-items", "2", "--no-progress"]) == 0
    assert (tmp_path / "runs" / "random-lite-cot" / "run.json").exists()
    assert "random [cot]" in capsys.readouterr().out
    assert main(["eval", "--model", "random", "--blind", "--input-format", "composite", "--configs",
                 "connection_verification"]) == 2
    assert "cannot be combined" in capsys.readouterr().err


@pytest.mark.slow
def test_transformers_backend_takes_cot_composite_and_blind(tmp_path):
    pytest.importorskip("transformers")
    from _tiny_vlm import build_tiny_vlm
    from fixtures.rows import make_dataset

    model = str(build_tiny_vlm(tmp_path / "vlm"))
    data = {c: make_dataset(c, 2, 0, (84, 84)) for c in ("order_restoration", "anomaly_detection")}
    for kw in ({"prompt_style": "cot", "input_format": "composite"}, {"blind": True}):
        res = evaluate_model(model, backend="transformers", data=data, out=tmp_path / "-".join(map(str, kw.values())),
                             max_new_tokens=4, progress=False, **kw)
        assert res["complete"] and res["n_items"] == 4
