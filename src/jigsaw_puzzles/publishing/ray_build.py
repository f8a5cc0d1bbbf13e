"""The export built on a Ray cluster (``build --engine ray``, ``jp.build(..., engine="ray")``): the folder one process
writes, byte for byte, from a folder of any size, resumable.

How the build splits (docs/tasks.md#building-on-a-ray-cluster):

1. **Curation, in parallel.** Every file is read, checked and fingerprinted where a worker runs (a Ray Data stage of
   :class:`~..generation.cluster.RayEngine`: the same function as in one process, on chunks of files).
2. **The duplicate rule and the Lite subset, once**, on the driver, from the curation records: both are decisions
   over every photo (which of two copies stays; the lowest seeded hashes), so no worker can take them alone.
3. Per config, **the task's check and probe build, in parallel** (which photos yield an item), for the hard configs
   **the CLIP embedding of every cell, in parallel** (on the cluster's GPUs when it has any, :mod:`.clip.stage`),
   then **the answer plan, once**, on the driver: under the default plan a photo's letter depends on every other
   item's, so it is decided where all of them are known.
4. **The items, in parallel**: blocks of :data:`ROWS_PER_BLOCK` items in the build's order, each cut, PNG-encoded and
   answered by the card's classical solver in a worker (``item_row``, the function one process runs), and kept on
   the driver's disk as it comes back.
5. **The writing, on the driver**: each split is one parquet file whose bytes are one sequence (64-row groups in
   the build's order, :func:`.writer.write_batches`), streamed from the kept blocks; then the report and the card,
   and the folder swapped into place whole (:func:`.outdir.staged`).

Resumable: what the driver decides and receives is kept in ``.NAME.ray-work`` beside ``--out`` (the curation, each
config's plan, each block of items), every file written whole or not at all and keyed by everything it depends on
(the folder's fingerprint, seed, options, the generator's code, the libraries). A driver killed and run again with
the same command reads them back and cuts only the blocks not kept; a killed worker is retried by Ray. The folder
goes once the export is in place.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import re
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..errors import UsageError
from ..generation.builder import code_hash, make_builder
from ..generation.cachefiles import atomic_write_bytes
from ..generation.cluster import RayEngine
from ..generation.curation import curate
from ..generation.licences import source_terms
from ..generation.sources import Curation, CurationRecord, CurationRules, Source, embedded_folder
from ..generation.versions import item_versions
from ..generation.workers import on_engine
from ..spec import SPLITS, features
from .writer import build_report, part_name, ready_builders, write_batches, write_top
from .outdir import staged

logger = logging.getLogger(__name__)

WORK_FORMAT = 2
#: items per block: the unit of a worker's job and of what a resumed build does not do again
ROWS_PER_BLOCK = 64
OPTIONS = ("rows_per_block", "runtime_env", "clip_num_gpus")
_WORK_NAMES = re.compile(r"(build\.json|curation-[0-9a-f]{16}\.json|plan-[0-9a-f]{16}\.json|blocks|"
                         r"blocks/[0-9a-f]{16}|blocks/[0-9a-f]{16}/\d{6}\.arrow|(?:.*/)?\.tmp-[^/]*)")


def build_on_ray(out: Path, source, seed: int, configs: list[str], explicit: bool, num_proc, cache_dir, repo: str,
                 address, options: dict, builder_kwargs: dict, replaces: bool) -> dict:
    """:func:`.export.build` on Ray (its checks of the arguments and of ``out`` done); returns the report."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise UsageError(f"unknown ray option(s) {', '.join(unknown)}; choose from {', '.join(OPTIONS)}")
    if builder_kwargs.get("shard") is not None:
        raise UsageError("--shard splits a build over machines by hand; --engine ray splits it over the cluster: "
                         "leave --shard out")
    rows = options.get("rows_per_block", ROWS_PER_BLOCK)
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise UsageError(f"rows_per_block must be a whole number of at least 1, not {rows!r}")
    engine = RayEngine(address, num_cpus=num_proc if address is None else None, max_tasks=num_proc,
                       runtime_env=options.get("runtime_env"))
    with engine, on_engine(engine):
        work = Work(out)
        builders, configs, skipped = ready_builders(
            configs, explicit, lambda config: make_builder(config, source, seed, cache_dir, **builder_kwargs),
            lambda builder: _plan(builder, work, engine, options))
        blocks = {config: _blocks(builders[config], rows) for config in configs}
        keys = {config: _key("blocks", builders[config].config_id, builders[config].hash, item_versions([config]),
                             getattr(builders[config].preparation(), "metadata", None), rows) for config in configs}
        _cut(engine, work, builders, blocks, keys, seed)
        failure = f"cannot write the export {out}; " + ("the earlier export there is unchanged" if replaces
                                                        else "nothing was written")
        with staged(out, failure) as staging:
            report = _write(staging, work, builders, configs, skipped, blocks, keys, source, seed, num_proc, repo)
    work.remove()
    return report


