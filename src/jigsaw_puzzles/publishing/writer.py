"""An export's files, whichever engine made its rows: the parquet file of each config and split (64-row groups
in the build's order, so the bytes depend on neither the processes nor the machines that made the rows), the
report, and the card with its files; and the builders every engine prepares first. Shared by :mod:`.export` (one
machine), :mod:`.ray_build` (a Ray cluster) and :mod:`.shards` (``merge``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath
from typing import Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from . import card, guard_index
from .._version import __version__
from ..errors import ConfigUnavailable
from ..generation.remote import is_url
from ..generation.sources import accepted_ids, photos_fingerprint
from ..generation.versions import item_versions
from ..spec import GENERATOR_VERSION

ROW_GROUP_SIZE = 64


def write_parquet(dataset, path: Path) -> None:
    """``dataset``'s rows as one parquet file, one row group per 64 rows."""
    write_batches(dataset.data.table.to_batches(), dataset.data.table.schema, path)


def write_batches(batches: Iterable[pa.RecordBatch], schema: pa.Schema, path: Path) -> None:
    """Rows in ``batches`` (any sizes) as one parquet file of 64-row groups, written as they come: the bytes of
    ``pq.write_table`` on all the rows at once (the same row groups; the same pages, each cut from one
    contiguous array), without holding more than a row group of images in memory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    pending: list[pa.RecordBatch] = []
    with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
        def flush(rows: int) -> None:
            table = pa.Table.from_batches(pending, schema)
            writer.write_table(table.slice(0, rows).combine_chunks(), row_group_size=ROW_GROUP_SIZE)
            pending[:] = table.slice(rows).to_batches()

        for batch in batches:
            pending.append(batch)
            while sum(len(b) for b in pending) >= ROW_GROUP_SIZE:
                flush(ROW_GROUP_SIZE)
        if sum(len(b) for b in pending):
            flush(sum(len(b) for b in pending))
    os.replace(tmp, path)


def ready_builders(configs: list[str], explicit: bool, make, plan) -> tuple[dict, list[str], dict]:
    """Every config's builder (``make(config)``), its preparation (e.g. CLIP weights) resolved and ``plan(builder)``
    made (curation and the answer plan: too few sources is known before writing) before any item; a config that
    cannot be built here is skipped with its reason (raised when ``explicit``). Returns the builders, the configs
    kept and the skipped ones' reasons."""
    builders, skipped, configs = {}, {}, list(configs)
    for config in list(configs):
        builders[config] = make(config)
        try:
            builders[config].preparation()
            plan(builders[config])
        except ConfigUnavailable as err:
            if explicit:
                raise
            configs.remove(config)
            skipped[config] = err.reason
    if not configs:
        raise ConfigUnavailable("every config", "; ".join(f"{c}: {r}" for c, r in skipped.items()))
    return builders, configs, skipped


def part_name(split: str, shard: tuple[int, int] | None) -> str:
    """The parquet file of ``split``: the whole split, or one shard's part of it (``test-00001-of-00004``)."""
    i, n = shard or (0, 1)
    return f"{split}-{i:05d}-of-{n:05d}.parquet"


def build_report(builders: dict, configs: list[str], skipped: dict, source, seed: int, counts: dict,
                 out: Path) -> dict:
    """The export's ``curation_report.json``: the curation, each config's task skips and row counts, and what
    ``verify`` and a training stream need (seed, answer plan, versions, the photos' fingerprint, CLIP weights);
    writes the guard's evaluation index (``out/guard_index.parquet``) it records."""
    report = {"configs": {}}
    shard = builders[configs[0]].config.shard
    for config in configs:
        builder_report = builders[config].report
        report["curation"] = builder_report["curation"]
        report["configs"][config] = {"task_skips": builder_report["task_skips"], **counts[config]}
    # no path of the build machine in anything exported: the folder is named, never located
    report["curation"]["folder"] = "<embedded photos>" if source is None else _folder_name(source)
    report["curation"]["embedded"] = source is None
    report["skipped_configs"] = skipped
    report["seed"] = seed
    report["answer_plan"] = builders[configs[0]].config.answer_plan  # what `verify` rebuilds the items with
    report["version"] = __version__
    report["generator_version"] = GENERATOR_VERSION
    report["fingerprint"] = photos_fingerprint(accepted_ids(report["curation"]))  # a stream refuses these photos
    report["item_versions"] = item_versions()  # the libraries that shaped the items: `verify` names a difference
    # the guard's evaluation index: exclude=EXPORT recognises every copy kind a folder of the photos would
    report[guard_index.REPORT_KEY] = guard_index.write(out, guard_index.photo_greys(
        builders[configs[0]].plan()["curation"].accepted))
    clip = {c: getattr(builders[c].preparation(), "metadata", None) for c in configs}
    clip = {c: m for c, m in clip.items() if isinstance(m, dict) and "clip_weights" in m}
    if clip:  # model, tag or the weights file's name and SHA-256 (never its path): what `verify` needs to find them
        report["clip"] = clip
    if shard is not None:  # one machine's part: `jigsaw-puzzles merge` makes the whole export of the parts
        report["shard"] = {"index": shard[0], "count": shard[1], "configs": configs}
    return report


def _folder_name(source) -> str:
    """The source folder's own name (of a URL too: ``s3://bucket/photos`` is ``photos``)."""
    return PurePosixPath(str(source).rstrip("/")).name if is_url(str(source)) else Path(str(source)).name


def write_top(out: Path, configs: list[str], counts: dict, sizes: dict, tests: dict, report: dict, num_proc,
              repo: str, firsts: dict | None = None, solved: dict | None = None) -> dict:
    """The files beside the parquet folders: the report, the credits, the example sheets and the card (its
    results measured on ``tests``, each config's test split; ``firsts`` and ``solved``: each config's first test
    row and the solver's answers, when the caller has them, :func:`.card.baseline_results`)."""
    (out / "curation_report.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    (out / card.LICENSE_FILE).write_text(card.credits_text(report["curation"]["embedded"]), encoding="utf-8")
    assets = card.write_assets(out, tests, firsts)
    results = card.baseline_results(tests, num_proc, solved)
    (out / "README.md").write_text(card.render_card(configs, counts, sizes, report, report["seed"], repo, assets,
                                                    results), encoding="utf-8")
    return report
