"""The ``eval`` command: its parser and its run, registered by :func:`jigsaw_puzzles.cli.build_parser`. The flags
become one :class:`~.config.EvalSettings`; exit codes: 0 complete, 1 items ended in an error, 2 a user error."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Mapping

from ..errors import UsageError
from ..generation.variants import INPUT_FORMATS, PROMPT_STYLES
from ..spec import SPLITS
from .openai_backend import DEFAULT_CHECK_TIMEOUT, DEFAULT_MAX_RETRIES, DEFAULT_RETRY_BUDGET, DEFAULT_TIMEOUT
from .registry import BACKENDS

PROG = "jigsaw-puzzles"


def add_parser(subparsers, helpers: Mapping[str, Callable]) -> argparse.ArgumentParser:
    """``helpers``: the CLI's shared option makers (``source``, ``configs``, ``clip``, ``clip_kwargs``, ``bars``) and
    ``report`` (prints a run's report: reporting is an area above this one)."""
    p = subparsers.add_parser(
        "eval", help="run a model (or a built-in baseline) on the benchmark",
        description="Evaluate a VLM on Jigsaw-Puzzles. Re-running the same command resumes the run directory: "
                    "answered items are kept, items that ended in an error are tried again. Exit code 0: the run "
                    "is complete; 1: some items ended in an error (re-run to retry them); 2: a user error.")
    p.add_argument("--model", required=True,
                   help="'random', 'solver' or 'shape' (built-in baselines), a HF model id / local checkpoint "
                        "(transformers, vllm) or the model name served at --api-base (openai)")
    p.add_argument("--backend", choices=list(BACKENDS), default=None,
                   help="; ".join(f"{name}: {entry.summary}" for name, entry in BACKENDS.items())
                        + " (default: builtin for random/solver, openai when --api-base is given, else transformers)")
    helpers["configs"](p)
    p.add_argument("--split", choices=SPLITS, default="test", help="test (all items) or lite (the Lite subset)")
    helpers["source"](p)
    p.add_argument("--out", default=None, metavar="DIR", help="run directory (default: runs/<model>-<split>)")
    p.add_argument("--max-items", type=int, default=None, metavar="N",
                   help="answer only the first N items of each config (default: all)")
    p.add_argument("--batch-size", type=int, default=None, metavar="N",
                   help="items per generate call / concurrent requests (openai) (default: "
                        + ", ".join(f"{name} {entry.default_batch_size}" for name, entry in BACKENDS.items()) + ")")
    p.add_argument("--tensor-parallel-size", type=int, default=1, metavar="N", help="vllm: GPUs per model replica")
    g = p.add_argument_group("variants (recorded in run.json and in the report's row name; scored alike)")
    g.add_argument("--prompt-style", choices=PROMPT_STYLES, default="paper",
                   help="paper: Appendix B verbatim; cot: reason step by step, then 'Final answer:' in the format")
    g.add_argument("--input-format", choices=INPUT_FORMATS, default="pieces",
                   help="pieces: separate images (paper); composite: one sheet with the images labelled Image 1..n")
    g.add_argument("--blind", action="store_true",
                   help="the question without any image: a language-prior baseline (above chance = a leak)")
    g.add_argument("--circular", action="store_true", help="also ask each multiple-choice item with its options "
                   "rotated; circular accuracy: right under every rotation (MMBench's CircularEval)")
    g = p.add_argument_group("endpoint (openai backend)")
    g.add_argument("--api-base", default=None, metavar="URL",
                   help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (default: $OPENAI_BASE_URL)")
    g.add_argument("--api-key", default=None, help="API key (default: $OPENAI_API_KEY)")
    g.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help="seconds to wait for one response before retrying it")
    g.add_argument("--max-retries", type=int, default=DEFAULT_MAX_RETRIES, metavar="N",
                   help="retries of one request (429, 5xx, timeouts, malformed bodies) before the run stops")
    g.add_argument("--retry-budget", type=float, default=DEFAULT_RETRY_BUDGET, metavar="SECONDS",
                   help="seconds one request may spend on all its attempts and back-off before the run stops")
    g.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="seconds the whole run may spend on the endpoint (requests, retries and back-off): when "
                        "spent, the run stops with its answers saved, to resume later (default: no limit)")
    g.add_argument("--check-timeout", type=float, default=DEFAULT_CHECK_TIMEOUT, metavar="SECONDS",
                   help="seconds the check before the run waits for the endpoint's first answer (GET /models)")
    g = p.add_argument_group("unread answers (each opt-in, each recorded in resolutions.jsonl; the reader's accuracy "
                             "stays the headline)")
    g.add_argument("--restate", action="store_true",
                   help="ask the model once more, in the same conversation, for the final answer of every output "
                        "the reader leaves unread (read by the strict reader alone)")
    g.add_argument("--judge", default=None, metavar="MODEL",
                   help="a judge model (at --judge-api-base, or a local transformers checkpoint folder) reads every "
                        "unread output; its reading counts only with a quote of the output that reads as its answer")
    g.add_argument("--judge-backend", choices=("openai", "transformers"), default=None,
                   help="default: transformers for a local folder, else openai")
    g.add_argument("--judge-api-base", default=None, metavar="URL",
                   help="the judge's OpenAI-compatible base URL (default: $OPENAI_BASE_URL)")
    g.add_argument("--judge-api-key", default=None, help="the judge's API key (default: $OPENAI_API_KEY)")
    g.add_argument("--judge-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="seconds to wait for one judge reply; one that never comes leaves the output unread (asked "
                        "again on resume)")
    g.add_argument("--judge-max-retries", type=int, default=2, metavar="N", help="retries of one judge request")
    g = p.add_argument_group("decoding (recorded in run.json; a resume must match)")
    g.add_argument("--max-new-tokens", type=int, default=256, metavar="N",
                   help="most tokens generated per item (raise it for reasoning models)")
    g.add_argument("--temperature", type=float, default=0.0, help="sampling temperature; 0 = greedy")
    g.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling mass (only when sampling)")
    g.add_argument("--dtype", default="auto", help="model dtype: auto, bfloat16, float16, float32")
    g.add_argument("--system-prompt", default=None, metavar="TEXT", help="system turn before every item (default: none)")
    g = p.add_argument_group("runtime")
    g.add_argument("--num-proc", type=int, default=None, metavar="N",
                   help="processes for building the datasets and for the solver baseline (default: 1)")
    g.add_argument("--trust-remote-code", action="store_true", help="transformers/vllm: run the model repo's code")
    g.add_argument("--max-model-len", type=int, default=None, metavar="N",
                   help="vllm: max context length (default: the model's)")
    g.add_argument("--device-map", default=None, metavar="MAP",
                   help="transformers: device_map (default: auto on GPU, one GPU per process when data parallel)")
    g.add_argument("--cache-dir", default=None, metavar="DIR", help="datasets cache (default: HF_DATASETS_CACHE)")
    g.add_argument("--overwrite", action="store_true", help="discard an existing run in --out instead of resuming")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g.add_argument("--json", action="store_true", help="print results.json instead of the table")
    helpers["clip"](p)
    p.set_defaults(func=run_eval, helpers=helpers)
    return p


def _judge_kwargs(args) -> dict | None:
    """The judge's settings from its flags (None without --judge; a --judge-* flag without it is an error)."""
    given = {"backend": args.judge_backend, "api_base": args.judge_api_base, "api_key": args.judge_api_key}
    if args.judge is None:
        named = [f"--judge-{k.replace('_', '-')}" for k, v in given.items() if v is not None]
        if named:
            raise UsageError(f"{', '.join(named)} without --judge MODEL: name the judge model")
        return None
    return {**{k: v for k, v in given.items() if v is not None}, "timeout": args.judge_timeout,
            "max_retries": args.judge_max_retries}


def run_eval(args) -> int:
    from .backends import dist_info
    from .config import EvalSettings
    from .options import eval_backend_kwargs
    from .runner import backend_choice, evaluate_model

    args.helpers["bars"]()
    backend_kwargs = eval_backend_kwargs(args)  # every value checked first: one line and exit 2 if one is wrong
    if args.backend is None:
        args.backend, why = backend_choice(args.model, args.api_base)
        if args.backend != "builtin" and dist_info()[0] == 0:  # said, so nobody wonders where a name was sent
            print(f"{PROG}: backend {args.backend} ({why}; --backend to choose another)",
                  file=sys.stderr)
    if args.backend == "openai":
        backend_kwargs.update(timeout=args.timeout, max_retries=args.max_retries, retry_budget=args.retry_budget,
                              budget=args.budget, check_timeout=args.check_timeout)
    settings = EvalSettings(
        backend=args.backend, configs=args.configs, split=args.split, source=args.source, seed=args.seed,
        out=args.out, max_items=args.max_items, batch_size=args.batch_size,
        tensor_parallel_size=args.tensor_parallel_size, api_base=args.api_base, api_key=args.api_key,
        max_new_tokens=args.max_new_tokens, temperature=args.temperature, top_p=args.top_p, dtype=args.dtype,
        system_prompt=args.system_prompt, num_proc=args.num_proc, trust_remote_code=args.trust_remote_code,
        overwrite=args.overwrite, progress=not args.no_progress, backend_kwargs=backend_kwargs or None,
        prompt_style=args.prompt_style, input_format=args.input_format, blind=args.blind, circular=args.circular,
        restate=args.restate, judge=args.judge, judge_kwargs=_judge_kwargs(args),
        dataset_kwargs={**args.helpers["clip_kwargs"](args), **({"cache_dir": args.cache_dir} if args.cache_dir else {}),
                        "progress": not args.no_progress})
    res = evaluate_model(args.model, settings)
    if dist_info()[0] != 0:
        return 0
    if args.json:
        print(json.dumps(res, indent=2, default=str))
    else:
        args.helpers["report"](res["run_dir"])
        print(f"run directory: {res['run_dir']}  ({res['n_items']} items"
              + ("" if res["complete"] else f", {res['n_missing']} missing") + ")")
    if res["complete"]:
        return 0
    print(f"{PROG}: incomplete: {res['n_missing']} items have no answer ({res['n_errors']} ended in an error, "
          f"see 'error' in {res['run_dir']}/predictions.jsonl); re-run the same command to retry them",
          file=sys.stderr)
    return 1
