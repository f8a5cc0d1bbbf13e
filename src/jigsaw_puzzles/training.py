"""Jigsaw-Puzzles scoring inside training loops.

* :func:`make_compute_metrics` - a ``compute_metrics`` for ``transformers.Trainer`` /
  ``Seq2SeqTrainer(predict_with_generate=True)``: decodes the generated ids and runs
  :func:`jigsaw_puzzles.scoring.score`, returning a flat ``{name: float}`` dict.
* :func:`jigsaw_reward` - a reward function with the signature TRL's ``GRPOTrainer``
  expects for ``reward_funcs``: ``completions`` plus dataset columns as keyword
  arguments in, one float per completion out.

Neither imports ``transformers`` or ``trl``; they only rely on the objects those
libraries pass in.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from .extraction import PARSED, classify_response
from .scoring import score
from .spec import ANOMALY, ORDER, ORIENTED, config_from_id, get as get_spec, parse_oriented, parse_reference

__all__ = ["make_compute_metrics", "jigsaw_reward", "make_jigsaw_reward", "completion_text", "flatten_scores",
           "to_prompt", "to_messages", "with_prompt"]


def to_prompt(num_images: int, question: str) -> list[dict]:
    """TRL's conversational prompt: one user turn, one ``{"type": "image"}`` part per image (in the order the
    question numbers them; TRL fills them from the row's ``images`` column), then the question."""
    return [{"role": "user", "content": [*({"type": "image"} for _ in range(num_images)),
                                         {"type": "text", "text": question}]}]


def to_messages(row: dict, completion: bool = False) -> dict:
    """``{"prompt": [...]}`` for one benchmark row (and ``"completion"``: the answer as the assistant turn)."""
    out = {"prompt": to_prompt(len(row["images"]), row["question"])}
    if completion:
        out["completion"] = [{"role": "assistant", "content": [{"type": "text", "text": row["answer"]}]}]
    return out


def with_prompt(dataset, completion: bool = False, num_proc: Optional[int] = None):
    """The dataset with TRL-ready columns: a conversational ``prompt`` (GRPO) and, with ``completion=True``, the
    answer as an assistant ``completion`` (SFT, prompt-completion format), next to ``images``. Images are not
    decoded (their count comes from the config), so this is quick on a built split."""
    def add(ids, questions, answers):
        counts = [get_spec(config_from_id(i)).num_images for i in ids]
        out = {"prompt": [to_prompt(n, q) for n, q in zip(counts, questions)]}
        if completion:
            out["completion"] = [[{"role": "assistant", "content": [{"type": "text", "text": a}]}] for a in answers]
        return out

    return dataset.map(add, input_columns=["id", "question", "answer"], batched=True, num_proc=num_proc,
                       desc="TRL prompt")


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
        configs: the config of each eval row (e.g. ``[config] * len(eval_dataset)`` or
            derived from ``eval_dataset["id"]`` with :func:`config_from_id`).
        options: optional ``eval_dataset["options"]``.
        response_marker: for decoder-only models whose generated ids still contain the
            prompt: only the text after the last occurrence of this string (e.g.
            ``"assistant\\n"``) is scored, so the prompt's example answers are never read
            as the model's answer.

    ``eval_pred.predictions`` may be generated token ids (``predict_with_generate``;
    ``-100`` padding is handled), logits (argmax is taken - only meaningful for
    teacher-forced outputs), or already-decoded strings.
    """
    references = list(references)
    configs = list(configs)
    for ref, cfg in zip(references, configs):
        parse_reference(ref, cfg)  # fail at set-up, not after an epoch
    if len(references) != len(configs):
        raise ValueError("references and configs differ in length")
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
    """Text of one TRL completion: a string, or a conversation (list of role/content dicts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, (list, tuple)) and completion:
        msgs = [m for m in completion if isinstance(m, dict)]
        assistant = [m for m in msgs if m.get("role", "assistant") == "assistant"] or msgs
        if not assistant:
            return ""
        content = assistant[-1].get("content", "")
        if isinstance(content, list):  # multimodal parts: [{"type": "text", "text": ...}, ...]
            return "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return "" if content is None else str(content)
    return ""


def make_jigsaw_reward(
    correct: float = 1.0,
    wrong: float = 0.0,
    unreadable: Optional[float] = None,
    partial_credit: bool = False,
    name: str = "jigsaw_reward",
) -> Callable[..., list[float]]:
    """Build a GRPO reward function.

    correct / wrong: rewards for right and wrong answers. unreadable: reward for
    ambiguous/invalid responses (default: same as ``wrong``; a negative value teaches
    the answer format). partial_credit: Order Generation earns the share of the four
    slots it got right, Anomaly Detection the share of its three fields.
    """
    unreadable = wrong if unreadable is None else unreadable

    def reward(completions, answer, config=None, **kwargs) -> list[float]:
        n = len(completions)
        if config is None:
            ids = kwargs.get("id")
            if ids is None:
                raise ValueError("jigsaw_reward needs a 'config' column or the dataset's 'id' column")
            config = [config_from_id(i) for i in ids]
        elif isinstance(config, str):
            config = [config] * n
        answers = [answer] * n if isinstance(answer, str) else list(answer)
        options = kwargs.get("options") or [None] * n
        out = []
        for comp, ref, cfg, opts in zip(completions, answers, config, options):
            ex = classify_response(completion_text(comp), cfg, opts)
            if ex.status == PARSED and ex.answer == ref.strip("\n "):
                out.append(float(correct))
            elif ex.status != PARSED and not (partial_credit and ex.parts):
                out.append(float(unreadable))
            elif partial_credit:
                share = _partial(ex.parts, ref, cfg)
                base = wrong if ex.status == PARSED else unreadable
                out.append(float(base + (correct - base) * share))
            else:
                out.append(float(wrong))
        return out

    reward.__name__ = reward.__qualname__ = name  # TRL logs rewards under the function's __name__
    return reward


def _partial(parts: dict, ref: str, cfg: str) -> float:
    kind = get_spec(cfg).kind
    if kind == ORDER and parts.get("order"):
        true = [int(x) for x in ref.strip("[] ").split(",")]
        return sum(a == b for a, b in zip(parts["order"], true)) / len(true)
    if kind == ORIENTED and parts.get("rotations"):
        true = list(zip(*parse_oriented(ref)))
        return sum(a == b for a, b in zip(zip(parts["order"], parts["rotations"]), true)) / len(true)
    if kind == ANOMALY:
        fields = [ln.split(":", 1)[1].strip() or None for ln in ref.strip().split("\n")]
        got = [parts.get("judgment"), parts.get("position"), parts.get("type")]
        return sum(a == b for a, b in zip(got, fields)) / 3
    return 0.0


#: ``reward_funcs=[jigsaw_reward]``: 1.0 for a correct final answer, else 0.0.
jigsaw_reward = make_jigsaw_reward()
jigsaw_reward.__doc__ = """GRPO reward: 1.0 if the completion's final answer equals ``answer``, else 0.0.

Signature as TRL's GRPOTrainer calls it: ``jigsaw_reward(prompts=..., completions=...,
answer=[...], id=[...], options=[...], ...)``. The config comes from a ``config``
column if the dataset has one, else from the row ``id`` (``"<config>/<hash>"``).
Completions may be strings or conversations (lists of ``{"role", "content"}``).
"""
