"""A run's item manifest: every item the run selected, with what the reader needs, written when the run is made.

``items.jsonl`` holds one line per selected item, ``{"answer", "config", "id", "options"}`` (canonical JSON: sorted
keys, no spaces), in the order the sessions selected them. It is append-only: a session that adds configs or items
(``--configs``, a larger ``--max-items``) appends their lines, never rewrites earlier ones. ``run.json`` records the
manifest's length and sha256 (``items``), with per config what made its items (generator version, answer plan,
the versions of the libraries that shape items, whether it was built or given as a dataset), so:

* the report re-reads every raw output against these references, not the records' own (a record cannot edit its
  reference, and an answer for an item the run never selected is refused);
* an edited manifest no longer matches its recorded digest, and the run is refused with that reason;
* a session that died between appending and recording leaves lines after the recorded length: they are not part
  of the run (the next session of ``eval`` cuts them), and the recorded prefix still verifies.

Items themselves are rebuilt only by ``jigsaw-puzzles verify RUN_DIR`` (minutes for the CLIP configs); the report
trusts the manifest as far as its digest.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import UserError
from ..spec import is_config
from .rundir import MANIFEST
FIELDS = ("answer", "config", "id", "options")


class ManifestError(UserError):
    """The run's manifest is missing, does not match its recorded digest, or is not a manifest."""


