"""The ``--out`` folder of ``report`` and ``report --compare``: what may be written there, and what is replaced.

A report writes only its own file names (:data:`REPORT_FILES`) and records each one's sha256 in
``.jigsaw-report.json``. Into an existing folder it replaces a file of those names only when that record says
this package wrote it and it is unchanged since; any other such file (the user's ``report.md``, an edited one, an
older report without the record) is refused with one line before anything is written, and every other file in
the folder is left alone. A file of an earlier report that this one does not write again (``compare.md`` when
``--compare`` is not given this time, a heatmap that now has too few runs) is removed, so the folder never mixes
two reports; the replacement is said on the console.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..errors import UsageError
from ..inference.rundir import atomic_write_json, now

MANIFEST = ".jigsaw-report.json"
COMPARE = "compare.md"
REPORT_FILES = ("report.md", "report.csv", "task_bars.png", "task_correlation.png", "task_correlation.csv",
                "accuracy_vs_params.png", "human_agreement.csv", COMPARE)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class ReportFolder:
    """One report's writes into ``out``; ``manages`` = the names this report owns (written or, if stale, removed)."""

    def __init__(self, out: str | os.PathLike, manages=REPORT_FILES):
        self.out = Path(out)
        self.manages = tuple(manages)
        self.wrote: list[str] = []
        if self.out.exists() and not self.out.is_dir():
            raise UsageError(f"--out {self.out} is a file, not a folder: choose another --out")
        self.previous = self._manifest()
        known = self.previous.get("files", {})
        foreign = [n for n in REPORT_FILES if (self.out / n).is_file()
                   and (n not in known or _sha(self.out / n) != known[n])]
        if foreign:
            raise UsageError(f"--out {self.out} holds {', '.join(foreign)} not written by `jigsaw-puzzles report` "
                             "(or edited since): nothing was written; choose another --out, or move those files")
        if self.out.is_dir() and not os.access(self.out, os.W_OK):
            raise UsageError(f"--out {self.out} is not writable: choose another --out")

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

    def path(self, name: str) -> Path:
        assert name in self.manages, name
        try:  # created at the first write: a report refused on the way leaves no empty folder
            self.out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise UsageError(f"--out {self.out}: cannot create the folder ({err.strerror})") from None
        self.wrote.append(name)
        return self.out / name

    def finish(self) -> list[str]:
        """Record the files written; remove this report's stale files of an earlier report. Returns those removed."""
        known = dict(self.previous.get("files", {}))
        removed = []
        for name in self.manages:
            if name in self.wrote or name not in known:
                continue
            p = self.out / name
            if p.is_file() and _sha(p) == known[name]:
                p.unlink()
                removed.append(name)
            known.pop(name, None)
        known.update({n: _sha(self.out / n) for n in self.wrote if (self.out / n).is_file()})
        atomic_write_json(self.out / MANIFEST, {"written_by": "jigsaw-puzzles report", "written_at": now(),
                                                "files": known})
        return removed
