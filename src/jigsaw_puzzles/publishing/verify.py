"""``jigsaw-puzzles verify EXPORT``: regenerate an export's items here and say which are byte-identical.

The export is read as stock ``datasets.load_dataset(folder, config)`` reads it (:mod:`.audit`: every shard the
card names, every file of each config's folder, the card's configs, split files and counts, the credits); each
thing that does not hold together is a line. The library versions that shape items (:mod:`..generation.versions`),
as the export records them, are compared with this machine's, a line for each that differs. Then every config is
rebuilt here with the report's seed, answer plan and CLIP weights and compared row by row (every
column, every image's bytes; each id exactly once, in the order the build writes them); the rebuild's curation
record, task skips and photos' fingerprint are compared with the report's, the card this rebuild writes with the
export's (:mod:`.card_check`), and the guard's evaluation index (``guard_index.parquet``, :mod:`.guard_index`) with
the greys of this rebuild's photos. For a hard config (``missing_piece_selection_hard*``) a row
that differs only in its distractors (their images and ``metadata.distractors``) is checked with
:func:`jigsaw_puzzles.generation.clip.ties.explain_item`: a *near-tie* when this machine's own similarities, one or
two of them put across the rounding edge they lie within float noise of, give exactly the recorded distractors.

Exit code: 0 every item identical or only near-ties differ, and nothing of the export contradicts itself; 1 an item
differs or the export does not hold together; 2 a usage error (not an export, a source folder or CLIP weights
file that is not given or not the one the export was built with), one line saying what to do.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..spec import GENERATOR_VERSION, SPLITS

if TYPE_CHECKING:
    from .audit import Export

HARD_PREFIX = "missing_piece_selection_hard"
RANDOM_INIT = "random-init"
FILE_WEIGHTS = "sha256:"


@dataclass
class ConfigResult:
    config: str
    identical: int = 0
    near_ties: list = field(default_factory=list)   # (row id, explanation)
    differing: list = field(default_factory=list)   # (row id, what differs)

    @property
    def ok(self) -> bool:
        return not self.differing


@dataclass
class Verification:
    """What ``verify`` found: the export's own problems, the differing library versions, each config's items."""

    info: dict
    problems: list[str]
    versions: list[str] | None  # None: the export records no versions
    results: list[ConfigResult]

    @property
    def ok(self) -> bool:
        return not self.problems and all(r.ok for r in self.results)


def _images(row: dict) -> list | None:
    try:
        return [image["bytes"] for image in row["images"]]
    except (KeyError, TypeError):
        return None


def _differences(mine: dict, theirs: dict) -> list[str]:
    keys = sorted(set(mine) | set(theirs))
    return [k for k in keys if k != "images" and mine.get(k) != theirs.get(k)] + \
        (["images"] if _images(mine) != _images(theirs) else [])


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
        sources = {s.source_id: (s.path, s.source_id) for s in plan["curation"].accepted}  # loaded one at a time
        self.bank = prep.miner.embed_sources(sources, lambda ps: load_normalised(ps[0], builder.rules, ps[1]))
        self.groups = duplicate_source_groups(self.bank, prep.max_similarity)
        self.rows, self.cols = prep.rows, prep.cols

    def explain(self, mine: dict, theirs: dict) -> str | None:
        from ..generation.clip.ties import explain_item
        from ..generation.tasks.base import TaskError
        from ..generation.tasks.missing_piece_selection import MINED_CANDIDATES, NUM_DISTRACTORS, \
            chosen_distractors, grid_cells, _resized

        try:  # the export's row is untrusted: one that cannot even be framed is no near-tie
            if _frame(mine) != _frame(theirs):
                return None  # something besides the distractors differs: no float decides that
            recorded = json.loads(theirs["metadata"]).get("distractors") or []
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
        meta = json.loads(mine["metadata"])
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


# ------------------------------------------------------------------------------------------------- CLIP weights
def _clip_record(export: Export, config: str) -> dict | None:
    """The hard config's CLIP model and weights: the report's record (generator 4.0.0), else its items'."""
    recorded = export.report.get("clip")
    if isinstance(recorded, dict) and isinstance(recorded.get(config), dict):
        return recorded[config]
    for split in SPLITS:
        for row in export.rows(config, split)[:1]:
            try:
                meta = json.loads(row["metadata"])
            except (KeyError, TypeError, ValueError):
                continue
            if isinstance(meta, dict) and "clip_weights" in meta:
                return meta
    return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def clip_options(export: Export, config: str, clip_pretrained: str | None, scratch: Path) -> dict:
    """The ``clip_model`` and ``clip_pretrained`` that rebuild ``config`` here; :class:`UsageError` (exit 2, one
    line) when the export does not say, or the weights file is not given or is not the one it was built with. A
    file is used under the name the export records (a link in ``scratch``): the items record that name."""
    record = _clip_record(export, config)
    model, weights = (record or {}).get("clip_model"), (record or {}).get("clip_weights")
    if not isinstance(model, str) or not isinstance(weights, str):
        raise UsageError(f"{config}: the export records no CLIP model and weights (no 'clip' record in its "
                         "curation_report.json, no item naming them), so it cannot be rebuilt here; leave it out "
                         "of the export or rebuild the export")
    name = record.get("clip_pretrained")
    if weights.startswith(RANDOM_INIT) or not weights.startswith(FILE_WEIGHTS):
        if clip_pretrained is not None:
            kind = "random-init weights" if weights.startswith(RANDOM_INIT) else f"the open_clip tag {weights!r}"
            raise UsageError(f"--clip-pretrained: {config} was built with {kind}, not a weights file; leave the "
                             "option out")
        return {"clip_model": model, "clip_pretrained": None if weights.startswith(RANDOM_INIT) else weights}
    digest, shown = weights[len(FILE_WEIGHTS):], name if isinstance(name, str) and name else "a weights file"
    if clip_pretrained is None:
        raise UsageError(f"{config} was built with the CLIP weights file {shown} (SHA-256 {digest[:16]}...): "
                         "pass that file with --clip-pretrained PATH")
    path = Path(clip_pretrained).expanduser()
    if not path.is_file():
        raise UsageError(f"--clip-pretrained {clip_pretrained}: no such file; give the weights file {shown} "
                         f"(SHA-256 {digest[:16]}...) {config} was built with")
    found = _sha256(path)
    if found != digest:
        raise UsageError(f"--clip-pretrained {clip_pretrained} is not the weights file {config} was built with: "
                         f"its SHA-256 is {found[:16]}..., the export's {shown} has {digest[:16]}...; give that file")
    link = scratch / "clip-weights" / (Path(shown).name if Path(shown).name not in ("", ".", "..") else "weights")
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.exists():
        try:
            link.symlink_to(path.resolve())
        except OSError:  # no symlinks here (some Windows setups): a copy
            shutil.copyfile(path, link)
    return {"clip_model": model, "clip_pretrained": str(link)}


