"""Determinism to the byte, Lite = the same items as test, caching, Hub export, CLI."""

import hashlib
import json
import shutil
import subprocess
import sys

import datasets
import pytest

from jigsaw_puzzles import CONFIGS, load_dataset, make_builder
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.errors import ConfigUnavailable
from jigsaw_puzzles.publishing.export import build
from jigsaw_puzzles.generation.plan import lite_ids

QUICK = ["missing_piece_selection_easy", "anomaly_detection", "order_restoration"]


def digest(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*.parquet"))}


@pytest.fixture(scope="module")
def reference_export(photo_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("export_a")
    build(out, source=str(photo_dir), seed=3, configs=QUICK, num_proc=1,
          cache_dir=str(tmp_path_factory.mktemp("cache_a")))
    return out


@pytest.mark.slow
def test_byte_identical_across_num_proc_and_file_order(reference_export, photo_dir, tmp_path):
    # Same images, other names, other folder layout, other order on disk; two worker processes.
    shuffled = tmp_path / "shuffled"
    for i, path in enumerate(sorted(photo_dir.glob("*.jpg"), reverse=True)):
        target = shuffled / f"sub{i % 3}" / f"zz_{i:02d}.jpg"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    out = tmp_path / "export_b"
    build(out, source=str(shuffled), seed=3, configs=QUICK, num_proc=2, cache_dir=str(tmp_path / "cache_b"))
    a, b = digest(reference_export), digest(out)
    assert len(a) == 2 * len(QUICK) + 1  # lite and test per config, and the guard's evaluation index
    assert a == b


def test_seed_changes_items(photo_dir, cache_dir):
    a = load_dataset("order_generation", source=photo_dir, seed=0, cache_dir=cache_dir)
    b = load_dataset("order_generation", source=photo_dir, seed=1, cache_dir=cache_dir)
    assert a["answer"] != b["answer"]


def test_lite_is_a_subset_of_the_same_items(photo_dir, cache_dir):
    for config in ("piece_localization_hard", "missing_piece_selection_easy"):
        both = load_dataset(config, split=None, source=photo_dir, cache_dir=cache_dir)
        test = {r["id"]: r for r in both["test"]}
        lite = list(both["lite"])
        assert {r["source_id"] for r in lite} == set(lite_ids({r["source_id"] for r in test.values()}, 0)) & {
            r["source_id"] for r in test.values()}
        assert 1 <= len(lite) < len(test)
        for row in lite:
            twin = test[row["id"]]
            assert row["metadata"] == twin["metadata"] and row["answer"] == twin["answer"]
            assert [im.tobytes() for im in row["images"]] == [im.tobytes() for im in twin["images"]]
    lites = {c: set(load_dataset(c, split="lite", source=photo_dir, cache_dir=cache_dir)["source_id"])
             for c in ("order_restoration", "connection_verification")}
    assert lites["order_restoration"] == lites["connection_verification"]  # same images for every task


def test_lite_only_build_cuts_the_same_bytes_and_nothing_else(photo_dir, tmp_path):
    """A Lite run builds only the Lite items (#21.3), the same rows, to the byte, as a full build's Lite split."""
    from jigsaw_puzzles.inference.data import build_dataset

    for config in ("anomaly_detection", "piece_localization_hard"):
        full = make_builder(config, photo_dir, 0, cache_dir=str(tmp_path / "full"))
        full.download_and_prepare()
        only = make_builder(config, photo_dir, 0, cache_dir=str(tmp_path / "lite"), splits=("lite",))
        only.download_and_prepare()
        assert set(only.info.splits) == {"lite"} and set(full.info.splits) == {"test", "lite"}
        a, b = full.as_dataset(split="lite"), only.as_dataset(split="lite")
        assert a.data.table.equals(b.data.table), config
        # eval's path builds just the split it asks for
        ds = build_dataset(config, "lite", photo_dir, 0, None, {"cache_dir": str(tmp_path / "eval")})
        assert ds.data.table.equals(a.data.table)
    with pytest.raises(Exception, match="unknown split"):
        make_builder("order_restoration", photo_dir, 0, cache_dir=str(tmp_path / "x"), splits=("dev",))


def _refusing(monkeypatch, refuse: set, probed: list):
    """Make every task's item fail (a probe failure, with its reason) for the sources in ``refuse``; record in
    ``probed`` every source the plan builds."""
    from dataclasses import replace

    from jigsaw_puzzles.generation.builder import JigsawPuzzles
    from jigsaw_puzzles.generation.tasks import TaskError

    real = JigsawPuzzles.task.fget

    def task(self):
        original = real(self)

        def build(image, rng, slot, context):
            probed.append(context.source_id)
            if context.source_id in refuse:
                raise TaskError("refused by the test")
            return original.build(image, rng, slot, context)
        return replace(original, build=build)
    monkeypatch.setattr(JigsawPuzzles, "task", property(task))


@pytest.mark.parametrize("plan", ["quota", "stable", "balanced"])
def test_lite_only_plan_probes_only_the_lite_sources_and_gives_a_full_builds_slots(photo_dir, tmp_path, monkeypatch,
                                                                                     plan):
    """A Lite-only build checks and probes the Lite sources alone (the main job's plan, #35.4): every Lite item's
    slot is the full build's, under every answer plan, with Lite and other sources refused by the task."""
    from jigsaw_puzzles.generation.curation import curate

    accepted = sorted(s.source_id for s in curate(photo_dir).accepted)
    lite = lite_ids(accepted, 0, plan=plan)
    others = [s for s in accepted if s not in lite]
    assert len(lite) >= 2 and len(others) >= 3
    probed: list = []
    _refusing(monkeypatch, {lite[0], others[0], others[1]}, probed)
    for config in ("anomaly_detection", "order_restoration", "missing_piece_selection_easy"):
        full = make_builder(config, photo_dir, 0, cache_dir=str(tmp_path / "f"), answer_plan=plan).plan()
        probed.clear()
        only = make_builder(config, photo_dir, 0, cache_dir=str(tmp_path / "l"), answer_plan=plan,
                            splits=("lite",)).plan()
        assert set(probed) <= set(lite), config  # no other source is built
        assert only["lite"] == full["lite"] == lite
        assert {s: only["slots"][s] for s in lite if s in only["slots"]} == \
            {s: full["slots"][s] for s in lite if s in full["slots"]}, config
        assert lite[0] not in only["slots"] and lite[1] in only["slots"]
        assert only["task_skips"] == [k for k in full["task_skips"] if k["source_id"] in lite], config


def test_lite_only_build_without_a_lite_item_is_an_empty_split_and_without_any_item_unavailable(
        photo_dir, tmp_path, monkeypatch):
    """When the task refuses every Lite source, a Lite-only build is an empty Lite split, as a full build's; when it
    refuses every source, both raise the same ConfigUnavailable."""
    from jigsaw_puzzles.generation.curation import curate

    accepted = sorted(s.source_id for s in curate(photo_dir).accepted)
    probed: list = []
    lite = lite_ids(accepted, 0)
    _refusing(monkeypatch, set(lite), probed)
    only = make_builder("order_restoration", photo_dir, 0, cache_dir=str(tmp_path / "l"), splits=("lite",))
    only.download_and_prepare()
    assert len(only.as_dataset(split="lite")) == 0 and only.plan()["feasible"] == []
    full = make_builder("order_restoration", photo_dir, 0, cache_dir=str(tmp_path / "f"))
    full.download_and_prepare()
    assert len(full.as_dataset(split="lite")) == 0 and len(full.as_dataset(split="test")) == len(accepted) - len(lite)

    _refusing(monkeypatch, set(accepted), probed)
    messages = []
    for splits in (("lite",), None):
        with pytest.raises(ConfigUnavailable) as err:
            make_builder("order_restoration", photo_dir, 0, cache_dir=str(tmp_path / "n"), splits=splits).plan()
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "skips all 16 accepted sources" in messages[0]


def test_cached_reload_and_cache_key(photo_dir, cache_dir, tmp_path):
    builder = make_builder("connection_verification", photo_dir, 0, cache_dir)
    builder.download_and_prepare()
    again = make_builder("connection_verification", photo_dir, 0, cache_dir)
    assert again.cache_dir == builder.cache_dir
    assert make_builder("connection_verification", photo_dir, 5, cache_dir).cache_dir != builder.cache_dir
    # a changed folder is a different dataset: the key follows the folder's contents
    copy = tmp_path / "copy"
    shutil.copytree(photo_dir, copy)
    key_before = make_builder("connection_verification", copy, 0, cache_dir).cache_dir
    (copy / "photo_000.jpg").unlink()
    assert make_builder("connection_verification", copy, 0, cache_dir).cache_dir != key_before


def test_export_loads_with_stock_datasets(reference_export):
    card = (reference_export / "README.md").read_text()
    assert "## Configs" in card and "## Usage" in card  # the compact card (task rules live in docs/tasks.md)
    assert "config_name: order_restoration" in card and "path: order_restoration/lite-*.parquet" in card
    ds = datasets.load_dataset(str(reference_export), "order_restoration", split="test")
    assert isinstance(ds.features["images"], datasets.List)
    assert isinstance(ds.features["images"].feature, datasets.Image)
    row = ds[0]
    assert len(row["images"]) == 4 and row["answer"] in "ABCD"
    report = json.loads((reference_export / "curation_report.json").read_text())
    assert report["curation"]["accepted"] == 16
    assert not list(reference_export.rglob("*.py"))


def test_unknown_config_and_empty_folder(tmp_path):
    with pytest.raises(ValueError, match="unknown config"):
        load_dataset("missing_piece_selection_medium")
    (tmp_path / "junk.jpg").write_bytes(b"nope")
    with pytest.raises(ConfigUnavailable, match="needs at least 1 usable source image"):
        load_dataset("order_generation", source=tmp_path, cache_dir=str(tmp_path / "c"))


def test_load_dataset_arguments_are_checked_before_datasets_sees_them(photo_dir, cache_dir):
    """#32.5.1 and #33.8: a numpy seed is its int (same items); a bool, float, string or None seed, a source that
    is not a path, and an unknown keyword (``splt=``) are one UsageError naming what is expected, not a
    DatasetGenerationError from inside ``datasets``."""
    import numpy as np

    from jigsaw_puzzles.errors import UsageError

    plain = load_dataset("order_generation", source=photo_dir, seed=3, cache_dir=cache_dir)
    numpy = load_dataset("order_generation", source=photo_dir, seed=np.int64(3), cache_dir=cache_dir)
    assert numpy["id"] == plain["id"] and numpy["answer"] == plain["answer"] and numpy["metadata"] == plain["metadata"]
    for bad in (True, 1.5, "abc", None, np.float64(3)):
        with pytest.raises(UsageError, match=r"^seed must be a whole number \(an int\), not "):
            load_dataset("order_generation", source=photo_dir, seed=bad, cache_dir=cache_dir)
    for bad, why in ((123, "must be a path"), ("", "is empty"), (b"photos", "must be a path")):
        with pytest.raises(UsageError, match=f"^source {why}"):
            load_dataset("order_generation", source=bad, cache_dir=cache_dir)
    with pytest.raises(UsageError, match=r"^load_dataset got unknown argument\(s\) splt; the builder's options "
                                         r"are .*answer_plan.*clip_model.*splits"):
        load_dataset("order_generation", splt="lite")
    with pytest.raises(UsageError, match="config must be a config name"):
        load_dataset(None)


def test_cli_show_and_curate(photo_dir, cache_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", cache_dir)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache_dir)
    out = tmp_path / "item.png"
    assert main(["show", "anomaly_detection", "--index", "3", "--source", str(photo_dir), "--out", str(out)]) == 0
    assert out.stat().st_size > 10_000
    assert main(["curate", str(photo_dir)]) == 0
    assert "16 accepted, 0 rejected" in capsys.readouterr().out
    # a cold cache: show builds the split with labelled bars, curate --skips checks each config's sources with one
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "fresh"))
    assert main(["show", "order_generation", "--source", str(photo_dir), "--out", str(out)]) == 0
    assert main(["curate", str(photo_dir), "--skips", "--configs", "connection_verification"]) == 0
    err = capsys.readouterr().err
    for label in ("order_generation [checking sources]", "order_generation [test]: 100%",
                  "connection_verification [checking sources]: 100%"):
        assert label in err, label
    # --hide-answer (#28.4): the answer is neither on the sheet nor on stdout
    for hide in (False, True):
        row = load_dataset("order_generation", source=photo_dir, cache_dir=cache_dir)[2]
        argv = ["show", "order_generation", "--index", "2", "--source", str(photo_dir), "--out", str(out)]
        assert main(argv + (["--hide-answer"] if hide else [])) == 0
        printed = capsys.readouterr().out
        assert row["id"] in printed and (row["answer"] in printed) is not hide and ("answer" in printed) is not hide


def test_console_script_is_installed():
    result = subprocess.run([sys.executable, "-m", "jigsaw_puzzles.cli", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert all(command in result.stdout for command in ("build", "show", "curate", "eval", "report"))
    assert set(CONFIGS) >= {"order_generation", "piece_localization_hard"}


@pytest.mark.slow
@pytest.mark.parametrize("config", ["order_restoration", "order_generation_3x3_rot", "anomaly_detection"])
def test_load_dataset_lite_builds_only_lite_the_same_bytes(photo_dir, tmp_path, config):
    """``jp.load_dataset(cfg, split="lite")`` cuts only the Lite items (#28.4), as ``eval`` does, to the byte the
    rows of a full build's Lite split."""
    lite = load_dataset(config, split="lite", source=photo_dir, cache_dir=str(tmp_path / "lite"))
    assert set(lite.info.splits) == {"lite"}  # the test split was never generated
    full = load_dataset(config, split=None, source=photo_dir, cache_dir=str(tmp_path / "full"))
    assert set(full) == {"test", "lite"} and 1 <= len(lite) < len(full["test"])
    assert lite.data.table.equals(full["lite"].data.table)
    # the test split asked for alone is the full build's test split too
    test = load_dataset(config, split="test", source=photo_dir, cache_dir=str(tmp_path / "lite"))
    assert set(test.info.splits) == {"test"} and test.data.table.equals(full["test"].data.table)
