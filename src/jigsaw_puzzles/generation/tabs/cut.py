"""The interlocking cut: every inner edge of a grid gets one tab on one side and the matching blank on the other.

An edge's tab is a smooth closed curve of six cubic Béziers in the edge's own frame (``u`` along the edge, ``v``
across it, towards the cell that receives the tab): a shoulder that dips slightly into the owner's side and
rises into the neck, the neck (pinched), the head's two halves, the other neck side and the other shoulder. Its
side, its centre along the edge and every size are drawn per edge from the item's RNG (:meth:`Cut.draw`); border
edges stay straight. Sizes are fractions of the shorter cell side ``s``, positions of the edge length ``L``.

**Bounds, by the convex-hull property of Bézier curves** (a curve lies in the hull of its control points, and
every control point below lies in the rectangle ``|u - c| <= REACH_U * s``, ``-DIP * s <= v <= HEIGHT * s``):
with the centre ``c`` within ``CENTRE * L`` of the middle, each edge's curve lies in its *zone*
``u in [g, L - g]``, ``|v| <= h`` with ``g >= (1/2 - CENTRE) L - REACH_U s >= 0.275 s`` and ``h = 0.22 s``
(:data:`~jigsaw_puzzles.geometry.TAB_REACH`). Zones of two edges of a cell are disjoint, at least ``g - h >=
0.055 s`` (2.6 px at :data:`~jigsaw_puzzles.geometry.MIN_TAB_CELL`) apart, and a zone lies inside the two cells
of its edge: a tab never reaches a non-adjacent cell and tabs of different edges never meet, so no pixel is
touched by two edges (checked on every edge an item scan-converts; proved in tests/test_tabs.py).

**Pixels.** Each edge's region (between its curve and the straight line) is scan-converted at 4 x 4 samples per
pixel by the even-odd rule, in float64 NumPy arithmetic only (no version-dependent rasteriser): a sample belongs
to the cell it lies in, or to the edge's other cell when it lies in that region. A piece's alpha is its share of
the 16 samples, rounded so that the pieces' alphas at every pixel sum to exactly 255 (``alpha_k = floor(255 C_k /
16) - floor(255 C_{k-1} / 16)``, ``C_k`` the samples of pieces ``<= k``): the pieces tile the photo exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ... import geometry
from ...rng import ItemRNG

#: Samples per pixel side (4 x 4 per pixel).
SUPERSAMPLE = 4
_SAMPLES = SUPERSAMPLE * SUPERSAMPLE
#: Jitter ranges, as fractions of the shorter cell side (``CENTRE``: of the edge length, either way).
HEIGHT = (0.16, geometry.TAB_REACH)
NECK = (0.045, 0.065)
HEAD = (0.09, 0.125)
SKEW = 0.025
DIP = (0.005, 0.025)
SHOULDER = (0.08, 0.11)
CENTRE = 0.05
#: The widest reach along the edge from the tab's centre: neck + shoulder, or head + skew.
REACH_U = max(NECK[1] + SHOULDER[1], HEAD[1] + SKEW)
#: Points per cubic when a curve is flattened to a polygon.
STEPS = 16
#: A cell's corner squares of side ``CORNER`` x the shorter cell side are its own piece's in every cut: an edge's
#: zone starts at least ``0.275 s`` from each end of its line (module doc), so no tab or blank reaches them.
CORNER = 0.27
_LO = (255 * np.arange(_SAMPLES + 1)) // _SAMPLES             # alpha of the lower-numbered piece of a pixel
_HI = 255 - (255 * (_SAMPLES - np.arange(_SAMPLES + 1))) // _SAMPLES  # ... and of the higher-numbered one


@dataclass(frozen=True)
class Edge:
    """One inner edge: between cells ``first`` (left or top) and ``second`` (right or bottom); ``vertical``: the
    line is vertical (the cells are horizontal neighbours). The tab belongs to ``first`` and points into
    ``second`` when ``into_second``. Sizes in pixels, ``centre`` along the edge from its start."""

    first: int
    second: int
    vertical: bool
    into_second: bool
    centre: float
    neck: float
    head: float
    height: float
    skew: float
    dip: float
    shoulder: float

    @property
    def owner(self) -> int:
        """The cell whose piece carries the tab (the other one has the blank)."""
        return self.first if self.into_second else self.second

    def local_controls(self) -> list[tuple[tuple[float, float], ...]]:
        """The six cubics ``(p0, p1, p2, p3)`` in the edge frame ``(u, v)``: shoulder, neck, head, head, neck,
        shoulder. Every control point lies in ``|u - centre| <= REACH_U s``, ``-dip <= v <= height``."""
        c, n, r, h, k, d, w = self.centre, self.neck, self.head, self.height, self.skew, self.dip, self.shoulder
        left, right, top = (c - r + k, 0.5 * h), (c + r + k, 0.5 * h), (c + k, h)
        q = 0.5523  # a quarter circle's control distance: a round head of radii (r, h / 2)
        lean = 0.25 * n * d / (0.18 * h)  # the shoulder meets the neck along the neck's own tangent (G1)
        return [((c - n - w, 0.0), (c - n - 0.5 * w, 0.0), (c - n - lean, -d), (c - n, 0.0)),
                ((c - n, 0.0), (c - 0.75 * n, 0.18 * h), (left[0], 0.5 * h * (1 - q)), left),
                (left, (left[0], 0.5 * h * (1 + q)), (top[0] - q * r, h), top),
                (top, (top[0] + q * r, h), (right[0], 0.5 * h * (1 + q)), right),
                (right, (right[0], 0.5 * h * (1 - q)), (c + 0.75 * n, 0.18 * h), (c + n, 0.0)),
                ((c + n, 0.0), (c + n + lean, -d), (c + n + 0.5 * w, 0.0), (c + n + w, 0.0))]

    def curve(self, origin: tuple[int, int], steps: int = STEPS) -> np.ndarray:
        """The edge's curve in image coordinates ``(x, y)``, from its start on the straight line to its end on it
        (``origin``: the pixel where the edge's line starts)."""
        t = np.arange(steps, dtype=np.float64)[:, None] / steps
        points = []
        for p0, p1, p2, p3 in self.local_controls():
            p = np.array((p0, p1, p2, p3), dtype=np.float64)
            points.append((1 - t) ** 3 * p[0] + 3 * (1 - t) ** 2 * t * p[1] + 3 * (1 - t) * t ** 2 * p[2]
                          + t ** 3 * p[3])
        points.append(np.array([self.local_controls()[-1][3]], dtype=np.float64))
        uv = np.concatenate(points)
        sign = 1.0 if self.into_second else -1.0
        x0, y0 = origin
        if self.vertical:  # u runs down the line x = x0, v to the right (into the second cell when positive)
            return np.stack([x0 + sign * uv[:, 1], y0 + uv[:, 0]], axis=1)
        return np.stack([x0 + uv[:, 0], y0 + sign * uv[:, 1]], axis=1)


def _uniform(rng: ItemRNG, low: float, high: float) -> float:
    return low + (high - low) * rng.randbelow(10_001) / 10_000


def coverage(polygon: np.ndarray) -> tuple[tuple[int, int], np.ndarray]:
    """``((left, top), counts)``: for the pixels of the polygon's bounding box, how many of their 4 x 4 samples
    (at ``(i + 0.5) / 4``) lie inside the closed polygon by the even-odd rule (a scanline fill in float64)."""
    (left, top), inside = inside_samples(polygon)
    height, width = inside.shape[0] // SUPERSAMPLE, inside.shape[1] // SUPERSAMPLE
    counts = inside.reshape(height, SUPERSAMPLE, width, SUPERSAMPLE).sum(axis=(1, 3))
    return (left, top), counts.astype(np.int64)


def inside_samples(polygon: np.ndarray) -> tuple[tuple[int, int], np.ndarray]:
    """``((left, top), inside)``: for every 4 x 4 sample of the pixels of the polygon's bounding box (row ``i``
    at ``top + (i + 0.5) / 4``, column ``j`` at ``left + (j + 0.5) / 4``), 1 when it lies inside the closed
    polygon by the even-odd rule (a scanline fill in float64)."""
    left, top = int(np.floor(polygon[:, 0].min())), int(np.floor(polygon[:, 1].min()))
    width = int(np.ceil(polygon[:, 0].max())) - left + 1
    height = int(np.ceil(polygon[:, 1].max())) - top + 1
    ys = top + (np.arange(height * SUPERSAMPLE, dtype=np.float64) + 0.5) / SUPERSAMPLE
    a, b = polygon, np.roll(polygon, -1, axis=0)
    ya, yb = a[:, 1][None, :], b[:, 1][None, :]
    y = ys[:, None]
    crossing = ((ya <= y) & (y < yb)) | ((yb <= y) & (y < ya))
    rows, segments = np.nonzero(crossing)
    xa, xb = a[segments, 0], b[segments, 0]
    t = (ys[rows] - a[segments, 1]) / (b[segments, 1] - a[segments, 1])
    x = xa + t * (xb - xa)
    # the first sample column whose centre lies right of the crossing: samples left of it are not toggled
    column = np.clip(np.floor((x - left) * SUPERSAMPLE - 0.5).astype(np.int64) + 1, 0, width * SUPERSAMPLE)
    toggles = np.zeros((height * SUPERSAMPLE, width * SUPERSAMPLE + 1), dtype=np.int64)
    np.add.at(toggles, (rows, column), 1)
    return (left, top), np.cumsum(toggles, axis=1)[:, :-1] & 1


class Cut:
    """The interlocking cut of a ``rows x cols`` grid of ``cell`` = ``(width, height)`` pixel cells: its edges,
    which pixel is shared by which two pieces and by how many samples, and every piece's alpha on the common
    canvas (the cell plus :func:`~jigsaw_puzzles.geometry.tab_margin` on every side)."""

    def __init__(self, rows: int, cols: int, cell: tuple[int, int], edges: Sequence[Edge]):
        self.rows, self.cols, self.cell, self.edges = rows, cols, tuple(cell), tuple(edges)
        cw, ch = self.cell
        self.margin = geometry.tab_margin(min(cw, ch))
        self.size = (cw * cols, ch * rows)
        # per pixel: the piece that owns some of its samples besides the cell's own (-1: none), and how many;
        # filled edge by edge when first needed (a piece's alpha needs only its own edges' pixels)
        self._other = np.full((ch * rows, cw * cols), -1, dtype=np.int16)
        self._shared = np.zeros((ch * rows, cw * cols), dtype=np.uint8)
        self._covered: set[int] = set()
        self._edges_of = {k: [i for i, e in enumerate(self.edges) if k in (e.first, e.second)]
                          for k in range(rows * cols)}

    @property
    def other(self) -> np.ndarray:
        self.cover(range(len(self.edges)))
        return self._other

    @property
    def shared(self) -> np.ndarray:
        self.cover(range(len(self.edges)))
        return self._shared

    def cover(self, indices) -> None:
        """Scan-convert the edges ``indices`` (once each) into the per-pixel arrays; ``AssertionError`` if one
        leaves its zone (the bounds exclude it: every drawn cut is checked, tests/test_tabs.py)."""
        for i in indices:
            if i in self._covered:
                continue
            self._covered.add(i)
            edge = self.edges[i]
            (left, top), counts = coverage(self.polygon(edge))
            region = (slice(top, top + counts.shape[0]), slice(left, left + counts.shape[1]))
            hit = counts > 0
            base = self.base_labels(left, top, counts.shape[1], counts.shape[0])
            if (self._other[region][hit] != -1).any() or not np.isin(base[hit], (edge.first, edge.second)).all():
                raise AssertionError(f"edge {edge.first}-{edge.second} leaves its zone")  # excluded by the bounds
            self._other[region][hit] = np.where(base[hit] == edge.first, edge.second, edge.first)
            self._shared[region][hit] = counts[hit]

    @classmethod
    def draw(cls, rng: ItemRNG, rows: int, cols: int, cell: tuple[int, int]) -> "Cut":
        """A cut drawn from ``rng``: per edge (vertical lines row by row, then horizontal lines), the side of the
        tab, its centre and its sizes. ``ValueError`` below :data:`~jigsaw_puzzles.geometry.MIN_TAB_CELL`."""
        cw, ch = cell
        side = min(cw, ch)
        if side < geometry.MIN_TAB_CELL:
            raise ValueError(f"{cw}x{ch} px cells are below the {geometry.MIN_TAB_CELL} px a tab needs")
        edges = []
        for vertical in (True, False):
            for r in range(rows if vertical else rows - 1):
                for c in range(cols - 1 if vertical else cols):
                    first = r * cols + c
                    length = ch if vertical else cw
                    edges.append(Edge(
                        first, first + (1 if vertical else cols), vertical, bool(rng.randbelow(2)),
                        centre=length * (0.5 + _uniform(rng, -CENTRE, CENTRE)), neck=side * _uniform(rng, *NECK),
                        head=side * _uniform(rng, *HEAD), height=side * _uniform(rng, *HEIGHT),
                        skew=side * _uniform(rng, -SKEW, SKEW), dip=side * _uniform(rng, *DIP),
                        shoulder=side * _uniform(rng, *SHOULDER)))
        return cls(rows, cols, cell, edges)

    # ------------------------------------------------------------------------------------------ geometry
    def origin(self, edge: Edge) -> tuple[int, int]:
        """Where the edge's straight line starts (top end of a vertical line, left end of a horizontal one)."""
        r, c = divmod(edge.second, self.cols)  # the line starts at the second cell's top-left corner
        return c * self.cell[0], r * self.cell[1]

    def polygon(self, edge: Edge) -> np.ndarray:
        """The closed region between the edge's curve and its straight line (the curve, closed along the line)."""
        return edge.curve(self.origin(edge))

    def base_labels(self, left: int, top: int, width: int, height: int) -> np.ndarray:
        """The cell of every pixel of a box (``rows * cols``: outside the picture)."""
        cw, ch = self.cell
        xs, ys = np.arange(left, left + width), np.arange(top, top + height)
        outside = self.rows * self.cols
        col = np.where((xs >= 0) & (xs < cw * self.cols), xs // cw, outside).astype(np.int16)
        row = np.where((ys >= 0) & (ys < ch * self.rows), ys // ch, outside).astype(np.int16)
        out = row[:, None] * self.cols + col[None, :]
        return np.where((row[:, None] == outside) | (col[None, :] == outside), outside, out).astype(np.int16)

    def canvas_box(self, k: int) -> tuple[int, int, int, int]:
        """Piece ``k``'s canvas in picture coordinates ``(left, top, right, bottom)`` (may reach outside it)."""
        cw, ch = self.cell
        r, c = divmod(k, self.cols)
        m = self.margin
        return c * cw - m, r * ch - m, (c + 1) * cw + m, (r + 1) * ch + m

    def alpha(self, k: int) -> np.ndarray:
        """Piece ``k``'s alpha on its canvas (uint8): its share of every pixel's 16 samples, rounded so that the
        pieces' alphas sum to 255 at every pixel of the picture."""
        self.cover(self._edges_of[k])  # k's alpha reads only pixels of its cell or across its own edges
        left, top, right, bottom = self.canvas_box(k)
        height, width = bottom - top, right - left
        base = self.base_labels(left, top, width, height)
        other = np.full((height, width), -1, dtype=np.int16)
        shared = np.zeros((height, width), dtype=np.uint8)
        y0, x0 = max(top, 0), max(left, 0)
        y1, x1 = min(bottom, self.size[1]), min(right, self.size[0])
        other[y0 - top:y1 - top, x0 - left:x1 - left] = self._other[y0:y1, x0:x1]
        shared[y0 - top:y1 - top, x0 - left:x1 - left] = self._shared[y0:y1, x0:x1]
        mine = base == k  # k's own cell: it holds the samples the other piece (if any) does not
        samples = np.where(mine, _SAMPLES - shared, shared)
        lower = np.where(mine, k < other, k < base)  # k is the lower-numbered of the pixel's pieces
        alpha = np.where(lower, _LO[samples], _HI[samples])  # no other piece: 16 samples, 255 either way
        return np.where(mine | (other == k), alpha, 0).astype(np.uint8)

    def alphas(self) -> list[np.ndarray]:
        return [self.alpha(k) for k in range(self.rows * self.cols)]

    def board_alpha(self) -> np.ndarray:
        """The pieces laid in place: opaque over the whole picture (they tile it)."""
        return np.full(self.size[::-1], 255, np.uint8)

    def cell_boxes(self) -> list[tuple[int, int, int, int]]:
        """Every cell's box in the picture, row by row."""
        return geometry.grid_boxes(self.size, self.rows, self.cols)

    def sides(self, k: int) -> dict[str, str]:
        """Piece ``k``'s four sides: ``flat`` (the picture's border), ``tab`` or ``blank``."""
        out = {}
        for edge in self.edges:
            if k in (edge.first, edge.second):
                side = ("right" if k == edge.first else "left") if edge.vertical else \
                    ("bottom" if k == edge.first else "top")
                out[side] = "tab" if edge.owner == k else "blank"
        return {s: out.get(s, "flat") for s in ("top", "right", "bottom", "left")}

    def metadata(self) -> dict:
        """What an item records of its cut: the margin and, per edge, its cells and which one has the tab."""
        return {"tab_margin": self.margin,
                "tabs": [[e.first, e.second, e.owner] for e in self.edges]}
