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

import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Mapping, Sequence

from .. import geometry
from .._version import __version__
from ..errors import UsageError, python_face
from ..scoring.extraction import Extraction
from ..scoring.extraction.strict import strict_answer
from ..spec import get as get_spec
from ..generation.variants import Variant
from ..scoring.score import score_items
from .backends import BUILTIN_MODELS, Request, dist_info
from .data import dataset_fingerprint, dataset_options, images_per_item, load_datasets, read_rows, select_configs
from .endpoint import check_answers
from .openai_backend import DEFAULT_CHECK_TIMEOUT, probe, resolve_api_base
from .options import check_builtin_typo, check_model
from .registry import BACKENDS, check_backend_kwargs, check_installed, make_backend
from .extend import Prior
from .manifest import Manifest, extend
from .rederive import read_records, rederive
from .resolve import judge, restate
from .rundir import RunDir, now
from .config import EvalSettings
from .settings import GenerationSettings, RunIdentity


def slug(text: str) -> str:
    text = text.rstrip("/").split("/")[-1] if os.path.isdir(text) else text
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "run"


def default_backend(model: str, api_base: str | None = None) -> str:
    """builtin for the baselines; openai when an endpoint is given (``api_base`` or ``$OPENAI_BASE_URL``) and
    ``model`` is not a local checkpoint folder; else transformers."""
    return backend_choice(model, api_base)[0]


def backend_choice(model: str, api_base: str | None = None) -> tuple[str, str]:
    """(the default backend for ``model``, why), for the one line the CLI prints when ``--backend`` is left out."""
    if model in BUILTIN_MODELS:
        return "builtin", f"{model} is a built-in baseline"
    endpoint = api_base or os.environ.get("OPENAI_BASE_URL")
    if endpoint and not Path(model).expanduser().exists():
        why = "--api-base is given" if api_base else "$OPENAI_BASE_URL is set"
        return "openai", f"{why} and {model} is not a local path"
    if endpoint:
        return "transformers", f"{model} is a local checkpoint (the endpoint is not used)"
    return "transformers", "no endpoint given (--api-base / $OPENAI_BASE_URL)"


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
    """Per item, the one verdict (extraction and correctness) of :func:`jigsaw_puzzles.scoring.score.score_items`."""
    scored = score_items([r["output"] for r in records], [row["answer"] for row in rows],
                         [r["config"] for r in records], [row.get("options") for row in rows])
    return [{"extracted": ex.answer, "status": ex.status, "rule": ex.rule, "parts": ex.parts, "correct": ok,
             "strict": ex.strict} for ex, ok in scored]


def stored_verdict(record: dict) -> tuple[Extraction, bool]:
    """The verdict a predictions record carries (written by :func:`verdicts`; a record written before the strict
    reader existed gets its strict reading from its output)."""
    strict = record.get("strict")
    if "strict" not in record:
        try:
            strict = strict_answer(record.get("output"), get_spec(record.get("config")))
        except (ValueError, KeyError, TypeError):  # not a config: no strict reading
            strict = None
    return (Extraction(record.get("extracted"), record.get("status", "invalid"), record.get("rule", ""),
                       parts=dict(record.get("parts") or {}), strict=strict), bool(record.get("correct")))


