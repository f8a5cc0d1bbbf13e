"""The Gymnasium face: ``gymnasium.make("JigsawPuzzles/Jigsaw-v0", config="order_generation_3x3")``.

A real ``gymnasium.Env`` over the rules of :class:`.core.Game` (registered on import of this module; needs the
``env`` extra), for any order config: any grid, ``_rot``, and interlocking pieces (``_tabs``, ``_tabs_silhouette``:
the board shows shaped pieces laid edge to edge, :mod:`.render`). Puzzles come from the training stream
(:func:`jigsaw_puzzles.training_stream`: the ``train`` photos of ``source``, never an ``exclude``\\ d evaluation
photo), or from a given row with ``reset(options={"row": row})``.

* ``reset(seed=s)`` starts the stream of seed ``s`` and plays its first puzzle; ``reset()`` plays the next one
  (a first ``reset()`` without a seed draws the stream's seed from the environment's own generator). The same
  seed and the same actions give byte-identical observations.
* Actions (``action_space``): text, as a model writes it: ``swap(1, 5)``, ``rotate(3, 90)``, ``submit()``.
  Anything else is an invalid action (a message, a turn, a cost), never an exception.
* Observations (``observation_space``): ``{"board": uint8 (H, W, 3), "text": str}``. The board is drawn at its
  natural size in the top-left corner of a fixed canvas (black elsewhere) big enough for any photo the package
  accepts; ``info["board_size"]`` is its ``(width, height)``. ``render()`` (``render_mode="rgb_array"``) returns
  the board alone.
* A refused ``reset`` (a row of another config, ``options`` other than ``{"row": row}``, no ``source`` to stream
  from) leaves no episode: ``step`` then raises :class:`ResetNeeded` (Gymnasium's ``ResetNeeded``, as its
  ``OrderEnforcing`` wrapper raises before the first reset), never a move on the previous puzzle.
* Reward: 0 on every step but the last; on the step that ends the episode (``submit``: ``terminated``; budget
  spent: ``truncated``) the rollout's reward, :meth:`.core.Game.reward`.
"""

from __future__ import annotations

import string
from typing import Any, Mapping

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .. import geometry
from ..errors import UsageError, UserError
from ..generation.sources import DEFAULT_RULES
from ..spec import get as get_spec, is_config
from .core import NO_EPISODE, Game, Puzzle, Rules
from .render import GUTTER, LABEL

ENV_ID = "JigsawPuzzles/Jigsaw-v0"
_CHARSET = frozenset(string.printable)
_MAX_TEXT = 2048


