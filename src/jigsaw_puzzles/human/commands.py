"""``jigsaw-puzzles human``: take the benchmark in a browser (a human-baseline run), or browse its items."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Mapping

from ..errors import UsageError
from ..spec import CONFIGS, SPLITS

EXAMPLES = """examples:
  jigsaw-puzzles human --split lite --out runs/human            # then open http://127.0.0.1:7860
  jigsaw-puzzles report runs/human runs/qwen2-vl-7b-lite         # "Human (p01)", ..., a pooled "Human" row
  jigsaw-puzzles human --browse --split lite                    # read the items with their answers
  jigsaw-puzzles human --browse --dataset USER/jigsaw-puzzles   # an export pushed to the Hub (or its folder)"""


def add_parser(subparsers, helpers: Mapping[str, Callable]) -> None:
    p = subparsers.add_parser(
        "human", help="take the benchmark in a browser (a human row for the report), or --browse the items",
        epilog=EXAMPLES,
        description="A local web app (Gradio; pip install -e '.[app]' in the clone). Each participant enters an id and "
                    "answers every item, shown exactly as a model sees it, in an order shuffled by the id; each "
                    "answer and its response time are written at once to OUT/participants/<id>/ in the format of "
                    "`eval`, so `jigsaw-puzzles report OUT` shows one row per participant and a pooled Human row. "
                    "Entering the same id again resumes. --browse shows the items with their answers instead.")
    p.add_argument("--split", choices=SPLITS, default="lite", help="lite (the paper's human split) or test")
    helpers["source"](p)
    helpers["configs"](p)
    p.add_argument("--max-items", type=int, default=None, metavar="N", help="only the first N items of each config")
    p.add_argument("--out", default=None, metavar="DIR", help="the human test folder (required unless --browse)")
    p.add_argument("--browse", action="store_true", help="show the items with their answers and metadata")
    p.add_argument("--circular", action="store_true", help="also show each multiple-choice item with its options "
                   "rotated (circular evaluation: right only if every rotation is)")
    p.add_argument("--dataset", default=None, metavar="DIR|REPO",
                   help="with --browse: a folder written by `jigsaw-puzzles build`, or its Hub repo id")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine "
                                                         "only; 0.0.0.0 opens it to the network)")
    p.add_argument("--port", type=int, default=7860, help="port (default 7860)")
    p.add_argument("--share", action="store_true", help="also open a public gradio.live link (explicit opt-in)")
    helpers["clip"](p)
    p.set_defaults(func=lambda args: run(args, helpers))


def _exported(dataset: str, split: str, configs) -> dict:
    import datasets

    folder = Path(dataset)
    names = [c for c in (configs or CONFIGS) if not folder.is_dir() or (folder / c).is_dir()]
    if not names:
        raise UsageError(f"{dataset} holds none of the configs asked for; write it with `jigsaw-puzzles build`")
    return {c: datasets.load_dataset(str(dataset), c, split=split) for c in names}


def run(args, helpers) -> int:
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be between 1 and 65535, got {args.port}")
    from .app import browse_app, test_app

    if args.max_items is not None and args.max_items < 1:
        raise UsageError("--max-items must be at least 1")
    if not args.browse and not args.out:
        raise UsageError("--out DIR is required: the folder the answers are written to (or pass --browse)")
    if args.dataset and not args.browse:
        raise UsageError("--dataset is for --browse; the test builds its items from --source/--seed")
    if args.dataset:
        data, skipped = _exported(args.dataset, args.split, args.configs), {}
    else:
        from ..inference.data import load_datasets

        helpers["bars"]()  # the builder's labelled bars (source check, items) instead of datasets' unnamed ones
        data, skipped = load_datasets(args.configs or list(CONFIGS), args.configs is not None, args.split,
                                      args.source, args.seed, None,
                                      dataset_kwargs={**helpers["clip_kwargs"](args), "progress": True})
    if args.max_items is not None:
        data = {c: ds.select(range(min(len(ds), args.max_items))) for c, ds in data.items()}
    test = None
    if args.browse:
        if args.circular:  # browse the rotations too
            from ..generation.circular import expand_datasets

            data = expand_datasets(data)
        demo = browse_app(data)
    else:
        from .session import HumanTest

        source = str(Path(args.source).resolve()) if args.source else None
        test = HumanTest(args.out, data, args.split, args.seed, source, skipped, args.max_items, args.circular)
        demo = test_app(test)
    from .app import CSS, HEAD

    print(f"[jigsaw-puzzles] {'browse' if args.browse else 'human test'}: http://{args.host}:{args.port}"
          + ("" if args.browse else f"  (answers: {Path(args.out) / 'participants'})"), file=sys.stderr, flush=True)
    try:
        demo.launch(server_name=args.host, server_port=args.port, share=args.share, head=HEAD, css=CSS,
                    quiet=True, footer_links=[])
    finally:
        if test is not None:
            test.close()
    return 0


