"""Exceptions that carry a user-facing message (the CLI prints them as one line, exit code 2), and the checks of
the arguments every face takes alike (a seed, a folder or output path, a mapping of options): ``jp.load_dataset``,
``jp.training_stream`` and ``jp.evaluate_model`` call the same ones, so a value is accepted or refused the same way
wherever it is given."""

from __future__ import annotations

import numbers
import os
from typing import Any, Mapping


class UserError(Exception):
    """An expected error caused by the user's input or environment; the message says what to do."""


class UsageError(UserError, ValueError):
    """A wrong argument: an unknown config, split or option value."""


class SourceFolderError(UserError, FileNotFoundError):
    """The source folder is missing, not a folder, or unreadable."""


class ConfigUnavailable(UserError, RuntimeError):
    """A config cannot be built here (missing extra, weights, or too few usable sources).

    Runs that were not asked for this config explicitly skip it and record the message.
    """

    def __init__(self, config: str, reason: str):
        super().__init__(f"{config}: {reason}")
        self.config = config
        self.reason = reason


def install_hint(extra: str) -> str:
    """How to install one of the package's extras: from the clone it was installed from (the package is not on a
    package index yet: installing it by name finds nothing)."""
    return f'pip install -e ".[{extra}]" in your clone of jigsaw-puzzles'


def _show(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ is still a wrong value, named by its type
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def seed_value(value: Any, option: str = "seed") -> int:
    """``value`` as a plain ``int`` (a numpy integer gives the same items as the int it holds); a ``UsageError``
    for anything else (a bool, a float, a string, None)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{option} must be a whole number (an int), not {_show(value)}")
    return int(value)


def path_value(value: Any, option: str, what: str, default: str | None = None) -> str | os.PathLike | None:
    """``value`` if it is a usable path (a non-empty ``str`` or ``os.PathLike``); ``None`` passes (the option's
    ``default``, named in the message for an empty one). A number, bytes or an empty string is a ``UsageError``:
    never the current folder by accident."""
    if value is None:
        return None
    text = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(text, str):
        raise UsageError(f"{option} must be a path to {what} (a str or os.PathLike), not {_show(value)}")
    if not text.strip():
        leave = f"; leave it out (None) for {default}" if default else ""
        raise UsageError(f"{option} is empty: give a path to {what}{leave}")
    if "\0" in text:
        raise UsageError(f"{option} {_show(text)} contains a NUL character: not a path")
    return value


def mapping_value(value: Any, option: str, what: str) -> dict | None:
    """``value`` as a dict of ``{str: value}`` (``None`` passes); a ``UsageError`` for anything else."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise UsageError(f"{option} must be a dict of {what} keyed by name, not {_show(value)}")
    return dict(value)
