"""The ``openai`` backend: any OpenAI-compatible ``/chat/completions`` endpoint (``vllm serve``, hosted APIs).

Images go as base64 PNG data URLs; requests run concurrently with retries and exponential back-off.
Plain stdlib ``urllib`` (no ``openai``/``requests`` dependency: one POST per item is all we need, and the
retry policy is ours either way).
"""
from __future__ import annotations

import http.client
import json
import os
import queue
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Callable

from ..errors import UserError
from .backends import Backend, Generation, Request, build_messages, image_to_data_url
from .settings import GenerationSettings

DEFAULT_API_BASE = "https://api.openai.com/v1"
DEFAULT_TIMEOUT = 120.0  # seconds to wait for one response
DEFAULT_MAX_RETRIES = 8  # retries of one request
DEFAULT_RETRY_BUDGET = 600.0  # seconds one request may spend on all its attempts and back-off together


def resolve_api_base(api_base: str | None) -> str:
    """The endpoint's base URL: ``api_base``, else ``$OPENAI_BASE_URL`` / ``$OPENAI_API_BASE``, else OpenAI's;
    without a trailing ``/chat/completions`` (what run.json records and a resume must match)."""
    base = (api_base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")
            or DEFAULT_API_BASE).rstrip("/")
    return base[: -len("/chat/completions")] if base.endswith("/chat/completions") else base


def _one_line(err: Exception, limit: int) -> str:
    """An error's text on one line (an HTML error page has many), at most ``limit`` characters."""
    return " ".join(str(err).split())[:limit]


class APIError(RuntimeError):
    def __init__(self, status: int | None, message: str, retry_after: float | None = None):
        super().__init__(f"HTTP {status}: {message}" if status else message)
        self.status, self.retry_after = status, retry_after


RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}
#: Client errors no retry can fix: the endpoint, the key or the model name is wrong. The run stops at once.
FATAL_STATUS = {401: "the API key was refused (check --api-key / OPENAI_API_KEY)",
                403: "the API key may not use this model or endpoint (check --api-key / OPENAI_API_KEY)",
                404: "no such endpoint or model (check --api-base, which must end in /v1, and --model)",
                400: "the endpoint rejects the request (check --model and that the endpoint takes images)"}


class EndpointError(UserError, RuntimeError):
    """The endpoint cannot answer this run: stop it with one line; nothing is recorded as an answer."""


