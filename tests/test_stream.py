"""The training stream (issue #11 part 3): unlimited, reproducible, verifiable, disjoint from evaluation."""
from __future__ import annotations

import shutil
from itertools import islice

import pytest
from datasets.distributed import split_dataset_by_node
from PIL import Image

from fixtures.photos import write_photos
from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.publishing.export import build
from jigsaw_puzzles.training.rewards import exact_reward
from jigsaw_puzzles.generation.curation import curate
from jigsaw_puzzles.spec import parse_reference
from jigsaw_puzzles.training.stream import STREAM_CONFIGS, Curriculum, holdout, training_stream


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stream") / "photos"
    write_photos(folder, 16)
    return folder


def take(ds, n):
    return list(ds.take(n))


def test_rows_are_trl_ready_pil_and_verifiable(folder):
    rows = take(training_stream(folder, seed=0), 40)
    assert {r["config"] for r in rows} <= set(STREAM_CONFIGS) and len({r["config"] for r in rows}) >= 4
    for r in rows:
        assert all(isinstance(im, Image.Image) for im in r["images"])  # no PNG round trip
        (turn,) = r["prompt"]
        parts = turn["content"]
        assert turn["role"] == "user" and [p["type"] for p in parts] == ["image"] * len(r["images"]) + ["text"]
        assert parts[-1]["text"] == r["question"]
        assert parse_reference(r["answer"], r["config"]) == r["answer"]
    assert exact_reward(completions=[r["answer"] for r in rows], answer=[r["answer"] for r in rows],
                        config=[r["config"] for r in rows], options=[r["options"] for r in rows]) == [1.0] * 40


def test_never_yields_a_held_out_photo_and_runs_past_one_pass(folder):
    train = {s.source_id for s in curate(folder).accepted if holdout(s.source_id) == "train"}
    assert 4 <= len(train) < 16  # some photos are held out
    rows = take(training_stream(folder, mixture={"order_generation": 1}), 4 * len(train))
    assert {r["source_id"] for r in rows} == train  # every training photo, and only those
    by_photo = {}
    for r in rows:
        by_photo.setdefault(r["source_id"], set()).add(r["answer"])
    assert any(len(answers) > 1 for answers in by_photo.values())  # each pass re-cuts with new randomness


def test_reproducible_and_seeded(folder):
    a = take(training_stream(folder, seed=3), 12)
    b = take(training_stream(folder, seed=3), 12)
    c = take(training_stream(folder, seed=4), 12)
    key = lambda rows: [(r["id"], r["answer"], [im.tobytes() for im in r["images"]]) for r in rows]  # noqa: E731
    assert key(a) == key(b)
    assert [r["id"] for r in a] != [r["id"] for r in c]


def test_datasets_operations_and_nodes_are_disjoint(folder):
    for shards in (1, 2):  # one shard: nodes skip each other's rows; two: each node cuts only its photos
        ds = training_stream(folder, mixture={"connection_verification": 1}, num_shards=shards)
        # islice, not .take: datasets splits a .take(n) after split_dataset_by_node among the nodes
        nodes = [[r["id"] for r in islice(split_dataset_by_node(ds, rank, 2), 15)] for rank in (0, 1)]
        assert len(nodes[0]) == len(nodes[1]) == 15 and not set(nodes[0]) & set(nodes[1])
        photos = [{i.split("/")[1] for i in ids} for ids in nodes]
        assert shards == 1 or not photos[0] & photos[1]
    mapped = take(ds.shuffle(seed=0, buffer_size=8).map(lambda r: {"n": len(r["images"])}), 5)
    assert [r["n"] for r in mapped] == [2] * 5


