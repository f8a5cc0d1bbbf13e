"""VLMEvalKit inside VLMEvalKit (issue #29 item 1): the exported dataset class run by VLMEvalKit's own code.

VLMEvalKit (``ms-vlmeval==0.0.20``, ``import vlmeval``) lives in a cached side venv (tests/fixtures/venvs.py):
installed ``--no-deps`` with only the packages its import path for datasets, inference and evaluation needs, over
this environment's. On a built export (three configs, ``lite``, with the circular TSVs), VLMEvalKit's
``build_dataset`` finds our class, ``infer_data_job`` runs a stub ``BaseModel`` over every row and the dataset's
``evaluate`` scores the prediction file VLMEvalKit wrote: every per-item verdict, every per-config figure and the
circular accuracy (VLMEvalKit's circular layout) equal what this package's ``score_items``/``score`` give on the
same outputs, and the stub was sent the paper's prompt and the item's pixels.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import subprocess

import pytest
from PIL import Image

from jigsaw_puzzles.cli import main
from jigsaw_puzzles.integrations.vlmevalkit import read_tsv
from jigsaw_puzzles.scoring.score import score, score_items
from jigsaw_puzzles.spec import CHOICE, get as get_spec

CONFIGS = ["order_restoration", "connection_verification", "anomaly_detection"]
VLMEVAL = ["ms-vlmeval==0.0.20", "termcolor==3.3.0", "validators==0.36.0", "sty==1.0.6", "timeout-decorator==0.5.0",
           "levenshtein==0.27.5", "rapidfuzz==3.14.6", "decord==0.6.0", "jieba==0.42.1", "rouge==1.0.1",
           "pylatexenc==2.11", "json-repair==0.64.6", "num2words==0.5.14", "xlsxwriter==3.3.1",
           "imageio==2.38.1"]  # vlmeval imports it at import time; the project's venv does not have it


def prediction(stem: str, row: dict, config: str) -> str:
    """A varied, reproducible model output per row: right in several forms, wrong, unreadable."""
    k = int(hashlib.sha256(stem.encode()).hexdigest(), 16) % 5
    answer = row["answer"]
    if get_spec(config).kind == CHOICE:
        options = [c for c in "ABCD" if row.get(c)]
        wrong = next(c for c in options if c != answer)
        return [f"The answer is ({answer}).", answer, f"I think it is {wrong}.", "I am not sure.",
                row[answer]][k]  # the last: the option's text, read as its letter
    wrong = answer.replace("Judgment: A", "Judgment: B") if "Judgment: A" in answer else \
        answer.replace("Judgment: B", "Judgment: C")
    return [answer, f"After checking the seams:\n{answer}", wrong, "No idea.", answer.splitlines()[0]][k]


def options_of(row: dict) -> list | None:
    return [row[c] for c in "ABCD" if row.get(c)] or None


def pixel_digests(row: dict) -> list[str]:
    return [hashlib.sha256(Image.open(io.BytesIO(base64.b64decode(b))).convert("RGB").tobytes()).hexdigest()
            for b in row["image"]]


@pytest.mark.slow
def test_vlmevalkit_runs_the_dataset_class_and_scores_like_score(tmp_path, photo_dir):
    from fixtures.venvs import REPO, side_env, side_venv

    built, lmu = tmp_path / "export", tmp_path / "LMUData"
    assert main(["build", "--out", str(built), "--source", str(photo_dir), "--configs", *CONFIGS]) == 0
    assert main(["export", "vlmevalkit", "--out", str(lmu), "--dataset", str(built), "--split", "lite",
                 "--circular", "--configs", *CONFIGS]) == 0
    names = [f"JigsawPuzzles_{c}" for c in CONFIGS] + [f"JigsawPuzzles_{c}_circular" for c in CONFIGS[:2]]
    tables, answers = {}, {}
    for name in names:
        config = name[len("JigsawPuzzles_"):].removesuffix("_circular")
        tables[name] = (config, read_tsv(lmu / f"{name}.tsv"))
        for row in tables[name][1]:
            stem = row["image_path"][0].rsplit("_", 1)[0]
            answers[stem] = prediction(stem, row, config)
    job = {"datasets": names, "answers": answers, "work_dir": str(tmp_path / "work"), "out": str(tmp_path / "o.json")}
    (tmp_path / "job.json").write_text(json.dumps(job))
    python = side_venv("vlmevalkit", VLMEVAL)
    proc = subprocess.run([str(python), str(REPO / "tests" / "_vlmevalkit_side.py"), str(tmp_path / "job.json")],
                          cwd=tmp_path, env=side_env(LMUData=str(lmu)), capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads((tmp_path / "o.json").read_text())["datasets"]

    hits = 0
    for name in names:
        config, rows = tables[name]
        got = result[name]
        preds = [answers[row["image_path"][0].rsplit("_", 1)[0]] for row in rows]
        # VLMEvalKit wrote the stub's outputs, untouched, into its prediction file
        assert [got["predictions"][str(row["index"])] for row in rows] == preds
        for row in rows:  # the stub was sent our prompt and the item's pixels, images first
            sent = got["sent"][row["image_path"][0].rsplit("_", 1)[0]]
            assert sent["text"] == row["prompt"] and sent["images"] == pixel_digests(row)
            assert sent["types"] == ["image"] * len(row["image"]) + ["text"]
        verdicts = score_items(preds, [r["answer"] for r in rows], config, [options_of(r) for r in rows])
        items = {str(i["index"]): i for i in got["items"]}
        for row, (ex, ok) in zip(rows, verdicts, strict=True):
            item = items[str(row["index"])]
            assert (item["id"], item["hit"], item["status"]) == (row["id"], int(ok), ex.status)
            assert (item["extracted"] or None) == ex.answer
            hits += ok
        plain = [r for r in rows if "g_index" not in r or r["index"] == r["g_index"]]
        want = score([answers[r["image_path"][0].rsplit("_", 1)[0]] for r in plain], [r["answer"] for r in plain],
                     config, [options_of(r) for r in plain])[config]
        for table in (got["acc"], got["returned"]):
            (figures,) = [t for t in table if t["config"] == config]
            for key, value in want.items():
                if isinstance(value, (int, float)):
                    assert figures[key] == pytest.approx(value, nan_ok=True), (name, key)
        if name.endswith("_circular"):  # right iff every rotation is, per g_index
            groups: dict[str, list[bool]] = {}
            for row, (_, ok) in zip(rows, verdicts):
                groups.setdefault(row["g_index"], []).append(ok)
            assert all(len(v) == len(get_spec(config).letters) for v in groups.values())
            circular = 100.0 * sum(all(v) for v in groups.values()) / len(groups)
            assert figures["circular_accuracy"] == pytest.approx(circular)
    assert 0 < hits < sum(len(rows) for _, rows in tables.values())  # right and wrong answers both scored
