"""The package's on-disk caches: where they live, what their keys hold, how a file is written (whole or not at all).

Under ``$HF_DATASETS_CACHE/jigsaw_puzzles/`` (datasets' cache root): ``clip/`` (CLIP embeddings of cells,
:mod:`.clip.cache`; its folder is an argument), ``curation/`` (what each file's bytes decided in curation,
:mod:`.curation`) and ``guard/`` (the contamination guard's features and verdicts,
:mod:`..training.guard_cache`). Every entry is keyed by what it depends on (the code that computed it, the library
versions, the inputs), so a stale one is never found; one that cannot be read is recomputed.
``JIGSAW_PUZZLES_CACHE`` moves the curation and guard caches to another folder, or ``off`` keeps nothing of theirs.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable


def cache_root() -> Path:
    """``$HF_DATASETS_CACHE/jigsaw_puzzles``."""
    try:
        from datasets import config
        root = Path(config.HF_DATASETS_CACHE)
    except Exception:  # pragma: no cover
        root = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "datasets"
    return root / "jigsaw_puzzles"


ENV = "JIGSAW_PUZZLES_CACHE"
_OFF = {"", "off", "0", "no", "none", "false"}


def kept_dir(name: str, root: Path | None = None) -> Path | None:
    """The folder of the cache ``name`` (``curation``, ``guard``): in ``$JIGSAW_PUZZLES_CACHE`` when set, else in
    ``root`` (default :func:`cache_root`); ``None`` when ``$JIGSAW_PUZZLES_CACHE`` is ``off``."""
    value = os.environ.get(ENV)
    if value is not None and value.strip().lower() in _OFF:
        return None
    return (Path(value).expanduser() if value else (root or cache_root())) / name


def code_key(modules, **versions) -> str:
    """16 hex digits of the source of ``modules`` and of ``versions``: what a cached result depends on besides
    its inputs (any edit of that code, any other library version, and the entry is not found)."""
    h = hashlib.sha256(json.dumps(versions, sort_keys=True, default=str).encode())
    for module in modules:
        h.update(Path(module.__file__).read_bytes())
    return h.hexdigest()[:16]


def atomic_write_bytes(path: Path, writer: Callable[[Any], None], durable: bool = True) -> None:
    """Write via a temp file in the same directory, fsync (``durable``), then ``os.replace``: a reader sees the old
    file or the whole new one, never a part. Without ``durable`` a crash of the machine may leave an empty or partial
    file, which the caches read as unreadable and recompute (it saves a disk flush per file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-" + path.name + ".", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            writer(f)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def record_key(entry: Path, **info) -> None:
    """Write ``entry/meta.json`` (what the entry's key holds: ``jigsaw-puzzles cache`` reads it to tell an entry
    the running code reads from a stale one) unless it is there; a disk that refuses costs nothing."""
    path = Path(entry) / "meta.json"
    if path.exists():
        return
    from .._version import __version__

    data = json.dumps({**info, "package": __version__}, sort_keys=True, default=str).encode()
    try:
        atomic_write_bytes(path, lambda f: f.write(data), durable=False)
    except OSError:
        pass
