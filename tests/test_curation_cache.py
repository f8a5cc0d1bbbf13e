"""Curation's disk cache (``generation.curation``): what a file's bytes decided is kept by their hash, so a folder
curated before is read and hashed, not decoded, and gives the same curation, rejections and their reasons
included; an unreadable entry is examined again, and an error no rule names is never kept."""

from __future__ import annotations

import dataclasses
import io
import logging
import shutil

import pytest
from PIL import Image

from fixtures.photos import make_photo, write_photos
from jigsaw_puzzles.generation import cachefiles, curation
from jigsaw_puzzles.generation.curation import _curate_cached, curate
from jigsaw_puzzles.generation.sources import CurationRules


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Six photos, an exact copy of one, and a file of each kind curation rejects."""
    root = tmp_path_factory.mktemp("curation_cache")
    write_photos(root, 6, start=720)
    first = sorted(root.iterdir())[0]
    shutil.copy(first, root / "zz_copy.png")
    make_photo(730, (120, 100)).save(root / "small.png")  # too small
    Image.new("RGB", (420, 300), (128, 128, 128)).save(root / "flat.png")  # near-uniform: decodes, then rejected
    buf = io.BytesIO()
    make_photo(731).save(buf, format="JPEG")
    (root / "truncated.jpg").write_bytes(buf.getvalue()[:200])
    (root / "notes.txt").write_text("not a photo")
    return root


def _curated(folder, **kwargs):
    _curate_cached.cache_clear()  # as in a new process
    c = curate(folder, **kwargs)
    return [dataclasses.asdict(r) for r in c.records], c.accepted


@pytest.fixture
def decodes(monkeypatch, tmp_path):
    monkeypatch.setenv(cachefiles.ENV, str(tmp_path / "cache"))
    calls = []
    real = curation._load_normalised
    monkeypatch.setattr(curation, "_load_normalised", lambda *a: calls.append(a[0]) or real(*a))
    yield calls, tmp_path / "cache" / "curation"
    _curate_cached.cache_clear()


def test_a_folder_curated_before_is_not_decoded_and_curates_the_same(folder, decodes, monkeypatch):
    calls, cache = decodes
    monkeypatch.setenv(cachefiles.ENV, "off")
    reference = _curated(folder)
    assert not cache.exists()
    records, accepted = reference
    reasons = {r["path"]: r["reason"] for r in records}
    assert len(accepted) == 6 and reasons["zz_copy.png"].startswith("exact duplicate of")
    ids = {r["path"]: r["source_id"] for r in records}  # a file that decoded has its id, one that did not has none
    assert ids["flat.png"] and ids["small.png"] is None and ids["truncated.jpg"] is None and ids["notes.txt"] is None
    monkeypatch.setenv(cachefiles.ENV, str(cache.parent))
    calls.clear()
    assert _curated(folder) == reference  # first: decoded, the decisions kept
    assert len(calls) == 9 and len(list(cache.glob("decisions-*/*/*.json"))) == 9  # the copy: the same bytes, read back
    calls.clear()
    assert _curated(folder) == reference and calls == []  # then: read from the disk
    assert _curated(folder, num_proc=2) == reference


def test_unreadable_entries_are_examined_again(folder, decodes, caplog):
    calls, cache = decodes
    reference = _curated(folder)
    for k, path in enumerate(sorted(cache.glob("decisions-*/*/*.json"))):  # truncated, or whole JSON of another shape
        path.write_text(path.read_text()[:10] if k % 2 else '{"phash": ["0"], "stats": {}}')
    calls.clear()
    with caplog.at_level(logging.WARNING, logger="jigsaw_puzzles.generation.curation"):
        assert _curated(folder) == reference
    assert len(calls) == 9 and "ignoring unreadable curation cache file" in caplog.text


def test_an_error_no_rule_names_is_not_kept(folder, decodes, monkeypatch):
    calls, cache = decodes
    reference = _curated(folder)
    shutil.rmtree(cache)
    real = curation.quality_checks
    monkeypatch.setattr(curation, "quality_checks", lambda image, rules: (_ for _ in ()).throw(MemoryError("x")))
    records, accepted = _curated(folder)
    assert accepted == [] and all("cannot be used (MemoryError" in r["reason"] for r in records
                                  if r["path"].endswith((".png", ".jpg")) and r["path"] not in
                                  ("small.png", "truncated.jpg"))
    monkeypatch.setattr(curation, "quality_checks", real)
    assert _curated(folder) == reference  # nothing wrong was kept


def test_other_rules_are_another_key(folder, decodes):
    calls, cache = decodes
    _curated(folder)
    strict = _curated(folder, rules=CurationRules(min_texture=60.0))
    assert len(list(cache.glob("decisions-*"))) == 2 and len(strict[1]) < 6
