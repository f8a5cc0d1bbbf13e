"""What ``training_stream(exclude=...)`` excludes: the evaluation photos, read from whatever form the evaluation
set comes in, and the training photos that are copies of them (:mod:`.copies`).

An evaluation photo is known by its source id and, where the form carries them, by its pHash fingerprint (an
export's ``curation_report.json``, a folder of photos) and its pixels (a folder of photos; an export's guard index,
:mod:`..publishing.guard_index`: the two greys the guard reads, so an export, local or its Hub id, is as complete an
evaluation set as the folder it was built from). A photo known by id alone (a ``Dataset``, a parquet file, bare ids,
a photo of an export made before its guard index) is looked up among the embedded photos and among the training
folder's own photos (the same file there: its pixels and fingerprint). What is still unknown is said in a warning:
by id only, only its exact copies are excluded; by fingerprint only, its re-encoded, resized, lightly cropped or
re-toned copies too, not flipped, turned or framed ones (pass the folder of the evaluation photos).
"""

from __future__ import annotations

import os
import re
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import SourceFolderError, UsageError
from ..generation import neardup
from ..generation.sources import Source, accepted_ids, load_normalised, photos_fingerprint
from ..generation.curation import curate
from ..generation.workers import chunks, ordered_map, parallel, rank_start, threads_here
from ..publishing import guard_index

_SOURCE_ID = re.compile(r"[0-9a-f]{16}")
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


@dataclass(frozen=True)
class Known:
    """What the evaluation set says about one photo: its pHash fingerprint, a file with its bytes and an export's
    guard index holding its greys, where known."""

    fp: np.ndarray | None = None
    path: str | None = None
    index: str | None = None

    def __or__(self, other: "Known") -> "Known":
        return Known(self.fp if self.fp is not None else other.fp, self.path or other.path, self.index or other.index)


def evaluation_photos(exclude: Any, train_fingerprint: str) -> dict[str, Known]:
    """``{source id: Known}`` of an evaluation set (see :func:`.stream.training_stream`); ``UsageError`` for
    anything else, for one that names no photo, and when it is the training folder itself."""
    if exclude is None:
        return {}
    ids = _ids_of(exclude, train_fingerprint)
    if not ids:
        raise UsageError(f"exclude={_show(exclude)} names no photo: it would exclude nothing (pass exclude=None "
                         "to train without an evaluation set)")
    return ids


#: per process, the last evaluation sets' indexes and verdicts: ``{signature: [Evaluation or None, {training id:
#: verdict}]}``
#: (a Gym environment makes a stream at every seeded ``reset``; the stream, the TRL and verl helpers, one per call)
_CHECKED: OrderedDict = OrderedDict()
_CHECKED_SETS = 4
#: threads of one process checking training photos (``num_proc`` of 1 or ``None``); ``None``: the cores this
#: process may use, at most 8 (OpenCV and the decoder spend most of a check outside the GIL)
THREADS: int | None = None


def package_photos() -> dict[str, Known]:
    """``{source id: Known}`` of the embedded photos, the default benchmark's evaluation photos, which every stream
    excludes without being asked (their copies too): by fingerprint and pixels, or by fingerprint alone where OpenCV
    (the ``guard`` extra) is not installed (their re-encoded, resized, lightly cropped or re-toned copies then)."""
    known = _from_curation(curate(None))
    if not guard_installed():
        known = {sid: Known(k.fp) for sid, k in known.items()}
    return known


def guard_installed() -> bool:
    """Whether OpenCV, which the guard's local features need, can be imported."""
    try:
        import cv2  # noqa: F401
    except ImportError:
        return False
    return True


