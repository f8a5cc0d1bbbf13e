"""Unknown orientation (#11): the ``_rot`` order configs, pieces turned by multiples of 90 degrees.

Every item is verified from its pixels (turning each piece back by the answer's rotation and placing it by the
answer's order rebuilds the photo), and the answer kind is followed through extraction, scoring, rewards, the
baselines, the human session and the CLI.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

import jigsaw_puzzles as jp
from fixtures.photos import make_photo
from jigsaw_puzzles import spec
from jigsaw_puzzles.baselines import random_answer, solve
from jigsaw_puzzles.baselines.placer import _turned, place_rotated, upright_score
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.scoring.extraction import AMBIGUOUS, INVALID, PARSED, classify_response
from jigsaw_puzzles.human.session import answer_text
from jigsaw_puzzles.training.rewards import adjacency_reward, exact_reward, format_reward, position_reward
from jigsaw_puzzles.errors import UserError
from jigsaw_puzzles.rng import item_rng
from jigsaw_puzzles.scoring.score import score
from jigsaw_puzzles.generation.tasks import Context, get_task
from jigsaw_puzzles.generation.tasks.order_restoration import MIN_CELL

GRIDS = [(1, 2), (2, 2), (2, 3), (3, 3), (4, 4)]
UPRIGHT = {0: None, 90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}


def _restore(pieces, order, rotations, rows, cols) -> Image.Image:
    """The picture an oriented answer describes: image ``order[j]`` turned clockwise by ``rotations[j]`` at j."""
    side = pieces[0].width
    sheet = Image.new("RGB", (side * cols, side * rows))
    for j, (k, r) in enumerate(zip(order, rotations)):
        piece = pieces[k - 1] if r == 0 else pieces[k - 1].transpose(UPRIGHT[r])
        sheet.paste(piece, ((j % cols) * side, (j // cols) * side))
    return sheet


def _upright_photo(seed: int, size=(480, 360)) -> Image.Image:
    """A synthetic photo with an up: brighter and bluer towards the top (a sky), darker below."""
    a = np.asarray(make_photo(seed, size), np.float32)
    t = np.linspace(1, 0, a.shape[0])[:, None, None]
    a = a * (1 - 0.45 * t) + 0.45 * t * np.array([175, 205, 250], np.float32)
    return Image.fromarray(np.clip(a * (0.65 + 0.35 * t), 0, 255).astype(np.uint8))


def _item(config, photo, slot=0, source="photo-1", seed=0):
    task = get_task(config)
    assert task.check(photo) is None
    return task.build(photo, item_rng(seed, task.family, source), slot, Context(source))


def test_names_specs_and_answers():
    assert spec.grid_config("order_generation", 2, 2, rotated=True) == "order_generation_2x2_rot"
    assert spec.grid_config("order_restoration", 3, 4, rotated=True) == "order_restoration_3x4_rot"
    og, orr = spec.get("order_generation_3x3_rot"), spec.get("order_restoration_3x3_rot")
    assert (og.kind, og.rotated, og.num_images, og.in_overall, og.family) == (spec.ORIENTED, True, 9, False,
                                                                              "order_3x3_rot")
    assert (orr.kind, orr.num_options, orr.family) == (spec.CHOICE, 4, og.family)  # one shuffle for both
    assert spec.get("order_generation_2x2_rot").chance == pytest.approx(1 / (24 * 4 ** 4))
    assert spec.get("order_restoration_1x2_rot").letters == "ABCD"  # 2! * 4**2 = 32 oriented orders
    for bad in ("order_generation_rot", "order_generation_2x2_rot_rot", "connection_verification_2x2_rot",
                "anomaly_detection_2x3_rot", "piece_localization_3x3_k2_rot"):
        assert not spec.is_config(bad)
    with pytest.raises(ValueError, match="no rotated variant"):
        spec.grid_config("anomaly_detection", 2, 2, rotated=True)
    ref = spec.format_oriented([2, 1, 4, 3], [90, 0, 270, 180])
    assert ref == "[(2, 90), (1, 0), (4, 270), (3, 180)]"
    assert spec.parse_reference(" [(2,90),(1, 0),\n(4,270),(3,180)] ", "order_generation_2x2_rot") == ref
    for wrong in ("[(2, 45), (1, 0), (4, 270), (3, 180)]", "[(2, 90), (2, 0), (4, 270), (3, 180)]",
                  "[2, 1, 4, 3]", "[(1, 0), (2, 0), (3, 0)]"):
        assert not spec.is_answer(wrong, "order_generation_2x2_rot")
        with pytest.raises(ValueError):
            spec.parse_reference(wrong, "order_generation_2x2_rot")


@pytest.mark.parametrize("rows,cols", GRIDS)
def test_every_rotated_item_is_verified_from_pixels(rows, cols):
    photo = make_photo(5, (480, 360))
    side = min(480 // cols, 360 // rows)
    truth = photo.crop((0, 0, side * cols, side * rows))  # square cells: the image cropped right and bottom
    og_config = spec.grid_config("order_generation", rows, cols, rotated=True)
    og = _item(og_config, photo)
    meta = og.metadata
    assert all(p.size == (side, side) for p in og.images) and len(og.images) == rows * cols
    assert og.answer == spec.format_oriented(meta["order"], meta["rotations"])
    assert np.array_equal(np.asarray(_restore(og.images, meta["order"], meta["rotations"], rows, cols)),
                          np.asarray(truth))
    assert "rotated by 0, 90, 180 or 270 degrees" in og.question and f"{rows * cols} pairs" in og.question
    orr = _item(spec.grid_config("order_restoration", rows, cols, rotated=True), photo, slot=2)
    assert [p.tobytes() for p in orr.images] == [p.tobytes() for p in og.images]  # the same shuffle and turns
    assert orr.answer == "C" and orr.options[2] == og.answer and len(set(orr.options)) == 4
    assert all(f"{spec.LETTERS[k]}. {o}" in orr.question for k, o in enumerate(orr.options))
    for opt in orr.options:
        assert spec.is_answer(opt, og_config)
    # the wrong options: the true order with other turns, another order with the true turns, then random
    first = spec.parse_oriented(orr.options[0])
    assert first[0] == meta["order"] and first[1] != meta["rotations"]
    if rows * cols > 2:
        second = spec.parse_oriented(orr.options[1])
        turns = dict(zip(meta["order"], meta["rotations"]))
        assert second[0] != meta["order"] and second[1] == [turns[i] for i in second[0]]


def test_rotations_are_drawn_per_piece_and_reproducible():
    photo = make_photo(8, (400, 400))
    seen = set()
    for source in range(12):
        item = _item("order_generation_3x3_rot", photo, source=f"s{source}")
        again = _item("order_generation_3x3_rot", photo, source=f"s{source}")
        assert item.answer == again.answer and [p.tobytes() for p in item.images] == [p.tobytes() for p in again.images]
        seen.update(item.metadata["rotations"])
    assert seen == set(spec.ROTATIONS)
    assert spec.get("order_generation_3x3_rot").family != spec.get("order_generation_3x3").family  # own randomness


def test_ambiguous_and_small_sources_are_refused_with_a_reason():
    check = get_task("order_generation_2x2_rot").check
    flat = Image.new("RGB", (400, 400), (90, 120, 150))
    assert "looks alike turned by 90 degrees" in check(flat)
    quad = np.asarray(make_photo(2, (100, 100)))  # one cell turned into the four corners: pieces alike turned
    board = np.zeros((200, 200, 3), np.uint8)
    board[:100, :100], board[:100, 100:] = quad, np.rot90(quad, -1)
    board[100:, :100], board[100:, 100:] = np.rot90(quad, 1), np.rot90(quad, 2)
    assert "looks like cell" in check(Image.fromarray(board))
    assert f"below the minimum of {MIN_CELL} px" in get_task("order_generation_6x6_rot").check(make_photo(1, (600, 150)))
    assert check(make_photo(3, (480, 360))) is None


def test_extraction_of_oriented_orders():
    cfg, ref = "order_generation_2x2_rot", "[(2, 90), (1, 0), (4, 270), (3, 180)]"
    parsed = {
        ref: "short",
        "[(2,90),(1,0),(4,270),(3,180)].": "short",
        "[[<image 2>, 90], [<image 1>, 0°], [<image 4>, 270 degrees], [<image 3>, 180]]": "short",
        "The pieces go like this.\nThe answer is [(2, 90), (1, 0), (4, 270), (3, 180)]": "form",
        "Not [(1, 0), (2, 0), (3, 0), (4, 0)]. Final answer: [(2, 90), (1, 0), (4, 270), (3, 180)]": "form",
        "\\boxed{[(2, 90), (1, 0), (4, 270), (3, 180)]}": "form",
        "<think>maybe [(1, 0), (2, 0), (3, 0), (4, 0)]</think>\n(2, 90), (1, 0), (4, 270), (3, 180)": "short",
        "Thinking about seams...\n(2, 90), (1, 0), (4, 270), (3, 180)": "bare",
    }
    for text, rule in parsed.items():
        ex = classify_response(text, cfg)
        assert (ex.answer, ex.status, ex.rule) == (ref, PARSED, rule), text
        assert ex.parts == {"order": (2, 1, 4, 3), "rotations": (90, 0, 270, 180)}
    for text in ("[2, 1, 4, 3]", "[(2, 45), (1, 0), (4, 270), (3, 180)]", "[(2, 90), (2, 0), (4, 270), (3, 180)]",
                 "[(2, 90), (1, 0), (4, 270)]", "", None, "<think>[(2, 90), (1, 0), (4, 270), (3, 180)]",
                 "x" * 1_000_000, "[(" * 300_000, "(1, 0) " * 200_000):
        assert classify_response(text, cfg).status == INVALID, str(text)[:40]
    assert classify_response("[(1, 0), (2, 0), (3, 0), (4, 0)] is wrong", cfg).status == AMBIGUOUS


def test_scoring_and_rewards_on_rotated_orders():
    cfg, ref = "order_generation_2x2_rot", "[(2, 90), (1, 0), (4, 270), (3, 180)]"
    half = "[(2, 90), (1, 0), (3, 270), (4, 180)]"  # two regions right (image and turn), two swapped
    turned = "[(2, 90), (1, 90), (4, 270), (3, 180)]"  # every image placed right, one turned wrong
    preds = [ref, half, turned, "no idea"]
    res = score(preds, [ref] * 4, cfg)[cfg]
    assert res["accuracy"] == 25.0 and res["chance"] == pytest.approx(100 / 6144)
    assert res["position_accuracy"] == pytest.approx(100 * (1 + 0.5 + 0.75) / 4)
    assert res["order_accuracy"] == pytest.approx(50.0)  # the reference and the one turned wrong
    # rotation accuracy follows each image: in `half` images 3 and 4 carry each other's turn
    assert res["rotation_accuracy"] == pytest.approx(100 * (1 + 0.5 + 0.75) / 4)
    kw = dict(answer=[ref] * 5, config=cfg)
    comps = preds + [f"The answer is {ref}"]  # right, but not in the requested format
    assert exact_reward(completions=comps, **kw) == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert position_reward(completions=comps, **kw) == [1.0, 0.5, 0.75, 0.0, 1.0]
    assert adjacency_reward(completions=comps, **kw) == [1.0, 0.25, 0.5, 0.0, 1.0]
    assert format_reward(completions=comps, **kw) == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert position_reward(completions=["garbage " * 200_000], **{**kw, "answer": [ref]}) == [0.0]


def test_baselines_and_human_answers():
    photo = _upright_photo(4)
    cfg = "order_generation_2x2_rot"
    item = _item(cfg, photo)
    row = {"id": f"{cfg}/x", "images": item.images, "options": item.options}
    guesses = {random_answer(row, cfg, seed=s) for s in range(20)}
    assert len(guesses) > 15 and all(spec.is_answer(g, cfg) for g in guesses)
    assert solve(row, cfg).text == item.answer  # a synthetic photo: seams and the upright cue are clear
    orr = _item("order_restoration_2x2_rot", photo, slot=1)
    assert solve({"id": "order_restoration_2x2_rot/x", "images": orr.images, "options": orr.options},
                 "order_restoration_2x2_rot").text == "B"
    assert answer_text(cfg, ([2, 1, 4, 3], [90, 0, 270, 180])) == "[(2, 90), (1, 0), (4, 270), (3, 180)]"
    for bad in (([2, 1, 4, 3], [90, 0, 270]), ([2, 1, 4, 3], [45, 0, 270, 180]), (None, None), ([1, 1, 2, 3], [0] * 4)):
        with pytest.raises(UserError):
            answer_text(cfg, bad)


def test_turning_a_layout_as_a_whole():
    layout = [4 * p for p in range(6)]  # a 2x3 layout of unturned pieces 0..5
    turned, rows, cols = _turned(layout, 2, 3, 1)
    assert (rows, cols) == (3, 2) and [m // 4 for m in turned] == [3, 0, 4, 1, 5, 2] and {m % 4 for m in turned} == {1}
    assert _turned(layout, 2, 3, 4) == (layout, 2, 3)
    sky = np.zeros((90, 90, 3), np.float32)
    sky[:30] = (150, 190, 240)  # bright blue above, dark textured ground below
    sky[60:] = np.random.default_rng(0).uniform(0, 120, (30, 90, 3))
    assert upright_score(sky) > max(upright_score(np.rot90(sky, k)) for k in (1, 2, 3))


@pytest.mark.slow
def test_solver_places_rotated_pieces_of_the_embedded_photos():
    """The weight-free solver on the embedded photos' 2x2 and 3x3 rotated items: far above chance (exact
    figures in docs/performance.md)."""
    for config, floor in (("order_generation_2x2_rot", 0.6), ("order_generation_3x3_rot", 0.5)):
        ds = jp.load_dataset(config, split="lite")
        right = sum(solve(row, config).text == row["answer"] for row in ds)
        assert right / len(ds) >= floor, (config, right, len(ds))
        meta = json.loads(ds[0]["metadata"])
        assert 0 <= meta["solver_margin"] <= 1 and meta["rotations"]


def test_place_rotated_rebuilds_a_photo():
    photo = _upright_photo(11, (360, 360))
    for rows, cols in ((3, 3), (2, 3)):
        item = _item(spec.grid_config("order_generation", rows, cols, rotated=True), photo)
        placed = place_rotated(item.images, rows, cols)
        got = spec.format_oriented(placed.order, placed.rotations)
        share = sum(a == b for a, b in zip(zip(placed.order, placed.rotations),
                                           zip(item.metadata["order"], item.metadata["rotations"])))
        assert share >= rows * cols - 2, (rows, cols, got, item.answer)


@pytest.mark.slow
def test_cli_eval_report_and_stream(tmp_path):
    out = tmp_path / "run"
    assert main(["eval", "--model", "random", "--split", "lite", "--configs", "order_generation_2x2_rot",
                 "order_restoration_2x2_rot", "--max-items", "4", "--out", str(out)]) == 0
    res = json.loads((out / "results.json").read_text())
    assert set(res["metrics"]) >= {"order_generation_2x2_rot", "order_restoration_2x2_rot"}
    assert "rotation_accuracy" in res["metrics"]["order_generation_2x2_rot"]
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0
    assert "OG 2x2 rot" in (tmp_path / "rep" / "report.md").read_text()
    from jigsaw_puzzles.cli import apply_grid, build_parser

    def configs(*argv):
        args = build_parser().parse_args(["build", "--out", str(tmp_path / "b"), *argv])
        apply_grid(args)
        return args.configs

    assert configs("--rotated") == ["order_restoration_2x2_rot", "order_generation_2x2_rot"]
    assert configs("--rotated", "--grid", "3x3", "--configs", "order_generation", "connection_verification") == [
        "order_generation_3x3_rot", "connection_verification_3x3"]
    assert main(["build", "--rotated", "--configs", "anomaly_detection", "--out", str(tmp_path / "b")]) == 2
    built = tmp_path / "built"
    assert main(["build", "--rotated", "--grid", "1x3", "--configs", "order_generation", "--out", str(built)]) == 0
    assert (built / "order_generation_1x3_rot").is_dir()
    ds = jp.load_dataset("order_generation", grid=(2, 3), rotated=True, split="lite")
    assert ds.info.config_name == "order_generation_2x3_rot"
    assert all(spec.is_answer(r["answer"], "order_generation_2x3_rot") for r in ds)
    stream = jp.training_stream("embedded", mixture={"order_generation_3x3_rot": 1.0, "order_restoration_2x2_rot": 1.0})
    rows = list(stream.take(6))
    assert {r["config"] for r in rows} == {"order_generation_3x3_rot", "order_restoration_2x2_rot"}
    for r in rows:
        assert spec.is_answer(r["answer"], r["config"])
        assert exact_reward(completions=[r["answer"]], answer=[r["answer"]], config=[r["config"]]) == [1.0]
