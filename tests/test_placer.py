"""The classical solver on any grid (issue #11 part 2): exact on small grids, mostly right on large ones."""
from __future__ import annotations

import pytest

from fixtures.photos import make_photo
from jigsaw_puzzles import geometry
from jigsaw_puzzles.baselines.placer import EXHAUSTIVE_MAX, place
from jigsaw_puzzles.rng import ItemRNG


def shuffled(seed: int, rows: int, cols: int):
    cells = geometry.split(make_photo(seed, (480, 360)), rows, cols)
    shown = list(range(rows * cols))
    ItemRNG("placer test", seed, rows, cols).shuffle(shown)
    return [cells[r] for r in shown], [shown.index(r) + 1 for r in range(rows * cols)]


@pytest.mark.parametrize("rows,cols", [(1, 2), (2, 1), (2, 2), (2, 3)])
def test_small_grids_are_solved_exactly(rows, cols):
    assert rows * cols <= EXHAUSTIVE_MAX
    for seed in range(4):
        pieces, truth = shuffled(seed, rows, cols)
        got = place(pieces, rows, cols)
        assert got.order == truth
        assert 0.0 <= got.margin <= 1.0


@pytest.mark.parametrize("rows,cols", [(3, 3), (3, 4), (4, 4)])
def test_the_greedy_placer_puts_most_pieces_back(rows, cols):
    right = total = 0
    for seed in range(4):
        pieces, truth = shuffled(seed, rows, cols)
        got = place(pieces, rows, cols)
        assert sorted(got.order) == list(range(1, rows * cols + 1))  # a permutation
        right += sum(a == b for a, b in zip(got.order, truth))
        total += len(truth)
    assert right / total >= 0.75


def test_pieces_must_fill_the_grid():
    pieces, _ = shuffled(0, 2, 2)
    with pytest.raises(ValueError, match="do not fill"):
        place(pieces, 3, 3)
