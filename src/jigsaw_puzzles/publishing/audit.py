"""An export read as stock ``datasets.load_dataset(folder, config)`` reads it, and every way it contradicts itself.

``jigsaw-puzzles verify`` rebuilds the items an export's ``curation_report.json`` describes and compares them with
the rows a user of the export gets. Those rows are what ``datasets`` reads: every parquet file the card's YAML
names for a config's split (:func:`datasets.load_dataset_builder` resolves them here, as ``load_dataset`` does),
in file order. Before any item is compared, :func:`read_export` names, one line each, everything that does not
hold together: a card's config that the report lacks (or the reverse), a split pointed at files the export does
not write, a file in a config's folder that the export does not write (an extra shard is read by ``datasets``),
a parquet file that cannot be read, a ``num_examples`` or a report count that is not the number of rows, a card
whose features are not the package's, a ``CREDITS.md`` missing, emptied or (for the embedded photos) edited, a
report whose seed or answer plan cannot rebuild anything. Ids that occur more than once are
named when the items are compared (:mod:`.verify`).

A folder that is not an export at all, or one of configs this version does not know, is a :class:`UsageError`
(exit code 2): nothing can be checked. Everything else is a *problem* (exit code 1): the export is not what it
claims to be.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..generation.plan import ANSWER_PLANS, DEFAULT_ANSWER_PLAN
from ..spec import SPLITS, features, is_config
from .card import ASSETS, LICENSE_FILE, credits_text
from .outdir import REPORT, foreign_entries

CARD = "README.md"


def shard_name(split: str) -> str:
    """The one parquet file the export writes for a split with rows (``export._write``)."""
    return f"{split}-00000-of-00001.parquet"


@dataclass
class Export:
    """What an export holds and claims. ``files[config][split]``: the parquet files ``datasets`` reads, in order
    (:meth:`rows` reads them one split at a time: an export of every config does not fit in memory at once)."""

    folder: Path
    report: dict
    configs: list[str]
    seed: int | None = None
    answer_plan: str = DEFAULT_ANSWER_PLAN
    files: dict[str, dict[str, list[Path]]] = field(default_factory=dict)
    schemas: dict[str, dict[str, list[tuple]]] = field(default_factory=dict)  # (relative path, arrow schema)
    unreadable: set = field(default_factory=set)  # files already named as unreadable
    named: set = field(default_factory=set)  # files already named for rows without an id
    patterns: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # the card's data_files paths
    problems: list[str] = field(default_factory=list)

    def rows(self, config: str, split: str) -> list[dict]:
        """The rows of ``config``'s ``split`` as ``datasets`` reads them (each file in turn, rows in file order);
        a file that cannot be read, or rows without an id, are a problem (named once) and left out."""
        import pyarrow.parquet as pq

        rows = []
        for path in self.files.get(config, {}).get(split, []):
            if path in self.unreadable:
                continue
            try:
                table = pq.read_table(path).to_pylist()
            except Exception as err:  # a data page may be corrupt where the footer was not
                self._unreadable(path, err)
                continue
            kept = [r for r in table if isinstance(r.get("id"), str)]
            rows += kept
            if len(kept) != len(table) and path not in self.named:
                self.named.add(path)  # named once (verify reads a split once; the CLIP record may peek first)
                self.problems.append(f"{_rel(self.folder, path)}: {len(table) - len(kept)} row(s) without a "
                                     "string id")
        return rows

    def _unreadable(self, path: Path, err: BaseException) -> None:
        if path not in self.unreadable:
            self.unreadable.add(path)
            self.problems.append(f"{_rel(self.folder, path)} cannot be read as parquet ({_one_line(err)})")

    @property
    def rebuildable(self) -> bool:
        """The report names a seed and an answer plan that items can be rebuilt with."""
        return self.seed is not None and self.answer_plan in ANSWER_PLANS


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text[:300]}" if text else type(err).__name__


def _report(folder: Path) -> dict:
    path = folder / REPORT
    if not path.is_file():
        raise UsageError(f"{folder} is not a jigsaw-puzzles export (no {REPORT}); give the folder "
                         "`jigsaw-puzzles build --out` wrote")
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UsageError(f"{path} is not an export's curation report ({_one_line(err)}); give the folder "
                         "`jigsaw-puzzles build --out` wrote") from None
    if not isinstance(report, dict) or not isinstance(report.get("configs"), dict) or not report["configs"]:
        raise UsageError(f"{path} is not an export's curation report (it records no configs); give the folder "
                         "`jigsaw-puzzles build --out` wrote")
    unknown = sorted(str(c) for c in report["configs"] if not is_config(c))
    if unknown:
        raise UsageError(f"{folder} holds config(s) this version does not know: {', '.join(unknown)}; verify it "
                         "with the jigsaw-puzzles version that built it (its card names it)")
    return report


def _recipe(export: Export) -> None:
    """Seed, answer plan and curation record of the report, each checked; a problem for each that cannot be used
    (the rules and verdicts themselves are compared with the rebuild's: :func:`.verify.record_problems`)."""
    report, problems = export.report, export.problems
    seed = report.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0:
        export.seed = seed
    else:
        problems.append(f"{REPORT}: the seed {seed!r} is not a whole number >= 0: no item can be rebuilt")
    export.answer_plan = report.get("answer_plan", DEFAULT_ANSWER_PLAN)
    if export.answer_plan not in ANSWER_PLANS:
        problems.append(f"{REPORT}: the answer plan {export.answer_plan!r} is not one of {', '.join(ANSWER_PLANS)}")
    curation = report.get("curation")
    if not isinstance(curation, dict) or not isinstance(curation.get("embedded"), bool):
        problems.append(f"{REPORT}: no 'curation' record saying whether the embedded photos were used")
    for config, record in report["configs"].items():
        if not isinstance(record, dict):
            problems.append(f"{REPORT}: the record of {config} is {record!r}, not its counts and task skips")


def _card_configs(export: Export) -> list[str] | None:
    """The config names of the card's YAML (``None`` when the card cannot be read: a problem says why)."""
    from huggingface_hub import DatasetCard

    path = export.folder / CARD
    if not path.is_file():
        export.problems.append(f"{CARD} (the card) is missing: stock load_dataset finds none of the configs")
        return None
    try:
        configs = DatasetCard.load(path).data.configs or []  # no YAML: no config (each named below)
        names = [c["config_name"] for c in configs]
        for entry in configs:
            files = entry.get("data_files") or []
            for item in files if isinstance(files, list) else []:
                paths = item.get("path") if isinstance(item, dict) else None
                export.patterns.setdefault(entry["config_name"], {}).setdefault(str(item.get("split")), []).extend(
                    paths if isinstance(paths, list) else [paths])
    except Exception as err:  # an edited card may break any YAML or card-data path: a problem, never a crash
        export.problems.append(f"{CARD}: its YAML cannot be read ({_one_line(err)})")
        return None
    for name in sorted(set(names) - set(export.configs)):
        export.problems.append(f"{CARD} names the config {name}, which {REPORT} does not hold")
    for name in sorted(set(export.configs) - set(names)):
        export.problems.append(f"{REPORT} holds the config {name}, which the card does not name: stock "
                               f"load_dataset cannot load it")
    return names


def _stock(export: Export, config: str, cache_dir: str) -> tuple[dict[str, list[Path]] | None, dict]:
    """``{split: files}`` and ``{split: num_examples}`` as ``datasets`` resolves the card for ``config``."""
    import datasets

    try:
        builder = datasets.load_dataset_builder(str(export.folder), config, cache_dir=cache_dir)
        files = {str(split): [Path(f) for f in paths] for split, paths in (builder.config.data_files or {}).items()}
        counts = {name: split.num_examples for name, split in (builder.info.splits or {}).items()}
        if builder.info.features is not None and builder.info.features != features():
            export.problems.append(f"{CARD}: the features of {config} are not the package's row schema")
    except Exception as err:  # whatever an edited card makes datasets raise: the export cannot be loaded
        export.problems.append(f"stock load_dataset cannot open {config}: {_one_line(err)}")
        return None, {}
    return files, counts


def _footer(export: Export, path: Path, schemas: list) -> int:
    """The number of rows of a parquet file as its footer says (0 when it cannot be read: a problem)."""
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(path) as parquet:
            schemas.append((_rel(export.folder, path), parquet.schema_arrow))
            return parquet.metadata.num_rows
    except Exception as err:  # truncated, corrupt or not parquet at all: pyarrow raises several kinds
        export._unreadable(path, err)
        return 0


def _rel(folder: Path, path: Path) -> str:
    try:
        return Path(os.path.relpath(path, folder)).as_posix()
    except ValueError:  # another drive (Windows)
        return str(path)


def _config(export: Export, config: str, card_configs: list[str] | None, cache_dir: str) -> None:
    """The files of ``config``'s splits as datasets reads them; a problem for every file and count that lies."""
    folder, problems = export.folder / config, export.problems
    record = export.report["configs"][config] if isinstance(export.report["configs"][config], dict) else {}
    files, counts = _stock(export, config, cache_dir) if card_configs and config in card_configs else (None, {})
    written = {split: folder / shard_name(split) for split in SPLITS}
    if files is None:  # the card cannot say: read the files the export writes, so the items are still compared
        files = {split: [path] for split, path in written.items() if path.is_file()}
    else:
        for split in sorted(set(files) - set(SPLITS)):
            problems.append(f"{CARD} gives {config} a split {split!r}, which no export has")
        for split in SPLITS:
            named = [Path(os.path.realpath(p)) for p in files.get(split, [])]
            expected = [Path(os.path.realpath(written[split]))] if written[split].is_file() else []
            if named != expected:
                shown = ", ".join(_rel(export.folder, p) for p in named) or "no file"
                card = ", ".join(map(str, export.patterns.get(config, {}).get(split, []))) or "no entry"
                problems.append(f"stock load_dataset reads {config}'s {split} split from {shown} (the card's "
                                f"{card}); the export writes "
                                f"{_rel(export.folder, written[split]) if expected else 'no file for it'}")
    stock_files = {Path(os.path.realpath(p)) for paths in files.values() for p in paths}
    if folder.is_dir():
        for entry in sorted(folder.iterdir()):
            if entry in written.values() and entry.is_file() and not entry.is_symlink():
                continue
            read = " (stock load_dataset reads it)" if Path(os.path.realpath(entry)) in stock_files else ""
            problems.append(f"{config}/{entry.name} is not a file the export writes{read}")
    else:
        problems.append(f"{config}/ is missing: the export holds none of its files")
    export.files[config], export.schemas[config] = {}, {}
    for split in SPLITS:
        export.files[config][split] = list(files.get(split, []))
        schemas = export.schemas[config][split] = []
        rows = sum(_footer(export, path, schemas) for path in files.get(split, []))
        if split in counts and counts[split] != rows:
            problems.append(f"{CARD} says {config}'s {split} split has {counts[split]} rows; it has {rows}")
        if record.get(split, rows) != rows:
            problems.append(f"{REPORT} says {config}'s {split} split has {record.get(split)!r} rows; it has {rows}")


def _assets(export: Export) -> None:
    """The card's example sheets: one PNG per config with test items, nothing else (present; not redrawn)."""
    expected = {f"{c}.png" for c in export.configs if (export.folder / c / shard_name("test")).is_file()}
    folder = export.folder / ASSETS
    found = {e.name for e in folder.iterdir()} if folder.is_dir() and not folder.is_symlink() else set()
    for name in sorted(expected - found):
        export.problems.append(f"{ASSETS}/{name} (the card's example of {name[:-4]}) is missing")
    for name in sorted(found - expected):
        export.problems.append(f"{ASSETS}/{name} is not a file the export writes")
    for name in sorted(expected & found):
        if (folder / name).is_symlink() or not (folder / name).is_file():
            export.problems.append(f"{ASSETS}/{name} is not a file")
    if folder.exists() and (folder.is_symlink() or not folder.is_dir()):
        export.problems.append(f"{ASSETS} is not a folder")


def _credits(export: Export) -> None:
    path = export.folder / LICENSE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError) as err:
        export.problems.append(f"{LICENSE_FILE} (the photos' licences and attributions) cannot be read "
                               f"({_one_line(err)})")
        return
    curation = export.report.get("curation") if isinstance(export.report.get("curation"), dict) else {}
    if not text.strip():
        export.problems.append(f"{LICENSE_FILE} is empty: the photos' licences and attributions are gone")
    elif curation.get("embedded") is True and text != credits_text(True):
        export.problems.append(f"{LICENSE_FILE} is not the embedded photos' credits this package ships")


def read_export(folder: str | os.PathLike, cache_dir: str) -> Export:
    """Read ``folder`` (an export) as stock ``load_dataset`` does; every inconsistency is in ``problems``.
    ``cache_dir``: a scratch folder for ``datasets`` (nothing of the user's cache is touched)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder; give the folder `jigsaw-puzzles build --out` wrote")
    report = _report(folder)
    export = Export(folder, report, list(report["configs"]))
    _recipe(export)
    card_configs = _card_configs(export)
    for config in export.configs:
        _config(export, config, card_configs, cache_dir)
    handled = set(export.configs)
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and not entry.is_symlink() and is_config(entry.name) and entry.name not in handled:
            export.problems.append(f"{entry.name}/ is a config folder that {REPORT} does not hold")
            handled.add(entry.name)
    _assets(export)
    for entry in foreign_entries(folder):  # top-level files the export does not write
        if entry.split("/")[0] not in handled | {ASSETS}:
            export.problems.append(f"{entry} is not a file the export writes")
    _credits(export)
    return export