def encode(entry: Mapping) -> bytes:
    """One manifest line (canonical: the same entry is the same bytes on every machine)."""
    return (json.dumps({k: entry[k] for k in FIELDS}, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            + "\n").encode("utf-8")


def entries_of(ds, config: str, n: int) -> list[dict]:
    """The manifest entries of the first ``n`` rows of ``ds`` (one column read, no image decoded)."""
    cols = ds.select_columns([k for k in ("id", "answer", "options") if k in ds.column_names])[:n]
    options = cols.get("options") or [None] * len(cols["id"])
    return [{"id": str(i), "config": config, "answer": a, "options": list(o) if o is not None else None}
            for i, a, o in zip(cols["id"], cols["answer"], options)]


@dataclass
class Manifest:
    """The recorded items of a run: ``entries`` id -> entry, in manifest order."""

    entries: dict[str, dict] = field(default_factory=dict)
    size: int = 0  # bytes of the recorded prefix
    digest: str = hashlib.sha256(b"").hexdigest()

    def ids(self, config: str) -> list[str]:
        return [i for i, e in self.entries.items() if e["config"] == config]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.entries.values():
            out[e["config"]] = out.get(e["config"], 0) + 1
        return out

    def record(self) -> dict:
        """What run.json's ``items`` records of the file."""
        return {"manifest": MANIFEST, "bytes": self.size, "entries": len(self.entries), "sha256": self.digest}


def _entry_problem(entry) -> str | None:
    if not isinstance(entry, dict) or set(entry) != set(FIELDS):
        return "is not an item entry (id, config, answer, options)"
    if not isinstance(entry["id"], str) or not isinstance(entry["config"], str) or not is_config(entry["config"]):
        return f"names config {entry.get('config')!r}, not a config of this package"
    if not isinstance(entry["answer"], str):
        return f"has answer {entry['answer']!r}, not a string"
    opts = entry["options"]
    if opts is not None and not (isinstance(opts, list) and all(isinstance(o, str) for o in opts)):
        return "has options that are not a list of strings"
    return None


def parse(data: bytes, where: str) -> dict[str, dict]:
    """id -> entry of manifest bytes; ``ManifestError`` naming the first bad line."""
    entries: dict[str, dict] = {}
    lines = data.splitlines()
    try:  # one decode for the whole file (a tenth of the cost of one per line); per line to name a bad one
        parsed = json.loads(b"[" + b",".join(lines) + b"]")
    except (json.JSONDecodeError, UnicodeDecodeError):
        parsed = None
    if parsed is not None and len(parsed) != len(lines):  # a line holding two values: read line by line
        parsed = None
    for k, line in enumerate(lines, 1):
        try:
            entry = parsed[k - 1] if parsed is not None else json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ManifestError(f"{where} line {k} is not JSON") from None
        why = _entry_problem(entry)
        if why:
            raise ManifestError(f"{where} line {k} {why}")
        if entry["id"] in entries:
            raise ManifestError(f"{where} line {k} repeats item {entry['id']}")
        entries[entry["id"]] = entry
    return entries


def recorded(run: Mapping | None) -> dict | None:
    """run.json's record of its manifest (None for a run written before runs recorded their items)."""
    items = (run or {}).get("items")
    return items if isinstance(items, dict) and "sha256" in items else None


def read_manifest(path: str | os.PathLike, run: Mapping | None) -> Manifest:
    """The run's manifest as ``run`` (its run.json) records it, its digest checked. ``ManifestError`` (one line)
    when run.json records none, the file is missing or shorter, or its recorded prefix does not match."""
    path = Path(path)
    rec = recorded(run)
    file = path / MANIFEST
    if rec is None:
        raise ManifestError(f"{path}: no item manifest recorded in run.json (a run written before runs recorded "
                            f"their items, or its record removed): its references cannot be checked; re-run `eval` "
                            f"with the same --out and options to record it, or --overwrite")
    size, digest = rec.get("bytes"), rec.get("sha256")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0 or not isinstance(digest, str):
        raise ManifestError(f"{path}/run.json: its items record {rec!r} is not a manifest's length and digest")
    if not file.is_file():
        raise ManifestError(f"{file}: missing (run.json records a manifest of {rec.get('entries')} items)")
    data = file.read_bytes()
    if len(data) < size:
        raise ManifestError(f"{file}: {len(data)} bytes, shorter than the {size} run.json records (cut or edited)")
    got = hashlib.sha256(data[:size]).hexdigest()
    if got != digest:
        raise ManifestError(f"{file} does not match the sha256 run.json records for it ({got[:16]}... here, "
                            f"{digest[:16]}... recorded): the items were edited")
    entries = parse(data[:size], str(file))
    if rec.get("entries") is not None and rec.get("entries") != len(entries):
        raise ManifestError(f"{file}: {len(entries)} items, run.json records {rec.get('entries')!r}")
    return Manifest(entries, size, digest)


def extend(path: str | os.PathLike, old: Manifest, entries: Sequence[Mapping], write: bool = True) -> Manifest:
    """``old`` with the ``entries`` it does not hold appended (to the file when ``write``; bytes after the recorded
    prefix, from a session that died before recording them, are cut first). An entry whose id ``old`` holds must be
    the same entry, else ``ManifestError`` (the run's items changed under the same id)."""
    path = Path(path)
    new = [e for e in entries if e["id"] not in old.entries]
    for e in entries:
        was = old.entries.get(e["id"])
        if was is not None and encode(was) != encode(e):
            raise ManifestError(f"{path}: item {e['id']} is recorded with answer {was['answer']!r} and options "
                                f"{was['options']!r}, and is now built with {e['answer']!r}, {e['options']!r}; "
                                "use another --out, or --overwrite to start the run over")
    blob = b"".join(encode(e) for e in new)
    merged = dict(old.entries)
    merged.update({e["id"]: {k: e[k] for k in FIELDS} for e in new})
    if not write:  # another process records the file (data parallel: rank 0); the entries are what is needed here
        return Manifest(merged, old.size + len(blob), "")
    h = hashlib.sha256((path / MANIFEST).read_bytes()[:old.size] if old.size else b"")
    h.update(blob)
    path.mkdir(parents=True, exist_ok=True)
    with open(path / MANIFEST, "ab") as f:
        f.truncate(old.size)
        f.write(blob)
        f.flush()
        os.fsync(f.fileno())
    return Manifest(merged, old.size + len(blob), h.hexdigest())
