"""Interlocking II (#45): content under a jigsaw cut (``_tabs_content``), whose outlines say nothing of the answer.

* the names: every config but ``_rot`` has its content control, one family with its straight config, read by the
  answer reader as that config;
* the cut (generation/tabs/regular.py), proved on generated grids (hypothesis): the pieces tile the grid exactly,
  each piece shows exactly its outline (an independent point-in-polygon count, matplotlib), every piece of the
  congruent cut is the same array, and a checkerboard piece turned or mirrored is itself, bit for bit;
* the items: for every task, what a shape-only reader sees (every image's alpha channel, and where the masks and
  their cut lines are) is the same for every answer of an item, and, but for Anomaly Detection's two checkerboard
  outlines, the same for every piece; each item's own rules (the altered piece, the masks, the hole);
* the baselines (slow): the shape baseline (``--model shape``) inside the chance interval at n >= 200 per content
  config, on the embedded photos and on generated ones, at 100% on ``_tabs`` where the outlines decide; the solver,
  which reads the content, near 100%; the training stream, the curriculum and the interactive jigsaw take them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from matplotlib.path import Path as MplPath

from fixtures.photos import make_photo
from jigsaw_puzzles import spec
from jigsaw_puzzles.baselines import random_answer, shape_answer, solve
from jigsaw_puzzles.geometry import MIN_TAB_CELL, MIRRORS, ROTATIONS, shape_preserving
from jigsaw_puzzles.generation.tabs import Edge, RegularCut, piece, transformed
from jigsaw_puzzles.generation.tabs.cut import _HI, _LO, SUPERSAMPLE
from jigsaw_puzzles.generation.tabs.regular import TAB, content_cells
from jigsaw_puzzles.generation.tasks import Context, TaskError, get_task
from jigsaw_puzzles.rng import item_rng

SIZE = (480, 360)
POOL = [f"p{k}" for k in range(8)]
PHOTOS = {sid: make_photo(70 + k, SIZE) for k, sid in enumerate(POOL)}
#: Every task's content config, on the paper's grids and beyond.
CONTENT = ["missing_piece_selection_easy", "piece_localization_easy", "piece_localization_hard", "connection_verification",
           "anomaly_detection", "order_restoration", "order_generation", "order_generation_3x3", "order_restoration_2x3",
           "connection_verification_3x3_8dir", "piece_localization_4x4_k6", "anomaly_detection_3x3",
           "missing_piece_selection_easy_2x2_k6"]


def build(config: str, sid: str = "p0", slot: int = 0, photos=PHOTOS, seed: int = 0):
    task = get_task(config)
    return task.build(photos[sid], item_rng(seed, task.family, sid), slot,
                      Context(sid, pool_ids=sorted(photos), load=photos.__getitem__))


def shape_view(item) -> list[np.ndarray]:
    """What a shape-only reader sees of an item: every image's alpha channel, and where the generator's masks (their
    grey and their cut lines) are."""
    out = []
    for image in item.images:
        arr = np.asarray(image.convert("RGBA"))
        out.append(arr[..., 3])
        out.append(((arr[..., :3] == (160, 160, 160)).all(-1) | (arr[..., :3] == (40, 40, 40)).all(-1)) & (arr[..., 3] > 0))
    return out


# ----------------------------------------------------------------------------------------------- names
def test_every_config_but_rot_has_a_content_control_read_as_its_straight_config():
    from jigsaw_puzzles.scoring.extraction import classify_response

    for name in list(spec.CONFIGS) + ["order_generation_3x3", "connection_verification_3x3_8dir",
                                      "piece_localization_4x4_k6", "missing_piece_selection_hard_2x2_k6"]:
        straight, content = spec.get(name), spec.get(name + "_tabs_content")
        assert (content.cut, content.family, content.kind, content.num_options, content.grid, content.chance) == (
            "content", straight.family, straight.kind, straight.num_options, straight.grid, straight.chance)
        assert not content.in_overall and content.title.endswith("[tabs, content only]")
        assert spec.config_from_id(f"{content.name}/abc") == content.name
    assert spec.canonical("order_generation_2x2_tabs_content") == "order_generation_tabs_content"
    for bad in ("order_generation_3x3_rot_tabs_content", "missing_piece_selection_easy_tabs_own_content",
                "order_generation_tabs_content_silhouette", "order_generation_content", "order_generation_tabs_contents"):
        assert not spec.is_config(bad), bad
    with pytest.raises(ValueError, match="no content control"):
        spec.get("order_restoration_2x2_rot_tabs_content")
    for text in ("The two pieces are horizontal.", "B", "Answer: not adjacent"):
        assert classify_response(text, "connection_verification_tabs_content") == \
            classify_response(text, "connection_verification")


# ----------------------------------------------------------------------------------------------- the cut
def outline(cut: RegularCut, k: int) -> np.ndarray:
    """Piece ``k``'s outline on its canvas, clockwise from its cell's top-left corner, from the canonical tab's
    curve (:class:`Edge`) on each side: out of the piece on a tab side, into it on a blank side."""
    (cw, ch), m = cut.cell, cut.margin
    side = min(cw, ch)
    sizes = {key: v * side for key, v in TAB.items()}
    x0, y0, x1, y1 = m, m, m + cw, m + ch
    tabs = {s: cut.kind(k) == 0 and (cut.pattern == "checkerboard" or s in ("right", "bottom"))
            for s in ("top", "right", "bottom", "left")}

    def curve(vertical: bool, origin, positive: bool) -> list:
        edge = Edge(0, 1, vertical, positive, centre=(ch if vertical else cw) / 2, skew=0.0, **sizes)
        return list(edge.curve(origin))
    pts = [(x0, y0)] + curve(False, (x0, y0), not tabs["top"]) + [(x1, y0)]
    pts += curve(True, (x1, y0), tabs["right"]) + [(x1, y1)]
    pts += curve(False, (x0, y1), tabs["bottom"])[::-1] + [(x0, y1)]
    pts += curve(True, (x0, y0), not tabs["left"])[::-1]
    return np.array(pts, np.float64)


def samples_inside(cut: RegularCut, k: int) -> np.ndarray:
    """How many of each canvas pixel's 4 x 4 samples lie inside piece ``k``'s outline (matplotlib)."""
    (cw, ch), m, s = cut.cell, cut.margin, SUPERSAMPLE
    xs = (np.arange((cw + 2 * m) * s) + 0.5) / s
    ys = (np.arange((ch + 2 * m) * s) + 0.5) / s
    gx, gy = np.meshgrid(xs, ys)
    inside = MplPath(outline(cut, k)).contains_points(np.stack([gx.ravel(), gy.ravel()], axis=1))
    return inside.reshape(ch + 2 * m, s, cw + 2 * m, s).sum(axis=(1, 3))


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 6), cols=st.integers(1, 6), cw=st.integers(MIN_TAB_CELL, 96),
       ch=st.integers(MIN_TAB_CELL, 96), square=st.booleans(), pattern=st.sampled_from(["congruent", "checkerboard"]))
def test_a_regular_cut_tiles_the_grid_and_says_nothing_of_where_a_piece_belongs(rows, cols, cw, ch, square, pattern):
    ch = cw if square else ch
    cut = RegularCut(rows, cols, (cw, ch), pattern)
    alphas = cut.alphas()
    for k, alpha in enumerate(alphas):  # one outline per kind: every congruent piece, every checkerboard pair
        assert np.array_equal(alpha, alphas[0] if cut.kind(k) == 0 else cut.alpha(1))
    for kind in {cut.kind(k) for k in range(rows * cols)}:
        k = next(k for k in range(rows * cols) if cut.kind(k) == kind)
        counts, alpha = samples_inside(cut, k), alphas[k].astype(np.int64)
        assert np.array_equal(alpha > 0, counts > 0) and np.array_equal(alpha == 255, counts == 16)
        assert np.isin(alpha, np.concatenate([_LO[counts], _HI[counts]])).all()
        assert ((alpha == _LO[counts]) | (alpha == _HI[counts])).all()
        if pattern == "checkerboard":  # a turned or mirrored piece is itself
            for name in ROTATIONS + MIRRORS:
                if shape_preserving(name, (cw, ch)):
                    assert np.array_equal(transformed(alphas[k], name), alphas[k]), name
    # the cut of a grid two cells larger each way: its inner pieces laid in place sum to 255 over the inner grid
    big = RegularCut(rows + 2, cols + 2, (cw, ch), pattern)
    total = np.zeros(big.size[::-1], np.int64)
    for k in range((rows + 2) * (cols + 2)):
        left, top, right, bottom = big.canvas_box(k)
        total[top:bottom, left:right] += big.alpha(k)
    m = big.margin
    assert (total[m + ch:m + ch * (rows + 1), m + cw:m + cw * (cols + 1)] == 255).all() and total.max() == 255
    # and the pieces laid back give the photo, byte for byte, wherever they cover it
    photo = np.asarray(make_photo(rows * 10 + cols, cut.size))
    back, weight = np.zeros(photo.shape, np.int64), np.zeros(photo.shape[:2], np.int64)
    for k in range(rows * cols):
        left, top, right, bottom = cut.canvas_box(k)
        canvas = piece(photo, cut, k).astype(np.int64)
        back[top:bottom, left:right] += canvas[..., :3] * canvas[..., 3:]
        weight[top:bottom, left:right] += canvas[..., 3]
    assert np.array_equal(weight, cut.board_alpha())
    full = weight == 255
    assert np.array_equal(back[full] // 255, photo[full].astype(np.int64)) and (back[full] % 255 == 0).all()


def test_content_cells_leave_a_ring_for_the_outer_tabs_or_give_the_reason():
    for width, height, rows, cols in ((480, 360, 2, 2), (768, 512, 3, 3), (420, 410, 8, 8), (333, 250, 2, 5)):
        cell = content_cells(width, height, rows, cols)
        cut = RegularCut(rows, cols, cell, "congruent")
        assert cut.size[0] <= width and cut.size[1] <= height and cut.margin >= np.ceil(0.22 * min(cell))
        bigger = RegularCut(rows, cols, (cell[0] + 1, cell[1] + 1), "congruent")  # no larger cells fit
        assert bigger.size[0] > width or bigger.size[1] > height
    assert content_cells(400, 300, 8, 8) is None
    task = get_task("order_generation_8x8_tabs_content")
    assert "below the 48 px" in task.check(make_photo(1, (400, 300)))
    with pytest.raises(TaskError, match="below the 48 px"):
        task.build(make_photo(1, (400, 300)), item_rng(0, task.family, "x"), 0, Context("x"))


# ----------------------------------------------------------------------------------------------- the items
@pytest.mark.slow
@pytest.mark.parametrize("straight", CONTENT)
def test_what_the_outlines_show_is_the_same_for_every_answer(straight):
    """Every slot of the answer plan (every letter, every Anomaly Detection position and type) gives the same
    alpha channels and the same mask geometry; the pieces (and candidates) of an item all have one outline."""
    config = straight + "_tabs_content"
    task = get_task(config)
    family = spec.get(config).family
    for sid in POOL[:3]:
        items = [build(config, sid, slot) for slot in range(task.num_slots)]
        assert len({item.answer for item in items}) == (1 if task.num_slots == 1 else
                                                        len({a for a in spec.answer_space(config)}
                                                            if family.startswith("anomaly") else items[0].options))
        views = [shape_view(item) for item in items]
        assert all(all(np.array_equal(a, b) for a, b in zip(views[0], v)) for v in views[1:]), config
        meta = items[0].metadata
        assert meta["cut"] == "content" and meta["cut_redraws"] == 0 and "tabs" not in meta
        pieces = items[0].images if family.startswith(("order", "connection")) else items[0].images[1:]
        if not family.startswith("anomaly"):
            alphas = [np.asarray(im)[..., 3] for im in pieces]
            assert all(np.array_equal(a, alphas[0]) for a in alphas), config
        assert "tabs and blanks like real jigsaw pieces" in items[0].question


def test_the_same_check_sees_what_the_outlines_of_tabs_items_give_away():
    """The check above is not vacuous: on ``_tabs`` an altered board's alpha differs from an unaltered one's (the
    gap), and the shuffled pieces' outlines differ from one another (they tell where each belongs)."""
    views = [shape_view(build("anomaly_detection_tabs", "p0", slot)) for slot in (0, 1)]
    assert not np.array_equal(views[0][0], views[1][0])
    alphas = [np.asarray(im)[..., 3] for im in build("order_generation_tabs", "p0").images]
    assert not any(np.array_equal(alphas[0], a) for a in alphas[1:])


