"""A scripted policy that solves the interactive jigsaw through its observations and tools alone.

It reads the grid from the first text ("a 3x3 grid", whether ``rotate`` is offered, and whether the pieces are
interlocking), cuts the cells out of the first board image (:func:`.render.pieces_of`; on a board of interlocking
pieces, where a neighbour's tab or a gap may lie on the middle of any edge, only the four corner squares of each
cell, which are the piece's own in every layout: :func:`corners`), places them with the classical any-grid placer
(:func:`jigsaw_puzzles.baselines.placer.place`, ``place_rotated`` for turned pieces), polishes an unrotated
layout by pairwise exchanges that lower its seam cost, and then plays the plan: the swaps that realise the
layout, one ``rotate`` per piece still turned, ``submit``. It never looks at the puzzle's answer: this is the
proof that the puzzles are solvable within the turn budget and that the tools do what they say.

:func:`play` drives any face through two callables: ``first`` (the opening observation) and ``call(name, *args)``
(one tool call), both answering ``(board image, text)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np
from PIL import Image

from .render import pieces_of

_GRID = re.compile(r"\b(\d+)x(\d+) grid\b")
Step = Callable[..., tuple]


@dataclass(frozen=True)
class Plan:
    """``order[j]``: the cell (1-based, as the first board numbers them) that belongs at position ``j``;
    ``rotations[j]``: the clockwise degrees that turn it upright (all 0 unrotated)."""

    order: list[int]
    rotations: list[int]


def read_grid(text: str) -> tuple[int, int, bool]:
    """``(rows, cols, rotated)`` from the opening text; ``ValueError`` when it names no grid."""
    match = _GRID.search(text)
    if match is None:
        raise ValueError(f"no grid in the opening text: {text[:80]!r}")
    return int(match.group(1)), int(match.group(2)), "rotate(" in text


def read_shaped(text: str) -> bool:
    """Whether the opening text describes interlocking pieces (the board lays them edge to edge)."""
    return "interlocking pieces" in text


def corners(cell: Image.Image) -> Image.Image:
    """A cell of a board of interlocking pieces reduced to its four corner squares, laid together (side ``2 t``,
    ``t`` = :data:`~jigsaw_puzzles.generation.tabs.cut.CORNER` x the shorter cell side). No tab, blank or tag
    reaches a corner square, so its pixels are the piece's own whatever lies next to it, and the seams between
    two such reduced cells are the clean ends of the seams between the two pieces."""
    from ..generation.tabs.cut import CORNER

    a = np.asarray(cell)
    t = int(CORNER * min(a.shape[:2]))
    top, bottom = np.concatenate([a[:t, :t], a[:t, -t:]], axis=1), np.concatenate([a[-t:, :t], a[-t:, -t:]], axis=1)
    return Image.fromarray(np.ascontiguousarray(np.concatenate([top, bottom], axis=0)))


def _polish(cells: list[Image.Image], order: list[int], rows: int, cols: int, rounds: int = 4) -> list[int]:
    """Improve a layout while its mean seam dissimilarity (the placer's own measure) drops: shift it as a whole
    by whole rows and columns (wrapping round; a greedy placer that started in the wrong corner is off by such
    a shift), then exchange two cells (a misplaced pair)."""
    from ..baselines.placer import _layout_cost
    from ..baselines.solver import _image, _pairwise, _Piece

    H, V = _pairwise([_Piece(_image(c)) for c in cells])
    layout = [i - 1 for i in order]
    best = _layout_cost(H, V, layout, rows, cols)
    for _ in range(rounds):
        improved = False
        for dr in range(rows):
            for dc in range(cols):
                shifted = [layout[((r + dr) % rows) * cols + (c + dc) % cols] for r in range(rows) for c in range(cols)]
                cost = _layout_cost(H, V, shifted, rows, cols)
                if cost < best - 1e-12:
                    best, layout, improved = cost, shifted, True
        for a in range(len(layout)):
            for b in range(a + 1, len(layout)):
                layout[a], layout[b] = layout[b], layout[a]
                cost = _layout_cost(H, V, layout, rows, cols)
                if cost < best - 1e-12:
                    best, improved = cost, True
                else:
                    layout[a], layout[b] = layout[b], layout[a]
        if not improved:
            break
    return [i + 1 for i in layout]


def plan(board: Image.Image, rows: int, cols: int, rotated: bool, polish: bool = True, shaped: bool = False) -> Plan:
    """The placer's layout of the cells of ``board`` (``shaped``: a board of interlocking pieces, its cells placed
    by the content of their corners, :func:`corners`)."""
    from ..baselines.placer import place

    cells = pieces_of(board, rows, cols, shaped)
    if shaped:
        cells = [corners(c) for c in cells]
    placed = place(cells, rows, cols, rotated=rotated)
    if rotated:
        return Plan(list(placed.order), list(placed.rotations))
    order = _polish(cells, list(placed.order), rows, cols) if polish else list(placed.order)
    return Plan(order, [0] * len(order))


def moves(target: Plan) -> list[tuple]:
    """The tool calls that turn the opening board into ``target``: swaps, then turns, then ``submit``."""
    n = len(target.order)
    at = list(range(n))  # at[j]: the cell now at position j
    where = list(range(n))  # where[c]: the position of cell c
    calls: list[tuple] = []
    for j in range(n):
        cell = target.order[j] - 1
        if where[cell] != j:
            k, other = where[cell], at[j]
            calls.append(("swap", j + 1, k + 1))
            at[j], at[k] = cell, other
            where[cell], where[other] = j, k
    calls += [("rotate", j + 1, r) for j, r in enumerate(target.rotations) if r % 360]
    return calls + [("submit",)]


@dataclass(frozen=True)
class Episode:
    calls: int
    invalid: int
    texts: list[str]


def play(first: Callable[[], tuple], call: Step, polish: bool = True) -> Episode:
    """Solve one puzzle: read the opening ``(board, text)``, plan, make the calls. Counts the calls and the
    answers that report an invalid action (none is expected: the plan only names real positions)."""
    board, text = first()
    rows, cols, rotated = read_grid(text)
    board = board if isinstance(board, Image.Image) else Image.fromarray(np.asarray(board, dtype=np.uint8))
    texts, invalid = [], 0
    for name, *args in moves(plan(board, rows, cols, rotated, polish, read_shaped(text))):
        _, reply = call(name, *args)
        texts.append(reply)
        invalid += reply.startswith("Invalid")
    return Episode(len(texts), invalid, texts)


def tool_face(env, row: dict) -> tuple[Callable, Step]:
    """``(first, call)`` for a :class:`.trl_env.JigsawToolEnv` on ``row``: what a model sees and does in TRL."""
    def parts(content):
        return next(p["image"] for p in content if p["type"] == "image"), next(
            p["text"] for p in content if p["type"] == "text")

    return (lambda: parts(env.reset(**row))), (lambda name, *args: parts(getattr(env, name)(*args)))


def gym_face(env, seed: int | None = None, options: dict | None = None) -> tuple[Callable, Step]:
    """``(first, call)`` for the Gymnasium face (text actions): the board is the observation's ``board`` cut to
    ``info["board_size"]``."""
    def parts(obs, info):
        width, height = info["board_size"]
        return Image.fromarray(obs["board"][:height, :width]), obs["text"]

    def first():
        return parts(*env.reset(seed=seed, options=options))

    def call(name, *args):
        obs, _, _, _, info = env.step(f"{name}({', '.join(str(a) for a in args)})")
        return parts(obs, info)

    return first, call
