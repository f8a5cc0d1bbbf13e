"""A Ray cluster as the engine of the whole-folder steps (``build --engine ray``, ``jp.build(..., engine="ray")``).

:class:`RayEngine` connects to a cluster (``address``) or starts Ray on this machine, and, set with
:func:`.workers.on_engine`, runs every :func:`.workers.ordered_map` of the build as a Ray Data stage: the jobs (the
chunks of photos curation, the plan's checks or the guard's check walk) become a dataset of one job per block,
``map_batches`` runs the same module-level function on each in a pool of Ray tasks (``TaskPoolStrategy``), and the
results come back in the jobs' order. So a stage gives what one process gives: the same function on the same jobs.

Each job's task runs the map's initializer once per worker process (what :class:`~concurrent.futures.ProcessPoolExecutor`
does once per worker): the function, initializer and arguments are put in the object store once and fetched by a
worker the first time it meets them. A job never raises in Ray: what it raises (a photo overwritten during the
build, a bug) comes back as a value and is raised here as itself, so a stage never dies of one photo, and a bad
file stays what curation records, a skip with its reason. A worker that dies (killed, out of memory) is retried by
Ray (``max_retries``, :data:`RETRIES` times): its job is a pure function of its inputs, so a retry gives the same
result. Only when every retry died is the map one :class:`~.workers.WorkerDied` line.

Ray is imported only here, and only when an engine starts (the ``ray`` extra, :func:`~..errors.install_hint`).
"""

from __future__ import annotations

import logging
import pickle
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from ..errors import UsageError, install_hint
from .workers import WorkerDied

#: times Ray runs a job again whose worker died (Ray's own default for a task's ``max_retries``)
RETRIES = 3
#: jobs in one Ray Data stage, per worker and at least: a map of more runs as consecutive stages, so a million
#: photos' jobs are never all in memory at once (the last jobs of a stage leave workers idle: about 1/32 of a stage)
WINDOW, MIN_WINDOW = 16, 4096
RAY_HINT = f"{install_hint('ray')} (ray[data] 2.60 or later)"

#: in a worker process: the key of the map whose initializer ran here last, and that map's function
_STATE: dict[str, Any] = {"key": None, "fn": None}


def import_ray():
    """``ray`` and ``ray.data``, or a one-line :class:`UsageError` naming the extra to install."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as err:
        raise UsageError(f"--engine ray needs Ray Data: {RAY_HINT} ({err})") from None
    return ray


class RayEngine:
    """The cluster at ``address`` (``"auto"``: the one this machine belongs to; ``ray://host:10001``: Ray Client),
    or, without one, a Ray started on this machine with ``num_cpus`` (default: every core) that :meth:`close`
    stops. Ray already started in this process (by the caller, by verl) is used as it is.

    ``max_tasks``: at most this many jobs at once (default: the cluster's CPUs); ``runtime_env``: the environment
    of every worker (``{"pip": [...]}``, ``{"py_modules": [...]}``, ``{"env_vars": {...}}``), as ``ray.init`` takes
    it. A context manager: ``with RayEngine() as engine, on_engine(engine): ...``."""

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None, max_tasks: int | None = None,
                 runtime_env: dict | None = None):
        for name, value in (("num_cpus", num_cpus), ("max_tasks", max_tasks)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise UsageError(f"{name} must be a whole number of at least 1, not {value!r}")
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise UsageError(f"--ray-address must be a cluster address (auto, HOST:6379 or ray://HOST:10001), "
                             f"not {address!r}")
        if address is not None and num_cpus is not None:
            raise UsageError("num_cpus is for a Ray started here; a cluster at an address has its own CPUs "
                             "(max_tasks caps how many jobs run at once)")
        self.address, self.num_cpus, self.max_tasks, self.runtime_env = address, num_cpus, max_tasks, runtime_env
        self.started = False
        self.ray = None

    def __enter__(self) -> "RayEngine":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> "RayEngine":
        ray = self.ray = import_ray()
        if not ray.is_initialized():
            _reachable(self.address)
            try:
                ray.init(address=self.address, num_cpus=self.num_cpus, runtime_env=self.runtime_env,
                         include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
            except ConnectionError as err:
                raise UsageError(f"cannot reach the Ray cluster at {self.address}: {err} (start it with `ray start "
                                 f"--head`, or leave --ray-address out to start Ray here)") from None
            self.started = True
        elif self.address is not None or self.runtime_env is not None:  # the caller's Ray rules: say so, not ignore
            raise UsageError("Ray is already started in this process (ray.init): leave the Ray address and runtime "
                             "environment out to build on it, or give them to ray.init")
        _quiet_ray_data()
        return self

    def close(self) -> None:
        if self.started and self.ray is not None:
            self.ray.shutdown()
        self.started = False

    @property
    def workers(self) -> int:
        """How many jobs run at once: ``max_tasks``, else the cluster's CPUs."""
        return self.max_tasks or max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    @property
    def gpus(self) -> int:
        """The cluster's GPUs (0 without any)."""
        return int(self.ray.cluster_resources().get("GPU", 0))

    def map(self, fn: Callable, jobs: Sequence, *, initializer: Callable | None = None, initargs: tuple = (),
            done: Callable | None = None, what: str = "the build") -> Iterator:
        """``fn(job)`` of every job as a Ray Data stage, yielded in the jobs' order; ``done(job, result)`` as each
        comes (in any order)."""
        state = self.ray.put((fn, initializer, initargs))
        window = max(MIN_WINDOW, self.workers * WINDOW)
        for start in range(0, len(jobs), window):
            yield from self._window(state, jobs[start:start + window], done, what)

    def _window(self, state, jobs: Sequence, done: Callable | None, what: str) -> Iterator:
        ray = self.ray
        from ray.data import TaskPoolStrategy

        rows = [{"index": i, "job": pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)} for i, job in enumerate(jobs)]
        stage = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
            _run_jobs, fn_kwargs={"state": [state]}, batch_format="pyarrow", batch_size=None,
            compute=TaskPoolStrategy(size=min(self.workers, len(rows))))  # a task is retried RETRIES times
        results: dict[int, Any] = {}
        following = 0
        try:
            for batch in stage.iter_batches(batch_size=None, batch_format="pyarrow"):
                for index, result, error in zip(batch["index"].to_pylist(), batch["result"].to_pylist(),
                                                batch["error"].to_pylist()):
                    if error is not None:
                        raise pickle.loads(error)
                    results[index] = pickle.loads(result)
                    if done is not None:
                        done(jobs[index], results[index])
                while following in results:
                    yield results.pop(following)
                    following += 1
        except ray.exceptions.RayError as err:
            raise WorkerDied(f"a Ray worker of {what} died {RETRIES + 1} times (killed, or out of memory; "
                             f"{type(err).__name__}); nothing was written: run it again, with fewer tasks at once "
                             f"(--num-proc) if memory is short") from None
        if following != len(jobs):  # pragma: no cover  (Ray lost a block without an error)
            raise WorkerDied(f"{what}: {len(jobs) - following} of {len(jobs)} Ray jobs never came back; run it again")


