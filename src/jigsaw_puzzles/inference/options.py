"""Every value an eval takes, checked before anything is locked, loaded or written (one owner of the rules).

A bad value is a :class:`~jigsaw_puzzles.errors.UsageError` naming the option and the value (the CLI prints
it as one line, exit code 2): a negative ``--max-items`` never answers one item, ``--timeout 0`` never turns
into advice to raise ``--timeout``, an ``--api-base`` without a scheme never falls back to another endpoint,
and a user name or password in ``--api-base`` is refused (so it can never reach ``run.json``).
"""
from __future__ import annotations

import math
import numbers
import re
import urllib.parse
from pathlib import Path
from typing import Any

from ..errors import UsageError

#: ``--dtype`` values (torch dtypes by name; vLLM takes the same names).
DTYPES = ("auto", "bfloat16", "float16", "float32")


def whole(option: str, value: Any, least: int = 1, allow_none: bool = True) -> int | None:
    """``value`` as an int ≥ ``least`` (None passes, as the option's default, where ``allow_none``)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{option} must be a whole number, got {value!r}")
    if value < least:
        raise UsageError(f"{option} must be at least {least}, got {value}")
    return int(value)


def seconds(option: str, value: Any, allow_none: bool = False) -> float | None:
    """``value`` as a finite number of seconds > 0."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise UsageError(f"{option} must be a number of seconds above 0, got {value!r}")
    return float(value)


def number(option: str, value: Any, low: float, high: float = math.inf, low_open: bool = False) -> float:
    """``value`` as a finite number in ``[low, high]`` (``(low, high]`` when ``low_open``)."""
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value) \
        and (value > low if low_open else value >= low) and value <= high
    if not ok:
        span = f"{'above' if low_open else 'at least'} {low:g}" + ("" if high == math.inf else f" and at most {high:g}")
        raise UsageError(f"{option} must be a number {span}, got {value!r}")
    return float(value)


def redacted(url: str) -> str:
    """``url`` with any user name and password replaced by ``***`` (for messages), even when it does not parse."""
    return re.sub(r"//[^/?#]*@", "//***@", url)


def check_api_base(url: str, option: str = "--api-base") -> str:
    """``url`` if it is an http(s) base URL this package can post to; else a UsageError that says why."""
    shown = repr(redacted(url))
    if not url.strip():
        raise UsageError(f"{option} is empty; give the endpoint's base URL, e.g. http://localhost:8000/v1")
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise UsageError(f"{option} {shown} contains spaces or control characters")
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in 0-65535
    except ValueError as err:
        raise UsageError(f"{option} {shown} is not a valid URL ({err})") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise UsageError(f"{option} {shown} is not an http:// or https:// URL (e.g. http://localhost:8000/v1)")
    if not parts.hostname:
        raise UsageError(f"{option} {shown} names no host (e.g. http://localhost:8000/v1)")
    if parts.username is not None or parts.password is not None:
        raise UsageError(f"{option} {shown} carries a user name or password; give the key with --api-key or "
                         "$OPENAI_API_KEY instead (it is never recorded)")
    if parts.query or parts.fragment or url.rstrip().endswith(("?", "#")):
        raise UsageError(f"{option} {shown} has a query string or fragment; give the base URL only (the key "
                         "goes in --api-key or $OPENAI_API_KEY)")
    return url


def check_builtin_typo(model: str, backend: str, builtins: tuple[str, ...]) -> None:
    """``--model solvr``: a name with no "/" that is not a local path but is close to a built-in baseline's is a
    UsageError suggesting it (``difflib``), instead of a Hub lookup for a model nobody meant. Only where the name
    would go to the Hub (the transformers backend): a served model's name (``--api-base``) is the server's."""
    if backend != "transformers" or "/" in model or Path(model).expanduser().exists():
        return
    import difflib

    close = difflib.get_close_matches(model.lower(), builtins, n=1, cutoff=0.6)
    if close:
        raise UsageError(f"--model {model}: no such model here; did you mean {close[0]} (the built-in baseline)? A Hub "
                         "model is ORG/NAME, a local checkpoint a folder")


