"""Curation of a folder (:func:`curate`): every file read, checked by every automated rule and fingerprinted (in
worker processes when asked), then the duplicate rule; the rules themselves are in :mod:`.sources`.

What a file's bytes decided (its reason for rejection, or its statistics, size and fingerprint) is a function of
those bytes and the rules, so it is kept on disk by the bytes' hash (the source id), in
``$HF_DATASETS_CACHE/jigsaw_puzzles/curation/`` (:mod:`.cachefiles`): a folder curated before, in any process (a
training job's every rank, the next run), is read and hashed, not decoded again, and gives the same curation. Only
what the bytes decide is kept: a file that cannot be read, or that trips an unexpected error, is examined again
next time. The key holds the rules, the generator version, Pillow and numpy, and the source of the modules that
decide (an edit of the rules' code, and nothing kept before is found). ``JIGSAW_PUZZLES_CACHE=off``: nothing kept.
"""

from __future__ import annotations

import json
import logging
import os
import posixpath
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import python_face
from . import neardup
from .cachefiles import atomic_write_bytes, code_key, kept_dir, record_key
from .remote import is_url
from .sources import (DEFAULT_RULES, IMAGE_SUFFIXES, Curation, CurationRecord, CurationRules, Source, SourceError,
                      _load_normalised, content_id, display_path, folder_fingerprint, quality_checks, read_bytes,
                      resolve_folder, source_files)

logger = logging.getLogger(__name__)

FORMAT = 1


@python_face
def curate(source: str | os.PathLike | None = None, rules: CurationRules = DEFAULT_RULES,
           progress: bool = False, keep=None, num_proc: int | None = None) -> Curation:
    """Apply every automated rule to every file below ``source`` (default: the embedded photos).

    Of two (near-)duplicates the one whose id is in ``keep`` (the sources already in the benchmark: an earlier
    export's) stays; otherwise the smaller source id. ``num_proc``: the files are read, checked and fingerprinted
    in that many worker processes (the same curation)."""
    folder = resolve_folder(source)
    return _curate_cached(str(folder), folder_fingerprint(folder), rules, progress, frozenset(keep or ()), num_proc)


class Decisions:
    """What files' bytes decided under one set of rules: ``decisions-<key>/<id[:2]>/<id>.json``."""

    def __init__(self, root: Path, rules: CurationRules):
        self.code = decisions_code()
        self.dir = Path(root) / f"decisions-{code_key((), code=self.code, rules=rules.key())}"

    def _path(self, source_id: str) -> Path:
        return self.dir / source_id[:2] / f"{source_id}.json"

    def load(self, source_id: str) -> dict | None:
        path = self._path(source_id)
        try:
            kept = json.loads(path.read_text())
            if not _whole(kept):
                raise ValueError("not a decision this module writes")
            return kept
        except FileNotFoundError:
            return None
        except Exception as e:  # truncated or not ours: examined again
            logger.warning("ignoring unreadable curation cache file %s (%s)", path, e)
            return None

    def store(self, source_id: str, decided: dict) -> None:
        record_key(self.dir, cache="curation", code=self.code)
        try:
            data = json.dumps(decided, sort_keys=True).encode()
            atomic_write_bytes(self._path(source_id), lambda f: f.write(data), durable=False)
        except (OSError, TypeError, ValueError) as e:  # a full or read-only disk costs the next run time only
            logger.warning("could not keep a curation decision in %s (%s)", self.dir, e)


@lru_cache(maxsize=1)
def decisions_code() -> str:
    """What a decision depends on besides the file's bytes and the rules: the source of the modules that decide,
    the generator version, Pillow and numpy (16 hex digits; an entry recorded with another is stale)."""
    import PIL

    from .. import geometry, spec
    from . import imagestats, sources

    return code_key((sources, imagestats, neardup, geometry), format=FORMAT, generator=spec.GENERATOR_VERSION,
                    pillow=PIL.__version__, numpy=np.__version__)


def cache_kind(root: Path | None = None):
    """The decisions kept, as ``jigsaw-puzzles cache`` lists and frees them (:mod:`.cacheadmin`)."""
    from .cacheadmin import Kind, meta

    return Kind("curation", kept_dir("curation", root), "decisions-*", r"decisions-[0-9a-f]{16}",
                r"meta\.json|(?:[0-9a-f]{2}/)?\.tmp-[^/]*|[0-9a-f]{2}/[0-9a-f]{16}\.json",
                lambda entry: meta(entry).get("code") == decisions_code())


