"""The README's main job from an empty cache, against the floor of cutting and encoding the items it answers.

    python benchmarks/main_job.py [--runs 2]

Floor: for every config the main job builds, the Lite items cut and PNG-encoded in this process, exactly as the
builder's generator does (source decode, normalise, cut, encode), with the answer plan computed beforehand and
not timed. Main job: `jigsaw-puzzles eval --model solver --split lite` in a fresh process with an empty
`datasets` cache (curation, the plan over every source, the Lite build, the solver, scoring, the report), as a
new user runs it. Both are measured in this one run; the ratio is what docs/performance.md records.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import jigsaw_puzzles as jp
from jigsaw_puzzles.generation.sources import _curate_cached, load_normalised

CONFIGS = [c for c in jp.CONFIGS if c != "missing_piece_selection_hard"]  # the main job skips it without weights


def floor_seconds(cache: str) -> tuple[float, int]:
    items, seconds = 0, 0.0
    for config in CONFIGS:
        builder = jp.make_builder(config, None, 0, cache, splits=("lite",))
        lite = [g for g in builder._split_generators(None) if g.name == "lite"][0]  # the plan: not timed
        load_normalised.cache_clear()  # decoding the sources is part of cutting them
        start = time.perf_counter()
        items += sum(1 for _ in builder._generate_examples(**lite.gen_kwargs))
        seconds += time.perf_counter() - start
    return seconds, items


def main_job_seconds(cache: str, out: str) -> float:
    env = {**os.environ, "HF_DATASETS_CACHE": cache, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "jigsaw_puzzles.cli", "eval", "--model", "solver", "--split", "lite",
                    "--out", out], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2, help="repetitions (the best of each is reported)")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, jigsaw-puzzles {jp.__version__}")
    floors, jobs, items = [], [], 0
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            _curate_cached.cache_clear()
            seconds, items = floor_seconds(os.path.join(tmp, "floor"))
            floors.append(seconds)
            jobs.append(main_job_seconds(os.path.join(tmp, "cache"), os.path.join(tmp, "run")))
    floor, job = min(floors), min(jobs)
    print(f"floor: cut + encode {items} Lite items of {len(CONFIGS)} configs: {floor:.2f} s")
    print(f"main job from an empty cache (eval --model solver --split lite): {job:.2f} s")
    print(f"ratio main job / floor: {job / floor:.1f}x")


if __name__ == "__main__":
    main()
