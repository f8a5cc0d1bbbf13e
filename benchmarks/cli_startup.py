"""How long the command line takes to answer before it does any work: `--help`, a mistyped command, and `verify`
given a folder that is not there, each in a fresh process, against the floor of starting Python itself
(`python -c pass`) measured in the same run.

    python benchmarks/cli_startup.py [--runs 10]
    PYTHONPATH=/path/to/other/checkout/src python benchmarks/cli_startup.py   # another version of the package

Each command runs ``--runs`` times (after one untimed run that compiles the bytecode, as an install has it); the
median wall-clock and CPU (user + system of the child) seconds are printed, with the ratio to the floor and the
load average around the runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

CASES = {
    "python -c pass (floor)": ["-c", "pass"],
    "jigsaw-puzzles --help": ["-m", "jigsaw_puzzles.cli", "--help"],
    "jigsaw-puzzles evl (a typo)": ["-m", "jigsaw_puzzles.cli", "evl"],
    "jigsaw-puzzles verify /nonexistent": ["-m", "jigsaw_puzzles.cli", "verify", "/nonexistent/export"],
    "python -c 'import datasets' (reference)": ["-c", "import datasets"],
}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def once(args: list[str]) -> tuple[float, float]:
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    import jigsaw_puzzles

    print(f"jigsaw_puzzles from {os.path.dirname(jigsaw_puzzles.__file__)}; {platform.processor() or platform.machine()}"
          f", {os.cpu_count()} cores, Python {platform.python_version()}; load {os.getloadavg()[0]:.2f}")
    rows = {}
    for name, argv in CASES.items():
        once(argv)  # bytecode compiled, files in the page cache
        runs = [once(argv) for _ in range(args.runs)]
        rows[name] = (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
    floor = rows["python -c pass (floor)"]
    print(f"{'command':42s} {'wall s':>8s} {'CPU s':>8s} {'x floor':>8s}")
    for name, (wall, cpu) in rows.items():
        print(f"{name:42s} {wall:8.3f} {cpu:8.3f} {wall / floor[0]:8.1f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}; median of {args.runs} runs each")


if __name__ == "__main__":
    main()
