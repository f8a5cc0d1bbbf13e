"""The interactive jigsaw on interlocking pieces (issue #34, section 3): ``_tabs`` and ``_tabs_silhouette`` order
items play on both faces; the board lays the shaped pieces edge to edge, so that a solved board is the photograph
and a piece in the wrong place visibly does not fit (interactive/render.py, generation/tabs/render.py's
``assemble``)."""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image

import jigsaw_puzzles as jp
from jigsaw_puzzles import geometry
from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.generation import tabs
from jigsaw_puzzles.interactive import (Game, JigsawSwapEnv, JigsawToolEnv, Puzzle, Rules, cell_boxes, environments,
                                        render, tool_rows)
from jigsaw_puzzles.interactive.policy import Plan, corners, moves
from jigsaw_puzzles.rng import ItemRNG


@functools.lru_cache(maxsize=None)
def _rows(config: str, n: int = 3) -> tuple:
    return tuple(jp.training_stream("embedded", mixture={config: 1.0}, seed=0, eval_fraction=0.0).take(n))


def solve(game: Game) -> None:
    p = game.puzzle
    for name, *args in moves(Plan(list(p.order), list(p.rotations or [0] * p.n)))[:-1]:
        assert getattr(game, name)(*args).valid
    assert game.solved


def tag_boxes(game: Game) -> list[tuple[slice, slice]]:
    return [where for where, _ in game._board._tags]


# ----------------------------------------------------------------------------------------------- the board
@pytest.mark.parametrize("config, straight", [("order_generation_3x3_tabs", "order_generation_3x3"),
                                              ("order_restoration_2x3_tabs", "order_restoration_2x3"),
                                              ("order_generation_2x2_rot_tabs", "order_generation_2x2_rot"),
                                              ("order_generation_8x8_tabs", "order_generation_8x8")])
def test_a_solved_board_is_the_photograph_to_the_byte_in_a_white_frame(config, straight):
    """The photo comes from the straight config's item of the same photo (its cells, put in their order and
    turned upright), not from the pieces the board draws: the shaped pieces, laid where they belong, sum to it."""
    for row in _rows(config, 2):
        other = next(r for r in _rows(straight, 6) if r["source_id"] == row["source_id"])
        ref = Puzzle.from_row(other)
        cells = [ref.pieces[ref.order[j] - 1] for j in range(ref.n)]
        if ref.rotated:
            cells = [c.rotate(-ref.rotations[j], expand=True) for j, c in enumerate(cells)]
        game = Game(Puzzle.from_row(row))
        assert not game.solved
        solve(game)
        board = np.asarray(game.render())
        boxes = cell_boxes(game.size, ref.rows, ref.cols, shaped=True)
        tagged = np.zeros(board.shape[:2], bool)
        for where in tag_boxes(game):
            tagged[where] = True
        for j, (left, top, right, bottom) in enumerate(boxes):
            want, got = np.asarray(cells[j]), board[top:bottom, left:right]
            assert want.shape == got.shape
            mask = ~tagged[top:bottom, left:right]
            assert np.array_equal(got[mask], want[mask]), (row["id"], j)
            assert (~mask).sum() <= 23 * 18  # one tag per cell, at its centre
        m = game._board.margin
        frame = np.ones(board.shape[:2], bool)
        frame[m:-m, m:-m] = False
        assert (board[frame] == 255).all()  # nothing pokes out of a solved picture


@pytest.mark.slow
@pytest.mark.parametrize("config", ["order_generation_tabs_silhouette", "order_generation_3x3_tabs_silhouette",
                                    "order_generation_4x4_tabs_silhouette"])