# ------------------------------------------------------------------------------------------------ the plan
def _plan(builder, work: "Work", engine: RayEngine, options: dict) -> None:
    """The builder's plan: kept from an earlier run of this build, or made now (curation, checks and probes on the
    cluster; the hard configs' CLIP cells embedded there first) and kept."""
    preparation = builder.preparation()
    clip = preparation is not None and hasattr(preparation, "miner")  # the hard configs: cells embedded on the cluster
    if clip:
        from ..generation.clip.stage import embed_on_cluster, settle

        settle(engine, preparation, builder.settings, options.get("clip_num_gpus"))  # the precision, before the key
    key = _key("plan", builder.config_id, builder.hash, item_versions([builder.config.name]),
               getattr(preparation, "metadata", None))
    curation = work.curation(builder)
    kept = work.load_plan(key, curation)
    if kept is not None:
        builder._plan = kept
        return
    if curation is None:
        curation = curate(builder.config.source, builder.rules, keep=builder.config.keep_sources,
                          progress=builder.progress)
        work.save_curation(builder, curation)
    builder._curation = curation
    if clip:
        embed_on_cluster(engine, builder.config.name, builder.config.options or {}, builder.settings, preparation,
                         curation, options.get("clip_num_gpus"), progress=builder.progress)
    work.save_plan(key, builder.plan())


def _blocks(builder, rows: int) -> list[list[tuple]]:
    """The config's items in the build's order (source id), as blocks of ``rows``: ``(source id, path, slot, prepared
    payload, terms)`` each, what :func:`.items.item_row` takes."""
    plan = builder.plan()
    curation, feasible, slots, prepared = plan["curation"], plan["feasible"], plan["slots"], plan["prepared"]
    terms = source_terms(curation.folder, [(s.source_id, s.relpath) for s in feasible],
                         embedded=Path(curation.folder) == embedded_folder().resolve())
    items = [(s.source_id, s.path, slots[s.source_id],
              json.dumps(prepared[s.source_id]) if s.source_id in prepared else "",
              json.dumps(terms[s.source_id], sort_keys=True)) for s in feasible]
    return [items[k:k + rows] for k in range(0, len(items), rows)]


# ------------------------------------------------------------------------------------------------ the items
def _cut(engine: RayEngine, work: "Work", builders: dict, blocks: dict, keys: dict, seed: int) -> None:
    """Every block not kept yet, cut on the cluster and kept as it comes back."""
    from tqdm.auto import tqdm

    jobs = [(config, k, block) for config, config_blocks in blocks.items() for k, block in enumerate(config_blocks)
            if not work.has_block(keys[config], k, block)]
    if not jobs:
        return
    first = builders[jobs[0][0]]
    pool = tuple((s.source_id, s.path) for s in first.plan()["curation"].accepted)
    progress = any(b.progress for b in builders.values())
    with tqdm(total=sum(len(b) for _, _, b in jobs), desc="cutting items [ray]", unit="item",
              disable=not progress) as bar:
        def keep(job, result) -> None:
            work.save_block(keys[job[0]], job[1], result)
            bar.update(len(job[2]))

        for _ in engine.map(_cut_block, jobs, initializer=_set_pool, initargs=(pool, seed, first.rules), done=keep,
                            what="the items"):
            pass


