"""One item of every task's tab config, and of its controls, is pinned on the embedded photos (#34).

The digest covers the item's question, options, answer, metadata and the PNG bytes of every image, as the builder
encodes them. Each config's item is the one of a fixed source and slot (an altered slot for Anomaly Detection),
recorded beside its digest, in a file of its own (``tabs_seed0.json``). One set of pins holds for every Pillow the
package allows: Missing Piece Selection resamples a distractor of another size with ``geometry.resize``, the same on
every Pillow (``benchmarks/pillow_versions.py`` runs this test under each major).

The items must be byte-identical twice in one process and in a fresh process. A deliberate change of these
items is a versioned change (``spec.GENERATOR_VERSION``, docs/tasks.md); regenerate the pins with
``python tests/test_golden_tabs.py``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden" / "tabs_seed0.json"
SEED = 0
CONFIGS = ["missing_piece_selection_easy_tabs", "missing_piece_selection_easy_tabs_own",
           "missing_piece_selection_easy_tabs_silhouette", "piece_localization_easy_tabs",
           "piece_localization_hard_tabs", "piece_localization_hard_tabs_silhouette", "connection_verification_tabs",
           "connection_verification_tabs_silhouette", "connection_verification_3x3_8dir_tabs",
           "anomaly_detection_tabs", "anomaly_detection_tabs_silhouette", "order_restoration_tabs",
           "order_generation_tabs", "order_generation_3x3_tabs_silhouette", "order_generation_3x3_rot_tabs"]


def _pool():
    from jigsaw_puzzles.generation.sources import load_normalised
    from jigsaw_puzzles.generation.curation import curate

    paths = {s.source_id: s.path for s in curate(None).accepted}
    return sorted(paths), (lambda sid: load_normalised(paths[sid]))


def item_digest(config: str, source_id: str, slot: int) -> str:
    from jigsaw_puzzles.generation.tasks import Context, get_task
    from jigsaw_puzzles.geometry import encode_png
    from jigsaw_puzzles.rng import item_rng

    ids, load = _pool()
    task = get_task(config)
    item = task.build(load(source_id), item_rng(SEED, task.family, source_id), slot,
                      Context(source_id, pool_ids=tuple(ids), load=load))
    h = hashlib.sha256()
    for part in (item.question, json.dumps(item.options), item.answer, json.dumps(item.metadata, sort_keys=True)):
        h.update(part.encode())
    for image in item.images:
        h.update(hashlib.sha256(encode_png(image)).digest())
    return h.hexdigest()


def choose(config: str) -> tuple[str, int]:
    """The pinned item of ``config``: the first source (by id) the task takes, at slot 1; for Missing Piece
    Selection the first whose distractors' photos have its own size (no resampling), if there is one."""
    from jigsaw_puzzles.generation.tasks import Context, TaskError, get_task
    from jigsaw_puzzles.rng import item_rng

    ids, load = _pool()
    task = get_task(config)
    usable = []
    for sid in ids:
        if task.check(load(sid)):
            continue
        try:
            item = task.build(load(sid), item_rng(SEED, task.family, sid), 1, Context(sid, pool_ids=tuple(ids),
                                                                                      load=load))
        except TaskError:
            continue
        usable.append(sid)
        if all(load(d["source_id"]).size == load(sid).size for d in item.metadata.get("distractors", [])):
            return sid, 1
    return usable[0], 1


@pytest.mark.slow
def test_one_item_per_tab_config_is_pinned():
    pinned = json.loads(GOLDEN.read_text())["items"]
    assert sorted(pinned) == sorted(CONFIGS)
    got = {c: item_digest(c, pinned[c]["source_id"], pinned[c]["slot"]) for c in CONFIGS}
    changed = sorted(c for c in CONFIGS if got[c] != pinned[c]["sha256"])
    assert not changed, f"tab items changed without a GENERATOR_VERSION bump: {changed}"
    again = {c: item_digest(c, pinned[c]["source_id"], pinned[c]["slot"]) for c in CONFIGS[:4]}
    assert again == {c: got[c] for c in again}  # twice in one process
    code = ("import json, sys; sys.path.insert(0, %r); from test_golden_tabs import item_digest; "
            "print(json.dumps({c: item_digest(c, s, k) for c, s, k in %r}))"
            % (str(Path(__file__).parent), [(c, pinned[c]["source_id"], pinned[c]["slot"]) for c in CONFIGS]))
    fresh = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                      timeout=600).stdout)
    assert fresh == got  # and in a fresh process


if __name__ == "__main__":  # regenerate the pins (a deliberate, versioned change)
    data = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    items = {}
    for config in CONFIGS:
        sid, slot = choose(config)
        items[config] = {"source_id": sid, "slot": slot, "sha256": item_digest(config, sid, slot)}
        print(config, sid, slot, file=sys.stderr)
    data = {"seed": SEED, "source": "embedded", "items": items}
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
