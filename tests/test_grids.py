"""Grids beyond the paper: the order tasks on any R x C grid (#11 part 1, order family)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

import jigsaw_puzzles as jp
from fixtures.photos import make_photo
from jigsaw_puzzles import prompts, spec
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.scoring.extraction import classify_response
from jigsaw_puzzles.training.rewards import position_reward
from jigsaw_puzzles.rng import item_rng
from jigsaw_puzzles.generation.tasks import Context, get_task
from jigsaw_puzzles.generation.tasks.order_restoration import MIN_CELL

GRIDS = [(1, 2), (2, 1), (1, 3), (2, 3), (3, 3), (3, 4), (4, 4), (6, 6)]


def _assemble(pieces, order, rows, cols) -> Image.Image:
    w, h = pieces[0].size
    sheet = Image.new(pieces[0].mode, (w * cols, h * rows))
    for region, k in enumerate(order):
        sheet.paste(pieces[k - 1], ((region % cols) * w, (region // cols) * h))
    return sheet


def test_a_paper_config_on_its_own_grid_named_explicitly_is_an_alias():
    """#28.4: ``order_generation_2x2`` names the paper's 2x2 config (its spec, its items), as ``--grid 2x2`` and
    ``order_generation_2x2_rot`` do; the names stay the paper configs' own everywhere after."""
    aliases = {"order_generation_2x2": "order_generation", "order_restoration_2x2": "order_restoration",
               "connection_verification_2x2": "connection_verification", "anomaly_detection_2x2": "anomaly_detection",
               "missing_piece_selection_easy_3x3": "missing_piece_selection_easy",
               "missing_piece_selection_hard_3x3": "missing_piece_selection_hard",
               "piece_localization_3x3": "piece_localization_hard", "piece_localization_2x2_k2": "piece_localization_easy"}
    for alias, paper in aliases.items():
        assert spec.is_config(alias) and spec.get(alias) is spec.CONFIGS[paper] and spec.canonical(alias) == paper
    assert spec.canonical("order_generation_2x2_rot") == "order_generation_2x2_rot"  # a config of its own
    assert spec.is_answer("[2, 1, 4, 3]", "order_generation_2x2")
    from jigsaw_puzzles.generation.tasks import TASKS, get_task
    assert get_task("order_restoration_2x2") is TASKS["order_restoration"]
    assert jp.make_builder("order_generation_2x2").config.name == "order_generation"
    from jigsaw_puzzles.inference.data import select_configs as eval_configs
    assert eval_configs(["order_restoration_2x2", "order_restoration"], None)[0] == ["order_restoration"]


def test_grid_names_and_specs():
    assert spec.grid_config("order_generation", 3, 3) == "order_generation_3x3"
    assert spec.grid_config("order_generation", 2, 2) == "order_generation"  # the paper's own grid
    s = spec.get("order_restoration_2x3")
    assert (s.grid, s.num_images, s.num_options, s.in_overall, s.family) == ((2, 3), 6, 4, False, "order_2x3")
    assert spec.get("order_restoration_1x2").letters == "AB"  # only two orders exist
    assert spec.get("order_generation_3x3").chance == pytest.approx(1 / 362880)
    for bad in ("order_generation_9x9", "order_generation_1x1", "order_generation_02x2", "connection_verification_1x3",
                "missing_piece_selection_hard_4x4_k1", "order_generation_2x2_k4"):
        assert not spec.is_config(bad)
    assert spec.grid_config("missing_piece_selection_hard", 3, 3) == "missing_piece_selection_hard"  # the paper's
    hard = spec.get(spec.grid_config("missing_piece_selection_hard", 4, 4, 6))
    assert (hard.name, hard.family, hard.num_options, hard.num_images, hard.short) == (
        "missing_piece_selection_hard_4x4_k6", "missing_piece_selection_easy_4x4_k6", 6, 7, "MPS Hard 4x4 k6")
    assert spec.grid_config("piece_localization_easy", 3, 3) == "piece_localization_hard"  # 3x3, 4 masks
    assert spec.grid_config("piece_localization_easy", 3, 3, 6) == "piece_localization_3x3_k6"
    big = "order_generation_6x6"  # 36! orders are checked structurally, never listed
    ref = spec.format_order(list(range(36, 0, -1)))
    assert spec.parse_reference(ref.replace(" ", ""), big) == ref
    with pytest.raises(ValueError):
        spec.parse_reference(spec.format_order([1] * 36), big)
    assert spec.select_configs(["order_generation_3x3", "order_restoration"]) == ["order_restoration",
                                                                                 "order_generation_3x3"]


