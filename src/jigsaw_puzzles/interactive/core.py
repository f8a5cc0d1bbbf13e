"""The interactive jigsaw's one set of rules: a puzzle, the board state, the actions, the render and the reward.

Both faces (:mod:`.trl_env` for TRL's ``environment_factory``, :mod:`.gym_env` for Gymnasium) drive a
:class:`Game`; neither holds a rule of its own.

* Puzzle: an order item (any grid of ``order_restoration`` / ``order_generation``, with or without ``_rot``, cut
  straight or into interlocking pieces: ``_tabs``, ``_tabs_silhouette``) from a training-stream row or a built
  dataset row (:meth:`Puzzle.from_row`): its pieces are the item's images, in the order the item numbers them,
  and its solution the row's ``metadata`` order (and rotations).
* State: ``board[j]``, the piece at position ``j`` (row by row), and ``turns[j]``, the clockwise degrees that
  piece has been turned; a piece keeps its turn when it moves. The game starts with piece ``k`` at position
  ``k``, unturned: the board shows the item exactly as the benchmark does.
* Actions: ``swap(first, second)``, ``rotate(position, degrees)`` (rotated puzzles; 90, 180 or 270 clockwise),
  ``submit()``. Each costs a turn of the budget (:attr:`Rules.max_turns`); an invalid one (an unknown position,
  a bad angle, a malformed call, no turns left) changes nothing, says why in one line and is counted.
* Observation: the board as it stands (:mod:`.render`: straight pieces each under a strip with its position
  number, on a grid with gutters; interlocking pieces laid edge to edge, so that a piece in the wrong place
  visibly does not fit) and a short text. Byte-identical for the same puzzle and the same actions.
* Reward (:meth:`Game.reward`): see :class:`Rules`.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from PIL import Image

from .. import geometry
from ..errors import UsageError
from ..spec import config_from_id, format_order, format_oriented, get as get_spec, grid_config, is_config
from . import render as _render

#: What a face says when it is asked to act without a live episode (never reset, or its last reset refused).
NO_EPISODE = "there is no live episode: reset() was not called, or the last reset was refused; reset first"

DEGREES = (90, 180, 270)
ORDER_BASES = ("order_restoration", "order_generation")
_MAX_ARG_CHARS = 16
_CALL = re.compile(r"\s*([a-z_]+)\s*\(([^()]{0,64})\)\s*", re.I)
_INT = re.compile(r"\s*\+?(\d{1,6})\s*")


@dataclass(frozen=True)
class Puzzle:
    """``pieces[k]``: image ``k + 1`` of the item; ``order[j]``: the image (1-based) that belongs at position
    ``j``; ``rotations[j]``: the clockwise degrees that turn it upright (``None``: an unrotated puzzle); ``cut``:
    ``straight``, or ``tabs`` / ``silhouette`` / ``content`` for interlocking pieces (RGBA canvases, :mod:`.render`)."""

    pieces: tuple
    rows: int
    cols: int
    order: tuple
    rotations: tuple | None = None
    config: str = ""
    row_id: str = ""
    cut: str = "straight"

    @property
    def n(self) -> int:
        return self.rows * self.cols

    @property
    def rotated(self) -> bool:
        return self.rotations is not None

    @property
    def shaped(self) -> bool:
        """Interlocking pieces (a ``_tabs`` or ``_tabs_silhouette`` config)."""
        return self.cut != "straight"

    @property
    def reward_config(self) -> str:
        """The order-generation config whose answer format the board's answer takes (for :mod:`jp.rewards`)."""
        return grid_config("order_generation", self.rows, self.cols, rotated=self.rotated)

    def answer(self) -> str:
        return format_oriented(self.order, self.rotations) if self.rotated else format_order(self.order)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "Puzzle":
        """The puzzle of a stream row or a built dataset row of an order config (``images`` or ``pieces``: the
        item's images; ``metadata``: its grid, order and rotations). ``UsageError`` for any other row."""
        if not isinstance(row, Mapping):
            raise UsageError(f"a puzzle row is a dataset row (a dict with images and metadata), not "
                             f"{type(row).__name__}")
        config = row.get("config") or (config_from_id(row["id"]) if isinstance(row.get("id"), str) else None)
        if not isinstance(config, str) or not is_config(config) or not config.startswith(ORDER_BASES):
            raise UsageError(f"the interactive jigsaw takes an order config's row ({', '.join(ORDER_BASES)}, any "
                             f"grid, with or without _rot, _tabs); got config {config!r}")
        meta = row.get("metadata")
        try:
            meta = json.loads(meta) if isinstance(meta, str) else dict(meta or {})
        except (TypeError, ValueError):
            raise UsageError(f"row {row.get('id')!r}: its metadata is not a JSON object") from None
        spec = get_spec(config)
        rows, cols = (int(x) for x in meta.get("grid") or spec.grid)
        pieces = row.get("pieces") if row.get("pieces") is not None else row.get("images")
        shaped = spec.cut != "straight"
        pieces = tuple(_as_image(p, shaped) for p in (pieces or ()))
        order = tuple(int(i) for i in meta.get("order") or ())
        n = rows * cols
        if len(pieces) != n or sorted(order) != list(range(1, n + 1)):
            raise UsageError(f"row {row.get('id')!r}: {len(pieces)} images and order {list(order)} do not make a "
                             f"{rows}x{cols} puzzle")
        if len({p.size for p in pieces}) != 1:
            raise UsageError(f"row {row.get('id')!r}: the pieces differ in size")
        rotations = None
        if spec.rotated:
            rotations = tuple(int(r) % 360 for r in meta.get("rotations") or ())
            if len(rotations) != n or any(r not in (0, *DEGREES) for r in rotations):
                raise UsageError(f"row {row.get('id')!r}: a rotated puzzle needs {n} rotations of 0/90/180/270")
            if pieces[0].width != pieces[0].height:
                raise UsageError(f"row {row.get('id')!r}: a rotated puzzle needs square pieces")
        if shaped:
            _check_canvas(row.get("id"), pieces[0].size, meta.get("tab_margin"))
        return cls(pieces, rows, cols, order, rotations, config, str(row.get("id") or ""), spec.cut)


