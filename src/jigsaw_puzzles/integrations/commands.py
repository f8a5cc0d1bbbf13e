"""The CLI commands of the harness integrations: ``export vlmevalkit``, ``export verl`` and ``lmms-eval``.

Registered by :func:`jigsaw_puzzles.cli.build_parser`, which hands over its shared option helpers.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable, Mapping

from ..cli_tools import add_dataset_option
from ..errors import UsageError
from ..spec import CONFIGS, SPLITS

EXAMPLES = {
    "export": """examples:
  jigsaw-puzzles export vlmevalkit --out ~/LMUData --split lite
  jigsaw-puzzles export vlmevalkit --out ~/LMUData --dataset ./jigsaw_puzzles
  jigsaw-puzzles export vlmevalkit --out ~/LMUData --split lite --circular   # + JigsawPuzzles_<config>_circular.tsv
  jigsaw-puzzles export verl --out verl_data --train-source ~/train_photos --train-size 5000   # train/val parquet""",
    "lmms-eval": """examples:
  jigsaw-puzzles build --out ./jigsaw_puzzles && jigsaw-puzzles lmms-eval --dataset ./jigsaw_puzzles --out tasks/
  lmms-eval --include_path tasks/ --tasks jigsaw_puzzles_lite --model openai --model_args model_version=M,base_url=URL
  jigsaw-puzzles lmms-eval --dataset USER/jigsaw-puzzles --out tasks/      # an export pushed to the Hub
  jigsaw-puzzles lmms-eval --dataset ./jigsaw_puzzles --out tasks/ --circular   # + jigsaw_puzzles[_lite]_circular""",
}


def add_parsers(subparsers, helpers: Mapping[str, Callable]) -> None:
    p = subparsers.add_parser(
        "export", help="write the benchmark in another harness's format (VLMEvalKit, verl)", epilog=EXAMPLES["export"],
        description="Write the benchmark in another harness's format. Formats: vlmevalkit (one TSV per config and "
                    "the dataset class that scores it), verl (train and validation parquet for verl's RL "
                    "trainer). `jigsaw-puzzles export FORMAT --help`: its options.")
    formats = p.add_subparsers(dest="format", required=True, metavar="FORMAT")
    p = formats.add_parser(
        "vlmevalkit", help="VLMEvalKit: one TSV per config and the dataset class that scores them",
        epilog=EXAMPLES["export"], formatter_class=p.formatter_class,
        description="Write one VLMEvalKit TSV per config (stem-only questions, options as columns, the paper's "
                    "full prompt in `prompt`) and the dataset class that scores them with this package.")
    p.add_argument("--out", required=True, metavar="DIR", help="where to write (e.g. VLMEvalKit's $LMUData)")
    add_dataset_option(p, "a folder written by `jigsaw-puzzles build` (default: build from --source/--seed)",
                       old="--from-export", metavar="DIR")
    p.add_argument("--split", choices=SPLITS, default="test", help="test (all items) or lite (the Lite subset)")
    p.add_argument("--circular", action="store_true",
                   help="also write JigsawPuzzles_<config>_circular.tsv per multiple-choice config: every item under "
                        "each rotation of its options, in VLMEvalKit's circular layout (index + r * 1e6, g_index)")
    helpers["source"](p)
    helpers["configs"](p)
    helpers["clip"](p)
    p.set_defaults(func=lambda args: run_export(args, helpers))
    add_verl_parser(formats, helpers, formatter_class=p.formatter_class)

    p = subparsers.add_parser(
        "lmms-eval", help="write an lmms-eval task folder for a built export or a Hub repo", epilog=EXAMPLES["lmms-eval"],
        description="Write one lmms-eval task per config and split (jigsaw_puzzles_<config>, "
                    "jigsaw_puzzles_lite_<config>), the groups jigsaw_puzzles and jigsaw_puzzles_lite, and the "
                    "hooks that score with this package. Then: lmms-eval --include_path OUT --tasks ...")
    add_dataset_option(p, "a folder written by `jigsaw-puzzles build`, or the Hub repo id it was pushed to",
                       required=True)
    p.add_argument("--out", required=True, metavar="DIR", help="the task folder to write")
    p.add_argument("--max-new-tokens", type=int, default=256, metavar="N", help="generation length per item")
    p.add_argument("--circular", action="store_true",
                   help="also write circular tasks (jigsaw_puzzles[_lite]_circular_<config>) for the multiple-choice "
                        "configs: every item under each rotation of its options, right only if every rotation is")
    p.set_defaults(func=run_lmms_eval)


