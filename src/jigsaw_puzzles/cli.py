"""``jigsaw-puzzles`` command line: build, show, curate, eval, report (one module; choices from the spec)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading

from ._version import __version__
from .errors import UserError
from .inference.backends import BACKENDS
from .spec import CONFIGS, SPLITS


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


def _kv(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    k, v = text.rsplit("=", 1)
    return k, v


def add_eval_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "eval", help="run a model (or a built-in baseline) on the benchmark",
        description="Evaluate a VLM on Jigsaw-Puzzles. Re-running the same command resumes the run directory.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--model", required=True,
                   help="'random' or 'solver' (built-in baselines), a HF model id / local checkpoint "
                        "(transformers, vllm) or the model name served at --api-base (openai)")
    p.add_argument("--backend", choices=BACKENDS, default=None,
                   help="default: builtin for random/solver, openai when --api-base is given, else transformers")
    p.add_argument("--configs", nargs="+", default=None, metavar="CONFIG", choices=list(CONFIGS),
                   help=f"configs to run (default: all: {', '.join(CONFIGS)})")
    p.add_argument("--split", choices=SPLITS, default="test", help="test (all items) or lite (the Lite subset)")
    p.add_argument("--source", default=None, help="directory of source images (default: the embedded images)")
    p.add_argument("--seed", type=int, default=0, help="dataset seed (also the sampling / random-baseline seed)")
    p.add_argument("--out", default=None, help="run directory (default: runs/<model>-<split>)")
    p.add_argument("--max-items", type=int, default=None, help="only the first N items of each config")
    p.add_argument("--batch-size", type=int, default=None,
                   help="items per generate call (transformers 8, vllm 256) / concurrent requests (openai 8)")
    p.add_argument("--tensor-parallel-size", type=int, default=1, help="vllm: GPUs per model replica")
    p.add_argument("--api-base", default=None, help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1")
    p.add_argument("--api-key", default=None, help="API key (default: $OPENAI_API_KEY)")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="openai: seconds to wait for one response before retrying it")
    p.add_argument("--max-retries", type=int, default=8,
                   help="openai: retries of one request (429, 5xx, timeouts, malformed bodies) before the run stops")
    p.add_argument("--max-new-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=0.0, help="0 = greedy")
    p.add_argument("--top-p", type=float, default=1.0)
    p.add_argument("--dtype", default="auto", help="auto, bfloat16, float16, float32")
    p.add_argument("--system-prompt", default=None)
    p.add_argument("--num-proc", type=int, default=None,
                   help="processes for building the dataset and for the solver baseline")
    p.add_argument("--trust-remote-code", action="store_true")
    p.add_argument("--max-model-len", type=int, default=None, help="vllm: max context length")
    p.add_argument("--device-map", default=None, help="transformers: device_map (default auto on GPU)")
    p.add_argument("--overwrite", action="store_true", help="discard an existing run in --out instead of resuming")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--json", action="store_true", help="print results.json instead of the table")
    _add_clip(p)
    p.set_defaults(func=run_eval)
    return p


def run_eval(args) -> int:
    from .inference.backends import dist_info
    from .inference.runner import evaluate_model

    backend_kwargs = {}
    if args.max_model_len:
        backend_kwargs["max_model_len"] = args.max_model_len
    if args.device_map:
        backend_kwargs["device_map"] = args.device_map
    if (args.backend or ("openai" if args.api_base else None)) == "openai":
        backend_kwargs.update(timeout=args.timeout, max_retries=args.max_retries)
    res = evaluate_model(
        args.model, backend=args.backend, configs=args.configs, split=args.split, source=args.source,
        seed=args.seed, out=args.out, max_items=args.max_items, batch_size=args.batch_size,
        tensor_parallel_size=args.tensor_parallel_size, api_base=args.api_base, api_key=args.api_key,
        max_new_tokens=args.max_new_tokens, temperature=args.temperature, top_p=args.top_p, dtype=args.dtype,
        system_prompt=args.system_prompt, num_proc=args.num_proc, trust_remote_code=args.trust_remote_code,
        overwrite=args.overwrite, progress=not args.no_progress, backend_kwargs=backend_kwargs or None,
        dataset_kwargs=_clip_kwargs(args))
    if dist_info()[0] != 0:
        return 0
    if args.json:
        print(json.dumps({k: v for k, v in res.items()}, indent=2, default=str))
        return 0
    from .report import make_report

    make_report([res["run_dir"]], out=None, stream=sys.stdout)
    print(f"run directory: {res['run_dir']}  ({res['n_items']} items"
          + ("" if res["complete"] else f", {res['n_missing']} missing") + ")")
    return 0


def add_report_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "report", help="table (Markdown + CSV) and plots over run directories",
        description="Print and write the paper's Table 2 (+ Order Generation) for the given runs, with Random and "
                    "p < 0.05 rows, and plots: per-task bars, task correlation heatmap (Fig. 5), accuracy vs "
                    "parameter count (Fig. 6).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("runs", nargs="+", help="run directories (written by `jigsaw-puzzles eval`)")
    p.add_argument("--out", default="report", help="output directory")
    p.add_argument("--params", type=_kv, action="append", default=[], metavar="NAME=COUNT",
                   help="parameter count of a run (model name or run dir name), e.g. Qwen2.5-VL-7B=7B; repeatable")
    p.add_argument("--no-plots", action="store_true")
    p.set_defaults(func=run_report)
    return p


def run_report(args) -> int:
    from .report import make_report

    make_report(args.runs, out=args.out, params=dict(args.params), plots=not args.no_plots, stream=sys.stdout)
    return 0


def build_parser() -> argparse.ArgumentParser:

    parser = argparse.ArgumentParser(prog="jigsaw-puzzles", description=__doc__)
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="generate configs and write a Hub-ready parquet folder")
    p.add_argument("--out", required=True)
    _add_source(p)
    p.add_argument("--configs", nargs="+", choices=list(CONFIGS), default=None, metavar="CONFIG",
                   help=f"default: all ({', '.join(CONFIGS)})")
    p.add_argument("--num-proc", type=int, default=None)
    p.add_argument("--cache-dir", default=None, help="datasets cache (default: HF_DATASETS_CACHE)")
    _add_clip(p)
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("show", help="draw one item as a sheet (images, question, answer)")
    p.add_argument("config", choices=list(CONFIGS), metavar="CONFIG")
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

    add_eval_parser(sub)
    add_report_parser(sub)
    return parser


def _terminate(signum, frame):  # SIGTERM ends a run like Ctrl-C: recorded as interrupted, resumable
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    """Expected errors (``UserError``: bad input, unavailable config, a run that would mix settings) are one
    line and exit code 2; a traceback means a bug."""
    args = build_parser().parse_args(argv)
    previous = signal.signal(signal.SIGTERM, _terminate) if threading.current_thread() is threading.main_thread() \
        else None
    try:
        return args.func(args)
    except UserError as err:
        print(f"jigsaw-puzzles: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("jigsaw-puzzles: interrupted; re-run the same command to resume", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
