"""How a session of ``eval`` extends its run directory: a run is the union of everything asked of it.

Every session may name other configs (``--configs``, ``--grid``) or another ``--max-items``; the run directory
keeps every item any session selected (:mod:`.manifest`, append-only) and its ``results.json`` covers every config
answered, whichever configs this session named. Per config, the run's selection is the largest prefix of its items
any session asked for: a later, smaller ``--max-items`` never drops answers (a circular run counts base items,
each with all its rotations). Settings that change items or answers (split, seed, source, model, decoding, a
config's options, a dataset fingerprint) are not extensions: the run refuses them before any work
(:meth:`~jigsaw_puzzles.inference.rundir.RunDir.check_identity`).

A session also answers the run's selected items still unanswered in configs it does not name (an earlier session
was interrupted), so re-running any command on a run completes it; such a config that cannot be built here is
skipped as "all configs" skip one. A run written before runs recorded their items (no manifest in ``run.json``) is
extended with the configs its records answered, so that its first session records every item its answers belong
to.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ..generation.circular import expand_dataset, is_circular, is_rotation
from ..generation.plan import DEFAULT_ANSWER_PLAN
from ..generation.versions import item_versions
from ..spec import GENERATOR_VERSION, is_config
from .manifest import Manifest, ManifestError, entries_of, read_manifest, recorded
from .rederive import read_records


class Prior:
    """What the run directory already holds: its manifest, and per config how many (base) items it selected."""

    def __init__(self, path, old_run: Mapping | None):
        self.run = dict(old_run or {})
        self.manifest = Manifest()
        self.floor: dict[str, int] = {}  # config -> base items already selected
        self.legacy: list[str] = []  # configs answered before runs recorded their items
        self.unfinished: list[str] = []  # configs with selected items still unanswered
        self.extra: list[str] = []  # configs this session builds without being asked (see configs())
        if not old_run:
            return
        answered = read_records(path).answered
        if recorded(old_run) is not None:
            try:
                self.manifest = read_manifest(path, old_run)
            except ManifestError as err:
                raise ManifestError(f"{err}; this run cannot be extended: use another --out, or --overwrite to "
                                    "start it over") from None
            for item_id, entry in self.manifest.entries.items():
                if not is_rotation(item_id):
                    self.floor[entry["config"]] = self.floor.get(entry["config"], 0) + 1
                if item_id not in answered and entry["config"] not in self.unfinished:
                    self.unfinished.append(entry["config"])
            return
        counts: dict[str, int] = {}  # a run from before manifests: its records say what it answered
        for rec in answered.values():
            c = rec.get("config")
            if isinstance(c, str) and is_config(c) and not is_rotation(str(rec.get("id"))):
                counts[c] = counts.get(c, 0) + 1
        selected = (self.run.get("dataset") or {}).get("selected") or {}
        circular = bool((self.run.get("variant") or {}).get("circular"))
        for c, k in counts.items():
            old = selected.get(c) if isinstance(selected.get(c), int) and not circular else 0
            self.floor[c] = max(k, old or 0)
        self.legacy = list(counts)

    def configs(self, configs: Sequence[str], data: Mapping | None) -> list[str]:
        """``configs`` and the run's configs with selected items still unanswered (so that re-running any command
        on the run completes it), and for a run from before manifests the configs its records answered."""
        self.extra = [c for c in dict.fromkeys([*self.unfinished, *self.legacy])
                      if c not in configs and (data is None or c in data)]
        return [*configs, *self.extra]

    def select(self, datasets_: Mapping, max_items: int | None, circular: bool, progress: bool = False) -> tuple:
        """``(datasets, selected)``: per config the run's items (circular: expanded, each base item followed by its
        rotations) and how many of its rows the run selects: the most any session asked for."""
        from tqdm.auto import tqdm

        def limit(c: str, n: int) -> int:  # a config this session did not name keeps what the run selected
            asked = 0 if c in self.extra else n if max_items is None else min(n, int(max_items))
            return min(n, max(asked, self.floor.get(c, 0)))

        limits = {c: limit(c, len(ds)) for c, ds in datasets_.items()}
        if not circular:
            return dict(datasets_), limits
        out = {}
        total = sum(n for c, n in limits.items() if is_circular(c))
        with tqdm(total=total, desc="circular rotations", unit="item", disable=not progress or not total,
                  dynamic_ncols=True) as bar:
            for c, ds in datasets_.items():
                bar.set_postfix_str(c)
                out[c] = expand_dataset(ds, c, limits[c], bar)
        return out, {c: len(ds) for c, ds in out.items()}

    def entries(self, datasets_: Mapping, selected: Mapping) -> list[dict]:
        return [e for c, ds in datasets_.items() for e in entries_of(ds, c, selected[c])]

    def details(self, configs: Sequence[str], datasets_: Mapping, selected: Mapping, skipped: Mapping,
                given: Sequence[str], answer_plan: str | None) -> dict:
        """run.json's record of the run as extended by this session: every config, sizes, selections, skips, and
        per config what made its items (generator version, answer plan, item-shaping versions, built or given)."""
        old = self.run
        old_dataset = old.get("dataset") if isinstance(old.get("dataset"), dict) else {}
        answered = set(self.manifest.counts()) | set(selected)
        old_skipped = old.get("skipped") if isinstance(old.get("skipped"), dict) else {}
        skipped = {c: v for c, v in {**old_skipped, **skipped}.items() if c not in answered}
        old_configs = old.get("configs") if isinstance(old.get("configs"), list) else []
        old_made = (recorded(old) or {}).get("configs")
        old_made = dict(old_made) if isinstance(old_made, dict) else {}
        made = {c: {"generator_version": GENERATOR_VERSION, "answer_plan": answer_plan or DEFAULT_ANSWER_PLAN,
                    "built": c not in given, "versions": item_versions([c])} for c in datasets_ if c not in old_made}
        return {"configs": list(dict.fromkeys([*old_configs, *configs])), "skipped": skipped,
                "sizes": {**(old_dataset.get("sizes") or {}), **{c: len(ds) for c, ds in datasets_.items()}},
                "selected": {**(old_dataset.get("selected") or {}), **selected}, "made": {**old_made, **made}}