def test_on_a_silhouette_every_swap_from_the_solved_board_shows_a_gap_or_an_overlap(config):
    """Shape only: a swapped pair of flat grey pieces no longer fits, and the board shows it as white paper (a
    blank no tab fills) or a darker overlap (a tab on a neighbour's body), never only in outline pixels."""
    overlap = tuple(grey // 2 for grey in tabs.SILHOUETTE_GREY)  # two flat grey pieces on each other
    for row in _rows(config, 2):
        game = Game(Puzzle.from_row(row), Rules(max_turns=10_000))
        solve(game)
        m = game._board.margin
        for a, b in itertools.combinations(range(1, game.puzzle.n + 1), 2):
            game.swap(a, b)
            board = np.asarray(game.render())[m:-m, m:-m]
            shown = (board == 255).all(-1) | (board == overlap).all(-1)
            assert shown.sum() >= 100, (row["id"], a, b, shown.sum())
            game.swap(a, b)
        assert game.solved


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(config=st.sampled_from(["order_generation_3x3_rot_tabs", "order_generation_3x3_tabs_silhouette",
                               "order_restoration_2x3_tabs"]),
       actions=st.lists(st.tuples(st.sampled_from(["swap", "rotate"]), st.integers(1, 9), st.integers(1, 9),
                                  st.sampled_from([90, 180, 270])), max_size=12))
def test_a_step_redraws_what_moved_and_gives_the_bytes_of_a_whole_new_drawing(config, actions):
    """The board redraws only the canvases of the positions whose piece changed; it must equal drawing the whole
    board again from the state, on the PIL face and on the Gym face's array, after any actions."""
    game = Game(Puzzle.from_row(_rows(config)[0]))
    game.render()
    for name, a, b, degrees in actions:
        game.rotate(a, degrees) if name == "rotate" else game.swap(a, b)
        image = np.asarray(game.render())
        fresh = render.board(game.puzzle).array(game.board, game.turns)
        assert np.array_equal(image, fresh)
        canvas = np.zeros((image.shape[0] + 3, image.shape[1] + 5, 3), np.uint8)
        game.render_into(canvas)
        assert np.array_equal(canvas[:image.shape[0], :image.shape[1]], fresh) and not canvas[image.shape[0]:].any()


@pytest.mark.parametrize("config", ["order_generation_3x3_tabs", "order_generation_3x3_rot_tabs",
                                    "order_generation_8x8_tabs"])
def test_a_tag_covers_only_the_middle_of_the_piece_at_its_position_in_any_layout(config):
    """The position tags sit where no tab or blank reaches: under each tag lies the piece placed there, fully
    opaque, whatever its neighbours are (checked on the board drawn without tags, for shuffled and turned
    layouts)."""
    row = _rows(config)[0]
    game = Game(Puzzle.from_row(row))
    shown = game._board
    rng = np.random.default_rng(0)
    for _ in range(6):
        game.board = [int(x) for x in rng.permutation(game.puzzle.n)]
        game.turns = [int(x) for x in rng.choice([0, 90, 180, 270], game.puzzle.n)] if game.puzzle.rotated \
            else [0] * game.puzzle.n
        keys = list(zip(game.board, game.turns))
        bare = shown._compose((0, 0, *shown.size), keys, range(game.puzzle.n))
        for j, (rows, cols) in enumerate(tag_boxes(game)):
            layer = shown.layer(*keys[j])
            left, top = shown.boxes[j][:2]
            alpha = layer.alpha[rows.start - top:rows.stop - top, cols.start - left:cols.stop - left]
            assert (alpha == 255).all()
            colour = layer.rgb[rows.start - top:rows.stop - top, cols.start - left:cols.stop - left]
            assert np.array_equal(bare[rows, cols, :3], colour)


def test_tags_fit_inside_every_cell_a_tab_config_cuts():
    """The tag's rectangle (23 x 18 at most) keeps clear of every tab zone (``ceil(TAB_REACH * s)`` px from each
    edge) on every cell size from :data:`MIN_TAB_CELL` up, and the policy's corner squares stay clear of the
    zones along the edges."""
    from jigsaw_puzzles.generation.tabs.cut import CENTRE, CORNER, REACH_U

    assert CORNER < (0.5 - CENTRE) - REACH_U  # the corner squares end before any zone starts along an edge
    for cw, ch in itertools.product(range(geometry.MIN_TAB_CELL, 200), repeat=2):
        reach = math.ceil(geometry.TAB_REACH * min(cw, ch))
        for width in (18, 23):
            x, y = (cw - width) // 2, (ch - 18) // 2
            assert reach <= x and x + width <= cw - reach and reach <= y and y + 18 <= ch - reach, (cw, ch)


# ------------------------------------------------------------------------------------------ the compositor
def _reference(layers, size, background):
    """``assemble`` by the formula, pixel by pixel (exact integers)."""
    width, height = size
    out = np.zeros((height, width, 3), np.uint8)
    for y, x in itertools.product(range(height), range(width)):
        parts = []
        for layer, (left, top, _, _) in layers:
            yy, xx = y - top, x - left
            if 0 <= yy < layer.alpha.shape[0] and 0 <= xx < layer.alpha.shape[1]:
                parts.append((int(layer.alpha[yy, xx]), int(layer.alpha[yy, xx]) * layer.rgb[yy, xx].astype(int)))
        s = sum(a for a, _ in parts)
        total = sum((w for _, w in parts), np.zeros(3, int))
        if s <= 255:
            out[y, x] = (total + (255 - s) * np.array(background) + 127) // 255
        else:
            out[y, x] = (total * 255 + s * s // 2) // (s * s)
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3), background=st.sampled_from([(255, 255, 255), (0, 0, 0),
                                                                                      (32, 90, 200)]))
