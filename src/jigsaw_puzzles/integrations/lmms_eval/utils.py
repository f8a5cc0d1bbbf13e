"""lmms-eval hooks for the Jigsaw-Puzzles tasks (written next to the task YAMLs by ``jigsaw-puzzles lmms-eval``).

The row's images in the order its question numbers them, the paper's question as it is, and scoring through the
``jigsaw_puzzles`` package (its answer extraction and exact match), so accuracies equal ``jigsaw-puzzles eval``'s
on the same answers.

The circular tasks (``jigsaw-puzzles lmms-eval --circular``) expand each config's rows into their rotations
(:func:`circular_docs`, the package's generated items) and score ``jigsaw_circular_accuracy`` (an item is right iff
every rotation is) beside ``jigsaw_plain_accuracy`` (rotation 0 alone, the plain task's figure).
"""
from jigsaw_puzzles.scoring.score import score
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
    """Accuracy (%) of one config's items, from ``jigsaw_puzzles.scoring.score.score``."""
    if not items:
        return float("nan")
    result = score([i["prediction"] for i in items], [i["answer"] for i in items], [i["config"] for i in items],
                   [i["options"] for i in items])
    return result[items[0]["config"]]["accuracy"]


def circular_docs(dataset):
    """Every row followed by its rotations (``jigsaw_puzzles.generation.circular``), ids ``<id>#circ<r>``."""
    from jigsaw_puzzles.generation.circular import expand_dataset

    return expand_dataset(dataset, config_from_id(dataset[0]["id"])) if len(dataset) else dataset


def process_results_circular(doc, results):
    item = process_results(doc, results)[metric_name(config_from_id(doc["id"]))]
    return {"jigsaw_circular_accuracy": item, "jigsaw_plain_accuracy": item}


def aggregate_circular(items):
    """Circular accuracy (%) of one config's items: right iff every rotation is (jigsaw_puzzles.generation.circular)."""
    from jigsaw_puzzles.generation.circular import circular_aggregate
    from jigsaw_puzzles.scoring.score import score_items

    if not items:
        return float("nan")
    verdicts = score_items([i["prediction"] for i in items], [i["answer"] for i in items],
                           [i["config"] for i in items], [i["options"] for i in items])
    metrics = circular_aggregate([i["id"] for i in items], verdicts, [i["answer"] for i in items],
                                 [i["config"] for i in items])
    return metrics.get(items[0]["config"], {}).get("circular", {}).get("accuracy", float("nan"))


def aggregate_plain(items):
    """Accuracy (%) on rotation 0, the items as the plain task asks them."""
    from jigsaw_puzzles.generation.circular import is_rotation

    return aggregate([i for i in items if not is_rotation(i["id"])])
