"""The pixel check of :mod:`.copies`: does a training photo, laid on an evaluation photo by the similarity that
local features found, show at least half of one of the two with nothing against it?

Both are compared at 128 px in cells of 8 px: a cell *agrees* where both are textured (grey std >= 2) and correlate
(>= 0.7), *disagrees* where they do not, is *flat* where neither is textured, *outside* where the other photo does
not reach. A disagreeing cell where most pixels still match once the tones align (within 4 grey levels of the line
fitted to the agreeing cells) is *written over* (a watermark's text, a logo) and counts as flat. A copy is a
rectangle of at least half of one of the two photos, all inside the other, at least half of its cells agreeing and
at most a tenth disagreeing, and no more than 15% of all the cells the other photo covers disagreeing (bar those at
its edge, where an alignment off by a pixel shows): a crop, a frame or a turn shows such a rectangle and nothing
against it; two photos in one screenshot, page or collage share their chrome (a wallpaper too), but the photos
inside it disagree.

A photo cropped to fit a frame (a portrait photo in a collage's 4:3 cell) disagrees beyond the crop: the frame shows
another photo or a gutter there. Those cells of the evaluation photo are *cut away* (not counted) where, walking
out from the shown rectangle's side, the two photos part and the evaluation photo has no line there (a row whose
grey-level step stands out 2x from the rows on one side of it): it goes on, the training photo was cut. Two
screenshots of one app also part beyond their shared chrome, but at the edge of their photos: a line in both.
"""

from __future__ import annotations

import numpy as np

SIDE, CELL, TEXTURE, AGREE = 128, 8, 2.0, 0.7  # size, cell, grey std of a textured cell, correlation
SHOWN, MAX_DISAGREE, MIN_AGREE, MAX_CONTRADICTED = 0.5, 0.1, 0.5, 0.15
SEAM, SEAM_RATIO, STEP, WINDOW = 6.0, 2.0, 2, 3  # a line in a photo: its step (grey levels, over STEP px) and how
# much it stands out from the rows on one side; where a crop is looked for (cells either side of the rectangle's edge)
WRITTEN, WRITTEN_TEXTURE = 4.0, 2.0  # written over: pixels within 4 grey levels once tones align; the cell textured
MIN_WRITTEN_FIT = 12  # agreeing cells needed to align the tones
MAX_SKEW = 4.0  # a homography's local scale (area) at one corner of the photo at most 4x that at another


def shown(cv2, small: np.ndarray, work: np.ndarray, small_to_work: np.ndarray) -> float:
    """The largest share of either photo that the other shows (see the module doc): ``small`` the evaluation
    photo's grey pixels, ``work`` the training photo's, ``small_to_work`` (3x3) mapping the first onto the second."""
    shares = []
    for first, (a, b, a_to_b) in enumerate(((small, work, small_to_work), (work, small, np.linalg.inv(small_to_work)))):
        cells, av, seen, inside = _cells(cv2, a, b, a_to_b)
        inner = np.pad(cells != -2, 1)  # cells whose four neighbours are inside the other photo: an alignment off
        inner = inner[1:-1, 1:-1] & inner[:-2, 1:-1] & inner[2:, 1:-1] & inner[1:-1, :-2] & inner[1:-1, 2:]
        share, box = _rectangle(cells)
        if first == 0 and share >= SHOWN:
            inner &= ~_cut_away(cells, box, av, seen, inside)
        agree, disagree = int((cells[inner] == 2).sum()), int((cells[inner] == -1).sum())  # by a pixel or two
        shares.append(0.0 if disagree > MAX_CONTRADICTED * (agree + disagree) else share)  # shows there
    return max(shares)


def contradicted(cv2, small: np.ndarray, work: np.ndarray, small_to_work: np.ndarray) -> bool:
    """Whether the pixels contradict a copy under this map: more than :data:`MAX_CONTRADICTED` of the textured cells
    the two share disagree, and they are a tenth of the evaluation photo or more (a pHash match local features could
    not check: two screenshots of one app with different photos are; a flat photo's few textured cells are not
    enough to say)."""
    cells = _cells(cv2, small, work, small_to_work)[0]
    agree, disagree = int((cells == 2).sum()), int((cells == -1).sum())
    return disagree > MAX_CONTRADICTED * (agree + disagree) and disagree >= 0.1 * cells.size


