"""Build a tiny, randomly initialised Qwen2-VL checkpoint fully offline (no downloads).

The checkpoint (model weights + processor: image processor, tokenizer, chat template) is written to a
directory that ``AutoModelForImageTextToText.from_pretrained`` / ``AutoProcessor.from_pretrained`` load like
any Hub checkpoint.  It is used by the tests and by ``benchmarks/inference.py``.

* tokenizer: a byte-level BPE trained locally with ``tokenizers`` on a few sentences, plus the Qwen2-VL
  special tokens, wrapped in ``PreTrainedTokenizerFast``;
* image processor: ``Qwen2VLImageProcessor`` built from its defaults with a small ``max_pixels`` so every image
  becomes a handful of vision tokens;
* model: ``Qwen2VLForConditionalGeneration`` with tiny dims (hidden 32, 2 layers, vision depth 1), initialised
  with a large std so that its (meaningless) outputs depend on the input - batching bugs then show.
"""
from __future__ import annotations

import os
from pathlib import Path

SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]

# The Qwen2-VL chat template (images/videos as content parts), trimmed of tool calling.
CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_CORPUS = [
    "You are given <image 1>, <image 2> cropped from an original full image.",
    "Please respond with only A, B, C or D and no additional text.",
    "Judgment: A\nError Position: C\nError Type: B",
    "The order corresponds to top-left, top-right, bottom-left, bottom-right: [2, 3, 1, 4]",
    "Answer only \"A\" or \"B\". Which masked area does the piece come from?",
    "The two images are adjacent horizontally (left-right relationship) or vertically or not adjacent.",
    "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ .,:;!?()[]{}<>-_'\"/\n",
]


def build_tokenizer(vocab_size: int = 400):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        padding_side="left",
        extra_special_tokens={"image_token": "<|image_pad|>", "video_token": "<|video_pad|>"},
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


# Qwen2-VL-2B-Instruct's dimensions (its config.json), for GPU benchmarks of a real-size model; the vocabulary
# stays this file's 400-token tokenizer (the real one has 151,936 tokens: its embedding and LM head are missing).
QWEN2_VL_2B = dict(
    text=dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12,
              num_key_value_heads=2, rope_parameters={"rope_type": "default", "rope_theta": 1000000.0,
                                                      "mrope_section": [16, 24, 24]}),
    vision=dict(depth=32, embed_dim=1280, hidden_size=1536, num_heads=16, mlp_ratio=4),
)


def build_tiny_vlm(path: str | os.PathLike, *, seed: int = 0, max_pixels: int = 56 * 56, hidden: int = 32,
                   layers: int = 2, init_range: float = 0.5, preset: dict | None = None, device: str = "cpu",
                   dtype: str | None = None) -> Path:
    """Write a tiny random-init Qwen2-VL checkpoint + processor to ``path`` and return it (with ``preset``, e.g.
    :data:`QWEN2_VL_2B`, a real model's dimensions instead, initialised on ``device`` and saved in ``dtype``)."""
    import torch
    from transformers import (Qwen2VLConfig, Qwen2VLForConditionalGeneration, Qwen2VLImageProcessor,
                              Qwen2VLProcessor)

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer()
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    image_processor = Qwen2VLImageProcessor(min_pixels=28 * 28, max_pixels=max_pixels)
    try:
        from transformers import Qwen2VLVideoProcessor

        video_processor = Qwen2VLVideoProcessor(min_pixels=28 * 28, max_pixels=max_pixels)
    except Exception:  # pragma: no cover - torchvision missing
        video_processor = None
    processor = Qwen2VLProcessor(image_processor=image_processor, tokenizer=tokenizer,
                                 video_processor=video_processor, chat_template=CHAT_TEMPLATE)

    text = dict(hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers, num_attention_heads=4,
                num_key_value_heads=2, rope_parameters={"rope_type": "default", "rope_theta": 10000.0,
                                                        "mrope_section": [1, 1, 2]})
    vision = dict(depth=1, embed_dim=32, hidden_size=hidden, num_heads=2, mlp_ratio=2)
    if preset is not None:
        text, vision = {**text, **preset["text"]}, {**vision, **preset["vision"]}
    config = Qwen2VLConfig(
        text_config=dict(
            vocab_size=len(tokenizer), max_position_embeddings=4096 if preset is None else 32768,
            bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"],
            initializer_range=init_range, **text,
        ),
        vision_config=dict(patch_size=14, spatial_merge_size=2, temporal_patch_size=2, initializer_range=init_range,
                           **vision),
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=True, initializer_range=init_range,
    )
    torch.manual_seed(seed)
    with torch.device(device):
        model = Qwen2VLForConditionalGeneration(config).eval()
    if dtype is not None:
        model = model.to(getattr(torch, dtype))
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.generation_config.do_sample = False
    model.save_pretrained(path)
    processor.save_pretrained(path)
    return path


def build_tiny_lm(path: str | os.PathLike, *, seed: int = 0, hidden: int = 32, layers: int = 2) -> Path:
    """Write a tiny random-init text-only Qwen2 causal LM (``AutoModelForCausalLM``) with this file's tokenizer and
    chat template to ``path`` and return it: the local judge's plumbing (``eval --judge FOLDER``) in the tests."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer()
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden,
                         num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=8192, bos_token_id=ids["<|endoftext|>"],
                         eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"], tie_word_embeddings=True,
                         initializer_range=0.5)
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config).eval()
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.generation_config.do_sample = False
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


if __name__ == "__main__":  # pragma: no cover
    import sys

    print(build_tiny_vlm(sys.argv[1] if len(sys.argv) > 1 else "/tmp/tiny-qwen2vl"))