class OpenAIBackend(Backend):
    """OpenAI-compatible chat.completions over plain HTTP (stdlib ``urllib``), ``concurrency`` requests at once.

    Transient failures (429 rate limits, 408/409, 5xx, connection errors, timeouts) are retried with exponential
    back-off + jitter (honouring ``Retry-After``), up to ``max_retries`` retries and ``retry_budget`` seconds per
    request (each attempt waits at most ``timeout`` seconds); if they persist the run stops and can be resumed.  A 200 whose body is not a usable completion (malformed JSON, an HTML page, a list, no choices, null
    content) is retried the same way: it is never saved as an empty answer.  401/403/404 (and a 400 before any
    request succeeded) mean a misconfigured endpoint: the run stops at once with :class:`EndpointError`.  A later
    400 (e.g. a content filter on one item) is recorded on the item as ``error``; such items are not answers and
    are tried again when the run is resumed.
    """

    name = "openai"

    def __init__(self, model: str, settings: GenerationSettings, api_base: str | None = None,
                 api_key: str | None = None, concurrency: int = 8, max_retries: int = DEFAULT_MAX_RETRIES,
                 timeout: float = DEFAULT_TIMEOUT, retry_budget: float | None = DEFAULT_RETRY_BUDGET,
                 retry_base_delay: float = 1.0, retry_max_delay: float = 60.0, extra_body: dict | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.model, self.settings = model, settings
        self.url = resolve_api_base(api_base) + "/chat/completions"
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.concurrency = max(1, int(concurrency))
        self.max_retries, self.timeout = int(max_retries), float(timeout)
        self.retry_budget = None if retry_budget is None else float(retry_budget)
        self.retry_base_delay, self.retry_max_delay = float(retry_base_delay), float(retry_max_delay)
        self.extra_body = dict(extra_body or {})
        self._sleep = sleep
        self._token_key = "max_tokens"
        self._lock = threading.Lock()
        self.retries = 0  # total retries performed (for run.json / tests)
        self.succeeded = 0  # completions received: a 400 before the first one means a misconfigured run

    def payload(self, request: Request) -> dict:
        parts = [{"type": "image_url", "image_url": {"url": image_to_data_url(im)}} for im in request.images]
        body = {"model": self.model,
                "messages": build_messages(request.question, len(request.images), self.settings.system_prompt, parts),
                self._token_key: self.settings.max_new_tokens,
                "temperature": max(0.0, self.settings.temperature),
                "seed": self.settings.seed}
        if not self.settings.greedy:
            body["top_p"] = self.settings.top_p
        body.update(self.extra_body)
        return body

    def _post(self, body: dict) -> dict:
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            raise self._http_error(e) from None
        except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError, http.client.HTTPException) as e:
            raise APIError(None, f"connection error: {e}") from None
        return self._parse(raw)

    @staticmethod
    def _parse(raw: bytes) -> dict:
        """The completion's message, or a retryable APIError for a body that is not one."""
        try:
            resp = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise APIError(None, f"malformed response (not JSON): {raw[:80]!r}") from None
        if not isinstance(resp, dict) or not isinstance(resp.get("choices"), list) or not resp["choices"] \
                or not isinstance(resp["choices"][0], dict):
            raise APIError(None, f"malformed response (no choices): {str(resp)[:120]}")
        message = resp["choices"][0].get("message")
        if not isinstance(message, dict) or message.get("content") is None:
            raise APIError(None, f"malformed response (no message content): {str(resp)[:120]}")
        return resp

    @staticmethod
    def _http_error(e) -> "APIError":
        """The HTTP status and body of an error response, as an APIError."""
        try:
            msg = e.read().decode("utf-8", "replace")[:2000]
        except Exception:
            msg = str(e)
        ra = e.headers.get("Retry-After") if e.headers else None
        try:
            ra = float(ra) if ra is not None else None
        except ValueError:
            ra = None
        return APIError(e.code, msg, ra)

    def _complete(self, request: Request) -> Generation:
        attempt = 0
        t0 = time.perf_counter()
        while True:
            body = self.payload(request)
            try:
                resp = self._post(body)
                break
            except APIError as e:
                if (e.status == 400 and self._token_key == "max_tokens" and "max_completion_tokens" in str(e)):
                    with self._lock:  # newer OpenAI models reject max_tokens
                        self._token_key = "max_completion_tokens"
                    continue
                if e.status in FATAL_STATUS and (e.status != 400 or not self.succeeded):
                    raise EndpointError(f"HTTP {e.status} from {self.url}: {FATAL_STATUS[e.status]}; nothing was "
                                        f"recorded, re-run the same command once it is fixed") from None
                if e.status is not None and e.status not in RETRYABLE_STATUS:
                    return Generation(request.id, "", None, None, time.perf_counter() - t0,
                                      error=_one_line(e, 500))
                delay = min(self.retry_max_delay, self.retry_base_delay * 2 ** attempt)
                delay = delay * (0.5 + random.random() / 2)
                if e.retry_after is not None:
                    delay = max(delay, min(e.retry_after, self.retry_max_delay))
                spent = time.perf_counter() - t0
                if attempt >= self.max_retries or (self.retry_budget is not None
                                                   and spent + delay > self.retry_budget):
                    raise EndpointError(self._give_up(attempt, spent, e)) from None
                attempt += 1
                with self._lock:
                    self.retries += 1
                self._sleep(delay)
        dt = time.perf_counter() - t0
        with self._lock:
            self.succeeded += 1
        choice = resp["choices"][0]
        msg = choice.get("message") or {}
        content = msg.get("content")
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        usage = resp.get("usage") or {}
        extra = {}
        if choice.get("finish_reason"):
            extra["finish_reason"] = choice["finish_reason"]
        if not isinstance(usage, dict):
            usage = {}
        return Generation(request.id, (content or "").strip(), usage.get("prompt_tokens"),
                          usage.get("completion_tokens"), dt, extra=extra)

    def _give_up(self, retries: int, spent: float, err: Exception) -> str:
        budget = "none" if self.retry_budget is None else f"{self.retry_budget:g} s"
        return (f"{self.url}: giving up after {retries} retries in {spent:.1f} s on one item ({_one_line(err, 200)}); "
                f"the answers so far are saved: re-run the same command to resume (if the endpoint is slow or busy, "
                f"raise --timeout, --max-retries or --retry-budget, now {self.timeout:g} s, {self.max_retries} and "
                f"{budget})")

    def generate(self, requests):
        """Answers in completion order, ``concurrency`` requests in flight.  On an error (or Ctrl-C, or when the
        caller stops consuming) no new request starts: finished answers are still handed out (an error first
        yields those), requests in flight are abandoned (daemon threads: they never hold up the exit)."""
        reqs = list(requests)
        if self.concurrency == 1 or len(reqs) <= 1:
            for r in reqs:
                yield self._complete(r)
            return
        todo: queue.SimpleQueue = queue.SimpleQueue()
        for r in reqs:
            todo.put(r)
        done: queue.SimpleQueue = queue.SimpleQueue()
        stop = threading.Event()

        def worker():
            while not stop.is_set():
                try:
                    r = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    done.put((self._complete(r), None))
                except BaseException as err:  # noqa: BLE001 - handed to the consuming thread
                    stop.set()
                    done.put((None, err))

        for _ in range(min(self.concurrency, len(reqs))):
            threading.Thread(target=worker, daemon=True, name="jigsaw-openai").start()
        try:
            for _ in range(len(reqs)):
                gen, err = done.get()
                if err is None:
                    yield gen
                    continue
                stop.set()
                while True:  # answers that finished before the error are kept
                    try:
                        gen, _err = done.get_nowait()
                    except queue.Empty:
                        break
                    if gen is not None:
                        yield gen
                raise err
        finally:
            stop.set()

    def info(self):
        return {"parameters": None, "api_base": self.url.rsplit("/chat/completions", 1)[0],
                "concurrency": self.concurrency, "timeout": self.timeout, "max_retries": self.max_retries,
                "retry_budget": self.retry_budget, "retries": self.retries}
