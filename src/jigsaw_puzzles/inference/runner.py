"""Run a model on Jigsaw-Puzzles: run directory, resume, JSONL writing, fingerprint, dispatch, progress.

A run directory holds

``run.json``          model, backend, decoding settings, dataset fingerprints, package version, times, backend
                      info (parameter count when known), skipped configs;
``predictions.jsonl`` one line per answered item (``id, config, output, extracted, answer, correct,
                      prompt_tokens, completion_tokens, latency_s`` [+ ``error``, ``confidence``...]).  A line is
                      written with a single ``write`` of the complete line + ``flush`` once the item is done, so a
                      killed run loses at most the items in flight; a torn last line (power loss) is dropped on
                      resume;
``results.json``      the metric's output (``jigsaw_puzzles.scoring.score``) + skipped configs.

Re-running the same command resumes: items whose id is already in ``predictions.jsonl`` are skipped, the rest
are generated, nothing is repeated.  Settings that would change the answers (model, backend, decoding, split,
seed, source, dataset fingerprint) must match, otherwise the run refuses to mix them (use a new ``--out`` or
``overwrite=True``).

Data parallel (``accelerate launch`` / ``torchrun``): process ``r`` of ``K`` answers items ``i`` with
``i % K == r`` and writes ``predictions.rank{r}.jsonl``; at the end rank 0 merges the shards into
``predictions.jsonl`` and writes ``results.json``.  A resume (with any number of processes) reads the shards too.
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
from typing import Any, Sequence

from .backends import (BUILTIN_MODELS, DEFAULT_BATCH_SIZE, GenerationSettings, Request, dist_info, make_backend)

PREDICTIONS = "predictions.jsonl"
RUN_JSON = "run.json"
RESULTS_JSON = "results.json"

# run.json keys that must agree between a run directory and a resumed run
_MUST_MATCH = ("model", "backend", "split", "seed", "source", "generation", "dataset_options")
# dataset options that shape items (the rest, e.g. the embedding cache location, do not)
_OUTPUT_OPTIONS = ("clip_model", "clip_pretrained")


class RunMismatchError(RuntimeError):
    """The run directory holds a run made with other settings or another dataset version."""


def all_configs() -> tuple[str, ...]:
    from ..builder import CONFIGS

    return tuple(CONFIGS)


def package_version() -> str:
    try:
        from .._version import __version__

        return __version__
    except Exception:  # pragma: no cover
        return "unknown"


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


def _atomic_write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False, default=str)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


# ------------------------------------------------------------------------------------------ predictions file
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


def shard_paths(run_dir: Path) -> list[Path]:
    return sorted(run_dir.glob("predictions.rank*.jsonl"))


def load_all_predictions(run_dir: Path, repair: bool = False) -> dict[str, dict]:
    """id -> record over predictions.jsonl and any leftover data-parallel shards (first occurrence wins)."""
    out: dict[str, dict] = {}
    for p in [run_dir / PREDICTIONS, *shard_paths(run_dir)]:
        for rec in read_predictions(p, repair=repair):
            out.setdefault(rec["id"], rec)
    return out


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


# ------------------------------------------------------------------------------------------ dataset helpers
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


def _enable_hint(config: str, exc: BaseException) -> str:
    for attr in ("enable", "how_to_enable", "hint"):
        v = getattr(exc, attr, None)
        if v:
            return str(v)
    if config.endswith("_hard") and "missing_piece" in config:
        return ("install the CLIP extra (pip install 'jigsaw-puzzles[clip]') and cache the CLIP weights once "
                "with network access (README, 'Hard Missing Piece Selection', 'Offline use'), or pass --clip-pretrained /path/to/checkpoint, then re-run the same command: the run "
                "resumes and adds this config")
    return "see the error message"


def _is_unavailable(exc: BaseException) -> bool:
    """Errors that mean 'this config cannot be built here' (listed as skipped) rather than a bug."""
    try:  # hard distractors need CLIP weights (and torch/open_clip)
        from ..clip import ClipWeightsUnavailable

        if isinstance(exc, ClipWeightsUnavailable):
            return True
    except ImportError:
        pass
    if isinstance(exc, ImportError):  # an optional extra (torch, open_clip) is not installed
        return True
    return "clip" in str(exc).lower() and isinstance(exc, (RuntimeError, OSError))


def load_config_dataset(config: str, split: str, source, seed: int, num_proc, **dataset_kwargs):
    """(dataset, None) or (None, {"reason", "enable"}) when the config cannot be built here."""
    import jigsaw_puzzles as jp

    try:
        return jp.load_dataset(config, split=split, source=source, seed=seed, num_proc=num_proc,
                               **dataset_kwargs), None
    except Exception as e:
        if not _is_unavailable(e):
            raise
        return None, {"reason": f"{type(e).__name__}: {e}", "enable": _enable_hint(config, e)}


# ------------------------------------------------------------------------------------------ scoring glue
def _extract(text: str, config: str, options=None):
    from jigsaw_puzzles.extraction import extract_answer

    try:
        return extract_answer(text, config, options)
    except Exception:
        return None


def compute_metrics(records: Sequence[dict], options: Sequence | None = None) -> dict:
    """``jigsaw_puzzles.scoring.score`` on the raw outputs (the metric applies the answer extraction)."""
    from jigsaw_puzzles.scoring import score

    preds = [r.get("output") or "" for r in records]
    refs = [r["answer"] for r in records]
    cfgs = [r["config"] for r in records]
    return score(preds, refs, cfgs, options=list(options) if options is not None else None)


# ------------------------------------------------------------------------------------------ the runner
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


def _merge_shards(run_dir: Path) -> None:
    """Rank 0: append shard lines not yet in predictions.jsonl, then delete the shards."""
    main = run_dir / PREDICTIONS
    have = {r["id"] for r in read_predictions(main, repair=True)}
    with PredictionWriter(main) as w:
        for p in shard_paths(run_dir):
            for rec in read_predictions(p):
                if rec["id"] not in have:
                    w.write(rec)
                    have.add(rec["id"])
    for p in shard_paths(run_dir):
        p.unlink()


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
        raise ValueError(f"--model {model} is a built-in baseline; it runs with the builtin backend")
    known = list(all_configs())
    configs = list(configs) if configs else ([c for c in known if c in data] if data else known)
    unknown = [c for c in configs if c not in known and not (data and c in data)]
    if unknown:
        raise ValueError(f"unknown config(s) {unknown}; choose from {known}")
    if batch_size is None:
        batch_size = DEFAULT_BATCH_SIZE[backend]
    settings = GenerationSettings(max_new_tokens=int(max_new_tokens), temperature=float(temperature),
                                  top_p=float(top_p), seed=int(seed), dtype=dtype, system_prompt=system_prompt)
    rank, world, _ = dist_info()
    run_dir = Path(out) if out else Path("runs") / f"{slug(model)}-{split}"
    run_dir.mkdir(parents=True, exist_ok=True)
    source_str = str(Path(source).resolve()) if source else None

    # ---- datasets (+ skipped configs)
    datasets_: dict[str, Any] = {}
    skipped: dict[str, dict] = {}
    for c in configs:
        if data is not None and c in data:
            datasets_[c] = data[c]
            continue
        ds, why = load_config_dataset(c, split, source, seed, num_proc, **(dataset_kwargs or {}))
        if ds is None:
            skipped[c] = why
            if rank == 0:
                print(f"[jigsaw-puzzles] skipping {c}: {why['reason']}\n    to enable: {why['enable']}",
                      file=sys.stderr)
        else:
            datasets_[c] = ds
    fingerprints = {c: dataset_fingerprint(ds) for c, ds in datasets_.items()}
    sizes = {c: len(ds) for c, ds in datasets_.items()}
    selected = {c: (min(len(ds), max_items) if max_items is not None else len(ds)) for c, ds in datasets_.items()}

    # ---- run.json: create or check compatibility
    run_json = run_dir / RUN_JSON
    header = {"model": model, "backend": backend, "split": split, "seed": int(seed), "source": source_str,
              "generation": settings.to_dict(),
              "dataset_options": {k: v for k, v in sorted((dataset_kwargs or {}).items()) if k in _OUTPUT_OPTIONS}}
    if overwrite and rank == 0:
        for p in [run_dir / PREDICTIONS, run_dir / RESULTS_JSON, run_json, *shard_paths(run_dir)]:
            if p.exists():
                p.unlink()
    _sync_barrier(world)
    old = json.loads(run_json.read_text()) if run_json.exists() else None
    if old is not None:
        diffs = [k for k in _MUST_MATCH if json.dumps(old.get(k), sort_keys=True) != json.dumps(header[k], sort_keys=True)]
        old_fp = (old.get("dataset") or {}).get("fingerprints", {})
        diffs += [f"dataset[{c}]" for c in fingerprints if c in old_fp and old_fp[c] != fingerprints[c]]
        if diffs:
            raise RunMismatchError(
                f"{run_dir} holds a run with different {', '.join(diffs)} "
                f"({ {k: old.get(k) for k in _MUST_MATCH if k in diffs} } vs { {k: header[k] for k in _MUST_MATCH if k in diffs} }); "
                "use another --out, or --overwrite to discard it")

    # ---- what is left to do (this rank's share)
    done = load_all_predictions(run_dir, repair=(rank == 0 and world == 1))
    pending: dict[str, list[int]] = {}
    for c, ds in datasets_.items():
        ids = ds.select_columns(["id"])["id"][: selected[c]] if "id" in ds.column_names else []
        pending[c] = [i for i, item_id in enumerate(ids) if i % world == rank and item_id not in done]
    n_pending = sum(len(v) for v in pending.values())

    run = dict(old or {})
    run.update(header)
    run.update({
        "package": "jigsaw-puzzles", "package_version": package_version(),
        "configs": configs, "max_items": max_items, "batch_size": batch_size,
        "tensor_parallel_size": tensor_parallel_size,
        "api_base": api_base if backend == "openai" else None,
        "dataset": {"split": split, "seed": int(seed), "source": source_str,
                    "fingerprints": {**((old or {}).get("dataset") or {}).get("fingerprints", {}), **fingerprints},
                    "sizes": sizes, "selected": selected},
        "skipped": skipped, "status": "running",
        "created_at": (old or {}).get("created_at") or _now(),
        "python": sys.version.split()[0],
    })
    session = {"started_at": _now(), "world_size": world, "pending_at_start": None}

    # ---- generate
    backend_obj = None
    n_new = 0
    try:
        if rank == 0:
            session["pending_at_start"] = n_pending
            run.setdefault("sessions", []).append(session)
            _atomic_write_json(run_json, run)
        if n_pending:
            max_images = max((len(ds[0]["images"]) for ds in datasets_.values() if len(ds)), default=1)
            backend_obj = make_backend(backend, model, settings, batch_size=batch_size, max_images=max_images,
                                       tensor_parallel_size=tensor_parallel_size, api_base=api_base,
                                       api_key=api_key, num_proc=num_proc, trust_remote_code=trust_remote_code,
                                       **(backend_kwargs or {}))
            if rank == 0:
                run["backend_info"] = backend_obj.info()
                if run["backend_info"].get("parameters") is not None:
                    run["parameters"] = run["backend_info"]["parameters"]
                _atomic_write_json(run_json, run)
            out_path = run_dir / (PREDICTIONS if world == 1 else f"predictions.rank{rank}.jsonl")
            chunk = batch_size * (4 if backend == "openai" else 1)
            from tqdm.auto import tqdm

            bar = tqdm(total=n_pending, desc=slug(model), unit="item", disable=not progress or rank != 0,
                       dynamic_ncols=True)
            with PredictionWriter(out_path) as writer:
                for c, idx in pending.items():
                    ds = datasets_[c]
                    bar.set_postfix_str(c)
                    for s in range(0, len(idx), chunk):
                        rows = {}
                        reqs = []
                        for i in idx[s:s + chunk]:
                            row = ds[i]
                            rows[row["id"]] = row
                            reqs.append(Request(row["id"], c, row["question"], list(row["images"]), row))
                        for g in backend_obj.generate(reqs):
                            row = rows[g.id]
                            extracted = _extract(g.text, c, row.get("options"))
                            rec = {"id": g.id, "config": c, "output": g.text, "extracted": extracted,
                                   "answer": row["answer"],
                                   "correct": extracted is not None and extracted == row["answer"],
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
                _atomic_write_json(run_json, run)
            except Exception:
                pass
        raise
    finally:
        if backend_obj is not None:
            if rank == 0:
                run["backend_info"] = backend_obj.info()
            backend_obj.close()

    # ---- finish: merge shards, score, write results
    _sync_barrier(world)
    if world > 1 and rank == 0:
        _merge_shards(run_dir)
    _sync_barrier(world)
    preds = load_all_predictions(run_dir)
    records, options, missing = [], [], 0
    for c, ds in datasets_.items():
        cols = ds.select_columns([k for k in ("id", "options") if k in ds.column_names])[: selected[c]]
        for j, item_id in enumerate(cols["id"]):
            if item_id in preds:
                records.append(preds[item_id])
                options.append(cols["options"][j] if "options" in cols else None)
            else:
                missing += 1
    metrics = compute_metrics(records, options) if records else {}
    results = {"model": model, "backend": backend, "split": split, "run_dir": str(run_dir),
               "complete": missing == 0, "n_items": len(records), "n_missing": missing,
               "metrics": metrics, "skipped": skipped,
               "parameters": run.get("parameters"), "package_version": package_version(), "time": _now()}
    if rank == 0:
        _atomic_write_json(run_dir / RESULTS_JSON, {k: v for k, v in results.items() if k != "run_dir"})
        session.update(finished_at=_now(), new_items=n_new, elapsed_s=round(time.time() - t_start, 2))
        run["status"] = "complete" if missing == 0 else "incomplete"
        run["finished_at"] = session["finished_at"]
        _atomic_write_json(run_json, run)
    return results
