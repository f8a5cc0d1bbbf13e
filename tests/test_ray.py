"""Builds and the guard's first check on Ray (#47): ``build --engine ray`` writes the one-process export byte for
byte (bad files, a file:// URL, the CLIP-mined config included), survives a killed worker and a killed driver, and
the guard's check as a Ray stage writes the verdicts a later stream reads.

One local Ray (2 CPUs) serves the whole module and is shut down after it. Its workers run
``fixtures.ray_hooks.arm`` at start: every item cut is logged, and a file can slow the cut or kill one worker.
"""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fixtures.photos import make_photo, write_photos

pytestmark = pytest.mark.slow
ray = pytest.importorskip("ray")

CONFIGS = ["missing_piece_selection_easy", "anomaly_detection"]  # distractors from the pool; a slot cycle of 3
TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src"


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Ray on this machine with 2 CPUs, its workers armed (``fixtures.ray_hooks``); the address, the hooks' folder
    and the runtime environment another driver needs to arm its workers alike."""
    hooks = tmp_path_factory.mktemp("ray_hooks")
    env = {"worker_process_setup_hook": "fixtures.ray_hooks.arm",
           "env_vars": {"JP_RAY_TEST_DIR": str(hooks), "JIGSAW_PUZZLES_CACHE": "off",
                        "PYTHONPATH": os.pathsep.join([str(SRC), str(TESTS)])}}
    ray.init(num_cpus=2, runtime_env=env, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address, hooks, env
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> Path:
    """Photos and every kind of bad file (corrupt, truncated, not an image, too small, a resized copy), in a
    subfolder too: each a recorded rejection with its reason, on the cluster as here."""
    folder = tmp_path_factory.mktemp("photos")
    write_photos(folder, 14)
    data = (folder / "photo_003.jpg").read_bytes()
    (folder / "corrupt.jpg").write_bytes(data[:200] + bytes(500) + data[700:])
    (folder / "truncated.jpg").write_bytes(data[: len(data) // 3])
    (folder / "notes.txt").write_text("not a photo")
    (folder / "fake.png").write_bytes(b"\x89PNG not really")
    make_photo(50, (120, 90)).save(folder / "tiny.jpg")
    buf = io.BytesIO()
    make_photo(4).resize((400, 300)).save(buf, "JPEG", quality=80)
    (folder / "sub").mkdir()
    (folder / "sub" / "copy_of_4.jpg").write_bytes(buf.getvalue())
    return folder


@pytest.fixture(scope="module")
def one(photos, tmp_path_factory) -> Path:
    """The one-process export: what every Ray build must write, byte for byte."""
    from jigsaw_puzzles.publishing.export import build

    out = tmp_path_factory.mktemp("one") / "export"
    build(out, source=str(photos), seed=5, configs=CONFIGS, cache_dir=str(out.parent / "cache"))
    return out


def _ray_build(out: Path, source, **kwargs) -> dict:
    from jigsaw_puzzles import build

    kwargs.setdefault("configs", CONFIGS)
    return build(out, source=str(source), seed=5, cache_dir=str(out.parent / "cache"), engine="ray", **kwargs)


def test_a_ray_build_is_the_one_process_export_bad_files_included(cluster, photos, one, tmp_path):
    import datasets

    out = tmp_path / "export"
    report = _ray_build(out, photos, num_proc=2, ray_options={"rows_per_block": 3})  # several blocks a config
    assert _tree(out) == _tree(one)
    assert not (tmp_path / ".export.ray-work").exists()  # what it kept to resume goes with the export in place
    reasons = {r["path"]: r["reason"] for r in report["curation"]["records"] if r["status"] != "accepted"}
    bad = {"corrupt.jpg", "truncated.jpg", "notes.txt", "fake.png", "tiny.jpg"}
    assert bad < set(reasons) and len(reasons) == 6 and all(reasons.values())  # and one of the two copies of photo 4
    assert set(reasons) - bad <= {"photo_004.jpg", "sub/copy_of_4.jpg"}
    for config in CONFIGS:  # stock datasets reads it, no code of ours
        for split in ("test", "lite"):
            rows = datasets.load_dataset(str(out), config, split=split, cache_dir=str(tmp_path / "hf"))
            assert len(rows) == report["configs"][config][split] > 0


def test_a_file_url_source_makes_the_same_items(cluster, photos, one, tmp_path):
    out = tmp_path / "export"
    _ray_build(out, f"file://{photos}")
    built, reference = _tree(out), _tree(one)
    assert built.keys() == reference.keys()
    # every byte, the report too: its fingerprint is of the photos' contents, the same over a URL (#44 2.3)
    assert [k for k in built if built[k] != reference[k]] == []


def test_the_cli_builds_on_ray_and_refuses_what_it_cannot_honour(cluster, photos, one, tmp_path, capsys):
    from jigsaw_puzzles.cli import main

    out = tmp_path / "export"
    assert main(["build", "--out", str(out), "--source", str(photos), "--seed", "5", "--configs", *CONFIGS,
                 "--engine", "ray", "--cache-dir", str(tmp_path / "cache")]) == 0
    assert _tree(out) == _tree(one)
    capsys.readouterr()
    for argv, says in ((["--ray-address", "auto"], "--engine ray"), (["--engine", "ray", "--shard", "0/2"], "--shard"),
                       (["--engine", "ray", "--source", "file:///no/such/folder"], "not found")):
        assert main(["build", "--out", str(tmp_path / "x"), "--configs", CONFIGS[0], *argv]) == 2
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x").exists()


def test_a_killed_worker_is_retried_by_ray_and_the_bytes_are_the_same(cluster, photos, one, tmp_path):
    _, hooks, _ = cluster
    (hooks / "kill-once").touch()
    out = tmp_path / "export"
    _ray_build(out, photos, ray_options={"rows_per_block": 4})
    killed = list(hooks.glob("killed-*"))
    assert len(killed) == 1 and not (hooks / "kill-once").exists()  # a worker was killed mid-cut, once
    assert _tree(out) == _tree(one)
    killed[0].unlink()


DRIVER = """
import sys
from jigsaw_puzzles import build
out, source, address, env, configs = sys.argv[1], sys.argv[2], sys.argv[3], eval(sys.argv[4]), sys.argv[5:]
build(out, source=source, seed=5, configs=configs, cache_dir=out + "-cache", engine="ray", ray_address=address,
      ray_options={"rows_per_block": 2, "runtime_env": env})
