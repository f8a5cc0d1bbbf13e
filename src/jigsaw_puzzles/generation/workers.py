"""Whole-folder steps in worker processes: the same results in the same order as in one process.

Curation and the plan's checks are pure functions of each photo (and of state every worker gets once through
``initializer``), so splitting the photos into chunks and mapping a chunk function over them in
``num_proc`` processes (:class:`concurrent.futures.ProcessPoolExecutor`) changes nothing but the time. A chunk
function never raises for a bad photo (it records the reason); an exception it does raise (a photo overwritten
during the build) is raised here, as in one process. A worker that dies (killed, out of memory) is one
:class:`WorkerDied` line, never a hang; Ctrl-C in the terminal stops the workers with the build (they ignore
SIGINT themselves: the main process cancels what is queued and waits only for the chunks in hand).

An engine (:func:`on_engine`: a Ray cluster, :mod:`.cluster`) takes the same maps off this machine while it is
set: every :func:`ordered_map` of more than one job is its ``map`` of the same function, initializer and jobs,
whose results come back in the jobs' order, so curation, the plan's checks and the guard's check give the same
results on a cluster as here.
"""

from __future__ import annotations

import math
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence, TypeVar

from ..errors import UserError

J = TypeVar("J")
R = TypeVar("R")
#: chunks per worker: enough to balance uneven photos, few enough that per-chunk overhead stays small
CHUNKS_PER_WORKER = 8
MAX_CHUNK = 64


class WorkerDied(UserError):
    """A worker process of a build ended abruptly (killed by a signal, or by the system for memory)."""


#: the engine this process's whole-folder maps run on while one is set (:func:`on_engine`), else ``None``
_ENGINE: list = [None]


@contextmanager
def on_engine(engine):
    """While the block runs, every :func:`ordered_map` of more than one job runs on ``engine``: an object with
    ``workers`` (how many jobs it runs at once) and ``map(fn, jobs, initializer=, initargs=, done=, what=)``, an
    iterator of ``fn(job)`` in the jobs' order, each job in a process where ``initializer(*initargs)`` has run."""
    previous, _ENGINE[0] = _ENGINE[0], engine
    try:
        yield engine
    finally:
        _ENGINE[0] = previous


def current_engine():
    """The engine set by :func:`on_engine`, or ``None``: the maps run in this machine's processes."""
    return _ENGINE[0]


def parallel(num_proc: int | None, jobs: int) -> bool:
    """Whether ``jobs`` items are worth spreading over ``num_proc`` processes (or over the engine, when one is set)."""
    return jobs > 1 and (_ENGINE[0] is not None or bool(num_proc) and num_proc > 1)


def chunks(items: Sequence[J], num_proc: int | None) -> list[Sequence[J]]:
    """``items`` cut into consecutive chunks for ``num_proc`` workers (the engine's, when one is set; in one process:
    chunks of 8, for a progress bar that moves)."""
    workers = _ENGINE[0].workers if _ENGINE[0] is not None else num_proc
    size = max(1, min(MAX_CHUNK, math.ceil(len(items) / (workers * CHUNKS_PER_WORKER)))) \
        if parallel(num_proc, len(items)) else 8
    return [items[k:k + size] for k in range(0, len(items), size)]


def _start(initializer: Callable | None, initargs: tuple) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the CLI's handler (which turns SIGTERM into Ctrl-C)
    if initializer is not None:
        initializer(*initargs)


def rank_start(jobs: int) -> int:
    """Where this process starts a whole-folder walk of ``jobs`` jobs: at its rank's share of them when it is one
    of the ranks of a job (``RANK`` and ``WORLD_SIZE``, as ``torchrun`` and ``accelerate`` set them), else at 0.
    Ranks started together then compute different photos first and, reaching the others' share, read what those
    kept on disk (curation's decisions, the guard's features) instead of computing it again in step."""
    try:
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    except (KeyError, ValueError):
        return 0
    return jobs * rank // world if 0 <= rank < world else 0


