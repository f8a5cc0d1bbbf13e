"""Where the commands write: which folder a build may replace, and checks of every ``--out`` before any work.

A build replaces ``--out`` only when it is empty or recognisably an earlier export of this package holding
nothing else (:func:`check_build_out`); every other folder is refused with what it holds, and nothing is
deleted. ``--out`` of the other commands is checked before any work (:func:`check_out`): not an existing file,
in a folder that exists (``show``), writable. A disk that fills up while writing is one line
(:func:`environment_error`), never a traceback.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .card import ASSETS, LICENSE_FILE
from ..errors import UsageError, UserError
from ..generation.sources import resolve_folder
from ..spec import is_config

REPORT = "curation_report.json"
TOP_FILES = {"README.md", REPORT, LICENSE_FILE, "guard_index.parquet"}  # what export._write puts at the top of the
# folder (the last: publishing.guard_index.FILE)
PARQUET = re.compile(r"(test|lite)-\d{5}-of-\d{5}\.parquet")
STAGING = re.compile(r"\.(?P<name>.+)\.(?P<kind>partial|previous)-(?P<pid>\d+)")
#: errors of the machine, not of the code: a full disk, a quota, a read-only or forbidden folder
ENVIRONMENT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}


def read_report(folder: Path) -> dict:
    """The ``curation_report.json`` of an export, or :class:`UsageError` when it is missing or corrupt."""
    path = Path(folder) / REPORT
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{folder} is not an export of jigsaw-puzzles: it has no {REPORT}") from None
    except (OSError, ValueError) as err:
        raise UsageError(f"{path} is corrupt ({type(err).__name__}: {err}); it is not a readable export: "
                         f"rebuild it into a new --out") from None
    if not isinstance(report, dict) or not isinstance(report.get("curation"), dict) \
            or not isinstance(report.get("configs"), dict):
        raise UsageError(f"{path} is corrupt (no 'curation' and 'configs' records); it is not a readable export: "
                         f"rebuild it into a new --out")
    return report


def foreign_entries(folder: Path) -> list[str]:
    """What ``folder`` holds that an export of this package does not write (relative paths, sorted)."""
    found = []
    for entry in sorted(Path(folder).iterdir()):
        name = entry.name
        if entry.is_symlink():
            found.append(name + " (a link)")
        elif entry.is_file() and name in TOP_FILES:
            continue
        elif entry.is_dir() and (name == ASSETS or is_config(name)):
            for inner in sorted(entry.iterdir()):
                fits = (inner.suffix == ".png" and is_config(inner.stem)) if name == ASSETS \
                    else bool(PARQUET.fullmatch(inner.name))
                if not fits or inner.is_symlink() or not inner.is_file():
                    found.append(f"{name}/{inner.name}")
        else:
            found.append(name + ("/" if entry.is_dir() else ""))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def clean_stale_staging(out: Path) -> list[str]:
    """Remove the hidden staging folders a killed build of ``out`` left next to it (``.NAME.partial-PID``);
    a killed build's ``.NAME.previous-PID`` (the earlier export, moved aside for the swap) is put back when
    ``out`` is missing, else removed. A folder of a process still running is left alone. Returns what was done."""
    done = []
    if not out.parent.is_dir():
        return done
    for entry in sorted(out.parent.iterdir()):
        match = STAGING.fullmatch(entry.name)
        if not match or match["name"] != out.name or _alive(int(match["pid"])) or entry.is_symlink() \
                or not entry.is_dir():
            continue
        if match["kind"] == "previous" and not (out.exists() or out.is_symlink()):
            os.replace(entry, out)
            done.append(f"restored {out} from {entry.name}")
        else:
            shutil.rmtree(entry)
            done.append(f"removed {entry.name}")
    return done


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_build_out(out: Path, source) -> dict | None:
    """Refuse an ``--out`` a build may not replace (one line naming what it holds); returns the earlier
    export's curation report when ``out`` is one (``None`` when ``out`` is missing or empty)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; give a folder for the export")
    if (out / f"{out.name}.py").exists():
        raise UsageError(f"{out}/{out.name}.py exists: datasets >= 4 refuses such a folder; choose another --out")
    folder = resolve_folder(source)  # (a URL: in object storage, never around a local --out)
    real_out = Path(os.path.realpath(out))
    if isinstance(folder, Path) and (_inside(real_out, folder) or _inside(folder, real_out)):
        raise UsageError(f"--out {out} is {'inside' if _inside(real_out, folder) else 'around'} the source folder "
                         f"{folder}: the export would be read back as photographs; write it elsewhere")
    _probe_writable(out)
    clean_stale_staging(out)
    if not out.is_dir() or not any(out.iterdir()):
        return None
    foreign = foreign_entries(out)
    if foreign or not (out / REPORT).is_file():
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise UsageError(f"--out {out} is not empty and not only an earlier export of jigsaw-puzzles (it holds "
                         f"{shown or 'no ' + REPORT}); a build replaces the whole folder, so nothing was "
                         f"written: choose a new or empty folder")
    return read_report(out)


