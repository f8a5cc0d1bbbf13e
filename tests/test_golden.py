"""Every config's output on the embedded photos is pinned: a change of any item is a versioned change.

The digest covers every row's id, source id, question, options, answer, metadata and the
bytes of every PNG (parquet-writer independent). When the generator changes items on
purpose, bump ``spec.GENERATOR_VERSION``, say what changed in docs/tasks.md, and
regenerate ``tests/golden/embedded_seed0.json`` (``python tests/test_golden.py``).

Pillow's Lanczos resampling changed between Pillow 12 and 13 (Missing Piece Selection resizes a
distractor cell of another shape; any photo larger than 768 px is resized too), so the digests are
pinned per Pillow major version (``content_sha256_by_pillow``); docs/tasks.md says so.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import PIL

from jigsaw_puzzles.spec import GENERATOR_VERSION, SPLITS

GOLDEN = Path(__file__).parent / "golden" / "embedded_seed0.json"
PILLOW = PIL.__version__.split(".")[0]


def content_digest(path: Path) -> str:
    h = hashlib.sha256()
    for row in pq.read_table(path).to_pylist():
        for key in ("id", "source_id", "question", "answer", "metadata"):
            h.update(repr(row[key]).encode())
        h.update(repr(row["options"]).encode())
        for image in row["images"]:
            h.update(hashlib.sha256(image["bytes"]).digest())
    return h.hexdigest()


def build_digests(out: Path, cache: str) -> dict[str, str]:
    from jigsaw_puzzles.publishing.export import build

    golden = json.loads(GOLDEN.read_text())
    build(out, source=None, seed=golden["seed"], num_proc=1, cache_dir=cache, clip_cache_dir=cache,
          **golden["clip"])
    return {f"{p.parent.name}/{p.name.split('-')[0]}": content_digest(p) for p in sorted(out.rglob("*.parquet"))}


@pytest.mark.slow
def test_every_config_matches_the_pinned_items(tmp_path):
    pytest.importorskip("open_clip")
    golden = json.loads(GOLDEN.read_text())
    assert golden["generator_version"] == GENERATOR_VERSION, (
        "GENERATOR_VERSION changed: regenerate tests/golden/embedded_seed0.json and document the change")
    pinned = golden["content_sha256_by_pillow"].get(PILLOW)
    if pinned is None:
        pytest.skip(f"no digests pinned for Pillow {PILLOW} (pinned: {sorted(golden['content_sha256_by_pillow'])}); "
                    "pin them with `python tests/test_golden.py` on an unchanged generator")
    got = build_digests(tmp_path / "export", str(tmp_path / "cache"))
    assert set(got) == {f"{c}/{s}" for c in {k.split('/')[0] for k in pinned} for s in SPLITS}
    changed = sorted(k for k, v in pinned.items() if got.get(k) != v)
    assert not changed, f"items changed without a GENERATOR_VERSION bump: {changed}"


if __name__ == "__main__":  # regenerate the pinned digests (a deliberate, versioned change)
    with tempfile.TemporaryDirectory() as tmp:
        digests = build_digests(Path(tmp) / "export", str(Path(tmp) / "cache"))
    data = json.loads(GOLDEN.read_text())
    if data.get("generator_version") != GENERATOR_VERSION:  # a new generator: the old pins are void
        data["content_sha256_by_pillow"] = {}
    data["generator_version"] = GENERATOR_VERSION
    data.setdefault("content_sha256_by_pillow", {})[PILLOW] = digests
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN} for generator {GENERATOR_VERSION}", file=sys.stderr)