# ---------------------------------------------------------------------------------------- versions and records
def version_lines(report: dict, configs: list[str]) -> list[str] | None:
    """One line per library version that shapes items and differs from the export's record (``None``: the export
    records none, as before generator 4.0.0)."""
    from ..generation.versions import CLIP_DISTRIBUTIONS, item_versions

    recorded, here = report.get("item_versions"), item_versions()
    if not isinstance(recorded, dict):
        return None
    hard = any(c.startswith(HARD_PREFIX) for c in configs)
    return [f"{key}: {recorded.get(key, 'not recorded')} built the export, {value} runs here"
            for key, value in here.items() if (hard or key not in CLIP_DISTRIBUTIONS) and recorded.get(key) != value]


def _as_json(value):
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def record_problems(report: dict, config: str, builder, first: bool) -> list[str]:
    """The report's curation record (once) and ``config``'s task skips against this rebuild's."""
    problems, built = [], builder.report
    recorded = report.get("curation") if isinstance(report.get("curation"), dict) else {}
    if first:
        kept = {k: recorded.get(k) for k in ("folder", "embedded")}  # the export's own words, not the rebuild's
        rebuilt = _as_json({**built["curation"], **kept})
        keys = sorted(k for k in set(rebuilt) | set(recorded) if rebuilt.get(k) != recorded.get(k))
        if keys:
            problems.append(f"curation_report.json: the curation record differs from this rebuild's in "
                            f"{', '.join(keys)}")
    record = report["configs"].get(config)
    skips = record.get("task_skips") if isinstance(record, dict) else None
    if skips != _as_json(built["task_skips"]):
        problems.append(f"curation_report.json: the task skips of {config} differ from this rebuild's")
    return problems


