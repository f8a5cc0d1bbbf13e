"""Shared fixtures: synthetic photo-like source folders (tests/fixtures/photos.py) and an isolated cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixtures.photos import make_photo, write_photos  # noqa: F401  (the one synthesizer; re-exported)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
# the curation and guard caches stay out of the user's: tests that count decodes or checks, or inject faults, need
# each to run; the caches' own tests (tests/test_guard_cache.py, tests/test_curation_cache.py) point it at a
# temporary folder
os.environ["JIGSAW_PUZZLES_CACHE"] = "off"


@pytest.fixture(scope="session")
def photo_dir(tmp_path_factory) -> Path:
    """16 clean photo-like sources: one full 16-slot anomaly-detection cycle."""
    folder = tmp_path_factory.mktemp("photos")
    write_photos(folder, 16)
    return folder


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("hf_cache"))


def pytest_terminal_summary(terminalreporter):
    """Say in one line what to install when the browser tests could not run (they skip without Chromium)."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "no Chromium" in str(r.longrepr)]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} browser tests skipped: no Chromium found. Install it (Debian/Ubuntu: "
            "`sudo apt-get install chromium`) or set JP_CHROMIUM=/path/to/chromium, then run the tests again.",
            yellow=True, bold=True)
