"""GRPO on the Jigsaw-Puzzles training stream, with TRL, any VLM and a reward-driven curriculum.

    pip install -e ".[train]"
    python examples/grpo_jigsaw.py --model Qwen/Qwen2.5-VL-3B-Instruct --source /data/photos --max-steps 500 \\
        --exclude ./jigsaw_puzzles            # the evaluation export: its photos are never trained on

Items are cut on the fly from the ``train`` side of the photos (``jp.training_stream``); the rewards are the
position-wise partial credit plus a small format reward (``jp.rewards``), each logged per task
(``position_reward/order_generation``, ...). With ``--curriculum`` the stream starts on the easy configs and
moves to the hard ones when the mean reward of the last ``--window`` completions reaches ``--threshold``.
Every option: ``python examples/grpo_jigsaw.py --help``.
"""
from __future__ import annotations

import argparse

import jigsaw_puzzles as jp

EASY = {"piece_localization_easy": 1.0, "connection_verification": 1.0, "order_restoration": 1.0}
HARD = {"piece_localization_hard": 1.0, "anomaly_detection": 1.0, "order_generation": 1.0,
        "missing_piece_selection_easy": 1.0}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="a VLM id on the Hub or a local checkpoint folder")
    ap.add_argument("--source", required=True, help="the folder of your own training photographs (the embedded "
                    "photos are the benchmark's evaluation photos: 'embedded' streams them for a smoke test only)")
    ap.add_argument("--exclude", default=None, help="an evaluation export whose photos are never trained on")
    ap.add_argument("--output-dir", default="grpo_jigsaw", help="checkpoints and logs")
    ap.add_argument("--max-steps", type=int, default=500, help="optimizer steps (the stream is endless)")
    ap.add_argument("--batch-size", type=int, default=4, help="prompts x generations per device and step")
    ap.add_argument("--num-generations", type=int, default=4, help="completions per prompt (GRPO group)")
    ap.add_argument("--max-completion-length", type=int, default=256, help="tokens per completion")
    ap.add_argument("--learning-rate", type=float, default=1e-6, help="AdamW learning rate")
    ap.add_argument("--curriculum", action="store_true", help="easy configs first, then the hard ones")
    ap.add_argument("--threshold", type=float, default=0.7, help="curriculum: mean reward that moves on")
    ap.add_argument("--window", type=int, default=256, help="curriculum: completions averaged")
    ap.add_argument("--seed", type=int, default=0, help="stream and trainer seed")
    ap.add_argument("--cpu", action="store_true", help="train on the CPU (tests, smoke runs)")
    return ap.parse_args(argv)


def main(argv=None):
    from transformers import AutoProcessor
    from trl import GRPOConfig, GRPOTrainer

    args = parse_args(argv)
    curriculum = (jp.Curriculum([EASY, HARD], threshold=args.threshold, window=args.window) if args.curriculum
                  else jp.Curriculum([{**EASY, **HARD}]))
    stream = jp.training_stream(args.source, seed=args.seed, curriculum=curriculum, exclude=args.exclude)
    stream = stream.select_columns(["prompt", "images", "answer", "config", "options", "metadata"])
    config = GRPOConfig(
        output_dir=args.output_dir, max_steps=args.max_steps, per_device_train_batch_size=args.batch_size,
        num_generations=args.num_generations, max_completion_length=args.max_completion_length,
        learning_rate=args.learning_rate, logging_steps=1, save_strategy="no", report_to="none",
        seed=args.seed, use_cpu=args.cpu, bf16=False, remove_unused_columns=False, reward_weights=[1.0, 0.2],
    )
    trainer = GRPOTrainer(
        model=args.model, processing_class=AutoProcessor.from_pretrained(args.model),
        reward_funcs=[jp.rewards.track(jp.rewards.position_reward, curriculum),
                      jp.rewards.track(jp.rewards.format_reward)],
        args=config, train_dataset=stream,
    )
    trainer.train()
    return trainer


if __name__ == "__main__":
    main()