def test_the_altered_piece_fills_its_place_and_changes_only_there():
    config = "anomaly_detection_tabs_content"
    for sid in POOL[:4]:
        unchanged = np.asarray(build(config, sid, 0).images[0]).astype(np.int64)
        for slot in range(1, 16, 2):
            item = build(config, sid, slot)
            meta = item.metadata
            cut = RegularCut(*meta["grid"], content_cells(*SIZE, *meta["grid"]), "checkerboard")
            altered = np.asarray(item.images[0]).astype(np.int64)
            left, top, right, bottom = cut.canvas_box(meta["cell"])
            alpha = cut.alpha(meta["cell"])
            changed = np.zeros(alpha.shape, bool)
            assert np.array_equal(altered[..., 3], unchanged[..., 3])
            diff = (altered != unchanged).any(-1)
            assert not diff[:top].any() and not diff[bottom:].any() and not diff[:, :left].any() and \
                not diff[:, right:].any()
            changed |= diff[top:bottom, left:right]
            assert not (changed & (alpha == 0)).any()  # only inside the altered piece's outline
            photo = np.asarray(PHOTOS[sid].convert("RGB"))[:cut.size[1], :cut.size[0]]
            turned = transformed(piece(photo, cut, meta["cell"]), meta["transform"])
            solid = alpha == 255
            assert np.array_equal(altered[top:bottom, left:right][solid], turned[solid].astype(np.int64))


