"""How an interlocking cut's cost grows with the grid: one item of ``order_generation_RxC`` (straight),
``..._tabs`` and ``..._tabs_silhouette`` per embedded photo, 2x2, 4x4 and 8x8 (1x, 4x, 16x the pieces), the
item made and its images PNG-encoded as the builder does (no curation, no plan, no solver margin).

    python benchmarks/tabs_growth.py [--photos 10]
"""

from __future__ import annotations

import argparse
import time

from jigsaw_puzzles.generation.sources import load_normalised
from jigsaw_puzzles.generation.curation import curate
from jigsaw_puzzles.generation.tasks import Context, TaskError, get_task
from jigsaw_puzzles.geometry import encode_png
from jigsaw_puzzles.rng import item_rng


def seconds(config: str, images: dict) -> tuple[float, int]:
    task = get_task(config)
    start, made = time.perf_counter(), 0
    for sid, image in images.items():
        try:
            item = task.build(image, item_rng(0, task.family, sid), 0, Context(sid))
        except TaskError:
            continue
        for im in item.images:
            encode_png(im)
        made += 1
    return (time.perf_counter() - start) / max(1, made), made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--photos", type=int, default=10)
    args = parser.parse_args()
    accepted = sorted(curate(None).accepted, key=lambda s: s.source_id)[:args.photos]
    images = {s.source_id: load_normalised(s.path) for s in accepted}
    print(f"{'grid':5s} {'pieces':>6s} {'straight ms':>11s} {'tabs ms':>8s} {'x':>5s} {'silhouette ms':>13s} {'x':>5s}")
    for grid in ("2x2", "4x4", "8x8"):
        straight, n = seconds(f"order_generation_{grid}", images)
        tabs, _ = seconds(f"order_generation_{grid}_tabs", images)
        sil, _ = seconds(f"order_generation_{grid}_tabs_silhouette", images)
        rows, cols = map(int, grid.split("x"))
        print(f"{grid:5s} {rows * cols:6d} {1000 * straight:11.1f} {1000 * tabs:8.1f} {tabs / straight:5.2f} "
              f"{1000 * sil:13.1f} {sil / straight:5.2f}   (n={n})", flush=True)


if __name__ == "__main__":
    main()
