"""A run directory: its files, its identity, resume bookkeeping and its lock (one owner of the layout).

``run.json``          model, backend, decoding settings, dataset fingerprints, package version, status, sessions;
``predictions.jsonl`` one line per answered item, written with one ``write`` + ``flush`` (a killed run loses at
                      most the items in flight; a torn last line is dropped on resume);
``predictions.rank{r}.jsonl`` data-parallel shards, merged into ``predictions.jsonl`` by rank 0;
``items.jsonl``       the run's item manifest: every selected item's id, config, reference and options
                      (:mod:`.manifest`; its length and sha256 recorded in ``run.json``, ``items``);
``resolutions.jsonl`` unread outputs restated (``eval --restate``), judged (``eval --judge``) or decided by a person
                      (``adjudicate``), each keyed by its output's sha256 (:mod:`.resolutions`);
``results.json``      the metric's output for the run;
``.lock``             held (``flock``) by the process that writes the run, with its pid and host: a second run into
                      the directory is refused, naming that process.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from ..errors import UserError
from .settings import RunIdentity

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

PREDICTIONS = "predictions.jsonl"
RUN_JSON = "run.json"
RESULTS_JSON = "results.json"
LOCK = ".lock"
MANIFEST = "items.jsonl"  # written by .manifest (which imports this module)
RESOLUTIONS = "resolutions.jsonl"  # written by .resolutions: unread outputs restated, judged or decided by a person


class RunMismatchError(UserError):
    """The run directory holds a run made with other settings or another dataset version."""


class RunLocked(UserError):
    """Another live process is writing this run directory."""


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def atomic_write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False, default=str)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_predictions(path: Path, repair: bool = False) -> list[dict]:
    """Complete lines of a predictions file.  ``repair`` truncates a torn last line (no trailing newline)."""
    if not path.exists():
        return []
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data) and repair:
        with open(path, "r+b") as f:
            f.truncate(end)
    recs = []
    for line in data[:end].splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            print(f"warning: {path}: skipping a corrupt line", file=sys.stderr)
            continue
        if isinstance(rec, dict) and "id" in rec:
            recs.append(rec)
    return recs


class PredictionWriter:
    """Append-only JSONL writer: one ``write`` per complete line, flushed at once, fsynced per batch."""

    def __init__(self, path: Path):
        self.path = path
        self._f = open(path, "a", encoding="utf-8")

    def write(self, rec: dict) -> None:
        self._f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self._f.flush()

    def sync(self) -> None:
        os.fsync(self._f.fileno())

    def close(self) -> None:
        if not self._f.closed:
            self.sync()
            self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunDir:
    """The files of one run directory, read and written in one place."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._lock_fd: int | None = None
        self._created = False

    # ---- files
    @property
    def run_json(self) -> Path:
        return self.path / RUN_JSON

    @property
    def results_json(self) -> Path:
        return self.path / RESULTS_JSON

    @property
    def predictions(self) -> Path:
        return self.path / PREDICTIONS

    def shard(self, rank: int) -> Path:
        return self.path / f"predictions.rank{rank}.jsonl"

    def shards(self) -> list[Path]:
        return sorted(self.path.glob("predictions.rank*.jsonl"))

    def _read_json(self, path: Path, what: str) -> dict:
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise UserError(f"{path} is not valid JSON ({err}); {what}") from None
        if not isinstance(obj, dict):
            raise UserError(f"{path} does not hold a JSON object; {what}")
        return obj

    def read_run(self) -> dict | None:
        if not self.run_json.exists():
            return None
        return self._read_json(self.run_json, "use another --out, or --overwrite to start the run over")

    def write_run(self, run: dict) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.run_json, run)

    def read_results(self) -> dict:
        if not self.results_json.exists():
            raise UserError(f"{self.path}: no {RESULTS_JSON} (run `jigsaw-puzzles eval ... --out {self.path}` "
                            "first; an interrupted run writes it when resumed to completion)")
        return self._read_json(self.results_json, "re-run `jigsaw-puzzles eval` with the same --out to rewrite it")

    def write_results(self, results: dict) -> None:
        atomic_write_json(self.results_json, results)

    def clear(self) -> None:
        """Discard a previous run (``--overwrite``)."""
        for p in [self.predictions, self.results_json, self.run_json, self.path / MANIFEST, self.path / RESOLUTIONS,
                  *self.shards()]:
            if p.exists():
                p.unlink()

    # ---- predictions
    def load_predictions(self, repair: bool = False) -> dict[str, dict]:
        """id -> record over predictions.jsonl and leftover shards (first occurrence wins). Records that
        ended in an error are not answers: they are left out, so a resume answers them again."""
        out: dict[str, dict] = {}
        for p in [self.predictions, *self.shards()]:
            for rec in read_predictions(p, repair=repair):
                if not rec.get("error"):
                    out.setdefault(rec["id"], rec)
        return out

    def errored_ids(self) -> set[str]:
        """Ids with an attempt that ended in an error (not answers: retried on resume); those without an answer
        since are ``errored_ids() - set(load_predictions())``."""
        return {rec["id"] for p in [self.predictions, *self.shards()] for rec in read_predictions(p)
                if rec.get("error")}

    def writer(self, rank: int, world: int) -> PredictionWriter:
        self.path.mkdir(parents=True, exist_ok=True)
        return PredictionWriter(self.predictions if world == 1 else self.shard(rank))

    def merge_shards(self) -> None:
        """Rank 0: append shard lines not yet in predictions.jsonl, then delete the shards."""
        have = {r["id"] for r in read_predictions(self.predictions, repair=True) if not r.get("error")}
        with PredictionWriter(self.predictions) as w:
            for p in self.shards():
                for rec in read_predictions(p):
                    if rec["id"] not in have:  # errored attempts too: they count in n_errors
                        w.write(rec)
                        if not rec.get("error"):
                            have.add(rec["id"])
        for p in self.shards():
            p.unlink()

    # ---- identity and sessions
    def check_identity(self, identity: RunIdentity, fingerprints: dict[str, str]) -> dict | None:
        """The previous run.json, after checking that ``identity`` and the datasets agree with it."""
        old = self.read_run()
        if old is None:
            return None
        diffs = identity.differences(old)
        old_fp = (old.get("dataset") or {}).get("fingerprints", {})
        for c in fingerprints:
            if c in old_fp and old_fp[c] != fingerprints[c]:
                diffs[f"dataset[{c}]"] = (old_fp[c], fingerprints[c])
        if diffs:
            said = "; ".join(f"{k}: {was!r} then, {is_!r} now" for k, (was, is_) in diffs.items())
            raise RunMismatchError(f"{self.path} holds a run with different {', '.join(diffs)} ({said}); "
                                   "use another --out, or --overwrite to discard it")
        return old

    def start(self, identity: RunIdentity, fingerprints: dict[str, str], details: dict, write: bool = True) -> dict:
        """run.json for a new session of this run: the identity checked against the recorded one, ``details``
        (what does not change answers: batch size, sizes, skipped configs, ...), status ``running``."""
        old = self.check_identity(identity, fingerprints) or {}
        run = dict(old)
        run.update(identity.to_dict())
        old_options = old.get("dataset_options")  # per config; an older flat record is replaced
        if isinstance(old_options, dict) and all(isinstance(v, dict) for v in old_options.values()):
            run["dataset_options"] = {**old_options, **run["dataset_options"]}
        run.update(details)
        dataset = dict(details.get("dataset") or {})
        dataset["fingerprints"] = {**((old.get("dataset") or {}).get("fingerprints") or {}), **fingerprints}
        run["dataset"] = dataset
        run.update(status="running", created_at=old.get("created_at") or now())
        run["sessions"] = list(old.get("sessions") or []) + [{"started_at": now()}]
        if write:
            self.write_run(run)
        return run

    def end(self, run: dict, status: str, write: bool = True, **session) -> None:
        """Close the session: ``status`` (complete / incomplete / interrupted) and what the session did."""
        run["status"] = status
        run["sessions"][-1].update(session, **{"interrupted_at" if status == "interrupted" else "finished_at": now()})
        if status != "interrupted":
            run["finished_at"] = run["sessions"][-1]["finished_at"]
        if write:
            self.write_run(run)

    # ---- lock
    @property
    def lock_path(self) -> Path:
        return self.path / LOCK

    def lock(self) -> None:
        """Take the directory's lock or refuse, naming the process that holds it.  POSIX: an ``flock`` on
        ``.lock`` (the kernel drops it when its process dies, so a stale file is simply taken over); elsewhere an
        ``O_EXCL`` file whose holder's pid is checked."""
        self._created = not self.path.exists()
        self.path.mkdir(parents=True, exist_ok=True)
        me = json.dumps({"pid": os.getpid(), "host": socket.gethostname()}).encode()
        fd = _flock(self.lock_path) if fcntl is not None else _exclusive_file(self.lock_path)
        if fd is None:
            raise RunLocked(f"{self.path} is being written by another run ({self._holder()}); wait for it to "
                            f"end, or use another --out")
        os.ftruncate(fd, 0)
        os.write(fd, me)
        os.fsync(fd)
        self._lock_fd = fd

    def _holder(self) -> str:
        try:
            holder = json.loads(self.lock_path.read_text() or "{}")
        except (OSError, json.JSONDecodeError):
            holder = {}
        return f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}"

    def unlock(self) -> None:
        if self._lock_fd is not None:
            self.lock_path.unlink(missing_ok=True)  # unlinked while still held: a waiting opener sees a new inode
            os.close(self._lock_fd)
            self._lock_fd = None
            if self._created:  # a run that stopped before writing anything leaves no empty folder behind
                try:
                    self.path.rmdir()
                except OSError:
                    pass

    def __enter__(self):
        self.lock()
        return self

    def __exit__(self, *exc):
        self.unlock()


def _flock(path: Path) -> int | None:
    """An fd holding an exclusive ``flock`` on ``path`` (the file at ``path`` now, not an unlinked one), or None."""
    for _ in range(100):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # its holder unlinked it as we opened it: try the new file
    raise RunLocked(f"could not take the lock {path}")


def _exclusive_file(path: Path) -> int | None:
    """Without ``fcntl``: create ``path`` exclusively; a file left by a dead process on this host is taken over."""
    for _ in range(2):
        try:
            return os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)
        except FileExistsError:
            try:
                holder = json.loads(path.read_text() or "{}")
            except (OSError, json.JSONDecodeError):
                holder = {}
            if holder.get("host") == socket.gethostname() and isinstance(holder.get("pid"), int) \
                    and not _pid_alive(holder["pid"]):
                path.unlink(missing_ok=True)
                continue
            return None
    return None
