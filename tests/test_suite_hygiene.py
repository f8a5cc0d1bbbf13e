"""The suite keeps its writes to itself: builds go to the session's own cache, never the user's ~/.cache, and a
passing test's temporary folder is removed when it ends (CI once ran out of disk in the slow tier)."""

from __future__ import annotations

import os
from pathlib import Path

import datasets
import pytest

import conftest


def test_builds_without_a_named_cache_go_to_the_sessions_own_folder(tmp_path):
    if conftest._OWN_CACHE is None:
        pytest.skip("HF_DATASETS_CACHE was set by the user; the suite uses it as given")
    own = Path(conftest._OWN_CACHE)
    assert os.environ["HF_DATASETS_CACHE"] == str(own) and Path(datasets.config.HF_DATASETS_CACHE) == own
    assert own.is_dir() and not own.resolve().is_relative_to((Path.home() / ".cache").resolve())
    loaded = datasets.load_dataset("json", data_files=str(_jsonl(tmp_path)), split="train")
    assert all(Path(f["filename"]).resolve().is_relative_to(own.resolve()) for f in loaded.cache_files)


def test_a_passing_tests_temporary_folder_is_removed_when_it_ends(request):
    assert request.config.getini("tmp_path_retention_policy") == "failed"
    assert int(request.config.getini("tmp_path_retention_count")) == 1


def _jsonl(folder: Path) -> Path:
    path = folder / "rows.jsonl"
    path.write_text('{"x": 1}\n{"x": 2}\n')
    return path
