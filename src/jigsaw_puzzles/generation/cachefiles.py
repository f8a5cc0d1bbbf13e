"""The package's on-disk caches: where they live and how a file is written (whole or not at all).

Under ``$HF_DATASETS_CACHE/jigsaw_puzzles/`` (datasets' cache root): ``clip/`` (CLIP embeddings of cells,
:mod:`.clip.cache`) and ``guard/`` (the contamination guard's features and verdicts, :mod:`..training.guard_cache`).
Every entry is keyed by what it depends on, so a stale one is never found; one that cannot be read is recomputed.
"""

from __future__ import annotations

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
