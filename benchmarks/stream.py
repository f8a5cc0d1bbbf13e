"""Throughput of the training stream (``jp.training_stream``): items/s per config against the floor.

Measured in one process, on the embedded photos, in the same run:
  * floor  - what any stream must do per item: decode the source file and normalise it (as
             ``sources.read_source`` does, but without its per-process cache of normalised photos, which would make
             the floor a cache lookup), then cut it into its grid (``geometry.split``); no PNG encoding;
  * stream - ``training_stream("embedded", mixture={config: 1})`` items, first pass (sources decoded from disk);
  * cached - the same stream after its first pass (normalised sources cached in memory, as in training).
Prints items/s and the stream's share of the floor.

``--guard``: the contamination guard's cost. The stream over the embedded photos is made, per config, five ways:
*none* without ``exclude=``; *first* with ``exclude=`` a folder of 6 other photos and an empty guard cache (every
training photo decoded and checked for copies of them: ``training.copies``); *new set* with another 6 photos (the
training photos' features read from the guard's disk cache, ``training.guard_cache``); *new process* with the first
6 again, the per-process verdicts cleared (as in another process: read from the disk cache); *again* the same in
the same process (a Gym environment's seeded reset, a second helper call). Printed: the making of the stream, ms
per training photo, and its first pass's items/s with the making included, against the floor.

*first* twice: in one thread, and in the threads a process checks photos in by default (``exclusion.THREADS``: the
cores, at most 8).

``--guard --num-proc N``: only the check of a folder of 300 synthetic photos, in one process (one thread, and its
default threads) and in N processes, without the guard's disk cache and with the photos' features on disk.

``--ranks W``: the ranks of one job started together (``RANK`` 0..W-1 of ``WORLD_SIZE`` W, one cache folder), each
curating a new folder of 300 synthetic photos (``--photos``) and checking it for copies of 6 others (what making
``training_stream(..., exclude=)`` does first; ``tests/fixtures/ranks.py``): with their ranks (each starts at its
share and reads what the others kept) and without (every process from the first photo, as before ranks shared), and
one process alone; seconds until every rank is done
(Python's start included), and per rank the photos it decided and the features it computed.

    python benchmarks/stream.py [--items 300] [--configs order_generation_3x3 ...] [--guard [--num-proc N]]
    python benchmarks/stream.py --ranks 2 [--photos 300]
"""
import argparse
import itertools
import time

from jigsaw_puzzles import geometry
from jigsaw_puzzles.generation.sources import DEFAULT_RULES, _normalised, read_bytes
from jigsaw_puzzles.generation.curation import curate
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
    import os
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from fixtures.photos import write_photos

    from jigsaw_puzzles.generation import cachefiles
    from jigsaw_puzzles.training import exclusion

    paths = [s.path for s in curate().accepted]
    with tempfile.TemporaryDirectory() as tmp:
        first_set, second_set = Path(tmp) / "evaluation", Path(tmp) / "another"
        write_photos(first_set, 6, start=900)
        write_photos(second_set, 6, start=910)
        runs = ("none", "first 1 thread", "first", "new set", "new process", "again")
        print(f"{'config':32s} {'floor/s':>8s} " + " ".join(f"{'made ' + r:>20s}" for r in runs) + " "
              + " ".join(f"{r + '/floor':>20s}" for r in runs) + f"   (threads: {exclusion.threads_here()})")
        for n, config in enumerate(configs):
            floor = floor_rate(paths, tuple(get(config).grid), 120)
            made, rates = [], []
            for run, exclude in zip(runs, (None, first_set, first_set, second_set, first_set, first_set)):
                # empty caches for this config's two first checks (one thread; the default threads)
                os.environ[cachefiles.ENV] = str(Path(tmp) / f"cache{n}" / ("one" if run == "first 1 thread" else "all"))
                exclusion.THREADS = 1 if run == "first 1 thread" else None
                if run in ("none", "first", "new set", "new process"):
                    exclusion._CHECKED.clear()  # as in a new process: verdicts known only from the disk
                t = time.perf_counter()
                it = iter(training_stream("embedded", mixture={config: 1}, seed=0, exclude=exclude))
                made.append((time.perf_counter() - t) / len(paths) * 1000)
                n_items = sum(1 for _ in itertools.islice(it, len(paths)))
                rates.append(n_items / (time.perf_counter() - t))
            print(f"{config:32s} {floor:8.1f} " + " ".join(f"{m:20.1f}" for m in made) + " "
                  + " ".join(f"{r / floor:20.0%}" for r in rates), flush=True)
        exclusion.THREADS = None


