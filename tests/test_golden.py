"""Every config's output on the embedded photos is pinned: a change of any item is a versioned change.

The digest covers every row's id, source id, question, options, answer, metadata and the
bytes of every PNG (parquet-writer independent). When the generator changes items on
purpose, bump ``spec.GENERATOR_VERSION``, say what changed in docs/tasks.md, and
regenerate ``tests/golden/embedded_seed0.json`` (``python tests/test_golden.py``).

The hard configs (CLIP-mined distractors) are also pinned item by item (``hard_items``: a digest of
everything but the distractors, and the distractors as recorded). Their split digests may differ on another
machine only where the same near-tie test as ``jigsaw-puzzles verify`` explains it: everything but the
distractors identical, and the recorded distractors exactly what this machine's selection gives with one or two
similarities that lie within float noise of a rounding edge put across it (docs/tasks.md#determinism). Any other
change fails, as the test shows on a planted one.

One set of digests holds on every Pillow the package allows (10.1 to 13): every resize of an item goes through
:func:`jigsaw_puzzles.geometry.resize`, two one-axis passes in a fixed order (Pillow 13 changed the order of its
own passes, and Missing Piece Selection's distractors and any photo larger than 768 px are resized).
``python benchmarks/pillow_versions.py`` runs this test under each allowed Pillow major in side folders
(docs/performance.md#items-across-pillow-versions); docs/tasks.md#determinism says so.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from jigsaw_puzzles.spec import GENERATOR_VERSION, SPLITS

GOLDEN = Path(__file__).parent / "golden" / "embedded_seed0.json"


def content_digest(path: Path) -> str:
    h = hashlib.sha256()
    for row in pq.read_table(path).to_pylist():
        for key in ("id", "source_id", "question", "answer", "metadata"):
            h.update(repr(row[key]).encode())
        h.update(repr(row["options"]).encode())
        for image in row["images"]:
            h.update(hashlib.sha256(image["bytes"]).digest())
    return h.hexdigest()


HARD = "missing_piece_selection_hard"


def build_digests(out: Path, cache: str) -> dict[str, str]:
    from jigsaw_puzzles.publishing.export import build

    golden = json.loads(GOLDEN.read_text())
    build(out, source=None, seed=golden["seed"], num_proc=1, cache_dir=cache, clip_cache_dir=cache,
          **golden["clip"])
    return {f"{p.parent.name}/{p.name.split('-')[0]}": content_digest(p) for p in sorted(out.glob("*/*.parquet"))}  # the configs' rows


def hard_items(out: Path) -> dict[str, dict]:
    """Every hard item: a digest of all but its distractors (verify's frame) and its recorded distractors."""
    from jigsaw_puzzles.publishing.verify import _frame

    items = {}
    for path in sorted(out.glob(f"{HARD}*/*.parquet")):
        for row in pq.read_table(path).to_pylist():
            frame = _frame(row)
            h = hashlib.sha256(repr(frame[:2]).encode())
            for image in frame[2]:
                h.update(hashlib.sha256(image).digest())
            items[f"{path.name.split('-')[0]}:{row['id']}"] = {
                "frame": h.hexdigest(), "distractors": json.loads(row["metadata"])["distractors"]}
    return items


def unexplained(out: Path, pinned: dict[str, dict], cache: str) -> list[str]:
    """Hard items that differ from the pinned ones other than by a near-tie (verify's own test)."""
    from jigsaw_puzzles.generation.builder import make_builder
    from jigsaw_puzzles.publishing.verify import _HardContext

    golden = json.loads(GOLDEN.read_text())
    got, contexts, bad = hard_items(out), {}, []
    rows = {f"{p.name.split('-')[0]}:{r['id']}": r for p in sorted(out.glob(f"{HARD}*/*.parquet"))
            for r in pq.read_table(p).to_pylist()}
    for key in sorted(set(got) | set(pinned)):
        if key not in got or key not in pinned or got[key]["frame"] != pinned[key]["frame"]:
            bad.append(f"{key}: changed")
            continue
        if got[key]["distractors"] == pinned[key]["distractors"]:
            continue
        mine = rows[key]
        theirs = dict(mine, metadata=json.dumps({**json.loads(mine["metadata"]),
                                                 "distractors": pinned[key]["distractors"]}, sort_keys=True))
        config = mine["id"].split("/")[0]
        if config not in contexts:
            contexts[config] = _HardContext(make_builder(config, None, golden["seed"], str(Path(cache) / "verify"),
                                                         clip_cache_dir=cache, **golden["clip"]))
        if not contexts[config].explain(mine, theirs):
            bad.append(f"{key}: other distractors, not a near-tie")
    return bad


@pytest.mark.slow
def test_every_config_matches_the_pinned_items(tmp_path):
    pytest.importorskip("open_clip")
    golden = json.loads(GOLDEN.read_text())
    assert golden["generator_version"] == GENERATOR_VERSION, (
        "GENERATOR_VERSION changed: regenerate tests/golden/embedded_seed0.json and document the change")
    pinned = golden["content_sha256"]
    out, cache = tmp_path / "export", str(tmp_path / "cache")
    got = build_digests(out, cache)
    assert set(got) == {f"{c}/{s}" for c in {k.split('/')[0] for k in pinned} for s in SPLITS}
    changed = sorted(k for k, v in pinned.items() if got.get(k) != v and not k.startswith(HARD))
    assert not changed, f"items changed without a GENERATOR_VERSION bump: {changed}"
    pinned_hard = golden["hard_items"]
    problems = unexplained(out, pinned_hard, cache)
    assert not problems, f"hard items changed without a GENERATOR_VERSION bump (not near-ties): {problems}"
    # the check can fail: a planted change (another cell for one distractor, a changed frame) is reported
    key = sorted(pinned_hard)[0]
    planted = json.loads(json.dumps(pinned_hard))
    planted[key]["distractors"][0]["cell"] = (planted[key]["distractors"][0]["cell"] + 4) % 9
    other = sorted(pinned_hard)[1]
    planted[other]["frame"] = "0" * 64
    assert unexplained(out, planted, cache) == [f"{key}: other distractors, not a near-tie", f"{other}: changed"]


if __name__ == "__main__":  # regenerate the pinned digests (a deliberate, versioned change)
    with tempfile.TemporaryDirectory() as tmp:
        digests = build_digests(Path(tmp) / "export", str(Path(tmp) / "cache"))
        items = hard_items(Path(tmp) / "export")
    data = {k: v for k, v in json.loads(GOLDEN.read_text()).items() if not k.endswith("_by_pillow")}
    data.update(generator_version=GENERATOR_VERSION, content_sha256=digests, hard_items=items)
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN} for generator {GENERATOR_VERSION}", file=sys.stderr)