@pytest.mark.slow
def test_an_evaluation_export_of_the_same_folder_is_refused_and_its_photos_excluded(folder, tmp_path):
    export = tmp_path / "export"
    build(export, source=folder, configs=["order_restoration"], cache_dir=str(tmp_path / "cache"))
    with pytest.raises(UsageError, match="evaluation export"):
        training_stream(folder, exclude=export)
    grown = tmp_path / "grown"
    shutil.copytree(folder, grown)
    write_photos(grown, 12, start=500)
    old = {s.source_id for s in curate(folder).accepted}
    rows = take(training_stream(grown, exclude=export, mixture={"order_restoration": 1}), 40)
    assert rows and not {r["source_id"] for r in rows} & old  # the evaluation photos never come back
    first = rows[0]["source_id"]
    rows = take(training_stream(grown, exclude=[first], mixture={"order_restoration": 1}), 40)
    assert first not in {r["source_id"] for r in rows}


def test_curriculum_by_schedule_and_by_reward(folder):
    easy, hard = {"piece_localization_easy": 1.0}, {"piece_localization_hard": 1.0}
    scheduled = training_stream(folder, curriculum=Curriculum([easy, hard], schedule=[5]))
    configs = [r["config"] for r in take(scheduled, 10)]
    assert configs == ["piece_localization_easy"] * 5 + ["piece_localization_hard"] * 5
    adaptive = Curriculum([easy, hard], threshold=0.75, window=4)
    it = iter(training_stream(folder, curriculum=adaptive))
    assert next(it)["config"] == "piece_localization_easy"
    assert adaptive.update([1, 0, 0, 1]) == 0  # mean 0.5: stays
    assert adaptive.update([1, 1, 1, 1]) == 1  # mean 1.0 over the window: moves on
    assert {next(it)["config"] for _ in range(3)} == {"piece_localization_hard"}


def test_bad_mixtures_and_too_few_photos_are_one_line_errors(folder, tmp_path):
    with pytest.raises(UsageError, match="cannot cut"):
        training_stream(folder, mixture={"missing_piece_selection_hard": 1})
    with pytest.raises(UsageError, match="positive"):
        training_stream(folder, mixture={"order_generation": 0})
    with pytest.raises(UsageError, match="schedule"):
        Curriculum([{"order_generation": 1}], schedule=[3])
    few = tmp_path / "few"
    write_photos(few, 3)
    with pytest.raises(UsageError, match="at least 4 training photos"):
        training_stream(few)


# ----------------------------------------------------------------------------- issue #20 items 13, 14

def _train_ids(folder, eval_fraction=0.2):
    return sorted(s.source_id for s in curate(folder).accepted if holdout(s.source_id, eval_fraction) == "train")


def test_exclude_takes_every_form_of_an_evaluation_set_by_its_source_ids(folder, tmp_path):
    """A DatasetDict, a parquet file or a save_to_disk folder silently excluded nothing (item 13)."""
    import datasets

    from jigsaw_puzzles.training.exclusion import evaluation_photos as _eval_ids
    from jigsaw_puzzles.generation.sources import folder_fingerprint

    train = _train_ids(folder)
    held = train[:3]
    ds = datasets.Dataset.from_dict({"source_id": held, "answer": ["A"] * 3})
    dd = datasets.DatasetDict({"test": ds.select([0, 1]), "lite": ds.select([2])})
    ds.to_parquet(str(tmp_path / "eval.parquet"))
    ds.save_to_disk(str(tmp_path / "saved"))
    dd.save_to_disk(str(tmp_path / "saved_dict"))
    (tmp_path / "pq" / "cfg").mkdir(parents=True)
    ds.to_parquet(str(tmp_path / "pq" / "cfg" / "test.parquet"))
    fp = folder_fingerprint(folder)
    for form in (ds, dd, tmp_path / "eval.parquet", str(tmp_path / "saved"), tmp_path / "saved_dict",
                 tmp_path / "pq", held, tuple(held), [dd["test"], held[2]]):
        assert set(_eval_ids(form, fp)) == set(held), form
    rows = take(training_stream(folder, mixture={"order_generation": 1}, exclude=dd), 2 * len(train))
    assert {r["source_id"] for r in rows} == set(train) - set(held)


