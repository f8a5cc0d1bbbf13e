"""The items a run answered, rebuilt from its identity, checked by fingerprint, and their features cached.

A run directory records how its items were made (``run.json``: split, seed, source, per-config dataset options)
and a fingerprint of each config's dataset (``dataset.fingerprints``, see
:func:`jigsaw_puzzles.inference.data.dataset_fingerprint`). The analysis rebuilds the items the same way (or
takes them from ``data=`` / an export folder), recomputes the fingerprint and refuses items that differ from the
ones the run answered: features of other items would explain nothing.

Features are cached per config and fingerprint in ``<features_dir>/<config>-<fingerprint>.json`` (by default
``DIR/features/``), with what else the analysis needs of an item (its options and answer), so a second analysis of
runs on the same items rebuilds nothing. Only the items some run answered are computed; the cache grows as needed.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Mapping

from ..errors import UserError
from ..inference.data import build_dataset, dataset_fingerprint
from ..inference.rundir import atomic_write_json
from ..generation.tasks import TASKS
from .features import FEATURE_VERSION, NAMES, item_features
from .runs import AnalysisRun


class ItemTable:
    """One config's items as the analysis sees them: id -> ``{"features": {...}, "options": [...], "answer"}``."""

    def __init__(self, config: str, fingerprint: str | None, items: dict | None = None):
        self.config = config
        self.fingerprint = fingerprint
        self.items: dict[str, dict] = items or {}

    def features(self, item_id: str) -> dict[str, float] | None:
        entry = self.items.get(item_id)
        if entry is None:
            return None
        return {k: math.nan if entry["features"].get(k) is None else float(entry["features"][k]) for k in NAMES}

    def options(self, item_id: str) -> list[str]:
        return list((self.items.get(item_id) or {}).get("options") or [])


def _cache_path(features_dir: Path, config: str, fingerprint: str) -> Path:
    return features_dir / f"{config}-{fingerprint}.json"


def _read_cache(path: Path) -> dict:
    try:
        blob = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    if not isinstance(blob, dict) or blob.get("feature_version") != FEATURE_VERSION:
        return {}
    return blob.get("items") or {}


def _jsonable(value: float):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