def _cut_away(cells: np.ndarray, box: tuple[int, int, int, int], av: np.ndarray, seen: np.ndarray,
              inside: np.ndarray) -> np.ndarray:
    """The cells of the evaluation photo a crop cut away: beyond each side of the rectangle ``box`` (y0, y1, x0, x1)
    where the two photos part (the training photo shows something else there: a gutter, another photo) while the
    evaluation photo goes on, no line of its own there (:func:`_crop_line`)."""
    y0, y1, x0, x1 = box
    out = np.zeros(cells.shape, bool)
    for side, edge, inward in (("top", y0, 1), ("bottom", y1, -1), ("left", x0, 1), ("right", x1, -1)):
        across = side in ("left", "right")
        if edge in (0, cells.shape[across]):
            continue
        e, t, v = (x.T if across else x for x in (av, seen, inside))
        span = slice(*(CELL * k for k in (box[:2] if across else box[2:])))
        e, t, v = e[:, span], t[:, span], v[:, span] >= 0.99
        if _crop_line(e, t, v, range(max(1, (edge - WINDOW) * CELL), min(len(e) - STEP - 1, (edge + WINDOW) * CELL)),
                      inward):
            out[{"top": np.s_[:y0], "bottom": np.s_[y1:], "left": np.s_[:, :x0], "right": np.s_[:, x1:]}[side]] = True
    return out


def _crop_line(e: np.ndarray, t: np.ndarray, v: np.ndarray, rows: range, inward: int) -> bool:
    """Whether the training photo (``t``, seen on the evaluation photo ``e``; ``v`` where it is) stops showing the
    evaluation photo within ``rows`` where the evaluation photo goes on: walking from the rectangle's side
    (``inward``: +1 when it lies below, -1 above) outwards, the first strip of rows where the two neither agree nor
    are both flat is where they part, and no row near it may be a line in ``e`` (:func:`_stands_out`: the edge of a
    photo in a frame, which two screenshots of one app both have)."""
    reach = CELL // 2
    ys = np.arange(max(0, rows.start - 2 * reach), min(len(e) - STEP, rows.stop + 2 * reach))
    if not len(ys):
        return False
    pair = v[ys] & v[ys + STEP]
    enough = pair.sum(1) >= CELL
    d = np.where(pair, np.abs(e[ys + STEP] - e[ys]), np.nan)
    pe = np.where(enough, np.nan_to_num(np.nanmedian(np.where(enough[:, None], d, 0), axis=1)), 0.0)
    for y in (rows if inward < 0 else reversed(rows)):  # from the rectangle outwards: where they stop agreeing
        strip = np.arange(y, y + reach) if inward < 0 else np.arange(y - reach + 1, y + 1)
        strip = strip[(strip >= 0) & (strip < len(e))]
        m = v[strip]
        a, b = e[strip][m], t[strip][m]
        if len(a) < 4 * CELL:
            return False
        if max(a.std(), b.std()) < TEXTURE or (min(a.std(), b.std()) >= TEXTURE / 2
                                               and np.corrcoef(a, b)[0, 1] >= AGREE):
            continue  # flat, or agreeing
        k = y - int(ys[0])  # rows lie inside ys
        return not any(_stands_out(pe, j, reach) for j in range(max(0, k - 2 * reach), min(len(ys), k + 2 * reach)))
    return False


def _stands_out(profile: np.ndarray, j: int, reach: int) -> bool:
    """Whether row ``j``'s step is a line: :data:`SEAM` grey levels or more, and :data:`SEAM_RATIO` times (one more
    than) the typical step on one side of it (a photo's edge in a frame: flat chrome on one side)."""
    before = profile[max(0, j - 2 * reach):max(1, j - 2)]
    after = profile[min(j + 3, len(profile) - 1):j + 2 * reach + 1]
    return bool(profile[j] >= SEAM and profile[j] >= SEAM_RATIO * (1 + min(np.median(before), np.median(after))))


