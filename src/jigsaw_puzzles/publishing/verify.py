"""``jigsaw-puzzles verify EXPORT``: regenerate an export's items here and say which are byte-identical.

The export's ``curation_report.json`` names its seed, configs, generator version and answer plan; the hard
configs' items name their CLIP model and weights. Every config is rebuilt here with those and compared row by
row (every column, every image's bytes). For a hard config (``missing_piece_selection_hard*``) a row that differs
only in its distractors (their images and ``metadata.distractors``) is checked with
:func:`jigsaw_puzzles.generation.clip.ties.explain_item`: a *near-tie* when this machine's own similarities,
one or two of them put across the rounding edge they lie within float noise of, give exactly the recorded
distractors. Exit code: 0 every item identical or only near-ties differ, 1 anything else differs, 2 a usage error.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from ..errors import UsageError
from ..generation.builder import make_builder
from ..generation.plan import DEFAULT_ANSWER_PLAN
from ..spec import GENERATOR_VERSION, SPLITS, is_config
from .export import write_parquet

HARD_PREFIX = "missing_piece_selection_hard"


@dataclass
class ConfigResult:
    config: str
    identical: int = 0
    near_ties: list = field(default_factory=list)   # (row id, explanation)
    differing: list = field(default_factory=list)   # (row id, what differs)

    @property
    def ok(self) -> bool:
        return not self.differing


def _rows(path: Path) -> dict[str, dict]:
    return {r["id"]: r for r in pq.read_table(path).to_pylist()} if path.exists() else {}


def _read_export(export: Path) -> dict:
    report_path = export / "curation_report.json"
    if not report_path.is_file():
        raise UsageError(f"{export} is not a jigsaw-puzzles export (no curation_report.json); give the folder "
                         "`jigsaw-puzzles build --out` wrote")
    try:
        report = json.loads(report_path.read_text())
        configs = list(report["configs"])
    except (ValueError, KeyError, TypeError) as err:
        raise UsageError(f"{report_path} is not an export's curation report ({err})") from None
    unknown = [c for c in configs if not is_config(c)]
    if unknown:
        raise UsageError(f"{export} holds config(s) this version does not know: {', '.join(unknown)}")
    return report


def _clip_options(rows: dict[str, dict]) -> dict:
    """The hard config's CLIP settings as its items record them."""
    for row in rows.values():
        meta = json.loads(row["metadata"])
        pretrained = meta.get("clip_pretrained")
        random = str(meta.get("clip_weights", "")).startswith("random-init")
        return {"clip_model": meta.get("clip_model"), "clip_pretrained": None if random else pretrained}
    return {}


def _differences(mine: dict, theirs: dict) -> list[str]:
    keys = sorted(set(mine) | set(theirs))
    return [k for k in keys if k != "images" and mine.get(k) != theirs.get(k)] + \
        (["images"] if [i["bytes"] for i in mine["images"]] != [i["bytes"] for i in theirs["images"]] else [])


def _frame(row: dict) -> tuple:
    """A hard row without what depends on its distractors: the blanked image, the true piece, and the rest."""
    meta = json.loads(row["metadata"])
    meta.pop("distractors", None)
    slot = meta.get("slot")
    images = [i["bytes"] for i in row["images"]]
    kept = images[:1] + (images[1 + slot:2 + slot] if isinstance(slot, int) else [])
    rest = {k: v for k, v in row.items() if k not in ("images", "metadata")}
    return json.dumps(rest, sort_keys=True, default=str), json.dumps(meta, sort_keys=True), kept


