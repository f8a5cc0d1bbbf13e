"""The weight-free solver and the shape baseline on interlocking pieces against the straight cut (#34, #45).

Builds each config's test split from the embedded photos (seed 0) as straight pieces, as ``_tabs`` pieces (shape
and content), as ``_tabs_silhouette`` controls (shape only), as ``_tabs_content`` (content only: outlines that say
nothing of the answer), and Missing Piece Selection's ``_tabs_own``; runs ``--model solver`` (reads content and
outlines) and ``--model shape`` (alpha channels and mask geometry only) on every item and prints each one's
accuracy with its exact 95% interval (Clopper-Pearson), n, chance and the solver's seconds per item. The hard
config's distractors are mined with a random-init ``ViT-S-32`` (no weights can be downloaded here), as in
tests/test_golden.py.

    python benchmarks/tabs_solver.py [--configs ...] [--cache DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import jigsaw_puzzles as jp
from jigsaw_puzzles.baselines import shape_answer, solve
from jigsaw_puzzles.scoring.score import clopper_pearson

DEFAULT = ["missing_piece_selection_easy", "missing_piece_selection_hard", "piece_localization_easy",
           "piece_localization_hard", "connection_verification", "anomaly_detection", "order_restoration",
           "order_generation", "order_generation_3x3", "order_restoration_3x3", "connection_verification_3x3"]


CUTS = ("", "_tabs", "_tabs_silhouette", "_tabs_content", "_tabs_own")


def cuts(config: str, which=CUTS) -> list[str]:
    """``config`` in each cut of ``which`` that exists (``_tabs_own``: Missing Piece Selection's)."""
    return [config + cut for cut in which if cut != "_tabs_own" or config.startswith("missing_piece_selection")]


def accuracy(config: str, cache: str) -> tuple[int, int, int, float, float]:
    """(solver right, shape right, n, chance, solver seconds per item) on the config's test split."""
    clip = {"clip_model": "ViT-S-32", "clip_pretrained": None, "clip_cache_dir": cache} \
        if config.startswith("missing_piece_selection_hard") else {}
    ds = jp.load_dataset(config, cache_dir=cache, **clip)
    start = time.perf_counter()
    rows = list(ds)
    right = sum(solve(row, config).text == row["answer"] for row in rows)
    seconds = (time.perf_counter() - start) / max(1, len(rows))
    shape = sum(shape_answer(row, config).text == row["answer"] for row in rows)
    return right, shape, len(rows), jp.spec.get(config).chance, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--configs", nargs="+", default=DEFAULT)
    parser.add_argument("--cache", default=None, help="a datasets cache to reuse (default: a fresh one)")
    parser.add_argument("--cuts", nargs="+", default=list(CUTS), choices=CUTS, metavar="CUT",
                        help="the cuts to run (default: all; '' is the straight cut)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as fresh:
        cache = args.cache or fresh
        print(f"{'config':50s} {'n':>4s} {'solver':>7s} {'95% CI':>13s} {'shape':>7s} {'95% CI':>13s} "
              f"{'chance':>7s} {'s/item':>7s}")
        for config in args.configs:
            for name in cuts(config, args.cuts):
                if not jp.spec.is_config(name):
                    continue
                right, shape, n, chance, seconds = accuracy(name, cache)
                (lo, hi), (slo, shi) = clopper_pearson(right, n), clopper_pearson(shape, n)
                print(f"{name:50s} {n:4d} {100 * right / max(1, n):6.1f}% {100 * lo:5.1f}-{100 * hi:5.1f}% "
                      f"{100 * shape / max(1, n):6.1f}% {100 * slo:5.1f}-{100 * shi:5.1f}% {100 * chance:6.1f}% "
                      f"{seconds:7.3f}", flush=True)


if __name__ == "__main__":
    main()
