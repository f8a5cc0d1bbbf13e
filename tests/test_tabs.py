"""Interlocking pieces (#34 section 1): the cut's bounds, and what a piece shows, proved on drawn cuts.

* every tab stays in its *zone* (the middle of its edge, within ``TAB_REACH`` of the line): it never reaches a
  non-adjacent cell, and the tabs of two edges never come within 2 px of each other;
* a piece's visible pixels (alpha > 0) are exactly the pixels that some of its 4 x 4 samples fall in, by an
  independent point-in-polygon test (matplotlib) on the piece's outline (its cell, plus its tabs, minus its
  blanks), and they carry the photo's own pixels;
* the pieces tile the photo exactly: their alphas sum to 255 at every pixel (tolerance 0: no gap and no overlap,
  anti-aliased pixels included) and to 0 outside the picture, and the alpha-weighted sum of the pieces placed
  back is the photo, byte for byte, on every grid from 1x2 to 8x8 (drawn cuts, and each of the 63 grids in turn);
* a cell below ``MIN_TAB_CELL`` is refused with its reason.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from matplotlib.path import Path as MplPath

from fixtures.photos import make_photo
from jigsaw_puzzles.geometry import MIN_TAB_CELL, TAB_REACH, tab_margin
from jigsaw_puzzles.generation.tabs import Cut, piece
from jigsaw_puzzles.generation.tabs import cut as cutmod
from jigsaw_puzzles.generation.tasks import TaskError, get_task
from jigsaw_puzzles.rng import ItemRNG

GRIDS = st.tuples(st.integers(1, 8), st.integers(1, 8)).filter(lambda g: g[0] * g[1] >= 2)


def _cut(rows, cols, cw, ch, seed) -> Cut:
    return Cut.draw(ItemRNG("test_tabs", seed), rows, cols, (cw, ch))


def outline(cut: Cut, k: int) -> np.ndarray:
    """Piece ``k``'s outline as one closed polygon, clockwise from its cell's top-left corner: each side straight
    or the curve of its edge (walked backwards along the bottom and the left side)."""
    cw, ch = cut.cell
    r, c = divmod(k, cut.cols)
    x0, y0, x1, y1 = c * cw, r * ch, (c + 1) * cw, (r + 1) * ch
    by = {(e.first, e.second): e for e in cut.edges}

    def curve(first, second, backwards):
        e = by.get((first, second))
        if e is None:
            return []
        pts = cut.polygon(e)
        return list(pts[::-1] if backwards else pts)

    pts = [(x0, y0)] + curve(k - cut.cols, k, False) + [(x1, y0)]
    pts += curve(k, k + 1, False) if c < cut.cols - 1 else []
    pts += [(x1, y1)] + (curve(k, k + cut.cols, True) if r < cut.rows - 1 else []) + [(x0, y1)]
    pts += curve(k - 1, k, True) if c > 0 else []
    return np.array(pts, dtype=np.float64)


def samples_inside(cut: Cut, k: int) -> np.ndarray:
    """For every pixel of piece ``k``'s canvas, how many of its 4 x 4 samples lie inside its outline
    (matplotlib's point-in-polygon, independent of the cut's own scanline fill)."""
    left, top, right, bottom = cut.canvas_box(k)
    s = cutmod.SUPERSAMPLE
    xs = left + (np.arange((right - left) * s) + 0.5) / s
    ys = top + (np.arange((bottom - top) * s) + 0.5) / s
    gx, gy = np.meshgrid(xs, ys)
    inside = MplPath(outline(cut, k)).contains_points(np.stack([gx.ravel(), gy.ravel()], axis=1))
    return inside.reshape(bottom - top, s, right - left, s).sum(axis=(1, 3))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=GRIDS, cw=st.integers(MIN_TAB_CELL, 90), ch=st.integers(MIN_TAB_CELL, 90), seed=st.integers(0, 10**6))
def test_every_tab_stays_in_its_zone(grid, cw, ch, seed):
    """The bound of generation/tabs/cut.py, on every edge of drawn cuts: the curve lies in its zone (along the
    edge at least ``g`` from either end, across it at most ``TAB_REACH * s``), and ``g`` exceeds the reach by at
    least 2 px, so zones of different edges never meet and never leave the edge's two cells."""
    rows, cols = grid
    cut = _cut(rows, cols, cw, ch, seed)
    s = min(cw, ch)
    for e in cut.edges:
        length = ch if e.vertical else cw
        controls = np.array([p for cubic in e.local_controls() for p in cubic])
        curve = np.array(e.curve((0, 0)))
        u = curve[:, 1] if e.vertical else curve[:, 0]
        v = (curve[:, 0] if e.vertical else curve[:, 1]) * (1 if e.into_second else -1)
        g = (0.5 - cutmod.CENTRE) * length - cutmod.REACH_U * s
        for us, vs in ((controls[:, 0], controls[:, 1]), (u, v)):
            assert us.min() >= g - 1e-9 and us.max() <= length - g + 1e-9
            assert vs.max() <= TAB_REACH * s + 1e-9 and vs.min() >= -cutmod.DIP[1] * s - 1e-9
        assert g - TAB_REACH * s >= 2.0  # two zones of a cell are at least 2 px apart
        assert TAB_REACH * s + 1 <= tab_margin(s)  # a tab and its anti-aliased pixel fit on the canvas


