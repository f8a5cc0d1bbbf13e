"""How often do the hard config's CLIP decisions flip between CPU kernels, thread counts and precisions? (#28.1)

    python benchmarks/clip_reproducibility.py                    # the 57 embedded photos
    python benchmarks/clip_reproducibility.py --folder many      # + a folder of a few hundred (needs scikit-image)

Each setting embeds every 3x3 cell of every accepted photo in a fresh subprocess (no embedding cache), with the
random-init open_clip ViT-S-32 of the tests and the golden build, on CPU in fp32:

* ``default``: this machine's best ISA (oneDNN and MKL pick it), 2 threads (the reference);
* ``threads1``: 1 thread; ``sse41``: ``ONEDNN_MAX_CPU_ISA=SSE41``; ``avx``: ``ONEDNN_MAX_CPU_ISA=AVX``;
  ``mkl_sse42``: ``MKL_ENABLE_INSTRUCTIONS=SSE4_2``; ``all_sse``: both at once, 1 thread;
* ``fp16_emb``: the reference embeddings rounded to fp16 and renormalised (the least a GPU fp16 build differs by);
* ``fp16_fwd``: the whole forward under CPU ``torch.autocast(float16)`` (what the CUDA path does on a GPU, on the
  CPU's kernels);
* ``cuda_fp16`` / ``cuda_fp32`` (where a GPU is visible: ``--settings default cuda_fp16 cuda_fp32``): the
  package's CUDA path, its default ``amp-fp16`` and ``precision="fp32"``, on the GPU's own kernels.

Then every setting's embeddings go through the package's own miner (``ClipMiner.mine``, the rule in force) and
the hard items' decisions are compared with the reference: the largest change of a cosine similarity, the items
whose six mined candidates differ, whose three shown distractors (source, cell) differ, and whose recorded
metadata (``distractors`` with their similarities) differs; and how many of the differing items the near-tie
test of ``jigsaw-puzzles verify`` explains.

``--folder many`` builds (once, under ``--work``) a folder from the embedded photos (each whole, mirrored, and
four corner crops of 62%) plus the photographs scikit-image ships in ``skimage.data`` (the ``bench`` extra:
``pip install -e ".[bench]"``), and measures it too.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

SETTINGS = {
    "default": ({}, 2),
    "threads1": ({}, 1),
    "sse41": ({"ONEDNN_MAX_CPU_ISA": "SSE41"}, 2),
    "avx": ({"ONEDNN_MAX_CPU_ISA": "AVX"}, 2),
    "mkl_sse42": ({"MKL_ENABLE_INSTRUCTIONS": "SSE4_2"}, 2),
    "all_sse": ({"ONEDNN_MAX_CPU_ISA": "SSE41", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2"}, 1),
}
CUDA = {"cuda_fp16": ("cuda", "amp-fp16"), "cuda_fp32": ("cuda", "fp32")}
MODEL = "ViT-S-32"
SKIMAGE_PHOTOS = ("astronaut", "camera", "chelsea", "coffee", "rocket", "motorcycle_left", "motorcycle_right",
                  "hubble_deep_field", "retina", "brick", "grass", "gravel", "moon", "immunohistochemistry",
                  "colorwheel", "page", "text", "cell", "microaneurysms", "coins", "clock")


def sources(folder: str | None):
    """Accepted source id -> normalised image, as the builder sees them."""
    from jigsaw_puzzles.generation.sources import DEFAULT_RULES, load_normalised
    from jigsaw_puzzles.generation.curation import curate
    curation = curate(folder, DEFAULT_RULES)
    return {s.source_id: load_normalised(s.path, DEFAULT_RULES, s.source_id) for s in curation.accepted}


def embed(folder: str | None, out: str, threads: int, fp16_forward: bool, device: str = "cpu",
          precision: str = "auto") -> None:
    """(subprocess) Every cell's embedding, computed here with no cache."""
    import torch
    torch.set_num_threads(threads)
    from jigsaw_puzzles.generation.clip import ClipMiner
    with tempfile.TemporaryDirectory() as cache:
        miner = ClipMiner(MODEL, None, allow_random_init=True, cache_dir=cache, device=device, progress=False,
                          precision=precision)
        if fp16_forward:  # the CUDA path's autocast, on the CPU's float16 kernels
            embedder = miner.embedder
            plain = embedder.encode_tensor

            def encode_fp16(x):
                with torch.autocast("cpu", dtype=torch.float16):
                    return plain(x)
            embedder.encode_tensor = encode_fp16
        bank = miner.embed_sources(sources(folder))
    np.save(out, bank.embeddings)