def test_assemble_sums_the_pieces_by_alpha_gaps_show_the_background_overlaps_darker(seed, n, background):
    rng = np.random.default_rng(seed)
    size = (int(rng.integers(3, 12)), int(rng.integers(3, 12)))
    layers = []
    for _ in range(n):
        h, w = int(rng.integers(1, 8)), int(rng.integers(1, 8))
        canvas = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
        canvas[..., 3] = rng.choice([0, 255, int(rng.integers(0, 256))], (h, w))
        left, top = int(rng.integers(-3, size[0])), int(rng.integers(-3, size[1]))
        layers.append((tabs.Layer(canvas), (left, top, left + w, top + h)))
    out = tabs.assemble(layers, size, background)
    assert np.array_equal(out, _reference(layers, size, background))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 4), cols=st.integers(2, 4),
       cell=st.tuples(st.integers(geometry.MIN_TAB_CELL, 70), st.integers(geometry.MIN_TAB_CELL, 70)))
def test_the_pieces_of_any_cut_laid_where_they_belong_assemble_to_the_photo(seed, rows, cols, cell):
    """An independent proof of the solved board: any photo, any cut drawn from any seed."""
    cut = tabs.Cut.draw(ItemRNG("assemble test", seed), rows, cols, cell)
    photo = np.random.default_rng(seed).integers(0, 256, (cell[1] * rows, cell[0] * cols, 3), dtype=np.uint8)
    layers = [(tabs.Layer(tabs.piece(photo, cut, k)), cut.canvas_box(k)) for k in range(rows * cols)]
    assert np.array_equal(tabs.assemble(layers, cut.size), photo)


# ----------------------------------------------------------------------------------------------- the faces
def test_rows_that_are_not_interlocking_pieces_are_refused_with_one_line():
    row = dict(_rows("order_generation_3x3_tabs")[0])
    flat = {**row, "images": [p.convert("RGB") for p in row["images"]]}
    with pytest.raises(UsageError, match="is an RGBA image"):
        Puzzle.from_row(flat)
    with pytest.raises(UsageError, match="recorded tab_margin 7"):
        Puzzle.from_row({**row, "metadata": {**jp_meta(row), "tab_margin": 7}})
    for size in ((20, 20), (40, 40)):  # no canvas has 20 px; a 40 px canvas has a cell below MIN_TAB_CELL
        cropped = {**row, "images": [p.crop((0, 0, *size)) for p in row["images"]]}
        with pytest.raises(UsageError, match=f"{size[0]}x{size[1]} pieces are not the canvases of interlocking"):
            Puzzle.from_row(cropped)


def jp_meta(row) -> dict:
    import json

    return json.loads(row["metadata"])


