"""``jigsaw-puzzles`` command line: build, show, curate, report here; eval, analyze, human and the integrations register
their own parsers from their areas (choices from the spec).

Expected errors (bad input, a config that cannot be built here, an endpoint that refuses the run, a run
directory held by another process or made with other settings) are one line on stderr and exit code 2;
Ctrl-C and SIGTERM are one line and exit code 130; a traceback means a bug.

Only the command being run gets its full parser (:func:`build_parser`): every other is listed by its name and one
line of help (:data:`COMMANDS`), so ``--help``, a mistyped command and ``verify`` start without importing
``datasets``, pandas or torch (about 2 s of CPU; docs/performance.md#command-line-start-up).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from ._version import __version__
from .errors import UsageError, UserError, cli_face
from .cli_tools import COMMANDS, EXAMPLES, Parser
from .spec import CONFIGS, GENERATOR_VERSION, SPLITS

PROG = "jigsaw-puzzles"

ALL = "*"  # build_parser(ALL): every command's full parser


def _add_source(p: argparse.ArgumentParser) -> None:
    from .generation.plan import ANSWER_PLANS, DEFAULT_ANSWER_PLAN

    p.add_argument("--source", default=None, metavar="DIR",
                   help="folder of source photographs, searched recursively (default: the embedded photos)")
    p.add_argument("--seed", type=int, default=0, help="benchmark seed: with the same photos it fixes every item")
    p.add_argument("--answer-plan", choices=ANSWER_PLANS, default=DEFAULT_ANSWER_PLAN,
                   help="quota (default): exactly balanced letters and Lite size, and one photo more, less or "
                        "replaced changes only a few other items; stable (2.0): per-photo letters, balanced within "
                        "a few points; balanced (1.x): exact, reshuffled by any new photo (a frozen folder)")


def _config_name(text: str) -> str:
    from .spec import canonical, is_config

    if "," in text:
        raise argparse.ArgumentTypeError(f"{text!r}: separate config names with spaces, not commas (--configs "
                                         f"{' '.join(t.strip() for t in text.split(',') if t.strip())})")
    if not is_config(text):
        raise argparse.ArgumentTypeError(f"unknown config {text!r}; choose from {', '.join(CONFIGS)}, or a grid "
                                         "config such as order_generation_3x3")
    return canonical(text)  # order_generation_2x2 is order_generation


def _grid(text: str) -> str:
    from .generation.builder import with_grid

    try:
        with_grid("order_generation", text)
    except UserError as err:
        raise argparse.ArgumentTypeError(str(err).split(": ", 1)[-1]) from None
    return text


def _add_configs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--configs", nargs="+", type=_config_name, default=None, metavar="CONFIG",
                   help=f"configs to use (default: all, skipping any that cannot be built here; one named here "
                        f"that cannot be built is an error): "
                        f"{', '.join(CONFIGS)}; beyond the paper, on any grid: order_restoration_RxC, "
                        f"order_generation_RxC, each with _rot (pieces turned too: order_generation_3x3_rot), "
                        f"connection_verification_RxC[_8dir] (8 directions), "
                        f"piece_localization_RxC[_kK] (K masks), anomaly_detection_RxC, "
                        f"missing_piece_selection_<easy|hard>_RxC[_kK] (K candidates) (e.g. order_generation_3x3, "
                        f"piece_localization_4x4_k8, connection_verification_2x2_8dir); any of them cut into "
                        f"interlocking pieces: <config>_tabs (shape and content), its shape-only control "
                        f"<config>_tabs_silhouette, its content-only control <config>_tabs_content (outlines that say "
                        f"nothing of the answer), and missing_piece_selection_*_tabs_own (candidates keep their own "
                        f"outlines)")
    p.add_argument("--grid", type=_grid, default=None, metavar="RxC",
                   help="cut the grid-capable tasks on this grid (e.g. 3x3, 4x4, 2x3; 1-8 a side): --configs "
                        "order_generation --grid 3x3 is order_generation_3x3; without --configs, Order "
                        "Restoration, Order Generation, Connection Verification (at least 2x2), Piece "
                        "Localization (4 masks), Anomaly Detection (up to 26 cells) and Missing Piece Selection "
                        "(easy, 4 candidates; the CLIP-mined hard one when named in --configs)")
    p.add_argument("--rotated", action="store_true",
                   help="unknown orientation: the order configs with every piece turned too (the _rot configs), on "
                        "their own grid or on --grid; without --configs, Order Restoration and Order Generation")


def apply_grid(args) -> None:
    """``--grid RxC`` / ``--rotated``: the configs they select (:func:`builder.select_configs`) replace ``--configs``."""
    grid, rotated = getattr(args, "grid", None), getattr(args, "rotated", False)
    if grid or rotated:
        from .generation.builder import select_configs

        args.configs = select_configs(args.configs, grid, rotated)


def _add_clip(p: argparse.ArgumentParser) -> None:
    from .generation.tasks import TASKS

    defaults = TASKS["missing_piece_selection_hard"].options
    g = p.add_argument_group("hard distractors (missing_piece_selection_hard)")
    g.add_argument("--clip-model", default=None, metavar="NAME",
                   help=f"open_clip model (default: {defaults['clip_model']})")
    g.add_argument("--clip-pretrained", default=None, metavar="TAG|FILE",
                   help=f"open_clip weights tag or checkpoint file (default: {defaults['clip_pretrained']})")
    g.add_argument("--clip-random-init", action="store_true", help=argparse.SUPPRESS)  # random weights: tests only
    g.add_argument("--clip-cache-dir", default=None, metavar="DIR",
                   help="embedding cache (default: under HF_DATASETS_CACHE)")


def _clip_kwargs(args) -> dict:
    from .generation.plan import DEFAULT_ANSWER_PLAN

    kwargs = {"clip_cache_dir": args.clip_cache_dir}
    if getattr(args, "answer_plan", DEFAULT_ANSWER_PLAN) != DEFAULT_ANSWER_PLAN:
        kwargs["answer_plan"] = args.answer_plan
    if args.clip_model is not None:
        kwargs["clip_model"] = args.clip_model
    if args.clip_random_init:
        kwargs["clip_pretrained"] = None
    elif args.clip_pretrained is not None:
        kwargs["clip_pretrained"] = args.clip_pretrained
    return kwargs


# ------------------------------------------------------------------------------------------------ build/show/curate
def _labelled_bars() -> None:
    """The builder's own bar per config and split instead of ``datasets``' unnamed "Generating test split"."""
    import datasets

    datasets.disable_progress_bars()


def cmd_build(args) -> int:
    from .publishing.export import build

    _labelled_bars()
    report = build(args.out, source=args.source, seed=args.seed, configs=args.configs,
                   num_proc=args.num_proc, cache_dir=args.cache_dir, progress=True, shard=args.shard,
                   engine=args.engine, ray_address=args.ray_address, **_clip_kwargs(args))
    curation = report["curation"]
    print(f"wrote {args.out}: {len(report['configs'])} configs from {curation['accepted']} source images "
          f"({curation['rejected']} rejected; see {args.out}/curation_report.json)")
    for config, info in report["configs"].items():
        skips = len(info.get("task_skips", []))
        print(f"  {config:32s} test {info['test']:5d}  lite {info['lite']:4d}  task skips {skips}")
    for config, reason in report.get("skipped_configs", {}).items():
        print(f"  {config:32s} SKIPPED: {reason}")
    return 0


def cmd_merge(args) -> int:
    from .publishing.shards import merge

    report = merge(args.shards, args.out, num_proc=args.num_proc)
    print(f"wrote {args.out}: {len(report['configs'])} configs merged from {len(args.shards)} shards")
    return 0


def cmd_show(args) -> int:
    from .generation.commands import run_show

    _labelled_bars()
    return run_show(args, {**_clip_kwargs(args), "progress": True})  # a cold cache builds the split: labelled bars


def cmd_curate(args) -> int:
    from .generation.commands import run_curate

    return run_curate(args)


def cmd_cache(args) -> int:
    from .generation.builder import code_hash
    from .generation.cacheadmin import ACTIONS, builds_kind, run_cache
    from .generation.cachefiles import cache_root
    from .generation.clip.cache import cache_kind as clip_kind
    from .generation.curation import cache_kind as curation_kind
    from .training.guard_cache import cache_kind as guard_kind

    if args.action not in ACTIONS:  # `cache guard`: a kind listed
        args.action, args.kinds = "list", [args.action, *args.kinds] if args.action else args.kinds
    if args.cache_dir and not Path(args.cache_dir).expanduser().is_dir():
        raise UsageError(f"--cache-dir {args.cache_dir}: no such folder (give the datasets cache the package wrote to, "
                         "or leave it out for HF_DATASETS_CACHE)")
    root = Path(args.cache_dir).expanduser() / "jigsaw_puzzles" if args.cache_dir else cache_root()
    return run_cache(args, [builds_kind(root, code_hash()), clip_kind(root), curation_kind(root), guard_kind(root)])


# ------------------------------------------------------------------------------------------------ report
def _kv(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    k, v = text.rsplit("=", 1)
    return k, v


def add_report_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "report", help="table (Markdown + CSV) and plots over run directories",
        description="Print and write the paper's Table 2 (+ Order Generation) for the given runs, with Random and "
                    "p < 0.05 rows, and plots: per-task bars, task correlation heatmap (Fig. 5), accuracy vs "
                    "parameter count (Fig. 6).")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories (written by `jigsaw-puzzles eval`)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="output directory (default: report; with --compare, compare/A-vs-B, named by the run "
                        "directories, so a comparison never replaces the last report)")
    p.add_argument("--params", type=_kv, action="append", default=[], metavar="NAME=COUNT",
                   help="parameter count of a run (model name or run dir name), e.g. Qwen2.5-VL-7B=7B; repeatable")
    p.add_argument("--no-plots", action="store_true", help="write the table only")
    p.add_argument("--compare", action="store_true",
                   help="also compare every run with the first, paired on the same items: per config the "
                        "difference with a bootstrap CI and McNemar's exact p; overall by paired bootstrap")
    p.set_defaults(func=run_report)
    return p


def _print_report(run_dir) -> None:
    """The one-run report eval prints (reporting sits above inference: the CLI joins them)."""
    from .reporting.report import make_report

    make_report([run_dir], out=None, stream=sys.stdout)


def run_report(args) -> int:
    from .reporting.report import make_report

    out = args.out
    if out is None:
        out = Path("compare", "-vs-".join(Path(r).resolve().name for r in args.runs)) if args.compare else "report"
    make_report(args.runs, out=out, params=dict(args.params), plots=not args.no_plots, stream=sys.stdout,
                compare=args.compare)
    return 0


def _verify_runs_too(p: argparse.ArgumentParser) -> None:
    """``verify`` takes a run directory too (``reporting.verify_run``, an area above the export's verify): the
    CLI sends a folder ``eval`` wrote there and anything else to the export's verify."""
    verify_export = p.get_default("func")

    def run(args) -> int:
        if not os.path.isdir(args.export):
            raise UsageError(f"{args.export} is not a folder; give an export (`jigsaw-puzzles build --out`) or a run "
                             "directory (`jigsaw-puzzles eval --out`)")
        from .reporting.verify_run import is_run_dir, run_verify_run

        if is_run_dir(args.export):
            _labelled_bars()
            return run_verify_run(args)
        return verify_export(args)

    p.description += (" Given a run directory (RUN_DIR, written by `eval`), it rebuilds the run's items from its "
                      "settings, re-reads every raw output and recomputes every number of its results.json; exit 1 "
                      "names each difference.")
    for action in p._actions:  # argparse has no public handle on a positional's help
        if action.dest == "export":
            action.metavar, action.help = "EXPORT|RUN_DIR", f"{action.help}, or a run directory `eval --out` wrote"
    if p.epilog:
        p.epilog += "\n  jigsaw-puzzles verify runs/model-x --source ~/photos   # a run directory eval wrote"
    p.set_defaults(func=run)


# ------------------------------------------------------------------------------------------------ parser
def _command(argv: list[str] | None) -> str | None:
    """The command ``argv`` runs: its first word that is not an option (the top level has no option with a value)."""
    return next((a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")), None)


def build_parser(command: str | None = ALL) -> argparse.ArgumentParser:
    """The parser with ``command``'s full parser (every command's with :data:`ALL`); the others are listed by name
    and help alone (:data:`COMMANDS`), their areas not imported."""
    parser = Parser(prog=PROG, description="Jigsaw-Puzzles, the spatial-reasoning benchmark for VLMs: generate it "
                                            "from photographs, evaluate models on it, and report the results.")
    parser.add_argument("--version", action="version", help="print the package and generator versions and exit",
                        version=f"jigsaw-puzzles {__version__} (generator {GENERATOR_VERSION})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        if name in sub.choices:
            continue  # added with another of its area (export and lmms-eval)
        if command == ALL or _ADDERS[name] is _ADDERS.get(command):  # export and lmms-eval come together
            _ADDERS[name](sub)
        else:
            sub.add_parser(name, help=COMMANDS[name], add_help=False)
    parser.epilog = EXAMPLES[None]
    for name, command_parser in sub.choices.items():
        command_parser.epilog = command_parser.epilog or EXAMPLES.get(name)  # integration commands bring their own
    return parser


def _add_build(sub) -> None:
    p = sub.add_parser("build", help="generate configs and write a Hub-ready parquet folder",
                       description="Generate the benchmark's configs from a folder of photographs and write a "
                                   "folder that loads with datasets.load_dataset(folder, config).")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="the folder to write: new, empty, or an earlier export (replaced as a whole)")
    _add_source(p)
    _add_configs(p)
    p.add_argument("--num-proc", type=int, default=None, metavar="N", help="worker processes (default: 1)")
    p.add_argument("--cache-dir", default=None, metavar="DIR", help="datasets cache (default: HF_DATASETS_CACHE)")
    p.add_argument("--shard", default=None, metavar="I/N", help="build only shard I of N (0/4 ... 3/4), one "
                   "machine's part of a build over N; `merge` makes the whole export of the N parts")
    p.add_argument("--engine", choices=("local", "ray"), default="local", help="local: this machine's processes; "
                   "ray: a Ray cluster (the `ray` extra; --num-proc then caps its jobs at once), the same bytes")
    p.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="the Ray cluster: auto, HOST:6379 or ray://HOST:10001 (default: Ray started here)")
    _add_clip(p)
    p.set_defaults(func=cmd_build)


def _add_merge(sub) -> None:
    p = sub.add_parser("merge", help="make one export of the shards of a build (`build --shard I/N`)",
                       description="Write the export of a build made over several machines from its shard exports: "
                                   "the same folder one machine would have written.")
    p.add_argument("shards", nargs="+", metavar="SHARD_DIR", help="the N folders `build --shard I/N` wrote")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder to write (as for build)")
    p.add_argument("--num-proc", type=int, default=None, metavar="N", help="worker processes (default: 1)")
    p.set_defaults(func=cmd_merge)


def _add_show(sub) -> None:
    p = sub.add_parser("show", help="draw one item as a sheet (images, question, answer)",
                       description="Draw one item of a config as a PNG sheet.")
    p.add_argument("configs", nargs=1, type=_config_name, metavar="CONFIG",
                   help="any config `build` takes (e.g. order_generation_3x3_rot), or a base with --grid/--rotated")
    p.add_argument("--grid", type=_grid, default=None, metavar="RxC", help="cut CONFIG on this grid (as in build)")
    p.add_argument("--rotated", action="store_true", help="CONFIG with every piece turned too (as in build)")
    p.add_argument("--index", type=int, default=0, metavar="N", help="the item's row number in the split")
    p.add_argument("--split", choices=SPLITS, default="test", help="test (all items) or lite (the Lite subset)")
    p.add_argument("--out", default="item.png", metavar="FILE", help="the PNG to write")
    p.add_argument("--hide-answer", action="store_true", help="leave the answer off the sheet")
    _add_source(p)
    _add_clip(p)
    p.set_defaults(func=cmd_show)


def _add_curate(sub) -> None:
    p = sub.add_parser("curate", help="which source images pass the curation rules, and why not",
                       description="List every file below DIR with its curation verdict and reason.")
    p.add_argument("dir", nargs="?", default=None, metavar="DIR", help="folder (default: the embedded photos)")
    p.add_argument("--json", action="store_true", help="print the curation report as JSON")
    p.add_argument("--skips", action="store_true", help="also each config's task skips (sources a task cannot use)")
    p.add_argument("--seed", type=int, default=0, help="benchmark seed of the --skips probes")
    _add_configs(p)
    p.set_defaults(func=cmd_curate)


def _add_cache(sub) -> None:
    p = sub.add_parser("cache", help="what the package keeps on disk (builds, CLIP, curation, guard); free it",
                       description="List what the package keeps on disk, by kind (builds: datasets' Arrow files of "
                                   "the configs built; clip; curation; guard), or delete it: `prune` the stale "
                                   "entries (keyed by code or libraries that do not run here) unused for --older-than "
                                   "days, `clear` every entry of the kinds named. Only files the package writes are "
                                   "deleted.")
    p.add_argument("action", nargs="?", metavar="ACTION", help="list (the default), prune or clear")
    p.add_argument("kinds", nargs="*", metavar="KIND", help="builds, clip, curation, guard (default: every kind)")
    p.add_argument("--all", action="store_true", help="clear: every kind")
    p.add_argument("--json", action="store_true", help="list: every entry as JSON")
    p.add_argument("--older-than", type=float, default=None, metavar="DAYS",
                   help="prune: only stale entries unused for this many days (default: 30; another installed "
                        "version sharing the cache may still use the newer ones; 0: every stale entry)")
    p.add_argument("--cache-dir", default=None, metavar="DIR", help="datasets cache (default: HF_DATASETS_CACHE)")
    p.set_defaults(func=cmd_cache)


def _helpers(**more) -> dict:
    """The shared option makers handed to the areas' parsers."""
    return {"source": _add_source, "configs": _add_configs, "clip": _add_clip, "clip_kwargs": _clip_kwargs,
            "bars": _labelled_bars, **more}


def _add_verify(sub) -> None:
    from .publishing.verify import add_parser

    add_parser(sub, _labelled_bars)
    _verify_runs_too(sub.choices["verify"])


def _add_eval(sub) -> None:
    from .inference.commands import add_parser

    add_parser(sub, _helpers(report=_print_report))


def _add_analyze(sub) -> None:
    from .analysis.command import add_parser

    add_parser(sub, _kv)


def _add_integrations(sub) -> None:
    from .integrations.commands import add_parsers

    add_parsers(sub, _helpers())


def _add_human(sub) -> None:
    from .human.commands import add_parser

    add_parser(sub, _helpers())


def _add_adjudicate(sub) -> None:
    from .human.commands import add_adjudicate_parser

    add_adjudicate_parser(sub, _helpers())


_ADDERS = {"build": _add_build, "merge": _add_merge, "show": _add_show, "curate": _add_curate, "cache": _add_cache,
           "verify": _add_verify, "eval": _add_eval, "report": add_report_parser, "analyze": _add_analyze,
           "export": _add_integrations, "lmms-eval": _add_integrations, "human": _add_human,
           "adjudicate": _add_adjudicate}


def _terminate(signum, frame):  # SIGTERM ends a run like Ctrl-C: recorded as interrupted, resumable
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    """Run one command.  ``UserError`` (bad input, a config that cannot be built here, an endpoint that refuses the
    run, a run that would mix settings, a locked run directory) is one line on stderr and exit code 2; Ctrl-C and
    SIGTERM one line and 130; anything else is a bug and keeps its traceback."""
    previous = signal.signal(signal.SIGTERM, _terminate) if threading.current_thread() is threading.main_thread() \
        else None
    face = cli_face()  # the Python API's errors name its flags here, not its keyword arguments
    face.__enter__()
    try:
        args = build_parser(_command(argv)).parse_args(argv)
        apply_grid(args)
        if getattr(args, "out", None) is not None:  # (verify has none: it starts without the image libraries)
            from .publishing.outdir import check_out

            check_out(args.command, args.out)
        return args.func(args)
    except (UserError, OSError) as err:  # an OSError only when the machine's (a full disk ...): else a bug
        if not isinstance(err, UserError):
            from .publishing.outdir import environment_error

            if (err := environment_error(err, "cannot write")) is None:
                raise
        print(f"{PROG}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; re-run the same command to resume", file=sys.stderr)
        return 130
    finally:
        face.__exit__(None, None, None)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
