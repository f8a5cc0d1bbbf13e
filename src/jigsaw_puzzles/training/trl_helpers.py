"""Jigsaw-Puzzles scoring inside training loops.

* :func:`make_compute_metrics` - a ``compute_metrics`` for ``transformers.Trainer`` /
  ``Seq2SeqTrainer(predict_with_generate=True)``: decodes the generated ids and runs
  :func:`jigsaw_puzzles.scoring.score.score`, returning a flat ``{name: float}`` dict.
* :func:`jigsaw_reward` - a reward function with the signature TRL's ``GRPOTrainer``
  expects for ``reward_funcs``: ``completions`` plus dataset columns as keyword
  arguments in, one float per completion out; :func:`make_jigsaw_reward` shapes it.
* :func:`reward_rows` and :func:`position_share` - what every reward here and in
  :mod:`jigsaw_puzzles.training.rewards` shares: the columns aligned one to one with the
  completions (a column of another length is an error, never truncated), the
  references read by :func:`~jigsaw_puzzles.spec.parse_reference` (as ``score()``
  reads them), and the partial credit of a *valid* answer.

Neither imports ``transformers`` or ``trl``; they only rely on the objects those
libraries pass in.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

import numpy as np

from ..errors import UsageError
from ..scoring.extraction import PARSED, classify_response
from ..scoring.score import score
from ..spec import ANOMALY, ORDER, ORIENTED, config_from_id, get as get_spec, parse_oriented, parse_reference
from .eval_split import check_ids, refuse_evaluation

__all__ = ["make_compute_metrics", "jigsaw_reward", "make_jigsaw_reward", "completion_text", "flatten_scores",
           "to_prompt", "to_messages", "with_prompt", "reward_rows", "position_share", "layout"]


def to_prompt(num_images: int, question: str) -> list[dict]:
    """TRL's conversational prompt: one user turn, one ``{"type": "image"}`` part per image (in the order the
    question numbers them; TRL fills them from the row's ``images`` column), then the question."""
    return [{"role": "user", "content": [*({"type": "image"} for _ in range(num_images)),
                                         {"type": "text", "text": question}]}]


def to_messages(row: dict, completion: bool = False, smoke_test: bool = False) -> dict:
    """``{"prompt": [...]}`` for one row (and ``"completion"``: the answer as the assistant turn, training data: a
    benchmark item, an evaluation row, is then refused unless ``smoke_test``, :mod:`.eval_split`)."""
    out = {"prompt": to_prompt(len(row["images"]), row["question"])}
    if completion:
        refuse_evaluation(row, "to_messages(completion=True)", smoke_test)
        out["completion"] = [{"role": "assistant", "content": [{"type": "text", "text": row["answer"]}]}]
    return out


def with_prompt(dataset, completion: bool = False, num_proc: Optional[int] = None, smoke_test: bool = False):
    """The dataset with TRL-ready columns: a conversational ``prompt`` (GRPO) and, with ``completion=True``, the
    answer as an assistant ``completion`` (SFT, prompt-completion format), next to ``images``. Images are not
    decoded (their count comes from the config), so this is quick on a built split. A ``Dataset`` or an
    ``IterableDataset`` (a training stream: ``num_proc`` does not apply).

    Training data: an evaluation split (the benchmark's ``test`` or ``lite`` rows, of the embedded photos or of an
    export) is a ``UsageError``; ``smoke_test=True`` takes it with a ``UserWarning`` (:mod:`.eval_split`). Train on
    :func:`~jigsaw_puzzles.training_stream` rows."""
    import datasets

    who = "with_prompt"
    refuse_evaluation(dataset, who, smoke_test)  # an evaluation split, of any shape, is refused first
    if not isinstance(dataset, (datasets.Dataset, datasets.IterableDataset)):
        raise UsageError(f"with_prompt takes a datasets.Dataset of benchmark rows (jp.load_dataset gives one), not "
                         f"{type(dataset).__name__}")
    names = dataset.column_names  # (None: a stream whose columns are known only when read)
    missing = [c for c in ("id", "question", "answer") if names is not None and c not in names]
    if missing:
        raise UsageError(f"with_prompt: the dataset has no {', '.join(missing)} column (a benchmark row's columns: "
                         "jp.load_dataset gives them)")
    streamed = isinstance(dataset, datasets.IterableDataset)

    def add(ids, questions, answers):
        if streamed:  # its rows cannot be read ahead: checked as they come
            check_ids(ids, who, smoke_test)
        counts = [get_spec(config_from_id(i)).num_images for i in ids]
        out = {"prompt": [to_prompt(n, q) for n, q in zip(counts, questions)]}
        if completion:
            out["completion"] = [[{"role": "assistant", "content": [{"type": "text", "text": a}]}] for a in answers]
        return out

    kwargs = {} if streamed else {"num_proc": num_proc, "desc": "TRL prompt"}
    return dataset.map(add, input_columns=["id", "question", "answer"], batched=True, **kwargs)


