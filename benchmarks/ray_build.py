"""A build on local Ray against one process and ``--num-proc 2`` on the same folder, in one run (#47 section 3).

The folder: ``--photos`` distinct synthetic photos (``tests/fixtures/photos.py``), made once under ``--cache``. Every
build is cold (no curation or guard cache, a fresh ``datasets`` cache) and writes the whole export of
``--configs`` (``order_restoration`` and ``anomaly_detection``: a plain cut and a slot cycle):

  one process      ``build(..., num_proc=None)``
  --num-proc 2     ``build(..., num_proc=2)``: this machine's worker processes
  ray, cold        ``build(..., engine="ray", num_proc=2)`` on a Ray just started with 2 CPUs (its workers start
                   and import the package during the build; Ray's own start is timed apart)
  ray, warm        the same build again on that Ray (its worker processes kept)
  ray, 1 row/block the warm build with ``rows_per_block=1``: one Ray job per item

Then, from these: Ray's overhead per photo (warm Ray against ``--num-proc 2``, both on the same 2 cores), its
overhead per block (the 1-row-per-block build against the warm one, per extra block) and per stage (an empty Ray
Data stage: ``RayEngine.map`` of a trivial function on 2 and on 400 jobs), the driver's phases of the warm build
(plan: curation, checks, probes and answer plan; cut; write), the bytes each item sends the driver, and whether
every export is the same bytes (every file compared). Last, the driver's whole-folder decisions alone on synthetic
inputs as the folder grows (``--plan-sizes``): the duplicate rule on photo-shaped fingerprints
(``benchmarks/neardup.py``'s) and the Lite subset and answer plan of one config (``lite_ids``, ``plan_slots``,
4 letters), the part of a Ray build no node count shortens.

    python benchmarks/ray_build.py [--photos 96] [--configs ...] [--plan-sizes 1000 10000 100000 1000000]
                                   [--cache DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import logging
import operator
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the photo synthesizer of the tests
sys.path.insert(0, str(HERE))  # benchmarks/neardup.py's synthetic fingerprints
os.environ["JIGSAW_PUZZLES_CACHE"] = "off"  # every build cold (Ray's workers inherit it)


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _cold() -> None:
    from jigsaw_puzzles.generation.curation import _curate_cached
    from jigsaw_puzzles.generation.sources import load_normalised

    _curate_cached.cache_clear()
    load_normalised.cache_clear()


class CPU:
    """CPU seconds (user + system) of this process and every process it started, the ones that ended included:
    worker pools, and Ray's own processes and workers (a Ray started here is this process's child; a worker that
    ended is in its parent's children times). Robust to a shared machine's load, which wall-clock times are not."""

    def __init__(self):
        import psutil

        self.me = psutil.Process()

    def snapshot(self) -> dict:
        import resource

        own = resource.getrusage(resource.RUSAGE_SELF)
        ended = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = {0: (own.ru_utime + own.ru_stime, ended.ru_utime + ended.ru_stime)}
        for proc in self.me.children(recursive=True):
            try:
                t = proc.cpu_times()
                out[proc.pid] = (t.user + t.system, t.children_user + t.children_system)
            except Exception:  # ended meanwhile: its parent's children times hold it
                pass
        return out

    @staticmethod
    def spent(before: dict, after: dict) -> float:
        total = 0.0
        for pid, (own, ended) in after.items():
            was = before.get(pid, (0.0, 0.0))
            total += own - was[0] + ended - was[1]
        for pid, (own, ended) in before.items():  # ended since: counted again in its parent's children times
            if pid not in after:
                total -= own + ended
        return total


def timed_build(out: Path, folder: Path, configs: list[str], cpu: CPU, **kwargs) -> tuple[float, float]:
    """``(wall seconds, CPU seconds)`` of one cold build into ``out``."""
    from jigsaw_puzzles import build

    _cold()
    cache = out.parent / f"{out.name}-cache"
    for old in (out, cache):  # a fresh datasets cache: a one-process build would reload the last one's
        shutil.rmtree(old, ignore_errors=True)
    before, start = cpu.snapshot(), time.perf_counter()
    build(out, source=str(folder), seed=0, configs=configs, cache_dir=str(cache), **kwargs)
    return time.perf_counter() - start, CPU.spent(before, cpu.snapshot())


class Phases:
    """Seconds the driver spends in each step of a Ray build (the module's functions wrapped while it runs)."""

    NAMES = {"_plan": "plan", "_cut": "cut", "_write": "write"}

    def __init__(self):
        from jigsaw_puzzles.publishing import ray_build

        self.module, self.seconds, self.real = ray_build, dict.fromkeys(self.NAMES.values(), 0.0), {}
        self.cpu = dict.fromkeys(self.NAMES.values(), 0.0)  # the driver's own CPU seconds in each
        self.block_bytes = 0
        self.kept = {"curation": 0, "plan": 0}  # bytes of the decisions the driver keeps to resume

    def __enter__(self):
        for name, label in self.NAMES.items():
            real = self.real[name] = getattr(self.module, name)

            def timed(*args, _real=real, _label=label, **kwargs):
                start, cpu = time.perf_counter(), time.process_time()
                try:
                    return _real(*args, **kwargs)
                finally:
                    self.seconds[_label] += time.perf_counter() - start
                    self.cpu[_label] += time.process_time() - cpu
            setattr(self.module, name, timed)
        real_save = self.real["save_block"] = self.module.Work.save_block

        def save_block(work, key, k, data, _real=real_save):
            self.block_bytes += len(data)
            return _real(work, key, k, data)
        self.module.Work.save_block = save_block
        real_write = self.real["_write_file"] = self.module.Work._write

        def write_file(work, path, data, _real=real_write):
            kind = path.name.split("-")[0]
            if kind in self.kept:
                self.kept[kind] += len(data)
            return _real(work, path, data)
        self.module.Work._write = write_file
        return self

    def __exit__(self, *exc):
        for name, real in self.real.items():
            if name == "_write_file":
                self.module.Work._write = real
            else:
                setattr(self.module.Work if name == "save_block" else self.module, name, real)


def stage_costs(engine) -> tuple[float, float]:
    """``(seconds of an empty Ray Data stage, seconds per job)`` from ``engine.map`` on 2 and on 400 trivial jobs
    (best of 3 each)."""
    def run(jobs: int) -> float:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            list(engine.map(operator.neg, list(range(jobs))))
            best = min(best, time.perf_counter() - start)
        return best
    small, large = run(2), run(400)
    return small, (large - small) / 398


def plan_curve(sizes: list[int]) -> dict[int, tuple[float, float]]:
    """The driver's whole-folder decisions alone on synthetic inputs: ``{photos: (duplicate rule, one config's Lite
    subset and answer plan), ms per photo}``."""
    from neardup import synthetic

    from jigsaw_puzzles.generation import neardup
    from jigsaw_puzzles.generation.plan import lite_ids, plan_slots
    from jigsaw_puzzles.generation.sources import CurationRecord, Source

    out = {}
    print("\nthe driver's whole-folder decisions alone (synthetic inputs; one config's plan, 4 letters; CPU time):")
    print("| photos | duplicate rule s | Lite + answer plan s | ms per photo | x the first |")
    print("|---:|---:|---:|---:|---:|")
    first = None
    for n in sizes:
        fps = synthetic(n)
        candidates = [(Source(f"{k:016x}", "", f"p{k}.jpg", 0, 0), fps[k],
                       CurationRecord(f"p{k}.jpg", "rejected", source_id=f"{k:016x}")) for k in range(n)]
        start = time.process_time()
        kept = neardup.keep_originals(candidates, frozenset(), neardup.DEFAULT_BITS)
        dup = time.process_time() - start
        ids = sorted(s.source_id for s in kept)
        start = time.process_time()
        lite = lite_ids(ids, 0)
        plan_slots(ids, lite, 0, "order_restoration", 4)
        plan = time.process_time() - start
        per = (dup + plan) / n * 1000
        first = first or per
        print(f"| {n:,} | {dup:.2f} | {plan:.2f} | {per:.3f} | {per / first:.2f} |", flush=True)
        out[n] = (dup / n * 1000, plan / n * 1000)
        del fps, candidates, kept, ids, lite
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--photos", type=int, default=96)
    p.add_argument("--configs", nargs="+", default=["order_restoration", "anomaly_detection"])
    p.add_argument("--plan-sizes", nargs="*", type=int, default=[1000, 10000, 100000, 1000000])
    p.add_argument("--cache", default=None, help="where the photos and the exports go (default: a temporary folder)")
    p.add_argument("--repeat", type=int, default=1, help="each build this many times, alternated; the best kept")
    args = p.parse_args(argv)
    import datasets
    import ray

    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()  # the builder's "N of M files accepted" lines

    from fixtures.photos import write_photos
    from jigsaw_puzzles.generation.cluster import RayEngine

    root = Path(args.cache or tempfile.mkdtemp(prefix="ray_build_bench_"))
    folder, half = root / f"photos-{args.photos}", root / f"photos-{args.photos}-half"
    if not folder.is_dir() or len(list(folder.iterdir())) != args.photos:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(half, ignore_errors=True)
        write_photos(folder, args.photos)
    if not half.is_dir():  # the first half of the photos: what a build costs per item, fixed costs taken out
        half.mkdir()
        for path in sorted(folder.iterdir())[:args.photos // 2]:
            os.link(path, half / path.name)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"ray {ray.__version__}; {args.photos} photos, configs {' '.join(args.configs)}, best of {args.repeat}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    cpu = CPU()
    seconds: dict[str, float] = {}
    cpus: dict[str, float] = {}
    phases: dict[str, Phases] = {}

    def best(name: str, out: str, source: Path = folder, **kwargs) -> None:
        with Phases() as measured:
            wall, spent = timed_build(root / out, source, args.configs, cpu, **kwargs)
        if spent < cpus.get(name, float("inf")):
            cpus[name], phases[name] = spent, measured
        seconds[name] = min(seconds.get(name, float("inf")), wall)

    for _ in range(args.repeat):
        best("one process", "one")
        best("--num-proc 2", "proc2", num_proc=2)
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    ray_start = time.perf_counter() - start
    try:
        best("ray, cold", "ray-cold", engine="ray", num_proc=2)
        for _ in range(args.repeat):
            best("ray, warm", "ray", engine="ray", num_proc=2)
            best("ray, 1 row/block", "ray-1", engine="ray", num_proc=2, ray_options={"rows_per_block": 1})
            best("ray, warm, half the photos", "ray-half", half, engine="ray", num_proc=2)
        with RayEngine() as engine:
            before = cpu.snapshot()
            stage, per_job = stage_costs(engine)
            stage_cpu = CPU.spent(before, cpu.snapshot()) / (3 * (2 + 400))  # CPU per job, in the 6 stages run
    finally:
        ray.shutdown()
    items = sum(pq_rows(root / "one", c) for c in args.configs)
    items_half = sum(pq_rows(root / "ray-half", c) for c in args.configs)
    reference = _tree(root / "one")
    same = {name: _tree(root / out) == reference for name, out in (
        ("--num-proc 2", "proc2"), ("ray, cold", "ray-cold"), ("ray, warm", "ray"), ("ray, 1 row/block", "ray-1"))}
    blocks_default = sum(-(-pq_rows(root / "one", c) // 64) for c in args.configs)
    print(f"\nRay started in {ray_start:.2f} s (not in the builds below); {items} items (test split) in all, "
          f"{items_half} from half the photos\n")
    print("| build | wall s | x one process | CPU s | CPU ms per photo | x one process | same bytes as one process |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, s in seconds.items():
        photos = args.photos // 2 if "half" in name else args.photos
        print(f"| {name} | {s:.2f} | {s / seconds['one process']:.2f} | {cpus[name]:.2f} | "
              f"{cpus[name] / photos * 1000:.1f} | {cpus[name] / cpus['one process']:.2f} | "
              f"{same.get(name, 'reference' if name == 'one process' else '-')} |")
    warm, proc2 = cpus["ray, warm"], cpus["--num-proc 2"]
    per_block = (cpus["ray, 1 row/block"] - warm) / (items - blocks_default)
    print(f"\nRay's overhead per photo (CPU: warm Ray against --num-proc 2, both 2 workers): "
          f"{(warm - proc2) / args.photos * 1000:+.1f} ms ({warm / proc2:.2f}x)")
    print(f"Ray's overhead per block (CPU: 1 row/block against 64, {items - blocks_default} more blocks): "
          f"{per_block * 1000:.1f} ms")
    print(f"an empty Ray Data stage: {stage:.3f} s wall; per job in a stage: {per_job * 1000:.2f} ms wall, "
          f"{stage_cpu * 1000:.2f} ms CPU")
    full, part = phases["ray, warm"], phases["ray, warm, half the photos"]
    print("the warm build's driver phases: " + ", ".join(f"{k} {v:.2f} s ({full.cpu[k]:.2f} s CPU)"
                                                      for k, v in full.seconds.items())
          + f"; {full.block_bytes / items / 1024:.0f} KiB per item sent to the driver; kept to resume: curation "
          f"{full.kept['curation'] / args.photos:.0f} B per photo, plans {full.kept['plan'] / args.photos:.0f} B "
          f"per photo ({len(args.configs)} configs)")
    print(f"load average after the builds: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    driver = {"full": sum(full.cpu.values()), "half": sum(part.cpu.values())}
    extra = items - items_half
    costs = {"stage": stage, "per_block": per_block, "ray_start": ray_start, "bytes_per_item": full.block_bytes / items,
             # per item more, all but the driver (workers, Ray's processes): curation, checks, probes and the cut
             # (curation, once a photo, spread over the configs: an upper bound for more configs)
             "worker_s_per_item": ((warm - driver["full"]) - (cpus["ray, warm, half the photos"] - driver["half"]))
             / extra,
             # per item more, the driver: the plan's share, receiving and keeping blocks, writing the files
             "driver_s_per_item": (driver["full"] - driver["half"]) / extra,
             # what the build costs the driver whatever its size (a warm Ray: its workers' start aside)
             "fixed": driver["half"] - items_half * (driver["full"] - driver["half"]) / extra}
    print("marginal costs, CPU: workers {:.1f} ms per item, the driver {:.2f} ms per item ({}); the driver's fixed "
          "cost {:.2f} s".format(costs["worker_s_per_item"] * 1000, costs["driver_s_per_item"] * 1000, ", ".join(
              f"{k} {(full.cpu[k] - part.cpu[k]) / extra * 1000:.2f}" for k in full.cpu), costs["fixed"]))
    curve = plan_curve(args.plan_sizes) if args.plan_sizes else {}
    cost_model(costs, curve)


#: what the model assumes about a cluster (none of it measured here): cores per node, the driver's network and disk
NODE_CORES = 16
NETWORK = 1.25e9  # bytes/s into the driver (10 GbE)
DISK = 0.5e9  # bytes/s the driver's disk writes the blocks as they come (the parquet's writing: measured here)
CONFIGS = 7  # the paper's configs but the CLIP-mined one (its search: see docs/performance.md)


def cost_model(c: dict, curve: dict) -> None:
    """Hours for N photos on n nodes from the costs measured above (see docs/performance.md#a-cost-model)."""
    import numpy as np

    sizes = np.array(sorted(curve), dtype=float)

    def per_photo(n: int, part: int) -> float:  # ms per photo on the measured curve (log-log, extended by its last slope)
        if not len(sizes):
            return 0.0
        y = np.log(np.maximum([curve[int(k)][part] for k in sizes], 1e-9))
        if len(sizes) < 2:
            return float(np.exp(y[0]))
        x = np.log(sizes)
        if n <= sizes[-1]:
            return float(np.exp(np.interp(np.log(n), x, y)))
        slope = (y[-1] - y[-2]) / (x[-1] - x[-2])
        return float(np.exp(y[-1] + slope * (np.log(n) - x[-1])))

    print(f"\na cost model ({CONFIGS} configs, {NODE_CORES} cores a node, the driver's network {NETWORK / 1e9:.2f} GB/s "
          f"and disk {DISK / 1e9:.1f} GB/s assumed; every other cost measured above, as CPU time), hours:")
    print("| photos | driver: decisions | driver: receive + write | the build, 1 node | 4 nodes | 16 nodes | 64 nodes |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (1_000, 10_000, 100_000, 1_000_000):
        items = n * CONFIGS
        decisions = n * (per_photo(n, 0) + CONFIGS * per_photo(n, 1)) / 1000  # the dup rule once, a plan per config
        # each item's bytes come over the network and are kept on disk, and the driver's CPU per item as measured
        # (receiving and keeping blocks; the blocks read back into the parquet files, the report, the card)
        receive = items * (c["bytes_per_item"] / NETWORK + c["bytes_per_item"] / DISK + c["driver_s_per_item"])
        work = items * c["worker_s_per_item"] + items / 64 * c["per_block"]
        stages = (1 + 2 * CONFIGS) * c["stage"] + c["ray_start"] + c["fixed"]
        cells = [(stages + decisions + receive + work / (nodes * NODE_CORES)) / 3600 for nodes in (1, 4, 16, 64)]
        print(f"| {n:,} | {decisions / 3600:.3f} | {receive / 3600:.3f} | " + " | ".join(f"{h:.2f}" for h in cells) + " |")


def pq_rows(export: Path, config: str) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(export / config / "test-00000-of-00001.parquet").metadata.num_rows


if __name__ == "__main__":
    main()
