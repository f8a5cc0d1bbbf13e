"""The up-front check of an OpenAI-compatible endpoint that takes connections: one real request must be answered
(:func:`check_answers`), after :func:`.openai_backend.probe` found something listening."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request

from .openai_backend import DEFAULT_CHECK_TIMEOUT, EndpointError, _HTTPHandler, _HTTPSHandler, _hang_up, _one_line


def check_answers(api_base: str, api_key: str | None = None, timeout: float = DEFAULT_CHECK_TIMEOUT) -> None:
    """Before anything is built, after :func:`probe`: one real request (``GET /models``, which costs no tokens)
    must get an HTTP answer, any status, within ``timeout`` seconds. A server that accepts connections and never
    answers (hung, or its port held by something else) is an :class:`EndpointError` in ``timeout`` seconds, not
    ``retry_budget`` seconds per item with the progress bar at 0."""
    req = urllib.request.Request(api_base.rstrip("/") + "/models", method="GET",
                                 headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
    outcome: dict = {}
    finished = threading.Event()
    sockets: list = []
    req.jigsaw_sockets = sockets

    def ask():
        try:
            opener = urllib.request.build_opener(_HTTPHandler, _HTTPSHandler)
            with opener.open(req, timeout=timeout + 1) as resp:  # the wait below decides; this, a backstop
                outcome["status"] = resp.status
        except urllib.error.HTTPError as e:
            outcome["status"] = e.code  # an answer all the same: the server is there
        except BaseException as e:  # noqa: BLE001 - said below
            outcome["error"] = e
        finally:
            finished.set()

    threading.Thread(target=ask, daemon=True, name="jigsaw-openai-check").start()
    answered = finished.wait(timeout)
    if not answered:
        _hang_up(sockets)
    if "status" in outcome:
        return
    why = f"no answer to GET {req.full_url} within {timeout:g} s" if not answered else \
        f"GET {req.full_url} failed ({_one_line(outcome['error'], 200)})"
    raise EndpointError(f"{api_base} accepts connections but does not answer: {why}; check that the server there is "
                        "the model server and is not hung (a server still loading may need a longer wait: "
                        "--check-timeout SECONDS)")
