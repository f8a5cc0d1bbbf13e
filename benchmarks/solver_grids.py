"""The classical solver on any grid (``baselines.placer.place``): accuracy by grid size on the embedded photos.

Every accepted embedded photo is normalised, cut into ``rows x cols`` cells, shuffled with a seeded
``ItemRNG(seed, "grid", rows, cols, photo)`` and placed back from its pixels alone. Prints, per grid: exact
(every piece right), position accuracy (share of pieces at their place), neighbour accuracy (share of true
left-right / top-bottom pairs kept), mean margin, and the seconds per puzzle; and writes a PNG of the
accuracies if ``--plot FILE`` is given.

    python benchmarks/solver_grids.py [--grids 1x2 2x2 2x3 3x3 3x4 4x4 5x5 6x6] [--plot docs/solver_grids.png]

``--rotated``: the same with unknown orientation (``baselines.placer.place_rotated``) on the ``_rot`` configs'
pieces (square cells, each turned by its own draw; photos the ``_rot`` check refuses are left out and counted).
A piece is in place when its image and its turn are right; "up to a turn" counts layouts that are right once
turned as a whole (the seams were read right, the upright cue chose another turn).
"""
import argparse
import math
import statistics
import time

from jigsaw_puzzles import geometry
from jigsaw_puzzles.baselines.placer import _turned, place, place_rotated
from jigsaw_puzzles.training.rewards import _pairs
from jigsaw_puzzles.rng import ItemRNG
from jigsaw_puzzles.scoring.score import clopper_pearson
from jigsaw_puzzles.generation.sources import read_source
from jigsaw_puzzles.generation.curation import curate

DEFAULT_GRIDS = ["1x2", "2x2", "2x3", "3x3", "3x4", "4x4", "5x5", "6x6"]


def _summary(per_photo: dict[str, list[float]], margin: float, seconds: float, n: int) -> dict:
    """Means over the photos, each with its 95% interval: Clopper-Pearson for the share of exact puzzles, a normal
    interval of the mean (over photos) for the pieces and pairs shares."""
    out = {"margin": margin / max(n, 1), "seconds": seconds / max(n, 1), "n": n}
    for key, values in per_photo.items():
        mean = sum(values) / max(n, 1)
        if key in ("exact", "up_to_turn"):
            lo, hi = clopper_pearson(int(round(sum(values))), n)
        else:
            sd = statistics.stdev(values) if n > 1 else 0.0
            lo, hi = max(0.0, mean - 1.96 * sd / math.sqrt(n)), min(1.0, mean + 1.96 * sd / math.sqrt(n))
        out[key], out[key + "_ci"] = mean, (lo, hi)
    return out


def run_grid(images, rows, cols, seed=0):
    exact, positions, neighbours, margin = [], [], [], 0.0
    t = time.perf_counter()
    for sid, image in images:
        w, h = image.size  # the normalised photos divide into 2x2 and 3x3; crop the rest off for other grids
        cells = geometry.split(image.crop((0, 0, w - w % cols, h - h % rows)), rows, cols)
        shown = list(range(rows * cols))  # shown[k] = region of shuffled piece k+1
        ItemRNG(seed, "grid", rows, cols, sid).shuffle(shown)
        truth = [shown.index(region) + 1 for region in range(rows * cols)]
        got = place([cells[region] for region in shown], rows, cols)
        exact.append(float(got.order == truth))
        positions.append(sum(a == b for a, b in zip(got.order, truth)) / len(truth))
        want = _pairs(truth, rows, cols)
        neighbours.append(len(want & _pairs(got.order, rows, cols)) / len(want))
        margin += got.margin
    return _summary({"exact": exact, "positions": positions, "neighbours": neighbours}, margin,
                    time.perf_counter() - t, len(images))