def _segments_cross(p, q, r, t) -> bool:
    def orient(a, b, c):
        return np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
    return orient(p, q, r) * orient(p, q, t) < 0 and orient(r, t, p) * orient(r, t, q) < 0


@settings(max_examples=25, deadline=None)
@given(cw=st.integers(MIN_TAB_CELL, 400), seed=st.integers(0, 10**6))
def test_every_edge_curve_is_simple(cw, seed):
    """A tab's curve never crosses itself (neck and head are one clean loop), so a piece's outline is a simple
    closed curve and inside and outside are well defined."""
    cut = _cut(1, 2, cw, cw, seed)
    pts = cut.polygon(cut.edges[0])
    segs = list(zip(pts[:-1], pts[1:]))
    for i in range(len(segs)):
        for j in range(i + 2, len(segs)):
            assert not _segments_cross(*segs[i], *segs[j]), (i, j)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=GRIDS, cw=st.integers(MIN_TAB_CELL, 72), ch=st.integers(MIN_TAB_CELL, 72), seed=st.integers(0, 10**6))
def test_the_pieces_tile_the_photo_exactly(grid, cw, ch, seed):
    """Union = the photo, no overlap: at every picture pixel the pieces' alphas sum to exactly 255 (0 beyond the
    picture), at most two pieces share a pixel, and the pieces placed back (alpha-weighted) are the photo, byte
    for byte; a piece's visible pixels lie in its own cell or across one of its own edges (a neighbour's cell)."""
    assert_tiles(*grid, cw, ch, seed)


def assert_tiles(rows: int, cols: int, cw: int, ch: int, seed: int) -> None:
    cut = _cut(rows, cols, cw, ch, seed)
    photo = np.asarray(make_photo(seed % 7, (cw * cols, ch * rows)))
    m = cut.margin
    total = np.zeros((ch * rows + 2 * m, cw * cols + 2 * m), np.int64)
    count = np.zeros_like(total)
    back = np.zeros(total.shape + (3,), np.int64)
    for k in range(rows * cols):
        left, top, right, bottom = cut.canvas_box(k)
        canvas = piece(photo, cut, k)
        alpha = canvas[..., 3].astype(np.int64)
        region = (slice(top + m, bottom + m), slice(left + m, right + m))
        total[region] += alpha
        count[region] += alpha > 0
        back[region] += canvas[..., :3].astype(np.int64) * alpha[..., None]
        labels = cut.base_labels(left, top, right - left, bottom - top)
        r, c = divmod(k, cols)
        allowed = {k} | {j for j, ok in ((k - cols, r > 0), (k + cols, r < rows - 1), (k - 1, c > 0),
                                          (k + 1, c < cols - 1)) if ok}
        assert set(np.unique(labels[alpha > 0]).tolist()) <= allowed
    inner = (slice(m, m + ch * rows), slice(m, m + cw * cols))
    assert (total[inner] == 255).all() and total.sum() == total[inner].sum()
    assert count.max() <= 2
    assert np.array_equal(back[inner] // 255, photo) and (back[inner] % 255 == 0).all()


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=GRIDS, cw=st.integers(MIN_TAB_CELL, 80), ch=st.integers(MIN_TAB_CELL, 80), seed=st.integers(0, 10**6),
       pick=st.integers(0, 63))