@python_face
def evaluate_model(model: str, settings: EvalSettings | None = None, **overrides) -> dict:
    """Evaluate ``model`` on Jigsaw-Puzzles and return the content of ``results.json`` (+ ``run_dir``).

    The settings come as one :class:`~jigsaw_puzzles.inference.settings.EvalSettings` (what the CLI builds from its
    flags), as keyword arguments (``evaluate_model(model, split="lite", max_items=5)``), or both (the keywords
    override); every value is validated before anything is locked, loaded or built.

    Args:
        model: ``"random"`` / ``"solver"`` / ``"shape"`` (built-in baselines), a HF model id or local checkpoint
            (transformers / vllm), or the model name served by an OpenAI-compatible endpoint.
        backend: a name in ``jigsaw_puzzles.inference.BACKENDS`` (builtin, transformers, vllm, openai); default:
            builtin for the baselines, openai when ``api_base`` is given, else transformers.
        configs: subset of ``jigsaw_puzzles.CONFIGS`` (default: all eight; a config that cannot be built here is
            then skipped and recorded, while one asked for by name raises ``ConfigUnavailable``).
        split / source / seed / num_proc: forwarded to the dataset builder.
        out: run directory (default ``runs/<model>-<split>``); re-running resumes it.
        max_items: answer only the first N items of each config.
        batch_size: items per ``generate`` call (transformers/vllm) or concurrent requests (openai).
        tensor_parallel_size: vllm tensor parallelism.
        api_base / api_key: OpenAI-compatible endpoint (default ``$OPENAI_BASE_URL``, ``$OPENAI_API_KEY``).
        max_new_tokens / temperature / top_p / dtype / system_prompt: decoding settings (greedy by default), a
            :class:`GenerationSettings` recorded in run.json.
        overwrite: discard an existing run in ``out`` instead of resuming it.
        trust_remote_code: let transformers / vLLM run the checkpoint's own model code.
        progress: show labelled progress bars (items answered; circular rotations).
        data: ``{config: datasets.Dataset}`` to evaluate instead of building the datasets (custom data, tests).
        dataset_kwargs: the tasks' options and settings for the builder (``clip_model``, ``clip_pretrained``,
            ``clip_cache_dir`` for the hard config); the options that shape items are recorded in run.json.
        prompt_style / input_format / blind: how items are presented (:class:`~jigsaw_puzzles.generation.variants.Variant`:
            ``"paper"``/``"cot"``, ``"pieces"``/``"composite"``, no image), recorded in run.json and in the
            report's row name; the items and the scoring are the same.
        circular: also ask every multiple-choice item with its options rotated (:mod:`jigsaw_puzzles.generation.circular`);
            results.json keeps the plain figures (rotation 0) and adds a ``circular`` block per such config.
        backend_kwargs: extra keyword arguments for the backend constructor (e.g. ``device_map``,
            ``max_model_len``, ``timeout``, ``max_retries``, ``retry_budget``, ``retry_base_delay``).
        restate: ask once more, in the same conversation, for the final answer of every output the reader leaves
            unread (read by the strict reader; stored in ``resolutions.jsonl`` beside the output: :mod:`.resolve`).
        judge: a judge model (served at an OpenAI-compatible endpoint, or a local transformers checkpoint folder)
            that reads every unread output and must quote the words it read the answer from (:mod:`.resolve`).
        judge_kwargs: the judge's settings (``backend``, ``api_base``, ``api_key``, ``timeout``, ``max_retries``,
            ``max_new_tokens``, ...: :class:`~jigsaw_puzzles.inference.judge.JudgeSettings`).
    """
    if settings is not None and not isinstance(settings, EvalSettings):
        raise UsageError(f"evaluate_model's second argument is an EvalSettings, not {type(settings).__name__}; "
                         "give other settings by name (e.g. backend='openai')")
    s = EvalSettings.of(settings, **overrides).validate()
    backend = s.backend or default_backend(model, s.api_base)
    if model in BUILTIN_MODELS and backend != "builtin":
        raise UsageError(f"--model {model} is a built-in baseline; it runs with the builtin backend")
    check_builtin_typo(model, backend, tuple(BUILTIN_MODELS))  # --model solvr: "did you mean solver?", not the Hub
    check_installed(backend)  # the base install has no torch: one line naming the extra, not a ModuleNotFoundError
    check_backend_kwargs(backend, s.backend_kwargs)  # a key the backend does not take: now, not after the build
    api_base = resolve_api_base(s.api_base) if backend == "openai" else s.api_base  # $OPENAI_BASE_URL checked too
    if backend == "openai":
        probe(api_base)  # a dead endpoint (connection refused): one line in seconds, before any item is built
        check_answers(api_base, s.api_key if s.api_key is not None else os.environ.get("OPENAI_API_KEY"),
                      (s.backend_kwargs or {}).get("check_timeout", DEFAULT_CHECK_TIMEOUT))  # a hung one too
    check_model(model, backend)  # a typo or an unreachable Hub: one line now, not after minutes of retries
    judge_settings = s.judge_settings()
    if judge_settings is not None:
        judge_settings.check()  # a judge that cannot be reached: one line now, not after the first pass
    variant = s.variant()
    configs, explicit = select_configs(s.configs, s.data)
    rank, world, _ = dist_info()
    rundir = RunDir(s.out if s.out else Path("runs") / "-".join([slug(model), s.split, *variant.labels]))
    if rank == 0:
        rundir.lock()  # before any work: a second run into the directory is refused at once
    try:
        source_str = str(Path(s.source).resolve()) if s.source else None
        identity = RunIdentity(
            model=model, backend=backend, split=s.split, seed=int(s.seed), source=source_str,
            generation=GenerationSettings(max_new_tokens=s.max_new_tokens, temperature=s.temperature, top_p=s.top_p,
                                          seed=s.seed, dtype=s.dtype, system_prompt=s.system_prompt),
            api_base=api_base if backend == "openai" else None,
            dataset_options=dataset_options(configs, s.dataset_kwargs),
            variant=None if variant.is_default else variant.to_dict())
        # a resume with another seed, model, ... is refused before anything is built; so is a run whose recorded
        # items do not match their digest (ManifestError)
        old_run = None if s.overwrite else rundir.check_identity(identity, {})
        prior = Prior(rundir.path, old_run)
        build = prior.configs(configs, s.data)  # and the run's unfinished configs (or, before manifests, answered)
        if build != configs:
            if rank == 0:
                print(f"[jigsaw-puzzles] {rundir.path}: also building "
                      f"{', '.join(c for c in build if c not in configs)}, which an earlier session selected: to "
                      "answer its unanswered items and record its items", file=sys.stderr)
            identity = replace(identity, dataset_options=dataset_options(build, s.dataset_kwargs))
            rundir.check_identity(identity, {})
        with geometry.keep_encoded():  # the items built here are read back without decoding their PNGs again
            datasets_, skipped = load_datasets(build, configs if explicit else False, s.split, s.source, s.seed,
                                               s.num_proc, s.data, s.dataset_kwargs, announce=rank == 0)
            # the fingerprints name the items as built (a circular run's rotations are derived from them), so a
            # circular and a plain run of the same items pair in `report --compare`
            fingerprints = {c: dataset_fingerprint(ds) for c, ds in datasets_.items()}
            # per config the most items any session asked for (circular: each followed by its rotations)
            datasets_, selected = prior.select(datasets_, s.max_items, variant.circular, s.progress and rank == 0)
            batch_size = s.batch_size or BACKENDS[backend].default_batch_size
            extended = prior.details(build, datasets_, selected, skipped, list(s.data or ()),
                                     (s.dataset_kwargs or {}).get("answer_plan"))
            details = {"package": "jigsaw-puzzles", "package_version": __version__, "python": sys.version.split()[0],
                       "configs": extended["configs"], "max_items": s.max_items, "batch_size": batch_size,
                       "tensor_parallel_size": s.tensor_parallel_size, "skipped": extended["skipped"],
                       "dataset": {"split": s.split, "seed": int(s.seed), "source": source_str,
                                   "sizes": extended["sizes"], "selected": extended["selected"]}}
            backend_args = dict(batch_size=batch_size, tensor_parallel_size=s.tensor_parallel_size, api_base=api_base,
                                api_key=s.api_key, num_proc=s.num_proc, trust_remote_code=s.trust_remote_code,
                                **(s.backend_kwargs or {}))
            items = (prior, prior.entries(datasets_, selected), extended["made"])
            return _session(rundir, identity, datasets_, selected, details, backend_args, s.overwrite, s.progress, rank,
                            world, fingerprints, items, (s.restate, judge_settings))
    finally:
        if rank == 0:
            rundir.unlock()