# -------------------------------------------------------------------------------------------------- comparison
def _compare(split: str, mine: list[dict], theirs: list[dict], result: ConfigResult, explain) -> None:
    """Every id of the split once, in the build's order; ``explain(mine, theirs)``: a near-tie's reason or None."""
    copies, built = defaultdict(list), {row["id"]: row for row in mine}
    for row in theirs:
        copies[row["id"]].append(row)
    before = len(result.differing)
    for rid in sorted(set(built) | set(copies)):
        label, rows = f"{split}:{rid}", copies.get(rid, [])
        if rid not in built:
            result.differing.append((label, "only in the export" + (f" ({len(rows)} times)" if len(rows) > 1 else "")))
        elif not rows:
            result.differing.append((label, "only here"))
        elif len(rows) > 1:
            what = "; ".join(f"copy {k}: " + (("differs in " + ", ".join(d)) if (d := _differences(built[rid], r))
                                              else "identical") for k, r in enumerate(rows, 1))
            result.differing.append((label, f"appears {len(rows)} times in the export ({what})"))
        elif not (diff := _differences(built[rid], rows[0])):
            result.identical += 1
        elif why := explain(built[rid], rows[0]):
            result.near_ties.append((label, why))
        else:
            result.differing.append((label, "differs in " + ", ".join(diff)))
    if len(result.differing) == before and [r["id"] for r in theirs] != [r["id"] for r in mine]:
        result.differing.append((f"{split}:(row order)", "the export's rows are in another order than the build's"))


def verify(export: str, source: str | None = None, clip_cache_dir: str | None = None,
           clip_pretrained: str | None = None, progress: bool = False) -> Verification:
    """Read ``export`` (:mod:`.audit`), regenerate every config of it here and compare. Items are generated afresh
    in a temporary ``datasets`` cache (never read from an earlier build's); embeddings come from
    ``clip_cache_dir`` (this machine's cache) when there. ``clip_pretrained``: the weights file of an export
    whose hard configs were built from one (checked against the SHA-256 it records)."""
    import pyarrow.parquet as pq

    from ..generation.builder import make_builder
    from . import guard_index
    from .audit import read_export
    from .card_check import card_problems, fingerprint_problems
    from .writer import write_parquet

    with tempfile.TemporaryDirectory(prefix="jp-verify-") as tmp:
        tmp = Path(tmp)
        claims = read_export(export, str(tmp / "stock"))
        report = claims.report
        curation = report.get("curation") if isinstance(report.get("curation"), dict) else {}
        embedded = curation.get("embedded") is True
        if not embedded and source is None:
            raise UsageError(f"{export} was built from the folder {curation.get('folder', '?')!r}, not the embedded "
                             "photos: pass it with --source DIR")
        source = None if embedded and source is None else source
        info = {"seed": report.get("seed"), "answer_plan": claims.answer_plan,
                "generator_version": report.get("generator_version"), "here": GENERATOR_VERSION,
                "source": "embedded photos" if source is None else str(source)}
        versions = version_lines(report, claims.configs)
        problems, results = claims.problems, []  # reading the rows below may add to them
        if not claims.rebuildable:
            return Verification(info, problems, versions, results)
        # every config's settings and weights before any work: user errors first
        options = {c: clip_options(claims, c, clip_pretrained, tmp) if c.startswith(HARD_PREFIX) else {}
                   for c in claims.configs}
        if clip_pretrained is not None and not any(c.startswith(HARD_PREFIX) for c in claims.configs):
            raise UsageError(f"--clip-pretrained: {export} has no hard config (missing_piece_selection_hard*); leave "
                             "the option out")
        builders, counts, sizes, tests = {}, {}, {}, {}
        for config in claims.configs:
            builders[config] = make_builder(config, source, claims.seed, str(tmp / "cache"),
                                            answer_plan=claims.answer_plan, progress=progress,
                                            clip_cache_dir=clip_cache_dir, **options[config])
            builders[config].preparation()
        # the guard's evaluation index: every accepted photo's greys, as this machine computes them from the photos
        accepted = next(iter(builders.values())).plan()["curation"].accepted
        problems += guard_index.problems(Path(export), report, accepted)
        for config, builder in builders.items():
            builder.download_and_prepare()
            problems += record_problems(report, config, builder, first=not results)
            if not results:
                problems += fingerprint_problems(report, builder.report["curation"])
            counts[config], sizes[config] = {}, {}
            result, hard = ConfigResult(config), []

            def explain(mine, theirs, config=config, builder=builder, hard=hard):
                if not config.startswith(HARD_PREFIX):
                    return None
                hard[:] = hard or [_HardContext(builder)]
                return hard[0].explain(mine, theirs)

            for split in SPLITS:
                dataset = builder.as_dataset(split=split)
                path = tmp / config / f"{split}.parquet"
                mine = []
                if len(dataset):
                    write_parquet(dataset, path)
                    table = pq.read_table(path)
                    mine = table.to_pylist()
                    problems += [f"{rel}: its parquet schema (columns, types, the features datasets reads) is "
                                 "not the build's" for rel, schema in claims.schemas[config][split]
                                 if not schema.equals(table.schema, check_metadata=True)]
                _compare(split, mine, claims.rows(config, split), result, explain)
                counts[config][split], sizes[config][split] = len(dataset), path.stat().st_size if len(dataset) else 0
                if split == "test":
                    tests[config] = dataset
            results.append(result)
        problems += card_problems(claims.folder, report, claims.configs, counts, sizes, tests)
    return Verification(info, problems, versions, results)