def _whole(kept) -> bool:
    """Whether ``kept`` is a decision as :func:`_decide` makes one: a reason and whether the photo decoded, or
    statistics, a size and a fingerprint."""
    if not isinstance(kept, dict):
        return False
    if kept.get("reason") is not None:
        return isinstance(kept["reason"], str) and isinstance(kept.get("decoded"), bool)
    size = kept.get("size")
    return (isinstance(kept.get("stats"), dict) and isinstance(size, list) and len(size) == 2
            and all(isinstance(v, int) and v > 0 for v in size)
            and neardup.from_hex(kept.get("phash") or ()) is not None)


#: the folder, rules and kept decisions of this process's curation (a worker's, or this one's)
_ROOT: list = [None, DEFAULT_RULES, None]


def _set_root(root: str, rules: CurationRules, decisions: Decisions | None = None) -> None:
    _ROOT[:] = [root if is_url(root) else Path(root), rules, decisions]


def _examine(paths: list[str]) -> list[tuple[CurationRecord, Source | None, np.ndarray | None]]:
    """Each file's record, and its source and fingerprint when every rule but the duplicate rule passes."""
    root, rules, decisions = _ROOT
    out = []
    for name in paths:
        rel = name[len(str(root)):].lstrip("/") if is_url(name) else Path(name).relative_to(root).as_posix()
        suffix = posixpath.splitext(rel)[1]
        record = CurationRecord(path=display_path(rel), status="rejected")
        out.append((record, None, None))
        if suffix.lower() not in IMAGE_SUFFIXES:
            record.reason = f"unsupported file type {display_path(suffix) or '(none)'!r} (JPEG, PNG, WebP only)"
            continue
        try:
            data = read_bytes(name)
        except SourceError as err:
            record.reason = str(err)
            continue
        source_id = content_id(data)
        kept = decisions.load(source_id) if decisions is not None else None
        if kept is None:
            kept = _decide(source_id, data, rules)
            if decisions is not None and not kept.pop("unexpected", False):
                decisions.store(source_id, kept)
        if kept.get("decoded", True):  # a photo that decoded has its id on its record, accepted or not
            record.source_id = source_id
        if kept.get("reason") is not None:
            record.reason = kept["reason"]
            continue
        record.stats, record.phash = kept["stats"], list(kept["phash"])
        width, height = kept["size"]
        out[-1] = (record, Source(source_id, name, record.path, width, height), neardup.from_hex(record.phash))
    return out


def _decide(source_id: str, data: bytes, rules: CurationRules) -> dict:
    """What the bytes decide: ``{"reason", "decoded"}`` (``"unexpected"``: an error no rule names, which is not
    kept) or ``{"stats", "phash", "size"}``."""
    try:
        image = _load_normalised(source_id, data, rules)
    except SourceError as err:
        return {"reason": str(err), "decoded": False}
    except Exception as err:  # untrusted bytes may trip any library path: a reason, never an aborted build
        return {"reason": f"cannot be used ({type(err).__name__}: {err})", "decoded": False, "unexpected": True}
    try:
        stats = quality_checks(image, rules)
        fingerprint = neardup.fingerprint(image)
    except SourceError as err:
        return {"reason": str(err), "decoded": True}
    except Exception as err:
        return {"reason": f"cannot be used ({type(err).__name__}: {err})", "decoded": True, "unexpected": True}
    return {"stats": stats, "phash": neardup.to_hex(fingerprint), "size": [image.width, image.height]}


@lru_cache(maxsize=8)
def _curate_cached(folder: str, fingerprint: str, rules: CurationRules, progress: bool,
                   keep: frozenset = frozenset(), num_proc: int | None = None) -> Curation:
    from tqdm.auto import tqdm

    from .workers import chunks, ordered_map, rank_start

    files, skipped_folders = source_files(folder if is_url(folder) else Path(folder))
    records = [CurationRecord(path=rel, status="rejected", reason=reason) for rel, reason in skipped_folders]
    candidates: list[tuple[Source, np.ndarray, CurationRecord]] = []
    root = kept_dir("curation")
    decisions = Decisions(root, rules) if root is not None else None
    jobs = chunks([str(p) for p in files], num_proc)
    with tqdm(total=len(files), desc="curating sources", unit="img", disable=not progress) as bar:
        for examined in ordered_map(_examine, jobs, num_proc, initializer=_set_root,
                                    initargs=(folder, rules, decisions), done=lambda job, _: bar.update(len(job)),
                                    what="curation", first=rank_start(len(jobs)) if decisions is not None else 0):
            for record, source, fp in examined:
                records.append(record)
                if source is not None:
                    candidates.append((source, fp, record))

    # Duplicates (exact or near): a source already in the benchmark (``keep``) stays, else the smallest id.
    kept = neardup.keep_originals(candidates, keep, rules.near_duplicate_bits)
    accepted = sorted(kept, key=lambda s: s.source_id)
    return Curation(folder=folder, rules=rules, accepted=accepted, records=records)
