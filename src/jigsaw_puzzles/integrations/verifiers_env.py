"""verifiers (``verifiers==0.4.0``, its ``verifiers.v1`` API; the ``verifiers`` extra): the items as a taskset
for single-turn RL, rewarded by this package's reader, and the in-process chat harness both jigsaw tasksets run
with.

* :class:`JigsawTaskset` (taskset id ``jigsaw_puzzles.integrations.verifiers_env``): one task per item of
  ``configs`` (``jp.load_dataset``, or the endless training stream with ``stream = true``); the prompt is one
  user turn of image-URL content parts (PNG data URLs, in the order the question numbers them) and then the
  question verbatim.
* Rewards (:class:`JigsawTask`), all :mod:`jigsaw_puzzles.rewards` on the trace's last reply: the task reward
  ``reward`` (``position_reward``: partial credit for orders and anomaly fields, exact elsewhere; or
  ``adjacency_reward`` / ``exact_reward``, per the config's ``reward``), weight 1, and ``format_reward``, weight
  ``format_weight`` (0.2); metric ``correct`` (``exact_reward``).
* :class:`ChatHarness`: one chat-completions call per segment, made in process through the rollout's
  interception endpoint (verifiers records it in the trace); the built-in harnesses install their program with
  ``uv`` at run time, which needs the network.

``vf-eval jigsaw_puzzles.integrations.verifiers_env --env.taskset.configs '["order_generation"]'
--env.agent.runtime.type subprocess --model M --api-base-url URL --no-push`` (docs/integrations.md).
"""
from __future__ import annotations

import json
from typing import Any, Literal

import httpx
from pydantic import Field
import verifiers.v1 as vf
from openai import AsyncOpenAI
from verifiers.v1.dialects.chat import message_to_wire
from verifiers.v1.runtimes import ProgramResult

from ..generation.builder import load_dataset
from ..inference.backends import image_to_data_url
from ..training import rewards
from ..training.stream import training_stream

__all__ = ["JigsawTaskset", "ChatHarness"]

REWARDS = {"position": rewards.position_reward, "adjacency": rewards.adjacency_reward, "exact": rewards.exact_reward}


def prompt_of(images: list, question: str) -> list[dict]:
    """One user turn: the images as image-URL parts (PNG data URLs), then the question verbatim."""
    parts = [{"type": "image_url", "image_url": {"url": image_to_data_url(im)}} for im in images]
    return [{"role": "user", "content": [*parts, {"type": "text", "text": question}]}]


class JigsawData(vf.TaskData):
    answer: str
    config: str
    options: list[str] | None = None
    metadata: str | None = None
    """The row's metadata (JSON): the grid that partial credit reads."""


class JigsawTaskConfig(vf.TaskConfig):
    reward: Literal["position", "adjacency", "exact"] = "position"
    format_weight: float = Field(0.2, ge=0.0, le=1.0, allow_inf_nan=False)
    """In [0, 1] (a NaN, an infinity, a negative or 1e9 is refused): the rubric's total lies in [0, 1 + weight]."""


def _reward_args(task: JigsawData, trace: Any) -> dict:
    return {"completions": [trace.last_reply or ""], "answer": [task.answer], "config": [task.config],
            "options": [task.options], "metadata": [task.metadata]}


class JigsawTask(vf.Task[JigsawData, vf.State, JigsawTaskConfig]):
    """An item; its rewards are :mod:`jigsaw_puzzles.rewards` on the last reply."""

    @vf.reward(weight=1.0)
    async def reward(self, task, trace) -> float:
        return REWARDS[self.config.reward](**_reward_args(task, trace))[0]

    @vf.reward(weight=1.0)
    async def format_reward(self, task, trace) -> float:
        # weighted here rather than by the decorator, so the config's format_weight applies
        return self.config.format_weight * rewards.format_reward(**_reward_args(task, trace))[0]

    @vf.metric
    async def correct(self, task, trace) -> float:
        return rewards.exact_reward(**_reward_args(task, trace))[0]


class JigsawTasksetConfig(vf.TasksetConfig):
    configs: list[str] = ["order_generation"]
    split: str = "lite"
    source: str | None = None
    seed: int = 0
    stream: bool = False
    """The endless training stream (training photos only; ``exclude``: an evaluation export) instead of a split."""
    exclude: str | None = None
    task: JigsawTaskConfig = JigsawTaskConfig()


def _rows(config: JigsawTasksetConfig):
    if config.stream:
        mixture = {name: 1 for name in config.configs}
        yield from training_stream(config.source, mixture=mixture, seed=config.seed, exclude=config.exclude)
        return
    for name in config.configs:
        yield from load_dataset(name, split=config.split, source=config.source, seed=config.seed)


def _config_of(row: dict) -> str:
    from ..spec import config_from_id

    return row.get("config") or config_from_id(row["id"])


class JigsawTaskset(vf.Taskset[JigsawTask, JigsawTasksetConfig]):
    """The benchmark's items (or the training stream's) as single-turn tasks."""

    def __init__(self, config: JigsawTasksetConfig) -> None:
        super().__init__(config)
        self.INFINITE = bool(config.stream)

    def load(self):
        for row in _rows(self.config):
            meta = row.get("metadata")
            yield JigsawTask(JigsawData(
                id=row["id"], name=row["id"], prompt=prompt_of(row["images"], row["question"]),
                answer=row["answer"], config=_config_of(row), options=list(row.get("options") or []) or None,
                metadata=meta if isinstance(meta, str) or meta is None else json.dumps(meta)), self.config.task)


class ChatHarnessConfig(vf.HarnessConfig):
    max_tokens: int | None = None


class ChatHarness(vf.Harness[ChatHarnessConfig]):
    """A chat loop in process: each segment sends the conversation so far to the interception endpoint once and
    takes the reply (no tools, no program, no container)."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, **kwargs) -> ProgramResult:
        system, prompt = self.resolve_prompt(data)
        messages = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages.extend(message_to_wire(m) for m in prompt or [])
        extra = {"max_tokens": self.config.max_tokens} if self.config.max_tokens else {}
        # the interception server shares this process's event loop, which other rollouts' scoring and rendering
        # can hold for seconds: a patient connect (the SDK's 5 s failed under load) and the SDK's own retries, which
        # the interception server de-duplicates
        timeout = httpx.Timeout(600.0, connect=60.0)
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, timeout=timeout, max_retries=2) as client:
            await client.chat.completions.create(model=ctx.model, messages=messages, **extra)
        return ProgramResult(exit_code=0, stdout="", stderr="")