def _check_canvas(row_id: Any, size: tuple[int, int], margin: Any) -> None:
    """``UsageError`` unless ``size`` is the canvas of a shaped piece (of the recorded ``tab_margin``, if any)."""
    try:
        cw, ch, m = geometry.tab_cell(size)
    except ValueError:
        cw = ch = m = None
    if m is None or min(cw, ch) < geometry.MIN_TAB_CELL or (margin is not None and margin != m):
        raise UsageError(f"row {row_id!r}: {size[0]}x{size[1]} pieces are not the canvases of interlocking pieces"
                         + (f" with the recorded tab_margin {margin!r}" if margin is not None else ""))


def _as_image(piece: Any, shaped: bool = False) -> Image.Image:
    """A piece as RGB, or for interlocking pieces as RGBA (their transparent area lies outside the piece)."""
    if isinstance(piece, Mapping) and piece.get("bytes"):  # a parquet row read without the Image feature
        import io

        piece = Image.open(io.BytesIO(piece["bytes"]))
    if not isinstance(piece, Image.Image):
        raise UsageError(f"a puzzle piece must be a PIL image (or {{'bytes': ...}}), not {type(piece).__name__}")
    if shaped:
        if piece.mode != "RGBA":
            raise UsageError(f"a piece of interlocking pieces is an RGBA image (its transparent area lies outside the "
                             f"piece), not {piece.mode}")
        return piece
    return piece.convert("RGB") if piece.mode != "RGB" else piece