#: in a Ray worker: the accepted photos (the distractor pool), the seed and the rules of the build
_POOL: dict[str, Any] = {}


def _set_pool(pool: tuple, seed: int, rules: CurationRules) -> None:
    _POOL.update(paths=dict(pool), ids=tuple(sorted(sid for sid, _ in pool)), seed=seed, rules=rules)


def _cut_block(job: tuple) -> bytes:
    """(in a Ray worker) One block's rows as an Arrow stream, the solver's and the shape baseline's answers in its
    schema's metadata."""
    from ..baselines import shape_answer, solve
    from ..generation.items import item_row
    from ..generation.sources import load_normalised
    from ..generation.tasks import get_task

    config, _, block = job
    paths, rules = _POOL["paths"], _POOL["rules"]
    task, schema = get_task(config), features()

    def load(source_id: str):
        return load_normalised(paths[source_id], rules, source_id)

    rows = [schema.encode_example(item_row(task, config, _POOL["seed"], sid, path, slot, prepared, terms, load,
                                           _POOL["ids"]))
            for sid, path, slot, prepared, terms in block]
    solved = [(solve(r, config).text, shape_answer(r, config, 0).text) for r in map(schema.decode_example, rows)]
    table = pa.Table.from_pylist(rows, schema=schema.arrow_schema)
    table = table.replace_schema_metadata({**table.schema.metadata, b"jigsaw_puzzles": json.dumps(
        {"ids": [sid for sid, *_ in block], "solved": solved}).encode()})
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


# ------------------------------------------------------------------------------------------------ the writing
def _write(out: Path, work: "Work", builders: dict, configs: list[str], skipped: dict, blocks: dict, keys: dict,
           source, seed, num_proc, repo: str) -> dict:
    """Each split's parquet file from the kept blocks, in the build's order; then the report and the card."""
    import datasets
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    schema = features()
    counts, sizes, tests, firsts, solved = {}, {}, {}, {}, {}
    for config in configs:
        builder, key = builders[config], keys[config]
        lite = pa.array(sorted(set(builder.plan()["lite"])), pa.string())
        counts[config], sizes[config], solved[config] = {}, {}, []
        for k in range(len(blocks[config])):
            solved[config] += work.block(key, k)[1]["solved"]
        for split in SPLITS:
            def batches():
                for k in range(len(blocks[config])):
                    table = work.block(key, k)[0]
                    yield from (table if split == "test" else table.filter(pc.is_in(table["source_id"], lite)))\
                        .to_batches()

            path = out / config / part_name(split, None)
            write_batches(batches(), schema.arrow_schema, path)
            counts[config][split] = pq.ParquetFile(path).metadata.num_rows
            if not counts[config][split]:  # an empty split has no file and no YAML entry (see card.card_data)
                path.unlink()
            sizes[config][split] = path.stat().st_size if counts[config][split] else 0
        test = out / config / part_name("test", None)
        tests[config] = datasets.Dataset(datasets.table.InMemoryTable(pq.read_table(
            test, columns=["id", "options", "answer"]))) if counts[config]["test"] else []
        if counts[config]["test"]:
            firsts[config] = schema.decode_example(pq.ParquetFile(test).read_row_group(0).slice(0, 1).to_pylist()[0])
    report = build_report(builders, configs, skipped, source, seed, counts, out)
    return write_top(out, configs, counts, sizes, tests, report, num_proc, repo, firsts, solved)


# ------------------------------------------------------------------------------------------------ what is kept
def _key(*parts) -> str:
    return hashlib.sha256(json.dumps([WORK_FORMAT, *parts], sort_keys=True, default=str).encode()).hexdigest()[:16]