def test_exclude_refuses_what_it_cannot_read_with_one_clear_error(folder, tmp_path):
    import datasets

    (tmp_path / "notes.txt").write_text("not parquet")
    (tmp_path / "empty").mkdir()
    (tmp_path / "torn_export").mkdir()
    (tmp_path / "torn_export" / "curation_report.json").write_text('{"curation": {"accep')
    datasets.Dataset.from_dict({"id": ["x"]}).to_parquet(str(tmp_path / "no_ids.parquet"))
    cases = [(tmp_path / "missing_export", "does not exist"), ("./no/such/folder", "does not exist"),
             (tmp_path / "notes.txt", "not a parquet"), (tmp_path / "no_ids.parquet", "no source_id"),
             (tmp_path / "empty", "names no photo"), ((), "names no photo"), (17, "not a int"),
             (datasets.Dataset.from_dict({"id": ["x"]}), "no source_id column"), ("photo_001.jpg", "does not exist"),
             (training_stream(folder), "IterableDataset"), (["0123456789abcdef", 3.5], "not a float"),
             ({"0123456789abcdef": 1}, "not a dict"), (tmp_path / "torn_export", "is corrupt"),
             ("", "empty path"), (" ", "empty path"), (["0123456789abcdef", ""], "empty path")]  # #28.4: not "."
    for exclude, message in cases:
        with pytest.raises(UsageError, match=message):
            training_stream(folder, exclude=exclude)


def test_eval_fraction_outside_zero_to_one_is_refused(folder):
    for bad in (1.0, 1.5, -0.1, float("nan"), "0.2", True):
        with pytest.raises(UsageError, match=r"eval_fraction must be a number in \[0, 1\)"):
            training_stream(folder, eval_fraction=bad)
    with pytest.raises(UsageError, match="eval_fraction"):
        holdout("0123456789abcdef", 2.0)
    for bad in ({"passes": 0}, {"num_shards": 1.5}, {"cache_size": -1}):
        with pytest.raises(UsageError, match="whole number"):
            training_stream(folder, **bad)


def test_a_mixture_no_photo_can_carry_raises_with_its_reasons_instead_of_hanging(folder):
    """The stream looped forever without an item (item 14): after one empty pass it says why."""
    with pytest.raises(UsageError, match=r"no item in a whole pass.*order_generation_8x8_rot: .*(ambiguous)"):
        next(iter(training_stream(folder, mixture={"order_generation_8x8_rot": 1}, passes=3)))
    # a config some photos carry keeps the stream going, even through passes that are empty by chance
    rows = take(training_stream(folder, mixture={"order_generation_8x8_rot": 50, "order_generation": 1}, passes=6), 3)
    assert [r["config"] for r in rows] == ["order_generation"] * 3


def test_every_shard_gets_photos_even_when_the_hash_puts_them_all_on_one_side(tmp_path):
    """Eight photos whose shard hashes are all even: rank 1 of 2 got no rows (item 14)."""
    from jigsaw_puzzles.rng import stable_hash

    pool = tmp_path / "pool"
    write_photos(pool, 24)
    even = [s for s in curate(pool).accepted if int(stable_hash("shard", s.source_id), 16) % 2 == 0][:8]
    assert len(even) == 8
    folder = tmp_path / "even"
    folder.mkdir()
    for s in even:
        shutil.copy(s.path, folder)
    ds = training_stream(folder, mixture={"order_generation": 1}, num_shards=2, eval_fraction=0.0)
    nodes = [list(islice(split_dataset_by_node(ds, rank, 2), 8)) for rank in (0, 1)]
    assert [len(n) for n in nodes] == [8, 8]
    photos = [{r["source_id"] for r in n} for n in nodes]
    assert len(photos[0]) == len(photos[1]) == 4 and not photos[0] & photos[1]
    with pytest.raises(UsageError, match="at least 4 training photos per shard"):
        training_stream(folder, num_shards=3, eval_fraction=0.0)  # said at once, not an empty shard


