"""GRPO on the interactive jigsaw: the model moves pieces with tools and sees the board after each move.

    pip install -e ".[train]"
    python examples/grpo_interactive.py --model Qwen/Qwen3-VL-2B-Instruct --source /data/photos --max-steps 500 \\
        --exclude ./jigsaw_puzzles            # the evaluation export: its photos are never trained on

Puzzles are cut on the fly from the ``train`` side of the photos (``jp.training_stream``) with a curriculum by grid
size (``jp.Curriculum.grids``: 2x2, then 3x3, then 4x4 order puzzles; ``--sides`` sets the grids, up to 8 for 8x8,
and ``--stages-at`` the item counts where each later stage starts; ``--rotated`` turns the pieces too; ``--cut tabs``
cuts interlocking pieces, ``--cut silhouette`` their flat grey shapes). Each rollout gets a ``JigsawToolEnv`` (TRL's
``environment_factory``): the prompt shows the shuffled board, the model calls ``swap`` / ``rotate`` / ``submit`` and
every tool answers with the board as it now stands; ``get_reward`` scores the rollout (1 solved, partial credit by
pieces in place, costs per wasted turn and invalid call; docs/interactive.md). The model's chat template must
support tool calls (Qwen3-VL's does). Every option: ``python examples/grpo_interactive.py --help``.
"""
from __future__ import annotations

import argparse

import jigsaw_puzzles as jp
from jigsaw_puzzles.interactive import JigsawToolEnv, tool_rows


def curriculum(rotated: bool, stages_at: list[int], sides=(2, 3, 4), cut: str = "straight") -> jp.Curriculum:
    """One stage per grid side of ``sides`` (square grids), the later ones starting at the item counts
    ``stages_at``."""
    return jp.Curriculum.grids("order_generation", sides, cut=cut, rotated=rotated, schedule=stages_at)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="a VLM id on the Hub or a local checkpoint folder")
    ap.add_argument("--source", required=True, help="the folder of your own training photographs (the embedded "
                    "photos are the benchmark's evaluation photos: 'embedded' streams them for a smoke test only)")
    ap.add_argument("--exclude", default=None, help="an evaluation export whose photos are never trained on")
    ap.add_argument("--output-dir", default="grpo_interactive", help="checkpoints and logs")
    ap.add_argument("--max-steps", type=int, default=500, help="optimizer steps (the stream is endless)")
    ap.add_argument("--batch-size", type=int, default=4, help="prompts x generations per device and step")
    ap.add_argument("--num-generations", type=int, default=4, help="completions per prompt (GRPO group)")
    ap.add_argument("--max-completion-length", type=int, default=2048,
                    help="tokens per rollout, tool answers (board images included) counted")
    ap.add_argument("--max-tool-calls", type=int, default=24, help="tool-calling rounds per rollout")
    ap.add_argument("--learning-rate", type=float, default=1e-6, help="AdamW learning rate")
    ap.add_argument("--sides", type=int, nargs="+", default=[2, 3, 4], metavar="N",
                    help="the grids of the curriculum, one stage each (2: 2x2, ... 8: 8x8)")
    ap.add_argument("--stages-at", type=int, nargs="*", default=None, metavar="ITEM",
                    help="item counts at which each stage after the first starts (default: 2000, 6000, 10000, ...)")
    ap.add_argument("--rotated", action="store_true", help="the pieces are turned too (the _rot configs)")
    ap.add_argument("--cut", choices=("straight", "tabs", "silhouette"), default="straight",
                    help="straight pieces, interlocking pieces (_tabs) or their flat grey silhouettes")
    ap.add_argument("--seed", type=int, default=0, help="stream and trainer seed")
    ap.add_argument("--cpu", action="store_true", help="train on the CPU (tests, smoke runs)")
    args = ap.parse_args(argv)
    if args.stages_at is None:
        args.stages_at = [2000 + 4000 * k for k in range(len(args.sides) - 1)]
    if len(args.stages_at) != len(args.sides) - 1:
        ap.error(f"--stages-at takes one item count per stage after the first: {len(args.sides) - 1} for --sides "
                 f"{' '.join(map(str, args.sides))}")
    return args


def main(argv=None, generation_kwargs: dict | None = None):
    """Train; returns the trainer. ``generation_kwargs``: extra ``GenerationConfig`` arguments (Python use)."""
    from transformers import AutoProcessor
    from trl import GRPOConfig, GRPOTrainer

    args = parse_args(argv)
    stream = jp.training_stream(args.source, seed=args.seed, exclude=args.exclude,
                                curriculum=curriculum(args.rotated, args.stages_at, args.sides, args.cut))
    stream = tool_rows(stream).select_columns(["prompt", "pieces", "config", "metadata", "id"])
    config = GRPOConfig(
        output_dir=args.output_dir, max_steps=args.max_steps, per_device_train_batch_size=args.batch_size,
        num_generations=args.num_generations, max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=args.max_tool_calls, learning_rate=args.learning_rate, logging_steps=1,
        save_strategy="no", report_to="none", seed=args.seed, use_cpu=args.cpu, bf16=False,
        remove_unused_columns=False, generation_kwargs=generation_kwargs,
    )
    trainer = GRPOTrainer(model=args.model, processing_class=AutoProcessor.from_pretrained(args.model),
                          environment_factory=JigsawToolEnv, args=config, train_dataset=stream)
    trainer.train()
    return trainer


if __name__ == "__main__":
    main()
