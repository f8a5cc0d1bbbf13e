"""``jigsaw-puzzles verify RUN_DIR``: a run directory someone sends you (a leaderboard submission), checked here.

The report trusts a run's item manifest as far as its digest (:mod:`.derive`). ``verify`` trusts nothing the run
directory holds but its settings and its raw outputs:

1. **Items.** Every config the run selected is rebuilt here from ``run.json`` (split, seed, source, each config's
   options, answer plan; a circular run's rotations), in a fresh ``datasets`` cache, and its first ``selected``
   items compared with the manifest, entry by entry (id, reference, options), and with the recorded dataset
   fingerprint. The manifest's digest is checked too.
2. **Verdicts.** Every raw output is read again (:func:`~jigsaw_puzzles.inference.rederive.rederive`) against the
   *rebuilt* items; each stored verdict, reference or config that disagrees is named, and each answer to an id
   outside the selection; so is each resolution of an unread output (``resolutions.jsonl``) made for another output
   (void) or whose stored reading its raw text does not give (a judge's quote not in the output).
3. **Numbers.** Every number of ``results.json`` (complete, counts, every metric of every config) is recomputed
   from those verdicts and compared.

Before comparing it says where the versions of the libraries that shape items (Pillow, libjpeg, zlib, numpy;
torch and open_clip for the hard configs) differ from the run's. Exit code: 0 everything reproduced, 1 a
difference (each named), 2 a user error in one line (no such folder; a run of another generator version, of
datasets given in Python, or from a source folder that is not here: nothing to rebuild it from).
"""
from __future__ import annotations

import json
import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigUnavailable, UsageError
from ..generation.circular import expand_dataset, is_circular, num_rotations
from ..generation.plan import DEFAULT_ANSWER_PLAN
from ..generation.versions import item_versions, version_differences
from ..inference.data import build_dataset, dataset_fingerprint
from ..inference.manifest import MANIFEST, ManifestError, encode, entries_of, parse, read_manifest, recorded
from ..inference.rederive import read_records, rederive
from ..inference.resolutions import read_resolutions
from ..inference.rundir import PREDICTIONS, RESOLUTIONS, RESULTS_JSON, RUN_JSON, RunDir
from ..spec import GENERATOR_VERSION, is_config
from .derive import _same


@dataclass
class RunCheck:
    """What ``verify`` found: per section the differences, each one line."""

    info: dict
    notes: list = field(default_factory=list)  # version differences (said before comparing)
    identical: dict = field(default_factory=dict)  # config -> items identical to the manifest
    items: list = field(default_factory=list)  # the manifest against the rebuilt items
    answers: list = field(default_factory=list)  # the records against their raw outputs and the rebuilt items
    numbers: list = field(default_factory=list)  # results.json against the re-read verdicts

    @property
    def differences(self) -> int:
        return len(self.items) + len(self.answers) + len(self.numbers)

    @property
    def ok(self) -> bool:
        return not self.differences


def is_run_dir(path) -> bool:
    """A folder ``eval`` wrote (run.json, predictions or a manifest), as opposed to an export."""
    p = Path(path)
    return p.is_dir() and any((p / name).exists() for name in (RUN_JSON, PREDICTIONS, MANIFEST))


def _fmt(v) -> str:
    return f"{v:.6g}" if isinstance(v, float) and not math.isnan(v) else json.dumps(v, default=str)


def number_differences(stored, derived, where: str = "") -> list[str]:
    """Every number of ``derived`` (what the raw outputs give) that ``stored`` (results.json) does not hold."""
    if not isinstance(stored, dict):
        return [f"{where.rstrip('.') or 'results.json'}: results.json holds {_fmt(stored)}, not the figures"]
    out = []
    for key in [*derived, *(k for k in stored if k not in derived)]:
        name = f"{where}{key}"
        if key not in derived:
            out.append(f"{name}: results.json says {_fmt(stored[key])}, the raw outputs give no such figure")
        elif key not in stored:
            out.append(f"{name}: missing from results.json (the raw outputs give {_fmt(derived[key])})")
        elif isinstance(derived[key], dict):
            out += number_differences(stored[key], derived[key], name + ".")
        elif not _same(stored[key], derived[key]):
            out.append(f"{name}: results.json says {_fmt(stored[key])}, the raw outputs give {_fmt(derived[key])}")
    return out


