"""The ``jigsaw`` Inspect model provider: ``--model jigsaw/solver`` (the package's classical, weight-free solver)
and ``--model jigsaw/random`` (the seeded uniform guesser), as Inspect models, offline.

Registered through the package's ``inspect_ai`` entry point (setup.cfg), so ``inspect eval ... --model
jigsaw/solver`` finds it once the package is installed; importing :mod:`.inspect_eval` registers it too.

The model reads what a vision model is sent: the images of the user turn (decoded from their data URIs) and, from
the sample's metadata, its config and options (never its answer); it answers with the text that
``jigsaw-puzzles eval --model solver`` (or ``random``) gives on the same item. Each output carries its usage (zero
tokens), so Inspect never counts tokens with an encoding it would download.
"""
from __future__ import annotations

import base64
import io
from typing import Any

from inspect_ai.model import (ChatMessageUser, ContentImage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage,
                              modelapi)
from inspect_ai.solver._task_state import sample_state  # the running sample (its metadata: config, options)
from PIL import Image

MODELS = ("solver", "random")


def _image(uri: str) -> Image.Image:
    if not isinstance(uri, str) or not uri.startswith("data:image/"):
        raise ValueError("the jigsaw models read images sent as data URIs (the jigsaw_puzzles tasks send them so)")
    return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB")


def answer(model: str, images: list, question: str, metadata: dict, row_id: Any) -> str:
    """The baseline's answer text for one item (what ``jigsaw-puzzles eval --model <model>`` writes)."""
    config = metadata["config"]
    row = {"id": str(row_id), "images": images, "question": question, "options": metadata.get("options") or []}
    if model == "random":
        from jigsaw_puzzles.baselines.random_baseline import random_answer

        return random_answer(row, config, seed=int(metadata.get("seed", 0)))
    from jigsaw_puzzles.baselines import solve

    return solve(row, config).text


class JigsawBaselineAPI(ModelAPI):
    """``jigsaw/solver`` or ``jigsaw/random``."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), **model_args: Any):
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name not in MODELS:
            raise ValueError(f"the jigsaw provider has the models {', '.join(MODELS)}, not {model_name!r}")

    async def generate(self, input: list, tools: list, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        state = sample_state()
        if state is None or "config" not in (state.metadata or {}):
            raise ValueError("jigsaw/solver and jigsaw/random answer the samples of the jigsaw_puzzles tasks only")
        user = [m for m in input if isinstance(m, ChatMessageUser)][-1]
        parts = user.content if isinstance(user.content, list) else []
        images = [_image(p.image) for p in parts if isinstance(p, ContentImage)]
        text = answer(self.model_name, images, user.text, state.metadata, state.sample_id)
        output = ModelOutput.from_content(model=f"jigsaw/{self.model_name}", content=text)
        output.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return output


@modelapi(name="jigsaw")
def jigsaw():
    return JigsawBaselineAPI