def _probe_writable(path: Path) -> None:
    """:class:`UsageError` unless a file can be created in ``path`` (or, when it does not exist yet, in the
    nearest folder above it that does)."""
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise UsageError(f"--out {path}: {probe} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as err:
        raise UsageError(f"--out {path}: cannot write in {probe} ({err.strerror or err}); choose a folder you "
                         f"may write to") from None


def check_out(command: str, out) -> None:
    """Check ``--out`` of ``command`` before any work: ``show`` writes a file in a folder that must exist;
    the other commands (``build`` aside: :func:`check_build_out`) write a folder, created when missing."""
    if out is None or command == "build":
        return
    out = Path(out)
    if command == "show":
        if out.is_dir():
            raise UsageError(f"--out {out} is a folder; give the PNG file to write (e.g. {out}/item.png)")
        if not out.parent.is_dir():
            raise UsageError(f"--out {out}: the folder {out.parent} does not exist; create it first")
        _probe_writable(out.parent)
        return
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; give a folder")
    _probe_writable(out)


def environment_error(err: OSError, doing: str) -> UserError | None:
    """A :class:`UserError` for an ``OSError`` of the machine (a full disk, a quota, a read-only or forbidden
    folder) met while ``doing``; ``None`` for any other (a bug keeps its traceback)."""
    if err.errno not in ENVIRONMENT_ERRNOS:
        return None
    where = f" ({err.filename})" if err.filename else ""
    return UserError(f"{doing}: {err.strerror or os.strerror(err.errno)}{where}")


def kept_sources(report: dict) -> tuple[str, ...]:
    """The source ids an earlier export's curation accepted (sorted): a rebuild keeps them over near-duplicates
    added since (``keep_sources``)."""
    records = report["curation"].get("records") or []
    return tuple(sorted({r["source_id"] for r in records if isinstance(r, dict) and r.get("status") == "accepted"
                         and isinstance(r.get("source_id"), str)}))


@contextmanager
def staged(out: Path, failure: str):
    """A fresh staging folder next to ``out`` (``.NAME.partial-PID``) that replaces ``out`` when the block ends
    without an error: all or nothing. Whatever happens, the staging folder goes; an error of the machine (a full
    disk, a quota, a read-only folder) is one line, ``failure`` and the reason (:func:`environment_error`)."""
    staging = out.parent / f".{out.name}.partial-{os.getpid()}"
    try:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        yield staging
        _swap_into_place(staging, out)
    except OSError as err:
        user_error = environment_error(err, failure)
        if user_error is None:
            raise
        raise user_error from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_into_place(staging: Path, out: Path) -> None:
    """Rename ``staging`` to ``out``; an existing ``out`` is replaced only when that succeeds (else it is put
    back as it was)."""
    if not (out.exists() or out.is_symlink()):
        os.replace(staging, out)
        return
    previous = out.parent / f".{out.name}.previous-{os.getpid()}"
    shutil.rmtree(previous, ignore_errors=True)
    os.replace(out, previous)
    try:
        os.replace(staging, out)
    except BaseException:
        os.replace(previous, out)
        raise
    if previous.is_dir() and not previous.is_symlink():
        shutil.rmtree(previous, ignore_errors=True)
    else:
        previous.unlink()
