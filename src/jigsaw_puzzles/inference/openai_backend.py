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
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Callable

from ..errors import UserError, cli_active, python_words
from .backends import Backend, Generation, Request, build_messages, image_to_data_url
from .options import check_api_base, seconds, whole
from .settings import GenerationSettings

DEFAULT_API_BASE = "https://api.openai.com/v1"
DEFAULT_TIMEOUT = 120.0  # seconds to wait for one response
DEFAULT_MAX_RETRIES = 8  # retries of one request
DEFAULT_RETRY_BUDGET = 600.0  # seconds one request may spend on all its attempts and back-off together
DEFAULT_CHECK_TIMEOUT = 15.0  # seconds the up-front check waits for the endpoint's first answer
NOTICE_EVERY = 30.0  # seconds between two notices of the same kind of wait (concurrent stalls say it once)


def resolve_api_base(api_base: str | None) -> str:
    """The endpoint's base URL: ``api_base``, else ``$OPENAI_BASE_URL`` / ``$OPENAI_API_BASE``, else OpenAI's;
    without a trailing ``/chat/completions`` (what run.json records and a resume must match).  A URL that is not
    an http(s) base URL (an empty one, no scheme, a password or query in it) is a UsageError, never a fallback."""
    if api_base is not None:
        base = check_api_base(api_base)
    else:
        name = next((n for n in ("OPENAI_BASE_URL", "OPENAI_API_BASE") if os.environ.get(n)), None)
        base = check_api_base(os.environ[name], f"${name}") if name else DEFAULT_API_BASE
    base = base.strip().rstrip("/")
    return base[: -len("/chat/completions")] if base.endswith("/chat/completions") else base


def probe(api_base: str, timeout: float = 5.0) -> None:
    """Before anything is built: one TCP connection to the endpoint's host and port (no request is sent). A refused
    connection, or a host name that does not exist, is an :class:`EndpointError` in seconds, naming the URL and what
    to check (not minutes of retries after the whole split is built). A connect timeout or any other failure
    passes: the requests' own retries handle a slow or busy server, as they handle 5xx answers. Skipped when a proxy
    carries the requests (urllib talks to the proxy, not to the host)."""
    parts = urllib.parse.urlsplit(api_base)
    scheme, host = parts.scheme.lower(), parts.hostname
    port = parts.port or (443 if scheme == "https" else 80)
    if urllib.request.getproxies().get(scheme) and not urllib.request.proxy_bypass(host):
        return
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        raise EndpointError(f"nothing answers at {api_base}: the connection to {host}:{port} was refused; start the "
                            f"server (e.g. `vllm serve MODEL --port {port}`), or check the endpoint's host and port "
                            "(--api-base / $OPENAI_BASE_URL)") from None
    except socket.gaierror as err:
        if err.errno in (socket.EAI_AGAIN, getattr(socket, "EAI_SYSTEM", None)):
            return  # a name server that did not answer this time: the requests retry
        raise EndpointError(f"cannot find the host of {api_base} ({host}: {err.strerror or err}); check the endpoint "
                            "(--api-base / $OPENAI_BASE_URL)") from None
    except OSError:
        return


def _one_line(err: Exception, limit: int) -> str:
    """An error's text on one line (an HTML error page has many), at most ``limit`` characters."""
    return " ".join(str(err).split())[:limit]


def _is_part(part) -> bool:
    """An OpenAI content part of a reply: ``{"type": "text", "text": str}`` or ``{"type": "refusal", ...}``."""
    if not isinstance(part, dict):
        return False
    kind = part.get("type", "text")
    return (kind == "text" and isinstance(part.get("text"), str)) or kind == "refusal"


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _Tracked:
    """A connection class for urllib's handlers that records its sockets on the request (``jigsaw_sockets``),
    so that the attempt's deadline can hang them up."""

    def __init__(self, cls, req):
        self.cls, self.req = cls, req

    def __call__(self, host, **kwargs):
        conn = self.cls(host, **kwargs)
        create, connect, sockets = conn._create_connection, conn.connect, self.req.jigsaw_sockets

        def tracked_create(*args, **kw):
            sock = create(*args, **kw)
            sockets.append(sock)
            return sock

        def tracked_connect():
            connect()
            sockets.append(conn.sock)  # https: the TLS socket over the raw one

        conn._create_connection, conn.connect = tracked_create, tracked_connect
        return conn


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(_Tracked(http.client.HTTPConnection, req), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):
        kwargs = {"context": self._context}
        if hasattr(self, "_check_hostname"):  # Python < 3.12
            kwargs["check_hostname"] = self._check_hostname
        return self.do_open(_Tracked(http.client.HTTPSConnection, req), req, **kwargs)