def run_rotated(images, rows, cols, seed=0):
    from jigsaw_puzzles.generation.tasks.order_restoration import rotated_check, rotated_shuffle

    exact, positions, turn_free, neighbours, margin = [], [], [], [], 0.0
    check, kept, t = rotated_check(rows, cols), 0, time.perf_counter()
    for sid, image in images:
        if check(image) is not None:
            continue
        kept += 1
        order, turns, pieces = rotated_shuffle(image, ItemRNG(seed, "grid-rot", rows, cols, sid), rows, cols)
        got = place_rotated(pieces, rows, cols)
        truth, mine = list(zip(order, turns)), list(zip(got.order, got.rotations))
        exact.append(float(mine == truth))
        positions.append(sum(a == b for a, b in zip(mine, truth)) / len(truth))
        layout = [4 * (i - 1) + r // 90 for i, r in mine]
        turn_free.append(float(any([(m // 4 + 1, 90 * (m % 4)) for m in _turned(layout, rows, cols, q)[0]] == truth
                                   for q in range(4) if _turned(layout, rows, cols, q)[1:] == (rows, cols))))
        want = _pairs(truth, rows, cols)
        neighbours.append(len(want & _pairs(mine, rows, cols)) / len(want))
        margin += got.margin
    return _summary({"exact": exact, "positions": positions, "up_to_turn": turn_free, "neighbours": neighbours},
                    margin, time.perf_counter() - t, kept)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grids", nargs="+", default=DEFAULT_GRIDS)
    ap.add_argument("--plot", default=None)
    ap.add_argument("--rotated", action="store_true", help="pieces turned too (the _rot configs)")
    args = ap.parse_args()
    images = [(s.source_id, read_source(s.path)[1]) for s in curate().accepted]
    print(f"{len(images)} embedded photos (normalised, 768 px long side), seed 0"
          + (", pieces turned (unknown orientation)" if args.rotated else ""))
    print(f"{'grid':6s} {'exact':>7s} {'positions':>10s} {'neighbours':>11s} {'margin':>7s} {'s/puzzle':>9s}"
          + (f" {'up to a turn':>13s} {'photos':>7s}" if args.rotated else ""))
    results = {}
    for grid in args.grids:
        rows, cols = map(int, grid.split("x"))
        r = results[grid] = (run_rotated if args.rotated else run_grid)(images, rows, cols)
        print(f"{grid:6s} {r['exact']:7.1%} {r['positions']:10.1%} {r['neighbours']:11.1%} {r['margin']:7.3f} "
              f"{r['seconds']:9.3f}" + (f" {r['up_to_turn']:13.1%} {r['n']:7d}" if args.rotated else ""))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7.5, 4.2))
        keys = [("exact", "exact (every piece)"), ("positions", "pieces in place"),
                ("neighbours", "true neighbour pairs kept")]
        if args.rotated:
            keys.insert(1, ("up_to_turn", "exact up to a turn of the whole"))
            keys[0] = ("exact", "exact (every piece and turn)")
        styles = [("o", "-"), ("s", "--"), ("^", "-."), ("D", ":")]
        for j, (key, label) in enumerate(keys):  # dodged, own marker and line: no series hides another
            x = [i + (j - (len(keys) - 1) / 2) * 0.08 for i in range(len(results))]
            y = [100 * results[g][key] for g in results]
            err = [[y_ - 100 * results[g][key + "_ci"][0] for g, y_ in zip(results, y)],
                   [100 * results[g][key + "_ci"][1] - y_ for g, y_ in zip(results, y)]]
            marker, line = styles[j]
            ax.errorbar(x, y, yerr=err, marker=marker, linestyle=line, capsize=3, markersize=6, label=label)
        ax.set_xlabel("grid (rows x cols); n = photos the point rests on; bars: 95% intervals")
        ax.set_ylabel("% of puzzles / pieces / pairs")
        ax.set_ylim(0, 105)
        ax.set_title(f"Classical solver, any grid{', pieces turned' if args.rotated else ''}: "
                     f"embedded photos, seed 0")
        ax.set_xticks(range(len(results)), [f"{g}\n(n = {results[g]['n']})" for g in results])
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left", fontsize=9)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
