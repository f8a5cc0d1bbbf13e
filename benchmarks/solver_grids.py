"""The classical solver on any grid (``baselines.placer.place``): accuracy by grid size on the embedded photos.

Every accepted embedded photo is normalised, cut into ``rows x cols`` cells, shuffled with a seeded
``ItemRNG(seed, "grid", rows, cols, photo)`` and placed back from its pixels alone. Prints, per grid: exact
(every piece right), position accuracy (share of pieces at their place), neighbour accuracy (share of true
left-right / top-bottom pairs kept), mean margin, and the seconds per puzzle; and writes a PNG of the
accuracies if ``--plot FILE`` is given.

    python benchmarks/solver_grids.py [--grids 1x2 2x2 2x3 3x3 3x4 4x4 5x5 6x6] [--plot docs/solver_grids.png]
"""
import argparse
import time

from jigsaw_puzzles import geometry
from jigsaw_puzzles.baselines.placer import place
from jigsaw_puzzles.rewards import _pairs
from jigsaw_puzzles.rng import ItemRNG
from jigsaw_puzzles.sources import curate, read_source

DEFAULT_GRIDS = ["1x2", "2x2", "2x3", "3x3", "3x4", "4x4", "5x5", "6x6"]


def run_grid(images, rows, cols, seed=0):
    exact = positions = neighbours = margin = 0.0
    t = time.perf_counter()
    for sid, image in images:
        w, h = image.size  # the normalised photos divide into 2x2 and 3x3; crop the rest off for other grids
        cells = geometry.split(image.crop((0, 0, w - w % cols, h - h % rows)), rows, cols)
        shown = list(range(rows * cols))  # shown[k] = region of shuffled piece k+1
        ItemRNG(seed, "grid", rows, cols, sid).shuffle(shown)
        truth = [shown.index(region) + 1 for region in range(rows * cols)]
        got = place([cells[region] for region in shown], rows, cols)
        exact += got.order == truth
        positions += sum(a == b for a, b in zip(got.order, truth)) / len(truth)
        want = _pairs(truth, rows, cols)
        neighbours += len(want & _pairs(got.order, rows, cols)) / len(want)
        margin += got.margin
    n = len(images)
    return {"exact": exact / n, "positions": positions / n, "neighbours": neighbours / n, "margin": margin / n,
            "seconds": (time.perf_counter() - t) / n}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grids", nargs="+", default=DEFAULT_GRIDS)
    ap.add_argument("--plot", default=None)
    args = ap.parse_args()
    images = [(s.source_id, read_source(s.path)[1]) for s in curate().accepted]
    print(f"{len(images)} embedded photos (normalised, 768 px long side), seed 0")
    print(f"{'grid':6s} {'exact':>7s} {'positions':>10s} {'neighbours':>11s} {'margin':>7s} {'s/puzzle':>9s}")
    results = {}
    for grid in args.grids:
        rows, cols = map(int, grid.split("x"))
        r = results[grid] = run_grid(images, rows, cols)
        print(f"{grid:6s} {r['exact']:7.1%} {r['positions']:10.1%} {r['neighbours']:11.1%} {r['margin']:7.3f} "
              f"{r['seconds']:9.3f}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 3.6))
        for key, label in (("exact", "exact (every piece)"), ("positions", "pieces in place"),
                           ("neighbours", "true neighbour pairs kept")):
            ax.plot(list(results), [100 * results[g][key] for g in results], marker="o", label=label)
        ax.set_xlabel("grid (rows x cols)")
        ax.set_ylabel("% of puzzles / pieces / pairs")
        ax.set_ylim(0, 102)
        ax.set_title(f"Classical solver, any grid: {len(images)} embedded photos")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
