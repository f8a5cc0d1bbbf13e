"""Build speed: items/s per config, ratio to a decode+encode floor, cached reload.

The floor does only what no generator can avoid: decode each item's source image
and encode the same number of output pixels as PNG (crops of the same sizes, same PNG settings).
Our time includes curation, the task checks, item generation and Arrow writing.

    python benchmarks/build.py [--source DIR] [--configs ...] [--num-proc N] [--tabs]
    python benchmarks/build.py --parallel N --source DIR [--configs order_generation] [--repeat 3]

``--parallel N``: the whole export (``jigsaw-puzzles build``, ``publishing.export.build``) with one process and with
N, alternated ``--repeat`` times in one run (best of each, cold caches), the ratio of the two, the load average
around each, and whether the two exports are byte-identical (every parquet file compared).

``--tabs``: each config is followed by its interlocking-piece configs (``<config>_tabs``, ``_tabs_silhouette``),
built in the same run, and the table gains their cost against the straight cut's (``vs straight``, #34: at most
2x).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import platform
import tempfile
import time
from pathlib import Path

from PIL import Image

import jigsaw_puzzles as jp
from jigsaw_puzzles.generation import cachefiles
from jigsaw_puzzles.generation.curation import _curate_cached, curate
from jigsaw_puzzles.geometry import encode_png
from jigsaw_puzzles.generation.sources import list_files, load_normalised, resolve_folder

os.environ[cachefiles.ENV] = "off"  # every build cold, as on a folder never curated (worker processes inherit it)


def floor_seconds(dataset, paths: dict[str, str]) -> float:
    sizes = [(row["source_id"], [im.size for im in row["images"]]) for row in dataset]
    start = time.perf_counter()
    for source_id, image_sizes in sizes:
        with Image.open(paths[source_id]) as im:
            source = im.convert("RGB")
        for w, h in image_sizes:
            encode_png(source.crop((0, 0, w, h)))  # same pixel count, no resampling cost
    return time.perf_counter() - start


def parallel(source: str | None, configs: list[str], num_proc: int, repeat: int) -> None:
    """One process against ``num_proc``, alternated: best of ``repeat`` each, and the exports compared."""
    import datasets

    from jigsaw_puzzles.publishing.export import build

    datasets.disable_progress_bars()
    best: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(repeat):
            for n in (1, num_proc):
                _curate_cached.cache_clear()  # cold, as a fresh process
                load_normalised.cache_clear()
                out = Path(tmp, f"out-{n}")
                before = os.getloadavg()[0]
                start = time.perf_counter()
                build(out, source=source, configs=configs, num_proc=n, cache_dir=str(Path(tmp, f"cache-{n}-{k}")))
                seconds = time.perf_counter() - start
                best[n] = min(best.get(n, seconds), seconds)
                print(f"run {k + 1}: num_proc {n}: {seconds:.2f} s (load average {before:.1f} before, "
                      f"{os.getloadavg()[0]:.1f} after)", flush=True)
        files = sorted(p.relative_to(Path(tmp, "out-1")) for p in Path(tmp, "out-1").rglob("*.parquet"))
        same = all(filecmp.cmp(Path(tmp, "out-1", f), Path(tmp, f"out-{num_proc}", f), shallow=False) for f in files)
    print(f"best of {repeat}: one process {best[1]:.2f} s, {num_proc} processes {best[num_proc]:.2f} s: "
          f"{best[num_proc] / best[1]:.2f}x; parquet files byte-identical: {same} ({len(files)} files)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", default=None)
    parser.add_argument("--configs", nargs="+", default=[c for c in jp.CONFIGS if c != "missing_piece_selection_hard"])
    parser.add_argument("--with-hard", action="store_true",
                        help="also build missing_piece_selection_hard with a random-init ViT-B-32 (same speed "
                             "as the openai weights) and a cold embedding cache")
    parser.add_argument("--num-proc", type=int, default=None)
    parser.add_argument("--tabs", action="store_true", help="also build each config's _tabs and _tabs_silhouette "
                        "configs and report their build time over the straight config's")
    parser.add_argument("--parallel", type=int, default=None, metavar="N",
                        help="the whole export with one process and with N, alternated (see the module doc)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each for --parallel (best of)")
    args = parser.parse_args()
    if args.parallel:
        configs = args.configs if args.configs != parser.get_default("configs") else ["order_generation"]
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}; "
              f"sources: {len(list_files(resolve_folder(args.source)))} files; configs {', '.join(configs)}")
        return parallel(args.source, configs, args.parallel, args.repeat)
    if args.with_hard and "missing_piece_selection_hard" not in args.configs:
        args.configs.append("missing_piece_selection_hard")
    if args.tabs:
        args.configs = [c for config in args.configs for c in (config, config + "_tabs", config + "_tabs_silhouette")]
    folder = resolve_folder(args.source)
    paths = {s.source_id: s.path for s in curate(folder).accepted}
    print(f"machine: {platform.processor() or platform.machine()}, {platform.system()}, "
          f"python {platform.python_version()}; sources: {len(list_files(folder))} files in {folder}")
    print(f"{'config':30s} {'items':>6s} {'build s':>8s} {'items/s':>8s} {'floor s':>8s} {'ratio':>6s} "
          f"{'reload s':>8s} {'speedup':>8s}" + (f" {'vs straight':>11s}" if args.tabs else ""))
    totals, straight, cut_totals = [0.0, 0.0], {}, {"": 0.0, "_tabs": 0.0, "_tabs_silhouette": 0.0}
    for config in args.configs:
        with tempfile.TemporaryDirectory() as cache:
            _curate_cached.cache_clear()  # every config starts cold, as a fresh process would
            load_normalised.cache_clear()
            start = time.perf_counter()
            clip = ({"clip_model": "ViT-B-32", "clip_pretrained": None, "clip_cache_dir": cache}
                    if config.startswith("missing_piece_selection_hard") else {})
            builder = jp.make_builder(config, args.source, 0, cache, **clip)
            builder.download_and_prepare(num_proc=args.num_proc)
            built = time.perf_counter() - start
            test, lite = builder.as_dataset("test"), builder.as_dataset("lite")
            items = len(test) + len(lite)
            floor = floor_seconds(test, paths) + floor_seconds(lite, paths)
            start = time.perf_counter()
            reloaded = jp.make_builder(config, args.source, 0, cache, **clip)
            reloaded.download_and_prepare()
            reloaded.as_dataset("test")
            reload = time.perf_counter() - start
        totals[0] += built
        totals[1] += floor
        suffix = next((s for s in ("_tabs_silhouette", "_tabs") if config.endswith(s)), "")
        base = config[:len(config) - len(suffix)]
        straight.setdefault(base, built)
        cut_totals[suffix] += built
        versus = f" {built / straight[base]:10.2f}x" if args.tabs else ""
        print(f"{config:30s} {items:6d} {built:8.2f} {items / built:8.1f} {floor:8.2f} {built / floor:6.2f} "
              f"{reload:8.2f} {built / reload:7.0f}x{versus}")
    print(f"{'all':30s} {'':6s} {totals[0]:8.2f} {'':8s} {totals[1]:8.2f} {totals[0] / totals[1]:6.2f}")
    if args.tabs:
        for suffix in ("_tabs", "_tabs_silhouette"):
            print(f"all {suffix[1:]} configs over their straight configs: {cut_totals[suffix] / cut_totals['']:.2f}x")


if __name__ == "__main__":
    main()