def test_content_masks_and_hole_have_every_piece_s_outline():
    from jigsaw_puzzles.generation.circular import rotate

    item = build("piece_localization_hard_tabs_content", "p1", 2)
    meta = item.metadata
    cut = RegularCut(3, 3, content_cells(*SIZE, 3, 3), "congruent")
    board_array = np.asarray(item.images[0])
    assert np.array_equal(board_array[..., 3], cut.board_alpha())  # the masks keep the board's alpha
    for k in range(9):
        left, top, right, bottom = cut.canvas_box(k)
        region = board_array[top:bottom, left:right]
        inside = cut.alpha(k) == 255
        grey = (region[..., :3] == (160, 160, 160)).all(-1) | (region[..., :3] == (40, 40, 40)).all(-1)
        assert (grey[inside].mean() > 0.6) == (k in meta["masked_cells"]), k
    row = {"id": "piece_localization_hard_tabs_content/p1", "images": item.images, "options": item.options,
           "answer": item.answer, "question": item.question, "metadata": json.dumps(meta)}
    for r in (1, 2, 3):  # circular evaluation redraws the letters in the ring's frame: the solver reads them
        turned = rotate(row, "piece_localization_hard_tabs_content", r)
        assert solve(turned, "piece_localization_hard_tabs_content").text == turned["answer"] != item.answer
        assert np.array_equal(np.asarray(turned["images"][0])[..., 3], board_array[..., 3])
    item = build("missing_piece_selection_easy_tabs_content", "p2", 1)
    truth = cut.alpha(item.metadata["region"])
    assert all(np.array_equal(np.asarray(c)[..., 3], truth) for c in item.images[1:])
    hole = cut.board_alpha().astype(np.int64)
    left, top, right, bottom = cut.canvas_box(item.metadata["region"])
    hole[top:bottom, left:right] -= truth
    assert np.array_equal(np.asarray(item.images[0])[..., 3], hole)


