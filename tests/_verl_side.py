"""Run inside the verl side venv (tests/test_verl.py): verl's own dataset class and reward loading on our export.

``python _verl_side.py JOB.json`` with ``{"parquet": [...], "reward_path": ..., "completions": {row id: [texts]},
"out": ...}`` writes ``out``: per parquet file, the rows in the file, the rows verl's ``RLHFDataset`` kept after its
filtering, and per kept row the images its messages hold and the image tokens its processor made; and per row id
and completion the reward verl's naive reward manager computed through ``reward.custom_reward_function``.
"""
from __future__ import annotations

import json
import sys
import tempfile

import pyarrow.parquet as pq
import torch
import transformers
from omegaconf import OmegaConf
from transformers import Qwen2VLImageProcessor, Qwen2VLProcessor, Qwen2VLVideoProcessor

import verl
from verl import DataProto
from verl.trainer.ppo.reward import load_reward_manager
from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

from _tiny_vlm import CHAT_TEMPLATE, build_tokenizer


def main(job_file: str) -> None:
    job = json.loads(open(job_file).read())
    tokenizer = build_tokenizer()
    pixels = dict(min_pixels=28 * 28, max_pixels=56 * 56)
    processor = Qwen2VLProcessor(image_processor=Qwen2VLImageProcessor(**pixels), tokenizer=tokenizer,
                                 video_processor=Qwen2VLVideoProcessor(**pixels), chat_template=CHAT_TEMPLATE)
    vision_start = tokenizer.convert_tokens_to_ids("<|vision_start|>")
    out = {"versions": {"verl": verl.__version__, "transformers": transformers.__version__}, "files": {}}
    data_config = OmegaConf.create({"prompt_key": "prompt", "image_key": "images", "max_prompt_length": 16384,
                                    "filter_overlong_prompts": True, "filter_overlong_prompts_workers": None,
                                    "cache_dir": tempfile.mkdtemp(), "return_raw_chat": True})
    rows_by_id = {}
    for path in job["parquet"]:
        dataset = RLHFDataset(data_files=[path], tokenizer=tokenizer, config=data_config, processor=processor)
        kept = []
        for i in range(len(dataset)):
            row = dataset[i]
            messages = row["raw_prompt"]
            images, videos, _ = RLHFDataset._process_multi_modal_info(messages, dataset.image_patch_size,
                                                                      data_config)
            text = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            inputs = processor(text=[text], images=images, return_tensors="pt")
            parts = [p for m in messages for p in m["content"] if isinstance(m["content"], list)]
            kept.append({"id": row["extra_info"]["id"], "image_parts": sum(p["type"] == "image" for p in parts),
                         "vision_starts": int((inputs["input_ids"][0] == vision_start).sum()),
                         "text": "".join(p.get("text", "") for p in parts if p["type"] == "text")})
            rows_by_id[row["extra_info"]["id"]] = row
        collate_fn([dataset[i] for i in range(min(2, len(dataset)))])  # what verl's DataLoader does with a batch
        out["files"][path] = {"rows": pq.ParquetFile(path).metadata.num_rows, "kept": len(dataset), "items": kept}

    config = OmegaConf.create({"reward": {
        "custom_reward_function": {"path": job["reward_path"], "name": "compute_score", "reward_kwargs": {}},
        "reward_manager": {"source": "register", "name": "naive"}}})
    out["rewards"] = rewards(load_reward_manager(config, tokenizer), tokenizer, job, rows_by_id)
    config.reward.custom_reward_function.path = "pkg://jigsaw_puzzles.integrations.verl"  # the module path form
    out["pkg_rewards"] = rewards(load_reward_manager(config, tokenizer), tokenizer, job, rows_by_id)
    with open(job["out"], "w") as f:
        json.dump(out, f)


def rewards(manager, tokenizer, job: dict, rows_by_id: dict) -> dict:
    """Per row id, what ``manager`` (verl's reward manager) makes of each completion, tokenized as a response."""
    out = {}
    prompt = torch.tensor([tokenizer.encode("a prompt")], dtype=torch.long)
    for item_id, texts in job["completions"].items():
        row = rows_by_id[item_id]
        got = []
        for text in texts:
            response = torch.tensor([tokenizer.encode(text) + [tokenizer.pad_token_id] * 3], dtype=torch.long)
            mask = torch.cat([torch.ones_like(prompt), torch.ones(1, response.shape[1] - 3, dtype=torch.long),
                              torch.zeros(1, 3, dtype=torch.long)], dim=1)
            data = DataProto.from_dict(
                tensors={"prompts": prompt, "responses": response, "attention_mask": mask},
                non_tensors={"data_source": [row["data_source"]], "reward_model": [row["reward_model"]],
                             "extra_info": [dict(row["extra_info"])]})
            result = manager.loop.run_until_complete(manager.run_single(data))
            got.append({"reward_score": float(result["reward_score"]),
                        **{k: float(v) for k, v in result["reward_extra_info"].items()}})
        out[item_id] = got
    return out


if __name__ == "__main__":
    main(sys.argv[1])