class JigsawEnv(gym.Env):
    """The interactive jigsaw as a ``gymnasium.Env`` (see the module doc)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, config: str = "order_generation_3x3", source: Any = None, exclude: Any = None,
                 eval_fraction: float = 0.2, rules: Rules | None = None, render_mode: str | None = None):
        if not isinstance(config, str) or not is_config(config) or not get_spec(config).name.startswith(
                ("order_restoration", "order_generation")):
            raise UsageError(f"the interactive jigsaw plays an order config (any grid, with or without _rot, "
                             f"_tabs), not {config!r}")
        config = get_spec(config).name  # order_generation_2x2 is order_generation (the paper's 2x2 config)
        if render_mode not in (None, "rgb_array"):
            raise UsageError(f"render_mode is None or 'rgb_array', not {render_mode!r}")
        self.config, self.source, self.exclude, self.eval_fraction = config, source, exclude, eval_fraction
        self.rules, self.render_mode = rules or Rules(), render_mode
        spec = get_spec(config)
        rows, cols = spec.grid
        side = DEFAULT_RULES.max_side  # the longest side of a normalised photo: no picture is larger
        if spec.cut == "straight":
            self._canvas = (side + rows * LABEL + (rows - 1) * GUTTER, side + (cols - 1) * GUTTER)
        else:  # the picture in a frame of the canvas margin, which grows with the cell's shorter side
            frame = 2 * geometry.tab_margin(side // max(rows, cols))
            self._canvas = (side + frame, side + frame)
        self.observation_space = spaces.Dict({
            "board": spaces.Box(0, 255, (*self._canvas, 3), dtype=np.uint8),
            "text": spaces.Text(_MAX_TEXT, min_length=0, charset=_CHARSET),
        })
        self.action_space = spaces.Text(128, min_length=0, charset=_CHARSET)
        self.game: Game | None = None
        self._rows, self._ended = None, False

    def _next_row(self, seed: int | None) -> dict:
        from ..training.stream import training_stream

        if seed is not None or self._rows is None:
            stream_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
            stream = training_stream(self.source, {self.config: 1.0}, seed=stream_seed, exclude=self.exclude,
                                     eval_fraction=self.eval_fraction)
            self._rows = iter(stream)
        return next(self._rows)

    def _observation(self, text: str) -> dict:
        canvas = np.zeros((*self._canvas, 3), dtype=np.uint8)
        self.game.render_into(canvas)
        text = "".join(ch if ch in _CHARSET else "?" for ch in text)[:_MAX_TEXT]
        return {"board": canvas, "text": text}

    def _info(self, valid: bool = True) -> dict:
        g = self.game
        return {"board_size": g.size, "valid": valid, "turns_left": g.budget - g.actions,
                "invalid": g.invalid, "answer": g.answer(), "id": g.puzzle.row_id}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.game, self._ended = None, False  # a reset that is refused leaves no episode to step on
        super().reset(seed=seed)
        if options is not None and (not isinstance(options, Mapping) or set(options) - {"row"}):
            raise UsageError(f"reset's options take one key, 'row' (a dataset row of this env's config), not "
                             f"{_short(options)}")
        row = (options or {}).get("row")
        if row is None:
            row = self._next_row(seed)
        puzzle, spec = Puzzle.from_row(row), get_spec(self.config)
        if (puzzle.rows, puzzle.cols, puzzle.rotated, puzzle.cut) != (*spec.grid, spec.rotated, spec.cut):
            want = _kind(*spec.grid, spec.rotated, spec.cut)
            raise UsageError(f"row {puzzle.row_id!r} ({_kind(puzzle.rows, puzzle.cols, puzzle.rotated, puzzle.cut)}) "
                             f"does not fit this {self.config} environment ({want}); make one for its config")
        game = Game(puzzle, self.rules)
        self.game, self._ended = game, False
        return self._observation(self.game.intro()), self._info()

    def step(self, action: Any):
        if self.game is None:  # Gymnasium's convention (its OrderEnforcing wrapper): ResetNeeded
            raise ResetNeeded(NO_EPISODE)
        obs = self.game.act(action, render=False)
        terminated = self.game.submitted
        truncated = not terminated and self.game.over
        ending = (terminated or truncated) and not self._ended  # the reward is paid once, on the ending step
        self._ended = self._ended or terminated or truncated
        reward = self.game.reward() if ending else 0.0
        return self._observation(obs.text), reward, terminated, truncated, self._info(obs.valid)

    def render(self):
        if self.render_mode == "rgb_array" and self.game is not None:
            return np.asarray(self.game.render(), dtype=np.uint8)
        return None


class ResetNeeded(gym.error.ResetNeeded, UserError):
    """``step`` without a live episode: Gymnasium's own error type, and this package's user error (one line)."""


def _short(value: Any) -> str:
    text = repr(value) if isinstance(value, (str, int, float, type(None))) else type(value).__name__
    if isinstance(value, Mapping):
        text = f"keys {sorted(map(str, value))}"
    return text if len(text) <= 60 else text[:57] + "..."


def _kind(rows: int, cols: int, rotated: bool, cut: str = "straight") -> str:
    shape = {"tabs": ", interlocking pieces", "silhouette": ", interlocking silhouettes",
             "content": ", interlocking pieces of one outline"}.get(cut, "")
    return f"{rows}x{cols}, " + ("turned pieces" if rotated else "no turned pieces") + shape


class _PassiveChecker(gym.wrappers.PassiveEnvChecker):
    """Gymnasium's passive checker, except that a first ``reset`` that raises (a refused row) leaves the check for
    the next one: the stock wrapper (Gymnasium 1.4) marks the reset checked without its data, and the next
    episode's first ``step`` then fails with ``TypeError: cannot unpack non-iterable NoneType object``."""

    def reset(self, *, seed=None, options=None):
        first = not self.checked_reset
        try:
            return super().reset(seed=seed, options=options)
        except BaseException:
            self.checked_reset = self.checked_reset and not first
            raise


def make(**kwargs) -> gym.Env:
    """``gymnasium.make``'s entry point: the environment under :class:`_PassiveChecker` (registered with
    ``disable_env_checker=True`` so that the stock checker is not added on top of it)."""
    return _PassiveChecker(JigsawEnv(**kwargs))


make.metadata = JigsawEnv.metadata  # gymnasium.make reads the render modes from the entry point

if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point=make, disable_env_checker=True)