# ----------------------------------------------------------------------------------------------- the baselines
def _items(config: str, photos: dict, seeds=(0,)) -> list[dict]:
    task = get_task(config)
    rows = []
    for seed in seeds:
        for k, sid in enumerate(sorted(photos)):
            if task.check(photos[sid]):
                continue
            slot = (k + seed) % task.num_slots
            try:
                item = build(config, sid, slot, photos, seed)
            except TaskError:
                continue
            rows.append({"id": f"{config}/{sid}/{seed}", "images": item.images, "options": item.options,
                         "answer": item.answer, "metadata": item.metadata})
    return rows


@pytest.fixture(scope="module")
def embedded():
    from jigsaw_puzzles.generation.curation import curate
    from jigsaw_puzzles.generation.sources import load_normalised

    return {s.source_id: load_normalised(s.path) for s in curate(None).accepted}


@pytest.fixture(scope="module")
def generated():
    """110 photos of many sizes the tests did not choose (generated, normalised as the builder normalises)."""
    from jigsaw_puzzles.generation.sources import normalise

    return {f"g{k:03d}": normalise(make_photo(500 + k, (400 + 13 * (k % 30), 300 + 11 * (k % 20))))
            for k in range(110)}


@pytest.mark.slow
@pytest.mark.parametrize("straight", ["order_restoration", "order_generation", "order_generation_3x3",
                                      "connection_verification", "connection_verification_3x3_8dir",
                                      "piece_localization_easy", "piece_localization_hard", "anomaly_detection",
                                      "missing_piece_selection_easy"])
