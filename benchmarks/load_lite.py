"""`jp.load_dataset(config, split="lite")` against a full build (`split=None`), each from an empty cache.

    python benchmarks/load_lite.py [--configs order_restoration order_generation_3x3_rot]

Each call runs in a fresh process (no in-process caches) on the embedded photos, seed 0; the Lite call builds
only the Lite items (#28.4), the full call both splits. docs/performance.md records the figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

CALL = "import jigsaw_puzzles as jp; jp.load_dataset({config!r}, split={split!r}, cache_dir={cache!r})"


def seconds(config: str, split: str | None, cache: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", CALL.format(config=config, split=split, cache=cache)], check=True,
                   env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--configs", nargs="+", default=["order_restoration", "order_generation_3x3_rot"])
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}")
    for config in args.configs:
        with tempfile.TemporaryDirectory() as tmp:
            lite = seconds(config, "lite", os.path.join(tmp, "lite"))
            full = seconds(config, None, os.path.join(tmp, "full"))
        print(f"{config}: split='lite' {lite:.1f} s, split=None (test + lite) {full:.1f} s")


if __name__ == "__main__":
    main()
