"""Verifiable rewards for reinforcement learning on Jigsaw-Puzzles items.

Every function has the signature TRL's ``GRPOTrainer`` calls a reward with: ``prompts=`` and
``completions=`` (strings, or conversations: lists of ``{"role", "content"}``), plus the dataset's columns
as keyword arguments (``answer`` is required; the config comes from a ``config`` column or from the row
``id``; ``options`` and ``metadata`` are used when present). Each returns one float per completion.

==========================  =========  ==========================================================
reward                      range      what earns it
==========================  =========  ==========================================================
:func:`exact_reward`        {0, 1}     the final answer equals the reference
:func:`position_reward`     [0, 1]     orders: the share of positions right (Jigsaw-R1; rotated
                                       orders: the right image turned right); anomaly
                                       detection: the share of its three fields; others: exact
:func:`adjacency_reward`    [0, 1]     orders: the share of the true neighbour pairs (left-right and
                                       top-bottom) that the answer also puts side by side (rotated
                                       orders: each piece turned right too); others: exact
:func:`format_reward`       {0, 1}     the response *is* an answer in the requested format (a letter
                                       alone, ``[2, 3, 1, 4]``, ``[(2, 90), ...]``, the three anomaly
                                       lines), optionally
                                       inside ``<answer>...</answer>`` after reasoning; right or wrong
==========================  =========  ==========================================================

:func:`combine` sums rewards with weights (e.g. ``combine((position_reward, 1.0), (format_reward, 0.2))``).

Partial credit is given for any number of pieces (Visual Jigsaw gives none below five, its issue #9), and
the format reward is separate from the task rewards, so a run cannot plateau on the format alone unnoticed
(its issue #8): a right answer in the wrong format earns the task reward and no format reward; a
well-formatted wrong answer earns the format reward only. The functions never raise on a completion and do
bounded work on any text (extraction reads at most the last 16,384 characters of the answer region);
a malformed *reference* is a data error and raises ``ValueError``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Optional, Sequence

from .extraction import PARSED, classify_response
from .spec import ANOMALY, CHOICE, ORDER, ORIENTED, config_from_id, get as get_spec, parse_oriented, parse_reference
from .training import completion_text

__all__ = ["exact_reward", "position_reward", "adjacency_reward", "format_reward", "combine", "track", "RewardFn"]

RewardFn = Callable[..., list[float]]
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>\s*\Z", re.S | re.I)
_MAX_FORMAT_CHARS = 4096  # an answer in the requested format is short; longer text is not one


def _rows(completions, answer, config, kwargs) -> list[tuple[str, str, str, Optional[list], Optional[list]]]:
    """(text, reference, config, options, grid) per completion."""
    n = len(completions)
    if config is None:
        ids = kwargs.get("id")
        if ids is None:
            raise ValueError("a Jigsaw-Puzzles reward needs a 'config' column or the dataset's 'id' column")
        config = [config_from_id(i) for i in ([ids] * n if isinstance(ids, str) else ids)]
    elif isinstance(config, str):
        config = [config] * n
    answers = [answer] * n if isinstance(answer, str) else list(answer)
    options = kwargs.get("options") or [None] * n
    metadata = kwargs.get("metadata") or [None] * n
    rows = []
    for comp, ref, cfg, opts, meta in zip(completions, answers, config, options, metadata):
        rows.append((_text(comp), parse_reference(ref, cfg), cfg, opts or None, _grid(meta)))
    return rows


def _text(completion: Any) -> str:
    try:
        return completion_text(completion)
    except Exception:  # an unexpected object from a trainer is an unreadable answer, never a crash
        return ""


def _grid(metadata: Any) -> Optional[list[int]]:
    try:
        meta = json.loads(metadata) if isinstance(metadata, str) else metadata
        grid = meta.get("grid") if isinstance(meta, dict) else None
        return [int(grid[0]), int(grid[1])] if grid else None
    except (ValueError, TypeError, IndexError, AttributeError):
        return None


def _order(text: str) -> list[int]:
    return [int(x) for x in text.strip("[] ").split(",")]


def _placed(ref: str, kind: str, parts: Optional[dict]) -> tuple[list, Optional[list]]:
    """(true layout, answered layout) per region: image numbers, or (image, rotation) pairs for a rotated
    order; the answered one ``None`` unless it is a complete layout of the same pieces."""
    parts = parts or {}
    if kind == ORIENTED:
        true = list(zip(*parse_oriented(ref)))
        got = list(zip(parts["order"], parts["rotations"])) if parts.get("rotations") else None
        valid = got is not None and sorted(i for i, _ in got) == sorted(i for i, _ in true)
    else:
        true, got = _order(ref), parts.get("order")
        valid = got is not None and sorted(got) == sorted(true)
    return true, (list(got) if valid else None)


def _exact(text: str, ref: str, cfg: str, options) -> tuple[float, Any]:
    ex = classify_response(text, cfg, options)
    return (1.0 if ex.status == PARSED and ex.answer == ref else 0.0), ex


def exact_reward(prompts=None, completions=(), answer=(), config=None, **kwargs) -> list[float]:
    """1.0 when the completion's final answer equals the reference, else 0.0."""
    return [_exact(t, r, c, o)[0] for t, r, c, o, _ in _rows(completions, answer, config, kwargs)]


