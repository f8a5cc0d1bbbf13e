"""Generation backends for ``jigsaw-puzzles eval``.

Every backend turns a list of :class:`Request` (one benchmark item: its images, in the order the prompt numbers
them, and the row's ``question`` as the prompt) into :class:`Generation` results.  Heavy dependencies (torch,
transformers, accelerate, vllm) are imported lazily inside the backends so that ``import jigsaw_puzzles`` works
without them.

Backends
--------
``builtin``       the weight-free baselines ``--model random`` / ``solver`` / ``shape`` (``jigsaw_puzzles.baselines``).
``transformers``  ``AutoModelForImageTextToText`` + the processor's chat template, batched, left padding,
                  ``device_map="auto"`` (one process) or one GPU per process under ``accelerate launch``.
``vllm``          ``vllm.LLM.chat`` with OpenAI-style multi-image messages, ``limit_mm_per_prompt`` from the task,
                  ``tensor_parallel_size``.
``openai``        any OpenAI-compatible ``/chat/completions`` endpoint: :mod:`.openai_backend`.

The names, their default batch sizes and constructors are listed once, in :mod:`.registry` (``BACKENDS``).
"""
from __future__ import annotations

import base64
import io
import json
import os
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..errors import UserError
from .settings import GenerationSettings

BUILTIN_MODELS = ("random", "solver", "shape")


@dataclass
class Request:
    """One benchmark item to answer."""

    id: str
    config: str
    question: str
    images: list  # PIL images, in the order the prompt numbers them
    row: dict = field(default_factory=dict, repr=False)  # the full dataset row (builtin baselines use it)
    #: turns after the first user turn, ``(role, text)`` pairs: ``eval --restate`` sends the first output as the
    #: assistant's turn and its request to restate as the next user turn (one conversation, on every backend)
    turns: tuple = ()


@dataclass
class Generation:
    """A backend's answer to one :class:`Request`."""

    id: str
    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None  # wall time of the call; for batched backends amortised over the batch
    error: str | None = None  # set when the backend gave up on this item (counted as a wrong/invalid answer)
    extra: dict = field(default_factory=dict)  # e.g. the solver's confidence
    finish: str | None = None  # "truncated": cut at the token limit (an empty answer is marked by the runner)


class ModelLoadError(UserError, RuntimeError):
    """The model cannot be loaded (a typo, offline, not a checkpoint, not an image-text-to-text model): one
    line; nothing of the run is written."""


def _first_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return " ".join(text[0].split())[:300] if text else type(err).__name__


class Backend:
    """Base class. ``generate`` yields one :class:`Generation` per request, in any order."""

    name = "base"

    def generate(self, requests: Sequence[Request]) -> Iterator[Generation]:  # pragma: no cover - abstract
        raise NotImplementedError

    def info(self) -> dict:
        """What run.json records about the backend (parameter count when known, devices, versions)."""
        return {}

    def close(self) -> None:
        pass


# ----------------------------------------------------------------------------------------------- helpers
def build_messages(question: str, n_images: int, system_prompt: str | None = None, image_parts=None,
                   turns=()) -> list[dict]:
    """Chat messages: one user turn = all images (in prompt order) followed by the question text, then ``turns``
    (``(role, text)`` pairs: a follow-up of the same conversation, :attr:`Request.turns`).

    ``image_parts`` gives the content part of each image (defaults to HF processor style ``{"type": "image"}``).
    """
    parts = list(image_parts) if image_parts is not None else [{"type": "image"} for _ in range(n_images)]
    messages = []
    if system_prompt:
        messages.append({"role": "system", "content": [{"type": "text", "text": system_prompt}]})
    messages.append({"role": "user", "content": parts + [{"type": "text", "text": question}]})
    messages += [{"role": role, "content": [{"type": "text", "text": text}]} for role, text in turns]
    return messages


def image_to_data_url(image) -> str:
    """Lossless PNG data URL (pixel-exact puzzles: no JPEG artefacts at the cut lines)."""
    buf = io.BytesIO()
    img = image if image.mode in ("RGB", "L", "RGBA") else image.convert("RGB")
    img.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def count_safetensors_params(model_dir: str | os.PathLike) -> int | None:
    """Parameter count from the safetensors headers of a local checkpoint (no weights are read)."""
    d = Path(model_dir)
    files = sorted(d.glob("*.safetensors")) if d.is_dir() else []
    if not files:
        return None
    total = 0
    for f in files:
        with open(f, "rb") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(n))
        for k, v in header.items():
            if k == "__metadata__":
                continue
            size = 1
            for s in v.get("shape", []):
                size *= s
            total += size
    return total