def test_environments_and_tool_rows_take_tab_configs():
    configs = ["order_generation_tabs", "order_generation_2x2_rot_tabs", "order_generation_tabs_silhouette"]
    envs = environments(configs)
    assert [type(envs[c]()) for c in configs] == [JigsawSwapEnv, JigsawToolEnv, JigsawSwapEnv]
    stream = jp.training_stream("embedded", mixture={c: 1 for c in configs}, seed=0, eval_fraction=0.0)
    rows = list(tool_rows(stream, environment=True).take(9))
    assert {r["environment"] for r in rows} == set(configs)
    for r in rows:
        assert all(p.mode == "RGBA" for p in r["pieces"])  # the shapes reach the environment
        env = envs[r["environment"]]()
        image, text = env.reset(**{k: v for k, v in r.items() if k != "environment"})
        assert image["image"].mode == "RGB" and "interlocking pieces" in text["text"]
        assert ("flat grey" in text["text"]) == r["config"].endswith("_silhouette")
        assert env.game.puzzle.cut == jp.spec.get(r["config"]).cut


gym = pytest.importorskip("gymnasium", reason="the [env] extra (gymnasium) is not installed")


def test_gym_refuses_a_row_of_the_other_cut_and_its_canvas_holds_any_accepted_photo():
    from jigsaw_puzzles.generation.sources import DEFAULT_RULES
    from jigsaw_puzzles.interactive.gym_env import JigsawEnv

    with pytest.raises(UsageError, match=r"\(3x3, no turned pieces\) does not fit this order_generation_3x3_tabs "
                                         r"environment \(3x3, no turned pieces, interlocking pieces\)"):
        JigsawEnv("order_generation_3x3_tabs").reset(options={"row": _rows("order_generation_3x3")[0]})
    with pytest.raises(UsageError, match="interlocking silhouettes"):
        JigsawEnv("order_generation_3x3_tabs").reset(options={"row": _rows("order_generation_3x3_tabs_silhouette")[0]})
    with pytest.raises(UsageError, match="interlocking pieces\\) does not fit"):
        JigsawEnv("order_generation_3x3").reset(options={"row": _rows("order_generation_3x3_tabs")[0]})
    side = DEFAULT_RULES.max_side
    sizes = sorted({*range(geometry.MIN_TAB_CELL, side + 1, 37), side})
    for rows, cols in itertools.product(range(1, 9), repeat=2):
        for rotated in (False, True):
            if rows * cols < 2:
                continue
            name = jp.spec.grid_config("order_generation", rows, cols, rotated=rotated) + "_tabs"
            height, width = JigsawEnv(name)._canvas
            for w, h in itertools.product(sizes, repeat=2):
                cw, ch = w // cols, h // rows
                if rotated:
                    cw = ch = min(cw, ch)
                if min(cw, ch) < geometry.MIN_TAB_CELL:
                    continue
                m = geometry.tab_margin(min(cw, ch))
                puzzle = Puzzle((Image.new("RGBA", (cw + 2 * m, ch + 2 * m)),) * (rows * cols), rows, cols,
                                tuple(range(1, rows * cols + 1)), cut="tabs")
                bw, bh = render.board_size(puzzle)
                assert bw <= width and bh <= height, (name, w, h)
                assert render.shaped_geometry((bw, bh), rows, cols) == (cw, ch, m)


def test_the_policy_reads_a_shaped_board_by_its_cells_clean_corners():
    """What the scripted policy cuts from a start board: the four corner squares of each cell are the piece's own
    pixels whatever lies next to it (here: equal to the same corners of the solved board, piece by piece)."""
    game = Game(Puzzle.from_row(_rows("order_generation_3x3_tabs")[0]))
    start = game.render()
    before = {game.board[j]: corners(c) for j, c in enumerate(render.pieces_of(start, 3, 3, shaped=True))}
    solve(game)
    after = {game.board[j]: corners(c) for j, c in enumerate(render.pieces_of(game.render(), 3, 3, shaped=True))}
    assert all(np.array_equal(np.asarray(before[k]), np.asarray(after[k])) for k in range(9))
