"""Small option helpers shared by the command modules (``cli``, ``integrations.commands``, ``analysis.command``)."""

from __future__ import annotations

import argparse
import sys


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