def resolve_param_count(model: str) -> int | None:
    """Best-effort parameter count for a local dir or a (cached / reachable) Hub repo id."""
    n = count_safetensors_params(model)
    if n is not None:
        return n
    try:  # local HF cache only, then the Hub's safetensors metadata when online
        from huggingface_hub import snapshot_download

        n = count_safetensors_params(snapshot_download(model, local_files_only=True,
                                                       allow_patterns=["*.safetensors", "*.json"]))
        if n:
            return n
    except Exception:
        pass
    if os.environ.get("HF_HUB_OFFLINE") in ("1", "true", "True"):
        return None
    try:
        from huggingface_hub import get_safetensors_metadata

        meta = get_safetensors_metadata(model)
        return int(sum(meta.parameter_count.values()))
    except Exception:
        return None


def dist_info() -> tuple[int, int, int]:
    """(rank, world_size, local_rank) from the env set by ``accelerate launch`` / ``torchrun``."""
    return (int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1")),
            int(os.environ.get("LOCAL_RANK", "0")))


# ----------------------------------------------------------------------------------------------- builtin
def _import_baselines():
    from jigsaw_puzzles import baselines  # written by a colleague; imported lazily

    return baselines


def _solve_one(args):
    config, row, model, seed = args
    baselines = _import_baselines()
    t0 = time.perf_counter()
    if row.get("panel_boxes"):  # a composite sheet: the solver reads each panel back, pixel for pixel
        sheet = row["images"][0]
        row = {**row, "images": [sheet.crop(tuple(box)) for box in row["panel_boxes"]]}
    if model == "random":
        text, extra = baselines.random_answer(row, config, seed), {}
    elif not row.get("images"):  # blind: nothing to read, so the solver can only guess (uniformly, seeded)
        text, extra = baselines.random_answer(row, config, seed), {"blind_guess": True}
    else:
        ans = baselines.shape_answer(row, config, seed) if model == "shape" else baselines.solve(row, config)
        text = ans.text
        extra = {}
        conf = getattr(ans, "confidence", None)
        if conf is not None:
            try:
                extra["confidence"] = float(conf)
            except (TypeError, ValueError):
                pass
    return text, time.perf_counter() - t0, extra


class BuiltinBackend(Backend):
    """``--model random`` / ``solver`` / ``shape``: the weight-free baselines (optionally over a process pool)."""

    name = "builtin"

    def __init__(self, model: str, seed: int = 0, num_proc: int | None = None):
        if model not in BUILTIN_MODELS:
            raise ValueError(f"builtin backend knows {BUILTIN_MODELS}, not {model!r}")
        _import_baselines()  # fail early with a clear ImportError
        self.model, self.seed = model, seed
        self.num_proc = max(1, int(num_proc or 1))
        self._pool = None

    def _map(self, args):
        if self.num_proc <= 1 or len(args) <= 1 or self.model == "random":
            return map(_solve_one, args)
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(self.num_proc)
        return self._pool.map(_solve_one, args)

    def generate(self, requests):
        args = [(r.config, r.row, self.model, self.seed) for r in requests]
        for r, (text, dt, extra) in zip(requests, self._map(args)):
            yield Generation(r.id, text, None, None, dt, extra=extra)

    def info(self):
        return {"parameters": 0, "num_proc": self.num_proc}

    def close(self):
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