def test_malformed_mixtures_and_curricula_are_one_line_errors(folder):
    for mixture, message in ((["order_generation"], "mapping"), ({"order_generation": float("inf")}, "finite"),
                             ({"order_generation": float("nan")}, "finite"), ({"order_generation": "2"}, "finite")):
        with pytest.raises(UsageError, match=message):
            training_stream(folder, mixture=mixture)
    with pytest.raises(UsageError, match="window of at least 1"):
        Curriculum([{"order_generation": 1}], window=0)  # its mean would divide by zero at the first update


def test_a_paper_config_named_on_its_own_grid_streams_the_paper_configs_items(folder):
    """#28.4: ``order_generation_2x2`` is an alias of ``order_generation``: the same rows, under the paper name."""
    plain = take(training_stream(folder, mixture={"order_generation": 1}, seed=2), 4)
    alias = take(training_stream(folder, mixture={"order_generation_2x2": 1}, seed=2), 4)
    assert [r["id"] for r in alias] == [r["id"] for r in plain] and all(r["config"] == "order_generation" for r in alias)
    assert [r["answer"] for r in alias] == [r["answer"] for r in plain]


def test_no_source_is_refused_and_the_embedded_photos_only_by_a_loud_opt_in(folder, tmp_path):
    """#33.3: the embedded photos are the default benchmark's; a stream without a folder would train on them."""
    import warnings

    from jigsaw_puzzles.cli import main
    from jigsaw_puzzles.training.stream import EMBEDDED

    for call in (lambda: training_stream(mixture={"order_generation": 1}), lambda: training_stream(None)):
        with pytest.raises(UsageError, match=r"needs source=, a folder of your own training photos.*'embedded'"):
            call()
    with pytest.warns(UserWarning, match="evaluation photos"):
        rows = take(training_stream(EMBEDDED, mixture={"order_generation": 1}), 2)
    embedded = {r.source_id for r in curate(None).accepted}
    assert {r["source_id"] for r in rows} <= embedded  # the opt-in streams exactly what it says
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a folder of one's own: no warning
        assert take(training_stream(folder, mixture={"order_generation": 1}), 1)
    for bad in ("", "  ", 123, b"photos"):  # never the current folder, never a traceback
        with pytest.raises(UsageError, match="source"):
            training_stream(bad, mixture={"order_generation": 1})
    # the CLI's training rows: refused before anything is built, with the flag to give
    assert main(["export", "verl", "--out", str(tmp_path / "v"), "--split", "lite", "--configs", "order_generation",
                 "--train-size", "4"]) == 2
    assert not (tmp_path / "v").exists()


def test_a_numpy_seed_streams_what_the_int_streams_and_a_bool_is_refused(folder):
    import numpy as np

    plain = [r["id"] for r in take(training_stream(folder, mixture={"order_generation": 1}, seed=3), 4)]
    assert [r["id"] for r in take(training_stream(folder, mixture={"order_generation": 1}, seed=np.int64(3)), 4)] \
        == plain
    for bad in (True, 1.5, "3", None):
        with pytest.raises(UsageError, match="seed must be a whole number"):
            training_stream(folder, seed=bad)


