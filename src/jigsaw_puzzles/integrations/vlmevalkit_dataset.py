"""Jigsaw-Puzzles for VLMEvalKit: copy this file into ``vlmeval/dataset/`` (see docs/integrations.md).

The TSVs come from ``jigsaw-puzzles export vlmevalkit --out $LMUData``. Prompts are the paper's, exactly as
``jigsaw-puzzles eval`` sends them (the ``prompt`` column); answers are scored by the ``jigsaw_puzzles``
package (answer extraction, exact match, chance and p < 0.05 bounds), because Anomaly Detection and Order
Generation are not plain multiple choice. Needs ``pip install jigsaw-puzzles`` in VLMEvalKit's environment.
"""
import os.path as osp

import pandas as pd

from vlmeval.dataset.image_mcq import ImageMCQDataset
from vlmeval.smp import LMUDataRoot, dump, load

CONFIGS = ["missing_piece_selection_easy", "missing_piece_selection_hard", "piece_localization_easy",
           "piece_localization_hard", "connection_verification", "anomaly_detection", "order_restoration",
           "order_generation"]


class JigsawPuzzlesDataset(ImageMCQDataset):
    """One config per dataset name: ``JigsawPuzzles_<config>`` (``JigsawPuzzles_<config>.tsv`` in $LMUData)."""

    TYPE = "MCQ"

    @classmethod
    def supported_datasets(cls):
        return [f"JigsawPuzzles_{c}" for c in CONFIGS]

    def load_data(self, dataset):
        return load(osp.join(LMUDataRoot(), f"{dataset}.tsv"))

    def build_prompt(self, line):
        if isinstance(line, int):
            line = self.data.iloc[line]
        paths = self.dump_image(line)
        return [*(dict(type="image", value=p) for p in paths), dict(type="text", value=line["prompt"])]

    def evaluate(self, eval_file, **judge_kwargs):
        from jigsaw_puzzles.scoring import score

        data = load(eval_file)
        result = score([str(p) for p in data["prediction"]], [str(a) for a in data["answer"]],
                       [str(c) for c in data["category"]])
        table = pd.DataFrame([{"config": name, **metrics} for name, metrics in result.items()])
        dump(table, eval_file.rsplit(".", 1)[0] + "_acc.csv")
        return table