@pytest.mark.parametrize("rows,cols", GRIDS)
def test_every_grid_item_is_verified_from_pixels(rows, cols):
    photo = make_photo(3, (480, 360))
    og = get_task(spec.grid_config("order_generation", rows, cols))
    orr = get_task(spec.grid_config("order_restoration", rows, cols)) if rows * cols > 2 else None
    assert og.check(photo) is None
    rng = item_rng(0, og.family, "src")
    item = og.build(photo, rng, 0, Context("src"))
    order = json.loads(item.answer)
    assert len(item.images) == rows * cols and sorted(order) == list(range(1, rows * cols + 1))
    cw, ch = 480 // cols, 360 // rows
    truth = photo.crop((0, 0, cw * cols, ch * rows))
    assert np.array_equal(np.asarray(_assemble(item.images, order, rows, cols)), np.asarray(truth))
    assert prompts.grid_words(rows, cols) in item.question and f"<image {rows * cols}>" in item.question
    if orr is not None and (rows, cols) != (2, 2):
        for slot in range(orr.num_slots):
            r_item = orr.build(photo, item_rng(0, orr.family, "src"), slot, Context("src"))
            assert r_item.images == item.images  # one family: the same shuffle
            assert r_item.answer == spec.LETTERS[slot] and r_item.options[slot] == item.answer
            assert len(set(r_item.options)) == orr.num_slots  # distinct options


@pytest.mark.parametrize("rows,cols", [(2, 3), (3, 3), (4, 4), (3, 5)])
def test_connection_verification_on_a_grid_is_verified_from_pixels(rows, cols):
    photo = make_photo(5, (480, 360))
    config = spec.grid_config("connection_verification", rows, cols)
    task = get_task(config)
    cw, ch = 480 // cols, 360 // rows
    cells = [np.asarray(photo.crop((c * cw, r * ch, (c + 1) * cw, (r + 1) * ch)))
             for r in range(rows) for c in range(cols)]
    for slot in range(3):
        for source in ("a", "b", "c"):
            item = task.build(photo, item_rng(0, task.family, source), slot, Context(source))
            first, second = json.loads(json.dumps(item.metadata))["cells"]
            assert np.array_equal(np.asarray(item.images[0]), cells[first])
            assert np.array_equal(np.asarray(item.images[1]), cells[second])
            (r1, c1), (r2, c2) = divmod(first, cols), divmod(second, cols)
            relation = "horizontal" if r1 == r2 and abs(c1 - c2) == 1 else \
                "vertical" if c1 == c2 and abs(r1 - r2) == 1 else "not adjacent"
            assert item.metadata["relation"] == relation and item.answer == "ABC"[slot]
            assert relation == ("horizontal", "vertical", "not adjacent")[slot]
    assert f"{rows} rows and {cols} columns" in item.question


@pytest.mark.parametrize("name,rows,cols,k", [("piece_localization_2x3", 2, 3, 4), ("piece_localization_1x3", 1, 3, 2),
                                              ("piece_localization_4x4_k8", 4, 4, 8), ("piece_localization_3x5", 3, 5, 4)])
