"""The hard configs' CLIP embedding as a Ray Data stage (``build --engine ray``): every cell of every accepted photo
embedded on the cluster, on its GPUs when it has any, into the same embeddings cache (:class:`.cache.EmbeddingCache`)
the one-process miner reads; the driver's miner then finds every embedding there and runs only the search.

The stage is ``map_batches`` over chunks of photos with a callable class (each actor builds the model once) in an
actor pool: one actor per GPU (``num_gpus=1``, or the ``clip_num_gpus`` asked for) when the cluster has GPUs and
``clip_device`` does not say ``cpu``, else one per CPU. On GPUs it embeds in amp-fp16 (what ``--clip-device cuda``
does in one process), on CPUs in fp32 (what a CPU build does): the driver's miner is set to read that precision's
entries, and the report records it. The cache folder (``--clip-cache-dir``, default under ``HF_DATASETS_CACHE``)
must be one the workers and the driver share (a network or object-store mount on a cluster; on one machine it is):
an embedding the driver cannot find there stops the build with one line, never a second embedding on the driver.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from ...errors import UsageError


def settle(engine, preparation, settings: dict, clip_num_gpus: float | None) -> tuple[float, str]:
    """``(GPUs per actor, precision)`` of the stage, and the driver's miner set to read what it writes."""
    from .cache import EmbeddingCache

    device = str(settings.get("clip_device") or "")
    if clip_num_gpus is None:
        clip_num_gpus = 1 if engine.gpus and not device.startswith("cpu") else 0
    if isinstance(clip_num_gpus, bool) or not isinstance(clip_num_gpus, (int, float)) or clip_num_gpus < 0:
        raise UsageError(f"clip_num_gpus must be a number of GPUs per CLIP worker (0 for CPUs), not {clip_num_gpus!r}")
    if clip_num_gpus and not engine.gpus:
        raise UsageError(f"clip_num_gpus={clip_num_gpus}, but the Ray cluster has no GPU; leave it out to embed on CPUs")
    precision = "amp-fp16" if clip_num_gpus else "fp32"
    miner = preparation.miner
    if miner.precision != precision:
        miner.precision = precision
        miner.cache = EmbeddingCache(miner.cache.root, miner.spec, precision, miner.cache.rows, miner.cache.cols)
    return clip_num_gpus, precision


def embed_on_cluster(engine, config: str, options: dict, settings: dict, preparation, curation,
                     clip_num_gpus: float | None, progress: bool = False) -> None:
    """Every cell of ``curation``'s accepted photos embedded on the cluster into the miner's cache folder."""
    from tqdm.auto import tqdm
    from ray.data import ActorPoolStrategy

    from ..workers import chunks

    gpus, precision = settle(engine, preparation, settings, clip_num_gpus)
    miner = preparation.miner
    jobs = chunks(sorted((s.source_id, s.path) for s in curation.accepted), None)
    if not jobs:
        return
    actors = max(1, int(engine.gpus // gpus)) if gpus else engine.workers
    stage = engine.ray.data.from_items([{"job": pickle.dumps(job)} for job in jobs], override_num_blocks=len(jobs))
    stage = stage.map_batches(
        _Embedder, batch_size=None, batch_format="pyarrow", num_gpus=gpus or None,
        compute=ActorPoolStrategy(size=min(actors, len(jobs))),
        fn_constructor_kwargs={"config": config, "options": options, "precision": precision,
                               "settings": {**settings, "clip_device": "cuda" if gpus else "cpu",
                                            "clip_cache_dir": str(miner.cache.root)},
                               "identity": miner.spec.identity, "rules": curation.rules})
    missing = []
    with tqdm(total=len(curation.accepted), desc=f"{config} [CLIP cells, ray]", unit="img",
              disable=not progress) as bar:
        for batch in stage.iter_batches(batch_size=None, batch_format="pyarrow"):
            for error, files in zip(batch["error"].to_pylist(), batch["files"].to_pylist()):
                if error is not None:
                    raise pickle.loads(error)
                missing += [f for f in files if not Path(f).is_file()]
                bar.update(len(files))
    if missing:
        raise UsageError(f"{config}: the CLIP embeddings the cluster computed are not in {miner.cache.dir} here "
                         f"({len(missing)} missing, e.g. {missing[0]}): give --clip-cache-dir a folder the workers "
                         f"and this machine share")


class _Embedder:
    """(a Ray actor) The hard config's miner on this worker's device, embedding chunks of ``(source id, path)``."""

    def __init__(self, config: str, options: dict, settings: dict, precision: str, identity: str, rules):
        from ..tasks import get_task

        self.miner = get_task(config).preparer(options, settings).miner
        self.miner.progress = False
        if self.miner.spec.identity != identity:
            raise UsageError(f"the CLIP weights on a Ray worker are {self.miner.spec.identity}, not the driver's "
                             f"{identity}: give every node the same weights (--clip-pretrained)")
        if self.miner.precision != precision:
            raise UsageError(f"a Ray worker embeds in {self.miner.precision}, not {precision}")
        self.rules = rules

    def __call__(self, batch) -> Any:
        import pyarrow as pa

        from ..sources import load_normalised

        errors, files = [], []
        for job in batch["job"].to_pylist():
            try:
                bank = self.miner.embed_sources(dict(pickle.loads(job)), lambda path: load_normalised(path, self.rules))
                files.append([str(self.miner.cache.path(sid, digest)) for sid, digest in
                              sorted(bank.source_pixel_digests.items())])
                errors.append(None)
            except Exception as err:  # raised on the driver as itself
                files.append([])
                errors.append(pickle.dumps(err if _picklable(err) else RuntimeError(f"{type(err).__name__}: {err}")))
        return pa.table({"error": pa.array(errors, pa.large_binary()), "files": pa.array(files, pa.list_(pa.string()))})


def _picklable(err: Exception) -> bool:
    try:
        pickle.loads(pickle.dumps(err))
        return True
    except Exception:
        return False