def test_the_shape_baseline_is_at_chance_on_content_configs(straight, embedded, generated):
    """n >= 200: the embedded photos (seeds 0 and 1) and photos the test did not choose (generated); on every item
    the outlines leave every answer, so the shape baseline gives the random baseline's answer, and its accuracy lies
    in the central 99% interval of uniform guessing on these very items."""
    from jigsaw_puzzles.scoring.score import item_chance
    from jigsaw_puzzles.scoring.stats import null_distribution

    config = straight + "_tabs_content"
    rows = _items(config, embedded, (0, 1)) + _items(config, generated)
    assert len(rows) >= 200
    right = 0
    for row in rows:
        answer = shape_answer(row, config)
        assert answer.scores["tied"] == "all" and answer.text == random_answer(row, config)
        right += answer.text == row["answer"]
    cdf = np.cumsum(null_distribution([item_chance(r["answer"], config) for r in rows]))
    low, high = int(np.searchsorted(cdf, 0.005)), int(np.searchsorted(cdf, 0.995))
    assert low <= right <= high, (config, right, len(rows), low, high)


@pytest.mark.slow
@pytest.mark.parametrize("config", ["order_restoration_tabs", "order_generation_tabs", "order_generation_3x3_tabs",
                                    "connection_verification_tabs", "piece_localization_easy_tabs",
                                    "piece_localization_hard_tabs", "missing_piece_selection_easy_tabs_own",
                                    "order_generation_3x3_tabs_silhouette", "anomaly_detection_tabs_silhouette",
                                    "anomaly_detection_tabs"])
def test_the_shape_baseline_reads_what_the_outlines_decide(config, embedded, generated):
    """100% where the outlines decide (on 2x2 and 3x3 the flat border sides fix every piece; a hole's own outline
    fits one candidate); Anomaly Detection with tabs: whether and where (the gap), the type left to a coin."""
    rows = _items(config, embedded) + _items(config, dict(list(generated.items())[:40]))
    assert len(rows) >= 80
    answers = [shape_answer(row, config).text for row in rows]
    if config == "anomaly_detection_tabs":
        first_two = [a.splitlines()[:2] for a in answers]
        assert first_two == [r["answer"].splitlines()[:2] for r in rows]
        return
    assert answers == [r["answer"] for r in rows]


@pytest.mark.slow
@pytest.mark.parametrize("straight", ["order_restoration", "order_generation", "order_generation_3x3",
                                      "connection_verification", "connection_verification_3x3_8dir",
                                      "piece_localization_easy", "piece_localization_hard", "anomaly_detection",
                                      "missing_piece_selection_easy"])
def test_the_solver_reads_content_configs(straight, embedded):
    """The solver reads the content: on the content cut it does within 5 points as well as on the straight cut of
    the same photos, and at least 80% (the straight 8-direction solver's own level)."""
    accuracy = {}
    for config in (straight, straight + "_tabs_content"):
        rows = _items(config, embedded)
        assert len(rows) >= 40
        accuracy[config] = sum(solve({k: v for k, v in r.items() if k not in ("answer", "metadata")}, config).text
                               == r["answer"] for r in rows) / len(rows)
    assert accuracy[straight + "_tabs_content"] >= max(0.8, accuracy[straight] - 0.05), accuracy


