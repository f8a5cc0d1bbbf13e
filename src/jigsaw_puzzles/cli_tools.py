"""Small option helpers shared by the command modules (``cli``, ``integrations.commands``, ``analysis.command``),
and what the command line says before it runs anything: each command's line of help (the listing of ``--help``,
read without importing the command's area) and each command's ``--help`` examples."""

from __future__ import annotations

import argparse
import sys

from .errors import UsageError


class DeprecatedAlias(argparse.Action):
    """An old spelling of an option, hidden from ``--help``: it still works and says once, on stderr, which
    name replaces it."""

    def __init__(self, option_strings, dest, new: str = "", **kwargs):
        kwargs["help"] = argparse.SUPPRESS
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: warning: {option_string} is deprecated; use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_dataset_option(p: argparse.ArgumentParser, help: str, old: str | None = None, **kwargs) -> None:
    """``--dataset DIR|REPO`` (a built export or the Hub repo it was pushed to), with ``old`` as a hidden
    deprecated alias."""
    p.add_argument("--dataset", metavar=kwargs.pop("metavar", "DIR|REPO"), help=help, **kwargs)
    if old:
        p.add_argument(old, dest="dataset", action=DeprecatedAlias, new="--dataset", metavar="DIR")


class Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default once: appended when the help text does not say it and it is a value (not None/False);
    descriptions wrap, the examples epilog is kept line by line."""

    def _fill_text(self, text, width, indent):
        if text.startswith("examples:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if "default" in text.lower() or default is None or default is False or default == [] \
                or default is argparse.SUPPRESS or not action.option_strings:
            return text
        return text + " (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """Usage errors as one line (``jigsaw-puzzles: error: ...``, exit code 2), like every other user error."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise UsageError(f"{message} (see `{self.prog} --help`)")


#: every command in ``--help``'s order, with its line of help there: a command not being run is listed from here,
#: without importing its area (tests/test_cli.py checks each against its own parser's)
COMMANDS = {
    "build": "generate configs and write a Hub-ready parquet folder",
    "merge": "make one export of the shards of a build (`build --shard I/N`)",
    "show": "draw one item as a sheet (images, question, answer)",
    "curate": "which source images pass the curation rules, and why not",
    "cache": "what the package keeps on disk (builds, CLIP, curation, guard); free it",
    "verify": "regenerate an export's items here: which are byte-identical",
    "eval": "run a model (or a built-in baseline) on the benchmark",
    "report": "table (Markdown + CSV) and plots over run directories",
    "analyze": "why items are hard: features, error models, answer bias, the paper's analyses",
    "export": "write the benchmark in another harness's format (VLMEvalKit, verl)",
    "lmms-eval": "write an lmms-eval task folder for a built export or a Hub repo",
    "human": "take the benchmark in a browser (a human row for the report), or --browse the items",
    "adjudicate": "a person decides what each unread output of a run answers (a browser page)",
}

#: ``--help`` examples per command (shown verbatim after the options).
EXAMPLES = {
    None: """examples:
  jigsaw-puzzles eval --model solver --split lite          # the classical solver, every task, embedded photos
  jigsaw-puzzles build --out jigsaw_export --source ~/photos   # a Hub-ready folder from your photographs
  jigsaw-puzzles report runs/*                             # Table 2 over run directories""",
    "build": """examples:
  jigsaw-puzzles build --out jigsaw_export                         # the embedded photos, seed 0
  jigsaw-puzzles build --out my_export --source ~/photos --seed 7 --num-proc 2
  jigsaw-puzzles build --out my_export --configs order_restoration anomaly_detection
  jigsaw-puzzles build --out grids --grid 4x4                      # the grid-capable tasks on 4x4
  jigsaw-puzzles build --out rot --rotated --grid 3x3              # 3x3 order tasks, pieces turned too
  jigsaw-puzzles build --out part0 --source ~/photos --shard 0/2  # machine 0 of 2 (1/2 on the other)
  jigsaw-puzzles build --out my_export --source s3://bucket/photos --engine ray --ray-address auto   # a Ray cluster
  hf upload USER/jigsaw-puzzles my_export --repo-type dataset      # publish the folder (after hf auth login)""",
    "merge": """examples:
  jigsaw-puzzles merge part0 part1 --out my_export   # the export of `build --shard 0/2` and `--shard 1/2`""",
    "show": """examples:
  jigsaw-puzzles show order_restoration --index 3 --out item.png
  jigsaw-puzzles show anomaly_detection --split lite --hide-answer --source ~/photos""",
    "curate": """examples:
  jigsaw-puzzles curate ~/photos          # every file's verdict and reason
  jigsaw-puzzles curate ~/photos --json""",
    "cache": """examples:
  jigsaw-puzzles cache                  # what is kept, by kind, and how much of it is stale
  jigsaw-puzzles cache prune            # delete the stale entries (other code or libraries) unused for 30 days
  jigsaw-puzzles cache clear guard      # delete the contamination guard's features and verdicts""",
    "eval": """examples:
  jigsaw-puzzles eval --model random --split lite
  jigsaw-puzzles eval --model Qwen/Qwen2.5-VL-7B-Instruct --split lite --batch-size 8
  jigsaw-puzzles eval --model Qwen/Qwen2.5-VL-7B-Instruct --backend vllm --tensor-parallel-size 2
  jigsaw-puzzles eval --model gpt-4o --api-base https://api.openai.com/v1 --split lite   # key: $OPENAI_API_KEY
  (re-run the same command to resume; --overwrite starts again)""",
    "report": """examples:
  jigsaw-puzzles report runs/*                       # Markdown table, CSV and plots
  jigsaw-puzzles report runs/* --out report/
  jigsaw-puzzles report runs/model-a runs/model-b --compare   # which differences are real""",
    "analyze": """examples:
  jigsaw-puzzles analyze runs/* --out analysis/                    # analysis.md, CSVs and plots
  jigsaw-puzzles analyze runs/model-a runs/model-b --params model-a=7B --params model-b=72B
  jigsaw-puzzles analyze runs/model-a --dataset ./jigsaw_puzzles      # the items from a built export""",
}
