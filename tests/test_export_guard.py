"""An export is a complete exclusion set by itself (#44.3): ``exclude=EXPORT`` (the folder `build --out` writes, or
its Hub id) recognises every copy kind a folder of its photos recognises, with the same verdicts, because the export
carries the guard's evaluation index (``guard_index.parquet``: the two greys the guard reads of every photo), and
``verify`` checks that index against the photos.

Copies are made with random parameters (tests/fixtures/copies.py) of photos drawn at random; the measured rates on
more photos: docs/performance.md#copies-of-evaluation-photos (``benchmarks/guard.py --export``)."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from fixtures.copies import KINDS, make_copy, saved
from fixtures.photos import make_photo, write_photos
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.generation.curation import curate
from jigsaw_puzzles.generation.sources import normalise
from jigsaw_puzzles.publishing import guard_index

CONFIG = "order_restoration"


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """10 evaluation photos and their export; a training folder of 8 photos of its own and one copy of each
    evaluation photo, a kind each (every kind of the fixtures once, random parameters)."""
    from jigsaw_puzzles.publishing.export import build

    root = tmp_path_factory.mktemp("export_guard")
    rng = np.random.default_rng(4403)
    photos = write_photos(root / "photos", 10, start=int(rng.integers(10_000, 20_000)))
    build(root / "export", source=str(root / "photos"), configs=[CONFIG], cache_dir=str(root / "cache"))
    train = root / "train"
    write_photos(train, 8, start=int(rng.integers(30_000, 40_000)))
    fillers = [make_photo(9000 + k) for k in range(6)]
    for kind, path in zip(rng.permutation(KINDS), photos):
        (train / f"copy_{kind}.png").write_bytes(saved(make_copy(normalise(Image.open(path)), str(kind), rng,
                                                                 fillers), rng))
    return root / "photos", root / "export", train


def _copies(train, exclude) -> dict[str, bool]:
    """``{file: excluded}`` for every photo of ``train`` as ``training_stream(exclude=...)`` decides."""
    from jigsaw_puzzles.training.stream import training_stream

    accepted = {s.source_id: s.relpath for s in curate(train).accepted}
    rows = training_stream(train, mixture={CONFIG: 1}, exclude=exclude, eval_fraction=0.0, passes=1)
    streamed = {r["source_id"] for r in rows}
    return {name: sid not in streamed for sid, name in accepted.items()}


@pytest.mark.slow
def test_an_export_excludes_what_its_photo_folder_excludes(sets):
    photos, export, train = sets
    by_folder = _copies(train, photos)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the export carries the pixels the guard reads: nothing to warn about
        by_export = _copies(train, export)
    assert by_export == by_folder
    assert all(v for name, v in by_export.items() if name.startswith("copy_")), by_export  # every kind caught
    assert not any(v for name, v in by_export.items() if not name.startswith("copy_"))  # no distinct photo


def test_the_hub_id_of_an_export_is_the_same_exclusion_set(sets, tmp_path, monkeypatch):
    """``exclude="USER/jigsaw-puzzles"`` fetches the export's report and guard index only (here from the local
    export: no network), and decides as the folder does."""
    import huggingface_hub

    photos, export, train = sets
    fetched = []

    def snapshot_download(repo_id, repo_type, allow_patterns, **_):
        assert repo_id == "user/jigsaw-puzzles" and repo_type == "dataset"
        fetched.extend(allow_patterns)
        local = tmp_path / "hub"
        local.mkdir(exist_ok=True)
        for name in allow_patterns:
            shutil.copy(export / name, local / name)
        return str(local)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    assert _copies(train, "user/jigsaw-puzzles") == _copies(train, photos)
    assert sorted(fetched) == ["curation_report.json", "guard_index.parquet"]  # never the items


def test_a_hub_id_that_cannot_be_read_is_one_line(sets, monkeypatch):
    import huggingface_hub

    from jigsaw_puzzles.errors import UsageError
    from jigsaw_puzzles.training.stream import training_stream

    def offline(**_):
        raise huggingface_hub.errors.LocalEntryNotFoundError("offline and not in the cache")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    with pytest.raises(UsageError, match="no folder here and the Hub dataset nobody/nothing cannot be read"):
        training_stream(sets[2], exclude="nobody/nothing")


def test_the_export_loads_with_stock_datasets_and_its_index_holds_every_photo(sets, tmp_path):
    import datasets

    photos, export, _ = sets
    ds = datasets.load_dataset(str(export), CONFIG, split="test", cache_dir=str(tmp_path))
    index = guard_index.read(export / guard_index.FILE)
    assert set(ds["source_id"]) <= set(index.ids) == {s.source_id for s in curate(photos).accepted}
    report = json.loads((export / "curation_report.json").read_text())
    assert report["guard_index"] == {"file": guard_index.FILE, "photos": len(index.ids),
                                     "digest": guard_index.digest((sid, *index.greys(sid)) for sid in index.ids)}


def _rewrite(path: Path, change) -> None:
    rows = pq.read_table(path).to_pylist()
    pq.write_table(pa.Table.from_pylist(change(rows)), path)


def _verify(folder, photos, capsys) -> tuple[int, str]:
    code = main(["verify", str(folder), "--source", str(photos)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_verify_names_every_change_to_the_guard_index(sets, tmp_path, capsys):
    import io

    photos, export, _ = sets
    code, text = _verify(export, photos, capsys)
    assert code == 0 and "EXPORT:" not in text, text
    copy = tmp_path / "edited"
    shutil.copytree(export, copy)
    index = guard_index.read(copy / guard_index.FILE)
    dropped, edited = index.ids[0], index.ids[1]

    def change(rows):
        small = np.asarray(Image.open(io.BytesIO(rows[1]["small"]))).copy()
        small[3, 5] ^= 1  # one grey level of one pixel
        buffer = io.BytesIO()
        Image.fromarray(small, mode="L").save(buffer, "PNG")
        return [dict(rows[1], small=buffer.getvalue())] + rows[2:] + [dict(rows[2], source_id="0" * 16)]

    _rewrite(copy / guard_index.FILE, change)
    code, text = _verify(copy, photos, capsys)
    assert code == 1, text
    for line in (f"guard_index.parquet lacks the photo {dropped}", f"the greys of {edited} are not its photo's",
                 "holds 0000000000000000, which this rebuild's curation did not accept",
                 "its 'guard_index' record (photos, digest) is not that of guard_index.parquet"):
        assert line in text, f"{line!r} not in:\n{text}"
    (copy / guard_index.FILE).unlink()
    code, text = _verify(copy, photos, capsys)
    assert code == 1 and "guard_index.parquet (the guard's evaluation index, which exclude=EXPORT reads) is missing" \
        in text, text