def copies_among(train: Sequence[Source], curation, evaluation: dict[str, Known], num_proc: int | None = None,
                 quiet: Iterable[str] = ()) -> set[str]:
    """The ids of the ``train`` photos (of ``curation``, the training folder's) that are copies of an evaluation
    photo (:class:`.copies.Evaluation`). Photos known by id alone are looked up first (see the module doc). A
    training photo is checked once per evaluation set and process: its id is its content's, and the set is known by
    its photos' ids, fingerprints and files (path, size, modification time). ``num_proc``: the training photos are
    checked in that many worker processes (the same verdicts: each is a function of the photo and the set); in one
    process, those whose features must be computed are checked in :data:`THREADS` threads. One of the ranks of a
    job starts at its share of the photos (:func:`~..generation.workers.rank_start`): what another rank kept on
    disk is read when it gets there. ``quiet``: evaluation photos no warning counts (the embedded photos a stream
    excludes on its own, :func:`package_photos`)."""
    from tqdm.auto import tqdm

    from .copies import Evaluation
    from .guard_cache import EvaluationStore, FeatureStore, VerdictStore, guard_cache_dir

    evaluation = _resolve(evaluation, curation)
    bits = curation.rules.near_duplicate_bits
    signature = (bits, tuple((sid, None if k.fp is None else k.fp.tobytes(), k.path, _stat(k.path))
                             + ((k.index, _stat(k.index)) if k.index else ()) for sid, k in sorted(evaluation.items())))
    entry = _CHECKED.get(signature)
    if entry is None:
        entry = _CHECKED[signature] = [None, {}]  # the index, built when a photo needs checking; the verdicts
        while len(_CHECKED) > _CHECKED_SETS:
            _CHECKED.popitem(last=False)
    _CHECKED.move_to_end(signature)
    verdicts = entry[1]
    known = {s.source_id: s for s in train if s.source_id not in evaluation}
    root = guard_cache_dir()
    on_disk = VerdictStore(root, signature) if root is not None else None
    if on_disk is not None and any(sid not in verdicts for sid in known):
        verdicts.update(on_disk.load())  # another process's check against the same set
    records = {r.source_id: r for r in curation.records if r.status == "accepted"}
    jobs = [(sid, s.path, records[sid].phash if sid in records else None)
            for sid, s in sorted(known.items()) if sid not in verdicts]
    if jobs and entry[0] is None:  # a rank of a job indexes from its share (what another rank kept is read)
        entry[0] = Evaluation([(sid, _pixels(k, sid), k.fp)
                               for sid, k in sorted(evaluation.items())], bits,
                              store=None if root is None else EvaluationStore(root),
                              first=0 if root is None else rank_start(len(evaluation)))
    index = entry[0]
    if index is not None:  # the photos whose pixels were read
        pixels = {sid for sid, g in zip(index.ids, index.greys) if g is not None}
    else:  # every verdict known: the files are those of that check (the signature holds their sizes and times)
        pixels = {sid for sid, k in evaluation.items() if _stat(k.path or k.index) is not None}
    quiet = set(quiet)
    asked = {sid: known for sid, known in evaluation.items() if sid not in quiet}
    unknown = sum(known.fp is None and sid not in pixels for sid, known in asked.items())
    by_fp = len(asked) - unknown - len(pixels & set(asked))
    if unknown:
        warnings.warn(f"exclude: {unknown} of {len(asked)} evaluation photos are known by source id only (no "
                      "fingerprint or photo in what was passed): their exact copies are never yielded, but "
                      "re-encoded, resized, cropped, flipped or framed copies cannot be recognised; pass the folder "
                      "of the evaluation photos too", UserWarning, stacklevel=3)
    if by_fp:
        warnings.warn(f"exclude: {by_fp} of {len(asked)} evaluation photos are known by fingerprint only (an "
                      "export made before its guard index records no pixels): their re-encoded, resized, lightly "
                      "cropped or re-toned copies are never yielded, but flipped, turned, more cropped, framed or "
                      "watermarked ones can be; rebuild the export with this version, or pass the folder of the "
                      "evaluation photos too (exclude=[export, photo_folder])", UserWarning, stacklevel=3)
    new: dict = {}
    store = None if root is None else FeatureStore(root)
    # In one process, the photos whose features must be computed (decoding, ORB: outside the GIL) are checked in
    # threads, those whose features are on disk in this thread (the rest of a check holds the GIL: threads cost).
    featured = set() if parallel(num_proc, len(jobs)) or store is None else {j[0] for j in jobs if store.has(j[0])}
    parts = [(part, threads) for part, threads in (([j for j in jobs if j[0] in featured], 1),
                                                   ([j for j in jobs if j[0] not in featured], None)) if part]
    try:
        with tqdm(total=len(jobs), desc="checking for copies of evaluation photos", unit="img",
                  disable=len(jobs) < 200) as bar:
            for part, threads in parts:
                # A rank of a job starts at its share (what another rank kept is read when reached); the chunks
                # turned round rather than ordered_map(first=), so verdicts come as made (kept if interrupted).
                part = chunks(part, num_proc)
                k = rank_start(len(part)) if store is not None else 0
                for checked in ordered_map(_check, part[k:] + part[:k], num_proc, initializer=_set_index,
                                           initargs=(index, store), done=lambda job, _: bar.update(len(job)),
                                           what="the check for copies of evaluation photos",
                                           threads=threads or THREADS or threads_here()):
                    new.update(checked)
    finally:
        _set_index(None, None)  # in one process the index was set here
        verdicts.update(new)
        if new and on_disk is not None:  # what was checked is kept, even when interrupted
            on_disk.store(new)
    return {sid for sid in known if verdicts[sid] is not None}


