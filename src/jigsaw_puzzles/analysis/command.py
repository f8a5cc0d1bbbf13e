"""The ``analyze`` command's parser, registered by :func:`jigsaw_puzzles.cli.build_parser` (its ``--help``
examples are ``cli.EXAMPLES["analyze"]``)."""
from __future__ import annotations

import argparse
import sys
from typing import Callable

from ..cli_tools import add_dataset_option
from ..generation.plan import ANSWER_PLANS, DEFAULT_ANSWER_PLAN
from .error_model import MIN_PERMUTATIONS, PERMUTATIONS

def add_parser(subparsers, kv: Callable[[str], tuple[str, str]]) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "analyze", help="why items are hard: features, error models, answer bias, the paper's analyses",
        description="Explain run directories' errors: per-item features (seam contrast, solver margin, texture, "
                    "sharpness, colour entropy, near-duplicate cells, CLIP similarity, answer position, grid "
                    "size), a cross-validated error model per run with permutation importance, answer bias "
                    "(chi-square against the references), and the paper's Figs. 5-8. The items are rebuilt from "
                    "each run.json and checked against its dataset fingerprints. Needs the [analysis] extra.")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories (written by `jigsaw-puzzles eval`)")
    p.add_argument("--out", default="analysis", metavar="DIR", help="output directory")
    p.add_argument("--params", type=kv, action="append", default=[], metavar="NAME=COUNT",
                   help="parameter count of a run for Fig. 6 (model name or run dir name), e.g. model-a=7B; "
                        "repeatable")
    add_dataset_option(p, "read the items from a folder written by `jigsaw-puzzles build` instead of rebuilding them",
                       old="--from-export", metavar="DIR")
    p.add_argument("--answer-plan", choices=ANSWER_PLANS, default=DEFAULT_ANSWER_PLAN,
                   help="the answer plan of runs whose run.json does not record one (older runs; a run that "
                        "records it is rebuilt with its own)")
    p.add_argument("--cache-dir", default=None, metavar="DIR", help="datasets cache (default: HF_DATASETS_CACHE)")
    p.add_argument("--features-dir", default=None, metavar="DIR",
                   help="feature cache, keyed by dataset fingerprint (default: OUT/features)")
    p.add_argument("--seed", type=int, default=0, help="seed of the cross-validation folds and permutations")
    p.add_argument("--repeats", type=int, default=10, metavar="N", help="permutations per feature and fold")
    p.add_argument("--permutations", type=int, default=PERMUTATIONS, metavar="N",
                   help=f"label shuffles of the error model's null (default {PERMUTATIONS}; 0: no null, no feature "
                        f"named; else >= {MIN_PERMUTATIONS})")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_analyze)
    return p


def run_analyze(args) -> int:
    import datasets

    from .analyze import analyze

    datasets.disable_progress_bars()  # the features' own labelled bar instead
    dataset_kwargs = {"cache_dir": args.cache_dir} if args.cache_dir else {}
    if args.answer_plan != DEFAULT_ANSWER_PLAN:
        dataset_kwargs["answer_plan"] = args.answer_plan
    analyze(args.runs, out=args.out, params=dict(args.params), features_dir=args.features_dir,
            from_export=args.dataset, dataset_kwargs=dataset_kwargs, seed=args.seed, n_repeats=args.repeats,
            n_permutations=args.permutations,
            progress=not args.no_progress, stream=sys.stdout)
    return 0
