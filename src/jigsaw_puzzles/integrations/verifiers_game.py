"""verifiers, multi-turn: the interactive jigsaw (:mod:`jigsaw_puzzles.interactive.core`) as a verifiers ``Env``.

Taskset id ``jigsaw-puzzles-game`` (:class:`JigsawGameTaskset`: one puzzle per order item of ``configs``, from a
split or the training stream); env :class:`JigsawGameEnv`, with one seat, ``agent`` (as in verifiers' single-agent
env). The model's first turn sees the board (an image-URL part) and the rules; every reply is one action, read as
the Gym face reads its text action (:meth:`~jigsaw_puzzles.interactive.core.Game.act`: ``swap(1, 5)``, ``rotate(3, 90)``, ``submit()``; anything else is
an invalid action), and the next user turn is the board after the move and one line on what happened. The episode
ends when the board is submitted or the budget is spent; its reward, ``game_reward`` (weight 1), is
:meth:`~jigsaw_puzzles.interactive.core.Game.reward`: the TRL and Gym faces' reward under the same
:class:`~jigsaw_puzzles.interactive.core.Rules`.
"""
from __future__ import annotations

import base64
import io
import json

import verifiers.v1 as vf
from PIL import Image
from verifiers.v1.types import ImageUrlContentPart, ImageUrlSource, TextContentPart, UserMessage

from ..inference.backends import image_to_data_url
from ..interactive.core import Game, Puzzle, Rules
from .verifiers_env import _config_of, _rows

__all__ = ["JigsawGameTaskset", "JigsawGameEnv"]

#: Added to the game's rules: a chat model answers in text, one action per reply.
REPLY = "Reply with exactly one action and nothing else, e.g. swap(1, 2) or submit()."


def turn(board: Image.Image, text: str) -> UserMessage:
    """One user turn: the board as an image-URL part, then the text."""
    return UserMessage(content=[ImageUrlContentPart(image_url=ImageUrlSource(url=image_to_data_url(board))),
                                TextContentPart(text=text)])


def _decode(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


class JigsawGameData(vf.TaskData):
    config: str
    metadata: str
    """The row's metadata (JSON): grid, order, rotations."""
    pieces: list[str]
    """The item's images as PNG data URLs, in the order the item numbers them."""


class JigsawGameTask(vf.Task[JigsawGameData, vf.State, vf.TaskConfig]):
    def puzzle(self) -> Puzzle:
        d = self.data
        return Puzzle.from_row({"id": d.id, "config": d.config, "metadata": d.metadata,
                                "pieces": [_decode(u) for u in d.pieces]})


class JigsawGameTasksetConfig(vf.TasksetConfig):
    configs: list[str] = ["order_generation_3x3"]
    split: str = "lite"
    source: str | None = None
    seed: int = 0
    stream: bool = False
    exclude: str | None = None


class JigsawGameTaskset(vf.Taskset[JigsawGameTask, JigsawGameTasksetConfig]):
    """Order items as puzzles; the prompt is the starting board and the rules."""

    def __init__(self, config: JigsawGameTasksetConfig) -> None:
        super().__init__(config)
        self.INFINITE = bool(config.stream)

    def load(self):
        for row in _rows(self.config):
            meta = row["metadata"] if isinstance(row["metadata"], str) else json.dumps(row["metadata"])
            data = {"id": row["id"], "config": _config_of(row), "metadata": meta}
            game = Game(Puzzle.from_row({**data, "pieces": row["images"]}))
            yield JigsawGameTask(JigsawGameData(
                **data, name=row["id"], pieces=[image_to_data_url(im) for im in row["images"]],
                prompt=[turn(game.render(), f"{game.intro()} {REPLY}")]), self.config.task)


class JigsawGameEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig()
    """The one seat, the policy playing (`--env.agent.*`, as in a single-agent env)."""
    max_turns: int | None = None
    """The game's budget (None: :meth:`Rules.budget`, 2n unrotated, 3n rotated)."""
    partial: str | None = "position"
    partial_weight: float = 0.5
    turn_cost: float | None = None
    invalid_cost: float = 0.05


class JigsawGameEnv(vf.Env[JigsawGameEnvConfig]):
    """The game loop: the engine (:class:`Game`) plays the user."""

    async def run(self, task, agents):
        c = self.config
        game = Game(task.puzzle(), Rules(max_turns=c.max_turns, partial=c.partial, partial_weight=c.partial_weight,
                                         turn_cost=c.turn_cost, invalid_cost=c.invalid_cost))
        async with agents.agent.interaction(task) as interaction:
            segment = await interaction.turn()
            while not segment.terminated:
                obs = game.act((segment.last_reply or "").strip())
                if game.over:
                    break
                segment = await interaction.turn([turn(obs.image, obs.text)])
        trace = interaction.trace
        trace.record_reward("game_reward", game.reward(), 1.0)
        trace.info["game"] = {"solved": game.solved, "submitted": game.submitted, "actions": game.actions,
                              "invalid": game.invalid, "answer": game.answer()}
