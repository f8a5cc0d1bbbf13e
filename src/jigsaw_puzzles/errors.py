"""Exceptions that carry a user-facing message (the CLI prints them as one line, exit code 2)."""

from __future__ import annotations


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