def test_a_piece_shows_exactly_its_outline(grid, cw, ch, seed, pick):
    """A piece's alpha is its share of its pixels' 16 samples inside its outline (cell + tabs - blanks), counted
    by matplotlib's point-in-polygon test: 0 where no sample is inside (nothing from outside its outline is
    ever visible), 255 where all are, within one level of 255 * n / 16 in between; and a visible pixel is the
    photo's own pixel at that place."""
    rows, cols = grid
    assert_outlines(rows, cols, cw, ch, seed, {pick % (rows * cols), 0, rows * cols - 1})


def assert_outlines(rows: int, cols: int, cw: int, ch: int, seed: int, pieces) -> None:
    cut = _cut(rows, cols, cw, ch, seed)
    photo = np.asarray(make_photo(seed % 5, (cw * cols, ch * rows)))
    for k in sorted(pieces):
        n = samples_inside(cut, k)
        canvas = piece(photo, cut, k)
        alpha = canvas[..., 3].astype(np.int64)
        assert np.array_equal(alpha > 0, n > 0) and np.array_equal(alpha == 255, n == 16)
        assert np.abs(alpha - 255 * n / 16).max() <= 1
        left, top, right, bottom = cut.canvas_box(k)
        ys, xs = np.nonzero(alpha)
        assert np.array_equal(canvas[ys, xs, :3], photo[ys + top, xs + left])
        assert (canvas[alpha == 0, :3] == 255).all()


@pytest.mark.slow
def test_every_grid_up_to_8x8_tiles_and_shows_only_its_outlines():
    """#34 "Done means", on every grid from 1x2 to 8x8 (not a sample of them): the pieces tile the photo exactly,
    at the smallest cell a tab takes (48 px square, where anti-aliasing weighs most) and an oblong one, and the
    corner piece, the last one and a middle one show exactly their outlines (48 px); one seed per grid."""
    grids = [(r, c) for r in range(1, 9) for c in range(1, 9) if r * c >= 2]
    assert len(grids) == 63
    for rows, cols in grids:
        seed = 100 * rows + cols
        assert_tiles(rows, cols, 71, 53, seed)
        assert_tiles(rows, cols, MIN_TAB_CELL, MIN_TAB_CELL, seed)
        middle = (rows // 2) * cols + cols // 2
        assert_outlines(rows, cols, MIN_TAB_CELL, MIN_TAB_CELL, seed, {0, rows * cols - 1, middle})


def test_cells_below_the_minimum_are_refused_with_a_reason():
    """48 px: the smallest cell side that carries a tab (the zones' 2 px gap needs 37, the canvas margin 34,
    a tab's neck about 4 px wide at 48); below it the photo is a recorded skip, never a malformed piece."""
    assert MIN_TAB_CELL == 48
    task = get_task("order_generation_tabs")
    small = make_photo(1, (2 * (MIN_TAB_CELL - 1), 2 * 60))
    assert "47x60 px cells, below the 48 px an interlocking piece needs" in task.check(small)
    with pytest.raises(TaskError, match="below the 48 px"):
        from jigsaw_puzzles.generation.tasks.shaped import cut_cells
        cut_cells(small, 2, 2)
    assert task.check(make_photo(1, (2 * MIN_TAB_CELL, 2 * MIN_TAB_CELL))) is None
    with pytest.raises(ValueError, match="below the 48 px"):
        Cut.draw(ItemRNG("x"), 2, 2, (47, 80))


def test_a_cut_is_a_pure_function_of_its_rng():
    a, b = _cut(3, 4, 70, 60, 5), _cut(3, 4, 70, 60, 5)
    assert a.edges == b.edges and all(np.array_equal(x, y) for x, y in zip(a.alphas(), b.alphas()))
    assert _cut(3, 4, 70, 60, 6).edges != a.edges
    sides = a.sides(5)  # an inner piece of a 3x4 grid: a tab or a blank on every side
    assert set(sides.values()) <= {"tab", "blank"} and a.sides(0)["top"] == a.sides(0)["left"] == "flat"
    assert len(a.edges) == 3 * 3 + 2 * 4 and {e.owner for e in a.edges} <= set(range(12))
