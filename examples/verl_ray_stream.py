"""verl GRPO on a Ray cluster, fed by the Jigsaw-Puzzles training stream over a folder of photos in object storage.

    pip install -e ".[ray,guard]"     # in verl's own environment, from your clone (docs/integrations.md#verl)
    jigsaw-puzzles export verl --out verl_data --dataset my_export --train-size 0     # val.parquet: the evaluation
    python examples/verl_ray_stream.py --train s3://bucket/train_photos --exclude my_export \\
        --val verl_data/val.parquet --model Qwen/Qwen2.5-VL-3B-Instruct --ray-address auto \\
        --cache /shared/jigsaw_cache --nnodes 2 --gpus-per-node 8

Two steps, both on the cluster at ``--ray-address`` (or on a Ray started here):

1. The contamination guard's first check: ``jp.training_stream(train, exclude=..., engine="ray")`` curates the
   training folder and checks every training photo against the evaluation set as Ray Data stages; the verdicts go
   to the guard's store in ``--cache`` (``JIGSAW_PUZZLES_CACHE``: a folder every node mounts).
2. verl's trainer (``python -m verl.trainer.main_ppo``, which joins the same cluster) with its dataset class set to
   ``StreamDataset`` (``data.custom_cls.path=pkg://jigsaw_puzzles.integrations.verl``): verl's ``RLHFDataset`` whose
   rows are the first ``--size`` items of ``jp.training_stream`` over ``--train`` (``data.train_files``), made in
   verl's TaskRunner, which reads the verdicts of step 1 from the same store instead of checking again; the reward
   is ``compute_score`` of the same module (``jp.rewards``' values).

``--dry-run`` runs step 1 and prints step 2's command without starting verl. Every option: ``--help``.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys

import jigsaw_puzzles as jp

MODULE = "pkg://jigsaw_puzzles.integrations.verl"


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", required=True, help="the folder of training photos: a path every node sees, or an "
                    "fsspec URL (s3://bucket/photos, gs://..., hf://datasets/...)")
    ap.add_argument("--exclude", default=None, help="the evaluation set whose photos (and their copies) are never "
                    "trained on: an export folder, a parquet file or a folder of photos")
    ap.add_argument("--val", default=None, help="verl's validation parquet (`jigsaw-puzzles export verl`)")
    ap.add_argument("--model", required=True, help="the VLM to train (a Hub id or a folder every node sees)")
    ap.add_argument("--ray-address", default=None, help="the Ray cluster (auto, HOST:6379); default: Ray here")
    ap.add_argument("--cache", default=None, help="JIGSAW_PUZZLES_CACHE for the guard's verdicts: a folder every "
                    "node mounts (default: this machine's, enough on one machine)")
    ap.add_argument("--size", type=int, default=4096, help="stream items verl trains on per epoch")
    ap.add_argument("--seed", type=int, default=0, help="the stream's seed (another seed: other items)")
    ap.add_argument("--nnodes", type=int, default=1, help="verl's trainer.nnodes")
    ap.add_argument("--gpus-per-node", type=int, default=8, help="verl's trainer.n_gpus_per_node")
    ap.add_argument("--batch-size", type=int, default=256, help="verl's data.train_batch_size")
    ap.add_argument("--epochs", type=int, default=1, help="verl's trainer.total_epochs")
    ap.add_argument("--dry-run", action="store_true", help="run the guard's check, print verl's command, stop")
    return ap.parse_args(argv)


def verl_overrides(args) -> list[str]:
    """verl's Hydra overrides for a GRPO run on the stream (``+`` adds keys verl's config does not have)."""
    out = [
        "algorithm.adv_estimator=grpo",
        f"data.train_files={args.train}",
        f"data.custom_cls.path={MODULE}", "data.custom_cls.name=StreamDataset",
        f"+data.jigsaw.size={args.size}", f"+data.jigsaw.seed={args.seed}",
        f"data.train_batch_size={args.batch_size}", "data.max_prompt_length=4096", "data.max_response_length=1024",
        "data.image_key=images",
        f"actor_rollout_ref.model.path={args.model}", "actor_rollout_ref.rollout.n=5",
        f"reward.custom_reward_function.path={MODULE}", "reward.custom_reward_function.name=compute_score",
        f"trainer.nnodes={args.nnodes}", f"trainer.n_gpus_per_node={args.gpus_per_node}",
        f"trainer.total_epochs={args.epochs}", "trainer.project_name=jigsaw_puzzles",
    ]
    if args.exclude:
        out.append(f"+data.jigsaw.exclude={args.exclude}")
    if args.val:
        out.append(f"data.val_files={args.val}")
    if args.ray_address:
        out.append(f"+ray_kwargs.ray_init.address={args.ray_address}")
    if args.cache:  # verl's TaskRunner, where StreamDataset is made, reads the verdicts there
        out.append(f"+ray_kwargs.ray_init.runtime_env.env_vars.JIGSAW_PUZZLES_CACHE={args.cache}")
    return out


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.cache:
        os.environ["JIGSAW_PUZZLES_CACHE"] = args.cache
    if args.exclude:  # step 1: the guard's first check as Ray stages; the verdicts kept for step 2
        jp.training_stream(args.train, exclude=args.exclude, seed=args.seed, engine="ray",
                           ray_address=args.ray_address)
    command = [sys.executable, "-m", "verl.trainer.main_ppo", *verl_overrides(args)]
    print(" ".join(shlex.quote(c) for c in command), flush=True)
    if args.dry_run:
        return 0
    return subprocess.run(command, check=False).returncode  # step 2: verl joins the cluster itself


if __name__ == "__main__":
    sys.exit(main())