def _cells(cv2, a: np.ndarray, b: np.ndarray, a_to_b: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each :data:`CELL`-pixel cell of ``a`` at :data:`SIDE` px: 2 agrees, 1 flat or written over, -1 disagrees, -2
    outside ``b``; and ``a`` at that size, ``b`` as it is seen there, and where ``b`` is (1) or not (0)."""
    f = SIDE / max(a.shape)
    av = cv2.resize(a, (max(CELL, round(a.shape[1] * f)), max(CELL, round(a.shape[0] * f))),
                    interpolation=cv2.INTER_AREA).astype(np.float32)
    f = av.shape[1] / a.shape[1], av.shape[0] / a.shape[0]
    g = min(1.0, (f[0] * f[1]) ** 0.5 / abs(np.linalg.det(a_to_b[:2, :2])) ** 0.5)  # b at the scale it is seen
    bd = cv2.resize(b, (max(1, round(b.shape[1] * g)), max(1, round(b.shape[0] * g))), interpolation=cv2.INTER_AREA)
    g = bd.shape[1] / b.shape[1], bd.shape[0] / b.shape[0]
    m = scaling(*g) @ a_to_b @ scaling(1 / f[0], 1 / f[1])  # av pixels -> bd pixels
    size = (av.shape[1], av.shape[0])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    if np.allclose(m[2], [0, 0, 1]):
        seen = cv2.warpAffine(bd.astype(np.float32), m[:2], size, flags=flags, borderMode=cv2.BORDER_CONSTANT)
        inside = cv2.warpAffine(np.ones(bd.shape, np.float32), m[:2], size, flags=flags,
                                borderMode=cv2.BORDER_CONSTANT)
    else:  # a homography (a stretched or keystoned copy)
        seen = cv2.warpPerspective(bd.astype(np.float32), m, size, flags=flags, borderMode=cv2.BORDER_CONSTANT)
        inside = cv2.warpPerspective(np.ones(bd.shape, np.float32), m, size, flags=flags,
                                     borderMode=cv2.BORDER_CONSTANT)
    gh, gw = av.shape[0] // CELL, av.shape[1] // CELL

    def blocks(x):
        return x[:gh * CELL, :gw * CELL].reshape(gh, CELL, gw, CELL)

    x, y, v = blocks(av), blocks(seen), blocks(inside)
    dx, dy = x - x.mean((1, 3), keepdims=True), y - y.mean((1, 3), keepdims=True)
    sx, sy = np.sqrt((dx ** 2).mean((1, 3))), np.sqrt((dy ** 2).mean((1, 3)))
    corr = (dx * dy).mean((1, 3)) / np.maximum(sx * sy, 1e-6)
    out = np.where((sx >= TEXTURE) | (sy >= TEXTURE), -1, 1)
    out[(sx >= TEXTURE) & (sy >= TEXTURE) & (corr >= AGREE)] = 2
    written, agreeing = (out == -1) & (sx >= WRITTEN_TEXTURE), out == 2
    if written.any() and agreeing.sum() >= MIN_WRITTEN_FIT:  # written over (text, a logo): most pixels still match
        xa, ya = (z.transpose(0, 2, 1, 3)[agreeing].astype(np.float64).ravel() for z in (x, y))
        gain = ((xa - xa.mean()) * (ya - ya.mean())).mean() / max(xa.var(), 1e-6)  # the tones of the cells that
        offset = ya.mean() - gain * xa.mean()  # agree (a re-toned copy's), fitted in closed form: no LAPACK
        close = (np.abs(y - (gain * x + offset)) <= WRITTEN).mean((1, 3))
        out[written & (close >= 0.5)] = 1  # neither for nor against
    out[v.min((1, 3)) < 0.99] = -2
    return out, av, seen, inside


def scaling(sx: float, sy: float) -> np.ndarray:
    """3x3: pixel centres of an image -> those of the image resized by ``(sx, sy)`` (pixel ``i`` covers
    ``[i - 0.5, i + 0.5]``; a map about pixel 0's centre would be off by half a pixel, and a mirror doubles it)."""
    return np.array([[sx, 0, (sx - 1) / 2], [0, sy, (sy - 1) / 2], [0, 0, 1.0]])


def _rectangle(cells: np.ndarray) -> tuple[float, tuple[int, int, int, int]]:
    """The largest share of the grid a rectangle covers with no cell outside, at most :data:`MAX_DISAGREE` of its
    cells disagreeing and at least :data:`MIN_AGREE` agreeing (every rectangle, by summed-area tables), and the
    rectangle (rows y0:y1, columns x0:x1; the first of the largest)."""
    gh, gw = cells.shape
    if not gh or not gw:
        return 0.0, (0, 0, 0, 0)

    def table(mask):
        return np.pad(mask.astype(np.int32).cumsum(0).cumsum(1), ((1, 0), (1, 0)))

    y0, y1, x0, x1 = np.ix_(np.arange(gh + 1), np.arange(gh + 1), np.arange(gw + 1), np.arange(gw + 1))
    area = np.maximum(y1 - y0, 0) * np.maximum(x1 - x0, 0)

    def count(t):
        return t[y1, x1] - t[y0, x1] - t[y1, x0] + t[y0, x0]

    good = ((area > 0) & (count(table(cells == -2)) == 0) & (count(table(cells == -1)) <= MAX_DISAGREE * area)
            & (count(table(cells == 2)) >= MIN_AGREE * area))
    covered = area * good
    at = np.unravel_index(int(covered.argmax()), covered.shape)
    return float(covered[at]) / (gh * gw), tuple(int(k) for k in at)


def plausible(small_to_work: np.ndarray, shape: tuple[int, int]) -> bool:
    """Whether a homography lays the evaluation photo (``shape``) on the training photo as a photograph of it
    could: its corners in the same turning order (no twist or mirror), and the local scale at any corner within
    :data:`MAX_SKEW` of that at any other (a keystone or a stretch, not a degenerate fit)."""
    h, w = shape
    corners = np.float64([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]]) - [0.5, 0.5, 0]
    mapped = corners @ small_to_work.T
    if not (mapped[:, 2] > 0).all():
        return False
    xy = mapped[:, :2] / mapped[:, 2:]
    edges = np.roll(xy, -1, axis=0) - xy
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    if not (turns > 0).all():
        return False
    a = small_to_work
    scales = [abs(np.linalg.det(a[:2, :2] - np.outer(m, a[2, :2]))) / p[2] ** 2 for m, p in zip(xy, mapped)]
    return bool(max(scales) <= MAX_SKEW * min(scales))