def _settings(path: Path, run: dict, source) -> tuple[dict, object]:
    """``(config -> what made its items, the source to rebuild from)``; ``UsageError`` when nothing here can."""
    rec = recorded(run) or {}
    made = rec.get("configs") if isinstance(rec.get("configs"), dict) else {}
    if run.get("backend") == "human":
        raise UsageError(f"{path} is a human participant's run: `verify` rebuilds runs of `eval`; the report "
                         "re-reads a participant's answers against their recorded items")
    given = sorted(c for c, m in made.items() if isinstance(m, dict) and m.get("built") is False)
    if given:
        raise UsageError(f"{path}: its {', '.join(given)} items were given as datasets (evaluate_model(data=...)), "
                         "not built: nothing here can rebuild them")
    other = sorted({str(m.get("generator_version")) for m in made.values()
                    if isinstance(m, dict) and m.get("generator_version") != GENERATOR_VERSION})
    if other:
        raise UsageError(f"{path}: its items were made by generator {', '.join(other)}; this is generator "
                         f"{GENERATOR_VERSION}, which makes other items: verify it with a jigsaw-puzzles of generator "
                         f"{other[0]}")
    if source is None and run.get("source") is not None:
        source = run["source"]
        if not Path(source).is_dir():
            raise UsageError(f"{path} was built from the folder {source}, which is not here: pass the same photos "
                             "with --source DIR")
    return made, source


def _selection(run: dict, manifest: dict[str, dict]) -> dict[str, int]:
    """config -> rows the run selected (run.json ``dataset.selected``; the manifest's count for one it lacks)."""
    selected = (run.get("dataset") or {}).get("selected") if isinstance(run.get("dataset"), dict) else None
    out = {c: n for c, n in (selected or {}).items() if is_config(c) and isinstance(n, int) and n >= 0}
    for entry in manifest.values():
        if entry["config"] not in out:
            out[entry["config"]] = sum(e["config"] == entry["config"] for e in manifest.values())
    return out


def _recorded_entries(path: Path, run: dict, check: RunCheck) -> dict[str, dict]:
    """The manifest as recorded (its digest checked; a mismatch is a difference, and its entries still compared)."""
    try:
        return read_manifest(path, run).entries
    except ManifestError as err:
        check.items.append(f"manifest: {err}")
    rec = recorded(run)
    file = path / MANIFEST
    if rec is None or not file.is_file():
        return {}
    data = file.read_bytes()
    try:
        return parse(data[:rec["bytes"]] if isinstance(rec.get("bytes"), int) else data, str(file))
    except ManifestError as err:
        check.items.append(f"manifest: {err}")
        return {}


