"""The README's main job from an empty cache, against the floor of cutting and encoding the items it answers.

    python benchmarks/main_job.py [--runs 2]

Floor: for every config the main job builds, the Lite items cut and PNG-encoded in this process, exactly as the
builder's generator does (source decode, normalise, cut, encode), with the answer plan computed beforehand and
not timed. Main job: `jigsaw-puzzles eval --model solver --split lite` in a fresh process with an empty
`datasets` cache (curation of every source, the plan, the Lite build, the solver, scoring, the report), as a new
user runs it, with the package's bytecode compiled first (as an install has it). Both are measured in this one run;
the ratio is what docs/performance.md records.

Each is timed by the wall clock (the figure recorded) and by the CPU time it used (the floor's in this process, the
main job's in its child process, user + system): on a machine shared with other jobs the wall-clock ratio grows
with the load, the CPU ratio much less, so the benchmark prints both and the load average around the runs.
"""

from __future__ import annotations

import argparse
import compileall
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import jigsaw_puzzles as jp
from jigsaw_puzzles.generation.sources import load_normalised
from jigsaw_puzzles.generation.curation import _curate_cached

CONFIGS = [c for c in jp.CONFIGS if c != "missing_piece_selection_hard"]  # the main job skips it without weights


def floor_seconds(cache: str) -> tuple[float, float, int]:
    """Wall-clock and CPU seconds of cutting and encoding the main job's Lite items, and their number."""
    items, seconds, cpu = 0, 0.0, 0.0
    for config in CONFIGS:
        builder = jp.make_builder(config, None, 0, cache, splits=("lite",))
        lite = [g for g in builder._split_generators(None) if g.name == "lite"][0]  # the plan: not timed
        load_normalised.cache_clear()  # decoding the sources is part of cutting them
        start, start_cpu = time.perf_counter(), time.process_time()
        items += sum(1 for _ in builder._generate_examples(**lite.gen_kwargs))
        seconds += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
    return seconds, cpu, items


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main_job_seconds(cache: str, out: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of the main job in a fresh process with an empty cache."""
    env = {**os.environ, "HF_DATASETS_CACHE": cache, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    start, start_cpu = time.perf_counter(), _children_cpu()
    subprocess.run([sys.executable, "-m", "jigsaw_puzzles.cli", "eval", "--model", "solver", "--split", "lite",
                    "--out", out], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, _children_cpu() - start_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2, help="repetitions (the best of each is reported)")
    args = parser.parse_args()
    # An installed package has its bytecode (pip compiles it); a checkout run with PYTHONDONTWRITEBYTECODE set would
    # compile about a hundred modules in every fresh process (~0.3 s): compiled once here, as an install has them.
    compileall.compile_dir(os.path.dirname(jp.__file__), quiet=1)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, jigsaw-puzzles {jp.__version__}")
    floors, jobs, items, loads = [], [], 0, [os.getloadavg()[0]]
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            _curate_cached.cache_clear()
            *floor, items = floor_seconds(os.path.join(tmp, "floor"))
            floors.append(floor)
            jobs.append(main_job_seconds(os.path.join(tmp, "cache"), os.path.join(tmp, "run")))
            loads.append(os.getloadavg()[0])
    floor, job = min(f[0] for f in floors), min(j[0] for j in jobs)
    floor_cpu, job_cpu = min(f[1] for f in floors), min(j[1] for j in jobs)
    print(f"load average (1 min) before and after each run: {', '.join(f'{x:.1f}' for x in loads)}")
    print(f"floor: cut + encode {items} Lite items of {len(CONFIGS)} configs: {floor:.2f} s ({floor_cpu:.2f} s CPU)")
    print(f"main job from an empty cache (eval --model solver --split lite): {job:.2f} s ({job_cpu:.2f} s CPU)")
    print(f"ratio main job / floor, best of {args.runs}: {job / floor:.2f}x wall clock, {job_cpu / floor_cpu:.2f}x CPU")


if __name__ == "__main__":
    main()
