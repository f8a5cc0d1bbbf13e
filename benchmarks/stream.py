"""Throughput of the training stream (``jp.training_stream``): items/s per config against the floor.

Measured in one process, on the embedded photos, in the same run:
  * floor  - what any stream must do per item: decode the source file and normalise it (as
             ``sources.read_source`` does, but without its per-process cache of normalised photos, which would make
             the floor a cache lookup), then cut it into its grid (``geometry.split``); no PNG encoding;
  * stream - ``training_stream("embedded", mixture={config: 1})`` items, first pass (sources decoded from disk);
  * cached - the same stream after its first pass (normalised sources cached in memory, as in training).
Prints items/s and the stream's share of the floor.

``--guard``: the contamination guard's cost. The stream over the embedded photos is made without ``exclude=`` and
with ``exclude=`` a folder of 6 other photos (every training photo is then checked for copies of them:
``training.copies``), in the same run; printed: the making of the stream per training photo, the guard's share,
and the first pass's items/s with the making included, against the floor; then made again with the same
``exclude=`` (as a Gym environment's seeded reset or a second helper call does): the verdicts are kept per process.

``--guard --num-proc N``: only the check of a folder of 300 synthetic photos, in one process and in N.

    python benchmarks/stream.py [--items 300] [--configs order_generation_3x3 ...] [--guard [--num-proc N]]
"""
import argparse
import itertools
import time

from jigsaw_puzzles import geometry
from jigsaw_puzzles.generation.sources import DEFAULT_RULES, _normalised, curate, read_bytes
from jigsaw_puzzles.spec import get
from jigsaw_puzzles.training.stream import STREAM_CONFIGS, training_stream


def floor_rate(paths, grid, n):
    t = time.perf_counter()
    for path in itertools.islice(itertools.cycle(paths), n):
        image = _normalised(read_bytes(path), DEFAULT_RULES)  # decoded each time: read_source keeps a cache
        [image.crop(box) for box in geometry.grid_boxes(image.size, *grid, exact=False)]
    return n / (time.perf_counter() - t)


def stream_rate(config, n, passes_first):
    it = iter(training_stream("embedded", mixture={config: 1}, seed=0))
    t = time.perf_counter()
    for _ in range(passes_first):
        next(it)
    first = passes_first / (time.perf_counter() - t)
    t = time.perf_counter()
    for _ in range(n):
        next(it)
    return first, n / (time.perf_counter() - t)


def guard(configs) -> None:
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from fixtures.photos import write_photos

    from jigsaw_puzzles.training import exclusion

    paths = [s.path for s in curate().accepted]
    with tempfile.TemporaryDirectory() as tmp:
        write_photos(Path(tmp), 6, start=900)
        print(f"{'config':32s} {'floor/s':>8s} {'made, ms/photo':>15s} {'guarded':>8s} {'again':>6s} "
              f"{'1st pass/s':>11s} {'guarded':>8s} {'again':>6s} {'guarded/floor':>14s} {'again/floor':>12s}")
        for config in configs:
            floor = floor_rate(paths, tuple(get(config).grid), 120)
            row = []
            for exclude in (None, tmp, tmp):
                if exclude is None:
                    exclusion._CHECKED.clear()  # the guarded run checks every photo; the next one reuses it
                t = time.perf_counter()
                it = iter(training_stream("embedded", mixture={config: 1}, seed=0, exclude=exclude))
                made = time.perf_counter() - t
                n = sum(1 for _ in itertools.islice(it, len(paths)))
                row.append((made, n / (time.perf_counter() - t)))
            (m0, r0), (m1, r1), (m2, r2) = row
            print(f"{config:32s} {floor:8.1f} {m0 / len(paths) * 1000:15.1f} {m1 / len(paths) * 1000:8.1f} "
                  f"{m2 / len(paths) * 1000:6.1f} {r0:11.1f} {r1:8.1f} {r2:6.1f} {r1 / floor:13.0%} "
                  f"{r2 / floor:11.0%}", flush=True)


def guard_workers(photos: int, num_proc: int, repeat: int = 3) -> None:
    """The check of a folder of ``photos`` synthetic training photos against 6 evaluation photos, in one process and
    in ``num_proc`` (``training_stream(num_proc=...)``): ms per photo (best of ``repeat``), the same verdicts."""
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from fixtures.photos import write_photos

    from jigsaw_puzzles.training import exclusion

    with tempfile.TemporaryDirectory() as train, tempfile.TemporaryDirectory() as tmp:
        write_photos(Path(train), photos, start=3000)
        write_photos(Path(tmp), 6, start=900)
        curation = curate(train)
        evaluation = exclusion.evaluation_photos(tmp, "")
        best, verdicts = {}, {}
        for n in [None, num_proc] * repeat:
            exclusion._CHECKED.clear()
            t = time.perf_counter()
            verdicts[n] = exclusion.copies_among(curation.accepted, curation, evaluation, n)
            best[n] = min(best.get(n, 1e9), time.perf_counter() - t)
        one, many = (best[n] / len(curation.accepted) * 1000 for n in (None, num_proc))
        print(f"check of {len(curation.accepted)} photos against 6: one process {one:.2f} ms/photo, {num_proc} "
              f"processes {many:.2f} ms/photo ({many / one:.2f}x the time); same verdicts: "
              f"{verdicts[None] == verdicts[num_proc]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=300)
    ap.add_argument("--guard", action="store_true", help="the cost of exclude= (see the module doc)")
    ap.add_argument("--num-proc", type=int, default=None,
                    help="with --guard: only the check of 300 photos in one process and in this many")
    ap.add_argument("--configs", nargs="+", default=[*STREAM_CONFIGS, "order_restoration_3x3", "order_generation_3x3"],
                    help="default: every stream config of the paper, and the 3x3 order configs")
    args = ap.parse_args()
    if args.guard and args.num_proc:
        return guard_workers(300, args.num_proc)
    if args.guard:
        return guard(args.configs)
    paths = [s.path for s in curate().accepted]
    print(f"{len(paths)} embedded photos; {args.items} items per measurement")
    print(f"{'config':32s} {'floor':>8s} {'stream 1st pass':>16s} {'cached':>8s} {'cached/floor':>13s}")
    for config in args.configs:
        grid = tuple(get(config).grid)
        floor = floor_rate(paths, grid, min(args.items, 120))
        first, cached = stream_rate(config, args.items, 40)
        print(f"{config:32s} {floor:8.1f} {first:16.1f} {cached:8.1f} {cached / floor:12.0%}")


if __name__ == "__main__":
    main()
