"""Task 4, Anomaly Detection: is one of the four stitched 2x2 cells rotated or mirrored?

Slots come in cycles of 16: even slots are unchanged images, odd slots walk
through the 8 (position, kind) pairs, so unchanged/rotated/mirrored run 2:1:1
and every position is altered equally often; random guessing then scores
1/2 * 1/2 + 1/2 * 1/2 * 1/4 * 1/2 = 28.125%, the paper's 28.13. The default
answer plan fills exact quotas read from ``slot_cycle``: unchanged (slot 0) and
altered alternate, and the altered slots take the positions in turn with the
kinds alternating, so every prefix is balanced in all three fields.

A transform is only used if it visibly changes its cell (symmetric content
would make the "altered" item look correct) and cannot be mistaken for the
other kind of change (a 180-degree turn of a mirror-symmetric cell equals a flip).

Beyond the paper, ``anomaly_detection_<R>x<C>`` (at most 26 cells, one letter each) stitches an R x C grid cut
as the order grid configs cut it; the sub-images are labelled A, B, ... row by row, slots run in cycles of 4n
(n cells: unchanged on even slots, the 2n (position, kind) pairs on odd ones), and every cell must admit a
visible rotation and a visible mirroring. Chance: 1/2 * 1/2 + 1/2 * 1/2 * 1/n * 1/2.

Interlocking pieces (``<config>_tabs``, ``_tabs_silhouette``): the shaped pieces laid out as the picture, the altered
one turned or mirrored with its outline and drawn over the others (a transparent gap where it was); the cut is
re-drawn until every piece's outline changes visibly under a transform of each kind: there the outlines alone tell
whether and where a piece was changed. ``_tabs_content`` uses the checkerboard cut, whose every piece is its own
image turned or mirrored: the changed piece fills its place exactly, the board's alpha is the same for every
answer, and only the content tells.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from ... import geometry, prompts
from ...rng import ItemRNG
from ...spec import LETTERS, anomaly_answers, format_anomaly, get as get_spec
from .base import MIN_DISTINCT, Context, Item, Task, TaskError
from .order_restoration import grid_cells, grid_reason

NUM_SLOTS = 16
KINDS = {"A": ("rotation", geometry.ROTATIONS), "B": ("mirroring", geometry.MIRRORS)}


def slot_meaning(slot: int, cells: int = 4) -> tuple[str | None, str | None]:
    """``(position letter, kind letter)``, or ``(None, None)`` for an unchanged image."""
    if slot % 2 == 0:
        return None, None
    index = slot // 2
    return LETTERS[index % cells], "AB"[index // cells]


def slot_cycle(cells: int = 4) -> tuple[int, ...]:
    """The answer plan's quota order: unchanged (slot 0) before each altered slot; the altered slots take the
    positions in turn, the kind alternating, and every (position, kind) pair once (4 * cells entries)."""
    out = []
    for j in range(2 * cells):
        position = j % cells
        kind = (position + j // cells) % 2
        out += [0, 2 * (kind * cells + position) + 1]
    return tuple(out)


def _arrays(cell: Image.Image) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The cell's pixels and those of each transform that keeps its shape, as float arrays made once each."""
    names = [t for _, transforms in KINDS.values() for t in transforms if geometry.shape_preserving(t, cell.size)]
    return geometry.as_array(cell), {t: geometry.as_array(geometry.transform(cell, t)) for t in names}


def valid_transforms(cell: Image.Image, kind: str, arrays=None) -> list[str]:
    """Transforms of ``kind`` that change the cell and are not confusable with the other kind (``arrays``: the
    cell's :func:`_arrays`, when the caller judges both kinds)."""
    other = "B" if kind == "A" else "A"
    # geometry.mean_abs_diff's arithmetic on arrays made once per image (not once per comparison): the same floats
    pixels, transformed = arrays if arrays is not None else _arrays(cell)
    others = [transformed[t] for t in KINDS[other][1] if t in transformed]
    valid = []
    for name in KINDS[kind][1]:
        if name not in transformed:  # a quarter turn of a cell that is not square
            continue
        changed = transformed[name]
        if float(np.abs(changed - pixels).mean()) < MIN_DISTINCT:
            continue
        if any(float(np.abs(changed - o).mean()) < MIN_DISTINCT for o in others):
            continue
        valid.append(name)
    return valid


def check(image: Image.Image) -> str | None:
    return check_cells(geometry.split(image, 2, 2))


def check_cells(cells: list[Image.Image]) -> str | None:
    for i, cell in enumerate(cells):
        arrays = _arrays(cell)
        for kind, (kind_name, _) in KINDS.items():
            if not valid_transforms(cell, kind, arrays):
                return (f"anomaly_detection: no {kind_name} visibly changes cell {i} "
                        f"(symmetric content) without looking like the other change")
    return None