"""


def test_a_killed_driver_run_again_cuts_only_the_blocks_not_kept(cluster, photos, one, tmp_path):
    address, hooks, env = cluster
    out, work = tmp_path / "export", tmp_path / ".export.ray-work"
    (hooks / "slow").touch()
    log = hooks / "cut.log"
    log.unlink(missing_ok=True)
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(out), str(photos), address, repr(env), *CONFIGS],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while len(list(work.glob("blocks/*/*.arrow"))) < 3:
            assert driver.poll() is None, driver.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "no block was kept"
            time.sleep(0.05)
        driver.send_signal(signal.SIGKILL)  # the driver dies mid-build
        driver.communicate(timeout=60)
    finally:
        (hooks / "slow").unlink(missing_ok=True)
        if driver.poll() is None:
            driver.kill()
    assert not out.exists()
    _settled(log)  # what the killed driver's last tasks were doing has ended
    kept = set()
    for path in work.glob("blocks/*/*.arrow"):  # the blocks the driver kept before it died
        with pa.ipc.open_stream(pa.memory_map(str(path))) as reader:
            kept |= set(reader.read_all().column("id").to_pylist())
    assert len(kept) >= 5
    cut_before = len(log.read_text().splitlines())
    _ray_build(out, photos, ray_options={"rows_per_block": 2})  # the same command, run again (from here)
    assert _tree(out) == _tree(one) and not work.exists()
    again = ["/".join(line.split()[:2]) for line in log.read_text().splitlines()[cut_before:]]
    items = {i for c in CONFIGS for i in pq.read_table(one / c / "test-00000-of-00001.parquet").column("id").to_pylist()}
    assert kept < items and not set(again) & kept  # nothing kept was cut again
    assert sorted(again) == sorted(items - kept)  # and every other item once


def _settled(log: Path, quiet: float = 3.0) -> None:
    """Wait until ``log`` has not grown for ``quiet`` seconds."""
    size, since = -1, time.monotonic()
    while time.monotonic() - since < quiet:
        now = log.stat().st_size if log.exists() else 0
        if now != size:
            size, since = now, time.monotonic()
        time.sleep(0.1)


def test_the_hard_config_embeds_its_cells_on_ray_into_the_same_cache(cluster, tmp_path):
    from jigsaw_puzzles.publishing.export import build

    clip = {"clip_model": "ViT-S-32", "clip_pretrained": None}  # random weights, made alike everywhere
    config = ["missing_piece_selection_hard"]
    photos = tmp_path / "photos"
    write_photos(photos, 7, start=30)
    (photos / "broken.jpg").write_bytes(b"\xff\xd8 not a photo")
    reference = tmp_path / "one"
    build(reference, source=str(photos), seed=5, configs=config, cache_dir=str(tmp_path / "c1"),
          clip_cache_dir=str(tmp_path / "clip1"), **clip)
    out = tmp_path / "export"
    _ray_build(out, photos, configs=config, num_proc=1, clip_cache_dir=str(tmp_path / "clip2"), **clip)
    assert _tree(out) == _tree(reference)
    report = json.loads((out / "curation_report.json").read_text())
    assert report["clip"]["missing_piece_selection_hard"]["clip_precision"] == "fp32"  # CPUs here: fp32
    embedded = sorted(p.name.split(".")[0] for p in (tmp_path / "clip2").rglob("*.npy"))
    assert embedded == sorted(r["source_id"] for r in report["curation"]["records"] if r["status"] == "accepted")
    # the same cache a one-process build reads: given the cells the Ray stage embedded, it embeds none itself
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "clip2").rglob("*.npy")}
    build(tmp_path / "again", source=str(photos), seed=5, configs=config, cache_dir=str(tmp_path / "c3"),
          clip_cache_dir=str(tmp_path / "clip2"), **clip)
    assert _tree(tmp_path / "again") == _tree(reference)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "clip2").rglob("*.npy")} == before


@pytest.fixture
def guard_folders(tmp_path):
    """Evaluation photos (three embedded ones) and a training folder with a flipped copy and a screenshot of two of
    them and six photos of its own."""
    import shutil

    import numpy as np
    from PIL import Image

    from fixtures.copies import make_copy, saved
    from jigsaw_puzzles.generation.sources import embedded_folder, list_files, normalise

    pytest.importorskip("cv2")
    embedded = list_files(embedded_folder())
    evaluation, train = tmp_path / "eval", tmp_path / "train"
    evaluation.mkdir()
    for k in (3, 17, 40):
        shutil.copy(embedded[k], evaluation / embedded[k].name)
    write_photos(train, 6, start=700)
    rng = np.random.default_rng(5)
    fillers = [normalise(make_photo(5000 + s)) for s in range(4)]
    for kind, k in (("flip", 3), ("screenshot", 40)):
        copy = make_copy(normalise(Image.open(embedded[k])), kind, rng, fillers)
        (train / f"copy_{kind}.jpg").write_bytes(saved(copy, rng))
    return evaluation, train


def test_the_guards_first_check_on_ray_writes_the_verdicts_the_stream_reads(cluster, guard_folders, tmp_path,
                                                                             monkeypatch):
    from jigsaw_puzzles import training_stream
    from jigsaw_puzzles.generation import cachefiles
    from jigsaw_puzzles.training import copies, exclusion

    evaluation, train = guard_folders

    def served(**kwargs):
        rows = training_stream(train, mixture={"order_generation": 1}, exclude=evaluation, eval_fraction=0.0,
                               passes=1, **kwargs)
        return [(r["source_id"], r["answer"]) for r in rows]

    exclusion._CHECKED.clear()
    fresh = served()  # here, nothing kept: the reference
    assert len({sid for sid, _ in fresh}) == 6  # the two copies are not served
    exclusion._CHECKED.clear()
    cache = tmp_path / "cache"
    monkeypatch.setenv(cachefiles.ENV, str(cache))
    training_stream(train, exclude=evaluation, eval_fraction=0.0, engine="ray")  # the first check, on the cluster
    assert len(list(cache.glob("guard/verdicts-*/*-*.json"))) == 1
    assert len(list(cache.glob("guard/features-*/*/*.npy"))) == 8  # every training photo's, written by workers
    exclusion._CHECKED.clear()  # as in another process: the training job's

    def unchecked(self, *args, **kwargs):
        raise AssertionError("a photo was checked again: the verdicts were not read")

    monkeypatch.setattr(copies.Evaluation, "copy_of", unchecked)
    assert served() == fresh  # the stream streams with the verdicts the Ray stage kept
    exclusion._CHECKED.clear()


def test_ordered_map_on_ray_keeps_the_order_and_raises_what_a_job_raises(cluster, monkeypatch):
    import operator

    from jigsaw_puzzles.generation import cluster as engines
    from jigsaw_puzzles.generation.cluster import RayEngine
    from jigsaw_puzzles.generation.workers import on_engine, ordered_map

    done = []
    with RayEngine() as engine, on_engine(engine):
        assert list(ordered_map(operator.neg, list(range(40)), None, done=lambda j, r: done.append(j))) == \
            [-j for j in range(40)]
        assert sorted(done) == list(range(40))
        monkeypatch.setattr(engines, "MIN_WINDOW", 7)  # 40 jobs in 6 consecutive stages: the same order
        assert list(ordered_map(operator.neg, list(range(40)), None)) == [-j for j in range(40)]
        with pytest.raises(ValueError, match="invalid literal"):
            list(ordered_map(int, ["1", "2", "x", "4"], None))
    assert ray.is_initialized()  # the module's Ray, used as it was, is left running
    from jigsaw_puzzles.errors import UsageError

    for kwargs in ({"address": "auto"}, {"runtime_env": {"env_vars": {"A": "1"}}}):  # refused, not ignored
        with pytest.raises(UsageError, match="already started"):
            RayEngine(**kwargs).start()


def test_an_address_nothing_answers_at_is_one_line(tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.run([sys.executable, "-m", "jigsaw_puzzles.cli", "build", "--out", str(tmp_path / "x"),
                           "--configs", CONFIGS[0], "--engine", "ray", "--ray-address", f"127.0.0.1:{port}"],
                          capture_output=True, text=True, timeout=300)  # (Ray itself would wait without end)
    assert proc.returncode == 2 and "cannot reach the Ray cluster" in proc.stderr, proc.stderr[-2000:]
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "x").exists()


def test_the_verl_example_checks_on_ray_and_its_dataset_streams_with_those_verdicts(cluster, guard_folders, tmp_path,
                                                                                     monkeypatch, capsys):
    """examples/verl_ray_stream.py: step 1 (the guard's check on Ray, over a file:// URL) and the data side of step 2
    (``StreamDataset`` as verl makes it, on a stand-in for verl's ``RLHFDataset``: verl itself does not run here)."""
    import importlib
    import types

    from jigsaw_puzzles.generation.sources import content_id
    from jigsaw_puzzles.training import copies, exclusion

    monkeypatch.syspath_prepend(str(TESTS.parent / "examples"))
    example = importlib.import_module("verl_ray_stream")
    evaluation, train = guard_folders
    write_photos(train, 10, start=720)  # enough photos of its own after the 20% hold-out
    cache, url = tmp_path / "cache", f"file://{train}"
    monkeypatch.setenv("JIGSAW_PUZZLES_CACHE", str(cache))  # (the example sets it from --cache too)
    exclusion._CHECKED.clear()
    assert example.main(["--train", url, "--exclude", str(evaluation), "--model", "m", "--cache", str(cache),
                         "--size", "6", "--dry-run"]) == 0
    command = capsys.readouterr().out
    for part in ("-m verl.trainer.main_ppo", f"data.train_files={url}", "data.custom_cls.name=StreamDataset",
                 "data.custom_cls.path=pkg://jigsaw_puzzles.integrations.verl", "+data.jigsaw.size=6",
                 "reward.custom_reward_function.name=compute_score", f"JIGSAW_PUZZLES_CACHE={cache}"):
        assert part in command, part
    assert len(list(cache.glob("guard/verdicts-*/*-*.json"))) == 1

    class RLHFDataset:  # verl 0.9's protocol: the constructor downloads, then reads the files into a dataframe
        def __init__(self, data_files, tokenizer, config, processor=None, max_samples=-1):
            self.original_data_files = list(data_files) if isinstance(data_files, list) else [data_files]
            self.config = config
            self._download()
            self._read_files_and_tokenize()

        def _download(self, use_origin_parquet=False):
            raise AssertionError("a folder of photos is streamed, not downloaded")

        def maybe_filter_out_long_prompts(self, dataframe):
            return dataframe

    stand_in = types.ModuleType("verl.utils.dataset.rl_dataset")
    stand_in.RLHFDataset = RLHFDataset
    for name in ("verl", "verl.utils", "verl.utils.dataset"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "verl.utils.dataset.rl_dataset", stand_in)
    verl = importlib.import_module("jigsaw_puzzles.integrations.verl")
    verl._stream_dataset.cache_clear()
    exclusion._CHECKED.clear()  # verl's TaskRunner: another process

    def unchecked(self, *args, **kwargs):
        raise AssertionError("a photo was checked again: the verdicts of step 1 were not read")

    monkeypatch.setattr(copies.Evaluation, "copy_of", unchecked)
    dataset = getattr(verl, "StreamDataset")(data_files=[url], tokenizer=None, processor=None,
                                             config={"jigsaw": {"size": 6, "exclude": [str(evaluation)]}})
    rows = list(dataset.dataframe)
    assert len(rows) == 6
    copies_ids = {content_id(p.read_bytes()) for p in train.glob("copy_*.jpg")}
    for row in rows:
        assert row["prompt"][0]["content"].count("<image>") == len(row["images"]) > 0
        assert row["extra_info"]["id"].split("/")[1] not in copies_ids
        assert verl.compute_score(row["data_source"], row["reward_model"]["ground_truth"],
                                  row["reward_model"]["ground_truth"], row["extra_info"])["acc"] == 1.0
    verl._stream_dataset.cache_clear()
    exclusion._CHECKED.clear()