def position_reward(prompts=None, completions=(), answer=(), config=None, **kwargs) -> list[float]:
    """Orders: the share of positions the answered order gets right (a half-right 2x2 order earns 0.5);
    Anomaly Detection: the share of its three fields (judgment, position, type) that are right; multiple
    choice: exact. An answer that is not a complete, valid order earns nothing."""
    out = []
    for text, ref, cfg, options, _ in _rows(completions, answer, config, kwargs):
        value, ex = _exact(text, ref, cfg, options)
        kind = get_spec(cfg).kind
        if value == 1.0 or kind == CHOICE:
            out.append(value)
        elif kind in (ORDER, ORIENTED):
            true, got = _placed(ref, kind, ex.parts)
            out.append(sum(a == b for a, b in zip(got, true)) / len(true) if got is not None else 0.0)
        else:  # ANOMALY
            fields = [line.split(":", 1)[1].strip() or None for line in ref.split("\n")]
            parts = ex.parts or {}
            got = [parts.get("judgment"), parts.get("position"), parts.get("type")]
            out.append(sum(a == b for a, b in zip(got, fields)) / 3 if got[0] is not None else 0.0)
    return out


def _pairs(order: Sequence[int], rows: int, cols: int) -> set[tuple[int, int, str]]:
    """The neighbour pairs of a layout: (piece left, piece right, "h") and (piece above, piece below, "v").
    ``order[j]`` is the piece placed at region j (row-major)."""
    pairs = set()
    for r in range(rows):
        for c in range(cols):
            j = r * cols + c
            if c + 1 < cols:
                pairs.add((order[j], order[j + 1], "h"))
            if r + 1 < rows:
                pairs.add((order[j], order[j + cols], "v"))
    return pairs


def adjacency_reward(prompts=None, completions=(), answer=(), config=None, **kwargs) -> list[float]:
    """Orders: the share of the true layout's neighbour pairs (left-right and top-bottom, with their
    direction) that the answered layout also has, so a correct block placed in the wrong corner still
    earns credit. The grid comes from the row's ``metadata`` (``"grid": [rows, cols]``), else from the
    config. Rotated orders: a pair counts when both pieces are also turned right. Other tasks: exact."""
    out = []
    for text, ref, cfg, options, grid in _rows(completions, answer, config, kwargs):
        value, ex = _exact(text, ref, cfg, options)
        kind = get_spec(cfg).kind
        if value == 1.0 or kind not in (ORDER, ORIENTED):
            out.append(value)
            continue
        true, got = _placed(ref, kind, ex.parts)
        rows, cols = grid or get_spec(cfg).grid
        if got is None or rows * cols != len(true):
            out.append(0.0)
            continue
        want = _pairs(true, rows, cols)
        out.append(len(want & _pairs(got, rows, cols)) / len(want) if want else 0.0)
    return out


def format_reward(prompts=None, completions=(), answer=(), config=None, **kwargs) -> list[float]:
    """1.0 when the response is exactly an answer in the requested format (whitespace and case aside): the
    option letter alone, the order as ``[2, 3, 1, 4]``, the three ``Judgment/Error Position/Error Type``
    lines; a reasoning trace may precede it when the answer is the content of a final
    ``<answer>...</answer>``. Right or wrong does not matter here."""
    out = []
    for text, ref, cfg, _, _ in _rows(completions, answer, config, kwargs):
        text = text.strip()
        tag = _ANSWER_TAG.search(text[-_MAX_FORMAT_CHARS:]) if text.endswith(">") else None
        body = tag.group(1).strip() if tag else text
        if not body or len(body) > _MAX_FORMAT_CHARS:
            out.append(0.0)
            continue
        kind = get_spec(cfg).kind
        if kind == CHOICE:
            ok = len(body) == 1 and body.upper() in get_spec(cfg).letters
        else:
            try:
                parse_reference(body, cfg)  # the canonical forms, normalised like a reference
                ok = kind == ANOMALY or body.startswith("[")
            except ValueError:
                ok = False
        out.append(1.0 if ok else 0.0)
    return out


def combine(*weighted: tuple[RewardFn, float], name: str = "jigsaw_combined") -> RewardFn:
    """One reward: the weighted sum of ``(reward, weight)`` pairs (TRL also takes several ``reward_funcs``
    with ``reward_weights``; this is for trainers that take one)."""
    if not weighted:
        raise ValueError("combine needs at least one (reward, weight) pair")

    def reward(prompts=None, completions=(), **kwargs) -> list[float]:
        total = [0.0] * len(completions)
        for fn, weight in weighted:
            for i, value in enumerate(fn(prompts=prompts, completions=completions, **kwargs)):
                total[i] += weight * value
        return total

    reward.__name__ = reward.__qualname__ = name
    return reward


def track(fn: RewardFn, curriculum: Any = None, name: Optional[str] = None) -> RewardFn:
    """``fn``, plus: its mean per config logged through TRL's ``log_metric`` reward argument (as
    ``"<name>/<config>"``, next to TRL's own per-function mean), and its values fed to a reward-driven
    :class:`jigsaw_puzzles.stream.Curriculum` (``curriculum.update``) when one is given."""
    label = name or getattr(fn, "__name__", "reward")

    def reward(prompts=None, completions=(), **kwargs) -> list[float]:
        values = fn(prompts=prompts, completions=completions, **kwargs)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            configs = kwargs.get("config")
            if configs is None and kwargs.get("id") is not None:
                configs = [config_from_id(i) for i in kwargs["id"]]
            by_config: dict[str, list[float]] = {}
            for cfg, value in zip(configs or [], values):
                by_config.setdefault(cfg, []).append(value)
            for cfg, vals in sorted(by_config.items()):
                log_metric(f"{label}/{cfg}", sum(vals) / len(vals))
        if curriculum is not None:
            curriculum.update(values)
        return values

    reward.__name__ = reward.__qualname__ = label
    return reward
