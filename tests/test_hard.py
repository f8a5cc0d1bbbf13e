"""missing_piece_selection_hard through the builder: random-init ViT-S-32, no network."""

import json

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # builds with a CLIP model

pytest.importorskip("open_clip")

from jigsaw_puzzles import load_dataset, make_builder  # noqa: E402
from jigsaw_puzzles.generation.clip import ClipWeightsUnavailable  # noqa: E402
from jigsaw_puzzles.errors import ConfigUnavailable  # noqa: E402
from jigsaw_puzzles.publishing.export import build  # noqa: E402

CLIP = {"clip_model": "ViT-S-32", "clip_pretrained": None}


@pytest.fixture(scope="module")
def clip_cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("clip"))


@pytest.fixture(scope="module")
def hard(photo_dir, cache_dir, clip_cache):
    return load_dataset("missing_piece_selection_hard", source=photo_dir, cache_dir=cache_dir,
                        clip_cache_dir=clip_cache, **CLIP)


def test_hard_equals_easy_but_for_distractors(hard, photo_dir, cache_dir):
    easy = {r["source_id"]: r for r in load_dataset("missing_piece_selection_easy", source=photo_dir,
                                                    cache_dir=cache_dir)}
    assert len(hard) == len(easy) == 16
    for row in hard:
        twin = easy[row["source_id"]]
        m, e = json.loads(row["metadata"]), json.loads(twin["metadata"])
        assert (row["answer"], m["region"], m["box"], row["question"]) == (twin["answer"], e["region"], e["box"],
                                                                           twin["question"])
        assert row["images"][0].tobytes() == twin["images"][0].tobytes()  # same blanked image
        truth = "ABCD".index(row["answer"]) + 1
        assert row["images"][truth].tobytes() == twin["images"][truth].tobytes()
        assert m["clip_model"] == "ViT-S-32" and m["clip_pretrained"] is None
        sims = [d["similarity"] for d in m["distractors"]]
        assert sims == sorted(sims, reverse=True) and all(s <= m["clip_max_similarity"] for s in sims)  # rounded
        assert row["source_id"] not in {d["source_id"] for d in m["distractors"]}


def test_hard_distractors_are_closer_than_easy_ones(hard, photo_dir, cache_dir):
    """Under the mining embedding, hard distractors are more similar to the truth than easy ones."""
    from jigsaw_puzzles.generation.clip import ClipMiner

    miner = ClipMiner("ViT-S-32", None, allow_random_init=True, progress=False)
    easy = {r["source_id"]: r for r in load_dataset("missing_piece_selection_easy", source=photo_dir,
                                                    cache_dir=cache_dir)}
    gaps = []
    for row in hard:
        truth = "ABCD".index(row["answer"]) + 1
        twin = easy[row["source_id"]]
        emb_h = miner.embedder.embed(row["images"][1:])
        emb_e = miner.embedder.embed(twin["images"][1:])
        others = [i for i in range(4) if i != truth - 1]
        gaps.append(np.mean(emb_h[others] @ emb_h[truth - 1]) - np.mean(emb_e[others] @ emb_e[truth - 1]))
    assert np.mean(gaps) > 0 and np.mean(np.array(gaps) > 0) >= 0.75


def test_second_build_computes_no_embeddings(photo_dir, clip_cache, tmp_path, hard):
    builder = make_builder("missing_piece_selection_hard", photo_dir, 0, str(tmp_path / "fresh"),
                           clip_cache_dir=clip_cache, **CLIP)
    builder.download_and_prepare()
    assert builder.preparation().miner.patches_computed == 0
    rows = builder.as_dataset("test")
    assert rows["metadata"] == hard["metadata"]  # and it is the same dataset