#: a worker's evaluation index and feature store (sent once, with the worker's start; in one process, set here)
_INDEX: list = [None, None]


def _set_index(index, store) -> None:
    _INDEX[:] = [index, store]


def _check(jobs: Sequence[tuple[str, str, str | None]]) -> list[tuple[str, tuple[str, str] | None]]:
    """The verdicts on a chunk of training photos (id, path, pHash as hex), in a worker or in this process."""
    from .copies import find_copies

    found = find_copies(_INDEX[0], [(sid, _loader(path, sid), neardup.from_hex(phash) if phash else None)
                                    for sid, path, phash in jobs], _INDEX[1])
    return [(sid, found.get(sid)) for sid, _, _ in jobs]


def _stat(path: str | None) -> tuple[int, int] | None:
    try:
        st = os.stat(path) if path else None
    except OSError:
        return None
    return None if st is None else (st.st_size, st.st_mtime_ns)


def _loader(path: str, source_id: str):
    def load():
        return load_normalised(path, source_id=source_id)
    return load


def _pixels(known: Known, source_id: str):
    """A loader of an evaluation photo's pixels (the photo, or its greys from an export's guard index), or
    ``None``."""
    if known.path:
        return _loader(known.path, source_id)
    if known.index:
        return lambda: _read_index(known.index, _stat(known.index)).greys(source_id)
    return None


@lru_cache(maxsize=2)
def _read_index(path: str, stat) -> "guard_index.GuardIndex":
    """An export's guard index, read once per file version (``stat``: its size and modification time)."""
    try:
        return guard_index.read(Path(path))
    except ValueError as err:
        raise UsageError(f"exclude: {path} {err}: it is not the guard index jigsaw-puzzles build writes; rebuild "
                         "the export, or pass the folder of its photos") from None


def _resolve(evaluation: dict[str, Known], curation) -> dict[str, Known]:
    """Photos known by id alone, or without pixels, looked up among the embedded photos and the training folder."""
    missing = {sid for sid, known in evaluation.items() if known.path is None and known.index is None}
    if not missing:
        return evaluation
    found: dict[str, Known] = {}
    for folder_curation in (curate(None), curation):
        found = {**_from_curation(folder_curation, missing), **found}
    return {sid: known | found.get(sid, Known()) for sid, known in evaluation.items()}


def _from_curation(curation, ids: Iterable[str] | None = None) -> dict[str, Known]:
    """``{source id: Known}`` of a curation's accepted photos (those in ``ids``)."""
    paths = {s.source_id: s.path for s in curation.accepted}
    out = {}
    for r in curation.records:
        if r.status == "accepted" and r.source_id in paths and (ids is None or r.source_id in ids):
            out[r.source_id] = Known(neardup.from_hex(r.phash or ()), paths[r.source_id])
    return out


def _show(exclude: Any) -> str:
    text = str(exclude) if isinstance(exclude, (str, os.PathLike)) else type(exclude).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _merge(parts: Iterable[dict]) -> dict:
    out: dict = {}
    for part in parts:
        for sid, known in part.items():
            out[sid] = out.get(sid, Known()) | known
    return out