def _session(rundir: RunDir, identity: RunIdentity, datasets_: Mapping, selected: Mapping, details: dict,
             backend_args: dict, overwrite: bool, progress: bool, rank: int, world: int,
             fingerprints: Mapping[str, str], items: tuple, resolving: tuple = (False, None)) -> dict:
    """One session of the (locked) run in ``rundir``: check the identity, load the backend if anything is
    pending (before run.json is written: a model that cannot be loaded leaves no run behind), record the run's items
    (``items``: the prior run, this session's manifest entries, what made them), answer what is pending, resolve
    what stays unread (``resolving``: restate, the judge's settings; :mod:`.resolve`), write results.  Any exception
    after that (Ctrl-C, SIGTERM via the CLI, a fatal endpoint error) marks the run ``interrupted``."""
    t_start, lead = time.time(), rank == 0
    if overwrite and lead:
        rundir.clear()
    _sync_barrier(world)
    rundir.check_identity(identity, fingerprints)  # RunMismatchError: nothing touched
    done = rundir.load_predictions(repair=lead and world == 1)
    pending = {c: [i for i, item_id in enumerate(ds.select_columns(["id"])["id"][: selected[c]])
                   if i % world == rank and item_id not in done] for c, ds in datasets_.items()}
    backend_obj = _backend(identity, datasets_, pending, backend_args) if any(pending.values()) else None
    try:
        prior, entries, made = items
        manifest = extend(rundir.path, prior.manifest, entries, write=lead)  # before run.json records its digest
        run = rundir.start(identity, fingerprints, {**details, "items": {**manifest.record(), "configs": made}},
                           write=lead)
        session = run["sessions"][-1]
        try:
            session.update(world_size=world, pending_at_start=sum(map(len, pending.values())), new_items=0)
            if backend_obj is not None:
                _generate(rundir, run, session, datasets_, pending, identity, backend_obj, backend_args, progress,
                          rank, world)
            _sync_barrier(world)
            if world > 1 and lead:
                rundir.merge_shards()
            if lead and (resolving[0] or resolving[1] is not None):
                backend_obj = _resolve(rundir, manifest, identity, datasets_, backend_obj, backend_args, resolving,
                                       progress, session)
            _sync_barrier(world)
            results = _results(rundir, manifest, identity, run)
        except BaseException as err:
            if lead:  # the answers so far are on disk; the same command resumes
                try:
                    rundir.end(run, "interrupted", error=" ".join(f"{type(err).__name__}: {err}".split())[:500])
                except Exception:
                    pass
            raise
    finally:
        if backend_obj is not None:
            backend_obj.close()
    if lead:
        rundir.write_results({k: v for k, v in results.items() if k != "run_dir"})
        rundir.end(run, "complete" if results["complete"] else "incomplete",
                   elapsed_s=round(time.time() - t_start, 2))
    return results


