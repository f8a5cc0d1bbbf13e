"""A build over several machines (#35 section 2): ``build --shard i/n`` on each, ``merge`` of the parts.

Every shard curates and plans the whole folder, so the merged export is the one-machine export byte for byte
(docs/tasks.md, "Building on several machines").
"""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fixtures.photos import make_photo, write_photos
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.generation.plan import in_shard, shard_value
from jigsaw_puzzles.generation.sources import content_id
from jigsaw_puzzles.publishing.export import build
from jigsaw_puzzles.publishing.shards import merge

CONFIGS = ["missing_piece_selection_easy", "anomaly_detection"]  # distractors from the pool; a letter plan of 3


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> Path:
    """Photos, a near duplicate (the duplicate rule must decide over the whole folder) and a bad file."""
    folder = tmp_path_factory.mktemp("photos")
    write_photos(folder, 11)
    buf = io.BytesIO()
    make_photo(2).resize((400, 300)).save(buf, "JPEG", quality=80)
    (folder / "copy_of_2.jpg").write_bytes(buf.getvalue())
    (folder / "broken.jpg").write_bytes(b"\xff\xd8 not a photo")
    return folder


@pytest.fixture(scope="module")
def whole(photos, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole") / "export"
    build(out, source=str(photos), seed=5, configs=CONFIGS, cache_dir=str(out.parent / "cache"))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3])
def test_shard_builds_merged_are_the_one_machine_export(photos, whole, tmp_path, n):
    parts = []
    for i in reversed(range(n)):  # any order of machines
        out = tmp_path / f"part{i}"
        build(out, source=str(photos), seed=5, configs=CONFIGS, cache_dir=str(tmp_path / f"cache{i}"), shard=(i, n))
        parts.append(out)
        for config in CONFIGS:  # each part holds only its own photos' items
            ids = pq.read_table(out / config / f"test-{i:05d}-of-{n:05d}.parquet").column("source_id").to_pylist()
            assert ids and all(in_shard(s, (i, n)) for s in ids)
    merged = tmp_path / "merged"
    merge(parts, merged)
    assert _tree(merged) == _tree(whole)


@pytest.mark.slow
def test_the_cli_builds_a_shard_and_merges(photos, whole, tmp_path, capsys):
    for i in range(2):
        assert main(["build", "--out", str(tmp_path / f"p{i}"), "--source", str(photos), "--seed", "5",
                     "--configs", *CONFIGS, "--shard", f"{i}/2", "--cache-dir", str(tmp_path / "c")]) == 0
    assert main(["merge", str(tmp_path / "p1"), str(tmp_path / "p0"), "--out", str(tmp_path / "m")]) == 0
    assert _tree(tmp_path / "m") == _tree(whole)
    capsys.readouterr()
    assert main(["merge", str(tmp_path / "p1"), "--out", str(tmp_path / "m2")]) == 2  # shard 0/2 missing
    assert "missing 0/2" in capsys.readouterr().err and not (tmp_path / "m2").exists()
    assert main(["build", "--out", str(tmp_path / "x"), "--shard", "2/2"]) == 2
    assert "i counts from 0 to n - 1" in capsys.readouterr().err
    assert main(["merge", str(tmp_path / "p1"), str(tmp_path / "p0"), "--out", str(tmp_path / "m3"),
                 "--num-proc", "0"]) == 2 and not (tmp_path / "m3").exists()


@pytest.mark.slow
def test_parts_of_different_builds_are_refused(photos, tmp_path):
    build(tmp_path / "a", source=str(photos), seed=5, configs=CONFIGS[:1], shard=(0, 2),
          cache_dir=str(tmp_path / "c"))
    build(tmp_path / "b", source=str(photos), seed=6, configs=CONFIGS[:1], shard=(1, 2),
          cache_dir=str(tmp_path / "c"))
    with pytest.raises(UsageError, match="not shards of one build: their .*seed"):
        merge([tmp_path / "a", tmp_path / "b"], tmp_path / "m")
    with pytest.raises(UsageError, match="both shard 0/2"):
        merge([tmp_path / "a", tmp_path / "a"], tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_shards_split_the_ids_in_order_and_evenly():
    ids = sorted(content_id(str(k).encode()) for k in range(3000))
    for n in (1, 2, 3, 7):
        shards = [[s for s in ids if in_shard(s, (i, n))] for i in range(n)]
        assert [s for shard in shards for s in shard] == ids  # shard by shard: the whole build's order
        assert all(abs(len(shard) - len(ids) / n) < 5 * (len(ids) / n) ** 0.5 for shard in shards)
    assert shard_value("1/4") == (1, 4) and shard_value(None) is None
    for bad in ("4/4", "-1/4", "1/0", "a/b", (0.5, 2), (True, 2), "1/2/3"):
        with pytest.raises(UsageError):
            shard_value(bad)
