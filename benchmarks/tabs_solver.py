"""The weight-free solver on interlocking pieces against the straight cut (#34): accuracy per task and cut.

Builds each config's test split from the embedded photos (seed 0) as straight pieces, as ``_tabs`` pieces, as
``_tabs_silhouette`` controls (and Missing Piece Selection's ``_tabs_own``), runs ``--model solver`` on every item
and prints accuracy with its exact 95% interval (Clopper-Pearson) and n. The hard config's distractors are mined
with a random-init ``ViT-S-32`` (no weights can be downloaded here), as in tests/test_golden.py.

    python benchmarks/tabs_solver.py [--configs ...] [--cache DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import jigsaw_puzzles as jp
from jigsaw_puzzles.baselines import solve
from jigsaw_puzzles.scoring.score import clopper_pearson

DEFAULT = ["missing_piece_selection_easy", "missing_piece_selection_hard", "piece_localization_easy",
           "piece_localization_hard", "connection_verification", "anomaly_detection", "order_restoration",
           "order_generation", "order_generation_3x3", "order_restoration_3x3", "connection_verification_3x3"]


def cuts(config: str) -> list[str]:
    out = [config, config + "_tabs", config + "_tabs_silhouette"]
    return out + [config + "_tabs_own"] if config.startswith("missing_piece_selection") else out


def accuracy(config: str, cache: str) -> tuple[int, int, float]:
    clip = {"clip_model": "ViT-S-32", "clip_pretrained": None, "clip_cache_dir": cache} \
        if config.startswith("missing_piece_selection_hard") else {}
    ds = jp.load_dataset(config, cache_dir=cache, **clip)
    start = time.perf_counter()
    right = sum(solve(row, config).text == row["answer"] for row in ds)
    return right, len(ds), (time.perf_counter() - start) / max(1, len(ds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--configs", nargs="+", default=DEFAULT)
    parser.add_argument("--cache", default=None, help="a datasets cache to reuse (default: a fresh one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as fresh:
        cache = args.cache or fresh
        print(f"{'config':50s} {'right':>6s} {'n':>4s} {'accuracy':>9s} {'95% CI':>15s} {'s/item':>7s}")
        for config in args.configs:
            for name in cuts(config):
                if not jp.spec.is_config(name):
                    continue
                right, n, seconds = accuracy(name, cache)
                lo, hi = clopper_pearson(right, n)
                print(f"{name:50s} {right:6d} {n:4d} {100 * right / max(1, n):8.1f}% "
                      f"{100 * lo:6.1f}-{100 * hi:5.1f}% {seconds:7.3f}", flush=True)


if __name__ == "__main__":
    main()