def verify_run(path, source=None, clip_cache_dir=None, cache_dir=None, progress: bool = False) -> RunCheck:
    """Rebuild, re-read and recompute the run in ``path`` (see the module); ``cache_dir``: a ``datasets`` cache to
    build in (default: a fresh temporary one, never an earlier build's)."""
    path = Path(path)
    if not path.is_dir():
        raise UsageError(f"{path} is not a folder; give the run directory `jigsaw-puzzles eval --out` wrote")
    run = RunDir(path).read_run()
    if run is None:
        raise UsageError(f"{path} has no {RUN_JSON}: not a run directory `jigsaw-puzzles eval` wrote")
    made, source = _settings(path, run, source)
    check = RunCheck({"model": run.get("model"), "split": run.get("split"), "seed": run.get("seed"),
                      "source": "embedded photos" if source is None else str(source), "here": GENERATOR_VERSION,
                      "made_by": sorted({str(m.get("generator_version")) for m in made.values()}) or ["?"]})
    for config, m in made.items():
        for phrase in version_differences((m or {}).get("versions"), item_versions([config])):
            if phrase not in check.notes:
                check.notes.append(phrase)
    manifest = _recorded_entries(path, run, check)
    variant = run.get("variant") if isinstance(run.get("variant"), dict) else {}
    circular = bool(variant.get("circular"))
    selection = _selection(run, manifest)
    fingerprints = ((run.get("dataset") or {}).get("fingerprints") or {}) if isinstance(run.get("dataset"), dict) \
        else {}
    options = run.get("dataset_options") if isinstance(run.get("dataset_options"), dict) else {}
    rebuilt: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="jp-verify-run-") as tmp:
        for config, n in selection.items():
            kwargs = {**(options.get(config) or {}), "cache_dir": cache_dir or str(Path(tmp) / "cache"),
                      "answer_plan": (made.get(config) or {}).get("answer_plan") or DEFAULT_ANSWER_PLAN,
                      "clip_cache_dir": clip_cache_dir, "progress": progress}
            try:
                ds = build_dataset(config, str(run.get("split")), source, int(run.get("seed") or 0), None, kwargs)
            except ConfigUnavailable as err:
                raise UsageError(f"cannot rebuild {config} here: {err.reason}") from None
            fp = dataset_fingerprint(ds)
            if fingerprints.get(config) != fp:
                check.items.append(f"{config}: its items rebuilt here have fingerprint {fp}; run.json records "
                                   f"{fingerprints.get(config)!r}")
            if circular and is_circular(config):  # each of the first items followed by its rotations
                ds = expand_dataset(ds, config, n // num_rotations(config))
            if n > len(ds):
                check.items.append(f"{config}: run.json selects {n} items; {len(ds)} are built here")
            rebuilt.update({e["id"]: e for e in entries_of(ds, config, n)})
    if manifest or recorded(run) is not None:  # without any manifest: said once above, not once per item
        _compare_items(manifest, rebuilt, selection, check)
    derived = rederive(rebuilt, read_records(path), circular)
    check.answers += [str(f) for f in derived.findings]
    results = RunDir(path).results_json
    if not results.is_file():
        check.numbers.append(f"{RESULTS_JSON}: missing (the raw outputs give {len(derived.ids)} answered items)")
    else:
        try:
            stored = json.loads(results.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as err:
            stored = None
            check.numbers.append(f"{RESULTS_JSON}: not JSON ({err})")
        if stored is not None:
            numbers = derived.numbers()  # results.json's other keys (model, time, ...) are not numbers of the run
            check.numbers += number_differences({k: v for k, v in stored.items() if k in numbers}, numbers) \
                if isinstance(stored, dict) else [f"{RESULTS_JSON}: not an object"]
    return check


def _compare_items(manifest: dict, rebuilt: dict, selection: dict, check: RunCheck) -> None:
    counts: dict[str, int] = {}
    for entry in manifest.values():
        counts[entry["config"]] = counts.get(entry["config"], 0) + 1
    for config, n in selection.items():
        if counts.get(config, 0) != n:
            check.items.append(f"{config}: the manifest lists {counts.get(config, 0)} items, run.json selects {n}")
    for item_id in [*rebuilt, *(i for i in manifest if i not in rebuilt)]:
        mine, theirs = rebuilt.get(item_id), manifest.get(item_id)
        if theirs is None:
            check.items.append(f"{item_id}: selected and built here, not in the manifest")
        elif mine is None:
            check.items.append(f"{item_id}: in the manifest, not among the items the run selects here")
        elif encode(mine) != encode(theirs):
            what = [k for k in ("config", "answer", "options") if mine[k] != theirs[k]]
            check.items.append(f"{item_id}: the manifest's {', '.join(what)} "
                               + ", ".join(f"{theirs[k]!r}" for k in what) + " is not the item's: "
                               + ", ".join(f"{mine[k]!r}" for k in what))
        else:
            check.identical[mine["config"]] = check.identical.get(mine["config"], 0) + 1


def run_verify_run(args) -> int:
    """The ``verify RUN_DIR`` command: what was rebuilt, each difference on its line; exit 0 / 1."""
    target = args.export
    check = verify_run(target, source=args.source, clip_cache_dir=getattr(args, "clip_cache_dir", None),
                       progress=True)
    i = check.info
    print(f"verify {target} (a run directory): model {i['model']}, split {i['split']}, seed {i['seed']}, "
          f"{i['source']}; items made by generator {', '.join(i['made_by'])}, rebuilt here by {i['here']}")
    for phrase in check.notes:
        print(f"  note: the items were made under {phrase}: an item that differs below may be that")
    for config, n in check.identical.items():
        print(f"  {config:34s} {n} items identical to the manifest")
    resolved = len(read_resolutions(target))
    if resolved:
        print(f"  {resolved} resolutions of unread outputs ({RESOLUTIONS}) read again against the outputs they name")
    for title, found in (("items", check.items), ("answers", check.answers), ("results.json", check.numbers)):
        if found:
            print(f"  {title}: {len(found)} difference(s)")
            for line in found:
                print(f"    DIFFERS: {line}")
    if not check.ok:
        print(f"not reproduced here: {check.differences} difference(s)")
        return 1
    print("every item, verdict and number of the run is reproduced here")
    return 0