# ----------------------------------------------------------------------------- issue #34: interlocking pieces
def test_a_grid_curriculum_grows_tab_puzzles_from_2x2_to_8x8_and_every_row_plays_and_pays(tmp_path):
    """``Curriculum.grids(sides=range(2, 9), cut="tabs")``: one stage per grid, each a ``_tabs`` config; the rows
    are shaped pieces (RGBA canvases of one size), their rewards read them like the straight configs', and each
    plays in the interactive jigsaw (its known solution earns 1)."""
    from jigsaw_puzzles.interactive import Game, Puzzle
    from jigsaw_puzzles.interactive.policy import Plan, moves
    from jigsaw_puzzles.training.rewards import position_reward

    big = tmp_path / "big"
    write_photos(big, 5, size=(640, 480))  # 8x8 cells of 80x60 px: above the 48 px a tab needs
    curriculum = Curriculum.grids("order_generation", range(2, 9), cut="tabs", schedule=[1, 2, 3, 4, 5, 6])
    rows = take(training_stream(big, curriculum=curriculum, eval_fraction=0.0), 7)
    assert [r["config"] for r in rows] == ["order_generation_tabs"] + [f"order_generation_{n}x{n}_tabs"
                                                                       for n in range(3, 9)]
    for stage, r in enumerate(rows):
        import json

        meta = json.loads(r["metadata"])
        assert meta["stage"] == stage and meta["cut"] == "tabs" and meta["grid"] == [stage + 2] * 2
        assert {p.mode for p in r["images"]} == {"RGBA"} and len({p.size for p in r["images"]}) == 1
        assert exact_reward(completions=[r["answer"]], answer=[r["answer"]], config=[r["config"]]) == [1.0]
        game = Game(Puzzle.from_row(r))
        p = game.puzzle
        for name, *args in moves(Plan(list(p.order), [0] * p.n)):
            getattr(game, name)(*args)
        assert game.solved and game.reward() == 1.0
        wrong = "[" + ", ".join(map(str, [*p.order[1:], p.order[0]])) + "]"  # every piece one place off
        assert position_reward(completions=[wrong], answer=[r["answer"]], config=[r["config"]]) == [0.0]
    rotated = Curriculum.grids(sides=[2, 3], cut="tabs", rotated=True)
    assert rotated.stages == [{"order_generation_2x2_rot_tabs": 1.0}, {"order_generation_3x3_rot_tabs": 1.0}]
    for bad, why in (({"cut": "wavy"}, "cut is"), ({"sides": [2, 9]}, "sides are grid sides from 2 to 8"),
                     ({"cut": "silhouette", "rotated": True}, "no such cut"), ({"sides": []}, "sides are")):
        with pytest.raises(UsageError, match=why):
            Curriculum.grids(**bad)


def test_a_photo_too_small_for_a_tab_grid_is_a_recorded_skip(folder, tmp_path):
    """A 480x360 photo has 45 px rows on an 8x8 grid, under the 48 px a tab needs: the stream skips it for that
    config (and says so when no photo can carry the config), and serves the photos that can."""
    with pytest.raises(UsageError, match=r"order_generation_8x8_tabs: a 8x8 grid of this 480x360 image has 60x45 px "
                                         r"cells, below the 48 px an interlocking piece needs \(\d+ of \d+ photos\)"):
        next(iter(training_stream(folder, mixture={"order_generation_8x8_tabs": 1}, passes=2)))
    mixed = tmp_path / "mixed"
    small = write_photos(mixed, 4)
    large = write_photos(mixed, 4, start=4, size=(640, 480))
    from jigsaw_puzzles.generation.sources import load_normalised
    from jigsaw_puzzles.generation.tasks import get_task

    ids = {s.path: s.source_id for s in curate(mixed).accepted}
    task = get_task("order_generation_8x8_tabs")
    reasons = {ids[str(p)]: task.check(load_normalised(p, source_id=ids[str(p)])) for p in small + large}
    straight = get_task("order_generation_8x8")  # its check comes first: a small photo may fail it already
    assert all(reasons[ids[str(p)]] == (straight.check(load_normalised(p, source_id=ids[str(p)])) or
                                        "a 8x8 grid of this 480x360 image has 60x45 px cells, below the 48 px an "
                                        "interlocking piece needs") for p in small)
    carry = {sid for sid, why in reasons.items() if why is None}  # large photos without two near-identical cells
    assert carry and carry <= {ids[str(p)] for p in large}
    rows = take(training_stream(mixed, mixture={"order_generation_8x8_tabs": 1}, eval_fraction=0.0), 3 * len(carry))
    assert {r["source_id"] for r in rows} == carry
