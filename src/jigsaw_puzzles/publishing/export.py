"""Hub-ready export: parquet per config and split, images embedded, card with ``configs:`` YAML.

The folder loads with stock ``datasets.load_dataset(folder, config)``: the card's
YAML ``configs`` maps every config to its parquet files, and the parquet schema
carries the ``datasets`` features (``Image`` included).  We write parquet with
pyarrow ourselves (:mod:`.writer`), one row group per 64 rows, so that the bytes do not depend on
how many processes generated the rows (nor on how many machines: :mod:`.shards`; nor on a Ray cluster:
:mod:`.ray_build`), streamed a row group at a time.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import card
from ..generation.builder import CONFIGS, make_builder
from ..errors import UsageError, python_face
from ..inference.options import whole
from .outdir import check_build_out, kept_sources, staged
from .writer import (ROW_GROUP_SIZE, build_report, part_name, ready_builders, write_batches,  # noqa: F401
                     write_parquet, write_top)
from ..spec import SPLITS, is_config

ENGINES = ("local", "ray")


@python_face
def build(out: str | os.PathLike, source: str | None = None, seed: int = 0,
          configs: list[str] | None = None, num_proc: int | None = None,
          cache_dir: str | None = None, repo: str = card.DEFAULT_REPO, *, engine: str = "local",
          ray_address: str | None = None, ray_options: dict | None = None, **builder_kwargs) -> dict:
    """Generate ``configs`` and write the Hub-ready folder ``out``; returns the curation report.

    ``builder_kwargs`` hold the tasks' options and settings (``clip_model``, ``clip_pretrained``,
    ``clip_cache_dir``, ...) and the builder's arguments (``shard=(i, n)``: this machine's part of a build over
    ``n``, whose parts :func:`.shards.merge` makes the whole export). When ``configs`` is not given and a config cannot run here
    (``ConfigUnavailable``: e.g. no torch/open_clip, or no CLIP weights offline), it is skipped with the
    reason and the way to enable it; when it is asked for explicitly, the error is raised before any work.
    ``engine="ray"`` builds on a Ray cluster (:mod:`.ray_build`: the same folder, byte for byte, resumable):
    the one at ``ray_address``, or Ray started here; ``num_proc`` then caps the jobs run at once (and the CPUs of a
    Ray started here); ``ray_options``: ``rows_per_block``, ``runtime_env``, ``clip_num_gpus``.
    """
    out = Path(out)
    whole("--num-proc", num_proc)  # 0 or -1 is one line, not a silent single process
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    if engine != "ray" and (ray_address is not None or ray_options):
        raise UsageError("--ray-address and ray_options are for --engine ray; add it, or leave them out")
    explicit = configs is not None
    configs = list(configs or CONFIGS)
    unknown = [c for c in configs if not is_config(c)]
    if unknown:
        raise UsageError(f"unknown config(s) {', '.join(unknown)}; choose from {', '.join(CONFIGS)}, or a grid "
                         "config such as order_generation_3x3")
    earlier = check_build_out(out, source)  # refuses any folder but an earlier export; nothing deleted yet
    if earlier is not None and "keep_sources" not in builder_kwargs:  # its sources win over new near-duplicates
        builder_kwargs["keep_sources"] = kept_sources(earlier)
    if engine == "ray":
        from .ray_build import build_on_ray

        return build_on_ray(out, source, seed, configs, explicit, num_proc, cache_dir, repo, ray_address,
                            dict(ray_options or {}), builder_kwargs, earlier is not None)
    builders, configs, skipped = ready_builders(
        configs, explicit, lambda config: make_builder(config, source, seed, cache_dir, **builder_kwargs),
        lambda builder: builder.plan(num_proc))
    with staged(out, f"cannot write the export {out}; " + ("the earlier export there is unchanged"
                                                           if earlier is not None else "nothing was written")) as staging:
        return _write(staging, builders, configs, skipped, source, seed, num_proc, repo)


def _write(out: Path, builders: dict, configs: list[str], skipped: dict, source, seed: int, num_proc, repo) -> dict:
    counts, sizes, tests = {}, {}, {}
    shard = builders[configs[0]].config.shard
    for config in configs:
        builder = builders[config]
        builder.download_and_prepare(num_proc=num_proc)
        counts[config], sizes[config] = {}, {}
        for split in SPLITS:
            dataset = builder.as_dataset(split=split)
            path = out / config / part_name(split, shard)
            if len(dataset):  # an empty split has no file and no YAML entry (see card.card_data)
                write_parquet(dataset, path)
            counts[config][split] = len(dataset)
            sizes[config][split] = path.stat().st_size if len(dataset) else 0
        tests[config] = builder.as_dataset(split="test")
    return write_top(out, configs, counts, sizes, tests,
                     build_report(builders, configs, skipped, source, seed, counts, out), num_proc, repo)