def run_lmms_eval(args) -> int:
    from .lmms_eval_tasks import write_tasks

    if args.max_new_tokens < 1:
        raise UsageError(f"--max-new-tokens must be at least 1, got {args.max_new_tokens}")
    groups = write_tasks(args.dataset, args.out, args.max_new_tokens, circular=args.circular)
    for group, names in groups.items():
        print(f"  {group:22s} {len(names)} tasks")
    print(f"wrote {args.out}: run `lmms-eval --include_path {args.out} --tasks jigsaw_puzzles_lite ...`")
    return 0


def evaluation_data(args: argparse.Namespace, helpers: Mapping[str, Callable]) -> dict:
    """``{config: dataset}`` of ``args``: the configs of a built export (``--dataset``), or built from
    ``--source``/``--seed`` (``--configs``, ``--split``, the CLIP options)."""
    configs = args.configs or list(CONFIGS)
    if args.dataset:
        import datasets

        available = [c for c in configs if (Path(args.dataset) / c).is_dir()]
        if not available:
            raise UsageError(f"{args.dataset} holds none of the configs asked for (write it with "
                             f"`jigsaw-puzzles build --out {args.dataset}`)")
        data = {c: datasets.load_dataset(args.dataset, c, split=args.split) for c in available}
    else:
        from ..inference.data import load_datasets

        data, _ = load_datasets(configs, bool(args.configs), args.split, args.source, args.seed, None,
                                dataset_kwargs={**helpers["clip_kwargs"](args), "progress": True}, in_run=False)
    return data


def run_export(args: argparse.Namespace, helpers: Mapping[str, Callable]) -> int:
    from .vlmevalkit import export

    helpers["bars"]()
    data = evaluation_data(args, helpers)
    written = export(data, args.out, circular=args.circular, progress=True)
    for config, path in written.items():
        what = f"{len(data[config]):5d} rows" if config in data else "rotations"
        print(f"  {config:32s} {what}  {path}")
    print(f"wrote {len(written)} VLMEvalKit TSVs and jigsaw_puzzles' dataset class to {args.out} "
          f"(docs/integrations.md: how to register it)")
    return 0


def add_verl_parser(formats, helpers: Mapping[str, Callable], formatter_class) -> None:
    p = formats.add_parser(
        "verl", help="verl: train and validation parquet in its multimodal RL row layout, and the reward to name",
        epilog=EXAMPLES["export"], formatter_class=formatter_class,
        description="Write OUT/train.parquet (the training stream: training photos only, never a photo of the "
                    "validation set) and OUT/val.parquet (the evaluation items) in verl's RL row layout (prompt "
                    "with one <image> per image, images, data_source = the config, reward_model.ground_truth, "
                    "extra_info), and print the reward function to name in reward.custom_reward_function.")
    p.add_argument("--out", required=True, metavar="DIR", help="where to write train.parquet and val.parquet")
    add_dataset_option(p, "validation from a folder written by `jigsaw-puzzles build` (default: build from "
                          "--source/--seed)", metavar="DIR")
    p.add_argument("--split", choices=SPLITS, default="test",
                   help="the validation split: test (all items; every evaluation photo is kept out of train) or "
                        "lite (the Lite subset: only its photos are kept out of train)")
    p.add_argument("--train-size", type=int, default=1000, metavar="N", help="training rows (0: val.parquet only)")
    p.add_argument("--train-source", default=None, metavar="DIR",
                   help="photos of the training stream (default: --source); its train side only, minus every "
                        "photo of the validation set")
    p.add_argument("--train-seed", type=int, default=0, metavar="N", help="the training stream's seed")
    helpers["source"](p)
    helpers["configs"](p)
    helpers["clip"](p)
    p.set_defaults(func=lambda args: run_verl(args, helpers))


def run_verl(args: argparse.Namespace, helpers: Mapping[str, Callable]) -> int:
    from . import verl
    from .verl_export import export

    if args.train_size < 0:
        raise UsageError(f"--train-size must be 0 or more, got {args.train_size}")
    source = args.train_source if args.train_source is not None else args.source
    if args.train_size and source is None:  # the embedded photos are the default benchmark's: never trained on
        raise UsageError(f"--train-size {args.train_size} needs --train-source DIR (or --source DIR), a folder of your "
                         "own training photos: the embedded photos are the default benchmark's evaluation photos "
                         "(--train-size 0 writes val.parquet alone)")
    helpers["bars"]()
    data = evaluation_data(args, helpers)
    written = export(data, args.out, args.train_size, train_source=source, train_seed=args.train_seed,
                     evaluation_source=args.dataset or args.source)
    for name, (path, n) in written.items():
        print(f"  {name:5s} {n:6d} rows  {path}")
    print(f"wrote verl parquet to {args.out}; reward: reward.custom_reward_function.path={Path(verl.__file__)} "
          f"reward.custom_reward_function.name=compute_score (docs/integrations.md#verl)")
    return 0
