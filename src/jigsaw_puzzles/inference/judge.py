"""The judge of ``eval --judge MODEL``: a text-only model behind an OpenAI-compatible endpoint, or a local
transformers causal LM, asked :data:`~.resolve_prompts.JUDGE_PROMPT` about each unread output.

:class:`JudgeSettings` checks every value before anything is built (one ``UsageError``). :func:`make_judge` gives an
object with ``ask(requests) -> iterator of Generation`` (one per request, in any order), ``info()`` and ``close()``.
An endpoint that gives up on one output (it timed out, or kept failing, past its retries) is an ``error`` on that
output, recorded and asked again on the next ``eval``; it never stops the run and is never an answer. An endpoint
that refuses the judge outright (a wrong key, model or URL: 401/403/404) stops with one line.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from ..errors import UsageError
from .backends import Generation, ModelLoadError, Request, _first_line
from .openai_backend import GaveUp, OpenAIBackend, probe, resolve_api_base
from .options import DTYPES, check_api_base, seconds, whole
from .settings import GenerationSettings

JUDGE_BACKENDS = ("openai", "transformers")


@dataclass(frozen=True)
class JudgeSettings:
    """The judge: ``model`` (a model name served at ``api_base``, or a local checkpoint folder), and how to reach it.
    ``backend``: openai or transformers (default: transformers for a local folder, else openai); ``api_base`` /
    ``api_key``: default ``$OPENAI_BASE_URL`` / ``$OPENAI_API_KEY``; ``timeout``, ``max_retries``, ``retry_budget``:
    per judge request (openai); ``max_new_tokens``: the reply's length; ``concurrency``: requests in flight (openai)
    or outputs per ``generate`` (transformers); ``dtype``, ``device_map``, ``trust_remote_code``: transformers."""

    model: str
    backend: str | None = None
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    max_retries: int = 2
    retry_budget: float | None = 300.0
    max_new_tokens: int = 256
    concurrency: int = 8
    dtype: str = "auto"
    device_map: Any = None
    trust_remote_code: bool = False

    @classmethod
    def of(cls, model: Any, kwargs: Mapping | None) -> "JudgeSettings":
        """The judge ``model`` with ``kwargs`` (``EvalSettings.judge_kwargs``), checked."""
        if not isinstance(model, str) or not model.strip():
            raise UsageError(f"judge must be a model name or a local checkpoint folder, not {model!r}")
        names = [f for f in cls.__dataclass_fields__ if f != "model"]
        unknown = sorted(str(k) for k in (kwargs or {}) if k not in names)
        if unknown:
            raise UsageError(f"judge_kwargs: unknown key(s) {', '.join(unknown)}; known: {', '.join(names)}")
        return cls(model=model, **dict(kwargs or {})).validate()

    def validate(self) -> "JudgeSettings":
        if self.backend is not None and self.backend not in JUDGE_BACKENDS:
            raise UsageError(f"--judge-backend must be one of {', '.join(JUDGE_BACKENDS)}, not {self.backend!r}")
        for name in ("api_base", "api_key"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise UsageError(f"judge {name} must be a str or None, not {type(getattr(self, name)).__name__}")
        if self.api_base is not None:
            check_api_base(self.api_base, "--judge-api-base")
        seconds("--judge-timeout", self.timeout)
        seconds("judge retry_budget", self.retry_budget, allow_none=True)
        whole("--judge-max-retries", self.max_retries, least=0, allow_none=False)
        whole("judge max_new_tokens", self.max_new_tokens, allow_none=False)
        whole("judge concurrency", self.concurrency, allow_none=False)
        if self.dtype not in DTYPES:
            raise UsageError(f"judge dtype must be one of {', '.join(DTYPES)}, not {self.dtype!r}")
        if self.device_map is not None and not isinstance(self.device_map, (str, dict)):
            raise UsageError(f"judge device_map must be a str or a dict, not {self.device_map!r}")
        if not isinstance(self.trust_remote_code, bool):
            raise UsageError(f"judge trust_remote_code must be True or False, not {self.trust_remote_code!r}")
        return self

    @property
    def kind(self) -> str:
        """The backend the judge runs on."""
        if self.backend:
            return self.backend
        return "transformers" if Path(self.model).expanduser().is_dir() else "openai"

    def endpoint(self) -> str | None:
        return resolve_api_base(self.api_base) if self.kind == "openai" else None

    def check(self) -> None:
        """Before anything is built: the judge can be reached (a refused endpoint, a missing folder, a missing
        transformers: one line now, not after the first pass)."""
        if self.kind == "openai":
            if self.api_base is None and not any(os.environ.get(n) for n in ("OPENAI_BASE_URL", "OPENAI_API_BASE")):
                raise UsageError(f"--judge {self.model}: no endpoint to ask it at and no such folder; give the "
                                 "judge's endpoint with --judge-api-base URL (or $OPENAI_BASE_URL), or a local "
                                 "checkpoint folder")
            probe(self.endpoint())
            return
        from .registry import check_installed

        check_installed("transformers")
        if not Path(self.model).expanduser().exists():
            raise UsageError(f"--judge {self.model}: no such folder; a local judge is a checkpoint folder (give an "
                             "endpoint's model with --judge-api-base instead)")

    def record(self) -> dict:
        """What run.json records of the judge (never the key)."""
        out = {k: v for k, v in asdict(self).items() if k != "api_key"}
        out.update(backend=self.kind, api_base=self.endpoint())
        return out


class _EndpointJudge:
    """The judge behind an OpenAI-compatible endpoint: one request per output, ``concurrency`` at once."""

    def __init__(self, s: JudgeSettings):
        self.backend = OpenAIBackend(s.model, GenerationSettings(max_new_tokens=s.max_new_tokens),
                                     api_base=s.endpoint(), api_key=s.api_key, concurrency=s.concurrency,
                                     max_retries=s.max_retries, timeout=s.timeout, retry_budget=s.retry_budget)
        self.concurrency = s.concurrency

    def _one(self, request: Request) -> Generation:
        t0 = time.perf_counter()
        try:
            return self.backend.complete(request)
        except GaveUp as err:  # timed out or kept failing: this output stays unread, asked again on resume
            return Generation(request.id, "", latency_s=time.perf_counter() - t0, error=str(err)[:500])

    def ask(self, requests: Sequence[Request]) -> Iterator[Generation]:
        with ThreadPoolExecutor(self.concurrency, thread_name_prefix="jp-judge") as pool:
            futures = [pool.submit(self._one, r) for r in requests]
            try:
                for f in as_completed(futures):
                    yield f.result()
            finally:
                for f in futures:
                    f.cancel()

    def info(self) -> dict:
        return self.backend.info()

    def close(self) -> None:
        pass


class _LocalJudge:
    """A local transformers causal LM (``AutoModelForCausalLM`` and its tokenizer's chat template), greedy."""

    def __init__(self, s: JudgeSettings):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kwargs = {"trust_remote_code": s.trust_remote_code}
        if s.device_map is not None:
            kwargs["device_map"] = s.device_map
        elif torch.cuda.is_available():
            kwargs["device_map"] = "auto"
        dtype = "auto" if s.dtype == "auto" else getattr(torch, s.dtype)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(s.model, trust_remote_code=s.trust_remote_code)
            self.model = AutoModelForCausalLM.from_pretrained(s.model, dtype=dtype, **kwargs).eval()
        except (OSError, ValueError) as err:
            raise ModelLoadError(f"--judge {s.model}: transformers cannot load it as a causal LM: "
                                 f"{_first_line(err)}") from None
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.settings, self._torch = s, torch
        eos = self.model.generation_config.eos_token_id
        self.eos = set(eos if isinstance(eos, (list, tuple)) else [eos] if eos is not None else [])

    def _batch(self, requests: Sequence[Request]) -> list[Generation]:
        texts = [self.tokenizer.apply_chat_template([{"role": "user", "content": r.question}], tokenize=False,
                                                    add_generation_prompt=True) for r in requests]
        t0 = time.perf_counter()
        enc = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        enc = {k: v.to(self.model.device) for k, v in enc.items()}
        with self._torch.inference_mode():
            out = self.model.generate(**enc, max_new_tokens=self.settings.max_new_tokens, do_sample=False,
                                      pad_token_id=self.tokenizer.pad_token_id)
        new = out[:, enc["input_ids"].shape[1]:].cpu().tolist()
        dt = (time.perf_counter() - t0) / len(requests)
        gens = []
        for r, ids, n_prompt in zip(requests, new, enc["attention_mask"].sum(dim=1).tolist()):
            end = next((j + 1 for j, t in enumerate(ids) if t in self.eos), len(ids))
            text = self.tokenizer.decode(ids[:end], skip_special_tokens=True)
            gens.append(Generation(r.id, text.strip(), int(n_prompt), end, dt))
        return gens

    def ask(self, requests: Sequence[Request]) -> Iterator[Generation]:
        reqs = list(requests)
        step = self.settings.concurrency
        for i in range(0, len(reqs), step):
            yield from self._batch(reqs[i:i + step])

    def info(self) -> dict:
        return {"parameters": int(self.model.num_parameters()), "model_class": type(self.model).__name__,
                "model_device": str(self.model.device)}

    def close(self) -> None:
        pass


def make_judge(settings: JudgeSettings):
    """The judge ``settings`` name, ready to :meth:`ask`."""
    return _LocalJudge(settings) if settings.kind == "transformers" else _EndpointJudge(settings)