def ordered_map(fn: Callable[[J], R], jobs: Sequence[J], num_proc: int | None, *,
                initializer: Callable | None = None, initargs: tuple = (),
                done: Callable[[J, R], Any] | None = None, what: str = "the build", threads: int = 1,
                first: int = 0) -> Iterator[R]:
    """``fn(job)`` of every job, in order: in this process when ``num_proc`` is ``None`` or 1 (``initializer``
    run here first; in ``threads`` threads of it when more than one, for an ``fn`` that is thread-safe and spends
    its time outside the GIL), else in ``num_proc`` worker processes. ``fn`` and the jobs must be picklable (a
    module-level function and plain data); ``done(job, result)`` is called as each result comes (a progress
    bar). :class:`WorkerDied` when a worker ends abruptly; nothing is left running when this returns or
    raises (Ctrl-C waits for the jobs in hand only). ``first``: the jobs are run from that one on, round to the
    one before it (:func:`rank_start`); the results are still yielded in the jobs' order, once all have come."""
    if jobs and first % len(jobs):
        k = first % len(jobs)
        results = list(ordered_map(fn, [*jobs[k:], *jobs[:k]], num_proc, initializer=initializer,
                                   initargs=initargs, done=done, what=what, threads=threads))
        yield from results[len(jobs) - k:] + results[:len(jobs) - k]
        return
    if _ENGINE[0] is not None and len(jobs) > 1:
        yield from _ENGINE[0].map(fn, jobs, initializer=initializer, initargs=initargs, done=done, what=what)
        return
    if not parallel(num_proc, len(jobs)):
        if initializer is not None:
            initializer(*initargs)
        if threads > 1 and len(jobs) > 1:
            yield from _in_order(ThreadPoolExecutor(min(threads, len(jobs)), thread_name_prefix="jigsaw-puzzles"),
                                 fn, jobs, done)
            return
        for job in jobs:
            result = fn(job)
            if done is not None:
                done(job, result)
            yield result
        return
    executor = ProcessPoolExecutor(min(num_proc, len(jobs)), initializer=_start, initargs=(initializer, initargs))
    try:
        yield from _in_order(executor, fn, jobs, done)
    except BrokenProcessPool:
        raise WorkerDied(f"a worker process of {what} ended abruptly (killed, or out of memory); nothing was "
                         f"written: run it again, with a smaller --num-proc if memory is short") from None


def _in_order(executor, fn: Callable[[J], R], jobs: Sequence[J], done) -> Iterator[R]:
    """Every job submitted to ``executor``, the results yielded in the jobs' order; the executor shut down when
    this ends, the jobs not started cancelled."""
    try:
        futures = [executor.submit(fn, job) for job in jobs]
        for job, future in zip(jobs, futures):
            result = future.result()
            if done is not None:
                done(job, result)
            yield result
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def threads_here(cap: int = 8) -> int:
    """The cores this process may run on (``os.sched_getaffinity``, else ``os.cpu_count``), at most ``cap``."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover  (macOS, Windows)
        cores = os.cpu_count() or 1
    return max(1, min(cap, cores))


@contextmanager
def quiet_children():
    """While it is open, a process forked from this one (a worker of ``datasets``' pool, the one that replaces a
    worker that died, its manager) leaves Ctrl-C to this process and ends at once when stopped (SIGTERM), instead
    of running this process's Python handlers (the CLI turns SIGTERM into Ctrl-C) and printing a traceback as it
    goes. In this process the handlers are what they were."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    main = os.getpid()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def handler(signum, frame):
        if os.getpid() != main:  # a forked child
            if signum == signal.SIGTERM:
                os._exit(128 + signum)
            return
        previous[signum](signum, frame)

    for sig, old in previous.items():
        if callable(old):  # SIG_DFL and SIG_IGN already do in a child what they do here
            signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            if callable(old):
                signal.signal(sig, old)


class InWorkers:
    """What a ``datasets`` builder (mixed in before ``GeneratorBasedBuilder``) needs for ``num_proc`` workers: the
    plan given ``num_proc`` too (``self._num_proc``), Ctrl-C the ``KeyboardInterrupt`` it is in one process
    (``datasets`` raises a ``TimeoutError`` of its pool instead), a worker that dies one :class:`WorkerDied` line (not
    a bare ``RuntimeError``), an item's :class:`~jigsaw_puzzles.errors.UserError` (a photo overwritten during the
    build) raised as itself (not a ``DatasetGenerationError`` whose cause stays in the worker), and workers sent the
    builder without its plan and preparation (the work they are handed holds what they need: no CLIP model or
    folder's curation is pickled for every process); processes forked meanwhile are :func:`quiet_children`."""

    def download_and_prepare(self, *args, num_proc: int | None = None, **kwargs):
        self._num_proc, self._main_pid = num_proc, os.getpid()
        try:
            with quiet_children():
                return super().download_and_prepare(*args, num_proc=num_proc, **kwargs)
        except Exception as err:
            cause = err
            while cause is not None and not isinstance(cause, KeyboardInterrupt):
                cause = cause.__context__
            if cause is not None:
                raise cause from None
            if not (isinstance(err, RuntimeError) and "subprocesses has abruptly died" in str(err)):
                raise
            raise WorkerDied(f"a worker process of {self.config.name}'s build ended abruptly (killed, or out of "
                             f"memory); nothing was written: run it again, with a smaller --num-proc if memory is "
                             f"short") from None

    def _prepare_split_single(self, *args, **kwargs):
        from datasets.exceptions import DatasetGenerationError

        if os.getpid() != getattr(self, "_main_pid", os.getpid()):  # a worker: Ctrl-C is the build's; stop quietly
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            yield from super()._prepare_split_single(*args, **kwargs)
        except DatasetGenerationError as err:
            if isinstance(err.__cause__, UserError):
                raise err.__cause__ from None
            raise

    def __getstate__(self):
        return {**self.__dict__, "_plan": None, "_curation": None, "_preparation": None}