def test_offline_without_weights_stops_before_work(photo_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty_hf_home"))
    builder = make_builder("missing_piece_selection_hard", photo_dir, 0, str(tmp_path / "c"),
                           clip_model="ViT-B-32", clip_pretrained="openai")
    with pytest.raises(ConfigUnavailable) as err:  # the hard task's preparation, wrapping ClipWeightsUnavailable
        builder.download_and_prepare()
    assert isinstance(err.value.__cause__, ClipWeightsUnavailable)
    message = str(err.value)
    assert "ViT-B-32" in message and "openai" in message and "checkpoint" in message
    assert builder._plan is None  # nothing was curated or generated
    # the default export skips it with the reason; asking for it explicitly raises
    report = build(tmp_path / "out", source=str(photo_dir), configs=None, cache_dir=str(tmp_path / "c2"))
    assert "missing_piece_selection_hard" in report["skipped_configs"]
    assert "missing_piece_selection_hard" not in report["configs"]
    with pytest.raises(ConfigUnavailable):
        build(tmp_path / "out2", source=str(photo_dir), configs=["missing_piece_selection_hard"],
              cache_dir=str(tmp_path / "c3"))


def test_random_init_must_be_explicit(photo_dir, tmp_path):
    builder = make_builder("missing_piece_selection_hard", photo_dir, 0, str(tmp_path), clip_model="ViT-S-32")
    with pytest.raises((ValueError, RuntimeError)):  # default tag 'openai' is not a ViT-S-32 tag
        builder.preparation()


def test_hard_identical_across_num_proc(photo_dir, clip_cache, tmp_path, hard):
    two = load_dataset("missing_piece_selection_hard", source=photo_dir, cache_dir=str(tmp_path), num_proc=2,
                       clip_cache_dir=clip_cache, **CLIP)
    assert two["metadata"] == hard["metadata"]
    assert [[im.tobytes() for im in r["images"]] for r in two] == [[im.tobytes() for im in r["images"]] for r in hard]


def test_unreachable_hub_fails_fast(monkeypatch, tmp_path):
    """No network and no HF_HUB_OFFLINE: one probe, a clear error, no download attempt (no retries)."""
    import huggingface_hub
    from huggingface_hub import constants

    from jigsaw_puzzles.generation.clip import weights as clip_weights

    def no_download(*args, **kwargs):
        raise AssertionError("a download was attempted after the probe failed")

    probes = []
    real_probe = clip_weights._hub_unreachable
    monkeypatch.setattr(clip_weights, "_hub_offline", lambda: False)
    monkeypatch.setattr(clip_weights, "_hub_unreachable", lambda *a, **k: probes.append(1) or real_probe(*a, **k))
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", no_download)
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")  # discard port: refused
    with pytest.raises(ClipWeightsUnavailable, match="unreachable"):
        clip_weights.resolve_clip_weights("ViT-B-32", "openai", hf_cache_dir=str(tmp_path))
    assert probes == [1]


def test_cli_build_and_eval_hard(photo_dir, clip_cache, tmp_path, monkeypatch, capsys, hard):
    import datasets

    from jigsaw_puzzles.cli import main

    cache = str(tmp_path / "hf")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache)
    clip = ["--clip-model", "ViT-S-32", "--clip-random-init", "--clip-cache-dir", clip_cache]
    out = tmp_path / "export"
    assert main(["build", "--out", str(out), "--source", str(photo_dir), "--configs",
                 "missing_piece_selection_hard", "--cache-dir", cache, *clip]) == 0
    exported = datasets.load_dataset(str(out), "missing_piece_selection_hard", split="test")
    assert exported["metadata"] == hard["metadata"]
    run = tmp_path / "run"
    assert main(["eval", "--model", "solver", "--configs", "missing_piece_selection_hard", "--source",
                 str(photo_dir), "--out", str(run), "--no-progress", *clip]) == 0
    results = json.loads((run / "results.json").read_text())
    assert results["metrics"]["missing_piece_selection_hard"]["n"] == 16
    assert json.loads((run / "run.json").read_text())["dataset_options"] == {
        "missing_piece_selection_hard": {"clip_model": "ViT-S-32", "clip_pretrained": "random-init"}}


