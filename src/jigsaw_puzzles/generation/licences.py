"""Each source photograph's licence, attribution and origin URL, so every row carries its own terms.

* The embedded photos: the table in ``data/CREDITS.md`` (file, author / copyright holder, SPDX licence, and a
  ``source: <url>`` note where the upstream names one).
* A folder of your own: an optional ``CREDITS.csv`` at its top level with the columns ``file`` (the path
  relative to the folder, as ``jigsaw-puzzles curate`` prints it), ``license``, ``attribution`` and ``url``.
  Photos it does not list, and every photo of a folder without it, get ``license`` ``"unknown"`` and empty
  attribution and URL: state them before you publish an export.
"""
from __future__ import annotations

import csv
import io
import re
from importlib import resources
from pathlib import Path
from typing import Iterable

from .remote import is_url, read_text

UNKNOWN = {"license": "unknown", "attribution": "", "url": ""}
SIDECAR = "CREDITS.csv"
_URL = re.compile(r"source: (https?://\S+)")


def embedded_credits() -> dict[str, dict[str, str]]:
    """File name -> terms, from the embedded photos' credits table."""
    text = (resources.files("jigsaw_puzzles") / "data" / "CREDITS.md").read_text("utf-8")
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 6 or not cells[0].startswith("`"):
            continue
        url = _URL.search(cells[5])
        out[cells[0].strip("`")] = {"license": cells[4], "attribution": cells[3], "url": url.group(1) if url else ""}
    return out


def folder_credits(folder: str | Path) -> dict[str, dict[str, str]]:
    """Relative path -> terms, from the folder's ``CREDITS.csv`` (empty without one)."""
    if is_url(str(folder)):  # a folder in object storage: its CREDITS.csv read there
        text = read_text(f"{folder}/{SIDECAR}")
    else:
        path = Path(folder) / SIDECAR
        text = path.read_bytes().decode("utf-8") if path.is_file() else None  # line ends kept, as csv wants
    if text is None:
        return {}
    out = {}
    for row in csv.DictReader(io.StringIO(text, newline="")):
        name = (row.get("file") or "").strip()
        if name:
            out[name] = {"license": (row.get("license") or "").strip() or "unknown",
                         "attribution": (row.get("attribution") or "").strip(), "url": (row.get("url") or "").strip()}
    return out


def source_terms(folder: str | Path, relpaths: Iterable[tuple[str, str]], embedded: bool) -> dict[str, dict[str, str]]:
    """``{source_id: {"license", "attribution", "url"}}`` for ``(source_id, relative path)`` pairs."""
    table = embedded_credits() if embedded else folder_credits(folder)
    return {sid: dict(table.get(rel, table.get(Path(rel).name, UNKNOWN)) if embedded else table.get(rel, UNKNOWN))
            for sid, rel in relpaths}