def _hang_up(sockets) -> None:
    """Shut the sockets down (not close: another thread may be reading them), which ends a blocked read."""
    for sock in sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass


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


class GaveUp(EndpointError):
    """One request kept failing (timeouts, 429, 5xx, malformed bodies) past its retries or its retry budget."""


class OpenAIBackend(Backend):
    """OpenAI-compatible chat.completions over plain HTTP (stdlib ``urllib``), ``concurrency`` requests at once.

    Transient failures (429 rate limits, 408/409, 5xx, connection errors, timeouts) are retried with exponential
    back-off + jitter (honouring ``Retry-After``), up to ``max_retries`` retries and ``retry_budget`` seconds per
    request (each attempt, headers and body together, takes at most ``timeout`` seconds and never runs past the
    budget); if they persist the run stops and can be resumed.  A 200 whose body is not a usable completion (malformed JSON, an HTML page, a list, no choices, null
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
                 sleep: Callable[[float], None] = time.sleep, budget: float | None = None,
                 check_timeout: float = DEFAULT_CHECK_TIMEOUT, notice: Callable[[str], None] | None = None):
        self.model, self.settings = model, settings
        self.url = resolve_api_base(api_base) + "/chat/completions"
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.concurrency = max(1, int(concurrency))
        self.max_retries = whole("--max-retries", max_retries, least=0)
        self.timeout = seconds("--timeout", timeout)  # bounds each attempt as a whole, not one read
        self.retry_budget = seconds("--retry-budget", retry_budget, allow_none=True)
        self.budget = seconds("--budget", budget, allow_none=True)  # the whole run's time on the endpoint
        self.check_timeout = seconds("--check-timeout", check_timeout)  # the runner's up-front check_answers
        self._deadline: float | None = None  # set by the first request: perf_counter() + budget
        self._notice = notice or (_say if cli_active() else lambda text: _say(python_words(text)))  # (threads
        # have no context of their own: the face is the one the backend was made in)
        self._noticed: dict = {}  # kind of wait -> when it was last said
        self.retry_base_delay, self.retry_max_delay = float(retry_base_delay), float(retry_max_delay)
        self.extra_body = dict(extra_body or {})
        self._sleep = sleep
        self._opener = urllib.request.build_opener(_HTTPHandler, _HTTPSHandler)
        self._token_key = "max_tokens"
        self._lock = threading.Lock()
        self.retries = 0  # total retries performed (for run.json / tests)
        self.succeeded = 0  # completions received: a 400 before the first one means a misconfigured run

    def payload(self, request: Request) -> dict:
        parts = [{"type": "image_url", "image_url": {"url": image_to_data_url(im)}} for im in request.images]
        body = {"model": self.model,
                "messages": build_messages(request.question, len(request.images), self.settings.system_prompt, parts,
                                           request.turns),
                self._token_key: self.settings.max_new_tokens,
                "temperature": max(0.0, self.settings.temperature),
                "seed": self.settings.seed}
        if not self.settings.greedy:
            body["top_p"] = self.settings.top_p
        body.update(self.extra_body)
        return body

    def _post(self, body: dict, limit: float) -> dict:
        """One attempt, bounded as a whole by ``limit`` seconds: a server that trickles its body (or its
        headers) byte by byte is hung up on at the deadline, not waited for one read at a time."""
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        req.jigsaw_sockets = []  # every socket of this attempt (see _Tracked), hung up at the deadline
        outcome: dict = {}
        finished = threading.Event()

        def attempt():
            try:
                with self._opener.open(req, timeout=limit) as resp:
                    outcome["raw"] = resp.read()
            except urllib.error.HTTPError as e:
                outcome["error"] = self._http_error(e)  # its body is read here, under the same deadline
            except (OSError, http.client.HTTPException) as e:
                outcome["error"] = APIError(None, f"connection error: {e}")
            except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
                outcome["error"] = e
            finally:
                finished.set()

        threading.Thread(target=attempt, daemon=True, name="jigsaw-openai-request").start()
        if not finished.wait(limit):
            _hang_up(req.jigsaw_sockets)
            raise APIError(None, f"connection error: timed out, no complete response within {limit:.3g} s")
        if "error" in outcome:
            raise outcome["error"]
        return self._parse(outcome["raw"])

    @staticmethod
    def _parse(raw: bytes) -> dict:
        """``{"text", "finish_reason", "usage"}`` of a completion, or a retryable APIError for a body that is not
        one.  ``content`` is read as the OpenAI format allows: a string, or a list of text (or refusal) parts;
        ``null`` only with ``finish_reason: "length"`` (cut before any text) or a ``refusal``."""
        try:
            resp = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise APIError(None, f"malformed response (not JSON): {raw[:80]!r}") from None
        if not isinstance(resp, dict) or not isinstance(resp.get("choices"), list) or not resp["choices"] \
                or not isinstance(resp["choices"][0], dict):
            raise APIError(None, f"malformed response (no choices): {str(resp)[:120]}")
        choice = resp["choices"][0]
        message = choice.get("message")
        finish = choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and all(_is_part(p) for p in content):
            content = "".join(p["text"] for p in content if p.get("type", "text") == "text")
        elif content is None and isinstance(message, dict) and (finish == "length"
                                                                 or isinstance(message.get("refusal"), str)):
            content = ""
        if not isinstance(content, str):
            raise APIError(None, f"malformed response (no message content): {str(resp)[:120]}")
        usage = resp.get("usage") if isinstance(resp.get("usage"), dict) else {}
        return {"text": content, "finish_reason": finish, "usage": usage}

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

    def _spent(self) -> None:
        """``EndpointError`` once the run's ``budget`` on the endpoint is spent."""
        raise EndpointError(f"{self.url}: the run's budget on the endpoint ({self.budget:g} s, --budget) is spent "
                            f"({self.succeeded} items answered in it); the answers so far are saved: re-run the same "
                            "command to resume")

    def _waiting(self, err: "APIError", attempt: int, delay: float) -> None:
        """One line saying how long a request waits and why (a kind of wait said at most every 30 s: eight
        requests stalled together say it once)."""
        why = "no answer within the timeout: the server took the request and sent nothing back" \
            if "timed out" in str(err) else _one_line(err, 120)
        kind = why if err.status is None else err.status
        now = time.perf_counter()
        with self._lock:
            if now - self._noticed.get(kind, -NOTICE_EVERY) < NOTICE_EVERY:
                return
            self._noticed[kind] = now
        cap = "" if self.retry_budget is None else f", at most {self.retry_budget:g} s an item"
        self._notice(f"[jigsaw-puzzles] {self.url}: {why}; retry {attempt + 1} of {self.max_retries} in {delay:.1f} s "
                     f"(each attempt waits {self.timeout:g} s{cap}; --timeout, --max-retries, --retry-budget, "
                     f"--budget)")

    def _complete(self, request: Request) -> Generation:
        attempt = 0
        t0 = time.perf_counter()
        with self._lock:
            if self._deadline is None and self.budget is not None:
                self._deadline = t0 + self.budget
        while True:
            body = self.payload(request)
            limit = self.timeout  # each attempt; never past the request's retry budget, nor the run's budget
            if self.retry_budget is not None:
                limit = min(limit, max(0.001, self.retry_budget - (time.perf_counter() - t0)))
            if self._deadline is not None:
                left = self._deadline - time.perf_counter()
                if left <= 0:
                    self._spent()
                limit = min(limit, left)
            try:
                resp = self._post(body, limit)
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
                if self._deadline is not None and time.perf_counter() + delay >= self._deadline:
                    self._spent()
                if attempt >= self.max_retries or (self.retry_budget is not None
                                                   and spent + delay > self.retry_budget):
                    raise GaveUp(self._give_up(attempt, spent, e)) from None
                self._waiting(e, attempt, delay)
                attempt += 1
                with self._lock:
                    self.retries += 1
                self._sleep(delay)
        dt = time.perf_counter() - t0
        with self._lock:
            self.succeeded += 1
        text, usage = resp["text"].strip(), resp["usage"]
        extra = {"finish_reason": resp["finish_reason"]} if resp["finish_reason"] else {}
        finish = "truncated" if resp["finish_reason"] == "length" else None
        return Generation(request.id, text, _count(usage.get("prompt_tokens")),
                          _count(usage.get("completion_tokens")), dt, extra=extra, finish=finish)

    def complete(self, request: Request) -> Generation:
        """One request, with the retries and their budget; :class:`GaveUp` when it keeps failing past them, an
        :class:`EndpointError` when the endpoint refuses the run outright (401/403/404)."""
        return self._complete(request)

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
                "retry_budget": self.retry_budget, "budget": self.budget, "retries": self.retries}


def _say(text: str) -> None:
    """A notice on stderr above the progress bar (tqdm keeps its bar below it)."""
    from tqdm.auto import tqdm

    tqdm.write(text, file=sys.stderr)