def alter(cells: list[Image.Image], rng: ItemRNG, slot: int, grid: tuple[int, int]):
    """Apply the slot's change to ``cells`` in place: ``(position, kind, metadata)`` (position None: unchanged)."""
    position, kind = slot_meaning(slot, len(cells))
    metadata = {"grid": list(grid), "altered": position is not None}
    if position is not None:
        index = LETTERS.index(position)
        choices = valid_transforms(cells[index], kind)
        if not choices:
            raise TaskError(check_cells(cells))
        name = rng.child("transform").choice(choices)
        cells[index] = geometry.transform(cells[index], name)
        metadata.update({"position": position, "cell": index, "type": kind,
                         "kind": KINDS[kind][0], "transform": name})
    return position, kind, metadata


def make_item(image: Image.Image, rng: ItemRNG, slot: int) -> Item:
    cells = geometry.split(image, 2, 2)
    position, kind, metadata = alter(cells, rng, slot, (2, 2))
    return Item(
        images=[geometry.stitch(cells, 2, 2)],
        question=prompts.ANOMALY_DETECTION,
        options=anomaly_answers(),
        answer=format_anomaly(position, kind),
        metadata=metadata,
    )


def build(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
    return make_item(image, rng, slot)


def outline_changes(alpha) -> dict[tuple[str, str], float]:
    """How much a piece's outline differs between any two of its transforms (``"none"``: as it is), each pair
    both ways, as a share of its cell's area: quarter turns only for a square canvas."""
    from ..tabs import transformed

    names = ["none"] + [t for t in geometry.ROTATIONS + geometry.MIRRORS
                        if geometry.shape_preserving(t, alpha.shape[::-1])]
    shapes = {t: (alpha if t == "none" else transformed(alpha, t)).astype(np.int16) for t in names}
    cw, ch, _ = geometry.tab_cell(alpha.shape[::-1])
    out = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            out[a, b] = out[b, a] = float(np.abs(shapes[a] - shapes[b]).sum() / 255 / (cw * ch))
    return out


def tab_transforms(content: list[str], changes: dict[tuple[str, str], float], kind: str) -> list[str]:
    """Of the transforms of ``kind`` valid on the cell's content (``content``, :func:`valid_transforms`), those
    whose outline change is visible (:data:`.shaped.MIN_OUTLINE_CHANGE` of the cell) and differs as much from
    every transform of the other kind (``changes``: :func:`outline_changes`): a turned piece cannot pass for an
    unchanged or a mirrored one by its shape either."""
    from .shaped import MIN_OUTLINE_CHANGE

    other = KINDS["B" if kind == "A" else "A"][1]
    return [name for name in content if changes[name, "none"] >= MIN_OUTLINE_CHANGE
            and all(changes[name, o] >= MIN_OUTLINE_CHANGE for o in other if (name, o) in changes)]


def tab_task(config: str) -> Task:
    """The task record of ``anomaly_detection[_<R>x<C>]_tabs`` and its ``_tabs_silhouette``: the pieces laid out
    as the picture (their alphas sum to 255: the assembled photo, or flat grey pieces with their cut lines), one
    of them turned or mirrored with its outline and drawn over the others, so that it no longer fits (a gap where
    it was, its tabs over its neighbours). The cut is re-drawn until every cell has a visible change of each kind
    (:func:`tab_transforms`), so the altered piece never looks unchanged by its shape."""
    from ..tabs import board, image, over, piece, remove, ring, transformed
    from ..tabs.render import LINE
    from . import shaped

    spec = get_spec(config)
    rows, cols = spec.grid
    n = rows * cols
    straight = shaped.straight(config)
    base = TASKS[0] if straight == TASKS[0].config else grid_task(straight)
    silhouette = spec.cut == "silhouette"

    def build_tabs(image_in: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        photo, cell = shaped.cut_cells(image_in, rows, cols)
        cells = [Image.fromarray(photo[r * cell[1]:(r + 1) * cell[1], c * cell[0]:(c + 1) * cell[0]])
                 for r in range(rows) for c in range(cols)]

        content = {(k, kind): valid_transforms(cells[k], kind) for k in range(n) for kind in KINDS}
        changes: dict[int, dict] = {}

        def rule(cut) -> str | None:
            changes.clear()
            for k in range(n):
                changes[k] = outline_changes(cut.alpha(k))
                for kind, (kind_name, _) in KINDS.items():
                    if not tab_transforms(content[k, kind], changes[k], kind):
                        return f"no {kind_name} of piece {k} changes its outline visibly and unmistakably"
            return None

        cut, redraws = shaped.draw_cut(rng, rows, cols, cell, rule)
        position, kind = slot_meaning(slot, n)
        picture = board(photo, cut, silhouette)
        metadata = {"grid": [rows, cols], "altered": position is not None}
        if position is not None:
            index = LETTERS.index(position)
            alpha = cut.alpha(index)
            name = rng.child("transform").choice(tab_transforms(content[index, kind], changes[index], kind))
            canvas = piece(photo, cut, index, alpha, silhouette)
            if silhouette:  # its own cut line, as the board's pieces have theirs
                canvas[ring(alpha), :3] = LINE
            remove(picture, alpha, cut.canvas_box(index))
            over(picture, transformed(canvas, name), cut.canvas_box(index))
            metadata.update({"position": position, "cell": index, "type": kind, "kind": KINDS[kind][0],
                             "transform": name, "outline_change": round(changes[index][name, "none"], 4)})
        item = base.build(image_in, rng, 0, ctx)  # the straight item's question and options (slot 0: unaltered)
        metadata.update(shaped.metadata(cut, silhouette, redraws))
        return Item(images=[image(picture)], question=shaped.question(item.question, silhouette),
                    options=item.options, answer=format_anomaly(position, kind), metadata=metadata)

    if spec.cut == "content":
        return Task(config, base.num_slots, shaped.content_check(base.check, rows, cols),
                    content_build(rows, cols, base), f"{base.summary}, as {shaped.words(spec.cut)}", __name__,
                    slot_cycle=base.slot_cycle)
    return Task(config, base.num_slots, shaped.check(base.check, rows, cols), build_tabs,
                f"{base.summary}, as {shaped.words(spec.cut)}", __name__, slot_cycle=base.slot_cycle)


def content_build(rows: int, cols: int, base: Task):
    """The item function of ``anomaly_detection[_<R>x<C>]_tabs_content``: the checkerboard cut laid out as the grid
    and its ring, the altered piece turned or mirrored in its own place: its outline is its own image under every
    transform, so it fills its place exactly and the board's alpha is the same for every answer; only its
    content shows the change. The transform is drawn as for straight cells (:func:`alter`'s rules, on the grid's
    cells)."""
    from ..tabs import add, board, image, piece, remove, transformed
    from . import shaped

    def build_content(image_in: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        photo, grid, cut, meta = shaped.content(image_in, rows, cols, "checkerboard")
        cells = grid_cells(grid, rows, cols)
        position, kind, metadata = alter(list(cells), rng, slot, (rows, cols))
        picture = board(photo, cut)
        if position is not None:
            index, box = metadata["cell"], cut.canvas_box(metadata["cell"])
            alpha = cut.alpha(index)
            remove(picture, alpha, box)
            add(picture, transformed(piece(photo, cut, index, alpha), metadata["transform"]), box)
        item = base.build(grid, rng, 0, ctx)  # the straight item's question and options (slot 0: unaltered)
        metadata.update(meta)
        return Item(images=[image(picture)], question=shaped.question(item.question, False), options=item.options,
                    answer=format_anomaly(position, kind), metadata=metadata)
    return build_content


def grid_task(config: str) -> Task:
    """The task record of ``anomaly_detection_<R>x<C>`` (and of its ``_tabs`` variants)."""
    if get_spec(config).cut != "straight":
        return tab_task(config)
    rows, cols = get_spec(config).grid
    n = rows * cols

    def check_grid(image: Image.Image) -> str | None:
        return grid_reason(image, rows, cols, check_cells)

    def build_grid(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        cells = grid_cells(image, rows, cols)
        position, kind, metadata = alter(cells, rng, slot, (rows, cols))
        letters = "/".join(LETTERS[:n])
        return Item(
            images=[geometry.stitch(cells, rows, cols)],
            question=prompts.ANOMALY_DETECTION_GRID.format(grid_words=prompts.grid_words(rows, cols), n=n,
                                                           positions=prompts.position_lines(rows, cols),
                                                           letters=letters),
            options=anomaly_answers(n),
            answer=format_anomaly(position, kind),
            metadata=metadata,
        )

    return Task(config, 4 * n, check_grid, build_grid,
                f"Anomaly Detection on a {rows}x{cols} grid: one of {n} cells rotated, mirrored, or none", __name__,
                slot_cycle=slot_cycle(n))


TASKS = [Task("anomaly_detection", NUM_SLOTS, check, build,
              "Anomaly Detection: one cell rotated, mirrored, or none", __name__, slot_cycle=slot_cycle())]