def _backend(identity: RunIdentity, datasets_: Mapping, pending: Mapping, backend_args: dict):
    """The backend for the pending items (as many images per request as the largest of them needs)."""
    variant = Variant.from_dict(identity.variant)
    max_images = max((max(1, variant.images_sent(images_per_item(ds))) for c, ds in datasets_.items() if pending[c]),
                     default=1)
    return make_backend(identity.backend, identity.model, identity.generation, max_images=max_images, **backend_args)


def _resolve(rundir: RunDir, manifest: Manifest, identity: RunIdentity, datasets_: Mapping, backend_obj,
             backend_args: dict, resolving: tuple, progress: bool, session: dict):
    """``eval --restate`` / ``--judge``: the passes of :mod:`.resolve` over the run's unread outputs, recorded in the
    session; returns the run's backend (loaded here when the restate pass needs it and the first pass did not)."""
    restating, judge_settings = resolving
    variant = Variant.from_dict(identity.variant)
    engine = [backend_obj]

    def backend(pending):
        if engine[0] is None:
            engine[0] = _backend(identity, datasets_, {c: pending.get(c, []) for c in datasets_}, backend_args)
        return engine[0]

    if restating:
        session["restate"] = restate(rundir.path, manifest.entries, datasets_, variant, identity.model, backend,
                                     presented, progress)
    if judge_settings is not None:
        session["judge"] = judge(rundir.path, manifest.entries, judge_settings, variant.circular, progress)
    return engine[0]