# ----------------------------------------------------------------------------------------------- transformers
class TransformersBackend(Backend):
    """Batched ``generate`` with ``AutoModelForImageTextToText`` and the processor's chat template.

    * one process: ``device_map="auto"`` spreads a large model over all visible GPUs (or CPU);
    * ``accelerate launch --num_processes K``: data-parallel, each process holds a full replica on its own GPU
      (``device_map={"": LOCAL_RANK}``) and the runner gives it every K-th item.
    """

    name = "transformers"

    def __init__(self, model: str, settings: GenerationSettings, batch_size: int = 8, device_map: Any = None,
                 trust_remote_code: bool = False, attn_implementation: str | None = None, processor_kwargs=None):
        import torch
        import transformers
        from transformers import AutoModelForImageTextToText, AutoProcessor

        self.settings, self.batch_size = settings, max(1, int(batch_size))
        rank, world, local_rank = dist_info()
        if device_map is None:
            if world > 1 and torch.cuda.is_available():
                device_map = {"": local_rank}
            elif torch.cuda.is_available() or getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
                device_map = "auto"
        self.device_map = device_map
        dtype = settings.dtype
        if dtype not in (None, "auto"):
            dtype = getattr(torch, dtype)
        try:
            self.processor = AutoProcessor.from_pretrained(model, trust_remote_code=trust_remote_code,
                                                           **(processor_kwargs or {}))
        except (OSError, ValueError) as err:  # not found, offline, not a checkpoint, not a VLM
            raise ModelLoadError(f"--model {model}: transformers cannot load its processor: {_first_line(err)}") \
                from None
        tok = getattr(self.processor, "tokenizer", None)
        if tok is not None:
            tok.padding_side = "left"  # decoder-only batched generation
            if tok.pad_token is None and tok.eos_token is not None:
                tok.pad_token = tok.eos_token
        kwargs = {"trust_remote_code": trust_remote_code}
        if device_map is not None:
            kwargs["device_map"] = device_map
        if attn_implementation:
            kwargs["attn_implementation"] = attn_implementation
        try:
            try:
                self.model = AutoModelForImageTextToText.from_pretrained(model, dtype=dtype or "auto", **kwargs)
            except TypeError:  # transformers < 4.56 spells it torch_dtype
                self.model = AutoModelForImageTextToText.from_pretrained(model, torch_dtype=dtype or "auto", **kwargs)
        except (OSError, ValueError) as err:
            raise ModelLoadError(f"--model {model}: transformers cannot load it as an image-text-to-text model: "
                                 f"{_first_line(err)}") from None
        self.model.eval()
        self._torch = torch
        self._versions = {"transformers": transformers.__version__, "torch": torch.__version__}
        gc = self.model.generation_config
        eos = gc.eos_token_id if gc.eos_token_id is not None else getattr(tok, "eos_token_id", None)
        self.eos_ids = set(eos if isinstance(eos, (list, tuple)) else ([eos] if eos is not None else []))
        self.pad_id = gc.pad_token_id if gc.pad_token_id is not None else getattr(tok, "pad_token_id", None)

    # prompt building (public so the benchmark's plain loop can share it)
    def prompt_text(self, request: Request) -> str:
        messages = build_messages(request.question, len(request.images), self.settings.system_prompt,
                                  turns=request.turns)
        return self.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def _gen_kwargs(self) -> dict:
        s = self.settings
        kw = {"max_new_tokens": s.max_new_tokens, "do_sample": not s.greedy}
        if s.greedy:  # silence "temperature is set but do_sample=False" from model generation configs
            kw.update(temperature=None, top_p=None, top_k=None)
        else:
            kw.update(temperature=s.temperature, top_p=s.top_p)
        if self.pad_id is not None:
            kw["pad_token_id"] = self.pad_id
        return kw

    def _run_batch(self, requests: Sequence[Request]) -> list[Generation]:
        torch = self._torch
        texts = [self.prompt_text(r) for r in requests]
        images = [[im.convert("RGB") if im.mode != "RGB" else im for im in r.images] for r in requests]
        t0 = time.perf_counter()
        inputs = self.processor(text=texts, images=images if any(images) else None, padding=True,  # blind: none
                                return_tensors="pt")
        device = self.model.device
        model_dtype = self.model.dtype
        inputs = {k: (v.to(device, dtype=model_dtype) if torch.is_floating_point(v) else v.to(device))
                  if hasattr(v, "to") else v for k, v in inputs.items()}
        with torch.inference_mode():
            out = self.model.generate(**inputs, **self._gen_kwargs())
        new = out[:, inputs["input_ids"].shape[1]:].cpu()
        dt = (time.perf_counter() - t0) / len(requests)
        prompt_lens = inputs["attention_mask"].sum(dim=1).tolist()
        gens = []
        for i, r in enumerate(requests):
            ids = new[i].tolist()
            n, ended = len(ids), False
            for j, t in enumerate(ids):  # generated tokens up to and including the first EOS
                if t in self.eos_ids:
                    n, ended = j + 1, True
                    break
            text = self.processor.batch_decode([ids[:n]], skip_special_tokens=True)[0]
            cut = not ended and n >= self.settings.max_new_tokens  # stopped by the limit, not by the model
            gens.append(Generation(r.id, text.strip(), int(prompt_lens[i]), n, dt,
                                   finish="truncated" if cut else None))
        return gens

    def generate(self, requests):
        reqs = list(requests)
        i, bs = 0, self.batch_size
        while i < len(reqs):
            chunk = reqs[i:i + bs]
            try:
                gens = self._run_batch(chunk)
            except self._torch.cuda.OutOfMemoryError:
                if bs == 1:
                    raise
                self._torch.cuda.empty_cache()
                bs = max(1, bs // 2)  # halve and retry the same items
                continue
            yield from gens
            i += len(chunk)

    def info(self):
        try:
            n = int(self.model.num_parameters())
        except Exception:
            n = None
        return {"parameters": n, "device_map": str(self.device_map), "model_device": str(self.model.device),
                "model_dtype": str(self.model.dtype).replace("torch.", ""), "model_class": type(self.model).__name__,
                **self._versions}


# ----------------------------------------------------------------------------------------------- vllm
class VLLMBackend(Backend):
    """``vllm.LLM.chat`` over OpenAI-style multi-image messages (images as PNG data URLs)."""

    name = "vllm"

    def __init__(self, model: str, settings: GenerationSettings, max_images: int, tensor_parallel_size: int = 1,
                 trust_remote_code: bool = False, max_model_len: int | None = None,
                 gpu_memory_utilization: float = 0.9, **llm_kwargs):
        import vllm
        from vllm import LLM, SamplingParams

        self.settings = settings
        kwargs = dict(model=model, tensor_parallel_size=int(tensor_parallel_size), dtype=settings.dtype or "auto",
                      seed=settings.seed, trust_remote_code=trust_remote_code,
                      limit_mm_per_prompt={"image": int(max_images)},
                      gpu_memory_utilization=gpu_memory_utilization)
        if max_model_len:
            kwargs["max_model_len"] = int(max_model_len)
        kwargs.update(llm_kwargs)
        self.llm_kwargs = {k: v for k, v in kwargs.items() if k != "model"}
        try:
            self.llm = LLM(**kwargs)
        except (OSError, ValueError) as err:  # not found, offline, not a checkpoint, an unsupported model
            raise ModelLoadError(f"--model {model}: vLLM cannot load it: {_first_line(err)}") from None
        sp = dict(max_tokens=settings.max_new_tokens, temperature=max(0.0, settings.temperature), seed=settings.seed)
        if not settings.greedy:
            sp["top_p"] = settings.top_p
        self.sampling_params = SamplingParams(**sp)
        self.model_name = model
        self._version = getattr(vllm, "__version__", None)

    def messages_for(self, request: Request) -> list[dict]:
        parts = [{"type": "image_url", "image_url": {"url": image_to_data_url(im)}} for im in request.images]
        return build_messages(request.question, len(request.images), self.settings.system_prompt, parts,
                              request.turns)

    def generate(self, requests):
        reqs = list(requests)
        if not reqs:
            return
        convs = [self.messages_for(r) for r in reqs]
        t0 = time.perf_counter()
        outputs = self.llm.chat(convs, sampling_params=self.sampling_params, use_tqdm=False)
        dt = (time.perf_counter() - t0) / len(reqs)
        for r, o in zip(reqs, outputs):
            c = o.outputs[0]
            ptoks = getattr(o, "prompt_token_ids", None)
            yield Generation(r.id, c.text.strip(), len(ptoks) if ptoks is not None else None,
                             len(c.token_ids) if getattr(c, "token_ids", None) is not None else None, dt,
                             finish="truncated" if getattr(c, "finish_reason", None) == "length" else None)

    def info(self):
        return {"parameters": resolve_param_count(self.model_name), "vllm": self._version,
                "llm_kwargs": {k: v for k, v in self.llm_kwargs.items()}}
