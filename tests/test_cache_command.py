"""``jigsaw-puzzles cache``: what the package keeps on disk, listed by kind from files its real code paths wrote;
``prune`` deletes the stale entries only, ``clear`` the kinds named; neither touches a file the package does not
write (:mod:`jigsaw_puzzles.generation.cacheadmin`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fixtures.photos import write_photos
from jigsaw_puzzles.cli import main

pytest.importorskip("cv2")


def _listing(capsys, root) -> dict:
    capsys.readouterr()
    assert main(["cache", "--json", "--cache-dir", str(root.parent)]) == 0
    data = json.loads(capsys.readouterr().out)
    out: dict = {}
    for e in data["entries"]:
        out.setdefault(e["kind"], []).append(e)
    return out


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """A datasets cache with every kind written by the code that writes it (a build, curation decisions, the
    guard's features and verdicts, CLIP embeddings), plus a stale entry of each kind and a file of somebody else's."""
    from jigsaw_puzzles.generation import cachefiles
    from jigsaw_puzzles.generation.builder import load_dataset
    from jigsaw_puzzles.generation.clip.cache import EmbeddingCache
    from jigsaw_puzzles.generation.clip.weights import WeightsSpec
    from jigsaw_puzzles.generation.curation import curate
    from jigsaw_puzzles.generation.sources import load_normalised
    from jigsaw_puzzles.training.copies import training_features
    from jigsaw_puzzles.training.guard_cache import FeatureStore, VerdictStore

    root = tmp_path / "hf" / "jigsaw_puzzles"
    monkeypatch.setenv(cachefiles.ENV, str(root))  # curation and guard below the builds, as by default
    folder = tmp_path / "photos"
    write_photos(folder, 4, start=900)
    load_dataset("order_generation", source=str(folder), cache_dir=str(root.parent))
    accepted = curate(folder).accepted
    guard = root / "guard"
    for s in accepted[:2]:
        FeatureStore(guard).store(s.source_id, training_features(load_normalised(s.path)))
    VerdictStore(guard, ("a set",)).store({accepted[0].source_id: None})
    spec = WeightsSpec(model_name="ViT-S-32", pretrained=None, kind="random", identity="random-init-portable-seed0")
    EmbeddingCache(root / "clip", spec, "fp32").store("abcdabcdabcdabcd", "f" * 64, np.zeros((9, 4), np.float32))

    stale = {
        "builds": root / "order_generation-0123456789abcdef" / "1.0.0" / "00000000deadbeef",
        "curation": root / "curation" / "decisions-00000000deadbeef",
        "guard": root / "guard" / "features-00000000deadbeef",
        "clip": root / "clip" / "ViT-S-32__old__fp32__00000000deadbeef",
    }
    for kind, entry in stale.items():
        (entry / "ab").mkdir(parents=True)
    (stale["builds"] / "jigsaw_puzzles-test.arrow").write_bytes(b"x" * 10)
    (stale["builds"].parent / "00000000deadbeef_builder.lock").write_text("")
    (stale["curation"] / "ab" / "ab00000000000000.json").write_text("{}")
    (stale["curation"] / "meta.json").write_text(json.dumps({"code": "0" * 16}))
    (stale["guard"] / "ab" / "ab00000000000000.npy").write_bytes(b"x")
    (stale["clip"] / "meta.json").write_text(json.dumps({"format": 0}))
    (stale["clip"] / "abcdabcdabcdabcd.g3x3.0123456789abcdef.npy").write_bytes(b"x")
    for entry in stale.values():  # written and last read 60 days ago: an old version's, nobody's now
        age(entry, 60)
    mine = stale["curation"] / "ab" / "notes.txt"  # a file the package never writes
    mine.write_text("keep me")
    beside = root / "README.txt"
    beside.write_text("keep me too")
    return root, stale, mine, beside


def age(entry: Path, days: float) -> None:
    """Every file of ``entry`` last modified and read ``days`` ago."""
    import os
    import time

    when = time.time() - days * 86400
    for file in [p for p in entry.rglob("*") if p.is_file()]:
        os.utime(file, (when, when))


def test_the_listing_counts_what_the_package_wrote_and_tells_stale_from_current(kept, capsys):
    root, stale, mine, _ = kept
    kinds = _listing(capsys, root)
    assert sorted(kinds) == ["builds", "clip", "curation", "guard"]
    for kind, entries in kinds.items():
        current = [e for e in entries if e["current"]]
        assert len(current) == (2 if kind == "guard" else 1), (kind, entries)  # guard: features and verdicts
        assert all(e["files"] > 0 and e["foreign"] == [] for e in current), current  # every file written is known
        assert [e["path"] for e in entries if not e["current"]] == [str(stale[kind])]
    assert [e["foreign"] for e in kinds["curation"] if not e["current"]] == [[str(mine)]]

    assert main(["cache", "guard", "--json", "--cache-dir", str(root.parent)]) == 0  # one kind named
    assert {e["kind"] for e in json.loads(capsys.readouterr().out)["entries"]} == {"guard"}
    assert main(["cache", "--cache-dir", str(root.parent)]) == 0
    table = capsys.readouterr().out
    assert "builds" in table and "cache prune` frees" in table and "1 file in these folders" in table


def test_prune_deletes_the_stale_entries_and_nothing_else(kept, capsys):
    root, stale, mine, beside = kept
    before = _listing(capsys, root)
    assert main(["cache", "prune", "--cache-dir", str(root.parent)]) == 0
    out = capsys.readouterr().out
    assert "prune: 4 stale entries of builds, clip, curation, guard; deleted" in out and "left 1 file (not written by this package" in out
    after = _listing(capsys, root)
    left = [e for e in after["curation"] if not e["current"]]  # the folder holding the foreign file stays
    assert [(e["path"], e["files"], e["foreign"]) for e in left] == [(str(stale["curation"]), 0, [str(mine)])]
    assert {k: [e for e in v if e["current"]] for k, v in after.items()} == \
        {k: [e for e in v if e["current"]] for k, v in before.items()}
    for kind in ("builds", "guard", "clip"):
        assert not stale[kind].exists()
    assert not (root / "order_generation-0123456789abcdef").exists()  # its empty folders and lock went too
    assert mine.read_text() == "keep me" and beside.read_text() == "keep me too"
    assert not (stale["curation"] / "ab" / "ab00000000000000.json").exists()


def test_prune_keeps_stale_entries_another_installed_version_used_lately_and_says_so(kept, capsys):
    """#44 3.3: on a shared cache (two venvs, one HF_HOME) `cache prune` deleted the other version's live entries:
    stale to this version, read by that one. An entry used (written or read) in the last --older-than days stays."""
    root, stale, _, _ = kept
    other = root / "guard" / "features-1111111111111111"  # another installed version's, read yesterday
    (other / "ab").mkdir(parents=True)
    (other / "ab" / "ab11111111111111.npy").write_bytes(b"y" * 100)
    age(other, 1)
    assert main(["cache", "prune", "--cache-dir", str(root.parent)]) == 0
    out = capsys.readouterr().out
    assert "prune: 4 stale entries" in out and other.exists() and not stale["guard"].exists()
    assert "and 1 stale entry used in the last 30 days (100 B: another installed version sharing this cache may " \
           "read them; `--older-than 0` deletes them too)" in out
    assert main(["cache", "prune", "--older-than", "0.5", "--cache-dir", str(root.parent)]) == 0
    assert "deleted 1 file, 100 B" in capsys.readouterr().out and not other.exists()


@pytest.mark.parametrize("argv, said", [
    (["cache", "purge"], "unknown cache action or kind purge: the actions are list, prune, clear, the kinds builds"),
    (["cache", "--cache-dir", "/nonexistent/hf"], "--cache-dir /nonexistent/hf: no such folder"),
    (["cache", "clear", "--older-than", "3"], "--older-than goes with prune"),
    (["cache", "prune", "--older-than", "-1"], "--older-than must be a number of days >= 0"),
])
def test_cache_mistakes_are_one_line_naming_what_to_do(argv, said, tmp_path, capsys):
    if "--cache-dir" not in argv:
        argv = [*argv, "--cache-dir", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and said in err, err


def test_clear_deletes_the_kinds_named_and_is_refused_without_one(kept, capsys):
    root, stale, mine, beside = kept
    assert main(["cache", "clear", "--cache-dir", str(root.parent)]) == 2
    assert main(["cache", "clear", "nonsense", "--cache-dir", str(root.parent)]) == 2
    err = capsys.readouterr().err
    assert "name the kinds to clear" in err and "unknown cache kind nonsense" in err
    assert main(["cache", "clear", "guard", "--cache-dir", str(root.parent)]) == 0
    assert "guard" not in _listing(capsys, root)
    assert {"builds", "clip", "curation"} <= set(_listing(capsys, root))
    assert main(["cache", "clear", "--all", "--cache-dir", str(root.parent)]) == 0
    left = _listing(capsys, root)
    assert list(left) == ["curation"] and [e["files"] for e in left["curation"]] == [0]  # only the foreign file
    assert mine.read_text() == "keep me" and beside.read_text() == "keep me too"
    assert sorted(p.name for p in root.iterdir()) == ["README.txt", "curation"]


def test_a_build_after_clear_builds_again(tmp_path, monkeypatch, capsys):
    """Clearing while nothing runs loses time only: the next load builds the same rows."""
    from jigsaw_puzzles.generation import cachefiles
    from jigsaw_puzzles.generation.builder import load_dataset

    monkeypatch.setenv(cachefiles.ENV, "off")
    folder = tmp_path / "photos"
    write_photos(folder, 3, start=950)
    cache = tmp_path / "hf"
    first = load_dataset("order_restoration", source=str(folder), cache_dir=str(cache))
    ids = first["id"]
    del first
    assert main(["cache", "clear", "builds", "--cache-dir", str(cache)]) == 0
    assert not list(Path(cache).rglob("*.arrow"))
    assert load_dataset("order_restoration", source=str(folder), cache_dir=str(cache))["id"] == ids
    capsys.readouterr()
    assert main(["cache", "--cache-dir", str(cache)]) == 0
    assert "off (JIGSAW_PUZZLES_CACHE)" in capsys.readouterr().out


def test_a_file_the_system_will_not_delete_is_left_and_said(kept, capsys, monkeypatch):
    """A permission error (a shared cache, a read-only mount) is one more file left, never a traceback."""
    root, stale, _, _ = kept
    locked = stale["guard"] / "ab" / "ab00000000000000.npy"
    real_unlink = Path.unlink

    def unlink(self, *args, **kwargs):
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real_unlink(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", unlink)
    assert main(["cache", "prune", "guard", "--cache-dir", str(root.parent)]) == 0
    out = capsys.readouterr().out
    assert "prune: 1 stale entry of guard; deleted 0 files, 0 B" in out and f"and their folders: {locked}" in out
    assert locked.exists()
