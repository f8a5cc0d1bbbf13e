"""Run a model on Jigsaw-Puzzles: datasets, resume, dispatch to a backend, one verdict per item.

The run directory's files, identity check, lock and shard merging live in :mod:`.rundir`.
Re-running the same command resumes: answered items are skipped, items that ended in an error are
answered again. Settings that would change the answers (model, backend, decoding, split, seed,
source, dataset options, endpoint, dataset fingerprints) must match, otherwise the run refuses to mix
them (use a new ``--out`` or ``overwrite=True``).

Data parallel (``accelerate launch`` / ``torchrun``): process ``r`` of ``K`` answers items ``i`` with
``i % K == r`` and writes its own shard; at the end rank 0 merges the shards and writes ``results.json``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Sequence

from .._version import __version__
from ..errors import ConfigUnavailable, UsageError
from ..extraction import Extraction
from ..scoring import aggregate, score_items
from ..spec import CONFIGS
from ..tasks import TASKS
from .backends import BUILTIN_MODELS, DEFAULT_BATCH_SIZE, GenerationSettings, Request, dist_info
from .registry import make_backend
from .rundir import RunDir

# run.json keys that must agree between a run directory and a resumed run
MUST_MATCH = ("model", "backend", "split", "seed", "source", "generation", "dataset_options", "api_base")


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def slug(text: str) -> str:
    text = text.rstrip("/").split("/")[-1] if os.path.isdir(text) else text
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "run"


def default_backend(model: str, api_base: str | None = None) -> str:
    if model in BUILTIN_MODELS:
        return "builtin"
    if api_base:
        return "openai"
    return "transformers"


_FP_COLUMNS = ("id", "source_id", "question", "options", "answer", "metadata")


def dataset_fingerprint(ds) -> str:
    """sha256 (16 hex) of every row's id, source_id, question, options, answer and metadata (no image decoding;
    source_id is the hash of the source image bytes)."""
    cols = [c for c in _FP_COLUMNS if c in ds.column_names]
    h = hashlib.sha256()
    table = ds.select_columns(cols).to_dict()
    for i in range(len(ds)):
        h.update(json.dumps([table[c][i] for c in cols], ensure_ascii=False, sort_keys=True).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()[:16]


def output_options(config: str, dataset_kwargs: dict | None) -> dict:
    """The dataset options that shape ``config``'s items (its task's ``options``), as given."""
    task = TASKS.get(config)
    return {k: v for k, v in (dataset_kwargs or {}).items() if task is not None and k in task.options}


def load_config_dataset(config: str, split: str, source, seed: int, num_proc, **dataset_kwargs):
    """(dataset, None) or (None, {"reason", "enable"}) when the config cannot be built here."""
    from ..builder import make_builder

    try:
        builder = make_builder(config, source, seed, **dataset_kwargs)
        builder.preparation()  # ConfigUnavailable before any work
        builder.plan()
        builder.download_and_prepare(num_proc=num_proc)
        return builder.as_dataset(split=split), None
    except ConfigUnavailable as err:
        return None, {"reason": err.reason,
                      "enable": "fix what the reason says, then re-run the same command: the run resumes and "
                                "adds this config"}


def _sync_barrier(world: int):
    if world <= 1:
        return
    try:
        from accelerate import PartialState

        PartialState().wait_for_everyone()
    except ImportError:
        import torch.distributed as dist

        if not dist.is_initialized():
            dist.init_process_group("gloo")
        dist.barrier()


def verdicts(records: Sequence[dict], rows: Sequence[dict]) -> list[dict]:
    """Per item, the one verdict (extraction and correctness) of :func:`jigsaw_puzzles.scoring.score_items`."""
    scored = score_items([r["output"] for r in records], [row["answer"] for row in rows],
                         [r["config"] for r in records], [row.get("options") for row in rows])
    return [{"extracted": ex.answer, "status": ex.status, "rule": ex.rule, "parts": ex.parts, "correct": ok}
            for ex, ok in scored]


def stored_verdict(record: dict) -> tuple[Extraction, bool]:
    """The verdict a predictions record carries (written by :func:`verdicts`)."""
    return (Extraction(record.get("extracted"), record.get("status", "invalid"), record.get("rule", ""),
                       parts=dict(record.get("parts") or {})), bool(record.get("correct")))


def evaluate_model(
    model: str,
    backend: str | None = None,
    configs: Sequence[str] | None = None,
    split: str = "test",
    source: str | os.PathLike | None = None,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    max_items: int | None = None,
    batch_size: int | None = None,
    tensor_parallel_size: int = 1,
    api_base: str | None = None,
    api_key: str | None = None,
    max_new_tokens: int = 256,
    temperature: float = 0.0,
    top_p: float = 1.0,
    dtype: str = "auto",
    system_prompt: str | None = None,
    num_proc: int | None = None,
    trust_remote_code: bool = False,
    overwrite: bool = False,
    progress: bool = True,
    data: dict | None = None,
    backend_kwargs: dict | None = None,
    dataset_kwargs: dict | None = None,
) -> dict:
    """Evaluate ``model`` on Jigsaw-Puzzles and return the content of ``results.json`` (+ ``run_dir``).

    Args:
        model: ``"random"`` / ``"solver"`` (built-in baselines), a HF model id or local checkpoint
            (transformers / vllm), or the model name served by an OpenAI-compatible endpoint.
        backend: ``builtin`` | ``transformers`` | ``vllm`` | ``openai``; default: builtin for the baselines,
            openai when ``api_base`` is given, else transformers.
        configs: subset of ``jigsaw_puzzles.CONFIGS`` (default: all eight).
        split / source / seed / num_proc: forwarded to ``jigsaw_puzzles.load_dataset``.
        out: run directory (default ``runs/<model>-<split>``); re-running resumes it.
        max_items: answer only the first N items of each config.
        batch_size: items per ``generate`` call (transformers/vllm) or concurrent requests (openai).
        tensor_parallel_size: vllm tensor parallelism.
        api_base / api_key: OpenAI-compatible endpoint (default ``$OPENAI_BASE_URL``, ``$OPENAI_API_KEY``).
        max_new_tokens / temperature / top_p / dtype / system_prompt: decoding settings (greedy by default),
            recorded in run.json.
        overwrite: discard an existing run in ``out`` instead of resuming it.
        data: ``{config: datasets.Dataset}`` to evaluate instead of building the datasets (custom data, tests).
        dataset_kwargs: extra keyword arguments for ``jigsaw_puzzles.load_dataset`` (``clip_model``,
            ``clip_pretrained``, ``clip_cache_dir`` for the hard config); recorded in ``run.json``.
        backend_kwargs: extra keyword arguments for the backend constructor (e.g. ``device_map``,
            ``max_model_len``, ``retry_base_delay``).
    """
    t_start = time.time()
    backend = backend or default_backend(model, api_base)
    if model in BUILTIN_MODELS and backend != "builtin":
        raise UsageError(f"--model {model} is a built-in baseline; it runs with the builtin backend")
    known = list(CONFIGS)
    configs = list(configs) if configs else ([c for c in known if c in data] if data else known)
    unknown = [c for c in configs if c not in known and not (data and c in data)]
    if unknown:
        raise UsageError(f"unknown config(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    batch_size = batch_size or DEFAULT_BATCH_SIZE[backend]
    settings = GenerationSettings(max_new_tokens=int(max_new_tokens), temperature=float(temperature),
                                  top_p=float(top_p), seed=int(seed), dtype=dtype, system_prompt=system_prompt)
    rank, world, _ = dist_info()
    rundir = RunDir(out if out else Path("runs") / f"{slug(model)}-{split}")
    source_str = str(Path(source).resolve()) if source else None

    datasets_, skipped = {}, {}
    for c in configs:
        if data is not None and c in data:
            datasets_[c] = data[c]
            continue
        ds, why = load_config_dataset(c, split, source, seed, num_proc, **(dataset_kwargs or {}))
        if ds is None:
            skipped[c] = why
            if rank == 0:
                print(f"[jigsaw-puzzles] skipping {c}: {why['reason']}", file=sys.stderr)
        else:
            datasets_[c] = ds
    fingerprints = {c: dataset_fingerprint(ds) for c, ds in datasets_.items()}
    selected = {c: (min(len(ds), max_items) if max_items is not None else len(ds)) for c, ds in datasets_.items()}
    header = {"model": model, "backend": backend, "split": split, "seed": int(seed), "source": source_str,
              "generation": settings.to_dict(), "api_base": api_base if backend == "openai" else None,
              "dataset_options": {k: v for c in configs for k, v in sorted(output_options(c, dataset_kwargs).items())}}
    if rank == 0:
        rundir.lock()
    try:
        if overwrite and rank == 0:
            rundir.clear()
        _sync_barrier(world)
        old = rundir.check_identity(header, MUST_MATCH, fingerprints)
        done = rundir.load_predictions(repair=(rank == 0 and world == 1))
        pending = {c: [i for i, item_id in enumerate(ds.select_columns(["id"])["id"][: selected[c]])
                       if i % world == rank and item_id not in done] for c, ds in datasets_.items()}
        run = dict(old or {})
        run.update(header)
        run.update({
            "package": "jigsaw-puzzles", "package_version": __version__, "configs": configs, "max_items": max_items,
            "batch_size": batch_size, "tensor_parallel_size": tensor_parallel_size,
            "dataset": {"split": split, "seed": int(seed), "source": source_str,
                        "fingerprints": {**((old or {}).get("dataset") or {}).get("fingerprints", {}), **fingerprints},
                        "sizes": {c: len(ds) for c, ds in datasets_.items()}, "selected": selected},
            "skipped": skipped, "status": "running", "created_at": (old or {}).get("created_at") or _now(),
            "python": sys.version.split()[0]})
        session = {"started_at": _now(), "world_size": world, "pending_at_start": sum(map(len, pending.values()))}
        if rank == 0:
            run.setdefault("sessions", []).append(session)
            rundir.write_run(run)
        backend_args = dict(batch_size=batch_size, tensor_parallel_size=tensor_parallel_size, api_base=api_base,
                            api_key=api_key, num_proc=num_proc, trust_remote_code=trust_remote_code,
                            **(backend_kwargs or {}))
        n_new = _generate(rundir, run, session, datasets_, pending, backend, model, settings, backend_args,
                          progress, rank, world)
        _sync_barrier(world)
        if world > 1 and rank == 0:
            rundir.merge_shards()
        _sync_barrier(world)
        results = _finish(rundir, datasets_, selected, model, backend, split, skipped, run)
        if rank == 0:
            rundir.write_results({k: v for k, v in results.items() if k != "run_dir"})
            session.update(finished_at=_now(), new_items=n_new, elapsed_s=round(time.time() - t_start, 2))
            run["status"] = "complete" if results["complete"] else "incomplete"
            run["finished_at"] = session["finished_at"]
            rundir.write_run(run)
        return results
    finally:
        if rank == 0:
            rundir.unlock()


def _generate(rundir, run, session, datasets_, pending, backend, model, settings, backend_args, progress,
              rank, world) -> int:
    """Answer the pending items, one record per item (with its verdict), appended and flushed at once."""
    n_pending = sum(len(v) for v in pending.values())
    if not n_pending:
        return 0
    n_new = 0
    backend_obj = None
    try:
        max_images = max((len(ds[0]["images"]) for ds in datasets_.values() if len(ds)), default=1)
        backend_obj = make_backend(backend, model, settings, max_images=max_images, **backend_args)
        if rank == 0:
            run["backend_info"] = backend_obj.info()
            if run["backend_info"].get("parameters") is not None:
                run["parameters"] = run["backend_info"]["parameters"]
            rundir.write_run(run)
        chunk = backend_args["batch_size"] * (4 if backend == "openai" else 1)
        from tqdm.auto import tqdm

        bar = tqdm(total=n_pending, desc=f"eval {slug(model)}", unit="item", disable=not progress or rank != 0,
                   dynamic_ncols=True)
        with rundir.writer(rank, world) as writer:
            for c, idx in pending.items():
                ds = datasets_[c]
                bar.set_postfix_str(c)
                for s in range(0, len(idx), chunk):
                    rows = {row["id"]: row for row in (ds[i] for i in idx[s:s + chunk])}
                    reqs = [Request(rid, c, row["question"], list(row["images"]), row) for rid, row in rows.items()]
                    for g in backend_obj.generate(reqs):  # each item written as soon as it is answered
                        verdict = {"extracted": None, "status": "error", "correct": False} if g.error else \
                            verdicts([{"output": g.text, "config": c}], [rows[g.id]])[0]
                        rec = {"id": g.id, "config": c, "output": g.text, "answer": rows[g.id]["answer"], **verdict,
                               "prompt_tokens": g.prompt_tokens, "completion_tokens": g.completion_tokens,
                               "latency_s": None if g.latency_s is None else round(g.latency_s, 4)}
                        if g.error:
                            rec["error"] = g.error
                        rec.update(g.extra)
                        writer.write(rec)
                        n_new += 1
                        bar.update(1)
                    writer.sync()
        bar.close()
    except BaseException as e:
        if rank == 0:  # leave a trace; the predictions written so far are kept and the next run resumes
            run["status"] = "interrupted"
            session.update(interrupted_at=_now(), new_items=n_new, error=f"{type(e).__name__}: {e}"[:500])
            try:
                rundir.write_run(run)
            except Exception:
                pass
        raise
    finally:
        if backend_obj is not None:
            if rank == 0:
                run["backend_info"] = backend_obj.info()
            backend_obj.close()
    return n_new


def _finish(rundir, datasets_, selected, model, backend, split, skipped, run) -> dict:
    """results.json from the stored verdicts: the numbers are exactly those of predictions.jsonl."""
    preds = rundir.load_predictions()
    records, rows, missing = [], [], 0
    for c, ds in datasets_.items():
        cols = ds.select_columns([k for k in ("id", "answer", "options") if k in ds.column_names])[: selected[c]]
        for j, item_id in enumerate(cols["id"]):
            if item_id in preds:
                records.append(preds[item_id])
                rows.append({"answer": cols["answer"][j], "options": cols["options"][j] if "options" in cols else None})
            else:
                missing += 1
    n_errors = len(rundir.errored_ids() - set(preds))
    items = [stored_verdict(r) if "status" in r else  # records of runs before verdicts were stored: judge once
             next(iter(score_items([r["output"]], [row["answer"]], [r["config"]], [row["options"]])))
             for r, row in zip(records, rows)]
    metrics = aggregate(items, [row["answer"] for row in rows], [r["config"] for r in records]) if records else {}
    return {"model": model, "backend": backend, "split": split, "run_dir": str(rundir.path),
            "complete": missing == 0, "n_items": len(records), "n_missing": missing, "n_errors": n_errors,
            "metrics": metrics, "skipped": skipped, "parameters": run.get("parameters"),
            "package_version": __version__, "time": _now()}
