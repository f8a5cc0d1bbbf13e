"""Every path that keeps evaluation photos out of training passes what the guard needs to see copies (#35.3): a
resized, re-encoded copy of an evaluation photo in the training folder is never served by the stream behind
``export verl``, TRL's tool rows, the Gymnasium environment or the verifiers taskset (the stream's own forms:
tests/test_neardup.py, tests/test_guard.py). Each test first shows the copy is served when the path drops what the
guard reads, so none of them passes by accident."""

from __future__ import annotations

import io
import warnings

import pyarrow.parquet as pq
import pytest
from PIL import Image

from fixtures.photos import write_photos
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.generation.sources import content_id
from jigsaw_puzzles.training.stream import holdout, training_stream


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Four evaluation photos; a training folder of eight photos and a 0.8x JPEG copy of evaluation photo 0 (its
    quality chosen so that the copy is on the train side of the hold-out, where it would be served)."""
    root = tmp_path_factory.mktemp("paths")
    evaluation, train = root / "eval", root / "train"
    first = write_photos(evaluation, 4, start=800)[0]
    write_photos(train, 8, start=820)
    image = Image.open(first)
    small = image.resize((round(image.width * 0.8), round(image.height * 0.8)), Image.Resampling.LANCZOS)
    for quality in range(70, 96):
        buffer = io.BytesIO()
        small.save(buffer, "JPEG", quality=quality)
        if holdout(content_id(buffer.getvalue())) == "train":
            break
    (train / "copy.jpg").write_bytes(buffer.getvalue())
    return evaluation, train, content_id(buffer.getvalue())


def served_ids(rows, n: int) -> set[str]:
    """The photos of the first ``n`` rows (a pass serves each of the 8 train-side photos once)."""
    out = set()
    for k, row in enumerate(rows):
        out.add(row["id"].split("/")[1] if "source_id" not in row else row["source_id"])
        if k + 1 >= n:
            break
    return out


@pytest.mark.slow
def test_export_verl_never_sends_a_copy_of_a_validation_photo_to_train(folders, tmp_path, cache_dir):
    import jigsaw_puzzles as jp
    from jigsaw_puzzles.integrations.verl_export import export

    evaluation, train, copy = folders
    validation = {"order_generation": jp.load_dataset("order_generation", source=evaluation, cache_dir=cache_dir)}
    with pytest.warns(UserWarning, match="known by source id only"):  # the ids alone: what `export verl` passed
        export(validation, tmp_path / "ids", 12, train_source=train)
    rows = pq.read_table(tmp_path / "ids" / "train.parquet").to_pylist()
    assert copy in {r["extra_info"]["id"].split("/")[1] for r in rows}
    out = tmp_path / "cli"
    assert main(["export", "verl", "--out", str(out), "--source", str(evaluation), "--train-source", str(train),
                 "--configs", "order_generation", "--train-size", "12"]) == 0
    rows = pq.read_table(out / "train.parquet").to_pylist()
    ids = {r["extra_info"]["id"].split("/")[1] for r in rows}
    from jigsaw_puzzles.generation.curation import curate

    assert ids == {s.source_id for s in curate(train).accepted if holdout(s.source_id) == "train"} - {copy}


@pytest.mark.parametrize("path", ["tool_rows", "gym", "verifiers"])
def test_every_training_path_excludes_a_copy_of_an_evaluation_photo(folders, path):
    evaluation, train, copy = folders

    def rows(exclude):
        if path == "tool_rows":
            from jigsaw_puzzles.interactive.trl_env import tool_rows

            stream = training_stream(train, {"order_generation_3x3": 1}, exclude=exclude)
            return served_ids(tool_rows(stream), 12)
        if path == "gym":
            from jigsaw_puzzles.interactive.gym_env import JigsawEnv

            env = JigsawEnv("order_generation_3x3", source=train, exclude=exclude)
            ids = {env.reset(seed=0)[1]["id"].split("/")[1]}
            ids |= {env.reset()[1]["id"].split("/")[1] for _ in range(11)}
            return ids
        from jigsaw_puzzles.integrations.verifiers_env import JigsawTaskset, JigsawTasksetConfig

        config = JigsawTasksetConfig(configs=["order_generation_3x3"], source=str(train), stream=True,
                                     exclude=None if exclude is None else str(exclude))
        return served_ids(({"id": task.data.id} for task in JigsawTaskset(config).load()), 12)

    assert copy in rows(None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a folder of photos: pixels and fingerprints, nothing to warn about
        assert copy not in rows(evaluation)
