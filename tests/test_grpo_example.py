"""examples/grpo_jigsaw.py runs (issue #11 part 5): GRPO with TRL on the training stream, curriculum on, two
steps on the tiny random Qwen2-VL, CPU only; rewards are logged per task."""
from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="the [train] extra (trl) is not installed")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "grpo_jigsaw.py"


@pytest.mark.slow
def test_grpo_example_runs_two_steps_and_logs_rewards_per_task(tmp_path, monkeypatch):
    from _tiny_vlm import build_tiny_vlm

    monkeypatch.chdir(tmp_path)
    model = build_tiny_vlm(tmp_path / "tiny")
    main = runpy.run_path(str(EXAMPLE))["main"]
    trainer = main(["--model", str(model), "--max-steps", "2", "--batch-size", "2", "--num-generations", "2",
                    "--max-completion-length", "8", "--cpu", "--output-dir", str(tmp_path / "out"),
                    "--source", "embedded",
                    "--curriculum", "--window", "4"])
    assert trainer.state.global_step == 2
    steps = [h for h in trainer.state.log_history if "reward" in h]
    assert len(steps) == 2
    for h in steps:
        per_task = {k for k in h if k.startswith("position_reward/")}
        assert per_task and all(k.split("/", 1)[1] in __import__("jigsaw_puzzles").CONFIGS for k in per_task)
        assert {"rewards/position_reward/mean", "rewards/format_reward/mean"} <= set(h)
