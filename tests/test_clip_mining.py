"""Tests for jigsaw_puzzles.generation.clip (issue #3).

Everything runs offline on CPU with a randomly initialised open_clip ``ViT-S-32``
(``pretrained=None``) and synthetic sources (tests/fixtures/photos.py), one exact duplicate source and one near duplicate (+3 grey levels).
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

pytestmark = pytest.mark.slow  # runs a CLIP model
pytest.importorskip("torch")
pytest.importorskip("open_clip")

from fixtures.photos import make_photo  # noqa: E402
from jigsaw_puzzles.generation import clip as cm  # noqa: E402

MODEL = "ViT-S-32"
CELL = 96
N_DISTINCT = 7
DUP_ID = "d0d0d0d0d0d0d0d0"    # exact copy of source 0
NEAR_ID = "e0e0e0e0e0e0e0e0"   # source 0 with +3 on every channel


def synth(seed: int, cell: int = CELL) -> Image.Image:
    """A 3x3-cell source from the shared synthesizer (tests/fixtures/photos.py)."""
    return make_photo(seed, (3 * cell, 3 * cell))


def sid(i: int) -> str:
    return hashlib.sha256(f"source-{i}".encode()).hexdigest()[:16]


def make_sources() -> dict[str, Image.Image]:
    src = {sid(i): synth(i) for i in range(N_DISTINCT)}
    src[DUP_ID] = synth(0)
    near = np.asarray(synth(0)).astype(np.int16) + 3
    src[NEAR_ID] = Image.fromarray(near.clip(0, 255).astype(np.uint8))
    return src


def targets_of(source_ids):
    return [(s, r, c) for s in source_ids for r in range(3) for c in range(3)]


DISTINCT_TARGETS = targets_of([sid(i) for i in range(N_DISTINCT)])


def run_mining(cache_dir) -> tuple[cm.ClipMiner, cm.PatchBank, list[cm.MinedDistractors]]:
    miner = cm.ClipMiner(MODEL, None, allow_random_init=True, device="cpu", cache_dir=cache_dir,
                         batch_size=16, progress=False)
    bank = miner.embed_sources(make_sources())
    return miner, bank, miner.mine(bank, DISTINCT_TARGETS)


def picks_of(mined):
    return [[(d.region_id, d.similarity) for d in m.distractors] for m in mined]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    cache = tmp_path_factory.mktemp("clip-cache")
    miner, bank, mined = run_mining(cache)
    return cache, miner, bank, mined


# --------------------------------------------------------------------------- #
def test_random_init_refused_without_opt_in():
    with pytest.raises(ValueError, match="allow_random_init"):
        cm.load_clip(MODEL, None)
    with pytest.raises(ValueError, match="allow_random_init"):
        cm.ClipMiner(MODEL, None)
    with pytest.raises(ValueError, match="neither an open_clip tag"):
        cm.resolve_clip_weights(MODEL, "no-such-tag")


def test_offline_error_before_any_work(monkeypatch, tmp_path):
    import open_clip

    def boom(*a, **k):
        raise AssertionError("a model was built although the weights are unavailable")

    monkeypatch.setattr(open_clip, "create_model_and_transforms", boom)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    empty = tmp_path / "empty-hf-cache"
    empty.mkdir()
    with pytest.raises(cm.ClipWeightsUnavailable) as ei:
        cm.ClipMiner("ViT-B-32", "laion2b_s34b_b79k", hf_cache_dir=str(empty), cache_dir=tmp_path)
    msg = str(ei.value)
    assert isinstance(ei.value, RuntimeError)
    for needle in ("'ViT-B-32'", "'laion2b_s34b_b79k'", "clip_pretrained=", "checkpoint file",
                   "hf download laion/CLIP-ViT-B-32-laion2B-s34B-b79K",
                   "Hugging Face cache"):
        assert needle in msg, (needle, msg)
    with pytest.raises(cm.ClipWeightsUnavailable):
        cm.load_clip("ViT-B-32", "openai", hf_cache_dir=str(empty))
    assert not list(tmp_path.glob("**/*.npy"))


def test_determinism_runs_and_processes(first_run, tmp_path):
    _, _, bank1, mined1 = first_run
    # a second in-process run with its own (empty) cache recomputes everything
    miner2, bank2, mined2 = run_mining(tmp_path / "run2")
    assert bank2.stats.patches_computed == len(bank2)
    assert bank1.embeddings.tobytes() == bank2.embeddings.tobytes()
    assert picks_of(mined1) == picks_of(mined2)
    # a separate process (fresh interpreter, fresh cache)
    code = (
        "import sys, json, hashlib; sys.path.insert(0, sys.argv[1]);"
        "import test_clip_mining as t;"
        "m, b, r = t.run_mining(sys.argv[2]);"
        "print(json.dumps({'emb': hashlib.sha256(b.embeddings.tobytes()).hexdigest(),"
        " 'picks': t.picks_of(r), 'computed': b.stats.patches_computed}))"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(cm.__file__).parents[2]), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent),
                          str(tmp_path / "run3")], capture_output=True, text=True, env=env,
                         check=True, timeout=300)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["computed"] == len(bank1)
    assert res["emb"] == hashlib.sha256(bank1.embeddings.tobytes()).hexdigest()
    assert [[tuple(p) for p in row] for row in res["picks"]] == picks_of(mined1)


def test_global_rng_untouched():
    import torch
    torch.manual_seed(1234)
    expected = torch.rand(3)
    torch.manual_seed(1234)
    cm.load_clip(MODEL, None, device="cpu", allow_random_init=True)
    assert torch.equal(torch.rand(3), expected)


def test_cache_reuse_computes_nothing(first_run):
    cache, _, bank1, mined1 = first_run
    miner, bank, mined = run_mining(cache)
    assert bank.stats.patches_computed == 0 and bank.stats.sources_computed == 0
    assert bank.stats.sources_from_cache == len(make_sources())
    assert miner.patches_computed == 0
    assert miner._embedder is None  # the model was not even built
    assert bank.embeddings.tobytes() == bank1.embeddings.tobytes()
    assert picks_of(mined) == picks_of(mined1)
    files = list(miner.cache.dir.glob("*.npy"))
    assert len(files) == len(make_sources()) and (miner.cache.dir / "meta.json").exists()
    # another seed / another split = another target subset: still nothing to compute
    sub = miner.mine(bank, DISTINCT_TARGETS[5:20])
    assert picks_of(sub) == picks_of(mined1)[5:20] and miner.patches_computed == 0


def test_interrupted_cache_write_leaves_no_corrupt_file(first_run, tmp_path, monkeypatch):
    _, miner, bank, _ = first_run
    cache = cm.EmbeddingCache(tmp_path, miner.spec, "fp32")
    emb = bank.embeddings[:9]
    real_save = np.save

    def half_then_crash(f, arr, allow_pickle=False):
        f.write(b"\x93NUMPY partial")
        raise KeyboardInterrupt("killed mid-write")

    monkeypatch.setattr(np, "save", half_then_crash)
    with pytest.raises(KeyboardInterrupt):
        cache.store("abcdabcdabcdabcd", "f" * 64, emb)
    monkeypatch.setattr(np, "save", real_save)
    assert not cache.path("abcdabcdabcdabcd", "f" * 64).exists()
    assert [p.name for p in cache.dir.iterdir() if p.name != "meta.json"] == []
    assert cache.load("abcdabcdabcdabcd", "f" * 64) is None
    # a truncated file (e.g. copied from elsewhere) is ignored, then atomically replaced
    p = cache.store("abcdabcdabcdabcd", "f" * 64, emb)
    p.write_bytes(p.read_bytes()[:50])
    assert cache.load("abcdabcdabcdabcd", "f" * 64) is None
    cache.store("abcdabcdabcdabcd", "f" * 64, emb)
    assert np.array_equal(cache.load("abcdabcdabcdabcd", "f" * 64), emb)


def test_embed_sources_interrupted_keeps_finished_sources(tmp_path, monkeypatch):
    miner = cm.ClipMiner(MODEL, None, allow_random_init=True, device="cpu", cache_dir=tmp_path,
                         batch_size=9, progress=False)
    sources = make_sources()
    real = cm.PatchEmbedder.embed
    calls = {"n": 0}

    def flaky(self, patches, desc="x"):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, patches, desc)

    monkeypatch.setattr(cm.PatchEmbedder, "embed", flaky)
    with pytest.raises(KeyboardInterrupt):
        miner.embed_sources(sources)
    done = len(list(miner.cache.dir.glob("*.npy")))
    assert 0 < done < len(sources)
    monkeypatch.setattr(cm.PatchEmbedder, "embed", real)
    bank = miner.embed_sources(sources)
    assert bank.stats.sources_from_cache == done
    assert bank.stats.sources_computed == len(sources) - done


def test_duplicates_excluded(first_run):
    _, miner, bank, mined = first_run
    dup_family = {sid(0), DUP_ID, NEAR_ID}
    for m in mined:
        truth = bank.index(m.source_id, m.row, m.col)
        assert len(m.distractors) == 3
        seen = set()
        for d in m.distractors:
            assert d.source_id != m.source_id
            if m.source_id in dup_family:
                assert d.source_id not in dup_family
            assert bank.pixel_digests[d.pool_index] != bank.pixel_digests[truth]
            assert d.similarity <= cm.DEFAULT_MAX_SIMILARITY
            assert bank.pixel_digests[d.pool_index] not in seen
            seen.add(bank.pixel_digests[d.pool_index])
    # the duplicate sources really are (near) duplicates under this embedding
    for other in (DUP_ID, NEAR_ID):
        a, b = bank.index(sid(0), 1, 1), bank.index(other, 1, 1)
        assert float(bank.embeddings[a] @ bank.embeddings[b]) > cm.DEFAULT_MAX_SIMILARITY
    groups = cm.duplicate_source_groups(bank)
    g = {s: groups[bank.index(s, 0, 0)] for s in dict.fromkeys(bank.source_ids)}
    assert g[DUP_ID] == g[sid(0)] == g[NEAR_ID]
    assert len(set(g.values())) == N_DISTINCT
    # without merging duplicate sources, the per-patch rules still exclude the copies
    # of the true patch (pixel-identical / above the bound)
    raw = miner.mine(bank, targets_of([sid(0)]), merge_duplicate_sources=False)
    for m in raw:
        twins = {cm.region_id(DUP_ID, m.row, m.col), cm.region_id(NEAR_ID, m.row, m.col)}
        assert not twins & {d.region_id for d in m.distractors}


def test_mined_closer_than_random_under_the_model(first_run):
    import torch
    _, miner, bank, mined = first_run
    model, preprocess, _ = cm.load_clip(MODEL, None, device="cpu", allow_random_init=True)
    sources = make_sources()
    cells = {s: cm.grid_cells(img) for s, img in sources.items()}

    keys = [(s, r, c) for s in sources for r in range(3) for c in range(3)]
    with torch.inference_mode():  # embed with the bare model, independently of the bank
        x = torch.stack([preprocess(cells[s][r * 3 + c]) for s, r, c in keys])
        f = model.encode_image(x).double()
        f = (f / f.norm(dim=1, keepdim=True)).numpy()
    fresh = dict(zip(keys, f))

    def emb(s, r, c):
        return fresh[(s, r, c)]

    rng = np.random.default_rng(0)
    groups = cm.duplicate_source_groups(bank)
    hard, rand = [], []
    for m in mined:
        t = emb(m.source_id, m.row, m.col)
        hs = [float(t @ emb(d.source_id, d.row, d.col)) for d in m.distractors]
        # recorded to SIMILARITY_DECIMALS (generator 3.1.0): the bare model's value, rounded
        scale = 10 ** cm.SIMILARITY_DECIMALS
        assert np.allclose(np.array(hs) * scale, np.array([d.similarity for d in m.distractors]) * scale,
                           atol=0.5 + 1e-3)
        qi = bank.index(m.source_id, m.row, m.col)
        admissible = np.flatnonzero(groups != groups[qi])
        pick = rng.choice(admissible, 3, replace=False)
        rs = [float(t @ emb(bank.source_ids[j], *bank.cells[j])) for j in pick]
        assert np.mean(hs) >= np.mean(rs) - 1e-6
        hard.append(np.mean(hs))
        rand.append(np.mean(rs))
    assert np.mean(hard) > np.mean(rand) + 0.05, (np.mean(hard), np.mean(rand))


def test_checkpoint_file_gives_same_weights(first_run, tmp_path):
    import torch
    _, _, bank1, _ = first_run
    model, _, _ = cm.load_clip(MODEL, None, device="cpu", allow_random_init=True)
    ckpt = tmp_path / "vit-s-32-random.pt"
    torch.save(model.state_dict(), ckpt)
    miner = cm.ClipMiner(MODEL, str(ckpt), device="cpu", cache_dir=tmp_path / "c",
                         batch_size=16, progress=False)
    assert miner.spec.kind == "file" and miner.spec.identity.startswith("sha256:")
    bank = miner.embed_sources(make_sources())
    assert np.array_equal(bank.embeddings, bank1.embeddings)


# --------------------------------------------------------------------------- #
def reference_search(q, p, ids, k, qg, pg, qk, pk, max_sim, distinct=True):
    """Brute force: full Q x P matrix, same rules as nearest_neighbours."""
    q64, p64 = q.astype(np.float64), p.astype(np.float64)
    scale = 10 ** cm.SIMILARITY_DECIMALS  # decisions read the rounded float64 similarity
    S32 = np.rint(q64 @ p64.T * scale).astype(np.int64)
    bound = None if max_sim is None else int(round(max_sim * scale))
    P_units = np.rint(p64 @ p64.T * scale).astype(np.int64)
    out = []
    for i in range(len(q)):
        ok = (pg != qg[i]) & (pk != qk[i])
        if bound is not None:
            ok &= S32[i] <= bound
        cand = np.flatnonzero(ok)
        order = sorted(cand, key=lambda j: (-S32[i, j], ids[j]))
        picked = []
        for j in order:
            if distinct and picked and (np.any(pk[picked] == pk[j]) or (
                    bound is not None and np.any(P_units[picked, j] > bound))):
                continue
            picked.append(j)
            if len(picked) == k:
                break
        out.append(picked + [-1] * (k - len(picked)))
    return np.array(out)


@pytest.mark.parametrize("chunk,qchunk,margin,max_sim", [
    (7, 5, 0, 0.95), (64, 1000, 16, 0.95), (13, 3, 2, 0.8), (1000, 17, 0, None)])
def test_chunked_search_matches_brute_force(chunk, qchunk, margin, max_sim):
    rng = np.random.default_rng(42)
    P, Q, D, k = 600, 40, 8, 3
    # coarse vectors -> many exact ties; plus duplicated rows under other ids
    base = rng.integers(-2, 3, size=(P, D)).astype(np.float32)
    base[300:360] = base[:60]
    base[360:380] = base[0]
    base[np.abs(base).sum(1) == 0, 0] = 1
    pool = base / np.linalg.norm(base, axis=1, keepdims=True)
    ids = [f"{rng.integers(0, 1 << 30):08x}-{i:04d}" for i in range(P)]
    pg = rng.integers(0, 50, P)
    pk = rng.integers(0, 400, P).astype(np.int64)  # shared keys = "pixel duplicates"
    qsel = rng.choice(P, Q, replace=False)
    queries, qg, qk = pool[qsel], pg[qsel], pk[qsel]
    seen = []

    def on_chunk(q0, n, s, e):
        assert e - s <= chunk and n <= qchunk
        seen.append(e - s)

    idx, sims = cm.nearest_neighbours(queries, pool, ids, k, query_groups=qg, pool_groups=pg,
                                      query_pixel_keys=qk, pool_pixel_keys=pk,
                                      max_similarity=max_sim, chunk_size=chunk,
                                      query_chunk_size=qchunk, margin=margin, on_chunk=on_chunk)
    ref = reference_search(queries, pool, ids, k, qg, pg, qk, pk, max_sim)
    assert np.array_equal(idx, ref)
    assert seen and max(seen) <= chunk
    ok = idx >= 0
    direct = np.einsum("qd,qkd->qk", queries.astype(np.float64), pool[np.where(ok, idx, 0)])
    scale = 10 ** cm.SIMILARITY_DECIMALS  # recorded rounded, from the float64 dot of the float32 vectors
    assert np.array_equal(sims[ok], np.rint(direct[ok] * scale) / scale)


def test_search_pads_when_too_few_candidates():
    pool = np.eye(4, dtype=np.float32)
    idx, sims = cm.nearest_neighbours(pool[:1], pool, ["a", "b", "c", "d"], 3,
                                      query_groups=np.array([0]), pool_groups=np.array([0, 0, 1, 1]),
                                      chunk_size=1)
    assert idx.tolist() == [[2, 3, -1]] and np.isnan(sims[0, 2])


def test_importing_clip_loads_no_torch():
    code = "import sys, jigsaw_puzzles.generation.clip; assert 'torch' not in sys.modules and 'open_clip' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_quick_offline_check_matches_open_clip_and_needs_no_import(monkeypatch, tmp_path):
    """The default weights' location, known without open_clip, is open_clip's own; offline and not cached, the
    hard config is refused with resolve_clip_weights' message before torch or open_clip is imported."""
    from open_clip import pretrained as oc_pretrained
    from open_clip.constants import HF_SAFE_WEIGHTS_NAME, HF_WEIGHTS_NAME

    from jigsaw_puzzles.generation.clip.weights import KNOWN_HF_WEIGHTS, quick_unavailable

    for (model, tag), (repo, names) in KNOWN_HF_WEIGHTS.items():
        repo_id, filename = os.path.split(oc_pretrained.get_pretrained_cfg(model, tag)["hf_hub"])
        assert repo_id == repo and list(names) == [HF_SAFE_WEIGHTS_NAME, HF_WEIGHTS_NAME] and not filename
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    empty = tmp_path / "empty-hf-cache"
    empty.mkdir()
    with pytest.raises(cm.ClipWeightsUnavailable) as quick:
        quick_unavailable("ViT-B-32", "openai", str(empty))
    with pytest.raises(cm.ClipWeightsUnavailable) as full:
        cm.resolve_clip_weights("ViT-B-32", "openai", hf_cache_dir=str(empty))
    assert str(quick.value) == str(full.value)
    quick_unavailable("ViT-S-32", None, str(empty))  # random init, other models: left to the full resolution
    script = ("import sys\nfrom jigsaw_puzzles.generation.builder import make_builder\nfrom jigsaw_puzzles.errors import "
              "ConfigUnavailable\ntry:\n    make_builder('missing_piece_selection_hard').preparation()\n"
              "except ConfigUnavailable as err:\n    print('REFUSED', 'not available' in str(err))\n"
              "print('IMPORTED', sorted(m for m in ('torch', 'open_clip') if m in sys.modules))\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(empty)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert "REFUSED True" in out.stdout and "IMPORTED []" in out.stdout, out.stdout + out.stderr[-2000:]


def test_device_normalisation_equals_open_clips_transform(first_run):
    """The CUDA path ships uint8 and scales + normalises on the device through a look-up table that open_clip's
    ToTensor + Normalize computed on the CPU, so the tensors are equal (run here on CPU tensors; on an H100 they
    were equal too, docs/performance.md#gpu). Cells of several sizes and modes; a transform that does not end that way keeps
    the whole transform on the CPU."""
    import torch
    from torchvision.transforms import Compose, Lambda

    _, miner, _, _ = first_run
    emb = miner.embedder
    split = cm.split_preprocess(emb.preprocess)
    assert split is not None and len(split[1]) == len(split[2]) == 3
    gpu_like = cm.PatchEmbedder(emb.model, emb.preprocess, "cpu", batch_size=4, progress=False)
    gpu_like._split, gpu_like.device_normalise = split, True
    rng = np.random.default_rng(5)
    patches = [Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)) for w, h in
               [(96, 96), (192, 144), (57, 301), (400, 31)]]
    patches += [patches[1].convert("L"), patches[2].convert("RGBA")]
    x = gpu_like._prep(patches, None)
    assert x.dtype == torch.uint8 and x.shape[-1] == 3
    expected = torch.stack([emb.preprocess(p.convert("RGB")) for p in patches])
    assert torch.equal(gpu_like._normalise(x), expected)
    assert cm.split_preprocess(Compose([Lambda(lambda im: im)])) is None
    assert cm.split_preprocess(lambda im: im) is None
    grey = Compose([Lambda(lambda im: im.convert("L").convert("RGB")), *emb.preprocess.transforms[-2:]])
    grey_split = cm.split_preprocess(Compose([Lambda(lambda im: im.convert("L")), *emb.preprocess.transforms[-2:]]))
    gpu_like.preprocess, gpu_like._split = grey, grey_split  # its PIL part gives grey pixels: the CPU path instead
    same_size = [patches[0], patches[0].transpose(Image.Transpose.FLIP_LEFT_RIGHT)]
    x = gpu_like._prep(same_size, None)
    assert not gpu_like.device_normalise and x.dtype == torch.float32
    assert torch.equal(x, torch.stack([grey(p) for p in same_size]))