class _HardContext:
    """This machine's embeddings and duplicate groups for a hard config, and its pixel rule."""

    def __init__(self, builder):
        from ..generation.clip import duplicate_source_groups
        from ..generation.sources import load_normalised

        plan = builder.plan()
        prep = builder.preparation()
        self.prep = prep
        self.loader = builder._loader(plan["curation"])
        sources = {s.source_id: load_normalised(s.path, builder.rules, s.source_id) for s in plan["curation"].accepted}
        self.bank = prep.miner.embed_sources(sources)
        self.groups = duplicate_source_groups(self.bank, prep.max_similarity)
        self.rows, self.cols = prep.rows, prep.cols

    def explain(self, mine: dict, theirs: dict) -> str | None:
        from ..generation.clip.ties import explain_item
        from ..generation.tasks.base import TaskError
        from ..generation.tasks.missing_piece_selection import MINED_CANDIDATES, NUM_DISTRACTORS, \
            chosen_distractors, grid_cells, _resized

        if _frame(mine) != _frame(theirs):
            return None  # something besides the distractors differs: no float decides that
        meta, recorded = json.loads(mine["metadata"]), json.loads(theirs["metadata"]).get("distractors") or []
        region = meta["region"]
        q = self.bank.index(mine["source_id"], *divmod(region, self.cols))
        count = len(meta["distractors"])
        truth = grid_cells(self.loader(mine["source_id"]), self.rows, self.cols)[region]

        def shown(candidates):
            try:
                ds = chosen_distractors(candidates, truth, lambda s, c, size: _resized(
                    grid_cells(self.loader(s), self.rows, self.cols)[c], size), count)
            except TaskError:
                return None
            return [{"source_id": d.source_id, "cell": d.cell, "similarity": d.similarity} for d in ds]

        return explain_item(self.bank, self.groups, q, recorded, meta["distractors"], shown=shown,
                            k=MINED_CANDIDATES * count // NUM_DISTRACTORS, max_similarity=self.prep.max_similarity)


def verify(export: str, source: str | None = None, clip_cache_dir: str | None = None,
           progress: bool = False) -> tuple[dict, list[ConfigResult]]:
    """Regenerate every config of ``export`` here and compare; returns (what was rebuilt, per-config results).
    Items are generated afresh in a temporary ``datasets`` cache (never read from an earlier build's);
    embeddings come from ``clip_cache_dir`` (this machine's cache) when there."""
    export = Path(export)
    if not export.is_dir():
        raise UsageError(f"{export} is not a folder; give the folder `jigsaw-puzzles build --out` wrote")
    report = _read_export(export)
    curation = report.get("curation", {})
    if not curation.get("embedded", False) and source is None:
        raise UsageError(f"{export} was built from the folder {curation.get('folder', '?')!r}, not the embedded "
                         "photos: pass it with --source DIR")
    source = None if curation.get("embedded", False) and source is None else source
    seed = int(report.get("seed", 0))
    plan = report.get("answer_plan", DEFAULT_ANSWER_PLAN)
    info = {"seed": seed, "answer_plan": plan, "generator_version": report.get("generator_version"),
            "here": GENERATOR_VERSION, "source": "embedded photos" if source is None else str(source)}
    results = []
    with tempfile.TemporaryDirectory(prefix="jp-verify-") as tmp:
        for config in report["configs"]:
            theirs = {split: _rows(export / config / f"{split}-00000-of-00001.parquet") for split in SPLITS}
            options = _clip_options(theirs["test"]) if config.startswith(HARD_PREFIX) else {}
            builder = make_builder(config, source, seed, str(Path(tmp) / "cache"), answer_plan=plan, progress=progress,
                                   clip_cache_dir=clip_cache_dir, **options)
            builder.download_and_prepare()
            result, hard = ConfigResult(config), None
            for split in SPLITS:
                dataset = builder.as_dataset(split=split)
                path = Path(tmp) / config / f"{split}.parquet"
                if len(dataset):
                    write_parquet(dataset, path)
                mine = _rows(path)
                for rid in sorted(set(mine) | set(theirs[split])):
                    label = f"{split}:{rid}"
                    if rid not in mine or rid not in theirs[split]:
                        result.differing.append((label, "only in the export" if rid not in mine else "only here"))
                        continue
                    diff = _differences(mine[rid], theirs[split][rid])
                    if not diff:
                        result.identical += 1
                        continue
                    why = None
                    if config.startswith(HARD_PREFIX):
                        hard = hard or _HardContext(builder)
                        why = hard.explain(mine[rid], theirs[split][rid])
                    if why:
                        result.near_ties.append((label, why))
                    else:
                        result.differing.append((label, "differs in " + ", ".join(diff)))
            results.append(result)
    return info, results


def run_verify(args) -> int:
    """The ``verify`` command: one line per config, one per differing item; exit 0/1 as the module says."""
    info, results = verify(args.export, source=args.source, clip_cache_dir=args.clip_cache_dir, progress=True)
    print(f"verify {args.export}: seed {info['seed']}, answer plan {info['answer_plan']}, {info['source']}; "
          f"built by generator {info['generator_version']}, regenerated here by {info['here']}")
    if info["generator_version"] != info["here"]:
        print(f"  note: generator {info['generator_version']} made the export and {info['here']} runs here; items "
              "of another generator version are expected to differ (docs/tasks.md#generator-versions)")
    for r in results:
        total = r.identical + len(r.near_ties) + len(r.differing)
        print(f"  {r.config:34s} {r.identical}/{total} identical, {len(r.near_ties)} near-ties, "
              f"{len(r.differing)} differ")
        for label, why in r.near_ties:
            print(f"    {label}: {why}")
        for label, why in r.differing:
            print(f"    {label}: DIFFERS: {why}")
    bad = [r.config for r in results if not r.ok]
    if bad:
        print(f"not reproduced here: {', '.join(bad)}")
        return 1
    ties = sum(len(r.near_ties) for r in results)
    print("every item is byte-identical here" if not ties else
          f"every item is byte-identical here but {ties} near-tie(s): hard distractors that float noise between "
          "machines decides (docs/tasks.md#determinism)")
    return 0


def add_parser(sub, bars) -> None:
    """``jigsaw-puzzles verify EXPORT [--source DIR]`` (``bars``: the CLI's labelled progress bars)."""
    p = sub.add_parser("verify", help="regenerate an export's items here: which are byte-identical",
                       description="Rebuild every config of an export (its seed, answer plan and CLIP settings) on "
                                   "this machine and compare item by item; exit 0 when all are identical or only "
                                   "hard-config near-ties differ, 1 otherwise.",
                       epilog="examples:\n  jigsaw-puzzles verify ./jigsaw_puzzles                 # built from the "
                              "embedded photos\n  jigsaw-puzzles verify ./my_export --source ~/photos")
    p.add_argument("export", metavar="EXPORT", help="the folder `jigsaw-puzzles build --out` wrote")
    p.add_argument("--source", default=None, metavar="DIR",
                   help="the photographs the export was built from (default: the embedded photos)")
    p.add_argument("--clip-cache-dir", default=None, metavar="DIR",
                   help="embedding cache (default: under HF_DATASETS_CACHE)")

    def run(args) -> int:
        bars()
        return run_verify(args)

    p.set_defaults(func=run)
