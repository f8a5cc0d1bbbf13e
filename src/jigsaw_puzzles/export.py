"""Hub-ready export: parquet per config and split, images embedded, card with ``configs:`` YAML.

The folder loads with stock ``datasets.load_dataset(folder, config)``: the card's
YAML ``configs`` maps every config to its parquet files, and the parquet schema
carries the ``datasets`` features (``Image`` included).  We write parquet with
pyarrow ourselves, one row group per 64 rows, so that the bytes do not depend on
how many processes generated the rows.
"""

from __future__ import annotations

import json
import os
import shutil
from importlib import resources
from pathlib import Path

import pyarrow.parquet as pq

from ._version import __version__
from .builder import CONFIGS, make_builder
from .errors import ConfigUnavailable, UsageError
from .sources import folder_fingerprint
from .spec import CITATION, GENERATOR_VERSION, LITE_FRACTION, SPLITS
from .tasks import TASKS

ROW_GROUP_SIZE = 64


def write_parquet(dataset, path: Path) -> None:
    table = dataset.data.table.combine_chunks()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp, row_group_size=ROW_GROUP_SIZE, compression="zstd")
    os.replace(tmp, path)


def _yaml(configs: list[str], counts: dict | None = None) -> str:
    lines = ["license: other", "license_name: mixed", "pretty_name: Jigsaw-Puzzles",
             "task_categories:", "- visual-question-answering", "- image-text-to-text",
             "language:", "- en", "tags:", "- spatial-reasoning", "- jigsaw-puzzles", "- benchmark",
             "configs:"]
    for config in configs:
        lines.append(f"- config_name: {config}")
        lines.append("  data_files:")
        for split in SPLITS:
            if counts is not None and not counts[config][split]:
                continue  # no file for an empty split: stock datasets cannot read a split without rows
            lines.append(f"  - split: {split}")
            lines.append(f"    path: {config}/{split}-*.parquet")
    return "\n".join(lines)


def render_card(configs: list[str], counts: dict, report: dict, seed: int, repo: str) -> str:
    template = (resources.files("jigsaw_puzzles") / "cards" / "dataset_card.md").read_text("utf-8")
    credits_path = resources.files("jigsaw_puzzles") / "data" / "CREDITS.md"
    curation = report["curation"]
    default_source = curation.get("embedded", False)
    credits = credits_path.read_text("utf-8") if default_source and credits_path.is_file() else (
        "Source images come from the user's own folder; their licences are the user's to state.")
    rules = ", ".join(f"{k}={v}" for k, v in curation["rules"].items())
    summary = (f"{curation['accepted']} of {curation['accepted'] + curation['rejected']} files accepted "
               f"by the automated curation rules ({rules}); every rejection and its reason is in "
               f"`curation_report.json`.")
    rows = "\n".join(f"| `{c}` | {TASKS[c].summary} | {counts[c]['test']} | {counts[c]['lite']} |"
                     for c in configs)
    task_rules = "\n\n".join(f"### `{c}`\n\n{TASKS[c].summary}.\n\n{TASKS[c].rules}" for c in configs)
    for config in configs:
        if not counts[config]["lite"]:
            task_rules += (f"\n\n`{config}` has no `lite` split in this export: the task skipped every source of "
                           f"the Lite subset (reasons in `curation_report.json`).")
    for config, reason in report.get("skipped_configs", {}).items():
        task_rules += f"\n\n### `{config}`\n\nNot included in this export: {reason.split('. ')[0]}."
    return template.format(
        yaml=_yaml(configs, counts), version=__version__, generator_version=GENERATOR_VERSION,
        num_sources=curation["accepted"], seed=seed, repo=repo, config_rows=rows, lite_percent=round(LITE_FRACTION * 100), task_rules=task_rules,
        curation_summary=summary, credits=credits, citation=CITATION.strip())