def flatten_scores(result: dict, sep: str = "/") -> dict[str, float]:
    """``{"overall": {"accuracy": 61.0}}`` -> ``{"overall/accuracy": 61.0, "accuracy": 61.0}``.

    Only numbers are kept (loggers want scalars). ``"accuracy"`` at top level is the
    overall accuracy when present, else that of the single config scored, so
    ``metric_for_best_model="accuracy"`` works.
    """
    flat: dict[str, float] = {}
    for group, fields in result.items():
        for name, value in fields.items():
            if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
                flat[f"{group}{sep}{name}"] = float(value)
    if "overall" in result:
        flat["accuracy"] = float(result["overall"]["accuracy"])
    elif len(result) == 1:
        flat["accuracy"] = float(next(iter(result.values()))["accuracy"])
    return flat


def _decoder(processor: Any) -> Callable:
    for obj in (processor, getattr(processor, "tokenizer", None)):
        if obj is not None and hasattr(obj, "batch_decode"):
            return obj
    raise TypeError("processor must be a tokenizer/processor with batch_decode (or have .tokenizer)")


def make_compute_metrics(
    processor: Any,
    references: Sequence[str],
    configs: Sequence[str],
    *,
    options: Optional[Sequence[Optional[Sequence[str]]]] = None,
    response_marker: Optional[str] = None,
) -> Callable[[Any], dict[str, float]]:
    """Build a ``compute_metrics(eval_pred)`` for ``transformers.Trainer``.

    Args:
        processor: the tokenizer or processor (anything with ``batch_decode``, or a
            ``.tokenizer`` that has it).
        references: ``eval_dataset["answer"]``, in eval-dataset order (the Trainer does
            not shuffle evaluation data).
        configs: the config of each eval row (one name for all, ``[config] * len(eval_dataset)``
            or derived from ``eval_dataset["id"]`` with :func:`config_from_id`).
        options: optional ``eval_dataset["options"]``.
        response_marker: for decoder-only models whose generated ids still contain the
            prompt: only the text after the last occurrence of this string (e.g.
            ``"assistant\\n"``) is scored, so the prompt's example answers are never read
            as the model's answer.

    ``eval_pred.predictions`` may be generated token ids (``predict_with_generate``;
    ``-100`` padding is handled), logits (argmax is taken - only meaningful for
    teacher-forced outputs), or already-decoded strings.
    """
    if isinstance(references, (str, bytes)):
        raise ValueError("references must be the eval dataset's answer column (one per row), not one string")
    references = list(references)
    configs = [configs] * len(references) if isinstance(configs, str) else list(configs)
    if len(references) != len(configs):
        raise ValueError(f"{len(references)} references but {len(configs)} configs: one config per eval row")
    if options is not None and (isinstance(options, (str, bytes)) or len(options) != len(references)):
        raise ValueError(f"options must be one list of options per eval row ({len(references)} rows)")
    for ref, cfg in zip(references, configs):
        parse_reference(ref, cfg)  # fail at set-up, not after an epoch
    decoder = _decoder(processor)
    pad_id = getattr(decoder, "pad_token_id", None)
    if pad_id is None:
        pad_id = getattr(getattr(decoder, "tokenizer", None), "pad_token_id", None) or 0

    def compute_metrics(eval_pred: Any) -> dict[str, float]:
        preds = eval_pred.predictions if hasattr(eval_pred, "predictions") else eval_pred[0]
        if isinstance(preds, tuple):
            preds = preds[0]
        if isinstance(preds, (list, tuple)) and preds and isinstance(preds[0], str):
            texts = list(preds)
        else:
            arr = np.asarray(preds)
            if arr.ndim == 3 or np.issubdtype(arr.dtype, np.floating):
                arr = arr.argmax(-1) if arr.ndim == 3 else arr.astype(np.int64)
            arr = np.where(arr < 0, pad_id, arr).astype(np.int64)
            texts = decoder.batch_decode(arr.tolist(), skip_special_tokens=True)
        if response_marker:
            texts = [t.rsplit(response_marker, 1)[-1] for t in texts]
        if len(texts) != len(references):
            raise ValueError(
                f"got {len(texts)} predictions for {len(references)} references; pass the eval dataset's "
                "answers/configs in eval order (and no eval subsampling)"
            )
        return flatten_scores(score(texts, references, configs, options))

    return compute_metrics