@dataclass(frozen=True)
class Rules:
    """The game's budget and reward.

    * ``max_turns``: actions allowed, ``submit`` included (default :meth:`budget`: ``2 n`` unrotated, ``3 n``
      rotated: room for the ``n - 1`` swaps, the ``n`` turns and ``n`` mistakes).
    * The reward of a rollout: ``1`` when the submitted board is exactly the picture (every piece in place and
      upright); for a submitted board that is not, ``partial_weight`` x the share of ``partial`` (``"position"``:
      pieces in place, Jigsaw-R1's credit; ``"adjacency"``: true neighbour pairs kept; ``None``: none) from
      :mod:`jigsaw_puzzles.training.rewards`; ``0`` when nothing was submitted. From it are taken ``turn_cost`` per action
      beyond the fewest that solve the puzzle from its start (default ``0.25 / max_turns``: a whole wasted budget
      costs 0.25) and ``invalid_cost`` per invalid action. Clipped to ``[-1, 1]``: never above 1, and a rollout
      that never submits is never rewarded. With the defaults a solve without invalid actions (>= 0.75) always
      beats any wrong board (< 0.5).
    """

    max_turns: int | None = None
    partial: str | None = "position"
    partial_weight: float = 0.5
    turn_cost: float | None = None
    invalid_cost: float = 0.05

    def __post_init__(self):  # every value finite and in its range: a NaN cost would make a solve score -1
        if self.partial not in ("position", "adjacency", None):
            raise UsageError(f"partial credit is 'position', 'adjacency' or None, not {self.partial!r}")
        turns = self.max_turns
        if turns is not None and (isinstance(turns, bool) or not isinstance(turns, numbers.Integral) or turns < 1):
            raise UsageError(f"max_turns must be a whole number of at least 1 (or None), not {self.max_turns!r}")
        for name in ("partial_weight", "invalid_cost", "turn_cost"):
            value = getattr(self, name)
            if name == "turn_cost" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
                    or not 0 <= value <= 1:
                raise UsageError(f"{name} must be a finite number in [0, 1], not {value!r} (partial_weight scales "
                                 "the partial credit of a wrong board; turn_cost and invalid_cost are taken per action "
                                 "from a reward clipped to [-1, 1])")

    def budget(self, puzzle: Puzzle) -> int:
        return int(self.max_turns) if self.max_turns is not None else (3 if puzzle.rotated else 2) * puzzle.n

    def cost_per_turn(self, puzzle: Puzzle) -> float:
        return float(self.turn_cost) if self.turn_cost is not None else 0.25 / self.budget(puzzle)


@dataclass(frozen=True)
class Observation:
    """What the model sees after an action: the board, one line on what happened, and whether it was valid."""

    image: Image.Image | None
    text: str
    valid: bool = True
    done: bool = False