def test_hard_on_any_grid(photo_dir, cache_dir, clip_cache, tmp_path, monkeypatch):
    """missing_piece_selection_hard_<R>x<C>_k<K>: the easy grid item with the K - 1 nearest cells of the other
    sources' R x C grids (under the mining model), through the builder and the CLI's --grid."""
    import datasets

    from jigsaw_puzzles.cli import main
    from jigsaw_puzzles.generation.clip import ClipMiner
    from jigsaw_puzzles.spec import get as get_spec
    from jigsaw_puzzles.generation.tasks.order_restoration import grid_cells
    from jigsaw_puzzles.generation.tasks.missing_piece_selection import acceptable, Distractor

    hard = load_dataset("missing_piece_selection_hard_2x3_k5", source=photo_dir, cache_dir=cache_dir,
                        clip_cache_dir=clip_cache, **CLIP)
    easy = {r["source_id"]: r for r in load_dataset("missing_piece_selection_easy_2x3_k5", source=photo_dir,
                                                    cache_dir=cache_dir)}
    assert get_spec("missing_piece_selection_hard_2x3_k5").family == "missing_piece_selection_easy_2x3_k5"
    assert len(hard) == len(easy) == 16
    miner = ClipMiner("ViT-S-32", None, allow_random_init=True, progress=False, rows=2, cols=3)
    photos = {sid: builder_image for sid, builder_image in _normalised(photo_dir)}
    bank = miner.embed_sources(photos)
    for row in hard:
        twin, m = easy[row["source_id"]], json.loads(row["metadata"])
        e = json.loads(twin["metadata"])
        assert (row["answer"], m["region"], m["box"], m["grid"], row["question"]) == (
            twin["answer"], e["region"], e["box"], e["grid"], twin["question"])
        assert m["difficulty"] == "hard" and len(row["images"]) == 6 and len(m["distractors"]) == 4
        assert row["images"][0].tobytes() == twin["images"][0].tobytes()  # the same blanked image
        truth_at = "ABCDE".index(row["answer"]) + 1
        assert row["images"][truth_at].tobytes() == twin["images"][truth_at].tobytes()
        # the distractors are the nearest admissible cells, in order: re-mine this item's blank and replay the rule
        mined = miner.mine(bank, [(row["source_id"], *divmod(m["region"], 3))], k=8, strict=False)[0]
        truth, chosen = row["images"][truth_at], []
        for c in mined.distractors:
            patch = grid_cells(photos[c.source_id], 2, 3)[c.row * 3 + c.col].resize(truth.size)
            if acceptable(patch, truth, chosen):
                chosen.append(Distractor(c.source_id, c.row * 3 + c.col, patch, c.similarity))
        assert [(d["source_id"], d["cell"], d["similarity"]) for d in m["distractors"]] == \
            [(d.source_id, d.cell, d.similarity) for d in chosen[:4]]
        assert row["source_id"] not in {d["source_id"] for d in m["distractors"]}
    assert main(["build", "--configs", "missing_piece_selection_hard", "--grid", "2x3", "--source", str(photo_dir),
                 "--out", str(tmp_path / "x"), "--cache-dir", str(tmp_path / "hf"), "--clip-model", "ViT-S-32",
                 "--clip-random-init", "--clip-cache-dir", clip_cache]) == 0
    built = datasets.load_dataset(str(tmp_path / "x"), "missing_piece_selection_hard_2x3", split="test")
    assert len(built) == 16 and {len(json.loads(r)["distractors"]) for r in built["metadata"]} == {3}
    import jigsaw_puzzles as jp
    with pytest.raises(ValueError, match="cannot cut"):  # the stream has no whole-folder mining step
        jp.training_stream(str(photo_dir), mixture={"missing_piece_selection_hard_2x3": 1})


def _normalised(folder):
    from jigsaw_puzzles.generation.sources import read_source
    from jigsaw_puzzles.generation.curation import curate

    return [(s.source_id, read_source(s.path)[1]) for s in curate(folder).accepted]
