"""Throughput of the transformers backend vs a plain per-item ``generate`` loop (same model, items, settings).

    python benchmarks/inference.py                       # tiny random-init Qwen2-VL built offline, CPU
    python benchmarks/inference.py --model Qwen/Qwen2.5-VL-7B-Instruct --items 64 --batch-size 16   # a GPU
    python benchmarks/inference.py --preset qwen2-vl-2b --image-size 336 --batch-size 16   # random-init, 2B dims

Both sides use the processor's chat template, greedy decoding and the same ``max_new_tokens``; the baseline
calls ``processor(...)`` + ``model.generate`` + ``decode`` one item at a time, our helper
(``jigsaw_puzzles.inference.backends.TransformersBackend``) batches with left padding.  Items mimic the benchmark:
1-5 images each (MPS 5, OR/OG 4, PL/CV 2, AD 1).  Prints items/s for both and the ratio; ``--json`` for a record.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def make_items(n: int, size: int, seed: int = 0):
    import numpy as np
    from PIL import Image

    from jigsaw_puzzles.inference.backends import Request

    rng = np.random.default_rng(seed)
    n_images = [5, 2, 2, 2, 1, 4, 4]
    items = []
    for i in range(n):
        k = n_images[i % len(n_images)]
        imgs = [Image.fromarray(rng.integers(0, 256, (size, size, 3), dtype=np.uint8)) for _ in range(k)]
        refs = ", ".join(f"<image {j + 1}>" for j in range(k))
        q = (f"You are given {refs}. Based on the visual content of each image, choose the most appropriate "
             f"option and respond only with the corresponding letter (A, B, C or D). Item {i}.")
        items.append(Request(f"bench/{i}", "bench", q, imgs))
    return items


def plain_loop(backend, items):
    """The reference: one item at a time, straight transformers calls."""
    import torch

    proc, model = backend.processor, backend.model
    outs = []
    for r in items:
        text = backend.prompt_text(r)
        inputs = proc(text=[text], images=[r.images], return_tensors="pt").to(model.device)
        with torch.inference_mode():
            out = model.generate(**inputs, **backend._gen_kwargs())
        outs.append(proc.batch_decode(out[:, inputs["input_ids"].shape[1]:], skip_special_tokens=True)[0])
    return outs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None, help="checkpoint (default: a tiny random Qwen2-VL built offline)")
    ap.add_argument("--preset", choices=("tiny", "qwen2-vl-2b"), default="tiny",
                    help="without --model: the tiny test model, or a random-init one of Qwen2-VL-2B's dimensions "
                         "(built on the GPU where there is one, bf16)")
    ap.add_argument("--items", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=16)
    ap.add_argument("--image-size", type=int, default=84)
    ap.add_argument("--repeats", type=int, default=3, help="best of N timings per side")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from jigsaw_puzzles.inference.backends import TransformersBackend
    from jigsaw_puzzles.inference.settings import GenerationSettings

    tmp = None
    model = args.model
    if model is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from _tiny_vlm import build_tiny_vlm

        tmp = tempfile.TemporaryDirectory()
        if args.preset == "tiny":
            model = str(build_tiny_vlm(tmp.name))
        else:
            from _tiny_vlm import QWEN2_VL_2B

            model = str(build_tiny_vlm(tmp.name, preset=QWEN2_VL_2B, init_range=0.02,
                                       max_pixels=max(args.image_size, 56) ** 2, dtype="bfloat16",
                                       device="cuda" if torch.cuda.is_available() else "cpu"))
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
    settings = GenerationSettings(max_new_tokens=args.max_new_tokens)
    backend = TransformersBackend(model, settings, batch_size=args.batch_size)
    items = make_items(args.items, args.image_size)

    plain_loop(backend, items[:2])  # warm-up
    list(backend.generate(items[:2]))

    def best(fn):
        times, result = [], None
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - t0)
        return min(times), result

    t_plain, plain_out = best(lambda: plain_loop(backend, items))
    t_ours, ours = best(lambda: list(backend.generate(items)))
    same = sum(a.strip() == g.text for a, g in zip(plain_out, ours))
    rec = {
        "model": args.model or f"random-init Qwen2-VL, {args.preset} dimensions (tests/_tiny_vlm.py)",
        "parameters": backend.info().get("parameters"), "device": str(backend.model.device),
        "items": args.items, "batch_size": args.batch_size, "max_new_tokens": args.max_new_tokens,
        "image_size": args.image_size, "plain_items_per_s": args.items / t_plain,
        "helper_items_per_s": args.items / t_ours, "ratio": t_plain / t_ours,
        "identical_outputs": f"{same}/{args.items}", "torch_threads": torch.get_num_threads(),
        "cpu": platform.processor() or platform.machine(), "cpu_count": os.cpu_count(),
        "torch": torch.__version__, "python": platform.python_version(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "plain_s": t_plain, "helper_s": t_ours,
    }
    if args.json:
        print(json.dumps(rec, indent=2))
    else:
        print(f"model: {rec['model']} ({rec['parameters']} params) on {rec['device']}, "
              f"{rec['torch_threads']} threads")
        print(f"{args.items} items (1-5 images of {args.image_size}px), max_new_tokens={args.max_new_tokens}, "
              f"greedy")
        print(f"plain per-item generate loop : {rec['plain_items_per_s']:8.2f} items/s")
        print(f"jigsaw helper (batch {args.batch_size:3d})    : {rec['helper_items_per_s']:8.2f} items/s")
        print(f"ratio                        : {rec['ratio']:8.2f}x   (identical outputs: {rec['identical_outputs']})")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
