"""A run directory: its files, its identity, resume bookkeeping and its lock (one owner of the layout).

``run.json``          model, backend, decoding settings, dataset fingerprints, package version, status, sessions;
``predictions.jsonl`` one line per answered item, written with one ``write`` + ``flush`` (a killed run loses at
                      most the items in flight; a torn last line is dropped on resume);
``predictions.rank{r}.jsonl`` data-parallel shards, merged into ``predictions.jsonl`` by rank 0;
``results.json``      the metric's output for the run;
``.lock``             held by the process that writes the run (pid and host), so two runs never write at once.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from ..errors import UserError

PREDICTIONS = "predictions.jsonl"
RUN_JSON = "run.json"
RESULTS_JSON = "results.json"
LOCK = ".lock"


class RunMismatchError(UserError):
    """The run directory holds a run made with other settings or another dataset version."""


class RunLocked(UserError):
    """Another live process is writing this run directory."""


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

    def read_run(self) -> dict | None:
        return json.loads(self.run_json.read_text()) if self.run_json.exists() else None

    def write_run(self, run: dict) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.run_json, run)

    def read_results(self) -> dict:
        if not self.results_json.exists():
            raise UserError(f"{self.path}: no {RESULTS_JSON} (run `jigsaw-puzzles eval ... --out {self.path}` "
                            "first; an interrupted run writes it when resumed to completion)")
        return json.loads(self.results_json.read_text())

    def write_results(self, results: dict) -> None:
        atomic_write_json(self.results_json, results)

    def clear(self) -> None:
        """Discard a previous run (``--overwrite``)."""
        for p in [self.predictions, self.results_json, self.run_json, *self.shards()]:
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
        """Ids whose last attempt ended in an error (not answers: retried on resume)."""
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
                    if rec["id"] not in have and not rec.get("error"):
                        w.write(rec)
                        have.add(rec["id"])
        for p in self.shards():
            p.unlink()

    # ---- identity
    def check_identity(self, header: dict, keys: tuple[str, ...], fingerprints: dict[str, str]) -> dict | None:
        """The previous run.json, after checking that ``header`` agrees with it on ``keys`` and the datasets."""
        old = self.read_run()
        if old is None:
            return None
        diffs = [k for k in keys if json.dumps(old.get(k), sort_keys=True) != json.dumps(header.get(k), sort_keys=True)]
        old_fp = (old.get("dataset") or {}).get("fingerprints", {})
        diffs += [f"dataset[{c}]" for c in fingerprints if c in old_fp and old_fp[c] != fingerprints[c]]
        if diffs:
            was = {k: old.get(k) for k in keys if k in diffs}
            now = {k: header.get(k) for k in keys if k in diffs}
            raise RunMismatchError(f"{self.path} holds a run with different {', '.join(diffs)} ({was} vs {now}); "
                                   "use another --out, or --overwrite to discard it")
        return old

    # ---- lock
    def lock(self) -> None:
        """Take the directory's lock or refuse, naming the process that holds it; a dead holder's lock is taken over."""
        self.path.mkdir(parents=True, exist_ok=True)
        lock = self.path / LOCK
        me = {"pid": os.getpid(), "host": socket.gethostname()}
        for _ in range(2):
            try:
                fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                try:
                    holder = json.loads(lock.read_text() or "{}")
                except (OSError, json.JSONDecodeError):
                    holder = {}
                same_host = holder.get("host") == me["host"]
                if same_host and isinstance(holder.get("pid"), int) and not _pid_alive(holder["pid"]):
                    lock.unlink(missing_ok=True)  # stale: its process is gone
                    continue
                raise RunLocked(f"{self.path} is being written by another run (pid {holder.get('pid', '?')} on "
                                f"{holder.get('host', '?')}); wait for it, or use another --out "
                                f"(delete {lock} if that process is gone)")
            os.write(fd, json.dumps(me).encode())
            os.close(fd)
            self._lock_fd = 1
            return
        raise RunLocked(f"could not take the lock {lock}")

    def unlock(self) -> None:
        if self._lock_fd is not None:
            (self.path / LOCK).unlink(missing_ok=True)
            self._lock_fd = None

    def __enter__(self):
        self.lock()
        return self

    def __exit__(self, *exc):
        self.unlock()
