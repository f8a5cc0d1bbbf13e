"""Inspect AI (``inspect-ai==0.3.285``, the ``inspect`` extra): a ``@task`` per task family over
``jp.load_dataset`` items, scored by this package's reader.

* Samples: one per item; the input is one user turn holding the item's images (Inspect image content, PNG data
  URIs, in the order the question numbers them) and then the question verbatim (what ``jigsaw-puzzles eval``
  sends); ``target`` is the row's answer; the metadata keeps the config, the options and the answer.
* Scorer (:func:`jigsaw_scorer`): every response goes through :func:`jigsaw_puzzles.score` on that one item;
  the sample's value is its ``correct`` (and ``strict_correct`` where the package's reader has a strict
  reading), its answer the reader's extraction. No regex of its own decides anything.
* Metric (:func:`jigsaw_metrics`): :func:`jigsaw_puzzles.score` over all the samples' responses, per config
  ``<config>/accuracy`` (%), ``/strict_accuracy`` (when present), ``/chance``, ``/critical_value``,
  ``/p_value``, ``/invalid_rate``, ``/n`` and, with a Table-2 config, ``overall/...``: the numbers
  ``jigsaw-puzzles eval`` reports on the same responses.

Run: ``inspect eval jigsaw_puzzles/order_restoration --model openai/gpt-4o -T split=lite`` (installed package), or
``inspect eval <this file>@order_restoration``; task arguments ``split``, ``source``, ``seed``, ``configs``
(comma-separated, e.g. ``order_generation_3x3``). ``--model jigsaw/solver`` runs the package's classical solver
as an Inspect model (:mod:`.inspect_model`), offline.
"""
from __future__ import annotations

import math
import sys
from typing import Any, Sequence

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from jigsaw_puzzles.errors import ConfigUnavailable, UsageError
from jigsaw_puzzles.generation.builder import load_dataset
from jigsaw_puzzles.inference.backends import image_to_data_url
from jigsaw_puzzles.inference.data import first_sentence
from jigsaw_puzzles.scoring.score import score, score_items
from jigsaw_puzzles.spec import PAPER_CONFIGS, SPLITS, is_config
# registers the ``jigsaw`` model provider (``--model jigsaw/solver``); absolute imports: ``inspect eval FILE@task``
# loads this file by path
from jigsaw_puzzles.integrations import inspect_model  # noqa: F401

#: The configs each task runs by default (the paper's); ``-T configs=...`` picks others (any grid).
FAMILIES = {
    "missing_piece_selection": ("missing_piece_selection_easy", "missing_piece_selection_hard"),
    "piece_localization": ("piece_localization_easy", "piece_localization_hard"),
    "connection_verification": ("connection_verification",),
    "anomaly_detection": ("anomaly_detection",),
    "order_restoration": ("order_restoration",),
    "order_generation": ("order_generation",),
    "jigsaw_puzzles": PAPER_CONFIGS,
}
#: The per-config figures the metric reports, as ``<config>/<key>``.
KEYS = ("accuracy", "strict_accuracy", "chance", "critical_value", "p_value", "invalid_rate", "n")


def _configs(family: str, configs: Any) -> list[str]:
    if configs is None or configs == "":
        return list(FAMILIES[family])
    names = [c.strip() for c in configs.split(",")] if isinstance(configs, str) else [str(c) for c in configs]
    unknown = [c for c in names if not is_config(c)]
    if unknown or not names:
        raise UsageError(f"configs: unknown config(s) {', '.join(unknown) or '(none given)'}; e.g. "
                         f"{', '.join(FAMILIES[family])}")
    return names


