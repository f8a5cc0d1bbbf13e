"""Every config's answers, re-derived independently from metadata and pixels; balance; well-posedness."""

import json
from collections import Counter

import numpy as np
import pytest

from jigsaw_puzzles import CONFIGS, load_dataset
from jigsaw_puzzles.geometry import MASK_GREY, grid_boxes
from jigsaw_puzzles.spec import LETTERS, anomaly_answers, features, format_order
from jigsaw_puzzles.generation.sources import read_source
from jigsaw_puzzles.generation.curation import curate
from jigsaw_puzzles.generation.tasks.base import MIN_DISTINCT

# The hard config needs CLIP; it is built with a random-init model in test_hard.py.
PLAIN = [c for c in CONFIGS if c != "missing_piece_selection_hard"]


@pytest.fixture(scope="module")
def sources(photo_dir):
    return {s.source_id: read_source(s.path)[1] for s in curate(photo_dir).accepted}


@pytest.fixture(scope="module")
def built(photo_dir, cache_dir):
    return {c: load_dataset(c, split="test", source=photo_dir, cache_dir=cache_dir) for c in PLAIN}


def px(image):
    return np.asarray(image.convert("RGB"), dtype=np.int16)


def cells(image, n):
    return [px(image.crop(box)) for box in grid_boxes(image.size, n, n)]


def same(a, b):
    return a.shape == b.shape and np.array_equal(a, b)


def diff(a, b):
    return float(np.abs(a.astype(np.float32) - b.astype(np.float32)).mean())


def rows(built, config):
    for row in built[config]:
        yield row, json.loads(row["metadata"])


def test_one_item_per_source_and_schema(built, sources):
    for config in PLAIN:
        ds = built[config]
        assert sorted(ds["source_id"]) == sorted(sources)
        assert all(i == f"{config}/{s}" for i, s in zip(ds["id"], ds["source_id"]))
        assert set(ds.column_names) == set(features())  # spec.features(): the row schema


def test_missing_piece_selection(built, sources):
    for row, meta in rows(built, "missing_piece_selection_easy"):
        src = sources[row["source_id"]]
        left, top, right, bottom = meta["box"]
        assert meta["box"] == list(grid_boxes(src.size, 3, 3)[meta["region"]])
        blank = px(row["images"][0])
        assert (blank[top:bottom, left:right] == 255).all()
        outside = px(src).copy()
        outside[top:bottom, left:right] = 255
        assert same(blank, outside)
        truth = px(src.crop(meta["box"]))
        candidates = [px(im) for im in row["images"][1:]]
        matches = [i for i, c in enumerate(candidates) if same(c, truth)]
        assert matches == [LETTERS.index(row["answer"])]
        assert all(c.shape == truth.shape for c in candidates)
        for i, c in enumerate(candidates):
            if i != matches[0]:
                assert diff(c, truth) >= MIN_DISTINCT
        distractor_ids = [d["source_id"] for d in meta["distractors"]]
        assert row["source_id"] not in distractor_ids and len(set(distractor_ids)) == 3


@pytest.mark.parametrize("level,n,k", [("easy", 2, 2), ("hard", 3, 4)])
def test_piece_localization(built, sources, level, n, k):
    for row, meta in rows(built, f"piece_localization_{level}"):
        src = sources[row["source_id"]]
        board, piece = cells(row["images"][0], n), px(row["images"][1])
        original = cells(src, n)
        masked = meta["masked_cells"]
        assert len(masked) == k and masked == sorted(masked)
        assert row["options"] == list(LETTERS[:k])
        for i in range(n * n):
            if i in masked:  # grey mask (letter aside) hides the content
                grey_share = (board[i] == np.array(MASK_GREY)).all(axis=2).mean()
                assert grey_share > 0.5
            else:
                assert same(board[i], original[i])
        # the piece matches exactly one masked cell, the one labelled by the answer
        hits = [LETTERS[j] for j, cell in enumerate(masked) if same(original[cell], piece)]
        assert hits == [row["answer"]]


def test_connection_verification(built, sources):
    for row, meta in rows(built, "connection_verification"):
        original = cells(sources[row["source_id"]], 2)
        a, b = meta["cells"]
        assert same(px(row["images"][0]), original[a]) and same(px(row["images"][1]), original[b])
        ra, ca, rb, cb = a // 2, a % 2, b // 2, b % 2
        expected = "A" if ra == rb else "B" if ca == cb else "C"
        assert row["answer"] == expected


def test_anomaly_detection(built, sources):
    from PIL import Image
    ops = {"rotate_90": Image.Transpose.ROTATE_90, "rotate_180": Image.Transpose.ROTATE_180,
           "rotate_270": Image.Transpose.ROTATE_270, "flip_left_right": Image.Transpose.FLIP_LEFT_RIGHT,
           "flip_top_bottom": Image.Transpose.FLIP_TOP_BOTTOM}
    for row, meta in rows(built, "anomaly_detection"):
        src = sources[row["source_id"]]
        stitched = row["images"][0]
        assert row["options"] == anomaly_answers() and row["answer"] in anomaly_answers()
        if not meta["altered"]:
            assert same(px(stitched), px(src))
            assert row["answer"] == "Judgment: A\nError Position:\nError Type:"
            continue
        got, original = cells(stitched, 2), [src.crop(b) for b in grid_boxes(src.size, 2, 2)]
        changed = [i for i in range(4) if not same(got[i], px(original[i]))]
        assert changed == [meta["cell"]]
        i = changed[0]
        assert same(got[i], px(original[i].transpose(ops[meta["transform"]])))
        kind = "A" if meta["transform"].startswith("rotate") else "B"
        assert row["answer"] == f"Judgment: B\nError Position: {LETTERS[i]}\nError Type: {kind}"
        assert diff(got[i], px(original[i])) >= MIN_DISTINCT