class ItemSource:
    """Finds each run's items: ``data`` given in Python, an export folder, or a rebuild from run.json."""

    def __init__(self, features_dir: str | os.PathLike, data: Mapping | None = None,
                 from_export: str | os.PathLike | None = None, dataset_kwargs: Mapping | None = None,
                 progress: bool = True):
        self.features_dir = Path(features_dir)
        self.data = dict(data or {})
        self.from_export = from_export
        self.dataset_kwargs = dict(dataset_kwargs or {})
        self.progress = progress
        self._built: dict[tuple, object] = {}  # rebuild identity -> dataset
        self._tables: dict[tuple, ItemTable] = {}  # (config, fingerprint) -> table
        self.notes: list[str] = []

    # ---- the dataset of one run and config
    def _dataset(self, run: AnalysisRun, config: str):
        if config in self.data:
            return self.data[config], "data"
        if self.from_export is not None:
            key = ("export", str(self.from_export), config, run.split)
            if key not in self._built:
                import datasets

                if not (Path(self.from_export) / config).is_dir():
                    raise UserError(f"{self.from_export} holds no {config} (write it with `jigsaw-puzzles build "
                                    f"--out {self.from_export}`)")
                self._built[key] = datasets.load_dataset(str(self.from_export), config, split=run.split or "test",
                                                         cache_dir=self.dataset_kwargs.get("cache_dir"))
            return self._built[key], f"the export {self.from_export}"
        if run.split is None or run.seed is None:
            raise UserError(f"{run.path}: run.json does not record the split and seed its items were made with, "
                            "so they cannot be rebuilt; pass --dataset DIR (or data= in Python)")
        options = {k: v for k, v in (run.dataset_options.get(config) or {}).items() if k in TASKS[config].options}
        if run.answer_plan(config):  # recorded by the run: it wins over --answer-plan (for runs that lack it)
            options["answer_plan"] = run.answer_plan(config)
        key = ("build", config, run.split, run.seed, run.source, json.dumps(options, sort_keys=True, default=str),
               self.dataset_kwargs.get("answer_plan"))
        if key not in self._built:
            kwargs = {**self.dataset_kwargs, **options, "progress": False}
            self._built[key] = build_dataset(config, run.split, run.source, run.seed, None, kwargs)
        source = run.source or "the embedded photos"
        return self._built[key], f"split {run.split}, seed {run.seed}, source {source}"

    def resolve(self, run: AnalysisRun, config: str, ids: list[str]) -> tuple[ItemTable, object | None]:
        """The table of ``config``'s items as ``run`` answered them, and the dataset to compute the features of
        ``ids`` not in the cache from (None: all cached). A dataset that differs from the run's is refused."""
        recorded = run.fingerprints.get(config)
        if recorded and config not in self.data:
            table = self._cached(config, recorded)
            if all(i in table.items for i in ids):
                return table, None
        ds, how = self._dataset(run, config)
        fingerprint = dataset_fingerprint(ds)
        if recorded and recorded != fingerprint:
            raise UserError(
                f"{run.path}: the {config} items rebuilt from {how} have fingerprint {fingerprint}, but the run "
                f"answered items with fingerprint {recorded}: the photos, the generator version or the answer plan "
                f"differ from the run's (pass --dataset DIR for a built export, or data= in Python; a run whose run.json "
                f"records no answer plan: --answer-plan)")
        if not recorded:
            self.notes.append(f"{run.name}: run.json records no {config} fingerprint; its items were taken from "
                              f"{how} unchecked")
        return self._cached(config, fingerprint), ds

    def _cached(self, config: str, fingerprint: str) -> ItemTable:
        key = (config, fingerprint)
        if key not in self._tables:
            self._tables[key] = ItemTable(config, fingerprint,
                                          _read_cache(_cache_path(self.features_dir, config, fingerprint)))
        return self._tables[key]

    def compute(self, table: ItemTable, ds, ids: list[str]) -> None:
        """Compute and cache the features of ``ids`` (rows of ``ds``)."""
        if not ids:
            return
        from tqdm.auto import tqdm

        index = {item_id: k for k, item_id in enumerate(ds.select_columns(["id"])["id"])}
        missing = [i for i in ids if i not in index]
        if missing:
            raise UserError(f"{len(missing)} answered {table.config} items (e.g. {missing[0]}) are not in the "
                            f"rebuilt dataset; the run was made on other items")
        for item_id in tqdm(sorted(ids, key=index.get), desc=f"features {table.config}", unit="item",
                            disable=not self.progress, dynamic_ncols=True):
            row = ds[index[item_id]]
            feats = item_features(row, table.config)
            table.items[item_id] = {"features": {k: _jsonable(v) for k, v in feats.items()},
                                    "options": list(row.get("options") or []), "answer": row.get("answer")}
        self.features_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_json(_cache_path(self.features_dir, table.config, table.fingerprint),
                          {"feature_version": FEATURE_VERSION, "config": table.config,
                           "fingerprint": table.fingerprint, "items": table.items})


def item_tables(runs: list[AnalysisRun], source: ItemSource) -> dict[str, dict[str, ItemTable]]:
    """run name -> config -> the table of the items that run answered. Every run's items are checked against
    its fingerprints before any feature is computed."""
    out: dict[str, dict[str, ItemTable]] = {}
    todo = []
    for run in runs:
        out[run.name] = {}
        for config, ids in run.ids_by_config().items():
            table, ds = source.resolve(run, config, ids)
            out[run.name][config] = table
            if ds is not None:
                todo.append((table, ds, ids))
    for table, ds, ids in todo:
        source.compute(table, ds, [i for i in ids if i not in table.items])
    return out