@dataclass
class Game:
    """One episode of a puzzle under :class:`Rules`."""

    puzzle: Puzzle
    rules: Rules = field(default_factory=Rules)

    def __post_init__(self):
        p = self.puzzle
        self.board = list(range(p.n))
        self.turns = [0] * p.n
        self.actions = self.invalid = 0
        self.submitted = False
        self.budget = self.rules.budget(p)
        self.fewest = self._fewest()
        self._board = _render.board(p)
        self._draw = True  # act(render=False): the caller draws the board itself

    # ------------------------------------------------------------------ state
    @property
    def over(self) -> bool:
        return self.submitted or self.actions >= self.budget

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the rendered board."""
        return self._board.size

    @property
    def solved(self) -> bool:
        p = self.puzzle
        return all(self.board[j] + 1 == p.order[j] and (not p.rotated or self.turns[j] == p.rotations[j])
                   for j in range(p.n))

    def answer(self) -> str:
        """The board as a benchmark answer (``[2, 3, 1, 4]``, or ``[(2, 90), ...]`` rotated)."""
        order = [b + 1 for b in self.board]
        return format_oriented(order, self.turns) if self.puzzle.rotated else format_order(order)

    def _fewest(self) -> int:
        """The fewest actions (submit aside) that solve the puzzle from the current board: ``n`` minus the
        cycles of the permutation, plus one turn per piece not yet turned right."""
        p = self.puzzle
        where = {piece: j for j, piece in enumerate(self.board)}
        target = [where[p.order[j] - 1] for j in range(p.n)]  # the position now holding what belongs at j
        seen, cycles = set(), 0
        for j in range(p.n):
            if j not in seen:
                cycles += 1
                while j not in seen:
                    seen.add(j)
                    j = target[j]
        wrong_turns = 0
        if p.rotated:
            want = {p.order[j] - 1: p.rotations[j] for j in range(p.n)}
            wrong_turns = sum(self.turns[j] != want[piece] for j, piece in enumerate(self.board))
        return p.n - cycles + wrong_turns

    # ---------------------------------------------------------------- render
    def render(self) -> Image.Image:
        """The board as it stands (a new image each call)."""
        return self._board.render(self.board, self.turns)

    def render_into(self, canvas) -> None:
        """Draw the board into the top-left corner of ``canvas`` (a uint8 ``(H, W, 3)`` numpy array, at least
        the board's size), pixel for pixel what :meth:`render` draws, without a PIL round trip (the Gym face)."""
        self._board.render_into(canvas, self.board, self.turns)

    def _status(self) -> str:
        if self.submitted:
            return "The episode is over."
        left = self.budget - self.actions
        return f"{left} turn{'s' if left != 1 else ''} left."

    def intro(self) -> str:
        p = self.puzzle
        turn = (" Each piece may also be turned: rotate(position, degrees) turns the piece at a position clockwise "
                "by 90, 180 or 270 degrees; a piece keeps its turn when it moves." if p.rotated else "")
        if not p.shaped:
            return (f"A photograph was cut into a {p.rows}x{p.cols} grid of pieces and shuffled. The image shows the "
                    f"board: positions 1-{p.n}, row by row, each number above its piece. swap(first, second) exchanges "
                    f"the pieces at two positions.{turn} Call submit() when the board shows the whole photograph "
                    f"restored. Every call costs a turn; you have {self.budget}.")
        grey = " and shown as flat grey shapes" if p.cut == "silhouette" else ""
        fit, done = ("The pieces lie edge to edge: where a piece does not fit its neighbours, a gap shows the white "
                     "paper or two pieces overlap, darker.", "every piece fits and the board shows")
        if p.cut == "content":
            fit, done = ("The pieces lie edge to edge; every piece has the same outline, so any piece fits anywhere "
                         "and only the picture tells where it belongs.", "the board shows")
        return (f"A photograph was cut into a {p.rows}x{p.cols} grid of interlocking pieces, with tabs and blanks like "
                f"real jigsaw pieces{grey}, and shuffled. The image shows the board: positions 1-{p.n}, row by row, "
                f"each number at the centre of its cell. {fit} swap(first, second) exchanges the pieces at two "
                f"positions.{turn} Call submit() when {done} the whole picture restored. Every call costs a turn; you "
                f"have {self.budget}.")

    def observe(self, text: str | None = None, valid: bool = True) -> Observation:
        return Observation(self.render() if self._draw else None, text if text is not None else self.intro(), valid, self.over)

    # --------------------------------------------------------------- actions
    def _invalid(self, why: str) -> Observation:
        if not self.over:
            self.actions += 1
        self.invalid += 1
        return self.observe(f"Invalid: {why} Nothing changed. {self._status()}", valid=False)

    def _position(self, value: Any, name: str) -> int | str:
        """A 0-based position, or the reason the value is not one."""
        number = _integer(value)
        if number is None:
            return f"{name} must be a whole number, got {_show(value)}."
        if not 1 <= number <= self.puzzle.n:
            return f"there is no position {_show(number)}; positions are 1-{self.puzzle.n}."
        return number - 1

    def _closed(self) -> str | None:
        if self.submitted:
            return "the board was already submitted."
        if self.actions >= self.budget:
            return f"no turns left (the budget is {self.budget})."
        return None

    def swap(self, first: Any, second: Any) -> Observation:
        why = self._closed()
        a, b = self._position(first, "first"), self._position(second, "second")
        why = why or next((x for x in (a, b) if isinstance(x, str)), None)
        if why is None and a == b:
            why = f"swap needs two different positions, got {a + 1} twice."
        if why:
            return self._invalid(why)
        self.actions += 1
        self.board[a], self.board[b] = self.board[b], self.board[a]
        self.turns[a], self.turns[b] = self.turns[b], self.turns[a]
        return self.observe(f"Swapped the pieces at positions {a + 1} and {b + 1}. {self._status()}")

    def rotate(self, position: Any, degrees: Any) -> Observation:
        why = self._closed()
        if why is None and not self.puzzle.rotated:
            why = "this puzzle has no turned pieces; only swap and submit."
        j = self._position(position, "position")
        why = why or (j if isinstance(j, str) else None)
        angle = _integer(degrees)
        if why is None and angle not in DEGREES:
            why = f"degrees must be 90, 180 or 270 (clockwise), got {_show(degrees)}."
        if why:
            return self._invalid(why)
        self.actions += 1
        self.turns[j] = (self.turns[j] + angle) % 360
        return self.observe(f"Turned the piece at position {j + 1} clockwise by {angle} degrees. {self._status()}")

    def submit(self) -> Observation:
        why = self._closed()
        if why:
            return self._invalid(why)
        self.actions += 1
        self.submitted = True
        return self.observe("Submitted. The episode is over.")

    def act(self, text: Any, render: bool = True) -> Observation:
        """One action written as text: ``swap(1, 5)``, ``rotate(3, 90)``, ``submit()``; anything else is a
        malformed call (an invalid action). ``render=False``: the observation carries no image."""
        self._draw = render
        try:
            return self._act(text)
        finally:
            self._draw = True

    def _act(self, text: Any) -> Observation:
        match = _CALL.fullmatch(text) if isinstance(text, str) and len(text) <= 128 else None
        if match is None:
            return self._invalid(f"could not read the action {_show(text)}; write swap(first, second), "
                                 + ("rotate(position, degrees), " if self.puzzle.rotated else "") + "or submit().")
        name, args = match.group(1).lower(), [a for a in match.group(2).split(",")] if match.group(2).strip() else []
        arity = {"swap": 2, "rotate": 2, "submit": 0}.get(name)
        if arity is None:
            return self._invalid(f"there is no action {_show(name)}; the actions are swap, "
                                 + ("rotate, " if self.puzzle.rotated else "") + "submit.")
        if len(args) != arity:
            return self._invalid(f"{name} takes {arity} argument{'s' if arity != 1 else ''}, got {len(args)}.")
        return getattr(self, name)(*[a.strip() for a in args])

    # ---------------------------------------------------------------- reward
    def score(self) -> float:
        """The answer's worth before costs: 1 solved, the partial share of a submitted board, 0 unsubmitted."""
        if not self.submitted:
            return 0.0
        if self.solved:
            return 1.0
        if self.rules.partial is None:
            return 0.0
        from ..training import rewards

        fn = rewards.position_reward if self.rules.partial == "position" else rewards.adjacency_reward
        p = self.puzzle
        share = fn(completions=[self.answer()], answer=[p.answer()], config=[p.reward_config],
                   metadata=[{"grid": [p.rows, p.cols]}])[0]
        return self.rules.partial_weight * min(float(share), 1.0)

    def reward(self) -> float:
        """The rollout's reward, in [-1, 1] (see :class:`Rules`)."""
        excess = max(0, self.actions - int(self.submitted) - self.fewest)
        value = (self.score() - self.rules.cost_per_turn(self.puzzle) * excess
                 - self.rules.invalid_cost * self.invalid)
        return float(min(1.0, max(-1.0, value)))


def _integer(value: Any) -> int | None:
    """An integer from a model's argument: an int, an integral float, or a string of digits; else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e6:
        return int(value)
    if isinstance(value, str) and len(value) <= _MAX_ARG_CHARS:
        m = _INT.fullmatch(value)
        return int(m.group(1)) if m else None
    return None


def _show(value: Any) -> str:
    """A short repr of what a model wrote; never raises (an int past Python's 4,300-digit limit, a broken repr)."""
    try:
        text = repr(value)
    except Exception:  # ValueError: "Exceeds the limit (4300 digits) for integer string conversion", or any repr
        text = f"<{type(value).__name__} too large to show>"
    return text if len(text) <= 40 else text[:37] + "..."