def completion_text(completion: Any) -> str:
    """The text of one completion, by the one type rule every reward face shares: a ``str`` is itself; a
    conversation as TRL hands it to reward functions (a list of message dicts, ``[{"role": "assistant", "content":
    ...}]``, tool turns included) is its last assistant message's content (a string, or content parts of which the
    ``{"type": "text", "text": ...}`` ones count). Anything else (bytes, a bare dict, a list of strings, numbers,
    ``None``, a message whose content is neither) is ``""``: unreadable, 0 from every reward, as ``jp.score``
    finds a response that is not text."""
    if isinstance(completion, str):
        return completion
    if not isinstance(completion, (list, tuple)) or not completion \
            or not all(isinstance(m, Mapping) and isinstance(m.get("role"), str) for m in completion):
        return ""
    assistant = [m for m in completion if m["role"] == "assistant"]
    content = assistant[-1].get("content") if assistant else None
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)) and all(isinstance(p, Mapping) for p in content):
        texts = [p.get("text") for p in content if p.get("type") == "text"]
        if all(isinstance(t, str) for t in texts):
            return "".join(texts)
    return ""


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, not {value!r}")
    return float(value)


def make_jigsaw_reward(
    correct: float = 1.0,
    wrong: float = 0.0,
    unreadable: Optional[float] = None,
    partial_credit: bool = False,
    name: str = "jigsaw_reward",
) -> Callable[..., list[float]]:
    """Build a GRPO reward function.

    correct / wrong: rewards for right and wrong answers. unreadable: reward for a response that is not a
    valid answer of the item's format (ambiguous, none found, ``Judgment: B`` alone, a duplicated piece, a
    45-degree turn; default: same as ``wrong``; a negative value teaches the answer format). partial_credit:
    a valid wrong order earns the share of its regions that are right (rotated orders: the right image turned
    right), a valid wrong Anomaly Detection answer the share of its three fields: ``wrong + (correct - wrong)
    * share``. Invalid answers never earn partial credit, so ``unreadable <= wrong <= correct`` is required:
    an invalid answer never earns more than a valid one. References are read by
    :func:`~jigsaw_puzzles.spec.parse_reference`, as ``score()`` reads them; a malformed one is a
    ``ValueError``.
    """
    unreadable = wrong if unreadable is None else unreadable
    correct, wrong, unreadable = (_number(k, v) for k, v in
                                  (("correct", correct), ("wrong", wrong), ("unreadable", unreadable)))
    if not unreadable <= wrong <= correct:
        raise ValueError(f"{name}: needs unreadable <= wrong <= correct (got {unreadable}, {wrong}, {correct}): an "
                         "invalid answer must never earn more than a valid wrong one, nor a wrong one more than "
                         "the right one")

    def reward(completions, answer, config=None, **kwargs) -> list[float]:
        out = []
        for text, ref, cfg, opts, _ in reward_rows(completions, answer, config, kwargs, kwargs.get("prompts"), name):
            ex = classify_response(text, cfg, opts)
            if ex.status != PARSED:
                out.append(unreadable)
            elif ex.answer == ref:
                out.append(correct)
            elif partial_credit:
                out.append(wrong + (correct - wrong) * position_share(ex.answer, ref, cfg))
            else:
                out.append(wrong)
        return out

    reward.__name__ = reward.__qualname__ = name  # TRL logs rewards under the function's __name__
    return reward


def layout(answer: str, config: str) -> list:
    """The pieces of a canonical order answer, region by region: image numbers, or ``(image, rotation)``
    pairs for a rotated order."""
    if get_spec(config).kind == ORIENTED:
        return list(zip(*parse_oriented(answer)))
    return [int(x) for x in answer.strip("[]").split(",")]