def _generate(rundir, run, session, datasets_, pending, identity, backend_obj, backend_args, progress, rank,
              world) -> None:
    """Answer the pending items, one record per item (with its verdict), appended and flushed at once."""
    n_pending = sum(len(v) for v in pending.values())
    variant = Variant.from_dict(identity.variant)
    try:
        if rank == 0:
            run["backend_info"] = backend_obj.info()
            if run["backend_info"].get("parameters") is not None:
                run["parameters"] = run["backend_info"]["parameters"]
            rundir.write_run(run)
        chunk = backend_args["batch_size"] * (4 if identity.backend == "openai" else 1)
        from tqdm.auto import tqdm

        bar = tqdm(total=n_pending, desc=f"eval {slug(identity.model)}", unit="item",
                   disable=not progress or rank != 0, dynamic_ncols=True)
        parts = [(c, idx[s:s + chunk]) for c, idx in pending.items() for s in range(0, len(idx), chunk)]
        # the next part's rows are read (their PNGs decoded, which frees the GIL) while this part is answered
        with rundir.writer(rank, world) as writer, ThreadPoolExecutor(1, thread_name_prefix="jp-rows") as reader:
            ahead = reader.submit(read_rows, datasets_[parts[0][0]], parts[0][1]) if parts else None
            for k, (c, part) in enumerate(parts):
                rows = {row["id"]: row for row in ahead.result()}
                if k + 1 < len(parts):
                    ahead = reader.submit(read_rows, datasets_[parts[k + 1][0]], parts[k + 1][1])
                bar.set_postfix_str(c)
                reqs = [presented(rid, c, row, variant) for rid, row in rows.items()]
                for g in backend_obj.generate(reqs):  # each item written as soon as it is answered
                    writer.write(_record(g, c, rows[g.id]))
                    session["new_items"] += 1
                    bar.update(1)
                writer.sync()
        bar.close()
    finally:
        if rank == 0:
            run["backend_info"] = backend_obj.info()


def presented(rid: str, config: str, row: dict, variant: Variant) -> Request:
    """The request for one item under ``variant``: its question and images as sent. ``Request.row`` is what a
    built-in baseline may read: the images as sent (a composite sheet with the boxes of its panels; none when
    blind), never the answer or the metadata."""
    question, images, boxes = variant.apply(row["question"], row["images"])
    seen = {"id": rid, "question": question, "images": images, "options": row.get("options")}
    if boxes is not None:
        seen["panel_boxes"] = boxes
    return Request(rid, config, question, images, seen)


def _record(g, config: str, row: dict) -> dict:
    """The predictions line of one generation: the raw output and its one verdict (or the error)."""
    verdict = {"extracted": None, "status": "error", "correct": False} if g.error else \
        verdicts([{"output": g.text, "config": config}], [row])[0]
    rec = {"id": g.id, "config": config, "output": g.text, "answer": row["answer"], **verdict,
           "prompt_tokens": g.prompt_tokens, "completion_tokens": g.completion_tokens,
           "latency_s": None if g.latency_s is None else round(g.latency_s, 4)}
    if g.error:
        rec["error"] = g.error
    rec.update(g.extra)
    finish = None if g.error else g.finish or ("empty" if not g.text.strip() else None)
    if finish:  # cut at the token limit / no text at all: counted per config in results.json
        rec["finish"] = finish
    return rec


def _results(rundir: RunDir, manifest: Manifest, identity: RunIdentity, run: dict) -> dict:
    """results.json: every item of the run's manifest (every config any session answered), its verdict read again
    from its raw output (:func:`~.rederive.rederive`, what the report derives). An item without an answer (never
    reached, or its last attempt ended in an error) makes the run incomplete; ``missing`` names where."""
    derived = rederive(manifest.entries, read_records(rundir.path), Variant.from_dict(identity.variant).circular)
    return {"model": identity.model, "backend": identity.backend, "split": identity.split,
            "run_dir": str(rundir.path), **derived.numbers(), "skipped": run.get("skipped", {}),
            "parameters": run.get("parameters"), "package_version": __version__, "time": now()}
