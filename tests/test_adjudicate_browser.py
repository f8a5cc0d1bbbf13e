"""``jigsaw-puzzles adjudicate RUN_DIR`` end to end in a real browser (the system Chromium, headless, driven by
Playwright), as tests/test_human_browser.py drives the human test.

A run whose every output the reader leaves unread is made against a stub endpoint on 127.0.0.1 (the embedded photos'
Lite items, one per task kind: a letter, the anomaly block, an order); the app is started as a user starts it; a
person decides two outputs (a letter by its key, the anomaly fields), is refused an order not in the exact format,
stops; the app restarts, the same name resumes at the third output (an order typed), a second person's first output
is "no answer given". Then the decisions on disk (name, time, the output's sha256), results.json and the report.
Skipped, saying why, where Chromium, Playwright or Gradio is missing.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from test_human_browser import CHROMIUM, _port, _screens, _shoot  # noqa: F401  (the same skips and screenshots)

playwright = pytest.importorskip("playwright.sync_api", reason="needs playwright")
pytest.importorskip("gradio", reason="needs gradio (pip install -e '.[app]')")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install it (Debian/Ubuntu: sudo apt-get "
                                 "install chromium) or set JP_CHROMIUM")]

CONFIGS = ["piece_localization_hard", "anomaly_detection", "order_generation"]
HEDGE = "I keep going back and forth; it is one of the first two, or maybe not."


class Adjudicate:
    """``jigsaw-puzzles adjudicate RUN_DIR`` in a subprocess, bounded and always stopped."""

    def __init__(self, run: Path, log: Path):
        self.port = _port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(log, "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "jigsaw_puzzles.cli", "adjudicate", str(run), "--port",
                                      str(self.port)], stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"})
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the app exited with {self.proc.returncode}: {log.read_text()[-2000:]}")
            try:
                urllib.request.urlopen(self.url, timeout=2)
                return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise AssertionError(f"the app did not answer within 300 s: {log.read_text()[-2000:]}")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.log.close()
        return self.proc.returncode


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from fixtures.stubs import chat_handler, local_server
    from jigsaw_puzzles.inference import evaluate_model

    out = tmp_path_factory.mktemp("adjudicate") / "run"
    with local_server(chat_handler(lambda body: HEDGE)) as url:
        res = evaluate_model("stub-vlm", api_base=url, split="lite", configs=CONFIGS, max_items=1, out=out,
                             progress=False)
    assert res["complete"] and res["n_items"] == 3
    assert all(json.loads(x)["status"] != "parsed" for x in (out / "predictions.jsonl").read_text().splitlines())
    return out


def _sign_in(browser, app, name: str):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(app.url)
    page.locator("#jp-name textarea, #jp-name input").first.fill(name)
    page.locator("#jp-start").click()
    return page


def _item(page) -> str:
    page.wait_for_selector(".jp-item", state="attached")
    return page.locator(".jp-item").get_attribute("data-item")


def _next(page, before: str) -> None:
    page.wait_for_function("(prev) => { const b = document.querySelector('.jp-item'); const done ="
                           " document.querySelector('#jp-done'); return (b && b.dataset.item !== prev) ||"
                           " (done && done.offsetParent !== null && done.innerText.includes('Thank')); }",
                           arg=before, timeout=30_000)


def _shows_the_item(page, item: str) -> None:
    """The output verbatim, the question and the images as the model received them."""
    import jigsaw_puzzles as jp

    config = item.split("/")[0]
    row = next(r for r in jp.load_dataset(config, split="lite").select(range(1)) if r["id"] == item)
    assert page.locator("#jp-output-text").inner_text().strip() == HEDGE
    assert page.locator("img.jp-img").count() == len(row["images"])
    assert row["question"][:60] in page.locator("#jp-question").inner_text()
    assert "Answer:" not in page.locator("#jp-progress").inner_text()  # no reading is offered


def test_a_person_decides_each_unread_output_resumes_and_the_report_counts_it(tmp_path, browser, run):
    dirs = _screens(tmp_path)
    outputs = {json.loads(x)["id"]: json.loads(x)["output"] for x in (run / "predictions.jsonl").read_text().splitlines()}
    app = Adjudicate(run, tmp_path / "app.log")
    decided = {}
    try:
        page = _sign_in(browser, app, "Ada Lovelace")
        for k in range(2):
            item = _item(page)
            assert f"Output {k + 1} of 3" in page.locator("#jp-progress").inner_text()
            _shows_the_item(page, item)
            _shoot(page, dirs, f"adjudicate_{item.split('/')[0]}")
            config = item.split("/")[0]
            if config == "piece_localization_hard":
                page.keyboard.press("c")
                decided[item] = "C"
            elif config == "anomaly_detection":
                page.get_by_label("B. Incorrect").check()
                page.get_by_label("D. Bottom-right", exact=True).check()
                page.get_by_label("A. Rotation", exact=True).check()
                page.keyboard.press("Enter")
                decided[item] = "Judgment: B\nError Position: D\nError Type: A"
            else:
                typed = page.locator("#jp-typed textarea, #jp-typed input").first
                typed.fill("2, 1, 3")  # not an order of the four images: refused, nothing recorded
                page.locator("#jp-typed-submit").click()
                page.wait_for_function("() => document.querySelector('#jp-message').innerText.includes('exact')")
                typed.fill("[2, 1, 3, 4]")
                page.locator("#jp-typed-submit").click()
                decided[item] = "[2, 1, 3, 4]"
            _next(page, item)
    finally:
        assert app.stop() in (0, 130, -15)
    lines = [json.loads(x) for x in (run / "resolutions.jsonl").read_text().splitlines()]
    assert [r["id"] for r in lines] == list(decided)

    app = Adjudicate(run, tmp_path / "app.log")  # the same name resumes at the third output; another starts over
    try:
        page = _sign_in(browser, app, "Ada Lovelace")
        item = _item(page)
        assert "Output 3 of 3" in page.locator("#jp-progress").inner_text() and item not in decided
        _shows_the_item(page, item)
        if item.startswith("order_generation"):
            page.locator("#jp-typed textarea, #jp-typed input").first.fill("[2, 1, 3, 4]")
            page.locator("#jp-typed-submit").click()
            decided[item] = "[2, 1, 3, 4]"
        else:
            page.locator("#jp-none").click()
            decided[item] = None
        page.locator("#jp-done").wait_for()
        other = _sign_in(browser, app, "Bo")
        first = _item(other)
        assert "Output 1 of 3" in other.locator("#jp-progress").inner_text()
        other.locator("#jp-none").click()  # Bo: no answer given
        _next(other, first)
    finally:
        app.stop()
    lines = [json.loads(x) for x in (run / "resolutions.jsonl").read_text().splitlines()]
    ada = [r for r in lines if r["name"] == "Ada Lovelace"]
    assert {r["id"]: r["answer"] for r in ada} == decided
    for r in lines:
        assert r["way"] == "person" and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", r["time"])
        assert r["output_sha256"] == hashlib.sha256(outputs[r["id"]].encode()).hexdigest()
        assert r["status"] == ("no_answer" if r["answer"] is None else "read")
    bo = [r for r in lines if r["name"] == "Bo"]
    assert len(bo) == 1 and bo[0]["answer"] is None and bo[0]["id"] == first
    res = json.loads((run / "results.json").read_text())
    person = res["resolved"]["person"]["overall"]
    disputed = int(decided[first] is not None)  # Ada read an answer Bo says is not there
    assert person["unread"] == 3 and person["read"] == sum(a is not None for a in decided.values()) - disputed
    from jigsaw_puzzles.cli import main

    assert main(["report", str(run), "--out", str(tmp_path / "report"), "--no-plots"]) == 0
    md = (tmp_path / "report" / "report.md").read_text()
    assert "· decided by a person:" in md and "### Unread answers resolved" in md
