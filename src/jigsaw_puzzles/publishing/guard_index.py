"""The guard's evaluation index inside an export: what makes ``exclude=EXPORT`` a complete exclusion set.

An export holds items, not photos; its curation report holds each photo's pHash fingerprint, which recognises
re-encoded, resized, lightly cropped or re-toned copies only. What the guard reads from an evaluation photo
(``training.copies.evaluation_views``) is a function of two grey images of it (:func:`greys_of`): the normalised
photo's grey at :data:`SMALL` px (its pixel check) and at :data:`WORK` px (with the first, its local features). So
``jigsaw-puzzles build`` writes both, for every photo its curation accepted, to ``guard_index.parquet`` (lossless
PNG, about 120 KB a photo: 2% of an export of the paper's eight configs), and ``exclude=`` an export folder or its
Hub id (``USER/jigsaw-puzzles``) indexes those greys: the very index a folder of the photos gives, so the same
verdicts on every training photo (tested). ``jigsaw-puzzles verify EXPORT`` recomputes the greys from the photos and
compares them pixel for pixel (PNG bytes may differ between zlib builds; the pixels may not), and the report's
digest of them.

Columns: ``source_id`` (string), ``small`` and ``work`` (PNG bytes of 8-bit grey images). The report records
``{"file", "photos", "digest"}`` under ``guard_index``; the digest is the SHA-256 of every row's id, shapes and
pixels, in id order (:func:`digest`).
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from PIL import Image

FILE = "guard_index.parquet"
REPORT_KEY = "guard_index"
WORK, SMALL = 512, 256  # long sides (px) the guard reads an evaluation photo at (``training.copies``)
Greys = tuple  # (small, work): 8-bit grey arrays


def grey(image: Image.Image, side: int) -> np.ndarray:
    """The grey image with its long side at most ``side`` (PIL's box filter: the same bytes everywhere)."""
    g = image.convert("L")
    scale = side / max(g.size)
    if scale < 1:
        g = g.resize((max(1, round(g.width * scale)), max(1, round(g.height * scale))), Image.Resampling.BOX)
    return np.asarray(g)


def greys_of(image: Image.Image) -> Greys:
    """The two grey images the guard reads from a normalised photo (``training.copies.evaluation_views``)."""
    return grey(image, SMALL), grey(image, WORK)


def photo_greys(sources: Sequence) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``[(source id, small, work)]`` of curation's accepted photos (``Source`` objects), in id order, each photo
    normalised as the guard normalises a folder's photos (``training.exclusion``: the default rules)."""
    from ..generation.sources import load_normalised

    return [(s.source_id, *greys_of(load_normalised(s.path, source_id=s.source_id)))
            for s in sorted(sources, key=lambda s: s.source_id)]


def digest(rows: Iterable[tuple[str, np.ndarray, np.ndarray]]) -> str:
    """SHA-256 (hex) of the rows' ids, shapes and pixels, in id order."""
    h = hashlib.sha256()
    for sid, small, work in sorted(rows, key=lambda r: r[0]):
        h.update(sid.encode())
        for g in (small, work):
            h.update(np.int64(g.shape).tobytes())
            h.update(np.ascontiguousarray(g, dtype=np.uint8).tobytes())
    return h.hexdigest()


def _png(g: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(g, dtype=np.uint8), mode="L").save(buffer, "PNG")
    return buffer.getvalue()


def write(out: Path, rows: list[tuple[str, np.ndarray, np.ndarray]]) -> dict:
    """Write ``out/guard_index.parquet``; returns the report's record of it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"source_id": pa.array([r[0] for r in rows], pa.string()),
                      "small": pa.array([_png(r[1]) for r in rows], pa.binary()),
                      "work": pa.array([_png(r[2]) for r in rows], pa.binary())})
    pq.write_table(table, Path(out) / FILE, compression="zstd", row_group_size=256)
    return {"file": FILE, "photos": len(rows), "digest": digest(rows)}


def _decode(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        if image.mode != "L" or image.format != "PNG":
            raise ValueError(f"a {image.format} {image.mode} image, not an 8-bit grey PNG")
        return np.asarray(image).copy()


@dataclass
class GuardIndex:
    """An export's guard index, read: ids, and each photo's greys decoded on demand."""

    path: Path
    ids: list[str]
    _png: dict = field(repr=False)  # id -> (small, work) PNG bytes

    def greys(self, source_id: str) -> Greys:
        small, work = self._png[source_id]
        return _decode(small), _decode(work)


def read(path: Path) -> GuardIndex:
    """The guard index file at ``path``; ``ValueError`` naming what is wrong when it is not one."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as err:
        raise ValueError(f"cannot be read as parquet ({type(err).__name__}: {' '.join(str(err).split())[:200]})") \
            from None
    missing = [c for c in ("source_id", "small", "work") if c not in table.column_names]
    if missing:
        raise ValueError(f"has no {', '.join(missing)} column")
    ids = table.column("source_id").to_pylist()
    if any(not isinstance(i, str) for i in ids) or len(set(ids)) != len(ids):
        raise ValueError("its source ids are not distinct strings")
    return GuardIndex(Path(path), ids, dict(zip(ids, zip(table.column("small").to_pylist(),
                                                         table.column("work").to_pylist()))))


def problems(folder: Path, report: dict, sources: Sequence) -> list[str]:
    """What ``verify`` says of an export's guard index against this rebuild's accepted photos (``sources``): one
    line per thing that does not hold (a missing or unreadable file, a photo missing, extra or with other pixels,
    a report record that is not the file's). An export made before the index (no record, no file) has none."""
    record, path = report.get(REPORT_KEY), Path(folder) / FILE
    if record is None and not path.exists():
        return []
    if not isinstance(record, dict) or record.get("file") != FILE:
        return [f"{FILE}: curation_report.json has no record of it ({REPORT_KEY!r}: its photos and digest)"
                if path.exists() else f"curation_report.json: its {REPORT_KEY!r} record is not one this package writes"]
    if not path.is_file() or path.is_symlink():
        return [f"{FILE} (the guard's evaluation index, which exclude=EXPORT reads) is missing"]
    try:
        index = read(path)
        found = {sid: index.greys(sid) for sid in index.ids}
    except Exception as err:  # an edited file: any row may fail to decode
        return [f"{FILE} is not a guard index this package writes: {' '.join(str(err).split())[:300]}"]
    expected = {sid: (small, work) for sid, small, work in photo_greys(sources)}
    out = []
    for sid in sorted(set(expected) - set(found)):
        out.append(f"{FILE} lacks the photo {sid}: exclude=EXPORT would not recognise its copies")
    for sid in sorted(set(found) - set(expected)):
        out.append(f"{FILE} holds {sid}, which this rebuild's curation did not accept")
    for sid in sorted(set(found) & set(expected)):
        if any(a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(found[sid], expected[sid])):
            out.append(f"{FILE}: the greys of {sid} are not its photo's (as this rebuild computes them)")
    if record.get("photos") != len(index.ids) or record.get("digest") != digest(
            (sid, *found[sid]) for sid in found):
        out.append(f"curation_report.json: its {REPORT_KEY!r} record (photos, digest) is not that of {FILE}")
    return out
