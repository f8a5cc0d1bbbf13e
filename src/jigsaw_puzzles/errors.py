"""Exceptions that carry a user-facing message (the CLI prints them as one line, exit code 2), and the checks of
the arguments every face takes alike (a seed, a folder or output path, a mapping of options): ``jp.load_dataset``,
``jp.training_stream`` and ``jp.evaluate_model`` call the same ones, so a value is accepted or refused the same way
wherever it is given."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import numbers
import os
import re
from typing import Any, Callable, Mapping, TypeVar


class UserError(Exception):
    """An expected error caused by the user's input or environment; the message says what to do."""


class UsageError(UserError, ValueError):
    """A wrong argument: an unknown config, split or option value."""


class UnknownArgument(UsageError, TypeError):
    """A keyword argument a function or settings record does not take (a ``TypeError`` too, as Python's own)."""


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


def count_value(value: Any, option: str, default: str, least: int = 1) -> int | None:
    """``value`` as a whole number of at least ``least`` (``None`` passes: the option's ``default``); a
    ``UsageError`` for ``0``, ``-1``, ``"2"``, ``2.0`` or ``True``, as the command line refuses them."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise UsageError(f"{option} must be a whole number of at least {least} (None: {default}), not {_show(value)}")
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


# ------------------------------------------------------------------------------------------------ the two faces
#: set while the command line runs (:func:`cli_face`): its errors name its flags; a Python caller's name arguments
_CLI = contextvars.ContextVar("jigsaw_puzzles_cli", default=False)
#: a flag outside backticks, with the upper-case placeholder after it (``--source DIR``, ``--budget SECONDS``)
_FLAG = re.compile(r"(?<![\w`-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?: ([A-Z][A-Z_]+|RxC|I/N)\b)?")
_NEGATED = {"no-progress": "progress=False", "no-plots": "plots=False"}
F = TypeVar("F", bound=Callable)


@contextlib.contextmanager
def cli_face():
    """While the command line runs, errors keep its flags (``--num-proc``)."""
    token = _CLI.set(True)
    try:
        yield
    finally:
        _CLI.reset(token)


def cli_active() -> bool:
    """Whether the command line is running (in this thread's context): its words are flags."""
    return _CLI.get()


def python_words(text: str) -> str:
    """``text`` as a Python caller reads it: each command-line flag outside backticks (a quoted command keeps its
    own) is the keyword argument it sets (``--num-proc`` -> ``num_proc``, ``--source DIR`` -> ``source=DIR``,
    ``--no-progress`` -> ``progress=False``)."""
    def name(m: re.Match) -> str:
        word = _NEGATED.get(m.group(1), m.group(1).replace("-", "_"))
        return f"{word}={m.group(2)}" if m.group(2) else word

    parts = text.split("`")
    for k in range(0, len(parts), 2):
        parts[k] = _FLAG.sub(name, parts[k])
    return "`".join(parts)


def python_face(fn: F) -> F:
    """A function of the Python API: a :class:`UserError` it raises names keyword arguments, not the command
    line's flags (which the same checks use when the CLI calls it)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as err:
            if not _CLI.get():
                if err.args and isinstance(err.args[0], str):
                    err.args = (python_words(err.args[0]), *err.args[1:])
                if isinstance(getattr(err, "reason", None), str):
                    err.reason = python_words(err.reason)
            raise

    return wrapper  # type: ignore[return-value]