ADJUDICATE_EXAMPLES = """examples:
  jigsaw-puzzles adjudicate runs/qwen2-vl-7b-lite                 # then open http://127.0.0.1:7860
  jigsaw-puzzles adjudicate runs/my-run --source ~/photos         # a run built from your photos
  jigsaw-puzzles report runs/qwen2-vl-7b-lite                     # "· decided by a person" beside the reader"""


def add_adjudicate_parser(subparsers, helpers: Mapping[str, Callable]) -> None:
    p = subparsers.add_parser(
        "adjudicate", help="a person decides what each unread output of a run answers (a browser page)",
        epilog=ADJUDICATE_EXAMPLES,
        description="A local web app (Gradio; pip install -e '.[app]' in the clone) over the outputs of RUN_DIR that "
                    "the reader could not read: each beside its item as the model received it (question, options, "
                    "images) and the output itself; the person picks the answer it gives, or 'no answer given'. "
                    "Each decision is written at once to RUN_DIR/resolutions.jsonl with the person's name, the time "
                    "and the output's sha256; `report` shows the accuracy after them beside the reader's, which "
                    "stays the headline. The items are rebuilt from run.json (--source: the run's photos when they "
                    "are elsewhere now).")
    p.add_argument("run", metavar="RUN_DIR", help="a run directory `jigsaw-puzzles eval --out` wrote")
    p.add_argument("--source", default=None, metavar="DIR",
                   help="the run's source photos (default: the folder run.json records, or the embedded photos)")
    p.add_argument("--clip-cache-dir", default=None, metavar="DIR", help="the hard config's embedding cache")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=7860, help="port (default 7860)")
    p.add_argument("--share", action="store_true", help="also open a public gradio.live link (explicit opt-in)")
    p.set_defaults(func=lambda args: run_adjudicate(args, helpers))


def run_adjudicate(args, helpers) -> int:
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be between 1 and 65535, got {args.port}")
    if not Path(args.run).is_dir():
        raise UsageError(f"{args.run} is not a folder; give a run directory `jigsaw-puzzles eval --out` wrote")
    from .adjudicate import Adjudication
    from .adjudicate_app import OUTPUT_CSS, adjudicate_app
    from .app import CSS, HEAD

    helpers["bars"]()
    adj = Adjudication(args.run, source=args.source, clip_cache_dir=args.clip_cache_dir)
    if not adj.unread:
        print(f"[jigsaw-puzzles] {args.run}: the reader reads every output; nothing to adjudicate", file=sys.stderr)
        return 0
    demo = adjudicate_app(adj)
    print(f"[jigsaw-puzzles] adjudicate {len(adj.unread)} unread outputs: http://{args.host}:{args.port}  (decisions: "
          f"{Path(args.run) / 'resolutions.jsonl'})", file=sys.stderr, flush=True)
    demo.launch(server_name=args.host, server_port=args.port, share=args.share, head=HEAD, css=CSS + OUTPUT_CSS,
                quiet=True, footer_links=[])
    return 0
