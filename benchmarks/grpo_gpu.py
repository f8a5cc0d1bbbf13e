"""The two GRPO examples run end to end on whatever device there is (a GPU when one is visible), timed.

    python benchmarks/grpo_gpu.py --example jigsaw --steps 3                        # the tiny random Qwen2-VL
    python benchmarks/grpo_gpu.py --example jigsaw --preset qwen2-vl-2b --steps 2   # random-init, 2B dimensions
    python benchmarks/grpo_gpu.py --example interactive --steps 3                   # tool calls, board images

Weights are random (nothing is downloaded), so this measures that the examples run on the device and what a
step costs, not learning. The interactive example needs a tool call to happen: as in
``tests/test_interactive_grpo.py``, generation is biased towards one fixed ``swap`` call. Prints one JSON record:
device, steps, the trainer's ``train_runtime`` and seconds per step, the rewards logged.
"""
from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--example", choices=("jigsaw", "interactive"), default="jigsaw")
    ap.add_argument("--preset", choices=("tiny", "qwen2-vl-2b"), default="tiny")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--num-generations", type=int, default=4)
    ap.add_argument("--max-completion-length", type=int, default=None,
                    help="default: 32 (jigsaw), 400 (interactive)")
    args = ap.parse_args(argv)

    import torch

    from _tiny_vlm import QWEN2_VL_2B, build_tiny_vlm

    cuda = torch.cuda.is_available()
    work = tempfile.TemporaryDirectory()
    os.chdir(work.name)
    t0 = time.perf_counter()
    extra: dict = {}
    if args.example == "interactive":
        from test_interactive_grpo import tool_ready_tiny_vlm

        model, generation = tool_ready_tiny_vlm(Path(work.name) / "model")
        extra["generation_kwargs"] = generation
    elif args.preset == "tiny":
        model = build_tiny_vlm(Path(work.name) / "model")
    else:
        model = build_tiny_vlm(Path(work.name) / "model", preset=QWEN2_VL_2B, init_range=0.02,
                               max_pixels=336 * 336, device="cuda" if cuda else "cpu", dtype="bfloat16")
    t_build = time.perf_counter() - t0
    length = args.max_completion_length or (400 if args.example == "interactive" else 32)
    cli = ["--model", str(model), "--max-steps", str(args.steps), "--batch-size", str(args.batch_size),
           "--num-generations", str(args.num_generations), "--max-completion-length", str(length),
           "--output-dir", str(Path(work.name) / "out"), "--source", "embedded"]
    if args.example == "interactive":
        cli += ["--max-tool-calls", "2"]
    if not cuda:
        cli.append("--cpu")
    example = runpy.run_path(str(ROOT / "examples" / f"grpo_{args.example}.py"))["main"]
    t1 = time.perf_counter()
    trainer = example(cli, **extra)
    wall = time.perf_counter() - t1
    logs = trainer.state.log_history
    end = next((h for h in reversed(logs) if "train_runtime" in h), {})
    rewards = [round(h["reward"], 4) for h in logs if "reward" in h]
    rec = {
        "example": f"examples/grpo_{args.example}.py", "preset": args.preset if args.example == "jigsaw" else "tiny",
        "device": str(trainer.model.device), "gpu": torch.cuda.get_device_name(0) if cuda else None,
        "parameters": sum(p.numel() for p in trainer.model.parameters()),
        "steps": trainer.state.global_step, "batch_size": args.batch_size, "num_generations": args.num_generations,
        "max_completion_length": length, "model_build_s": round(t_build, 1), "wall_s": round(wall, 1),
        "train_runtime_s": end.get("train_runtime"),
        "s_per_step": round(end["train_runtime"] / max(1, trainer.state.global_step), 2) if end else None,
        "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20) if cuda else None,
        "rewards": rewards, "torch": torch.__version__,
    }
    print(json.dumps(rec))
    os.chdir(ROOT)
    work.cleanup()
    return 0 if trainer.state.global_step == args.steps else 1


if __name__ == "__main__":
    sys.exit(main())