def build(out: str | os.PathLike, source: str | None = None, seed: int = 0,
          configs: list[str] | None = None, num_proc: int | None = None,
          cache_dir: str | None = None, repo: str = "<exported folder or repo>", **builder_kwargs) -> dict:
    """Generate ``configs`` and write the Hub-ready folder ``out``; returns the curation report.

    ``builder_kwargs`` hold the tasks' options and settings (``clip_model``, ``clip_pretrained``,
    ``clip_cache_dir``, ...). When ``configs`` is not given and a config cannot run here
    (``ConfigUnavailable``: e.g. no torch/open_clip, or no CLIP weights offline), it is skipped with the
    reason and the way to enable it; when it is asked for explicitly, the error is raised before any work.
    """
    out = Path(out)
    explicit = configs is not None
    configs = list(configs or CONFIGS)
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        raise UsageError(f"unknown config(s) {', '.join(unknown)}; choose from {', '.join(CONFIGS)}")
    if (out / f"{out.name}.py").exists():
        raise UsageError(f"{out}/{out.name}.py exists: datasets >= 4 refuses such a folder; choose another --out")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; give a folder for the export")
    if out.is_dir() and any(out.iterdir()) and not (out / "curation_report.json").is_file():
        raise UsageError(f"--out {out} is a folder that holds something other than an export (a build replaces "
                         f"the whole folder); choose a new or empty folder, or an earlier export")
    builders, skipped = {}, {}
    for config in list(configs):  # resolve every task's preparation (e.g. CLIP weights) before any work
        builders[config] = make_builder(config, source, seed, cache_dir, **builder_kwargs)
        try:
            builders[config].preparation()
            builders[config].plan()  # curation and the answer plan: too few sources is known before writing
        except ConfigUnavailable as err:
            if explicit:
                raise
            configs.remove(config)
            skipped[config] = err.reason
    if not configs:
        raise ConfigUnavailable("every config", "; ".join(f"{c}: {r}" for c, r in skipped.items()))
    staging = out.parent / f".{out.name}.partial-{os.getpid()}"  # all or nothing: renamed into place at the end
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        report = _write(staging, builders, configs, skipped, source, seed, num_proc, repo)
        _swap_into_place(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def _swap_into_place(staging: Path, out: Path) -> None:
    """Rename ``staging`` to ``out``; an existing ``out`` is replaced only when that succeeds (else it is put
    back as it was)."""
    if not (out.exists() or out.is_symlink()):
        os.replace(staging, out)
        return
    previous = out.parent / f".{out.name}.previous-{os.getpid()}"
    shutil.rmtree(previous, ignore_errors=True)
    os.replace(out, previous)
    try:
        os.replace(staging, out)
    except BaseException:
        os.replace(previous, out)
        raise
    if previous.is_dir() and not previous.is_symlink():
        shutil.rmtree(previous, ignore_errors=True)
    else:
        previous.unlink()


def _write(out: Path, builders: dict, configs: list[str], skipped: dict, source, seed: int, num_proc, repo) -> dict:
    counts, report = {}, {"configs": {}}
    for config in configs:
        builder = builders[config]
        builder.download_and_prepare(num_proc=num_proc)
        counts[config] = {}
        for split in SPLITS:
            dataset = builder.as_dataset(split=split)
            if len(dataset):  # an empty split has no file and no YAML entry (see _yaml)
                write_parquet(dataset, out / config / f"{split}-00000-of-00001.parquet")
            counts[config][split] = len(dataset)
        builder_report = builder.report
        report["curation"] = builder_report["curation"]
        report["configs"][config] = {"task_skips": builder_report["task_skips"], **counts[config]}
    report["curation"]["embedded"] = source is None
    report["skipped_configs"] = skipped
    report["seed"] = seed
    report["version"] = __version__
    report["generator_version"] = GENERATOR_VERSION
    report["fingerprint"] = folder_fingerprint(source)  # what a training stream refuses to train on
    (out / "curation_report.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    (out / "README.md").write_text(render_card(configs, counts, report, seed, repo), encoding="utf-8")
    return report
