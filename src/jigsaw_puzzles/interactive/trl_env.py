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

TRL also takes ``environment_factory`` as a dict keyed by name, each row naming its own in an ``environment``
column; only that environment's tools are rendered in the row's prompt. :func:`environments` is that dict, keyed by
task (the config): the rotated configs get :class:`JigsawToolEnv` (swap, rotate, submit), the others
:class:`JigsawSwapEnv` (swap, submit: no ``rotate`` tool offered where no piece is turned); ``tool_rows(...,
environment=True)`` adds the column. One run then mixes rotated and upright puzzles, each with its own tools.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Iterable

from ..errors import UsageError
from ..spec import config_from_id, get as get_spec
from .core import NO_EPISODE, ORDER_BASES, Game, Observation, Puzzle, Rules

#: The prompt of an interactive rollout (the board and the rules come from ``reset``).
PROMPT = "Restore the photograph by moving its pieces with the tools."


class NoEpisode(UsageError):
    """A tool called without a live puzzle (no reset, or the last reset was refused)."""


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
        if self.game is None:
            raise NoEpisode(NO_EPISODE)
        try:
            signature.bind(self, *args, **kwargs)
        except TypeError as err:
            return _parts(self.game._invalid(f"a malformed {method.__name__} call ({err})."))
        return method(self, *args, **kwargs)
    return tool


class JigsawSwapEnv:
    """The interactive jigsaw of puzzles whose pieces are upright: tools ``swap`` and ``submit`` only. A rotated
    puzzle is refused at ``reset`` (it could not be solved without ``rotate``: use :class:`JigsawToolEnv`)."""

    ROTATE = False

    def __init__(self, rules: Rules | None = None):
        self.rules = rules or Rules()
        self.game: Game | None = None

    def reset(self, **row: Any) -> list[dict]:
        """Set up the row's puzzle; returns the board and the rules as content parts. A refused row leaves no
        puzzle: the tools then raise :class:`NoEpisode` (TRL hands the model its message as the tool's error)."""
        self.game = None
        puzzle = Puzzle.from_row(row)
        if puzzle.rotated and not self.ROTATE:
            raise UsageError(f"row {row.get('id')!r}: a rotated puzzle needs the rotate tool; give its rows "
                             f"JigsawToolEnv (environments() does)")
        self.game = Game(puzzle, self.rules)
        return _parts(self.game.observe())

    def _play(self, action: str, *args: Any) -> list[dict]:
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
    def submit(self) -> list:
        """Submit the board as it stands as the restored photograph; this ends the episode.

        Returns:
            The final board, and a confirmation.
        """
        return self._play("submit")

    def get_reward(self) -> float:
        """The rollout's reward (:meth:`.core.Game.reward`); 0.0 without a live puzzle (never the reward of a puzzle
        before a refused reset)."""
        return self.game.reward() if self.game is not None else 0.0


class JigsawToolEnv(JigsawSwapEnv):
    """An interactive jigsaw for TRL's ``environment_factory`` (``functools.partial(JigsawToolEnv, rules=...)``
    for other :class:`~.core.Rules`): tools ``swap``, ``rotate`` and ``submit``, any order puzzle."""

    ROTATE = True

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


def environments(configs: Iterable[str], rules: Rules | None = None) -> dict[str, Callable[[], JigsawSwapEnv]]:
    """TRL's dict ``environment_factory``, keyed by task: ``{config: factory}`` for each order config of
    ``configs`` (any grid, ``_rot`` or not), :class:`JigsawToolEnv` for the rotated ones and :class:`JigsawSwapEnv`
    for the others, each with ``rules``. Rows name theirs with ``tool_rows(..., environment=True)``."""
    out = {}
    for config in configs:
        spec = get_spec(config)  # an unknown name is a ValueError naming it
        if not any(config.startswith(base) for base in ORDER_BASES):
            raise UsageError(f"{config} is not an order config: the interactive jigsaw plays "
                             f"{' and '.join(ORDER_BASES)} (any grid, _rot or not)")
        out[config] = functools.partial(JigsawToolEnv if spec.rotated else JigsawSwapEnv, rules=rules)
    if not out:
        raise UsageError("environments() needs at least one order config")
    return out


def tool_rows(dataset, prompt: str = PROMPT, environment: bool = False, smoke_test: bool = False):
    """A stream or dataset of order items made ready for :class:`JigsawToolEnv`: the pieces move from
    ``images`` to ``pieces`` and ``prompt`` becomes one user turn of ``prompt`` (``reset`` adds the board and
    the rules); ``environment=True`` adds the ``environment`` column TRL routes a dict ``environment_factory``
    by (the row's config, as :func:`environments` keys it). Works on ``datasets.Dataset`` and ``IterableDataset``
    alike. Training rows: an evaluation split (the benchmark's ``test`` or ``lite`` items) is a ``UsageError``
    unless ``smoke_test=True``, which warns (:mod:`jigsaw_puzzles.training.eval_split`)."""
    from ..training.eval_split import item_id, refuse_evaluation

    refuse_evaluation(dataset, "tool_rows", smoke_test)

    def convert(row):
        if item_id(row.get("id")):  # a stream's rows cannot be read ahead: checked as they come
            refuse_evaluation(row, "tool_rows", smoke_test)
        out = {"prompt": [{"role": "user", "content": prompt}], "pieces": row["images"]}
        if environment:
            out["environment"] = row.get("config") or config_from_id(row["id"])
        return out

    names = dataset.column_names
    columns = [c for c in ("images", "question", "options") if names is None or c in names]
    return dataset.map(convert, remove_columns=columns)
