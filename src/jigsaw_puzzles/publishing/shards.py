"""A build over several machines: each builds its shard of the folder, and the parts make one export.

``jigsaw-puzzles build --shard i/n`` (``export.build(shard=(i, n))``) on machine ``i`` of ``n`` curates and plans
the whole folder, as one build does (the duplicate rule, the Lite subset and the answer plan are decisions over
every photo), and cuts only the items of the photos whose source id falls in the ``i``-th of ``n`` equal ranges of
ids (:func:`~jigsaw_puzzles.generation.plan.in_shard`; a content hash, so no listing order enters). Its export
holds ``<config>/<split>-0000i-of-0000n.parquet``. :func:`merge` (``jigsaw-puzzles merge SHARD... --out DIR``)
checks that the parts are the ``n`` shards of one build (same photos, seed, plan, generator and library versions)
and writes the export one machine would have written: the parts' rows in shard order are the whole build's rows
in its order, so the parquet files, the report and the card are the same bytes. What may differ: the report's
folder name is the first shard's, as each machine has its own copy of the folder (its ``fingerprint``, of the
photos' contents, is the same on every machine).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

from ..errors import UsageError
from ..inference.options import whole
from ..spec import SPLITS
from . import guard_index
from .writer import ROW_GROUP_SIZE, part_name, write_batches, write_top
from .outdir import check_build_out, read_report, staged

#: what every shard's report must hold alike (the shard and its counts aside; the folder's name: see the module doc)
_SAME = ("curation", "skipped_configs", "seed", "answer_plan", "version", "generator_version", "item_versions",
         "clip", "fingerprint", "guard_index")


def _comparable(report: dict, key: str):
    value = report.get(key)
    return {**value, "folder": None} if key == "curation" and isinstance(value, dict) else value  # a copy's name


def _shards(folders: list[Path]) -> tuple[list[dict], int]:
    """The reports of ``folders`` in shard order, or a ``UsageError`` saying why they are not one build's parts."""
    reports = {}
    for folder in folders:
        report = read_report(folder)
        record = report.get("shard")
        shard = (record.get("index"), record.get("count")) if isinstance(record, dict) else None
        if shard is None or not all(isinstance(v, int) for v in shard) \
                or sorted(record.get("configs") or ()) != sorted(report["configs"]):
            raise UsageError(f"{folder} is not a shard of a build (built without --shard i/n)")
        if shard in reports:
            raise UsageError(f"{folder} and {reports[shard][0]} are both shard {shard[0]}/{shard[1]}")
        reports[shard] = (folder, report)
    counts = {n for _, n in reports}
    n = counts.pop()
    missing = sorted(set(range(n)) - {i for i, _ in reports})
    if counts or missing:
        raise UsageError(f"the shards given are not the {n} shards of one build: "
                         + (f"missing {', '.join(f'{i}/{n}' for i in missing)}" if missing else
                            "they were built with different shard counts"))
    ordered = [reports[i, n] for i in range(n)]
    first_folder, first = ordered[0]
    for folder, report in ordered[1:]:
        differ = [k for k in _SAME if _comparable(report, k) != _comparable(first, k)]
        if report["shard"]["configs"] != first["shard"]["configs"]:
            differ.append("configs")
        differ += [f"{c} task skips" for c in first["configs"] if c in report["configs"]
                   and report["configs"][c]["task_skips"] != first["configs"][c]["task_skips"]]
        if differ:
            raise UsageError(f"{folder} and {first_folder} are not shards of one build: their {', '.join(differ)} "
                             f"differ (build every shard from the same photos with the same command and versions)")
    return [report for _, report in ordered], n


def merge(shards: list[str | os.PathLike], out: str | os.PathLike, num_proc: int | None = None,
          repo: str = "<exported folder or repo>") -> dict:
    """Write the export of a build from its ``n`` shard exports (any order) into ``out``; returns its report.
    ``out`` as for ``build``: new, empty or an earlier export (replaced as a whole, only when all is written)."""
    import datasets

    from ..spec import features

    whole("--num-proc", num_proc)  # 0 or -1 is one line, as for build
    folders = [Path(s) for s in shards]
    if not folders:
        raise UsageError("merge needs the shard exports to merge (the folders `build --shard i/n` wrote)")
    reports, n = _shards(folders)
    by_index = {(r["shard"]["index"], r["shard"]["count"]): f for f in folders for r in [read_report(f)]}
    out = Path(out)
    check_build_out(out, None)  # (no source folder here: the embedded photos' is checked, harmlessly)
    configs = list(reports[0]["shard"]["configs"])  # the build's order (the report's keys are sorted)
    schema = features().arrow_schema  # the builder's (parquet reads its list fields back as "element", not "item")
    with staged(out, f"cannot write the merged export {out}") as staging:
        counts, sizes, tests = {}, {}, {}
        report = {k: v for k, v in reports[0].items() if k != "shard"}
        report["configs"] = {}
        with tempfile.TemporaryDirectory() as cache:  # the merged test splits, read back for the card
            for config in configs:
                counts[config], sizes[config] = {}, {}
                for split in SPLITS:
                    parts = [p for p in (by_index[i, n] / config / part_name(split, (i, n)) for i in range(n))
                             if p.is_file()]
                    counts[config][split] = sum(pq.ParquetFile(p).metadata.num_rows for p in parts)
                    path = staging / config / part_name(split, None)
                    if counts[config][split]:
                        write_batches((b.cast(schema) for p in parts for b in pq.ParquetFile(p).iter_batches(
                            batch_size=ROW_GROUP_SIZE)), schema, path)
                    sizes[config][split] = path.stat().st_size if counts[config][split] else 0
                    if split == "test":
                        tests[config] = datasets.Dataset.from_parquet(str(path), cache_dir=cache) \
                            if counts[config][split] else datasets.Dataset.from_dict(
                                {k: [] for k in features()}, features=features())
                report["configs"][config] = {"task_skips": reports[0]["configs"][config]["task_skips"],
                                             **counts[config]}
            first = by_index[0, n] / guard_index.FILE  # every shard wrote the whole folder's (the same: _SAME)
            if first.is_file():
                shutil.copyfile(first, staging / guard_index.FILE)
            write_top(staging, configs, counts, sizes, tests, report, num_proc, repo)
            del tests  # (its files, in cache, are closed before the folder goes)
    return report
