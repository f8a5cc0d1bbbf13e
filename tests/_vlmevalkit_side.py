"""Run inside the VLMEvalKit side venv (tests/test_vlmevalkit_harness.py): our dataset class through VLMEvalKit's own
``build_dataset``, ``infer_data_job`` and the dataset's ``evaluate``, with a stub ``BaseModel``.

``python _vlmevalkit_side.py JOB.json`` with ``{"datasets": [names], "answers": {image stem: prediction},
"work_dir": ..., "out": ...}``; ``$LMUData`` is the folder ``jigsaw-puzzles export vlmevalkit`` wrote. The dataset
class is the exported ``vlmevalkit_dataset.py``, imported as ``vlmeval.dataset.jigsaw_puzzles`` and put in
``DATASET_CLASSES``, which is what the documented copy-and-register step does. Writes ``out``: per dataset, the
prediction file VLMEvalKit wrote, the files ``evaluate`` wrote, and what the stub model was sent per row.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

import vlmeval
import vlmeval.dataset as vlm_datasets
from vlmeval.inference import infer_data_job
from vlmeval.smp import get_pred_file_path, load
from vlmeval.vlm.base import BaseModel
from PIL import Image


def pixels(path: str) -> str:
    """A digest of an image file's RGB pixels (VLMEvalKit re-saves the TSV's PNGs)."""
    with Image.open(path) as image:
        return hashlib.sha256(image.convert("RGB").tobytes()).hexdigest()


class StubModel(BaseModel):
    """Answers each row with the prediction the test chose for its first image's file (``<id>_1.png``), and keeps
    what it was sent: the text parts and a digest of each image's pixels."""

    INTERLEAVE = True

    def __init__(self, answers: dict[str, str]):
        super().__init__()
        self.answers = answers
        self.sent: dict[str, dict] = {}

    def generate_inner(self, message, dataset=None):
        images = [m["value"] for m in message if m["type"] == "image"]
        stem = Path(images[0]).name.rsplit("_", 1)[0]
        self.sent[stem] = {"text": "".join(m["value"] for m in message if m["type"] == "text"),
                           "types": [m["type"] for m in message],
                           "images": [pixels(p) for p in images],
                           "files": [Path(p).name for p in images]}
        return self.answers[stem]


def main(job_file: str) -> None:
    job = json.loads(Path(job_file).read_text())
    spec = importlib.util.spec_from_file_location("vlmeval.dataset.jigsaw_puzzles",
                                                  Path(os.environ["LMUData"]) / "vlmevalkit_dataset.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    vlm_datasets.IMAGE_DATASET.append(module.JigsawPuzzlesDataset)  # the documented registration
    vlm_datasets.DATASET_CLASSES.insert(0, module.JigsawPuzzlesDataset)
    out = {"version": getattr(vlmeval, "__version__", None), "datasets": {}}
    os.makedirs(job["work_dir"], exist_ok=True)  # as VLMEvalKit's run.py does
    for name in job["datasets"]:
        dataset = vlm_datasets.build_dataset(name)
        assert type(dataset).__name__ == "JigsawPuzzlesDataset", type(dataset)
        model = StubModel(job["answers"])
        infer_data_job(model, work_dir=job["work_dir"], model_name="JPStub", dataset=dataset, verbose=False)
        pred_file = get_pred_file_path(job["work_dir"], "JPStub", name)
        table = dataset.evaluate(pred_file, model="exact_matching", nproc=1)  # our class calls no judge model
        base = pred_file.rsplit(".", 1)[0]
        predictions = load(pred_file)
        out["datasets"][name] = {
            "pred_file": pred_file,
            "predictions": {str(i): str(p) for i, p in zip(predictions["index"], predictions["prediction"])},
            "returned": json.loads(table.to_json(orient="records")),
            "acc": json.loads(load(base + "_acc.csv").to_json(orient="records")),
            "items": json.loads(load(base + "_items.csv").to_json(orient="records")),
            "sent": model.sent,
        }
    Path(job["out"]).write_text(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