def run_verify(args) -> int:
    """The ``verify`` command: the export's problems, the differing versions, one line per config and one per
    differing item; exit 0/1 as the module says."""
    found = verify(args.export, source=args.source, clip_cache_dir=args.clip_cache_dir,
                   clip_pretrained=getattr(args, "clip_pretrained", None), progress=True)
    info = found.info
    print(f"verify {args.export}: seed {info['seed']}, answer plan {info['answer_plan']}, {info['source']}; "
          f"built by generator {info['generator_version']}, regenerated here by {info['here']}")
    if info["generator_version"] != info["here"]:
        print(f"  note: generator {info['generator_version']} made the export and {info['here']} runs here; items "
              "of another generator version are expected to differ (docs/tasks.md#generator-versions)")
    if found.versions is None:
        print("  note: the export records no versions of the libraries that shape items (made before generator "
              "4.0.0)")
    elif found.versions:
        print("  versions that shape items differ (items are meant to be the same across them; "
              "docs/tasks.md#determinism):")
        for line in found.versions:
            print(f"    {line}")
    for problem in found.problems:
        print(f"  EXPORT: {problem}")
    for r in found.results:
        total = r.identical + len(r.near_ties) + len(r.differing)
        print(f"  {r.config:34s} {r.identical}/{total} identical, {len(r.near_ties)} near-ties, "
              f"{len(r.differing)} differ")
        for label, why in r.near_ties:
            print(f"    {label}: {why}")
        for label, why in r.differing:
            print(f"    {label}: DIFFERS: {why}")
    bad = [r.config for r in found.results if not r.ok]
    if found.problems:
        print(f"the export does not hold together: {len(found.problems)} problem(s) above"
              + ("" if found.results else "; nothing was rebuilt"))
    if bad:
        print(f"not reproduced here: {', '.join(bad)}")
    if not found.ok:
        return 1
    ties = sum(len(r.near_ties) for r in found.results)
    print("every item is byte-identical here" if not ties else
          f"every item is byte-identical here but {ties} near-tie(s): hard distractors that float noise between "
          "machines decides (docs/tasks.md#determinism)")
    return 0


def add_parser(sub, bars) -> None:
    """``jigsaw-puzzles verify EXPORT [--source DIR]`` (``bars``: the CLI's labelled progress bars)."""
    p = sub.add_parser("verify", help="regenerate an export's items here: which are byte-identical",
                       description="Read an export as datasets.load_dataset reads it, then rebuild every config of "
                                   "it (its seed, answer plan and CLIP settings) on this machine and compare item "
                                   "by item; exit 0 when all are identical or only hard-config near-ties differ and "
                                   "the export holds together, 1 otherwise, 2 on a usage error.",
                       epilog="examples:\n  jigsaw-puzzles verify ./jigsaw_puzzles                 # built from the "
                              "embedded photos\n  jigsaw-puzzles verify ./my_export --source ~/photos\n"
                              "  jigsaw-puzzles verify ./hard --clip-pretrained ~/weights/open_clip_model.safetensors")
    p.add_argument("export", metavar="EXPORT", help="the folder `jigsaw-puzzles build --out` wrote")
    p.add_argument("--source", default=None, metavar="DIR",
                   help="the photographs the export was built from (default: the embedded photos)")
    p.add_argument("--clip-cache-dir", default=None, metavar="DIR",
                   help="embedding cache (default: under HF_DATASETS_CACHE)")
    p.add_argument("--clip-pretrained", default=None, metavar="FILE",
                   help="the CLIP weights file the export's hard configs were built from (checked by its SHA-256)")

    def run(args) -> int:
        bars()
        return run_verify(args)

    p.set_defaults(func=run)
