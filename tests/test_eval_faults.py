"""Faults that must never end as a finished run with a wrong score (Trust issue, evaluation side).

Every server here is a stub on 127.0.0.1, bounded in requests and time, and stopped by the test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from fixtures.rows import make_dataset
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.inference import GenerationSettings, Request, RunDir, RunLocked, RunMismatchError, evaluate_model
from jigsaw_puzzles.inference.openai_backend import EndpointError, OpenAIBackend

CONFIG = "piece_localization_easy"
MAX_REQUESTS = 200


class Stub(BaseHTTPRequestHandler):
    """Answers per ``mode``: a status code, a malformed 200 body, a sleep, or a proper completion."""

    mode = "ok"
    count = 0
    delay = 0.0
    reject = None  # (status, after): answer the first `after` requests, then `status` for one request
    body = None  # a JSON body to send with 200 (the completion's shape under test)
    trickle_for = 30.0  # seconds a trickling response lasts at most (the test bounds the server too)

    def log_message(self, *args):
        pass

    def do_POST(self):
        cls = type(self)
        cls.count += 1
        self.rfile.read(int(self.headers["Content-Length"]))
        if cls.count > MAX_REQUESTS:
            return self._send(503, b"{}")
        if cls.delay:
            time.sleep(cls.delay)
        if cls.reject is not None and cls.count == cls.reject[1] + 1:
            return self._send(cls.reject[0], json.dumps({"error": {"message": "content filtered"}}).encode())
        mode = cls.mode
        if cls.body is not None:
            return self._send(200, json.dumps(cls.body).encode())
        if mode in ("trickle_body", "trickle_headers"):
            return self._trickle(mode)
        if isinstance(mode, int):
            return self._send(mode, json.dumps({"error": {"message": "nope"}}).encode())
        bodies = {
            "ok": {"choices": [{"message": {"role": "assistant", "content": "B"}, "finish_reason": "stop"}]},
            "no_choices": {"choices": []},
            "null_content": {"choices": [{"message": {"role": "assistant", "content": None}}]},
            "list": [1, 2, 3],
        }
        if mode in bodies:
            return self._send(200, json.dumps(bodies[mode]).encode())
        if mode == "html":
            return self._send(200, b"<html><body>Bad gateway</body></html>", "text/html")
        if mode == "malformed":
            return self._send(200, b'{"choices": [{"message": ')
        if mode == "truncated":  # announces more bytes than it sends
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "500")
            self.end_headers()
            self.wfile.write(b'{"choices": [')
            return None
        raise AssertionError(mode)

    def _trickle(self, mode):
        """One byte every 0.3 s for at most ``trickle_for`` s (an endless body), or until the client hangs up."""
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        if mode == "trickle_body":
            self.wfile.write(head)
            head = b"{" + b" " * 99999
        end = time.monotonic() + type(self).trickle_for
        try:
            for byte in head:
                if time.monotonic() > end:
                    break
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.3)
        except OSError:  # the client hung up: what the test wants
            pass
        self.close_connection = True

    def _send(self, code, data, ctype="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # a client that hung up (timeouts) is expected here
        pass


@pytest.fixture
def stub():
    Stub.mode, Stub.count, Stub.delay, Stub.reject, Stub.body = "ok", 0, 0.0, None, None
    server = QuietServer(("127.0.0.1", 0), Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", Stub
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def data():
    return {CONFIG: make_dataset(CONFIG, 4)}


def run(url, data, out, **kwargs):
    kwargs.setdefault("backend_kwargs", {"retry_base_delay": 0.0, "max_retries": 2, "timeout": 5})
    return evaluate_model("m", backend="openai", api_base=url, data=data, out=out, batch_size=1, progress=False,
                          **kwargs)


@pytest.mark.parametrize("status", [401, 403, 404, 400])
def test_misconfigured_endpoint_stops_at_once_and_a_fixed_rerun_answers_everything(stub, data, tmp_path, status):
    url, handler = stub
    handler.mode = status
    with pytest.raises(EndpointError, match=f"HTTP {status} from {url}") as err:
        run(url, data, tmp_path / "run")
    cause = {401: "API key", 403: "API key", 404: "api_base", 400: "model"}[status]  # a Python caller's words
    assert cause in str(err.value) and "\n" not in str(err.value)
    assert handler.count == 1  # stopped at the first answer, no retries
    preds = tmp_path / "run" / "predictions.jsonl"
    assert not preds.exists() or preds.read_text() == ""  # nothing recorded as an answer
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "interrupted"
    handler.mode = "ok"
    res = run(url, data, tmp_path / "run")
    assert res["complete"] and res["n_items"] == 4 and handler.count == 5


@pytest.mark.parametrize("mode", ["no_choices", "null_content", "list", "html", "malformed", "truncated"])
def test_a_200_that_is_not_a_completion_is_retried_then_a_clear_error_never_an_empty_answer(stub, data, tmp_path,
                                                                                           mode):
    url, handler = stub
    handler.mode = mode
    with pytest.raises(EndpointError, match="giving up after 2 retries"):
        run(url, data, tmp_path / "run")
    assert handler.count == 3
    preds = tmp_path / "run" / "predictions.jsonl"
    assert not preds.exists() or preds.read_text() == ""


def test_a_hung_server_times_out_per_attempt(stub, data, tmp_path):
    url, handler = stub
    handler.delay = 1.0
    with pytest.raises(EndpointError, match="timed out.*raise timeout, max_retries or retry_budget, now 0.2 s, 1"):
        run(url, data, tmp_path / "run", backend_kwargs={"retry_base_delay": 0.0, "max_retries": 1, "timeout": 0.2})
    assert handler.count == 2


def test_a_busy_server_exhausts_the_retry_budget_not_only_the_retry_count(stub, data, tmp_path):
    url, handler = stub
    handler.mode = 503
    with pytest.raises(EndpointError, match=r"retry_budget, now 5 s, 50 and 0\.3 s"):
        run(url, data, tmp_path / "run",
            backend_kwargs={"retry_base_delay": 0.1, "max_retries": 50, "timeout": 5, "retry_budget": 0.3})
    assert 1 <= handler.count < 10  # back-off 0.05-0.1, 0.1-0.2, ...: the 0.3 s budget ends it, not 50 retries


def test_cli_timeout_and_retry_flags_reach_the_backend(stub, tmp_path, capsys, photo_dir, cache_dir):
    url, handler = stub
    handler.delay = 0.6
    rc = main(["eval", "--model", "m", "--api-base", url, "--source", str(photo_dir), "--configs", CONFIG,
               "--max-items", "1", "--out", str(tmp_path / "run"), "--no-progress", "--cache-dir", cache_dir,
               "--timeout", "0.1", "--max-retries", "1", "--retry-budget", "30"])
    line = last_error_line(capsys)
    assert rc == 2 and handler.count == 2
    assert "giving up after 1 retries" in line and "now 0.1 s, 1 and 30 s" in line


def last_error_line(capsys) -> str:
    """The one error line (above it at most the dataset build's progress bars), never a traceback."""
    err = capsys.readouterr().err
    errors = [ln for ln in err.splitlines() if ln.startswith("jigsaw-puzzles: ")
              and not ln.startswith("jigsaw-puzzles: backend ")]  # the chosen backend, said once: no error
    assert "Traceback" not in err and len(errors) == 1, err
    assert err.strip().splitlines()[-1] == errors[0]
    return errors[0]


def test_cli_endpoint_error_is_one_line_exit_2_and_the_fixed_rerun_answers_everything(stub, tmp_path, capsys,
                                                                                      photo_dir, cache_dir):
    url, handler = stub
    handler.mode = 401
    argv = ["eval", "--model", "m", "--api-base", url, "--source", str(photo_dir), "--configs", CONFIG,
            "--max-items", "2", "--out", str(tmp_path / "run"), "--no-progress", "--max-retries", "1",
            "--batch-size", "1", "--cache-dir", cache_dir]
    rc = main(argv)
    line = last_error_line(capsys)
    assert rc == 2 and handler.count == 1
    assert f"HTTP 401 from {url}" in line and "API key" in line
    assert not RunDir(tmp_path / "run").load_predictions() and not (tmp_path / "run" / "results.json").exists()
    handler.mode = "ok"
    assert main(argv) == 0 and handler.count == 3
    assert json.loads((tmp_path / "run" / "results.json").read_text())["n_items"] == 2


def test_cli_a_run_with_errored_items_is_incomplete_and_exits_1(stub, tmp_path, capsys, photo_dir, cache_dir):
    url, handler = stub
    handler.reject = (400, 1)  # the second request is refused (e.g. a content filter), after one success
    argv = ["eval", "--model", "m", "--api-base", url, "--source", str(photo_dir), "--configs", CONFIG,
            "--max-items", "3", "--out", str(tmp_path / "run"), "--no-progress", "--batch-size", "1",
            "--cache-dir", cache_dir, "--json"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    res = json.loads(captured.out)
    assert not res["complete"] and res["n_errors"] == 1 and res["n_missing"] == 1 and res["n_items"] == 2
    assert "1 ended in an error" in captured.err and "re-run" in captured.err
    run_json = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run_json["status"] == "incomplete"
    assert main(argv) == 0 and handler.count == 4  # only the errored item is asked again
    res = json.loads(capsys.readouterr().out)
    assert res["complete"] and res["n_errors"] == 0 and res["n_items"] == 3


def test_resume_refuses_another_api_base(stub, data, tmp_path):
    url, _ = stub
    run(url, data, tmp_path / "run")
    with pytest.raises(RunMismatchError, match="api_base"):
        run(url.replace("/v1", "/other/v1"), data, tmp_path / "run")


def test_the_endpoint_from_the_environment_is_recorded_and_checked(stub, data, tmp_path, monkeypatch):
    url, _ = stub
    monkeypatch.setenv("OPENAI_BASE_URL", url + "/")
    evaluate_model("m", backend="openai", data=data, out=tmp_path / "run", batch_size=1, progress=False)
    assert json.loads((tmp_path / "run" / "run.json").read_text())["api_base"] == url
    monkeypatch.setenv("OPENAI_BASE_URL", url.replace("/v1", "/v2"))
    with pytest.raises(RunMismatchError, match="api_base"):
        evaluate_model("m", backend="openai", data=data, out=tmp_path / "run", batch_size=1, progress=False)


HOLD_LOCK = r"""
import sys
from jigsaw_puzzles.inference import RunDir
RunDir(sys.argv[1]).lock()
print("locked", flush=True)
sys.stdin.read()  # hold it until the test closes our stdin; exit without unlocking, like a killed run
"""


def test_a_run_held_by_another_process_is_refused_naming_it_then_taken_over(data, tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(tmp_path / "run")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(RunLocked, match=f"pid {proc.pid} on "):
            evaluate_model("random", data=data, out=tmp_path / "run", progress=False)
        assert not (tmp_path / "run" / "predictions.jsonl").exists()
    finally:
        proc.communicate("", timeout=60)
    assert (tmp_path / "run" / ".lock").exists()  # left behind by the dead holder
    assert evaluate_model("random", data=data, out=tmp_path / "run", progress=False)["complete"]
    assert not (tmp_path / "run" / ".lock").exists()


def test_a_second_run_into_the_same_directory_is_refused(data, tmp_path):
    holder = RunDir(tmp_path / "run")
    holder.lock()  # this process holds it, as a running eval would
    try:
        with pytest.raises(RunLocked, match=f"pid {os.getpid()}"):
            evaluate_model("random", data=data, out=tmp_path / "run", progress=False)
    finally:
        holder.unlock()
    assert evaluate_model("random", data=data, out=tmp_path / "run", progress=False)["complete"]


def test_a_stale_lock_of_a_dead_process_is_taken_over(data, tmp_path):
    import socket

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / ".lock").write_text(json.dumps({"pid": int(dead.stdout), "host": socket.gethostname()}))
    assert evaluate_model("random", data=data, out=tmp_path / "run", progress=False)["complete"]


def test_one_verdict_per_item_in_predictions_and_results(data, tmp_path):
    res = evaluate_model("random", data=data, out=tmp_path / "run", progress=False)
    recs = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    assert sum(r["correct"] for r in recs) == res["metrics"][CONFIG]["correct"]
    assert all({"extracted", "status", "correct"} <= set(r) for r in recs)


def test_ctrl_c_during_concurrent_requests_starts_no_new_request(stub, data):
    url, handler = stub
    handler.delay = 0.3
    backend = OpenAIBackend("m", GenerationSettings(), api_base=url, concurrency=2, timeout=5)
    rows = [data[CONFIG][i % 4] for i in range(12)]
    reqs = [Request(f"{CONFIG}/{i}", CONFIG, row["question"], row["images"]) for i, row in enumerate(rows)]
    answers = backend.generate(reqs)
    next(answers)
    answers.close()  # what Ctrl-C / SIGTERM does to the generator while the runner consumes it
    time.sleep(1.0)  # let requests already taken reach the server (the count below is bounded either way)
    assert handler.count <= 4  # one answered, the two in flight, perhaps one being taken: never all 12


SIGTERM_SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[3])
from jigsaw_puzzles.cli import main
sys.exit(main(["eval", "--model", "m", "--api-base", sys.argv[1], "--source", sys.argv[4], "--configs",
               "piece_localization_easy", "--out", sys.argv[2], "--no-progress", "--batch-size", "1"]))
"""


@pytest.mark.slow
def test_sigterm_marks_the_run_interrupted_with_one_line(stub, tmp_path, photo_dir):
    url, handler = stub
    handler.delay = 0.5
    out = tmp_path / "run"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_CACHE": str(tmp_path / "c")}
    proc = subprocess.Popen([sys.executable, "-c", SIGTERM_SCRIPT, url, str(out), str(Path(__file__).parent),
                             str(photo_dir)], env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while handler.count < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert handler.count >= 2, "the eval never reached the server"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("jigsaw-puzzles: interrupted")
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    assert not (out / ".lock").exists()


# ---------------------------------------------------------------------------------------------- Trust II (#20)
def completion(content, finish="stop", **message):
    return {"choices": [{"message": {"role": "assistant", "content": content, **message}, "finish_reason": finish}]}


@pytest.mark.parametrize("content", [["A"], 7, {"text": "A"}, True, [{"type": "text", "text": None}],
                                     [{"type": "text", "text": "A"}, "B"], [{"type": "image_url"}]])
def test_a_content_outside_the_openai_format_is_malformed_retried_then_a_clear_error(stub, data, tmp_path, content):
    url, handler = stub
    handler.body = completion(content)
    with pytest.raises(EndpointError, match="giving up after 2 retries.*malformed response"):
        run(url, data, tmp_path / "run")
    assert handler.count == 3
    preds = tmp_path / "run" / "predictions.jsonl"
    assert not preds.exists() or preds.read_text() == ""  # never an empty answer, never a traceback


@pytest.mark.parametrize("content", ["B", [{"type": "text", "text": "B"}],
                                     [{"type": "text", "text": "B"}, {"type": "refusal", "refusal": "no"}]])
def test_a_content_string_or_list_of_text_parts_is_read_as_its_text(stub, data, tmp_path, content):
    url, handler = stub
    handler.body = completion(content)
    res = run(url, data, tmp_path / "run")
    recs = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    assert res["complete"] and {r["output"] for r in recs} == {"B"} and all("finish" not in r for r in recs)
    assert res["metrics"][CONFIG]["truncated"] == 0 and res["metrics"][CONFIG]["empty"] == 0


@pytest.mark.parametrize("body, finish", [
    (completion("The pieces go", finish="length"), "truncated"),
    (completion(None, finish="length"), "truncated"),  # a reasoning model cut before any answer text
    (completion(""), "empty"),
    (completion("  \n "), "empty"),
    (completion(None, refusal="I cannot help with that"), "empty"),
])
def test_a_truncated_or_empty_answer_is_recorded_and_counted_as_such(stub, data, tmp_path, body, finish):
    url, handler = stub
    handler.body = body
    res = run(url, data, tmp_path / "run")
    recs = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    assert res["complete"] and len(recs) == 4 and handler.count == 4  # an answer: not retried
    assert all(r["finish"] == finish and not r["correct"] for r in recs)
    saved = json.loads((tmp_path / "run" / "results.json").read_text())["metrics"][CONFIG]
    other = {"truncated": "empty", "empty": "truncated"}[finish]
    assert saved[finish] == 4 and saved[other] == 0 and saved["correct"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["trickle_body", "trickle_headers"])
def test_a_trickling_server_is_bounded_by_the_timeout_for_the_whole_request(stub, data, tmp_path, mode):
    url, handler = stub
    handler.mode = mode  # one byte every 0.3 s for 30 s: each read is quick, the request never ends
    t0 = time.monotonic()
    with pytest.raises(EndpointError, match="giving up after 1 retries.*timed out.*within 2 s"):
        run(url, data, tmp_path / "run", backend_kwargs={"retry_base_delay": 0.0, "max_retries": 1, "timeout": 2})
    assert handler.count == 2
    assert time.monotonic() - t0 < 20  # two attempts of 2 s; the server would have trickled for 2 x 30 s


def test_an_attempt_never_runs_past_the_retry_budget(stub, data, tmp_path):
    url, handler = stub
    handler.mode = "trickle_body"
    with pytest.raises(EndpointError, match=r"giving up after 0 retries.*timed out.*within 1\.5 s"):
        run(url, data, tmp_path / "run",
            backend_kwargs={"retry_base_delay": 0.0, "max_retries": 5, "timeout": 60, "retry_budget": 1.5})


BAD_EVAL_VALUES = [
    ["--max-items", "-12"], ["--max-items", "0"], ["--batch-size", "-1"], ["--batch-size", "0"],
    ["--timeout", "-1"], ["--timeout", "0"], ["--timeout", "nan"], ["--timeout", "inf"],
    ["--retry-budget", "0"], ["--max-retries", "-1"], ["--num-proc", "0"], ["--max-new-tokens", "0"],
    ["--temperature", "-1"], ["--temperature", "nan"], ["--top-p", "0"], ["--top-p", "1.5"], ["--dtype", "bf16"],
    ["--tensor-parallel-size", "0"], ["--max-model-len", "-5"],
    ["--api-base", ""], ["--api-base", "127.0.0.1:8000/v1"], ["--api-base", "localhost:8000/v1"],
    ["--api-base", "http://[::1"], ["--api-base", "ftp://127.0.0.1/v1"], ["--api-base", "http:///v1"],
    ["--api-base", "http://127.0.0.1:99999/v1"], ["--api-base", "http://127.0.0.1/v1?key=k"],
    ["--api-base", "http://127.0.0.1 /v1"],
]


@pytest.mark.parametrize("bad", BAD_EVAL_VALUES, ids=lambda a: " ".join(a) or "empty")
def test_cli_every_eval_value_is_checked_first_one_line_exit_2(stub, tmp_path, capsys, photo_dir, cache_dir, bad):
    url, handler = stub
    argv = ["eval", "--model", "m", "--api-base", url, "--source", str(photo_dir), "--configs", CONFIG,
            "--out", str(tmp_path / "run"), "--no-progress", "--cache-dir", cache_dir, *bad]
    assert main(argv) == 2
    line = last_error_line(capsys)
    assert bad[0] in line
    assert handler.count == 0 and not (tmp_path / "run").exists()  # nothing asked, nothing written


def test_cli_a_password_in_the_api_base_is_refused_and_never_written(stub, tmp_path, capsys, photo_dir, cache_dir):
    url, handler = stub
    secret_url = url.replace("http://", "http://user:s3cret@")
    argv = ["eval", "--model", "m", "--api-base", secret_url, "--source", str(photo_dir), "--configs", CONFIG,
            "--max-items", "1", "--out", str(tmp_path / "run"), "--no-progress", "--cache-dir", cache_dir]
    assert main(argv) == 2
    line = last_error_line(capsys)
    assert "--api-base" in line and "password" in line and "s3cret" not in line
    assert handler.count == 0 and not (tmp_path / "run").exists()


def test_cli_out_that_is_a_file_is_one_line(stub, tmp_path, capsys, photo_dir, cache_dir):
    url, handler = stub
    (tmp_path / "notes.txt").write_text("mine")
    argv = ["eval", "--model", "m", "--api-base", url, "--source", str(photo_dir), "--configs", CONFIG,
            "--out", str(tmp_path / "notes.txt"), "--no-progress", "--cache-dir", cache_dir]
    assert main(argv) == 2 and "--out" in last_error_line(capsys)
    assert (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("env", ["", "127.0.0.1:8000/v1", "http://u:pw@127.0.0.1:8000/v1"])
def test_the_endpoint_from_the_environment_is_checked_too(data, tmp_path, monkeypatch, env):
    from jigsaw_puzzles.errors import UsageError

    monkeypatch.setenv("OPENAI_BASE_URL", env)
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    if not env:  # unset in effect: the documented default, said by the run.json it writes
        backend = OpenAIBackend("m", GenerationSettings())
        assert backend.url == "https://api.openai.com/v1/chat/completions"
        return
    with pytest.raises(UsageError, match=r"\$OPENAI_BASE_URL") as err:
        evaluate_model("m", backend="openai", data=data, out=tmp_path / "run", progress=False)
    assert "pw" not in str(err.value) and not (tmp_path / "run").exists()


@pytest.mark.parametrize("kwargs", [{"max_items": 0}, {"max_items": -12}, {"batch_size": -1}, {"api_base": ""},
                                    {"backend_kwargs": {"timeout": 0}}, {"backend_kwargs": {"retry_budget": -1}}])
def test_evaluate_model_checks_its_values_before_writing_anything(stub, data, tmp_path, kwargs):
    from jigsaw_puzzles.errors import UsageError

    url, handler = stub
    kwargs = {"api_base": url, **kwargs}
    with pytest.raises(UsageError):
        evaluate_model("m", backend="openai", data=data, out=tmp_path / "run", progress=False, **kwargs)
    assert handler.count == 0 and not (tmp_path / "run").exists()


@pytest.mark.parametrize("model", ["/no/such/checkpoint", "./no-such-checkpoint", "jigsaw-test/no-such-model-xyz",
                                   "not a model id"])
def test_cli_a_model_that_cannot_be_found_is_one_line_and_leaves_no_run(tmp_path, capsys, photo_dir, cache_dir,
                                                                       model, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["eval", "--model", model, "--backend", "transformers", "--source", str(photo_dir), "--configs", CONFIG,
            "--out", str(tmp_path / "run"), "--no-progress", "--cache-dir", cache_dir]
    assert main(argv) == 2
    assert "--model" in last_error_line(capsys)
    assert not (tmp_path / "run").exists()  # no run.json-only folder to break `report runs/*`


def test_a_model_that_cannot_be_loaded_leaves_no_run_behind(data, tmp_path, capsys):
    from jigsaw_puzzles.errors import UserError  # what the CLI prints as one line, exit code 2

    folder = tmp_path / "not-a-checkpoint"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "no-such-architecture"}))
    with pytest.raises(UserError, match="model .*not-a-checkpoint") as err:
        evaluate_model(str(folder), backend="transformers", data=data, out=tmp_path / "run", progress=False)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "run").exists()  # no run.json-only folder to break `report runs/*`


@pytest.mark.parametrize("argv", [
    ["build", "--out", "{tmp}/export", "--num-proc", "0"],
    ["build", "--out", "{tmp}/export", "--num-proc", "-1"],
    ["human", "--out", "{tmp}/human", "--port", "0"],
    ["human", "--out", "{tmp}/human", "--port", "70000"],
    ["lmms-eval", "--dataset", "{tmp}/export", "--out", "{tmp}/tasks", "--max-new-tokens", "0"],
])
def test_cli_sibling_numbers_are_checked_before_any_work(tmp_path, capsys, monkeypatch, argv):
    from jigsaw_puzzles.inference import data as data_mod

    def no_work(*args, **kwargs):
        raise AssertionError("work started before the value was checked")

    monkeypatch.setattr(data_mod, "load_datasets", no_work)
    monkeypatch.setattr("jigsaw_puzzles.publishing.export.make_builder", no_work)
    monkeypatch.setattr("jigsaw_puzzles.integrations.lmms_eval_tasks.write_tasks", no_work)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    assert argv[-2] in last_error_line(capsys)
    assert not any(tmp_path.iterdir())  # nothing written


def test_an_https_endpoint_goes_through_the_bounded_request_too(data, tmp_path):
    import socket

    with socket.socket() as probe:  # a port nobody listens on: refused at once
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    backend = OpenAIBackend("m", GenerationSettings(), api_base=f"https://127.0.0.1:{port}/v1", max_retries=0,
                            timeout=5, retry_base_delay=0.0)
    row = data[CONFIG][0]
    with pytest.raises(EndpointError, match="giving up after 0 retries.*connection error"):
        list(backend.generate([Request(row["id"], CONFIG, row["question"], row["images"])]))


def test_a_dead_endpoint_is_one_line_before_anything_is_built(tmp_path, capsys, photo_dir, monkeypatch):
    """#33.5: `eval --model my-model --api-base http://localhost:8000/v1` with no server built the whole test split,
    then retried "Connection refused" 8 times (167 s). Now the endpoint is probed first: exit 2, one line naming
    the URL and what to check, no item built, no run directory."""
    import socket

    with socket.socket() as closed:  # a port nobody listens on: a connection is refused at once
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    for proxy in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):  # a direct connection, as in CI
        monkeypatch.delenv(proxy, raising=False)
    built = []
    monkeypatch.setattr("jigsaw_puzzles.inference.runner.load_datasets", lambda *a, **k: built.append(a))
    argv = ["eval", "--model", "my-model", "--api-base", url, "--source", str(photo_dir), "--out",
            str(tmp_path / "run"), "--no-progress"]
    assert main(argv) == 2
    line = last_error_line(capsys)
    assert line.startswith(f"jigsaw-puzzles: error: nothing answers at {url}: the connection to 127.0.0.1:{port} was "
                           "refused") and "--api-base" in line
    assert not built and not (tmp_path / "run").exists()
    monkeypatch.setenv("OPENAI_BASE_URL", url)  # the endpoint from the environment is probed too
    assert main(argv[:2] + argv[4:]) == 2 and url in last_error_line(capsys) and not built


def test_the_probe_lets_a_slow_endpoint_through_to_the_retries(monkeypatch):
    """Only a refused connection or an unknown host stop the run at once; a connect timeout is left to the requests'
    retries (as are 5xx answers: test_openai_gives_up_after_max_retries_and_resumes)."""
    import socket

    from jigsaw_puzzles.inference import openai_backend

    def raising(err):
        def connect(*args, **kwargs):
            raise err
        return connect

    monkeypatch.setattr(socket, "create_connection", raising(socket.timeout("timed out")))
    openai_backend.probe("http://10.1.2.3:8000/v1")  # passes
    monkeypatch.setattr(socket, "create_connection", raising(socket.gaierror(socket.EAI_AGAIN, "try again")))
    openai_backend.probe("http://busy-dns.example:8000/v1")  # passes
    monkeypatch.setattr(socket, "create_connection", raising(socket.gaierror(socket.EAI_NONAME, "not known")))
    with pytest.raises(EndpointError, match=r"cannot find the host of http://no-such-host.example:8000/v1"):
        openai_backend.probe("http://no-such-host.example:8000/v1")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:3128")  # urllib talks to a proxy: its requests will say
    monkeypatch.setattr(socket, "create_connection", raising(ConnectionRefusedError()))
    openai_backend.probe("http://10.1.2.3:8000/v1")


@pytest.mark.parametrize("dataset", ["/nonexistent/export", "./no/such/export", "not a repo", "{tmp}/notes.txt",
                                     "{tmp}/empty"])
def test_lmms_eval_refuses_a_missing_or_non_export_folder_in_one_line(tmp_path, capsys, dataset):
    """#44 3.1: `lmms-eval --dataset /nonexistent/export` exited 0 and wrote task YAMLs pointing at the missing
    folder. A Hub repo id (USER/NAME) is still taken as one."""
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "empty").mkdir()
    dataset = dataset.replace("{tmp}", str(tmp_path))
    assert main(["lmms-eval", "--dataset", dataset, "--out", str(tmp_path / "tasks")]) == 2
    assert dataset in last_error_line(capsys)
    assert not (tmp_path / "tasks").exists()
    assert main(["lmms-eval", "--dataset", "someone/jigsaw-puzzles", "--out", str(tmp_path / "tasks")]) == 0
    assert "dataset_path: \"someone/jigsaw-puzzles\"" in (tmp_path / "tasks" / "jigsaw_puzzles_order_restoration.yaml").read_text()


# ------------------------------------------------------------------------------------------------ #44 3.2 stalls
@pytest.fixture
def silent_port():
    """A server that accepts connections (the kernel's backlog) and never reads or answers one."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_a_server_that_accepts_and_never_answers_is_one_line_before_anything_is_built(silent_port, tmp_path, capsys,
                                                                                     photo_dir, monkeypatch):
    """It cost about 600 s with the defaults (120 s a try, 600 s an item), the bar at 0: now the check before the run
    waits --check-timeout for one real request's answer."""
    for proxy in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    built = []
    monkeypatch.setattr("jigsaw_puzzles.inference.runner.load_datasets", lambda *a, **k: built.append(a))
    argv = ["eval", "--model", "m", "--api-base", silent_port, "--source", str(photo_dir), "--out",
            str(tmp_path / "run"), "--no-progress", "--check-timeout", "0.5"]
    assert main(argv) == 2
    line = last_error_line(capsys)
    assert f"{silent_port} accepts connections but does not answer: no answer to GET {silent_port}/models within " \
           "0.5 s" in line and "--check-timeout" in line
    assert built == [] and not (tmp_path / "run").exists()


def test_a_stalled_request_says_how_long_it_waits_and_why_and_the_budget_ends_the_run(stub, data, tmp_path, capsys):
    url, handler = stub
    handler.delay = 2.0  # GET /models answers at once (501 here); every completion stalls
    said = []
    backend = OpenAIBackend("m", GenerationSettings(), api_base=url, max_retries=3, timeout=0.2,
                            retry_base_delay=0.0, notice=said.append)
    row = data[CONFIG][0]
    with pytest.raises(EndpointError, match="giving up after 3 retries"):
        list(backend.generate([Request(row["id"], CONFIG, row["question"], row["images"])]))
    assert len(said) == 1  # one kind of wait, said once
    assert said[0].startswith(f"[jigsaw-puzzles] {url}/chat/completions: no answer within the timeout: the server "
                              "took the request and sent nothing back; retry 1 of 3 in 0.0 s (each attempt waits "
                              "0.2 s, at most 600 s an item;")
    handler.count = 0
    backend = OpenAIBackend("m", GenerationSettings(), api_base=url, max_retries=50, timeout=0.2,
                            retry_base_delay=0.0, budget=0.5, notice=said.append)
    with pytest.raises(EndpointError, match=r"the run's budget on the endpoint \(0.5 s, --budget\) is spent"):
        list(backend.generate([Request(row["id"], CONFIG, row["question"], row["images"])]))
    assert 1 <= handler.count <= 4  # about 0.5 / 0.2 tries, not 51


def test_cli_budget_and_check_timeout_reach_the_run_and_the_wait_is_said_on_stderr(stub, tmp_path, capsys, photo_dir,
                                                                                   cache_dir):
    url, handler = stub
    handler.delay = 2.0
    rc = main(["eval", "--model", "m", "--api-base", url, "--source", str(photo_dir), "--configs", CONFIG,
               "--max-items", "1", "--out", str(tmp_path / "run"), "--no-progress", "--cache-dir", cache_dir,
               "--timeout", "0.2", "--max-retries", "50", "--budget", "2", "--check-timeout", "5"])
    err = capsys.readouterr().err
    assert rc == 2 and "the run's budget on the endpoint (2 s, --budget) is spent" in err.splitlines()[-1]
    assert f"[jigsaw-puzzles] {url}/chat/completions: no answer within the timeout" in err
    assert json.loads((tmp_path / "run" / "run.json").read_text())["backend_info"]["budget"] == 2
    for flag, value in (("--budget", "0"), ("--check-timeout", "-1")):
        assert main(["eval", "--model", "m", "--api-base", url, "--configs", CONFIG, "--out", str(tmp_path / "r2"),
                     flag, value]) == 2
        assert flag in last_error_line(capsys)