@pytest.mark.parametrize("config", ["order_restoration", "order_generation"])
def test_order(built, sources, config):
    for row, meta in rows(built, config):
        original = cells(sources[row["source_id"]], 2)
        order = meta["order"]
        assert sorted(order) == [1, 2, 3, 4]
        for region, shown in enumerate(order):
            assert same(px(row["images"][shown - 1]), original[region])
        if config == "order_generation":
            assert row["answer"] == format_order(order) and row["options"] == []
        else:
            assert len(set(row["options"])) == 4
            assert row["options"][LETTERS.index(row["answer"])] == format_order(order)
            assert f"{row['answer']}. {format_order(order)}" in row["question"]


def test_order_generation_shares_the_shuffle(built):
    restoration = {r["source_id"]: json.loads(r["metadata"])["order"] for r in built["order_restoration"]}
    generation = {r["source_id"]: json.loads(r["metadata"])["order"] for r in built["order_generation"]}
    assert restoration == generation


@pytest.mark.parametrize("config", [c for c in PLAIN if c not in ("anomaly_detection", "order_generation")])
def test_answer_letters_balanced(photo_dir, cache_dir, config):
    """The ``balanced`` answer plan: every letter equally often (the default plan: tests/test_plan.py)."""
    ds = load_dataset(config, split="test", source=photo_dir, cache_dir=cache_dir, answer_plan="balanced")
    counts = Counter(ds["answer"])
    k = len(ds[0]["options"])
    assert set(counts) == set(LETTERS[:k])
    assert max(counts.values()) - min(counts.values()) <= 1


def test_anomaly_mix_and_positions(photo_dir, cache_dir):
    ds = load_dataset("anomaly_detection", split="test", source=photo_dir, cache_dir=cache_dir,
                      answer_plan="balanced")
    metas = [json.loads(m) for m in ds["metadata"]]
    kinds = Counter(m.get("type", "unchanged") for m in metas)
    assert kinds == {"unchanged": 8, "A": 4, "B": 4}  # 16 sources: exactly 2:1:1
    positions = Counter(m["position"] for m in metas if m["altered"])
    assert positions == {p: 2 for p in "ABCD"}


def test_prompts_are_the_papers(built):
    q = built["piece_localization_easy"][0]["question"]
    assert q.startswith("Question: <image 1> has two masked areas labeled A and B.")
    q = built["missing_piece_selection_easy"][0]["question"]
    assert "A. Candidate 1 (the second input image)\nB. Candidate 2 (the third input image)" in q
    q = built["connection_verification"][0]["question"]
    assert "A. The two images are adjacent horizontally (left-right relationship)" in q


def test_one_list_of_configs_everywhere():
    from jigsaw_puzzles.baselines.solver import CONFIGS as solver_configs
    from jigsaw_puzzles.reporting.report import TABLE_CONFIGS
    from jigsaw_puzzles.spec import CONFIGS as SPECS, PAPER_CONFIGS
    from jigsaw_puzzles.generation.tasks import TASKS

    assert tuple(CONFIGS) == tuple(SPECS) == tuple(TASKS) == tuple(solver_configs)
    assert TABLE_CONFIGS == PAPER_CONFIGS == tuple(CONFIGS[:7])


def test_anomaly_transforms_are_judged_as_mean_abs_diff_judges_them():
    """``valid_transforms`` compares arrays made once per image; its verdicts are those of ``geometry.mean_abs_diff``
    on every pair, on cells of photos and on symmetric or near-symmetric cells (hypothesis) where the threshold
    decides."""
    from hypothesis import given, settings, strategies as st
    from PIL import Image

    from jigsaw_puzzles import geometry
    from jigsaw_puzzles.generation.tasks.anomaly_detection import KINDS, MIN_DISTINCT, _arrays, valid_transforms

    def reference(cell, kind):
        other = "B" if kind == "A" else "A"
        others = [geometry.transform(cell, t) for t in KINDS[other][1] if geometry.shape_preserving(t, cell.size)]
        out = []
        for name in KINDS[kind][1]:
            if not geometry.shape_preserving(name, cell.size):
                continue
            changed = geometry.transform(cell, name)
            if geometry.mean_abs_diff(changed, cell) < MIN_DISTINCT:
                continue
            if any(geometry.mean_abs_diff(changed, o) < MIN_DISTINCT for o in others):
                continue
            out.append(name)
        return out

    @settings(max_examples=200, deadline=None)
    @given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1), st.floats(0, 12),
           st.sampled_from(["mirror", "turn", "none"]))
    def check(height, width, seed, noise, symmetry):
        rng = np.random.default_rng(seed)
        base = rng.integers(0, 256, (height, width, 3)).astype(np.float64)
        if symmetry == "mirror":
            base = (base + base[:, ::-1]) / 2
        elif symmetry == "turn":
            base = (base + base[::-1, ::-1]) / 2
        pixels = np.clip(base + rng.normal(0, noise, base.shape), 0, 255).astype(np.uint8)
        cell = Image.fromarray(pixels)
        arrays = _arrays(cell)  # as check_cells shares them between the two kinds
        for kind in KINDS:
            assert valid_transforms(cell, kind) == valid_transforms(cell, kind, arrays) == reference(cell, kind)

    check()
