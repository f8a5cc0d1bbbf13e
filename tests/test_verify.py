"""`jigsaw-puzzles verify EXPORT` (#28.1): an export rebuilt here is identical; an edited item is reported; a
hard item's distractors that differ only through a similarity at a rounding edge are a near-tie, anything else
not; the random-init CLIP is the same model whatever the CPU kernels."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from jigsaw_puzzles.cli import main

HARD = "missing_piece_selection_hard"


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    pytest.importorskip("open_clip")
    from jigsaw_puzzles.publishing.export import build

    root = tmp_path_factory.mktemp("verify")
    out = root / "export"
    build(out, configs=["order_restoration", HARD], cache_dir=str(root / "cache"),
          clip_cache_dir=str(root / "clip"), clip_model="ViT-S-32", clip_pretrained=None)
    return out, str(root / "clip")


def _edit(src, dst, config, change):
    shutil.copytree(src, dst)
    path = dst / config / "test-00000-of-00001.parquet"
    table = pq.read_table(path)
    rows = table.to_pylist()
    change(rows[0])
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    return rows[0]["id"]


@pytest.mark.slow
def test_an_export_rebuilt_here_is_identical_and_an_edited_item_is_not(export, tmp_path, capsys):
    out, clip = export
    assert json.loads((out / "curation_report.json").read_text())["answer_plan"] == "quota"
    assert main(["verify", str(out), "--clip-cache-dir", clip]) == 0
    text = capsys.readouterr().out
    import re
    for config in ("order_restoration", HARD):
        assert re.search(rf"{config}\s+(\d+)/\1 identical, 0 near-ties, 0 differ", text), text
    assert "every item is byte-identical here" in text and "DIFFERS" not in text

    edited = tmp_path / "edited"
    rid = _edit(out, edited, "order_restoration", lambda r: r.update(answer="A" if r["answer"] != "A" else "B"))
    assert main(["verify", str(edited), "--clip-cache-dir", clip]) == 1
    text = capsys.readouterr().out
    assert f"test:{rid}: DIFFERS: differs in answer" in text and "not reproduced here: order_restoration" in text


@pytest.mark.slow
def test_a_hard_item_with_other_distractors_is_not_a_near_tie(export, tmp_path, capsys):
    out, clip = export

    def swap(row):  # the second distractor replaced by another photo's cell, its similarity kept
        meta = json.loads(row["metadata"])
        meta["distractors"][1]["cell"] = (meta["distractors"][1]["cell"] + 1) % 9
        row["metadata"] = json.dumps(meta, sort_keys=True)

    edited = tmp_path / "hard"
    rid = _edit(out, edited, HARD, swap)
    assert main(["verify", str(edited), "--clip-cache-dir", clip]) == 1
    text = capsys.readouterr().out
    assert f"test:{rid}: DIFFERS: differs in metadata" in text and "0 near-ties, 1 differ" in text


def test_usage_errors_are_one_line(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["verify", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a jigsaw-puzzles export" in err and err.count("\n") == 1
    (tmp_path / "curation_report.json").write_text(json.dumps(
        {"configs": {"order_restoration": {}}, "seed": 0, "curation": {"embedded": False, "folder": "photos"}}))
    assert main(["verify", str(tmp_path)]) == 2
    assert "pass it with --source DIR" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ the near-tie rule
def _bank(vectors: dict[str, list[float]]):
    from jigsaw_puzzles.generation.clip import EmbedStats, PatchBank, WeightsSpec

    ids = list(vectors)
    emb = np.array([vectors[i] for i in ids], np.float32)
    return PatchBank([i for i in ids], [(0, 0)] * len(ids), [f"{i}/r0c0" for i in ids],
                     [hashlib.sha256(i.encode()).hexdigest() for i in ids], [(8, 8)] * len(ids), emb,
                     EmbedStats(), WeightsSpec("m", None, "random", "r"), "fp32")


def _unit(sim: float, axis: int) -> list[float]:
    """A unit vector at cosine ``sim`` to (1, 0, 0, 0), the rest on its own axis (candidates far from each other)."""
    v = [sim, 0.0, 0.0, 0.0]
    v[axis] = float(np.sqrt(1 - sim * sim))
    return v


def test_a_similarity_at_a_rounding_edge_explains_the_swap_and_nothing_else_does():
    from jigsaw_puzzles.generation.clip import nearest_neighbours
    from jigsaw_puzzles.generation.clip.ties import explain_item

    # "a" lies 1e-7 under the edge 0.7995: here it rounds to 0.799 and comes after "b" (0.800); a machine whose
    # kernels put it 2e-7 higher rounds it to 0.800, and the id order puts it first
    bank = _bank({"t": [1.0, 0.0, 0.0, 0.0], "a": _unit(0.7994999, 1), "b": _unit(0.8, 2), "c": _unit(0.5, 3)})
    groups = np.arange(4)
    idx, sims = nearest_neighbours(bank.embeddings[:1], bank.embeddings, bank.region_ids, 2,
                                   query_groups=groups[:1], pool_groups=groups)
    assert [bank.source_ids[j] for j in idx[0]] == ["b", "a"] and list(sims[0]) == [0.8, 0.799]

    def shown(cands):
        return [{"source_id": s, "cell": c, "similarity": v} for s, c, v in cands]

    here = [{"source_id": "b", "cell": 0, "similarity": 0.8}, {"source_id": "a", "cell": 0, "similarity": 0.799}]
    there = [{"source_id": "a", "cell": 0, "similarity": 0.8}, {"source_id": "b", "cell": 0, "similarity": 0.8}]
    why = explain_item(bank, groups, 0, there, here, k=2, shown=shown)
    assert why is not None and "a/r0c0" in why
    # planted changes: another candidate, a similarity off by a step, another order: not explained
    for planted in ([here[0], {"source_id": "c", "cell": 0, "similarity": 0.5}],
                    [{"source_id": "b", "cell": 0, "similarity": 0.801}, here[1]],
                    [{"source_id": "a", "cell": 0, "similarity": 0.799}, here[0]]):
        assert explain_item(bank, groups, 0, planted, here, k=2, shown=shown) is None
    # far from any edge the same swap is not a near-tie
    far = _bank({"t": [1.0, 0.0, 0.0, 0.0], "a": _unit(0.7991, 1), "b": _unit(0.8, 2), "c": _unit(0.5, 3)})
    assert explain_item(far, groups, 0, there, here, k=2, shown=shown) is None


@pytest.mark.slow
def test_the_random_init_clip_is_the_same_model_whatever_the_cpu_kernels(tmp_path):
    pytest.importorskip("open_clip")
    code = ("import hashlib, torch\nfrom jigsaw_puzzles.generation.clip.weights import resolve_clip_weights, "
            "_build_model\nm, _ = _build_model(resolve_clip_weights('ViT-S-32', None, allow_random_init=True), "
            "'cpu')\nh = hashlib.sha256()\nfor v in m.state_dict().values(): h.update(v.numpy().tobytes())\n"
            "print(h.hexdigest())")
    digests = set()
    for env in ({"ATEN_CPU_CAPABILITY": "default"}, {"ONEDNN_MAX_CPU_ISA": "SSE41"}, {}):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, **env}, check=True)
        digests.add(run.stdout.strip())
    assert len(digests) == 1, digests


# ------------------------------------------------------------------------- a hard config built from a weights file
@pytest.fixture(scope="module")
def file_export(tmp_path_factory):
    """An export of the hard config from 6 photos, built with a random-init ViT-S-32 saved to a local file."""
    open_clip = pytest.importorskip("open_clip")
    import safetensors.torch

    from fixtures.photos import write_photos

    root = tmp_path_factory.mktemp("clip_file")
    weights = root / "home" / "me" / "vit_s_32_random.safetensors"
    weights.parent.mkdir(parents=True)
    safetensors.torch.save_file(open_clip.create_model("ViT-S-32", pretrained=None).state_dict(), str(weights))
    photos = root / "photos"
    write_photos(photos, 6, start=500, size=(384, 288))
    out = root / "export"
    assert main(["build", "--out", str(out), "--source", str(photos), "--configs", HARD, "--clip-model", "ViT-S-32",
                 "--clip-pretrained", str(weights), "--clip-cache-dir", str(root / "clip"),
                 "--cache-dir", str(root / "cache")]) == 0
    return out, photos, weights, str(root / "clip")


@pytest.mark.slow
def test_an_export_built_from_a_weights_file_records_it_and_verifies_with_it(file_export, tmp_path, capsys):
    out, photos, weights, clip = file_export
    capsys.readouterr()
    report = json.loads((out / "curation_report.json").read_text())
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    assert report["clip"][HARD]["clip_pretrained"] == weights.name
    assert report["clip"][HARD]["clip_weights"] == f"sha256:{digest}"
    assert set(report["item_versions"]) >= {"pillow", "libjpeg", "zlib", "numpy", "torch", "open_clip"}
    for path in out.rglob("*"):  # the builder's home is in no file of the export (the item rows included)
        if path.is_file():
            assert str(weights.parent).encode() not in path.read_bytes(), path
    base = ["verify", str(out), "--source", str(photos), "--clip-cache-dir", clip]

    def one_line(args, *words):
        assert main(base + args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and all(w in err for w in words), err

    one_line([], f"built with the CLIP weights file {weights.name}", "pass that file with --clip-pretrained")
    one_line(["--clip-pretrained", str(tmp_path / "missing.safetensors")], "no such file", weights.name)
    other = tmp_path / "other.safetensors"
    other.write_bytes(weights.read_bytes()[:-1] + bytes([weights.read_bytes()[-1] ^ 1]))
    one_line(["--clip-pretrained", str(other)], "is not the weights file", digest[:16])
    # the right file under another name and folder: every item identical
    moved = tmp_path / "elsewhere" / "renamed.safetensors"
    moved.parent.mkdir()
    shutil.copyfile(weights, moved)
    assert main(base + ["--clip-pretrained", str(moved)]) == 0, capsys.readouterr().out
    text = capsys.readouterr().out
    assert "every item is byte-identical here" in text and "EXPORT:" not in text and "versions" not in text, text
    # an export of generator 3.1.0 has no 'clip' record: its items name the weights; with neither, exit 2
    edited = tmp_path / "edited"
    shutil.copytree(out, edited)
    report.pop("clip")
    (edited / "curation_report.json").write_text(json.dumps(report))
    base[1] = str(edited)
    assert main(base + ["--clip-pretrained", str(moved)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    for path in edited.glob(f"{HARD}/*.parquet"):
        table = pq.read_table(path)
        rows = table.to_pylist()
        for row in rows:
            row["metadata"] = json.dumps({k: v for k, v in json.loads(row["metadata"]).items()
                                          if not k.startswith("clip_")}, sort_keys=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    one_line(["--clip-pretrained", str(moved)], "records no CLIP model and weights")


@pytest.mark.slow
def test_verify_names_the_versions_that_differ_before_it_compares(file_export, tmp_path, capsys):
    out, photos, weights, clip = file_export
    edited = tmp_path / "edited"
    shutil.copytree(out, edited)
    report = json.loads((edited / "curation_report.json").read_text())
    report["item_versions"].update(pillow="9.9.9", torch="1.0")
    (edited / "curation_report.json").write_text(json.dumps(report))
    capsys.readouterr()
    code = main(["verify", str(edited), "--source", str(photos), "--clip-cache-dir", clip,
                 "--clip-pretrained", str(weights)])
    text = capsys.readouterr().out
    import PIL
    import torch
    assert f"pillow: 9.9.9 built the export, {PIL.__version__} runs here" in text, text
    assert f"torch: 1.0 built the export, {torch.__version__.split('+')[0]}" in text, text
    assert text.index("pillow: 9.9.9") < text.index(HARD + " ") and code == 0, text  # named first; items compared