def guard_workers(photos: int, num_proc: int, repeat: int = 3) -> None:
    """The check of a folder of ``photos`` synthetic training photos against 6 evaluation photos, in one process and
    in ``num_proc`` (``training_stream(num_proc=...)``): ms per photo (best of ``repeat``), the same verdicts; first
    without the guard's disk cache (every photo decoded and its features computed), then with the training photos'
    features on disk (as for a new evaluation set on a folder checked before; the verdicts on disk removed)."""
    import os
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from fixtures.photos import write_photos

    from jigsaw_puzzles.generation import cachefiles
    from jigsaw_puzzles.training import exclusion

    with tempfile.TemporaryDirectory() as train, tempfile.TemporaryDirectory() as tmp:
        write_photos(Path(train), photos, start=3000)
        write_photos(Path(tmp) / "evaluation", 6, start=900)
        curation = curate(train)
        evaluation = exclusion.evaluation_photos(Path(tmp) / "evaluation", "")
        cache = Path(tmp) / "cache"
        for mode, setting in (("no cache", "off"), ("features on disk", str(cache))):
            os.environ[cachefiles.ENV] = setting
            if setting != "off":  # the features computed once
                exclusion.copies_among(curation.accepted, curation, evaluation, None)
            best, verdicts = {}, {}
            ways = {"one thread": (None, 1), f"{exclusion.threads_here()} threads": (None, None),
                    f"{num_proc} processes": (num_proc, None)}
            for way in list(ways) * repeat:
                n, exclusion.THREADS = ways[way]
                exclusion._CHECKED.clear()
                for kept in cache.glob("guard/verdicts-*/*.json"):
                    kept.unlink()
                t = time.perf_counter()
                verdicts[way] = exclusion.copies_among(curation.accepted, curation, evaluation, n)
                best[way] = min(best.get(way, 1e9), time.perf_counter() - t)
            exclusion.THREADS = None
            ms = {way: best[way] / len(curation.accepted) * 1000 for way in ways}
            one = ms["one thread"]
            print(f"check of {len(curation.accepted)} photos against 6, {mode}: " + ", ".join(
                f"{way} {v:.2f} ms/photo ({v / one:.2f}x)" for way, v in ms.items()) + "; same verdicts: "
                f"{all(v == verdicts['one thread'] for v in verdicts.values())}", flush=True)




def ranks(world: int, photos: int = 300) -> None:
    """See the module doc (``--ranks``)."""
    import json
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from fixtures.photos import write_photos
    from fixtures.ranks import RANK_SCRIPT

    from jigsaw_puzzles.generation import cachefiles

    with tempfile.TemporaryDirectory() as tmp:
        folder, evaluation = Path(tmp) / "photos", Path(tmp) / "evaluation"
        write_photos(folder, photos, start=6000)
        write_photos(evaluation, 6, start=900)
        print(f"{photos} new photos, 6 evaluation photos, {os.cpu_count()} cores; each process in its default threads")
        results = set()
        for mode in ("ranks", "no ranks", "one process"):
            env = {**os.environ, cachefiles.ENV: str(Path(tmp) / f"cache-{mode}"), "PYTHONWARNINGS": "ignore"}
            for name in ("RANK", "WORLD_SIZE"):
                env.pop(name, None)
            n = 1 if mode == "one process" else world
            t = time.perf_counter()
            procs = [subprocess.Popen([sys.executable, "-c", RANK_SCRIPT, str(folder), str(evaluation)], text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      env={**env, **({"RANK": str(r), "WORLD_SIZE": str(world)}
                                                     if mode == "ranks" else {})}) for r in range(n)]
            outs = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
            wall = time.perf_counter() - t
            print(f"{mode:12s} {n} process(es): all done in {wall:6.1f} s; per process: "
                  + ", ".join(f"{o['s']:.1f} s, {o['decided']} decided, {o['features']} features"
                              for o in outs), flush=True)
            results |= {(tuple(o["accepted"]), tuple(o["copies"])) for o in outs}
        print(f"the same accepted photos and copies in every process: {len(results) == 1}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=300)
    ap.add_argument("--guard", action="store_true", help="the cost of exclude= (see the module doc)")
    ap.add_argument("--num-proc", type=int, default=None,
                    help="with --guard: only the check of 300 photos in one process and in this many")
    ap.add_argument("--configs", nargs="+", default=[*STREAM_CONFIGS, "order_restoration_3x3", "order_generation_3x3"],
                    help="default: every stream config of the paper, and the 3x3 order configs")
    ap.add_argument("--photos", type=int, default=300, help="with --ranks: the new folder's photos")
    ap.add_argument("--ranks", type=int, default=None,
                    help="ranks of one job started together making a stream of a new folder (see the module doc)")
    args = ap.parse_args()
    if args.ranks:
        return ranks(args.ranks, args.photos)
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
