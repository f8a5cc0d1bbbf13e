"""examples/grpo_interactive.py runs (issue #23 item 4): GRPO with TRL's environment_factory on the training
stream with the curriculum by grid size, two steps on the tiny random Qwen2-VL, CPU only. A random model rarely
writes a well-formed tool call, so generation is biased (``sequence_bias``) towards one fixed call: the test then
proves the loop (tool calls reach the environment), the board images in the tool answers (they reach the
model's inputs) and the rewards (``get_reward`` is logged), not learning."""
from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="the [train] extra (trl) is not installed")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "grpo_interactive.py"
CALL = '<tool_call>\n{"name": "swap", "arguments": {"first": 1, "second": 2}}\n</tool_call><|im_end|>'


def tool_ready_tiny_vlm(path: Path) -> tuple[Path, dict]:
    """The tiny Qwen2-VL with a chat template that renders tool calls (TRL's Qwen3-VL one, which TRL also knows
    how to parse), and the ``sequence_bias`` that makes it write :data:`CALL`."""
    from _tiny_vlm import build_tiny_vlm
    from transformers import AutoProcessor
    from trl.chat_template_utils import qwen3_vl_chat_template

    model = build_tiny_vlm(path)
    processor = AutoProcessor.from_pretrained(model)
    processor.chat_template = qwen3_vl_chat_template
    processor.save_pretrained(model)
    ids = processor.tokenizer(CALL, add_special_tokens=False)["input_ids"]
    bias = {tuple(ids[: i + 1]): 100.0 * (i + 1) for i in range(len(ids))}  # the longest match wins
    return model, {"sequence_bias": bias}


@pytest.mark.slow
def test_grpo_interactive_runs_two_steps_with_tool_images_and_environment_rewards(tmp_path, monkeypatch):
    import functools

    from trl import GRPOTrainer

    from jigsaw_puzzles.interactive import JigsawToolEnv

    monkeypatch.chdir(tmp_path)
    model, generation = tool_ready_tiny_vlm(tmp_path / "tiny")
    calls, boards, fed = [], [], []
    swap, loop = JigsawToolEnv.swap, GRPOTrainer._tool_call_loop

    @functools.wraps(swap)  # the tool keeps its name, hints and docstring: TRL's schema
    def spy(self, first: int, second: int) -> list:
        reply = swap(self, first, second)
        calls.append((first, second))
        boards.append(reply[0]["image"])
        return reply

    def loop_spy(self, *args, **kwargs):
        out = loop(self, *args, **kwargs)
        fed.extend(image for images in out[-1] for image in images)  # the tool images of the forward pass
        return out

    monkeypatch.setattr(JigsawToolEnv, "swap", spy)
    monkeypatch.setattr(GRPOTrainer, "_tool_call_loop", loop_spy)
    main = runpy.run_path(str(EXAMPLE))["main"]
    trainer = main(["--model", str(model), "--max-steps", "2", "--batch-size", "2", "--num-generations", "2",
                    "--max-completion-length", "400", "--max-tool-calls", "2", "--cpu",
                    "--output-dir", str(tmp_path / "out"), "--source", "embedded"], generation_kwargs=generation)
    assert trainer.state.global_step == 2
    assert calls and set(calls) == {(1, 2)}  # the forced call reached the environment's tool
    assert all(board.mode == "RGB" and board.width > 28 for board in boards)
    assert fed and all(any(image is board for board in boards) for image in fed)  # the boards reach the model
    steps = [h for h in trainer.state.log_history if "reward" in h]
    assert len(steps) == 2
    for h in steps:
        assert "rewards/JigsawToolEnv/mean" in h  # get_reward is the reward source
        assert -1.0 <= h["reward"] <= 1.0
        assert h.get("tools/call_frequency", 1) > 0


@pytest.mark.slow
def test_grpo_with_a_dict_environment_factory_keyed_by_task(tmp_path, monkeypatch):
    """TRL's dict ``environment_factory`` (rows routed by their ``environment`` column) with :func:`environments`:
    upright and rotated puzzles in one run, each reset in its own environment class, each prompt offering that
    class's tools only, both classes' ``get_reward`` logged."""
    from transformers import AutoProcessor
    from trl import GRPOConfig, GRPOTrainer

    import jigsaw_puzzles as jp
    from jigsaw_puzzles.interactive import JigsawSwapEnv, JigsawToolEnv, environments, tool_rows

    monkeypatch.chdir(tmp_path)
    model, generation = tool_ready_tiny_vlm(tmp_path / "tiny")
    configs = ["order_generation", "order_generation_2x2_rot"]
    resets = []
    for cls in (JigsawSwapEnv, JigsawToolEnv):
        original = cls.__dict__.get("reset", JigsawSwapEnv.reset)

        def reset(self, _original=original, **row):
            resets.append((type(self).__name__, row["config"]))
            return _original(self, **row)

        monkeypatch.setattr(cls, "reset", reset)
    stream = jp.training_stream("embedded", mixture={c: 1.0 for c in configs}, seed=0, eval_fraction=0.0)
    rows = tool_rows(stream, environment=True).select_columns(["prompt", "pieces", "config", "metadata", "id",
                                                                "environment"])
    args = GRPOConfig(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=4,
                      num_generations=2, max_completion_length=400, max_tool_calling_iterations=2, logging_steps=1,
                      save_strategy="no", report_to="none", seed=0, use_cpu=True, bf16=False,
                      remove_unused_columns=False, generation_kwargs=generation)
    trainer = GRPOTrainer(model=str(model), processing_class=AutoProcessor.from_pretrained(model),
                          environment_factory=environments(configs), args=args, train_dataset=rows)
    tools = {name: sorted(t.__name__ for t in ts) for name, ts in trainer._env_tools.items()}
    assert tools == {"order_generation": ["submit", "swap"], "order_generation_2x2_rot": ["rotate", "submit", "swap"]}
    trainer.train()
    assert trainer.state.global_step == 2
    assert {(cls, config) for cls, config in resets} == {("JigsawSwapEnv", "order_generation"),
                                                         ("JigsawToolEnv", "order_generation_2x2_rot")}
    logged = {k for h in trainer.state.log_history for k in h}
    assert {"rewards/JigsawSwapEnv/mean", "rewards/JigsawToolEnv/mean"} <= logged
