"""The TRL face: ``GRPOTrainer(environment_factory=JigsawToolEnv)``.

TRL 1.16's contract, as its ``GRPOTrainer`` implements it: one instance per rollout, built once and reused;
``reset(**row)`` is called with the dataset row before generation and what it returns (here the board image and
the rules, as content parts) is appended to the row's last user message; every public method but ``reset`` and
``get_reward`` is a tool (its name, type hints and docstring make the schema the chat template renders); a tool
may return content parts, whose images TRL feeds back to the model; ``get_reward()`` scores the finished rollout
(an extra reward source of weight 1, logged under the class name).

The rules live in :class:`.core.Game`; this class only adapts them. Rows: a training-stream row or a built
dataset row of an order config, with its pieces under ``pieces`` (use :func:`tool_rows` to move them out of
``images``: TRL would otherwise show the loose pieces in the prompt as well).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from .core import Game, Observation, Puzzle, Rules

#: The prompt of an interactive rollout (the board and the rules come from ``reset``).
PROMPT = "Restore the photograph by moving its pieces with the tools."


def _parts(obs: Observation) -> list[dict]:
    return [{"type": "image", "image": obs.image}, {"type": "text", "text": obs.text}]


def _tool(method):
    """A tool any call reaches: one that does not fit the signature (an argument missing, extra or misnamed) is an
    invalid action of the game (it costs a turn and says why), not a ``TypeError`` that TRL would answer without
    the environment knowing. The schema TRL renders is still the method's own (``functools.wraps``: signature,
    type hints and docstring). A tool name that does not exist never reaches any environment: TRL answers it."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def tool(self, *args: Any, **kwargs: Any):
        try:
            signature.bind(self, *args, **kwargs)
        except TypeError as err:
            if self.game is None:
                return "Invalid: there is no puzzle yet (reset was not called)."
            return _parts(self.game._invalid(f"a malformed {method.__name__} call ({err})."))
        return method(self, *args, **kwargs)
    return tool


class JigsawToolEnv:
    """An interactive jigsaw for TRL's ``environment_factory`` (``functools.partial(JigsawToolEnv, rules=...)``
    for other :class:`~.core.Rules`)."""

    def __init__(self, rules: Rules | None = None):
        self.rules = rules or Rules()
        self.game: Game | None = None

    def reset(self, **row: Any) -> list[dict]:
        """Set up the row's puzzle; returns the board and the rules as content parts."""
        self.game = Game(Puzzle.from_row(row), self.rules)
        return _parts(self.game.observe())

    def _play(self, action: str, *args: Any) -> list[dict] | str:
        if self.game is None:
            return "Invalid: there is no puzzle yet (reset was not called)."
        return _parts(getattr(self.game, action)(*args))

    @_tool
    def swap(self, first: int, second: int) -> list:
        """Exchange the pieces at two positions of the board.

        Args:
            first: a position of the board, the number shown above its piece (1 is the top-left).
            second: another position of the board.

        Returns:
            The board as it now stands, and what happened.
        """
        return self._play("swap", first, second)

    @_tool
    def rotate(self, position: int, degrees: int) -> list:
        """Turn the piece at a position clockwise (puzzles whose pieces were turned).

        Args:
            position: a position of the board, the number shown above its piece.
            degrees: 90, 180 or 270, clockwise.

        Returns:
            The board as it now stands, and what happened.
        """
        return self._play("rotate", position, degrees)

    @_tool
    def submit(self) -> list:
        """Submit the board as it stands as the restored photograph; this ends the episode.

        Returns:
            The final board, and a confirmation.
        """
        return self._play("submit")

    def get_reward(self) -> float:
        """The rollout's reward (:meth:`.core.Game.reward`); 0.0 before any puzzle."""
        return self.game.reward() if self.game is not None else 0.0


def tool_rows(dataset, prompt: str = PROMPT):
    """A stream or dataset of order items made ready for :class:`JigsawToolEnv`: the pieces move from
    ``images`` to ``pieces`` and ``prompt`` becomes one user turn of ``prompt`` (``reset`` adds the board and
    the rules). Works on ``datasets.Dataset`` and ``IterableDataset`` alike."""
    def convert(row):
        return {"prompt": [{"role": "user", "content": prompt}], "pieces": row["images"]}

    names = dataset.column_names
    columns = [c for c in ("images", "question", "options") if names is None or c in names]
    return dataset.map(convert, remove_columns=columns)