def test_piece_localization_on_a_grid_is_verified_from_pixels(name, rows, cols, k):
    photo = make_photo(7, (480, 360))
    task = get_task(name)
    assert task.num_slots == k and spec.get(name).letters == spec.LETTERS[:k] and task.check(photo) is None
    cw, ch = 480 // cols, 360 // rows
    cells = [np.asarray(photo.crop((c * cw, r * ch, (c + 1) * cw, (r + 1) * ch)))
             for r in range(rows) for c in range(cols)]
    for slot in range(k):
        item = task.build(photo, item_rng(0, task.family, "s"), slot, Context("s"))
        masked = item.metadata["masked_cells"]
        assert len(masked) == k == len(set(masked)) and masked == sorted(masked) and len(masked) < rows * cols
        assert item.answer == spec.LETTERS[slot] and item.metadata["labels"][item.answer] == masked[slot]
        assert np.array_equal(np.asarray(item.images[1]), cells[masked[slot]])  # the piece is that cell
        board = np.asarray(item.images[0])
        for i, cell in enumerate(cells):  # masked cells are grey boards with a letter, the others untouched
            box = board[(i // cols) * ch:(i // cols + 1) * ch, (i % cols) * cw:(i % cols + 1) * cw]
            assert np.array_equal(box, cell) == (i not in masked)
        assert prompts.grid_words(rows, cols) in item.question and f'"{spec.LETTERS[k - 1]}"' in item.question
    for bad in ("piece_localization_1x2", "piece_localization_2x2_k4"):
        assert not spec.is_config(bad)  # all cells masked
    # a paper config on its own grid is an alias of it (#28.4)
    assert spec.canonical("piece_localization_3x3") == "piece_localization_hard"
    assert spec.canonical("piece_localization_2x2_k2") == "piece_localization_easy"


@pytest.mark.parametrize("rows,cols", [(2, 3), (3, 3), (1, 4)])
def test_anomaly_detection_on_a_grid_is_verified_from_pixels(rows, cols):
    from jigsaw_puzzles import geometry

    photo = make_photo(11, (480, 360))
    config = spec.grid_config("anomaly_detection", rows, cols)
    task, n = get_task(config), rows * cols
    assert task.num_slots == 4 * n and spec.get(config).letters == "" and spec.get(config).num_options == n
    assert spec.get(config).chance == pytest.approx((1 / 2 + 1 / (4 * n)) / 2)
    cw, ch = 480 // cols, 360 // rows
    cells = [photo.crop((c * cw, r * ch, (c + 1) * cw, (r + 1) * ch)) for r in range(rows) for c in range(cols)]
    seen = set()
    for slot in range(task.num_slots):
        item = task.build(photo, item_rng(0, task.family, "s"), slot, Context("s"))
        stitched = np.asarray(item.images[0])
        assert len(item.options) == 1 + 2 * n and item.answer in item.options
        assert classify_response(item.answer, config).answer == item.answer
        for i, cell in enumerate(cells):
            box = stitched[(i // cols) * ch:(i // cols + 1) * ch, (i % cols) * cw:(i % cols + 1) * cw]
            meta = item.metadata
            want = geometry.transform(cell, meta["transform"]) if meta["altered"] and meta["cell"] == i else cell
            assert np.array_equal(box, np.asarray(want))
        if item.metadata["altered"]:
            assert item.answer == spec.format_anomaly(spec.LETTERS[item.metadata["cell"]], item.metadata["type"])
            seen.add((item.metadata["position"], item.metadata["type"]))
        else:
            assert item.answer == spec.format_anomaly() and slot % 2 == 0
    assert len(seen) == 2 * n  # every (position, kind) pair in one cycle of slots
    last = spec.LETTERS[n - 1]
    assert f"Error Position: {'/'.join(spec.LETTERS[:n])}" in item.question and f"{last}. Row {rows}" in item.question
    beyond = spec.LETTERS[n]
    assert classify_response(f"Judgment: B\nError Position: {beyond}\nError Type: A", config).status == "invalid"
    assert classify_response(f"Judgment: B\nError Position: {last}\nError Type: A", config).status == "parsed"
    assert classify_response("Judgment: B\nError Position: E\nError Type: A", "anomaly_detection").status == "invalid"
    assert not spec.is_config("anomaly_detection_6x6")  # 36 cells: more than 26 letters


@pytest.mark.parametrize("rows,cols", [(2, 2), (3, 3), (2, 4)])
def test_eight_direction_connection_verification_is_verified_from_pixels(rows, cols):
    from jigsaw_puzzles.generation.tasks.connection_verification import STEPS

    config = spec.grid_config("connection_verification", rows, cols, eight=True)
    assert config == f"connection_verification_{rows}x{cols}_8dir" and spec.get(config).letters == "ABCDEFGH"
    photo = make_photo(13, (480, 360))
    task = get_task(config)
    cw, ch = 480 // cols, 360 // rows
    cells = [np.asarray(photo.crop((c * cw, r * ch, (c + 1) * cw, (r + 1) * ch)))
             for r in range(rows) for c in range(cols)]
    for slot, direction in enumerate(spec.DIRECTIONS):
        for source in ("a", "b"):
            item = task.build(photo, item_rng(0, task.family, source), slot, Context(source))
            first, second = item.metadata["cells"]
            (r1, c1), (r2, c2) = divmod(first, cols), divmod(second, cols)
            assert (r2 - r1, c2 - c1) == STEPS[direction] and item.metadata["relation"] == direction
            assert np.array_equal(np.asarray(item.images[0]), cells[first])
            assert np.array_equal(np.asarray(item.images[1]), cells[second])
            assert item.answer == spec.LETTERS[slot] and direction.split()[-1] in item.options[slot]
    for bad in ("connection_verification_1x3_8dir", "order_generation_3x3_8dir"):
        assert not spec.is_config(bad)


@pytest.mark.slow
def test_the_solver_reads_eight_directions_above_chance():
    from jigsaw_puzzles.baselines import solve

    ds = jp.load_dataset("connection_verification_3x3_8dir", split="test")
    right = sum(solve(r, "connection_verification_3x3_8dir").text == r["answer"] for r in ds)
    assert right / len(ds) >= 0.6  # chance 1/8; edges are read from seams, diagonals from touching corners


@pytest.mark.parametrize("name,rows,cols,k", [("missing_piece_selection_easy_2x2", 2, 2, 4),
                                              ("missing_piece_selection_easy_4x4", 4, 4, 4),
                                              ("missing_piece_selection_easy_2x3_k6", 2, 3, 6)])
def test_missing_piece_on_a_grid_is_verified_from_pixels(name, rows, cols, k):
    photos = {f"s{i}": make_photo(20 + i, (480, 360)) for i in range(k + 2)}
    task = get_task(name)
    assert task.num_slots == k and spec.get(name).num_images == k + 1
    cw, ch = 480 // cols, 360 // rows
    for slot in range(k):
        ctx = Context("s0", pool_ids=sorted(photos), load=photos.__getitem__)
        item = task.build(photos["s0"], item_rng(0, task.family, "s0"), slot, ctx)
        region = item.metadata["region"]
        r, c = divmod(region, cols)
        box = (c * cw, r * ch, (c + 1) * cw, (r + 1) * ch)
        assert item.metadata["box"] == list(box) and len(item.images) == k + 1 and item.answer == spec.LETTERS[slot]
        blank = np.asarray(item.images[0])
        assert (blank[box[1]:box[3], box[0]:box[2]] == 255).all()
        assert np.array_equal(np.asarray(item.images[1 + slot]), np.asarray(photos["s0"].crop(box)))
        others = [d for d in item.metadata["distractors"]]
        assert len(others) == k - 1 and "s0" not in {d["source_id"] for d in others}
        for j, d in enumerate(others):
            dr, dc = divmod(d["cell"], cols)
            want = photos[d["source_id"]].crop((dc * cw, dr * ch, (dc + 1) * cw, (dr + 1) * ch))
            shown = item.images[1 + j + (j >= slot)]
            assert np.array_equal(np.asarray(shown), np.asarray(want))
        assert f"<image {k + 1}>" in item.question and prompts.grid_words(rows, cols) in item.question
    assert spec.grid_config("missing_piece_selection_easy", 3, 3) == "missing_piece_selection_easy"


def test_small_cells_and_repeated_cells_are_refused_with_a_reason():
    task = get_task("order_generation_8x8")
    reason = task.check(make_photo(1, (200, 160)))
    assert reason and f"minimum of {MIN_CELL} px" in reason
    flat = Image.new("RGB", (480, 360), (90, 120, 60))
    assert "near-identical" in get_task("order_generation_3x3").check(flat)


def test_extraction_reads_orders_of_any_length():
    c9 = "order_generation_3x3"
    assert classify_response("[5, 3, 2, 6, 7, 4, 8, 1, 9]", c9).answer == "[5, 3, 2, 6, 7, 4, 8, 1, 9]"
    assert classify_response("5 3 2 6 7 4 8 1 9", c9).answer == "[5, 3, 2, 6, 7, 4, 8, 1, 9]"
    cot = "Maybe [1, 2, 3, 4, 5, 6, 7, 8, 9]? No, the sky is in 5.\nFinal answer: [5, 3, 2, 6, 7, 4, 8, 1, 9]"
    assert classify_response(cot, c9).answer == "[5, 3, 2, 6, 7, 4, 8, 1, 9]"
    assert classify_response("[5, 3, 2, 6]", c9).status == "invalid"  # four of nine
    assert classify_response("[2, 3, 1, 4]", "order_generation").answer == "[2, 3, 1, 4]"  # the paper's, as ever
    c16 = "order_generation_4x4"
    order = spec.format_order([16, *range(1, 16)])
    assert classify_response(f"The order is {order}.", c16).answer == order
    assert classify_response("16 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", c16).status != "parsed"  # bare 2-digit: unread
    ref = spec.format_order(range(1, 10))
    half = spec.format_order([1, 2, 3, 4, 5, 9, 7, 8, 6])  # 7 of 9 in place
    assert position_reward(completions=[half], answer=[ref], config=[c9]) == [pytest.approx(7 / 9)]


@pytest.mark.slow
def test_build_eval_and_report_a_grid(tmp_path, capsys):
    ds = jp.load_dataset("order_generation", split="lite", grid=(3, 3))
    assert ds[0]["id"].startswith("order_generation_3x3/") and len(ds[0]["images"]) == 9
    meta = [json.loads(r["metadata"]) for r in ds]
    assert all(m["grid"] == [3, 3] and 0 <= m["solver_margin"] <= 1 for m in meta)  # a difficulty signal
    assert len({m["solver_margin"] for m in meta}) > 1
    assert "solver_margin" not in json.loads(jp.load_dataset("order_generation", split="lite")[0]["metadata"])
    ors = jp.load_dataset("order_restoration_3x3", split="lite")
    assert [json.loads(r["metadata"])["order"] for r in ors] == [json.loads(r["answer"]) for r in ds]
    out = tmp_path / "run"
    assert main(["eval", "--model", "solver", "--split", "lite", "--grid", "3x3", "--out", str(out),
                 "--no-progress"]) == 0
    res = json.loads((out / "results.json").read_text())
    # every grid-capable task on 3x3; PL with 4 masks and MPS easy with 4 candidates on 3x3 are paper configs
    assert set(res["metrics"]) - {"overall"} == {"order_restoration_3x3", "order_generation_3x3",
                                                 "connection_verification_3x3", "piece_localization_hard",
                                                 "anomaly_detection_3x3", "missing_piece_selection_easy"}
    assert res["metrics"]["overall"]["n_columns"] == 2  # Overall counts the paper configs alone
    assert res["metrics"]["connection_verification_3x3"]["p_value"] < 0.01
    assert res["metrics"]["order_generation_3x3"]["accuracy"] >= 75  # solvable from pixels
    assert res["metrics"]["order_generation_3x3"]["p_value"] < 1e-6
    assert "OG 3x3" in capsys.readouterr().out
    ad = tmp_path / "ad"
    assert main(["eval", "--model", "solver", "--split", "lite", "--configs", "anomaly_detection", "--grid", "2x3",
                 "--out", str(ad), "--no-progress"]) == 0
    ad_res = json.loads((ad / "results.json").read_text())["metrics"]["anomaly_detection_2x3"]
    assert ad_res["accuracy"] >= 75 and ad_res["p_value"] < 1e-3
    assert main(["build", "--grid", "9x9", "--out", str(tmp_path / "x")]) == 2
    assert main(["build", "--configs", "connection_verification", "--grid", "1x4", "--out", str(tmp_path / "x")]) == 2
    stream = jp.training_stream("embedded", mixture={"order_generation_3x3": 1, "order_restoration_2x3": 1}, passes=1)
    rows = list(stream.take(6))
    assert {len(r["images"]) for r in rows} <= {6, 9} and all(r["config"].endswith(("3x3", "2x3")) for r in rows)
    assert not any("solver_margin" in json.loads(r["metadata"]) for r in rows)  # the stream skips it: speed
