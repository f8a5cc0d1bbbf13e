"""The README's TRL quickstart runs (issue #10 part 5): GRPO on the training stream and SFT on its rows with
`jp.with_prompt` (never an evaluation split, #44.1), 2 steps each on the tiny random Qwen2-VL. The test changes only what a CPU and a test need: the model id (a local tiny
checkpoint), max_steps, the photo folder, CPU flags and small batch/generation sizes; the `exclude=` export it
names is built first (from other photos), since a path that does not exist is refused."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("trl", reason="the [train] extra (trl) is not installed")

README = Path(__file__).resolve().parents[1] / "README.md"
CPU = "use_cpu=True, bf16=False, report_to='none', per_device_train_batch_size=2"


def quickstart_block() -> str:
    section = README.read_text().split("## Quickstart 3")[1]
    return section.split("```python")[1].split("```")[0]


def test_with_prompt_adds_trl_columns_without_touching_the_rows(photo_dir, cache_dir):
    import jigsaw_puzzles as jp

    ds = jp.load_dataset("order_restoration", source=photo_dir, cache_dir=cache_dir)
    with pytest.warns(UserWarning, match="smoke_test=True: training data made of an evaluation split"):
        sft = jp.with_prompt(ds, completion=True, smoke_test=True)  # a benchmark split: a smoke test only
    row = sft[0]
    (turn,) = row["prompt"]
    assert [p["type"] for p in turn["content"]] == ["image"] * len(row["images"]) + ["text"]
    assert turn["content"][-1]["text"] == row["question"]
    assert row["completion"] == [{"role": "assistant", "content": [{"type": "text", "text": row["answer"]}]}]
    assert sft.remove_columns(["prompt", "completion"])[0]["metadata"] == ds[0]["metadata"]
    assert jp.to_messages(ds[0])["prompt"] == row["prompt"]


@pytest.mark.slow
def test_with_prompt_takes_a_training_stream(photo_dir):
    """The README's SFT data: ``with_prompt`` over the stream (an ``IterableDataset``) adds the same columns, and
    the stream's own ``prompt`` is what it would write."""
    import jigsaw_puzzles as jp

    stream = jp.training_stream(photo_dir, mixture={"order_restoration": 1, "order_generation": 1}, seed=0)
    for row, plain in zip(jp.with_prompt(stream, completion=True).take(4), stream.take(4)):
        assert row["id"] == plain["id"] and row["prompt"] == plain["prompt"] == jp.to_messages(row)["prompt"]
        assert row["completion"] == jp.to_messages(row, completion=True)["completion"]


@pytest.mark.slow
def test_readme_grpo_and_sft_run_two_steps(tmp_path, monkeypatch, photo_dir):
    from _tiny_vlm import build_tiny_vlm

    from fixtures.photos import write_photos
    from jigsaw_puzzles.publishing.export import build

    monkeypatch.chdir(tmp_path)
    model = str(build_tiny_vlm(tmp_path / "tiny"))
    block = quickstart_block()
    for text in ("Qwen/Qwen2-VL-2B-Instruct", 'GRPOConfig(output_dir="grpo", max_steps=100)',
                 'SFTConfig(output_dir="sft", max_steps=100)', '"/data/photos"', 'exclude="./jigsaw_puzzles"'):
        assert text in block, f"the README quickstart changed: {text!r} is gone; update this test"
    block = block.replace("Qwen/Qwen2-VL-2B-Instruct", model).replace('"/data/photos"', repr(str(photo_dir)))
    block = block.replace('GRPOConfig(output_dir="grpo", max_steps=100)',
                          f'GRPOConfig(output_dir="grpo", max_steps=2, {CPU}, num_generations=2, '
                          f'max_completion_length=8)')
    block = block.replace('SFTConfig(output_dir="sft", max_steps=100)', f'SFTConfig(output_dir="sft", max_steps=2, {CPU})')
    write_photos(tmp_path / "eval_photos", 4, start=900)  # the evaluation export the README excludes
    build(tmp_path / "jigsaw_puzzles", source=tmp_path / "eval_photos", configs=["order_restoration"],
          cache_dir=str(tmp_path / "cache"))
    scope: dict = {}
    exec(compile(block, str(README), "exec"), scope)  # our own README's code, not model output
    assert next(iter(scope["stream"]))["prompt"]
    assert (tmp_path / "grpo").is_dir() and (tmp_path / "sft").is_dir()
