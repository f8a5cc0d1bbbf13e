"""``jigsaw-puzzles`` command line: build, show, curate (and eval, report)."""

from __future__ import annotations

import argparse
import json
import sys

from ._version import __version__


def _add_source(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source", default=None, help="folder of source images (default: embedded photos)")
    p.add_argument("--seed", type=int, default=0, help="benchmark seed (default 0)")


def cmd_build(args) -> int:
    from .export import build
    report = build(args.out, source=args.source, seed=args.seed, configs=args.configs,
                   num_proc=args.num_proc, cache_dir=args.cache_dir, **_clip_kwargs(args))
    curation = report["curation"]
    print(f"wrote {args.out}: {len(report['configs'])} configs from {curation['accepted']} source images "
          f"({curation['rejected']} rejected; see {args.out}/curation_report.json)")
    for config, info in report["configs"].items():
        skips = len(info.get("task_skips", []))
        print(f"  {config:32s} test {info['test']:5d}  lite {info['lite']:4d}  task skips {skips}")
    for config, reason in report.get("skipped_configs", {}).items():
        print(f"  {config:32s} SKIPPED: {reason}")
    return 0


def _clip_kwargs(args) -> dict:
    kwargs = {"clip_cache_dir": args.clip_cache_dir}
    if args.clip_model is not None:
        kwargs["clip_model"] = args.clip_model
    if args.clip_random_init:
        kwargs["clip_pretrained"] = None
    elif args.clip_pretrained is not None:
        kwargs["clip_pretrained"] = args.clip_pretrained
    return kwargs


def _add_clip(p: argparse.ArgumentParser) -> None:
    from .tasks import TASKS
    defaults = TASKS["missing_piece_selection_hard"].options
    g = p.add_argument_group("hard distractors (missing_piece_selection_hard)")
    g.add_argument("--clip-model", default=None, help=f"open_clip model (default {defaults['clip_model']})")
    g.add_argument("--clip-pretrained", default=None,
                   help=f"open_clip weights tag or checkpoint file (default {defaults['clip_pretrained']})")
    g.add_argument("--clip-random-init", action="store_true", help="random weights (tests only)")
    g.add_argument("--clip-cache-dir", default=None, help="embedding cache (default: under HF_DATASETS_CACHE)")


def cmd_show(args) -> int:
    from .builder import load_dataset
    from .sheet import draw_item
    ds = load_dataset(args.config, split=args.split, source=args.source, seed=args.seed, **_clip_kwargs(args))
    if not 0 <= args.index < len(ds):
        print(f"index {args.index} out of range: {args.config}/{args.split} has {len(ds)} items",
              file=sys.stderr)
        return 2
    row = ds[args.index]
    draw_item(row, args.out, show_answer=not args.hide_answer)
    print(f"{row['id']} -> {args.out}\nanswer: {row['answer']!r}")
    return 0


def cmd_curate(args) -> int:
    from .sources import curate
    curation = curate(args.dir, progress=True)
    if args.json:
        print(json.dumps(curation.to_dict(), indent=2))
        return 0
    for record in curation.records:
        mark = "ok " if record.status == "accepted" else "REJ"
        print(f"{mark} {record.path}" + (f"  -- {record.reason}" if record.reason else ""))
    print(f"{len(curation.accepted)} accepted, {len(curation.rejected)} rejected "
          f"of {len(curation.records)} files in {curation.folder}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .builder import CONFIGS, SPLITS

    parser = argparse.ArgumentParser(prog="jigsaw-puzzles", description=__doc__)
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="generate configs and write a Hub-ready parquet folder")
    p.add_argument("--out", required=True)
    _add_source(p)
    p.add_argument("--configs", nargs="+", choices=CONFIGS, default=None, metavar="CONFIG",
                   help=f"default: all ({', '.join(CONFIGS)})")
    p.add_argument("--num-proc", type=int, default=None)
    p.add_argument("--cache-dir", default=None, help="datasets cache (default: HF_DATASETS_CACHE)")
    _add_clip(p)
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("show", help="draw one item as a sheet (images, question, answer)")
    p.add_argument("config", choices=CONFIGS, metavar="CONFIG")
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--split", choices=SPLITS, default="test")
    p.add_argument("--out", default="item.png")
    p.add_argument("--hide-answer", action="store_true")
    _add_source(p)
    _add_clip(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("curate", help="which source images pass the curation rules, and why not")
    p.add_argument("dir", nargs="?", default=None, help="folder (default: embedded photos)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_curate)

    try:
        from .inference.cli import add_eval_parser, add_report_parser
    except ImportError:
        pass
    else:
        add_eval_parser(sub)
        add_report_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
