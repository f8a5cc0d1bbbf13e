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
from jigsaw_puzzles.inference import RunLocked, RunMismatchError, evaluate_model
from jigsaw_puzzles.inference.openai_backend import EndpointError

CONFIG = "piece_localization_easy"
MAX_REQUESTS = 200


class Stub(BaseHTTPRequestHandler):
    """Answers per ``mode``: a status code, a malformed 200 body, a sleep, or a proper completion."""

    mode = "ok"
    count = 0
    delay = 0.0

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
        mode = cls.mode
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
    Stub.mode, Stub.count, Stub.delay = "ok", 0, 0.0
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
    with pytest.raises(EndpointError, match=f"HTTP {status} from {url}"):
        run(url, data, tmp_path / "run")
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
    with pytest.raises(EndpointError, match="raise --max-retries or --timeout"):
        run(url, data, tmp_path / "run", backend_kwargs={"retry_base_delay": 0.0, "max_retries": 1, "timeout": 0.2})
    assert handler.count == 2


def test_cli_endpoint_error_is_one_line_exit_2(stub, tmp_path, capsys, photo_dir):
    url, handler = stub
    handler.mode = 401
    rc = main(["eval", "--model", "m", "--api-base", url, "--source", str(photo_dir), "--configs", CONFIG,
               "--max-items", "2", "--out", str(tmp_path / "run"), "--no-progress", "--max-retries", "1"])
    err = capsys.readouterr().err
    errors = [ln for ln in err.splitlines() if ln.startswith("jigsaw-puzzles: error")]
    assert rc == 2 and "Traceback" not in err and len(errors) == 1  # (above it: the dataset's progress bars)
    assert "HTTP 401" in errors[0] and "API key" in errors[0] and err.strip().splitlines()[-1] == errors[0]


def test_resume_refuses_another_api_base(stub, data, tmp_path):
    url, _ = stub
    run(url, data, tmp_path / "run")
    with pytest.raises(RunMismatchError, match="api_base"):
        run(url.replace("/v1", "/other/v1"), data, tmp_path / "run")


def test_a_second_run_into_the_same_directory_is_refused(data, tmp_path):
    from jigsaw_puzzles.inference import RunDir

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
