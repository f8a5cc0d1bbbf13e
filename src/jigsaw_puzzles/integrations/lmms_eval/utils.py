"""lmms-eval hooks for the Jigsaw-Puzzles tasks (written next to the task YAMLs by ``jigsaw-puzzles lmms-eval``).

The row's images in the order its question numbers them, the paper's question as it is, and scoring through the
``jigsaw_puzzles`` package (its answer extraction and exact match), so accuracies equal ``jigsaw-puzzles eval``'s
on the same answers.
"""
from jigsaw_puzzles.scoring import score
from jigsaw_puzzles.spec import PAPER_CONFIGS, config_from_id


def doc_to_visual(doc):
    return [image.convert("RGB") for image in doc["images"]]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    return doc["question"]


def metric_name(config: str) -> str:
    """``jigsaw_accuracy`` for the seven Table-2 configs (the groups average it, as the paper's Overall);
    Order Generation, reported apart in the paper, has its own metric so no group average takes it in."""
    return "jigsaw_accuracy" if config in PAPER_CONFIGS else "jigsaw_exact_match"


def process_results(doc, results):
    config = config_from_id(doc["id"])
    item = {"id": doc["id"], "prediction": results[0] if results else "", "answer": doc["answer"],
            "options": list(doc["options"]) or None, "config": config}
    return {metric_name(config): item}


def aggregate(items):
    """Accuracy (%) of one config's items, from ``jigsaw_puzzles.scoring.score``."""
    if not items:
        return float("nan")
    result = score([i["prediction"] for i in items], [i["answer"] for i in items], [i["config"] for i in items],
                   [i["options"] for i in items])
    return result[items[0]["config"]]["accuracy"]
