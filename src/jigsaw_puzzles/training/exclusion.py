"""The contamination guard's reading of an evaluation set (``training_stream(exclude=...)``): the source ids it
names, with each photo's near-duplicate fingerprint where the set carries one, and the training photos that are near
copies of them. The forms taken and refused: :func:`eval_ids`; the stream's module doc says why.
"""
from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any, Iterable

from ..errors import SourceFolderError, UsageError
from ..generation import neardup
from ..generation.sources import curate, folder_fingerprint

_SOURCE_ID = re.compile(r"[0-9a-f]{16}")


def eval_ids(exclude: Any, train_fingerprint: str) -> dict[str, Any]:
    """The source ids of an evaluation set (see :func:`training_stream`) with each photo's near-duplicate
    fingerprint where the set carries it (``None`` where not); ``UsageError`` for anything else, for one that names
    no photo, and when it is the training folder itself."""
    if exclude is None:
        return {}
    ids = _ids_of(exclude, train_fingerprint)
    if not ids:
        raise UsageError(f"exclude={_show(exclude)} names no photo: it would exclude nothing (pass exclude=None "
                         "to train without an evaluation set)")
    return ids


def _show(exclude: Any) -> str:
    text = str(exclude) if isinstance(exclude, (str, os.PathLike)) else type(exclude).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _merge(parts: Iterable[dict]) -> dict:
    out: dict = {}
    for part in parts:
        for sid, fp in part.items():
            if out.get(sid) is None:
                out[sid] = fp
    return out


def _ids_of(exclude: Any, train_fingerprint: str) -> dict:
    import datasets

    if isinstance(exclude, (datasets.DatasetDict, datasets.IterableDatasetDict)):
        return _merge(_ids_of(split, train_fingerprint) for split in exclude.values())
    if isinstance(exclude, datasets.Dataset):
        if "source_id" not in exclude.column_names:
            raise UsageError(f"exclude: the Dataset has no source_id column (it has {', '.join(exclude.column_names)})"
                             ": pass the benchmark's rows, an export folder or source ids")
        return dict.fromkeys(exclude["source_id"])
    if isinstance(exclude, datasets.IterableDataset):
        raise UsageError("exclude: an IterableDataset may never end (a training stream is one): pass a Dataset, an "
                         "export folder, a parquet file or source ids")
    if isinstance(exclude, str) and not exclude.strip():  # Path("") is the current folder: never meant
        raise UsageError(f"exclude={exclude!r} is an empty path, not an evaluation set: pass an export folder, a "
                         "parquet file, a Dataset or source ids (exclude=None trains without an evaluation set)")
    if isinstance(exclude, (str, os.PathLike)):
        path = Path(exclude)
        if path.is_file():
            return _parquet_ids(path)
        if path.is_dir():
            return _folder_ids(path, train_fingerprint)
        if isinstance(exclude, str) and _SOURCE_ID.fullmatch(exclude):
            if exclude == train_fingerprint:
                raise UsageError(f"fingerprint {exclude} is the training folder's own: it is the evaluation set")
            return {exclude: None}
        raise UsageError(f"exclude: {exclude} does not exist (nor is it a source id: 16 hex digits)")
    if isinstance(exclude, (list, tuple, set, frozenset)):
        return _merge(_ids_of(x, train_fingerprint) for x in exclude)
    raise UsageError(f"exclude takes an export folder, a save_to_disk folder, a parquet file, a Dataset or "
                     f"DatasetDict with a source_id column, a folder of photos, or source ids; not a "
                     f"{type(exclude).__name__}")


def _parquet_ids(path: Path) -> dict:
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
    except Exception as e:  # not parquet at all
        raise UsageError(f"exclude: {path} is not a parquet file ({e})") from None
    if "source_id" not in names:
        raise UsageError(f"exclude: {path} has no source_id column")
    return dict.fromkeys(pq.read_table(path, columns=["source_id"]).column("source_id").to_pylist())


def _folder_ids(folder: Path, train_fingerprint: str) -> dict:
    """An export (``curation_report.json``), a ``save_to_disk`` folder, a folder of parquet files, or photos."""
    from ..publishing.outdir import read_report  # a corrupt report is one line, as in `build`

    report = folder / "curation_report.json"
    if report.is_file() and read_report(folder).get("fingerprint") == train_fingerprint:
        raise UsageError(f"the training folder is the one the evaluation export {folder} was built from "
                         f"(fingerprint {train_fingerprint}): train on other photos")
    if (folder / "dataset_dict.json").is_file() or (folder / "state.json").is_file():
        import datasets

        return _ids_of(datasets.load_from_disk(str(folder)), train_fingerprint)
    parquets = sorted(folder.rglob("*.parquet"))
    if parquets or report.is_file():
        ids = _merge(_parquet_ids(p) for p in parquets)
        if report.is_file():  # the export's curation records the fingerprints of its photos
            recorded = _fingerprints(read_report(folder)["curation"].get("records") or [])
            ids = {sid: recorded.get(sid) for sid in ids}
        return ids
    try:
        if folder_fingerprint(folder) == train_fingerprint:
            raise UsageError(f"the evaluation folder {folder} is the training folder: train on other photos")
        return _fingerprints(curate(folder).records, accepted_only=True)
    except SourceFolderError:  # nothing readable: the caller says it names no photo
        return {}


def _fingerprints(records: Iterable, accepted_only: bool = False) -> dict:
    """``{source_id: fingerprint}`` of curation records (objects or the report's dicts) that carry one."""
    out = {}
    for r in records:
        r = r if isinstance(r, dict) else vars(r)
        if isinstance(r.get("source_id"), str) and (r.get("status") == "accepted" or not accepted_only):
            fp = neardup.from_hex(r.get("phash") or ())
            if fp is not None or r.get("status") == "accepted":
                out[r["source_id"]] = fp
    return out


def near_copies(curation, evaluation: dict, bits: int) -> set[str]:
    """The training photos that are near duplicates of an evaluation photo (:mod:`..generation.neardup`). Ids
    without a fingerprint (a Dataset, a parquet file, bare ids, an export written before fingerprints were
    recorded) are looked up among the embedded photos; those still unknown are excluded by id only, with a
    warning."""
    unknown = {sid for sid, fp in evaluation.items() if fp is None}
    if unknown:
        embedded = _fingerprints(curate(None).records, accepted_only=True)
        evaluation = {**evaluation, **{sid: embedded[sid] for sid in unknown & embedded.keys()}}
        unknown -= embedded.keys()
    if unknown:
        warnings.warn(f"exclude: {len(unknown)} of {len(evaluation)} evaluation photos are known by source id only "
                      "(no fingerprint in what was passed): their exact copies are never yielded, but re-encoded, "
                      "resized or cropped copies cannot be recognised; pass the export folder or the folder of the "
                      "evaluation photos instead", UserWarning, stacklevel=3)
    known = {sid: fp for sid, fp in evaluation.items() if fp is not None}
    index = neardup.Index(known.keys(), known.values())
    near = set()
    for record in curation.records:
        fp = neardup.from_hex(record.phash or ())
        if record.status == "accepted" and fp is not None and len(index) and index.nearest(fp)[1] <= bits:
            near.add(record.source_id)
    return near
