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

:func:`combine` sums rewards with weights (e.g. ``combine((position_reward, 1.0), (format_reward, 0.2))``): each
weight a finite number in [0, 1], so the sum lies in [0, the sum of the weights].

One type rule on every face (these functions, :func:`jigsaw_puzzles.jigsaw_reward`, verl's ``compute_score``, the
verifiers rubric): a completion is a ``str`` or a conversation as TRL passes it (a list of message dicts: the last
assistant message's text is read); anything else (bytes, a dict, a list of strings, ``None``) is unreadable and
earns 0.0 (:func:`jigsaw_puzzles.training.trl_helpers.completion_text`). No reward pays a response that
``jp.score`` reads as no valid answer, nor exact credit ``jp.score`` does not give.

Partial credit is given for any number of pieces (Visual Jigsaw gives none below five, its issue #9), and
the format reward is separate from the task rewards, so a run cannot plateau on the format alone unnoticed
(its issue #8): a right answer in the wrong format earns the task reward and no format reward; a
well-formatted wrong answer earns the format reward only. The functions never raise on a completion and do
bounded work on any text (extraction reads at most the last 16,384 characters of the answer region).

Partial credit is for *valid* answers only: a response that is not a valid answer of the item's format
(ambiguous, none found, ``Judgment: B`` alone, a duplicated piece, a 45-degree turn, a letter outside the
options) earns 0.0 from every function, the unreadable value, which no valid answer is below.

The data are checked, never guessed: references are read by :func:`jigsaw_puzzles.spec.parse_reference`, as
``score()`` reads them (``[2,3,1,4]``, ``a``, trailing spaces, CRLF are the canonical answer); a malformed
reference, an unknown config, a column (``answer``, ``config``, ``id``, ``options``, ``metadata``,
``prompts``) whose length differs from the completions', or a reward returning another number of values
(:func:`combine`, :func:`track`) raises ``ValueError`` rather than put rewards on the wrong completions.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from typing import Any, Callable, Optional, Sequence

from ..scoring.extraction import PARSED, classify_response
from ..spec import ANOMALY, CHOICE, ORDER, ORIENTED, config_from_id, get as get_spec, parse_reference
from .trl_helpers import layout, position_share, reward_rows

__all__ = ["exact_reward", "position_reward", "adjacency_reward", "format_reward", "combine", "track", "RewardFn",
           "check_weight"]

RewardFn = Callable[..., list[float]]
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>\s*\Z", re.S | re.I)
_MAX_FORMAT_CHARS = 4096  # an answer in the requested format is short; longer text is not one


def _rows(who: str, prompts, completions, answer, config, kwargs) -> list[tuple[str, str, str, Optional[list], Any]]:
    """(text, canonical reference, config, options, metadata) per completion (:func:`training.reward_rows`)."""
    return reward_rows(completions, answer, config, kwargs, prompts, who)


def _grid(metadata: Any, config: str) -> tuple[int, int]:
    """The grid of an order item: the row's ``metadata`` (``"grid": [rows, cols]``) when it names one, else the
    config's. ``ValueError`` when the metadata's grid has another number of cells than the config's orders."""
    try:
        meta = json.loads(metadata) if isinstance(metadata, str) else metadata
        grid = meta.get("grid") if isinstance(meta, dict) else None
        rows, cols = (int(grid[0]), int(grid[1])) if grid else get_spec(config).grid
    except (ValueError, TypeError, IndexError, AttributeError):
        return get_spec(config).grid
    if rows * cols != get_spec(config).order_length:
        raise ValueError(f"adjacency_reward: the row's metadata grid {rows}x{cols} does not hold the "
                         f"{get_spec(config).order_length} pieces of a {config} answer")
    return rows, cols


def _read(text: str, cfg: str, options) -> Optional[str]:
    """The completion's answer when it is a valid answer of the item's format, else ``None``."""
    ex = classify_response(text, cfg, options)
    return ex.answer if ex.status == PARSED else None


def exact_reward(prompts=None, completions=(), answer=(), config=None, **kwargs) -> list[float]:
    """1.0 when the completion's final answer equals the reference, else 0.0."""
    return [1.0 if _read(t, c, o) == r else 0.0
            for t, r, c, o, _ in _rows("exact_reward", prompts, completions, answer, config, kwargs)]


def position_reward(prompts=None, completions=(), answer=(), config=None, **kwargs) -> list[float]:
    """Orders: the share of positions the answered order gets right (a half-right 2x2 order earns 0.5);
    Anomaly Detection: the share of its three fields (judgment, position, type) that are right; multiple
    choice: exact. Only a valid answer earns credit: a duplicated piece, a 45-degree turn, ``Judgment: B``
    without position and type, an ambiguous answer earn 0.0."""
    out = []
    for text, ref, cfg, options, _ in _rows("position_reward", prompts, completions, answer, config, kwargs):
        got = _read(text, cfg, options)
        out.append(0.0 if got is None else position_share(got, ref, cfg))
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
    config. Rotated orders: a pair counts when both pieces are also turned right. Other tasks: exact. Only
    a valid answer earns credit."""
    out = []
    for text, ref, cfg, options, meta in _rows("adjacency_reward", prompts, completions, answer, config, kwargs):
        got = _read(text, cfg, options)
        if got is None or got == ref or get_spec(cfg).kind not in (ORDER, ORIENTED):
            out.append(1.0 if got == ref else 0.0)
            continue
        rows, cols = _grid(meta, cfg)
        want = _pairs(layout(ref, cfg), rows, cols)
        out.append(len(want & _pairs(layout(got, cfg), rows, cols)) / len(want) if want else 0.0)
    return out


def format_reward(prompts=None, completions=(), answer=(), config=None, **kwargs) -> list[float]:
    """1.0 when the response is exactly an answer in the requested format (whitespace and case aside): the
    option letter alone, the order as ``[2, 3, 1, 4]``, the three ``Judgment/Error Position/Error Type``
    lines; a reasoning trace may precede it when the answer is the content of a final
    ``<answer>...</answer>``. Right or wrong does not matter here."""
    out = []
    for raw, ref, cfg, options, _ in _rows("format_reward", prompts, completions, answer, config, kwargs):
        text = raw.strip()
        tag = _ANSWER_TAG.search(text[-_MAX_FORMAT_CHARS:]) if text.endswith(">") else None
        body = tag.group(1).strip() if tag else text
        if not body or len(body) > _MAX_FORMAT_CHARS:
            out.append(0.0)
            continue
        kind = get_spec(cfg).kind
        try:
            canonical = parse_reference(body, cfg)  # the canonical forms, normalised like a reference
            ok = len(body) == 1 if kind == CHOICE else kind == ANOMALY or body.startswith("[")
        except ValueError:
            ok = False
        # and the reader (scoring's, on the response as it came: the same window) reads exactly that answer: never a
        # format reward for a response whose answer is read otherwise, or not at all
        out.append(1.0 if ok and _read(raw, cfg, options) == canonical else 0.0)
    return out


def combine(*weighted: tuple[RewardFn, float], name: str = "jigsaw_combined") -> RewardFn:
    """One reward: the weighted sum of ``(reward, weight)`` pairs (TRL also takes several ``reward_funcs``
    with ``reward_weights``; this is for trainers that take one). A reward that returns another number of
    values than there are completions is a ``ValueError``, never padded or cut."""
    if not weighted:
        raise ValueError("combine needs at least one (reward, weight) pair")
    pairs = []
    for pair in weighted:
        fn, weight = pair if isinstance(pair, tuple) and len(pair) == 2 else (None, None)
        if not callable(fn):
            raise ValueError(f"combine takes (reward, weight) pairs, e.g. combine((position_reward, 1.0), "
                             f"(format_reward, 0.2)); got {pair!r}")
        pairs.append((fn, check_weight(weight, f"combine: the weight of {getattr(fn, '__name__', fn)}")))

    def reward(prompts=None, completions=(), **kwargs) -> list[float]:
        total = [0.0] * _count(completions, name)
        for fn, weight in pairs:
            for i, value in enumerate(_values(fn, prompts, completions, kwargs, name)):
                total[i] += weight * value
        return total

    reward.__name__ = reward.__qualname__ = name
    return reward


def _count(completions: Any, who: str) -> int:
    if completions is None or isinstance(completions, (str, bytes, dict)) or not hasattr(completions, "__len__"):
        raise ValueError(f"{who}: completions must be a list with one entry per completion, not "
                         f"{type(completions).__name__}")
    return len(completions)


def _values(fn: RewardFn, prompts, completions, kwargs, who: str) -> list[float]:
    """``fn``'s rewards, exactly one finite number per completion (``ValueError`` otherwise)."""
    values = list(fn(prompts=prompts, completions=completions, **kwargs))
    n = _count(completions, who)
    if len(values) != n:
        raise ValueError(f"{who}: {getattr(fn, '__name__', fn)} returned {len(values)} rewards for {n} completions")
    bad = [v for v in values if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v)]
    if bad:
        raise ValueError(f"{who}: {getattr(fn, '__name__', fn)} returned {bad[0]!r}, not a finite number")
    return values


def check_weight(weight: Any, who: str) -> float:
    """``weight`` as a float in [0, 1] (a NaN, an infinity, a negative or 1e9 would put a reward outside its
    documented range); ``ValueError`` naming ``who`` otherwise."""
    if isinstance(weight, bool) or not isinstance(weight, numbers.Real) or not math.isfinite(weight) \
            or not 0 <= weight <= 1:
        raise ValueError(f"{who} must be a finite number in [0, 1], not {weight!r} (each reward lies in [0, 1], so a "
                         "weighted sum stays in [0, the sum of the weights])")
    return float(weight)


def track(fn: RewardFn, curriculum: Any = None, name: Optional[str] = None) -> RewardFn:
    """``fn``, plus: its mean per config logged through TRL's ``log_metric`` reward argument (as
    ``"<name>/<config>"``, next to TRL's own per-function mean), and its values fed to a reward-driven
    :class:`jigsaw_puzzles.training.stream.Curriculum` (``curriculum.update``) when one is given. ``config`` (or
    ``id``) may be one string for every completion or one per completion; any other length is a
    ``ValueError``, as is a ``fn`` that returns another number of rewards than there are completions."""
    label = name or getattr(fn, "__name__", "reward")

    def reward(prompts=None, completions=(), **kwargs) -> list[float]:
        values = _values(fn, prompts, completions, kwargs, label)
        n = len(values)
        configs = kwargs.get("config")
        if configs is None and kwargs.get("id") is not None:
            ids = kwargs["id"]
            configs = [config_from_id(i) for i in ([ids] * n if isinstance(ids, str) else ids)]
        elif isinstance(configs, str):
            configs = [configs] * n
        if configs is not None:
            configs = list(configs)
            if len(configs) != n:
                raise ValueError(f"{label}: {len(configs)} configs for {n} completions")
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and configs:
            by_config: dict[str, list[float]] = {}
            for cfg, value in zip(configs, values):
                by_config.setdefault(cfg, []).append(value)
            for cfg, vals in sorted(by_config.items()):
                log_metric(f"{label}/{cfg}", sum(vals) / len(vals))
        if curriculum is not None:
            curriculum.update(values)
        return values

    reward.__name__ = reward.__qualname__ = label
    return reward