def samples(configs: Sequence[str], split: str = "lite", source: Any = None, seed: int = 0,
            explicit: bool = True) -> list[Sample]:
    """One Inspect sample per item of ``configs`` (:func:`jigsaw_puzzles.load_dataset`). A config that cannot be built
    here (no CLIP weights offline) stops the task when asked for by name (``explicit``), else is skipped with its
    reason on stderr, as ``jigsaw-puzzles eval`` does."""
    if split not in SPLITS:
        raise UsageError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    out = []
    for config in configs:
        try:
            rows = load_dataset(config, split=split, source=source, seed=int(seed))
        except ConfigUnavailable as err:
            if explicit:
                raise
            print(f"[jigsaw-puzzles] skipping {config}: {first_sentence(err.reason)}", file=sys.stderr)
            continue
        for row in rows:
            content = [ContentImage(image=image_to_data_url(im)) for im in row["images"]]
            out.append(Sample(
                input=[ChatMessageUser(content=[*content, ContentText(text=row["question"])])],
                target=row["answer"], id=row["id"],
                metadata={"config": config, "options": list(row["options"] or []) or None, "answer": row["answer"],
                          "source_id": row["source_id"], "seed": int(seed)}))
    return out


def _finite(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


@metric
def jigsaw_metrics():
    """:func:`jigsaw_puzzles.score` over the samples' responses: ``<config>/<figure>`` for every config and
    ``overall/<figure>`` (a NaN figure, e.g. a critical value too few items cannot reach, is left out)."""
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        meta = [s.score.metadata or {} for s in scores]
        result = score([m["response"] for m in meta], [m["answer"] for m in meta], [m["config"] for m in meta],
                       [m.get("options") for m in meta])
        out = {}
        for config, column in result.items():
            for key in KEYS:
                value = _finite(column.get(key))
                if value is not None:
                    out[f"{config}/{key}"] = value
        return out
    return compute


@scorer(metrics=[jigsaw_metrics()])
def jigsaw_scorer():
    """The package's reader on one response: ``{"correct": 0/1[, "strict_correct": 0/1]}``, the extracted answer,
    and the reader's status (parsed, ambiguous, none) as the explanation."""
    async def score_sample(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        response = state.output.completion if state.output else ""
        config, options = meta["config"], meta.get("options")
        column = score([response], [meta["answer"]], [config], [options])[config]
        value = {"correct": int(column["correct"])}
        if "strict_correct" in column:  # the package's strict reading, where the reader has one
            value["strict_correct"] = int(column["strict_correct"])
        extraction, _ = score_items([response], [meta["answer"]], [config], [options])[0]
        return Score(value=value, answer=extraction.answer, explanation=extraction.status,
                     metadata={"response": response, "answer": meta["answer"], "config": config,
                               "options": options})
    return score_sample


def make_task(family: str, split: str = "lite", source: Any = None, seed: int = 0, configs: Any = None) -> Task:
    """The Inspect task of ``family`` (a key of :data:`FAMILIES`): its samples, ``generate()``, the scorer."""
    names = _configs(family, configs)
    data = samples(names, split, source, seed, explicit=configs is not None)
    return Task(dataset=MemoryDataset(data, name=f"jigsaw_puzzles_{family}"),
                solver=generate(), scorer=jigsaw_scorer(), name=family,
                metadata={"configs": names, "split": split, "seed": int(seed)})


@task
def missing_piece_selection(split: str = "lite", source: str | None = None, seed: int = 0, configs: str | None = None):
    return make_task("missing_piece_selection", split, source, seed, configs)


@task
def piece_localization(split: str = "lite", source: str | None = None, seed: int = 0, configs: str | None = None):
    return make_task("piece_localization", split, source, seed, configs)


@task
def connection_verification(split: str = "lite", source: str | None = None, seed: int = 0, configs: str | None = None):
    return make_task("connection_verification", split, source, seed, configs)


@task
def anomaly_detection(split: str = "lite", source: str | None = None, seed: int = 0, configs: str | None = None):
    return make_task("anomaly_detection", split, source, seed, configs)


@task
def order_restoration(split: str = "lite", source: str | None = None, seed: int = 0, configs: str | None = None):
    return make_task("order_restoration", split, source, seed, configs)


@task
def order_generation(split: str = "lite", source: str | None = None, seed: int = 0, configs: str | None = None):
    return make_task("order_generation", split, source, seed, configs)


@task
def jigsaw_puzzles(split: str = "lite", source: str | None = None, seed: int = 0, configs: str | None = None):
    """The seven Table-2 configs together (with ``overall/...``, the paper's Overall)."""
    return make_task("jigsaw_puzzles", split, source, seed, configs)
