"""``jigsaw-puzzles export verl``: train and validation parquet in verl's multimodal RL row layout.

``train.parquet``: the first ``train_size`` rows of :func:`jigsaw_puzzles.training.stream.training_stream` (the
``train`` side of the training photos, never a photo of the validation sets: they are its ``exclude``);
``val.parquet``: every item of the evaluation datasets (``jp.load_dataset`` or a built export). Rows:
:func:`.verl.verl_row`; images as PNG bytes with the ``datasets`` schema in the file, so verl's ``RLHFDataset``
(``datasets.load_dataset("parquet")``) hands them back as PIL images. Written in batches, with a labelled bar.
"""
from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Iterable, Mapping

from tqdm.auto import tqdm

from .verl import features, verl_row  # noqa: F401  (features: the rows' schema, here too)

#: Rows per parquet row group (each holds its images: keep the memory small).
BATCH = 64


def write_parquet(items: Iterable[Mapping], path: Path, split: str, total: int | None = None) -> int:
    """Write ``items`` as verl rows to ``path`` (``index`` counts from 0); returns the number of rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    feats = features()
    schema = feats.arrow_schema
    path.parent.mkdir(parents=True, exist_ok=True)
    n, batch = 0, []
    with pq.ParquetWriter(str(path), schema) as writer, \
            tqdm(total=total, desc=f"verl {split} rows", unit="row") as bar:
        for item in items:
            batch.append(feats.encode_example(verl_row(item, n, split)))
            n += 1
            bar.update(1)
            if len(batch) == BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    return n


def _stored(dataset):
    """A built dataset with its images as their stored PNG bytes (``{"bytes", "path"}``): written as they are,
    never decoded and encoded again (5-10x faster on full-size photos)."""
    import datasets

    if isinstance(dataset, datasets.Dataset) and isinstance(dataset.features.get("images"), datasets.List):
        return dataset.cast_column("images", datasets.List(datasets.Image(decode=False)))
    return dataset


def _elsewhere(evaluation_source, train_source) -> list:
    """``[evaluation_source]`` when it is not the training folder (whose own photos the guard reads), else ``[]``."""
    from ..generation.curation import curate
    from ..generation.sources import accepted_ids, photos_fingerprint

    if evaluation_source is None:
        return []  # the embedded photos: the guard looks them up by id
    if (Path(evaluation_source) / "curation_report.json").is_file():
        from ..publishing.outdir import read_report

        built_from = read_report(Path(evaluation_source)).get("fingerprint")
    else:
        built_from = photos_fingerprint(accepted_ids(curate(evaluation_source)))
    return [] if built_from == photos_fingerprint(accepted_ids(curate(train_source))) else [str(evaluation_source)]


def export(validation: Mapping[str, object], out: str | Path, train_size: int, train_source=None,
           train_seed: int = 0, evaluation_source=None) -> dict[str, tuple[Path, int]]:
    """``{config: dataset}`` (evaluation) -> ``out/val.parquet``; the training stream over ``train_source`` with
    the same configs (those it can cut), excluding every photo of ``validation`` and its copies ->
    ``out/train.parquet``. Returns ``{"train": (path, rows), "val": (path, rows)}`` (``train_size`` 0: no train
    file).

    ``evaluation_source``: the folder of photos (or the export) ``validation`` was built from (``None``: the
    embedded photos). The datasets carry source ids alone; the guard finds their pixels and fingerprints in that
    folder, or in the training folder when it is the same one, so flipped, cropped, framed or resized copies of a
    validation photo never go to train. With another training folder, copies of every photo of
    ``evaluation_source`` are kept out (not only the split's)."""
    from ..errors import UsageError
    from ..training.stream import STREAM_CONFIGS, training_stream

    out = Path(out)
    written = {}
    if train_size:
        mixture = {c: 1.0 for c in validation if c in STREAM_CONFIGS}
        if not mixture:
            raise UsageError(f"the training stream cuts none of {', '.join(validation)} (it cuts "
                             f"{', '.join(STREAM_CONFIGS)}); pass --train-size 0 for the validation file alone")
        exclude = list(validation.values()) + _elsewhere(evaluation_source, train_source)
        stream = training_stream(train_source, mixture=mixture, seed=train_seed, exclude=exclude)
        path = out / "train.parquet"
        written["train"] = (path, write_parquet(islice(iter(stream), train_size), path, "train", train_size))
    path = out / "val.parquet"
    items = (item for ds in validation.values() for item in _stored(ds))
    written["val"] = (path, write_parquet(items, path, "val", sum(len(ds) for ds in validation.values())))
    return written