def check_model(model: str, backend: str) -> None:
    """For the transformers backend: ``model`` is an existing folder, or a Hub id that is cached or that the Hub
    knows; otherwise a UsageError at once (not minutes of download retries, then a traceback).  (vLLM resolves
    models its own way, ModelScope included: what it cannot load is a ``ModelLoadError``, one line, too.)"""
    if backend != "transformers":
        return
    if Path(model).expanduser().exists():
        return  # a local checkpoint: the backend says what is wrong with it, if anything
    if model.startswith(("/", "./", "../", "~", ".\\")):
        raise UsageError(f"--model {model}: no such folder")
    from huggingface_hub import constants, model_info, try_to_load_from_cache
    from huggingface_hub.errors import GatedRepoError, HFValidationError, RepositoryNotFoundError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(model)
    except HFValidationError:
        raise UsageError(f"--model {model}: neither a local folder nor a Hub model id (like "
                         "Qwen/Qwen2.5-VL-7B-Instruct)") from None
    if isinstance(try_to_load_from_cache(model, "config.json"), str):
        return  # in the local cache: the backend loads it from there
    if constants.HF_HUB_OFFLINE:
        raise UsageError(f"--model {model}: not in the local Hugging Face cache and HF_HUB_OFFLINE is set; "
                         "download it first, or give a local folder")
    try:
        model_info(model, timeout=20)
    except GatedRepoError:
        raise UsageError(f"--model {model}: a gated model; accept its terms on the Hub and log in "
                         "(hf auth login or $HF_TOKEN)") from None
    except RepositoryNotFoundError:
        raise UsageError(f"--model {model}: no such local folder, and no such model on the Hub (or a private "
                         "one without a token: hf auth login or $HF_TOKEN); check the name") from None
    except Exception as err:  # noqa: BLE001 - no connection, DNS, proxy, a 5xx: the weights cannot come
        raise UsageError(f"--model {model}: not in the local cache and the Hub cannot be reached "
                         f"({' '.join(str(err).split())[:200]}); connect, or give a local folder") from None


def check_run(*, out, max_items, batch_size, tensor_parallel_size, max_new_tokens,
              temperature, top_p, dtype, num_proc, api_base, backend_kwargs) -> None:
    """What :func:`~jigsaw_puzzles.inference.evaluate_model` takes, checked before the run directory is touched."""
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise UsageError(f"--out {out} is a file, not a run directory")
    whole("--max-items", max_items)
    whole("--batch-size", batch_size)
    whole("--tensor-parallel-size", tensor_parallel_size, allow_none=False)
    whole("--max-new-tokens", max_new_tokens, allow_none=False)
    whole("--num-proc", num_proc)
    number("--temperature", temperature, 0.0)
    number("--top-p", top_p, 0.0, 1.0, low_open=True)
    if dtype not in DTYPES:
        raise UsageError(f"--dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if api_base is not None:
        check_api_base(api_base)
    kwargs = dict(backend_kwargs or {})
    if "timeout" in kwargs:
        seconds("--timeout", kwargs["timeout"])
    if "retry_budget" in kwargs:
        seconds("--retry-budget", kwargs["retry_budget"], allow_none=True)
    if "budget" in kwargs:
        seconds("--budget", kwargs["budget"], allow_none=True)
    if "check_timeout" in kwargs:
        seconds("--check-timeout", kwargs["check_timeout"])
    if "max_retries" in kwargs:
        whole("--max-retries", kwargs["max_retries"], least=0)
    if kwargs.get("max_model_len") is not None:
        whole("--max-model-len", kwargs["max_model_len"])


def eval_backend_kwargs(args) -> dict:
    """The CLI's eval arguments checked (every one, whichever backend runs) and the backend's own keyword
    arguments they give (``--max-model-len``, ``--device-map``)."""
    seconds("--timeout", args.timeout)
    seconds("--retry-budget", args.retry_budget)
    seconds("--budget", args.budget, allow_none=True)
    seconds("--check-timeout", args.check_timeout)
    whole("--max-retries", args.max_retries, least=0)
    whole("--max-model-len", args.max_model_len)
    if args.device_map is not None and not args.device_map.strip():
        raise UsageError("--device-map is empty; leave it out for the default")
    check_run(out=args.out, max_items=args.max_items, batch_size=args.batch_size,
              tensor_parallel_size=args.tensor_parallel_size, max_new_tokens=args.max_new_tokens,
              temperature=args.temperature, top_p=args.top_p, dtype=args.dtype, num_proc=args.num_proc,
              api_base=args.api_base, backend_kwargs=None)
    kwargs = {}
    if args.max_model_len:
        kwargs["max_model_len"] = args.max_model_len
    if args.device_map:
        kwargs["device_map"] = args.device_map
    return kwargs
