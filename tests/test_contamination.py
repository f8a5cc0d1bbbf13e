"""Contamination the defaults allowed (#44.2): what no training path may touch without being asked.

* The training stream excludes the package's own evaluation photos (the embedded photos) and their copies, by
  fingerprint and, with OpenCV, by local features, without ``exclude=``: a folder holding copies of them streams
  none of them (drawn at random: which photos, which copies).
* The TRL and training helpers refuse an evaluation split (the embedded photos' test and Lite splits, an export's
  items), and warn instead where ``smoke_test=True`` asks for it.
"""

from __future__ import annotations

import io
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps

from fixtures.copies import make_copy, saved
from fixtures.photos import make_photo, write_photos
from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.generation.curation import curate
from jigsaw_puzzles.generation.sources import embedded_folder, list_files, normalise

EMBEDDED = list_files(embedded_folder())
ROOT = Path(__file__).resolve().parents[1]


def _reencoded(photo: Image.Image, rng) -> bytes:
    """A re-encoded, resized copy (what the pHash rule alone recognises)."""
    s = rng.uniform(0.6, 1.4)
    out = photo.resize((round(photo.width * s), round(photo.height * s)), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    out.save(buffer, "JPEG", quality=int(rng.integers(60, 95)))
    return buffer.getvalue()


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    """A training folder as a crawl makes it: 10 photos of its own and copies of 15 embedded photos drawn at random,
    one each (curation keeps one of a photo and its re-encode): 5 byte copies, 5 re-encoded resized copies and 5 of
    a kind only local features recognise (a flip, a crop, a screenshot). Returns the folder, the ids of its own
    photos and the file names of the copies."""
    rng = np.random.default_rng(4402)
    folder = tmp_path_factory.mktemp("crawl")
    write_photos(folder, 10, start=7100)
    fillers = [make_photo(7300 + k) for k in range(6)]
    copies = []
    for n, k in enumerate(rng.choice(len(EMBEDDED), 15, replace=False)):
        path = EMBEDDED[int(k)]
        photo = normalise(Image.open(path))
        if n < 5:
            name = f"same_{k}{path.suffix}"
            shutil.copy(path, folder / name)
        elif n < 10:
            name = f"reencoded_{k}.jpg"
            (folder / name).write_bytes(_reencoded(photo, rng))
        else:
            kind = str(rng.choice(["flip", "crop", "screenshot"]))
            name = f"{kind}_{k}.png"
            (folder / name).write_bytes(saved(make_copy(photo, kind, rng, fillers), rng))
        copies.append(name)
    accepted = {s.relpath: s.source_id for s in curate(folder).accepted}
    own = {sid for name, sid in accepted.items() if name.startswith("photo_")}
    return folder, own, [name for name in copies if name in accepted]  # (curation rejects a flat crop, say)


def _streamed(folder, **kwargs) -> set[str]:
    from jigsaw_puzzles.training.stream import training_stream

    rows = training_stream(folder, mixture={"order_generation": 1}, eval_fraction=0.0, passes=1, **kwargs)
    return {r["source_id"] for r in rows}


def test_the_stream_never_yields_the_embedded_photos_or_their_copies_without_exclude(crawl):
    folder, own, copies = crawl
    ids = {s.relpath: s.source_id for s in curate(folder).accepted}
    assert len(copies) >= 12 and len(own) == 10  # photos of the folder (curation kept them): only the guard keeps
    # the copies out
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to warn about: the package knows its photos' pixels
        got = _streamed(folder)
    assert got == own, sorted(name for name, sid in ids.items() if sid in got - own)


def test_without_opencv_the_embedded_photos_and_their_re_encodes_are_excluded_by_fingerprint(crawl, monkeypatch):
    """Without the guard extra the stream still runs and still excludes the embedded photos' exact and re-encoded
    copies (pHash): what the docs promise there."""
    from jigsaw_puzzles.training import exclusion

    folder, own, copies = crawl
    monkeypatch.setitem(sys.modules, "cv2", None)  # import cv2 raises ImportError
    assert not exclusion.guard_installed()
    ids = {s.relpath: s.source_id for s in curate(folder).accepted}
    got = _streamed(folder)
    assert own <= got
    assert not got & {ids[name] for name in copies if name.startswith(("same_", "reencoded_"))}


def test_source_embedded_still_streams_the_embedded_photos_for_a_smoke_test():
    with pytest.warns(UserWarning, match="smoke test"):
        got = _streamed("embedded")
    assert len(got) >= 50


def test_a_folder_of_only_embedded_copies_is_refused_with_why(tmp_path):
    for path in EMBEDDED[:8]:
        shutil.copy(path, tmp_path / path.name)
        ImageOps.mirror(Image.open(path).convert("RGB")).save(tmp_path / f"mirror_{path.stem}.png")
    with pytest.raises(UsageError, match="embedded photos, the default benchmark's, are always excluded"):
        _streamed(tmp_path)


# --- the training helpers refuse an evaluation split (#44.1) ---------------------------------------------------

@pytest.fixture(scope="module")
def export(tmp_path_factory):
    """An export of the embedded photos (one config), as `jigsaw-puzzles build --out` writes it."""
    from jigsaw_puzzles.publishing.export import build

    root = tmp_path_factory.mktemp("export")
    build(root / "jigsaw_puzzles", configs=["order_generation"], cache_dir=str(root / "cache"))
    return root / "jigsaw_puzzles"


def _evaluation_splits(export, tmp_path):
    """Every way a user holds the benchmark's evaluation items: the embedded photos' test and Lite splits, an
    export loaded by stock datasets (a split, every split, a stream of it), and the rows copied out of a split (no
    split recorded: their ids say what they are)."""
    import datasets

    import jigsaw_puzzles as jp

    test = jp.load_dataset("order_generation", cache_dir=str(tmp_path / "c"))
    yield "embedded test", test
    yield "embedded lite", jp.load_dataset("order_generation", split="lite", cache_dir=str(tmp_path / "c"))
    yield "export test", datasets.load_dataset(str(export), "order_generation", split="test",
                                               cache_dir=str(tmp_path / "d"))
    yield "export, every split", datasets.load_dataset(str(export), "order_generation", cache_dir=str(tmp_path / "d"))
    yield "export streamed", datasets.load_dataset(str(export), "order_generation", split="lite", streaming=True)
    yield "rows copied out", datasets.Dataset.from_list([dict(r) for r in test.select(range(3))])


def _first(made):
    """The first row a helper's output gives (a stream's rows are converted, and checked, as they come)."""
    return next(iter(made if not hasattr(made, "values") else next(iter(made.values()))))


def test_the_readme_quickstart_trains_on_no_evaluation_split():
    block = (ROOT / "README.md").read_text().split("## Quickstart 3")[1].split("```python")[1].split("```")[0]
    assert "load_dataset" not in block and "split=" not in block
    assert block.count("training_stream(") == block.count('exclude="./jigsaw_puzzles"') == 2


def test_with_prompt_refuses_the_embedded_lite_split_and_its_rows(tmp_path):
    import datasets

    import jigsaw_puzzles as jp

    lite = jp.load_dataset("order_generation", split="lite", cache_dir=str(tmp_path))
    copied = datasets.Dataset.from_list([dict(r) for r in lite.select(range(2))])
    for data in (lite, copied, lite.to_iterable_dataset()):
        with pytest.raises(UsageError, match="was given an evaluation split .*smoke_test=True"):
            _first(jp.with_prompt(data))
    with pytest.raises(UsageError, match="evaluation split"):
        jp.to_messages(lite[0], completion=True)
    assert jp.to_messages(lite[0])["prompt"]  # a prompt alone is what evaluating it needs
    with pytest.warns(UserWarning, match="smoke_test=True"):
        assert _first(jp.with_prompt(copied, completion=True, smoke_test=True))["completion"]


@pytest.mark.slow
def test_the_training_helpers_refuse_every_evaluation_split(export, tmp_path):
    import jigsaw_puzzles as jp
    from jigsaw_puzzles.interactive import tool_rows

    for name, split in _evaluation_splits(export, tmp_path):
        for helper in (jp.with_prompt, lambda d, **k: jp.with_prompt(d, completion=True, **k), tool_rows):
            with pytest.raises(UsageError, match="was given an evaluation split .*smoke_test=True"):
                _first(helper(split))
        if name in ("export streamed", "rows copied out"):  # the cheap ones: smoke_test takes them
            with pytest.warns(UserWarning, match="smoke_test=True"):
                row = _first(jp.with_prompt(split, completion=True, smoke_test=True))
            assert row["completion"][0]["content"][0]["text"] == row["answer"], name


def test_the_helpers_take_training_stream_rows_without_a_word(photo_dir):
    import datasets

    import jigsaw_puzzles as jp
    from jigsaw_puzzles.interactive import tool_rows

    stream = jp.training_stream(photo_dir, mixture={"order_generation": 1}, seed=0)
    rows = list(stream.take(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for data in (stream, datasets.Dataset.from_list(rows)):
            assert next(iter(jp.with_prompt(data, completion=True)))["completion"]
            assert next(iter(tool_rows(data)))["pieces"]
        assert jp.to_messages(rows[0], completion=True)["completion"]
