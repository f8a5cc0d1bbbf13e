"""The ``--out`` folder of ``report`` and ``report --compare``: what may be written there, and what is replaced.

A report writes only its own file names (:data:`REPORT_FILES`) and records each one's sha256 in
``.jigsaw-report.json``. Into an existing folder it replaces a file of those names only when that record says
this package wrote it and it is unchanged since; any other such file (the user's ``report.md``, an edited one, an
older report without the record) is refused with one line before anything is written, and every other file in
the folder is left alone. A file of an earlier report that this one does not write again (``compare.md`` when
``--compare`` is not given this time, a heatmap that now has too few runs) is removed, so the folder never mixes
two reports; the replacement is said on the console.

All or nothing, like ``build``: every file is written into a staging folder inside ``out`` first
(``.jigsaw-report.partial-PID``); only when all are written are they renamed into place (a rename needs no space),
the record first: it lists the new files' sha256 and the ones they replace, so a report cut off while renaming is
still known as the package's. A full disk (or any failure) while writing leaves ``out`` as it was and the same
command works once there is space.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from ..errors import UsageError, UserError
from ..inference.rundir import atomic_write_json, now

MANIFEST = ".jigsaw-report.json"
COMPARE = "compare.md"
REPORT_FILES = ("report.md", "report.csv", "task_bars.png", "task_correlation.png", "task_correlation.csv",
                "accuracy_vs_params.png", "human_agreement.csv", COMPARE)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class ReportFolder:
    """One report's writes into ``out``; ``manages`` = the names this report owns (written or, if stale, removed)."""

    def __init__(self, out: str | os.PathLike, manages=REPORT_FILES):
        self.out = Path(out)
        self.manages = tuple(manages)
        self.wrote: list[str] = []
        self.created = not self.out.exists()  # a failed report leaves no folder it made; never one it did not
        if self.out.exists() and not self.out.is_dir():
            raise UsageError(f"--out {self.out} is a file, not a folder: choose another --out")
        self.previous = self._manifest()
        known = self.previous.get("files", {})
        before = self.previous.get("replaced") if isinstance(self.previous.get("replaced"), dict) else {}
        foreign = [n for n in REPORT_FILES if (self.out / n).is_file()
                   and _sha(self.out / n) not in (known.get(n), before.get(n))]
        if foreign:
            raise UsageError(f"--out {self.out} holds {', '.join(foreign)} not written by `jigsaw-puzzles report` "
                             "(or edited since): nothing was written; choose another --out, or move those files")
        if self.out.is_dir() and not os.access(self.out, os.W_OK):
            raise UsageError(f"--out {self.out} is not writable: choose another --out")
        for left in self.out.glob(".jigsaw-report.partial-*") if self.out.is_dir() else ():
            pid = left.name.rsplit("-", 1)[-1]  # a report killed while staging: its files go (only its own)
            if pid.isdigit() and not _alive(int(pid)) and left.is_dir() and not left.is_symlink():
                shutil.rmtree(left, ignore_errors=True)

    def _manifest(self) -> dict:
        try:
            data = json.loads((self.out / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        ok = isinstance(data, dict) and isinstance(data.get("files"), dict)
        return data if ok else {}

    @property
    def replacing(self) -> str | None:
        """A line saying which earlier report is being replaced (None for a new folder)."""
        names = [n for n in self.previous.get("files", {}) if n in self.manages and (self.out / n).exists()]
        if not names:
            return None
        return f"replacing the earlier report in {self.out} (written {self.previous.get('written_at', '?')})"

    @property
    def staging(self) -> Path:
        return self.out / f".jigsaw-report.partial-{os.getpid()}"

    def path(self, name: str) -> Path:
        """Where to write ``name``: in the staging folder (:meth:`finish` puts it in place)."""
        assert name in self.manages, name
        try:  # created at the first write: a report refused on the way leaves no empty folder
            self.out.mkdir(parents=True, exist_ok=True)
            self.staging.mkdir(exist_ok=True)
        except OSError as err:
            self.discard()
            raise UsageError(f"--out {self.out}: cannot create the folder ({err.strerror})") from None
        self.wrote.append(name)
        return self.staging / name

    def discard(self) -> None:
        """Drop what was staged (a failed report): ``out`` stays as it was; a folder this report made goes."""
        shutil.rmtree(self.staging, ignore_errors=True)
        if self.created and self.out.is_dir() and not any(self.out.iterdir()):
            self.out.rmdir()

    def finish(self) -> list[str]:
        """Put the staged files in place, the record first; remove this report's stale files of an earlier report.
        Returns those removed. An error of the machine (a full disk) is one line and leaves ``out`` as it was."""
        from ..publishing.outdir import environment_error

        known = dict(self.previous.get("files", {}))
        wrote = [n for n in dict.fromkeys(self.wrote) if (self.staging / n).is_file()]
        stale = [n for n in self.manages if n not in wrote and n in known]
        new = {n: v for n, v in known.items() if n not in stale}
        new.update({n: _sha(self.staging / n) for n in wrote})
        replaced = {n: known[n] for n in (*wrote, *stale) if n in known}
        try:
            atomic_write_json(self.staging / MANIFEST, {"written_by": "jigsaw-puzzles report", "written_at": now(),
                                                        "files": new, "replaced": replaced})
        except OSError as err:
            self.discard()
            raise (environment_error(err, f"cannot write the report in {self.out}; nothing there was changed")
                   or err) from None
        os.replace(self.staging / MANIFEST, self.out / MANIFEST)  # renames: no space needed from here on
        for name in wrote:
            os.replace(self.staging / name, self.out / name)
        removed = []
        for name in stale:
            p = self.out / name
            if p.is_file() and _sha(p) == known[name]:
                p.unlink()
                removed.append(name)
        self.discard()
        return removed

    def failed(self, err: BaseException) -> UserError | None:
        """After a failure while staging: drop the staged files; a :class:`UserError` for an error of the machine."""
        from ..publishing.outdir import environment_error

        self.discard()
        return environment_error(err, f"cannot write the report in {self.out}; nothing there was changed") \
            if isinstance(err, OSError) else None
