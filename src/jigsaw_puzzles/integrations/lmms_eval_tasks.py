"""lmms-eval task folders for Jigsaw-Puzzles, pointing at a built export folder or a Hub repo id.

``write_tasks(dataset, out)`` writes, for every config the export holds, a task per split
(``jigsaw_puzzles_<config>`` on ``test``, ``jigsaw_puzzles_lite_<config>`` on ``lite``), the groups
``jigsaw_puzzles`` and ``jigsaw_puzzles_lite``, and the hooks (``utils.py``: images in question order, the
paper's question, scoring through this package). Run with ``lmms-eval --include_path OUT --tasks
jigsaw_puzzles_lite ...``.

``circular=True`` adds, for the multiple-choice configs, circular tasks ``jigsaw_puzzles[_lite]_circular_<config>``
and their groups ``jigsaw_puzzles[_lite]_circular``: the same rows, each expanded by ``process_docs`` into its
rotations (:mod:`jigsaw_puzzles.generation.circular`, the package's generated items), scored as ``jigsaw_circular_accuracy``
(right iff every rotation is) beside ``jigsaw_plain_accuracy`` (rotation 0 alone).
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from ..errors import UsageError
from ..generation.circular import is_circular
from ..spec import CONFIGS, PAPER_CONFIGS

HOOKS = Path(__file__).with_name("lmms_eval") / "utils.py"
GROUPS = {"test": "jigsaw_puzzles", "lite": "jigsaw_puzzles_lite"}
#: a dataset repo on the Hub, as one is pushed: ``USER/NAME`` (huggingface_hub's characters)
HUB_REPO = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}")


def _configs_in(dataset: str) -> list[str]:
    """The configs of an export folder, or every config for a Hub repo id; ``UsageError`` for a folder that holds
    none, or a name that is neither a folder here nor a repo id (a missing folder would be written into every
    task)."""
    folder = Path(dataset)
    if folder.is_dir():
        present = [c for c in CONFIGS if (folder / c).is_dir()]
        if not present:
            raise UsageError(f"{dataset} holds no Jigsaw-Puzzles config (write it with `jigsaw-puzzles build --out "
                             f"{dataset}`)")
        return present
    if folder.exists() or not HUB_REPO.fullmatch(dataset) or dataset.startswith((".", "~")):
        raise UsageError(f"{dataset} is neither an export folder here nor a Hub repo id (USER/NAME): give the folder "
                         "`jigsaw-puzzles build --out` wrote, or the repo it was pushed to")
    return list(CONFIGS)  # a Hub repo id: every config (one missing there fails in lmms-eval, by name)


def _task_yaml(name: str, dataset: str, config: str, split: str, max_new_tokens: int) -> str:
    return "\n".join([
        f"task: {name}",
        f"dataset_path: {json.dumps(dataset)}",
        f"dataset_name: {config}",
        f"test_split: {split}",
        "output_type: generate_until",
        "doc_to_visual: !function utils.doc_to_visual",
        "doc_to_text: !function utils.doc_to_text",
        'doc_to_target: "answer"',
        "process_results: !function utils.process_results",
        "generation_kwargs:",
        f"  max_new_tokens: {max_new_tokens}",
        "  temperature: 0",
        "  do_sample: false",
        "metric_list:",
        f"  - metric: {'jigsaw_accuracy' if config in PAPER_CONFIGS else 'jigsaw_exact_match'}",
        "    aggregation: !function utils.aggregate",
        "    higher_is_better: true",
        "metadata:",
        "  - version: 1.0",
        "",
    ])


def _circular_yaml(name: str, dataset: str, config: str, split: str, max_new_tokens: int) -> str:
    """A circular task: the plain task's YAML with the rotations as its docs and the circular metrics."""
    plain = _task_yaml(name, dataset, config, split, max_new_tokens)
    head, _, tail = plain.partition("metric_list:\n")
    head = head.replace("process_results: !function utils.process_results",
                        "process_docs: !function utils.circular_docs\n"
                        "process_results: !function utils.process_results_circular")
    metrics = "".join(f"  - metric: {m}\n    aggregation: !function utils.{agg}\n    higher_is_better: true\n"
                      for m, agg in (("jigsaw_circular_accuracy", "aggregate_circular"),
                                     ("jigsaw_plain_accuracy", "aggregate_plain")))
    return head + "metric_list:\n" + metrics + tail[tail.index("metadata:"):]


def write_tasks(dataset: str, out: str | Path, max_new_tokens: int = 256,
                circular: bool = False) -> dict[str, list[str]]:
    """Write the task folder; returns ``{group: [task names]}`` (``circular``: and the circular groups)."""
    _configs_in(str(dataset))  # a missing or non-export folder: refused before anything is written
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    dataset = str(Path(dataset).resolve()) if Path(dataset).is_dir() else dataset
    groups: dict[str, list[str]] = {}
    for split, group in GROUPS.items():
        names = []
        for config in _configs_in(dataset):
            name = f"{group}_{config}"
            (out / f"{name}.yaml").write_text(_task_yaml(name, dataset, config, split, max_new_tokens))
            names.append(name)
        (out / f"{group}.yaml").write_text("\n".join([f"group: {group}", "task:", *(f"  - {n}" for n in names),
                                                       "aggregate_metric_list:", "  - metric: jigsaw_accuracy",
                                                       "    aggregation: mean", "    weight_by_size: false", ""]))
        groups[group] = names
        if circular:
            group, names = f"{group}_circular", []
            for config in [c for c in _configs_in(dataset) if is_circular(c)]:
                name = f"{group}_{config}"
                (out / f"{name}.yaml").write_text(_circular_yaml(name, dataset, config, split, max_new_tokens))
                names.append(name)
            (out / f"{group}.yaml").write_text("\n".join([
                f"group: {group}", "task:", *(f"  - {n}" for n in names), "aggregate_metric_list:",
                "  - metric: jigsaw_circular_accuracy", "    aggregation: mean", "    weight_by_size: false", ""]))
            groups[group] = names
    shutil.copyfile(HOOKS, out / "utils.py")
    return groups
