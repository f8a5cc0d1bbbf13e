"""Jigsaw-Puzzles for VLMEvalKit: copy this file into ``vlmeval/dataset/`` (see docs/integrations.md).

The TSVs come from ``jigsaw-puzzles export vlmevalkit --out $LMUData``. Prompts are the paper's, exactly as
``jigsaw-puzzles eval`` sends them (the ``prompt`` column); answers are scored by the ``jigsaw_puzzles``
package (answer extraction, exact match, chance and p < 0.05 bounds), because Anomaly Detection and Order
Generation are not plain multiple choice. Needs the package in VLMEvalKit's environment:
``pip install /path/to/jigsaw-puzzles`` (a clone of its repository: it is not on PyPI yet).

``JigsawPuzzles_<config>_circular`` (``export vlmevalkit --circular``) holds every rotation of every item in
VLMEvalKit's circular layout (``g_index``; rotation r at ``index + r * 1e6``); a file with ``g_index`` is scored
per group, as VLMEvalKit scores its circular data: the plain figures on rotation 0, and ``circular_accuracy`` (right
iff every rotation is) with its exact chance and critical value.
"""
import os.path as osp

import pandas as pd

from vlmeval.dataset.image_mcq import ImageMCQDataset
from vlmeval.smp import LMUDataRoot, dump, load

CONFIGS = ["missing_piece_selection_easy", "missing_piece_selection_hard", "piece_localization_easy",
           "piece_localization_hard", "connection_verification", "anomaly_detection", "order_restoration",
           "order_generation"]
CIRCULAR = [c for c in CONFIGS if c not in ("anomaly_detection", "order_generation")]  # the multiple-choice ones


class JigsawPuzzlesDataset(ImageMCQDataset):
    """One config per dataset name: ``JigsawPuzzles_<config>`` (``JigsawPuzzles_<config>.tsv`` in $LMUData)."""

    TYPE = "MCQ"

    @classmethod
    def supported_datasets(cls):
        return [f"JigsawPuzzles_{c}" for c in CONFIGS] + [f"JigsawPuzzles_{c}_circular" for c in CIRCULAR]

    def load_data(self, dataset):
        return load(osp.join(LMUDataRoot(), f"{dataset}.tsv"))

    def build_prompt(self, line):
        if isinstance(line, int):
            line = self.data.iloc[line]
        paths = self.dump_image(line)
        return [*(dict(type="image", value=p) for p in paths), dict(type="text", value=line["prompt"])]

    def evaluate(self, eval_file, **judge_kwargs):
        from jigsaw_puzzles.scoring.score import circular_score, item_chance, score, score_items

        data = load(eval_file)
        main = data[data["index"] == data["g_index"]] if "g_index" in data else data  # rotation 0: plain
        result = score([str(p) for p in main["prediction"]], [str(a) for a in main["answer"]],
                       [str(c) for c in main["category"]], _options(main))
        verdicts = score_items([str(p) for p in data["prediction"]], [str(a) for a in data["answer"]],
                               [str(c) for c in data["category"]], _options(data))
        base = eval_file.rsplit(".", 1)[0]
        dump(pd.DataFrame({"index": data["index"], "id": data["id"], "category": data["category"],
                           "extracted": [ex.answer for ex, _ in verdicts], "status": [ex.status for ex, _ in verdicts],
                           "hit": [int(ok) for _, ok in verdicts]}), base + "_items.csv")
        if "g_index" in data:  # circular: a group is right iff every rotation is
            groups = {}
            for g, c, a, (_, ok) in zip(data["g_index"], data["category"], data["answer"], verdicts):
                groups.setdefault(str(c), {}).setdefault(int(g), []).append((ok, item_chance(str(a), str(c))))
            for c, by_item in groups.items():
                block = circular_score([[ok for ok, _ in v] for v in by_item.values()],
                                       [[p for _, p in v] for v in by_item.values()])
                result[c].update({f"circular_{k}": v for k, v in block.items()})
        table = pd.DataFrame([{"config": name, **metrics} for name, metrics in result.items()])
        dump(table, base + "_acc.csv")
        return table


def _options(data):
    """Each row's option texts from its option columns (``A``, ``B``, ...), as ``jigsaw-puzzles eval`` passes them to
    the reader (an answer given as an option's text counts as that option); ``None`` for a row without any."""
    letters = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c in data]
    return [[str(row[c]) for c in letters if not pd.isna(row[c])] or None for _, row in data.iterrows()]