def make_folder(root: Path) -> Path:
    """The embedded photos whole, mirrored and as four 62% corner crops, plus scikit-image's photographs."""
    folder = root / "many"
    if folder.is_dir() and any(folder.iterdir()):
        return folder
    from jigsaw_puzzles.generation.sources import embedded_folder
    folder.mkdir(parents=True)
    for path in sorted(embedded_folder().iterdir()):
        if path.suffix.lower() not in {".jpg", ".jpeg", ".png", ".webp"}:
            continue
        im = Image.open(path).convert("RGB")
        w, h = im.size
        cw, ch = int(w * 0.62), int(h * 0.62)
        im.save(folder / f"{path.stem}.png")
        ImageOps.mirror(im).save(folder / f"{path.stem}_mirror.png")
        for name, (x, y) in {"tl": (0, 0), "tr": (w - cw, 0), "bl": (0, h - ch), "br": (w - cw, h - ch)}.items():
            im.crop((x, y, x + cw, y + ch)).save(folder / f"{path.stem}_{name}.png")
    import skimage.data
    for name in SKIMAGE_PHOTOS:
        try:
            arr = getattr(skimage.data, name)()
        except Exception:  # noqa: BLE001 - a photo that needs a download is left out
            continue
        Image.fromarray(np.asarray(arr)).convert("RGB").save(folder / f"skimage_{name}.png")
    return folder


def decisions(folder: str | None, embeddings: np.ndarray, seed: int = 0):
    """The hard items' mined candidates and shown distractors from these embeddings, through the package's miner."""
    from jigsaw_puzzles.generation.clip import ClipMiner, EmbeddingCache
    from jigsaw_puzzles.generation.tasks.missing_piece_selection import RNG_KEY, MINED_CANDIDATES, cell_patch, \
        chosen_distractors
    from jigsaw_puzzles.rng import item_rng
    srcs = sources(folder)
    with tempfile.TemporaryDirectory() as cache:
        miner = ClipMiner(MODEL, None, allow_random_init=True, cache_dir=cache, device="cpu", progress=False)
        ids = sorted(srcs)
        store = EmbeddingCache(cache, miner.spec, miner.precision)
        import hashlib
        from jigsaw_puzzles.generation.clip import grid_cells, pixel_digest
        for j, sid in enumerate(ids):
            digest = hashlib.sha256("".join(pixel_digest(c) for c in grid_cells(srcs[sid])).encode()).hexdigest()
            store.store(sid, digest, embeddings[9 * j:9 * j + 9])
        bank = miner.embed_sources(srcs)
        assert bank.stats.sources_computed == 0
        regions = {sid: item_rng(seed, RNG_KEY, sid).child("region").randbelow(9) for sid in ids}
        mined = miner.mine(bank, [(sid, *divmod(regions[sid], 3)) for sid in ids], k=MINED_CANDIDATES, strict=False)
    out = {}
    for m in mined:
        cands = [(d.source_id, d.row * 3 + d.col, d.similarity) for d in m.distractors]
        truth = cell_patch(srcs[m.source_id], regions[m.source_id])
        try:
            shown = chosen_distractors(cands, truth, lambda s, c, size: cell_patch(srcs[s], c, size))
            shown = [{"source_id": d.source_id, "cell": d.cell, "similarity": d.similarity} for d in shown]
        except Exception:  # noqa: BLE001 - too few candidates pass the pixel rule: no item either way
            shown = None
        out[m.source_id] = {"candidates": cands, "shown": shown}
    return bank, out