def position_share(answer: str, reference: str, config: str) -> float:
    """How much of a *valid* answer agrees with the reference (both canonical answers of ``config``): orders,
    the share of regions holding the right image (rotated orders: turned right too); Anomaly Detection, the
    share of its three fields (judgment, position, type); multiple choice, 1 or 0."""
    kind = get_spec(config).kind
    if kind in (ORDER, ORIENTED):
        got, true = layout(answer, config), layout(reference, config)
    elif kind == ANOMALY:
        got, true = ([line.split(":", 1)[1].strip() for line in a.split("\n")] for a in (answer, reference))
    else:
        return float(answer == reference)
    return sum(a == b for a, b in zip(got, true)) / len(true)


def reward_rows(completions: Any, answer: Any, config: Any, columns: Mapping[str, Any], prompts: Any = None,
                who: str = "reward") -> list[tuple[str, str, str, Optional[list], Any]]:
    """The columns TRL hands a reward function, one row per completion: ``(text, reference, config, options,
    metadata)``, the reference in canonical form (:func:`~jigsaw_puzzles.spec.parse_reference`, the reader
    ``score()`` uses). ``answer``, ``config``, ``id`` may be one string for every completion and ``metadata``
    one value; otherwise every column (``prompts`` too) has exactly one entry per completion: a column of
    another length would put rewards on the wrong completions, so it is a ``ValueError`` naming it, as is a
    malformed reference, an unknown config or neither ``config`` nor ``id``."""
    if completions is None or isinstance(completions, (str, bytes, dict)):
        raise ValueError(f"{who}: completions must be a list with one entry per completion, not "
                         f"{type(completions).__name__}")
    completions = list(completions)
    n = len(completions)

    def column(name: str, value: Any, single: tuple = (str,)) -> list:
        if isinstance(value, single):
            return [value] * n
        if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
            raise ValueError(f"{who}: the {name} column must be a list with one entry per completion, not "
                             f"{type(value).__name__}")
        values = list(value)
        if len(values) != n:
            raise ValueError(f"{who}: {len(values)} {name} entries for {n} completions: each completion needs its "
                             f"own (rewards would land on the wrong completions)")
        return values

    if prompts is not None and not isinstance(prompts, str):
        column("prompts", prompts)
    if config is None:
        if columns.get("id") is None:
            raise ValueError(f"{who} needs a 'config' column or the dataset's 'id' column")
        configs = column("id", columns["id"])
    else:
        configs = column("config", config)
    if answer is None:
        raise ValueError(f"{who} needs the dataset's 'answer' column")
    answers = column("answer", answer)
    options = [None] * n if columns.get("options") is None else column("options", columns["options"], ())
    metadata = [None] * n if columns.get("metadata") is None else column("metadata", columns["metadata"], (str, dict))
    rows = []
    for i, (comp, ref, cfg, opts, meta) in enumerate(zip(completions, answers, configs, options, metadata)):
        if opts is not None and (isinstance(opts, (str, bytes)) or not isinstance(opts, Iterable)):
            raise ValueError(f"{who}: options of row {i} must be that item's list of options, not {opts!r}")
        try:
            cfg = config_from_id(cfg) if config is None else cfg
            ref = parse_reference(ref, cfg)
        except ValueError as e:
            raise ValueError(f"{who}: row {i}: {e}") from None
        rows.append((_text(comp), ref, cfg, (list(opts) or None) if opts is not None else None, meta))
    return rows


def _text(completion: Any) -> str:
    try:
        return completion_text(completion)
    except Exception:  # an unexpected object from a trainer is an unreadable answer, never a crash
        return ""


#: ``reward_funcs=[jigsaw_reward]``: 1.0 for a correct final answer, else 0.0.
jigsaw_reward = make_jigsaw_reward()
jigsaw_reward.__doc__ = """GRPO reward: 1.0 if the completion's final answer equals ``answer``, else 0.0.

Signature as TRL's GRPOTrainer calls it: ``jigsaw_reward(prompts=..., completions=...,
answer=[...], id=[...], options=[...], ...)``. The config comes from a ``config``
column if the dataset has one, else from the row ``id`` (``"<config>/<hash>"``).
Completions may be strings or conversations (lists of ``{"role", "content"}``).
References are read as ``score()`` reads them (``[2,3,1,4]``, ``a``, trailing spaces and CRLF
are the canonical answer; a malformed one is a ``ValueError``), and a column whose length
differs from the completions' is a ``ValueError``, never truncated.
"""