@contextmanager
def engine_context(engine: str, address: str | None = None, num_proc: int | None = None):
    """The whole-folder maps of the block on ``engine``: ``"local"`` (this machine's processes, as ``num_proc``
    says) or ``"ray"`` (a :class:`RayEngine` at ``address``, or Ray started here with ``num_proc`` CPUs; at most
    ``num_proc`` jobs at once). Yields the engine (``None`` for local)."""
    from .workers import on_engine

    if engine not in ("local", "ray"):
        raise UsageError(f"unknown engine {engine!r}; choose from local, ray")
    if engine == "local":
        if address is not None:
            raise UsageError("a Ray address is for engine='ray'; add it, or leave the address out")
        yield None
        return
    with RayEngine(address, num_cpus=num_proc if address is None else None, max_tasks=num_proc) as ray_engine, \
            on_engine(ray_engine):
        yield ray_engine


def _reachable(address: str | None, timeout: float = 5.0) -> None:
    """A ``HOST:PORT`` address nothing answers at is one line now (Ray itself would wait for it without end)."""
    import socket

    if address is None or address == "auto" or "://" in address or ":" not in address:
        return
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except (OSError, ValueError) as err:
        raise UsageError(f"cannot reach the Ray cluster at {address} ({err}): check the address (its head's "
                         f"HOST:6379), or leave --ray-address out to start Ray here") from None


def _run_jobs(batch, state: list) -> "Any":
    """(in a Ray worker) The jobs of one block: each result pickled, or what it raised, pickled."""
    import pyarrow as pa
    import ray

    ref = state[0]
    if _STATE["key"] != ref.hex():
        fn, initializer, initargs = ray.get(ref)
        if initializer is not None:
            initializer(*initargs)
        _STATE.update(key=ref.hex(), fn=fn)
    fn = _STATE["fn"]
    indices, results, errors = [], [], []
    for index, job in zip(batch["index"].to_pylist(), batch["job"].to_pylist()):
        result = error = None
        try:
            result = pickle.dumps(fn(pickle.loads(job)), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as err:  # raised where the build runs, as itself
            error = _pickled_error(err)
        indices.append(index)
        results.append(result)
        errors.append(error)
    return pa.table({"index": pa.array(indices, pa.int64()), "result": pa.array(results, pa.large_binary()),
                     "error": pa.array(errors, pa.large_binary())})


def _pickled_error(err: Exception) -> bytes:
    try:
        data = pickle.dumps(err, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)
        return data
    except Exception:  # an exception that does not survive pickling: its type and text
        return pickle.dumps(RuntimeError(f"{type(err).__name__}: {err}"))


def _quiet_ray_data() -> None:
    """Ray Data's execution banners and per-stage progress lines off: the build shows its own labelled bars."""
    from ray.data import DataContext

    context = DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    context.verbose_stats_logs = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    logging.getLogger("ray.data._internal.progress").setLevel(logging.ERROR)  # "Progress bars disabled": we did