class Work:
    """``.NAME.ray-work`` beside ``--out``: a build's curation, plans and blocks, each file written whole (temp file,
    then renamed) and named by the key of what it depends on, so a file of another build is never read."""

    def __init__(self, out: Path):
        self.dir = out.parent / f".{out.name}.ray-work"
        self._curations: dict[Path, Curation] = {}

    def _write(self, path: Path, data: bytes) -> None:
        atomic_write_bytes(path, lambda f: f.write(data))
        if not (self.dir / "build.json").exists():  # what the folder is, for a person who finds it
            atomic_write_bytes(self.dir / "build.json", lambda f: f.write(json.dumps(
                {"format": WORK_FORMAT, "what": "jigsaw-puzzles build --engine ray: kept to resume; removed when "
                                                "the export is written"}).encode()))

    def _read(self, path: Path) -> Any:
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except Exception as err:  # torn or not ours: made again
            logger.warning("ignoring unreadable %s (%s)", path, err)
            return None

    def _curation_path(self, builder) -> Path:
        config = builder.config
        return self.dir / f"curation-{_key('curation', config.fingerprint, config.source, builder.rules.key(), config.keep_sources, code_hash())}.json"

    def curation(self, builder) -> Curation | None:
        """The folder's curation this build kept (every config shares it), or ``None``."""
        path = self._curation_path(builder)
        if path not in self._curations:
            kept = self._read(path)
            if kept is None:
                return None
            d = kept["curation"]
            self._curations[path] = Curation(folder=d["folder"], rules=CurationRules(**d["rules"]),
                                             accepted=[Source(*a) for a in kept["accepted"]],
                                             records=[CurationRecord(**r) for r in d["records"]])
        return self._curations[path]

    def save_curation(self, builder, curation: Curation) -> None:
        accepted = [[s.source_id, s.path, s.relpath, s.width, s.height] for s in curation.accepted]
        self._write(self._curation_path(builder),
                    json.dumps({"curation": curation.to_dict(), "accepted": accepted}).encode())
        self._curations[self._curation_path(builder)] = curation

    def load_plan(self, key: str, curation: Curation | None) -> dict | None:
        kept = self._read(self.dir / f"plan-{key}.json") if curation is not None else None
        if kept is None:
            return None
        sources = {s.source_id: s for s in curation.accepted}
        return {"curation": curation, "task_skips": kept["task_skips"], "lite": kept["lite"],
                "feasible": [sources[sid] for sid in kept["feasible"]], "slots": kept["slots"],
                "prepared": kept["prepared"]}

    def save_plan(self, key: str, plan: dict) -> None:
        self._write(self.dir / f"plan-{key}.json", json.dumps(
            {"task_skips": plan["task_skips"], "lite": plan["lite"], "slots": plan["slots"],
             "feasible": [s.source_id for s in plan["feasible"]], "prepared": plan["prepared"]}).encode())

    def _block_path(self, key: str, k: int) -> Path:
        return self.dir / "blocks" / key / f"{k:06d}.arrow"

    def has_block(self, key: str, k: int, block: list) -> bool:
        """Whether block ``k`` is kept whole, holding the items of ``block``."""
        try:
            table, meta = self.block(key, k)
        except FileNotFoundError:
            return False
        except Exception as err:
            logger.warning("cutting block %s again: %s", self._block_path(key, k), err)
            return False
        return meta.get("ids") == [sid for sid, *_ in block] and table.num_rows == len(block)

    def block(self, key: str, k: int) -> tuple[pa.Table, dict]:
        with pa.ipc.open_stream(pa.memory_map(str(self._block_path(key, k)))) as reader:
            table = reader.read_all()
        return table, json.loads(table.schema.metadata[b"jigsaw_puzzles"])

    def save_block(self, key: str, k: int, data: bytes) -> None:
        self._write(self._block_path(key, k), data)

    def remove(self) -> None:
        """The folder and every file the build kept in it; a file it did not write stays, and the folder with it."""
        if not self.dir.is_dir():
            return
        foreign = [p for p in self.dir.rglob("*") if not _WORK_NAMES.fullmatch(p.relative_to(self.dir).as_posix())]
        if foreign:
            logger.warning("%s holds files a build did not write (%s); left as it is", self.dir, foreign[0])
            return
        shutil.rmtree(self.dir)
