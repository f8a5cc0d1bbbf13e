"""Every task with interlocking pieces (#34 section 2): the config names, each task's items re-derived from their
metadata and pixels, the prompts, the silhouette rule and its re-draws, the solver, and the pipeline
(``jp.load_dataset``, ``build``, ``eval``, stock ``datasets.load_dataset``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

import jigsaw_puzzles as jp
from fixtures.photos import make_photo, write_photos
from jigsaw_puzzles import prompts, spec
from jigsaw_puzzles.baselines import solve
from jigsaw_puzzles.baselines.outline import misfits
from jigsaw_puzzles.geometry import tab_cell
from jigsaw_puzzles.generation.tabs import Cut
from jigsaw_puzzles.generation.tabs.render import crop
from jigsaw_puzzles.generation.tasks import Context, TaskError, get_task, shaped
from jigsaw_puzzles.rng import item_rng

SIZE = (480, 360)
POOL = [f"p{k}" for k in range(8)]
PHOTOS = {sid: make_photo(40 + k, SIZE) for k, sid in enumerate(POOL)}


def build(config: str, sid: str = "p0", slot: int = 0):
    task = get_task(config)
    return task.build(PHOTOS[sid], item_rng(0, task.family, sid), slot,
                      Context(sid, pool_ids=POOL, load=PHOTOS.__getitem__))


def alpha(image) -> np.ndarray:
    return np.asarray(image)[..., 3].astype(np.int64)


def the_cut(config: str, sid: str = "p0") -> Cut:
    """The cut an item of ``config`` was made with (its first draw, or the one its metadata names)."""
    item = build(config, sid)
    rows, cols = spec.get(config).grid
    cw, ch = SIZE[0] // cols, SIZE[1] // rows
    if spec.get(config).rotated:
        cw = ch = min(cw, ch)
    task = get_task(config)
    return Cut.draw(item_rng(0, task.family, sid).child("cut", item.metadata["cut_redraws"]), rows, cols, (cw, ch))


# ----------------------------------------------------------------------------------------------- names
def test_every_config_has_a_tab_cut_and_a_silhouette_control():
    straights = list(spec.CONFIGS) + ["order_generation_3x3", "order_restoration_2x3", "connection_verification_4x4",
                                      "piece_localization_4x4_k6", "anomaly_detection_3x3",
                                      "missing_piece_selection_easy_2x2_k6", "order_generation_3x3_rot",
                                      "connection_verification_3x3_8dir"]
    for name in straights:
        straight = spec.get(name)
        for suffix, cut in (("_tabs", "tabs"), ("_tabs_silhouette", "silhouette")):
            if suffix == "_tabs_silhouette" and (straight.rotated or name.endswith("_8dir")):
                with pytest.raises(ValueError, match="no silhouette control"):
                    spec.get(name + suffix)
                continue
            tab = spec.get(name + suffix)
            assert (tab.name, tab.cut, tab.family, tab.kind, tab.num_options, tab.num_images, tab.grid) == (
                name + suffix, cut, straight.family, straight.kind, straight.num_options, straight.num_images,
                straight.grid)
            assert not tab.in_overall and tab.chance == straight.chance and spec.is_config(tab.name)
            assert spec.config_from_id(f"{tab.name}/abc") == tab.name
    assert spec.PAPER_CONFIGS == tuple(c for c in spec.CONFIGS if spec.CONFIGS[c].in_overall)  # Table 2 unchanged
    assert spec.get("missing_piece_selection_hard_4x4_k6_tabs_own").title.endswith("[tabs, own outlines]")
    assert spec.canonical("order_generation_2x2_tabs") == "order_generation_tabs"  # an alias, as for straight
    assert spec.canonical("piece_localization_3x3_tabs_silhouette") == "piece_localization_hard_tabs_silhouette"
    for bad in ("order_generation_tabs_own", "missing_piece_selection_easy_tabs_own_silhouette",
                "order_generation_tabs_tabs", "order_generation_9x9_tabs", "tabs", "_tabs", "x_tabs"):
        assert not spec.is_config(bad), bad
    assert spec.select_configs(["order_generation_3x3_tabs", "order_restoration"]) == [
        "order_restoration", "order_generation_3x3_tabs"]


def test_every_task_has_tab_configs_on_every_grid_it_takes():
    """#34 "Done means": every task, on every grid its straight config takes (1x2 to 8x8, within each task's own
    bounds), has its ``_tabs`` config and its ``_tabs_silhouette`` control, the straight config's family, kind and
    grid with the cut named; 2x2 and 3x3 among them for every task."""
    seen = {}
    for base in spec.GRID_BASES:
        for rows in range(1, spec.MAX_GRID_SIDE + 1):
            for cols in range(1, spec.MAX_GRID_SIDE + 1):
                try:
                    straight = spec.get(spec.grid_config(base, rows, cols))
                except ValueError:  # a grid this task does not take (too few cells, too few sides)
                    continue
                for suffix, cut in (("_tabs", "tabs"), ("_tabs_silhouette", "silhouette")):
                    tab = spec.get(straight.name + suffix)
                    assert (tab.cut, tab.family, tab.kind, tab.grid) == (cut, straight.family, straight.kind,
                                                                          (rows, cols)), tab
                seen.setdefault(base, set()).add((rows, cols))
    assert set(seen) == set(spec.GRID_BASES)
    assert all({(2, 2), (3, 3)} <= grids for grids in seen.values())
    assert len(seen["connection_verification"]) == 49 and len(seen["order_generation"]) == 63


@pytest.mark.parametrize("base", [b for b in spec.GRID_BASES if b != "missing_piece_selection_hard"])
def test_every_task_cuts_tab_items_on_2x2_and_3x3(base):
    """Each task's ``_tabs`` and ``_tabs_silhouette`` items on 2x2 and 3x3: shaped RGBA images on the grid named,
    and the weight-free solver reads them (the hard Missing Piece Selection is the easy one with CLIP-mined
    distractors: same cut, same family)."""
    for rows, cols in ((2, 2), (3, 3)):
        straight = spec.grid_config(base, rows, cols)
        for suffix, cut in (("_tabs", "tabs"), ("_tabs_silhouette", "silhouette")):
            config = straight + suffix
            item = build(config, "p1", slot=1)
            assert item.metadata["cut"] == cut and tuple(item.metadata["grid"]) == (rows, cols), config
            assert any(im.mode == "RGBA" for im in item.images), config
            assert solve({"images": item.images, "options": item.options}, config).text == item.answer, config


def test_a_tab_question_is_the_straight_question_and_one_sentence():
    for config in ("order_restoration_tabs", "missing_piece_selection_easy_tabs_silhouette",
                   "anomaly_detection_tabs", "connection_verification_3x3_8dir_tabs"):
        straight = build(shaped.straight(config))
        item = build(config)
        note = prompts.SILHOUETTE_NOTE if config.endswith("silhouette") else prompts.TABS_NOTE
        assert item.question == straight.question.replace("Question: ", f"Question: {note} ", 1)
        assert note.count(".") == 1 and "tabs and blanks" in note and "transparent area" in note
    assert prompts.ORDER_RESTORATION.startswith("Question: You are given")  # the paper's, untouched


# ----------------------------------------------------------------------------------- items from pixels
@pytest.mark.parametrize("config", ["order_generation_tabs", "order_restoration_3x3_tabs",
                                    "order_generation_2x3_tabs_silhouette", "order_generation_3x3_rot_tabs"])
def test_order_items_put_the_photo_back(config):
    """The pieces laid back by the answer (their turns undone) are the photo, byte for byte, and the shuffle is
    the straight config's (one family)."""
    s = spec.get(config)
    rows, cols = s.grid
    item = build(config, "p1", slot=min(1, get_task(config).num_slots - 1))
    straight = build(shaped.straight(config), "p1", slot=min(1, get_task(config).num_slots - 1))
    assert item.metadata["order"] == straight.metadata["order"] and item.answer.count("(") == straight.answer.count("(")
    sizes = {im.size for im in item.images}
    assert len(sizes) == 1 and all(im.mode == "RGBA" for im in item.images)
    W, H = sizes.pop()
    cw, ch, m = tab_cell((W, H))
    back = np.zeros((ch * rows + 2 * m, cw * cols + 2 * m, 3), np.int64)
    total = np.zeros(back.shape[:2], np.int64)
    turns = item.metadata.get("rotations") or [0] * (rows * cols)
    for region, (k, turn) in enumerate(zip(item.metadata["order"], turns)):
        canvas = np.rot90(np.asarray(item.images[k - 1]), -turn // 90)  # clockwise by turn: upright
        r, c = divmod(region, cols)
        a = canvas[..., 3:].astype(np.int64)
        back[r * ch:r * ch + H, c * cw:c * cw + W] += canvas[..., :3] * a
        total[r * ch:r * ch + H, c * cw:c * cw + W] += a[..., 0]
    inner = (slice(m, m + ch * rows), slice(m, m + cw * cols))
    assert (total[inner] == 255).all()
    if s.cut == "tabs":
        assert np.array_equal(back[inner] // 255, np.asarray(PHOTOS["p1"])[:ch * rows, :cw * cols])
    else:
        assert (back[inner] // 255 == 120).all()  # flat grey: shape only


@pytest.mark.parametrize("config", ["connection_verification_tabs", "connection_verification_3x3_tabs_silhouette"])
def test_a_tab_meets_a_blank_only_for_true_neighbours(config):
    rows, cols = spec.get(config).grid
    for slot in range(3):
        item = build(config, "p2", slot)
        first, second = item.metadata["cells"]
        H, V = misfits(item.images)
        cw, ch, _ = tab_cell(item.images[0].size)
        fits = {"h": min(H[0, 1], H[1, 0]) * cw * ch, "v": min(V[0, 1], V[1, 0]) * cw * ch}
        relation = item.metadata["relation"]
        if relation == "horizontal":
            assert fits["h"] == 0 and fits["v"] >= shaped.MIN_MISFIT_PX
        elif relation == "vertical":
            assert fits["v"] == 0 and fits["h"] >= shaped.MIN_MISFIT_PX
        else:
            assert min(fits.values()) >= shaped.MIN_MISFIT_PX or not config.endswith("silhouette")
            assert min(fits.values()) > 0
        assert item.answer == spec.LETTERS[slot]


def test_anomaly_boards_show_the_turned_piece_and_its_gap():
    config = "anomaly_detection_3x3_tabs"
    photo = np.asarray(PHOTOS["p3"])
    cut = the_cut(config, "p3")
    for slot in (0, 1, 7):
        item = build(config, "p3", slot)
        board = np.asarray(item.images[0])
        h, w = cut.size[1], cut.size[0]
        if not item.metadata["altered"]:
            assert (board[..., 3] == 255).all() and np.array_equal(board[..., :3], photo[:h, :w])
            assert item.answer == spec.format_anomaly()
            continue
        left, top, right, bottom = cut.canvas_box(item.metadata["cell"])
        outside = np.ones((h, w), bool)
        outside[max(top, 0):bottom, max(left, 0):right] = False
        assert np.array_equal(board[outside][:, :3], photo[:h, :w][outside]) and (board[outside][:, 3] == 255).all()
        gaps = board[..., 3] < 255
        assert gaps.any() and not (gaps & outside).any()  # the old outline is not filled any more, only there
        assert item.metadata["outline_change"] >= shaped.MIN_OUTLINE_CHANGE
        assert item.answer == spec.format_anomaly(item.metadata["position"], item.metadata["type"])


def test_piece_localization_masks_have_the_pieces_outlines():
    for config in ("piece_localization_hard_tabs", "piece_localization_easy_tabs_silhouette"):
        cut = the_cut(config, "p4")
        item = build(config, "p4", slot=1)
        meta = item.metadata
        assert meta["labels"][item.answer] == meta["piece_cell"]
        assert np.array_equal(alpha(item.images[1]), cut.alpha(meta["piece_cell"]).astype(np.int64))
        board = np.asarray(item.images[0])
        grey = (board[..., :3] == 160).all(-1)
        masks = np.zeros(grey.shape, bool)
        for k in meta["masked_cells"]:
            left, top, right, bottom = cut.canvas_box(k)
            inside = np.zeros((cut.size[1] + 2 * cut.margin, cut.size[0] + 2 * cut.margin), bool)
            inside[top + cut.margin:bottom + cut.margin, left + cut.margin:right + cut.margin] = cut.alpha(k) > 0
            masks |= inside[cut.margin:-cut.margin, cut.margin:-cut.margin]
            a = crop(grey, cut.canvas_box(k), fill=False)
            assert a[cut.alpha(k) == 255].mean() > 0.6  # the mask is its piece's region, painted grey (letter aside)
        assert not (grey & ~masks).any()  # and nothing but the masked pieces is


@pytest.mark.parametrize("config,policy", [("missing_piece_selection_easy_tabs", "same outline"),
                                           ("missing_piece_selection_easy_tabs_own", "own outline"),
                                           ("missing_piece_selection_easy_2x2_k6_tabs_silhouette", "own outline")])
def test_missing_piece_holes_and_the_two_distractor_policies(config, policy):
    cut = the_cut(config, "p5")
    slot = 2
    item = build(config, "p5", slot)
    region = item.metadata["region"]
    truth = cut.alpha(region).astype(np.int64)
    assert item.metadata["distractor_policy"] == policy
    box = cut.canvas_box(region)
    hole = 255 - crop(alpha(item.images[0]), box, fill=255)  # beyond the picture: no hole
    assert np.array_equal(hole, truth)  # the hole has the piece's exact outline
    assert np.array_equal(alpha(item.images[1 + slot]), truth) and item.answer == spec.LETTERS[slot]
    others = [alpha(im) for j, im in enumerate(item.images[1:]) if j != slot]
    if policy == "same outline":
        assert all(np.array_equal(o, truth) for o in others)  # content alone decides
    else:
        assert all(np.abs(o - truth).sum() / 255 >= shaped.MIN_MISFIT_PX for o in others)  # shape alone can


def test_a_silhouette_is_redrawn_until_its_outline_decides():
    rng = item_rng(0, "order", "p0")
    seen = []
    cut, redraws = shaped.draw_cut(rng, 3, 3, (60, 50), lambda c: seen.append(c) or (None if len(seen) > 2 else "no"))
    assert redraws == 2 and cut.edges == Cut.draw(rng.child("cut", 2), 3, 3, (60, 50)).edges
    with pytest.raises(TaskError, match=f"no cut of {shaped.MAX_REDRAWS} draws passes: never"):
        shaped.draw_cut(rng, 2, 2, (60, 50), lambda c: "never")
    item = build("order_generation_4x4_tabs_silhouette", "p6")
    assert item.metadata["outline_margin"] >= shaped.MIN_MISFIT_PX and item.metadata["cut"] == "silhouette"
    assert shaped.unique_layout(the_cut("order_generation_4x4_tabs_silhouette", "p6")) is None


# ------------------------------------------------------------------------------------------------ solver
@pytest.mark.slow
@pytest.mark.parametrize("config", ["order_generation_tabs_silhouette", "order_restoration_tabs_silhouette",
                                    "order_generation_3x3_tabs_silhouette", "order_restoration_3x3_tabs_silhouette",
                                    "connection_verification_tabs_silhouette",
                                    "connection_verification_3x3_tabs_silhouette", "order_generation_3x3_tabs",
                                    "connection_verification_tabs", "anomaly_detection_tabs",
                                    "anomaly_detection_tabs_silhouette",
                                    "piece_localization_hard_tabs", "missing_piece_selection_easy_tabs",
                                    "missing_piece_selection_easy_tabs_own"])
def test_the_solver_reads_tab_items(config):
    """Order and connection silhouettes from the outline alone, 100% on 2x2 and 3x3; the tab configs with their
    content too (the solver never sees the answer or the metadata)."""
    task = get_task(config)
    right = total = 0
    for sid in POOL[:4]:
        for slot in range(0, task.num_slots, max(1, task.num_slots // 4)):
            item = build(config, sid, slot)
            right += solve({"images": item.images, "options": item.options}, config).text == item.answer
            total += 1
    assert right == total, f"{config}: {right}/{total}"


# ---------------------------------------------------------------------------------------------- pipeline
@pytest.mark.slow
def test_load_build_eval_and_stock_load_take_tab_configs(tmp_path):
    import datasets

    from jigsaw_puzzles.cli import main

    folder = tmp_path / "photos"
    write_photos(folder, 6, start=50, size=SIZE)
    ds = jp.load_dataset("connection_verification_tabs", source=folder, cache_dir=str(tmp_path / "c"))
    assert len(ds) == 6 and ds[0]["images"][0].mode == "RGBA"
    assert ds[0]["id"].startswith("connection_verification_tabs/")
    assert json.loads(ds[0]["metadata"])["cut"] == "tabs"
    out = tmp_path / "export"
    configs = ["order_generation_3x3_tabs_silhouette", "connection_verification_tabs"]
    others = ["missing_piece_selection_easy_tabs_own", "piece_localization_hard_tabs", "anomaly_detection_tabs",
              "order_restoration_tabs_silhouette"]  # with the two above: every task, both cuts
    assert main(["build", "--source", str(folder), "--configs", *configs, *others, "--out", str(out),
                 "--cache-dir", str(tmp_path / "c")]) == 0
    for config in configs + others:  # stock datasets reads every task's tab export: the very items, pixel for pixel
        stock = datasets.load_dataset(str(out), config, split="test")
        assert len(stock) == 6 and any(im.mode == "RGBA" for im in stock[0]["images"]), config
        mine = jp.load_dataset(config, source=folder, cache_dir=str(tmp_path / "c"))
        assert [(r["id"], r["answer"], r["metadata"]) for r in stock] == [(r["id"], r["answer"], r["metadata"])
                                                                         for r in mine], config
        assert all(np.array_equal(np.asarray(a), np.asarray(b)) for s, m in zip(stock, mine)
                   for a, b in zip(s["images"], m["images"])), config
    assert "order_generation_3x3_tabs_silhouette" in (out / "README.md").read_text()
    run = tmp_path / "run"
    assert main(["eval", "--model", "solver", "--source", str(folder), "--configs", *configs, "--out", str(run),
                 "--cache-dir", str(tmp_path / "c"), "--no-progress"]) == 0
    metrics = json.loads((run / "results.json").read_text())["metrics"]
    assert metrics["connection_verification_tabs"]["accuracy"] == 100
    assert metrics["order_generation_3x3_tabs_silhouette"]["accuracy"] == 100
    assert "overall" not in metrics or metrics["overall"].get("n_columns", 0) == 0  # never Table 2
    assert main(["build", "--configs", "order_generation_tabs_own", "--out", str(tmp_path / "x")]) == 2


def test_circular_evaluation_relabels_shaped_masks():
    """A rotation of a shaped Piece Localization item redraws the letters only: its masks keep the pieces'
    outlines, and the board is what the generator draws with the rotated labels."""
    from jigsaw_puzzles.generation.circular import rotate
    from jigsaw_puzzles.generation.tasks.piece_localization import draw_tab_masks
    from jigsaw_puzzles.generation.tabs import board as assembled

    config = "piece_localization_hard_tabs"
    item = build(config, "p7", slot=2)
    row = {"id": f"{config}/p7", "images": item.images, "options": item.options, "answer": item.answer,
           "question": item.question, "metadata": json.dumps(item.metadata)}
    turned = rotate(row, config, 1)
    meta = json.loads(turned["metadata"])
    cut = the_cut(config, "p7")
    masked = [meta["labels"][letter] for letter in turned["options"]]
    want = draw_tab_masks(assembled(np.asarray(PHOTOS["p7"]), cut), cut, masked, turned["options"])
    got = np.asarray(turned["images"][0]).astype(np.int64)
    assert np.array_equal(got, np.asarray(want)) and meta["labels"][turned["answer"]] == meta["piece_cell"]
    assert solve(turned, config).text == turned["answer"]
