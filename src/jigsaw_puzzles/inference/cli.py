"""argparse sub-commands ``eval`` and ``report`` (registered by ``jigsaw_puzzles.cli``).

Usage from the main CLI::

    sub = parser.add_subparsers(dest="command", required=True)
    add_eval_parser(sub)
    add_report_parser(sub)
    args = parser.parse_args(argv)
    return args.func(args)          # each sub-command sets func; returns an exit code
"""
from __future__ import annotations

import argparse
import json
import sys


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
    p.add_argument("--backend", choices=["builtin", "transformers", "vllm", "openai"], default=None,
                   help="default: builtin for random/solver, openai when --api-base is given, else transformers")
    p.add_argument("--configs", nargs="+", default=None, metavar="CONFIG",
                   help="configs to run (default: all eight)")
    p.add_argument("--split", choices=["test", "lite"], default="test")
    p.add_argument("--source", default=None, help="directory of source images (default: the embedded images)")
    p.add_argument("--seed", type=int, default=0, help="dataset seed (also the sampling / random-baseline seed)")
    p.add_argument("--out", default=None, help="run directory (default: runs/<model>-<split>)")
    p.add_argument("--max-items", type=int, default=None, help="only the first N items of each config")
    p.add_argument("--batch-size", type=int, default=None,
                   help="items per generate call (transformers 8, vllm 256) / concurrent requests (openai 8)")
    p.add_argument("--tensor-parallel-size", type=int, default=1, help="vllm: GPUs per model replica")
    p.add_argument("--api-base", default=None, help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1")
    p.add_argument("--api-key", default=None, help="API key (default: $OPENAI_API_KEY)")
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
    from ..cli import _add_clip
    _add_clip(p)
    p.set_defaults(func=run_eval)
    return p


def run_eval(args) -> int:
    from .backends import dist_info
    from ..cli import _clip_kwargs
    from .runner import RunMismatchError, evaluate_model

    backend_kwargs = {}
    if args.max_model_len:
        backend_kwargs["max_model_len"] = args.max_model_len
    if args.device_map:
        backend_kwargs["device_map"] = args.device_map
    try:
        res = evaluate_model(
            args.model, backend=args.backend, configs=args.configs, split=args.split, source=args.source,
            seed=args.seed, out=args.out, max_items=args.max_items, batch_size=args.batch_size,
            tensor_parallel_size=args.tensor_parallel_size, api_base=args.api_base, api_key=args.api_key,
            max_new_tokens=args.max_new_tokens, temperature=args.temperature, top_p=args.top_p, dtype=args.dtype,
            system_prompt=args.system_prompt, num_proc=args.num_proc, trust_remote_code=args.trust_remote_code,
            overwrite=args.overwrite, progress=not args.no_progress, backend_kwargs=backend_kwargs or None,
            dataset_kwargs=_clip_kwargs(args))
    except RunMismatchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if dist_info()[0] != 0:
        return 0
    if args.json:
        print(json.dumps({k: v for k, v in res.items()}, indent=2, default=str))
        return 0
    from ..report import make_report

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
    from ..report import make_report

    make_report(args.runs, out=args.out, params=dict(args.params), plots=not args.no_plots, stream=sys.stdout)
    return 0


def main(argv=None) -> int:  # standalone entry (the package CLI registers the sub-commands itself)
    parser = argparse.ArgumentParser(prog="jigsaw-puzzles")
    sub = parser.add_subparsers(dest="command", required=True)
    add_eval_parser(sub)
    add_report_parser(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