def _ids_of(exclude: Any, train_fingerprint: str) -> dict:
    import datasets

    if isinstance(exclude, (datasets.DatasetDict, datasets.IterableDatasetDict)):
        return _merge(_ids_of(split, train_fingerprint) for split in exclude.values())
    if isinstance(exclude, datasets.Dataset):
        if "source_id" not in exclude.column_names:
            raise UsageError(f"exclude: the Dataset has no source_id column (it has {', '.join(exclude.column_names)})"
                             ": pass the benchmark's rows, an export folder or source ids")
        return dict.fromkeys(exclude["source_id"], Known())
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
            return {exclude: Known()}
        if isinstance(exclude, str) and _HUB_ID.fullmatch(exclude):
            return _folder_ids(_hub_export(exclude), train_fingerprint)
        raise UsageError(f"exclude: {exclude} does not exist (nor is it a source id, 16 hex digits, or an export's "
                         "Hub id, USER/NAME)")
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
    return dict.fromkeys(pq.read_table(path, columns=["source_id"]).column("source_id").to_pylist(), Known())


def _folder_ids(folder: Path, train_fingerprint: str) -> dict:
    """An export (``curation_report.json``), a ``save_to_disk`` folder, a folder of parquet files, or photos."""
    from ..publishing.outdir import read_report  # a corrupt report is one line, as in `build`

    report = folder / "curation_report.json"
    if report.is_file() and read_report(folder).get("fingerprint") == train_fingerprint:
        raise UsageError(f"the training folder holds the photos the evaluation export {folder} was built from "
                         f"(fingerprint {train_fingerprint}): train on other photos")
    if (folder / "dataset_dict.json").is_file() or (folder / "state.json").is_file():
        import datasets

        return _ids_of(datasets.load_from_disk(str(folder)), train_fingerprint)
    index = folder / guard_index.FILE
    parquets = sorted(p for p in folder.rglob("*.parquet") if p != index)
    if parquets or report.is_file():
        ids = _merge(_parquet_ids(p) for p in parquets)
        if report.is_file():  # the export's curation records the fingerprints of its photos
            records = read_report(folder)["curation"].get("records") or []
            recorded = _recorded(records)
            if not parquets:  # an export's report and guard index alone (from the Hub): its photos are the report's
                ids = dict.fromkeys((r["source_id"] for r in records if isinstance(r, dict) and r.get("status")
                                     == "accepted" and isinstance(r.get("source_id"), str)), Known())
            if index.is_file():  # and its guard index their greys (every photo its curation accepted)
                greys = str(index.resolve())
                ids = {**dict.fromkeys(_read_index(greys, _stat(greys)).ids, Known()), **ids}
                ids = {sid: Known(index=greys) | k for sid, k in ids.items()}
            ids = {sid: k | recorded.get(sid, Known()) for sid, k in ids.items()}
        return ids
    try:
        evaluation = curate(folder)
        if photos_fingerprint(accepted_ids(evaluation)) == train_fingerprint:
            raise UsageError(f"the evaluation folder {folder} holds the training folder's photos: train on other "
                             "photos")
        return _from_curation(evaluation)
    except SourceFolderError:  # nothing readable: the caller says it names no photo
        return {}


def _hub_export(repo_id: str) -> Path:
    """The report and guard index of the export on the Hub at ``repo_id`` (``USER/jigsaw-puzzles``), fetched (or
    from the Hub cache) without its items; ``UsageError`` when it cannot be read or is no export."""
    from huggingface_hub import snapshot_download

    from ..publishing.outdir import REPORT

    try:
        folder = Path(snapshot_download(repo_id=repo_id, repo_type="dataset",
                                        allow_patterns=[REPORT, guard_index.FILE]))
    except Exception as err:  # offline, no such repo, no access: whatever the Hub client raises
        raise UsageError(f"exclude: {repo_id} is no folder here and the Hub dataset {repo_id} cannot be read "
                         f"({type(err).__name__}: {' '.join(str(err).split())[:200]}); pass the export's folder, "
                         "or check the name and your access") from None
    if not (folder / REPORT).is_file():
        raise UsageError(f"exclude: the Hub dataset {repo_id} is not an export of jigsaw-puzzles (it has no {REPORT})")
    return folder


def _recorded(records: Iterable[dict]) -> dict[str, Known]:
    """``{source id: Known(fingerprint)}`` of a curation report's records that carry one."""
    out = {}
    for r in records:
        if isinstance(r, dict) and isinstance(r.get("source_id"), str):
            fp = neardup.from_hex(r.get("phash") or ())
            if fp is not None:
                out[r["source_id"]] = Known(fp)
    return out


