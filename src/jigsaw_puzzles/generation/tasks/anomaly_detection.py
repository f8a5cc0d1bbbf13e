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
"""

from __future__ import annotations

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


def valid_transforms(cell: Image.Image, kind: str) -> list[str]:
    """Transforms of ``kind`` that change the cell and are not confusable with the other kind."""
    other = "B" if kind == "A" else "A"
    others = [geometry.transform(cell, t) for t in KINDS[other][1] if geometry.shape_preserving(t, cell.size)]
    valid = []
    for name in KINDS[kind][1]:
        if not geometry.shape_preserving(name, cell.size):
            continue
        changed = geometry.transform(cell, name)
        if geometry.mean_abs_diff(changed, cell) < MIN_DISTINCT:
            continue
        if any(geometry.mean_abs_diff(changed, o) < MIN_DISTINCT for o in others):
            continue
        valid.append(name)
    return valid


def check(image: Image.Image) -> str | None:
    return check_cells(geometry.split(image, 2, 2))


def check_cells(cells: list[Image.Image]) -> str | None:
    for i, cell in enumerate(cells):
        for kind, (kind_name, _) in KINDS.items():
            if not valid_transforms(cell, kind):
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


def grid_task(config: str) -> Task:
    """The task record of ``anomaly_detection_<R>x<C>``."""
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