# ----------------------------------------------------------------------------------------------- stream and env
@pytest.mark.slow
def test_the_stream_the_curriculum_and_the_interactive_jigsaw_take_content_configs():
    import jigsaw_puzzles as jp
    from jigsaw_puzzles.errors import UsageError
    from jigsaw_puzzles.interactive import Game, Puzzle

    curriculum = jp.Curriculum.grids(sides=(2, 3), cut="content")
    assert [list(s) for s in curriculum.stages] == [["order_generation_tabs_content"],
                                                   ["order_generation_3x3_tabs_content"]]
    rows = list(jp.training_stream("embedded", mixture={"order_generation_3x3_tabs_content": 1.0}, seed=0,
                                   eval_fraction=0.0).take(3))
    assert all(r["config"] == "order_generation_3x3_tabs_content" and r["images"][0].mode == "RGBA" for r in rows)
    puzzle = Puzzle.from_row(rows[0])
    assert puzzle.cut == "content" and puzzle.shaped
    game = Game(puzzle)
    assert "any piece fits anywhere" in game.intro()
    for j in range(puzzle.n):  # put piece order[j] at position j, by swaps
        here = game.board.index(puzzle.order[j] - 1)
        if here != j:
            assert game.swap(j + 1, here + 1).valid
    assert game.solved and game.submit().valid and game.reward() == 1.0
    solved = np.asarray(game.render().convert("RGB"))
    assert solved.shape[0] > 0
    gym = pytest.importorskip("gymnasium")
    from jigsaw_puzzles.interactive.gym_env import JigsawEnv

    env = gym.wrappers.PassiveEnvChecker(JigsawEnv("order_generation_3x3_tabs_content"))
    observation, _ = env.reset(options={"row": rows[1]})
    assert observation["board"].ndim == 3 and "any piece fits anywhere" in observation["text"]
    observation, reward, *_ = env.step("swap(1, 2)")
    assert observation["board"].shape == env.observation_space["board"].shape
    tabs_row = next(iter(jp.training_stream("embedded", mixture={"order_generation_3x3_tabs": 1.0}, seed=0,
                                            eval_fraction=0.0).take(1)))
    with pytest.raises(UsageError, match="interlocking pieces of one outline"):
        JigsawEnv("order_generation_3x3_tabs_content").reset(options={"row": tabs_row})


@pytest.mark.slow
def test_eval_model_shape_runs_on_every_cut_and_the_report_shows_it_beside_the_others(tmp_path):
    """``jigsaw-puzzles eval --model shape`` on a straight, a ``_tabs`` and a ``_tabs_content`` config, beside
    ``random`` and ``solver``: one row each in the report's Table 2."""
    from fixtures.photos import write_photos
    from jigsaw_puzzles.cli import main

    folder = tmp_path / "photos"
    write_photos(folder, 8, start=60)
    configs = ["order_restoration", "order_restoration_tabs", "order_restoration_tabs_content"]
    for model in ("random", "solver", "shape"):
        assert main(["eval", "--model", model, "--source", str(folder), "--configs", *configs, "--out",
                     str(tmp_path / model), "--cache-dir", str(tmp_path / "c"), "--no-progress"]) == 0
    metrics = {m: json.loads((tmp_path / m / "results.json").read_text())["metrics"] for m in ("random", "shape")}
    assert metrics["shape"]["order_restoration_tabs"]["accuracy"] == 100  # the outlines decide
    for config in ("order_restoration", "order_restoration_tabs_content"):  # they say nothing: random's answers
        assert metrics["shape"][config]["accuracy"] == metrics["random"][config]["accuracy"]
    assert main(["report", *(str(tmp_path / m) for m in ("random", "solver", "shape")), "--out",
                 str(tmp_path / "report"), "--no-plots"]) == 0
    table = (tmp_path / "report" / "report.md").read_text()
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert sum(any(f"| {m}" in row for row in rows) for m in ("random", "solver", "shape")) == 3
    assert any("OR tabs con" in row for row in rows)