def near_tie(folder, bank, sid, recorded, local, seed: int = 0) -> bool:
    """verify's test: do these embeddings, one or two similarities put across a rounding edge, give ``recorded``?"""
    from jigsaw_puzzles.generation.clip import duplicate_source_groups
    from jigsaw_puzzles.generation.clip.ties import explain_item
    from jigsaw_puzzles.generation.tasks.missing_piece_selection import RNG_KEY, MINED_CANDIDATES, cell_patch, \
        chosen_distractors
    from jigsaw_puzzles.rng import item_rng
    if recorded is None or local is None:
        return False
    srcs = _SOURCES.setdefault(folder, sources(folder))
    region = item_rng(seed, RNG_KEY, sid).child("region").randbelow(9)
    truth = cell_patch(srcs[sid], region)

    def shown(cands):
        try:
            ds = chosen_distractors(cands, truth, lambda s, c, size: cell_patch(srcs[s], c, size))
        except Exception:  # noqa: BLE001
            return None
        return [{"source_id": d.source_id, "cell": d.cell, "similarity": d.similarity} for d in ds]
    groups = duplicate_source_groups(bank)
    return explain_item(bank, groups, bank.index(sid, *divmod(region, 3)), recorded, local, k=MINED_CANDIDATES,
                        shown=shown) is not None


_SOURCES: dict = {}


def pair_similarities(emb: np.ndarray) -> np.ndarray:
    e = emb.astype(np.float64)
    return e @ e.T


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folder", choices=["embedded", "many"], default="embedded")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "jp_clip_repro"))
    ap.add_argument("--settings", nargs="*", default=[*SETTINGS, "fp16_fwd"])
    ap.add_argument("--reuse", action="store_true", help="compare the embeddings already under --work")
    ap.add_argument("--_embed", nargs=6, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._embed:
        folder, out, threads, fp16, device, precision = args._embed
        embed(None if folder == "-" else folder, out, int(threads), fp16 == "1", device, precision)
        return
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    folder = None if args.folder == "embedded" else str(make_folder(work))
    tag = args.folder
    embs = {}
    for name in args.settings:
        env_extra, threads = SETTINGS.get(name, ({}, 2))
        out = work / f"{tag}_{name}.npy"
        env = {**os.environ, **env_extra, "OMP_NUM_THREADS": str(threads)}
        t0 = time.perf_counter()
        if args.reuse and out.exists():
            embs[name] = np.load(out)
            continue
        device, precision = CUDA.get(name, ("cpu", "auto"))
        subprocess.run([sys.executable, __file__, "--_embed", folder or "-", str(out), str(threads),
                        "1" if name == "fp16_fwd" else "0", device, precision], env=env, check=True)
        embs[name] = np.load(out)
        print(f"{args.folder} [{name}] {embs[name].shape[0]} cells in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    ref = embs["default"]
    half = ref.astype(np.float16).astype(np.float32)
    embs["fp16_emb"] = half / np.linalg.norm(half, axis=1, keepdims=True)
    ref_bank, ref_dec = decisions(folder, ref)
    ref_sims = pair_similarities(ref)
    rows = []
    for name, emb in embs.items():
        if name == "default":
            continue
        bank, dec = decisions(folder, emb)
        d_sim = np.abs(pair_similarities(emb) - ref_sims).max()
        cand = [s for s in ref_dec if ref_dec[s]["candidates"] != dec[s]["candidates"]]
        ids = lambda d: None if d is None else [(x["source_id"], x["cell"]) for x in d]  # noqa: E731
        shown = [s for s in ref_dec if ids(ref_dec[s]["shown"]) != ids(dec[s]["shown"])]
        recorded = [s for s in ref_dec if ref_dec[s]["shown"] != dec[s]["shown"]]
        explained = [s for s in recorded if near_tie(folder, bank, s, ref_dec[s]["shown"], dec[s]["shown"])]
        rows.append({"setting": name, "items": len(ref_dec), "max_abs_embedding_change": float(np.abs(emb - ref).max()),
                     "max_abs_similarity_change": float(d_sim), "candidates_differ": len(cand),
                     "shown_distractors_differ": len(shown), "recorded_metadata_differs": len(recorded),
                     "near_ties_explained": len(explained)})
    import torch
    print(json.dumps({"folder": tag, "items": len(ref_dec), "machine": platform.processor() or platform.machine(),
                      "torch": torch.__version__, "rows": rows,
                      "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}, indent=1))
    head = ("setting", "max_abs_similarity_change", "candidates_differ", "shown_distractors_differ",
            "recorded_metadata_differs", "near_ties_explained")
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(f"{r[h]:.2e}" if isinstance(r[h], float) else str(r[h]) for h in head) + " |")


if __name__ == "__main__":
    main()
