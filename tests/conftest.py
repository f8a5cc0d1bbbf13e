"""Shared fixtures: synthetic photo-like source folders (tests/fixtures/photos.py) and an isolated cache."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

# a test that builds without naming a cache (a docs page, the README's command, a subprocess) builds into this
# session's own folder, removed when the session ends: never into the user's ~/.cache, where every run of the suite
# left about a gigabyte of builds behind (and CI's disk ran out)
_OWN_CACHE = None if "HF_DATASETS_CACHE" in os.environ else tempfile.mkdtemp(prefix="jp-tests-hf-datasets-")
if _OWN_CACHE:
    os.environ["HF_DATASETS_CACHE"] = _OWN_CACHE

import pytest  # noqa: E402

from fixtures.photos import make_photo, write_photos  # noqa: E402,F401  (the one synthesizer; re-exported)

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


def pytest_unconfigure(config):
    if _OWN_CACHE:
        shutil.rmtree(_OWN_CACHE, ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    """Say in one line what to install when the browser tests could not run (they skip without Chromium)."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "no Chromium" in str(r.longrepr)]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} browser tests skipped: no Chromium found. Install it (Debian/Ubuntu: "
            "`sudo apt-get install chromium`) or set JP_CHROMIUM=/path/to/chromium, then run the tests again.",
            yellow=True, bold=True)
