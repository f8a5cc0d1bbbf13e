"""The human-baseline app end to end in a real browser (Debian's Chromium, driven headless by Playwright).

Starts ``jigsaw-puzzles human`` as a user would, answers five items through the page with clicks and keys, checks
the run directory, stops the app (SIGTERM), restarts it, checks that it resumes, finishes, and reads the report.
Screenshots of every task's page go to ``tmp_path/screens`` (and to ``$JP_SCREENSHOTS`` when set).
Skipped, saying why, where Chromium, Playwright or Gradio is missing; ``.ci/run`` installs all three.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import jigsaw_puzzles as jp
from jigsaw_puzzles.cli import main

CHROMIUM = next((p for p in (os.environ.get("JP_CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser"),
                             "/usr/bin/chromium") if p and Path(p).exists()), None)
playwright = pytest.importorskip("playwright.sync_api", reason="needs playwright (pip install playwright; the "
                                 "browser is the system Chromium)")
pytest.importorskip("gradio", reason="needs gradio (pip install -e '.[app]')")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install it (Debian/Ubuntu: sudo apt-get install chromium) or set JP_CHROMIUM")]

CONFIGS = ["missing_piece_selection_easy", "piece_localization_easy", "piece_localization_hard",
           "connection_verification", "anomaly_detection", "order_restoration", "order_generation"]


POSITIONS = {"A": "A. Top-left", "B": "B. Top-right", "C": "C. Bottom-left", "D": "D. Bottom-right"}
TYPES = {"A": "A. Rotation", "B": "B. Mirroring"}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class App:
    """``jigsaw-puzzles human ...`` in a subprocess, bounded and always stopped."""

    def __init__(self, args, log: Path):
        self.port = _port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(log, "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "jigsaw_puzzles.cli", "human", *args, "--port",
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
def references():
    rows = {}
    for c in CONFIGS:
        ds = jp.load_dataset(c, split="lite").select(range(1))
        rows.update({r["id"]: r for r in ds})
    return rows


def _screens(tmp_path: Path) -> list[Path]:
    dirs = [tmp_path / "screens"] + ([Path(os.environ["JP_SCREENSHOTS"])] if os.environ.get("JP_SCREENSHOTS") else [])
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    return dirs


def _shoot(page, dirs, name):
    for d in dirs:
        page.screenshot(path=str(d / f"{name}.png"), full_page=True)


def _answer(page, row, right: bool) -> None:
    """Answer the item on the page as a person would: keys for letters and orders, clicks for the anomaly fields."""
    config = row["id"].split("/")[0]
    answer = row["answer"]
    page.wait_for_timeout(300)  # a person looks first: the response time must cover it
    if config == "anomaly_detection":
        fields = {k: v.strip() for k, v in (line.split(":", 1) for line in answer.splitlines())}
        altered = fields["Judgment"] == "B"
        if altered != right:  # say "correct": right for an unchanged image, wrong for an altered one
            page.get_by_label("A. Correct").check()
        else:
            position, kind = (fields["Error Position"], fields["Error Type"]) if altered else ("A", "A")
            page.get_by_label("B. Incorrect").check()
            page.get_by_label(POSITIONS[position], exact=True).check()
            page.get_by_label(TYPES[kind], exact=True).check()
        page.keyboard.press("Enter")
    elif config == "order_generation":
        order = json.loads(answer)
        keys = order if right else order[1:] + order[:1]
        page.keyboard.press("1")
        page.keyboard.press("Backspace")  # the editor's undo
        for k in keys:
            page.keyboard.press(str(k))
        page.wait_for_function("() => !document.querySelector('#jp-order textarea, #jp-order input').value.includes('_')")
        page.keyboard.press("Enter")
    elif right:
        page.keyboard.press(answer.lower())
    else:
        page.locator(".jp-letter:visible").filter(has_not_text=answer).first.click()


def _sign_in(browser, app, participant: str, start: bool = True):
    """A new page on the app with the participant id typed in, then Start clicked (or Enter pressed)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(app.url)
    page.locator("#jp-participant textarea, #jp-participant input").first.fill(participant)
    if start:
        page.locator("#jp-start").click()
    else:
        page.keyboard.press("Enter")
    return page


def _item_on_page(page) -> str:
    page.wait_for_selector(".jp-item", state="attached")
    return page.locator(".jp-item").get_attribute("data-item")


def _next(page, before: str) -> None:
    page.wait_for_function("(prev) => { const b = document.querySelector('.jp-item'); const done ="
                           " document.querySelector('#jp-done'); return (b && b.dataset.item !== prev) ||"
                           " (done && done.offsetParent !== null && done.innerText.includes('Thank')); }",
                           arg=before, timeout=30_000)


def test_take_the_test_resume_and_report(tmp_path, browser, references):
    out = tmp_path / "human"
    args = ["--split", "lite", "--configs", *CONFIGS, "--max-items", "1", "--out", str(out)]
    dirs = _screens(tmp_path)
    right = {}
    app = App(args, tmp_path / "app.log")
    # One item per task, but the first Order Restoration and Order Generation items are one photo cut with one
    # shuffle: they give each other away, so a participant sees one of the two (the other is withheld): 6 items.
    try:
        page = _sign_in(browser, app, "p01")
        for k in range(5):
            item = _item_on_page(page)
            assert f"Item {k + 1} of 6" in page.locator("#jp-progress").inner_text()
            assert "Answer:" not in page.content()  # the test never shows an answer
            _shoot(page, dirs, item.split("/")[0])
            right[item] = k % 2 == 0  # right, wrong, right, ...
            _answer(page, references[item], right[item])
            _next(page, item)
    finally:
        assert app.stop() in (0, 130)  # SIGTERM ends it like Ctrl-C

    pdir = out / "participants" / "p01"
    recs = [json.loads(x) for x in (pdir / "predictions.jsonl").read_text().splitlines()]
    run = json.loads((pdir / "run.json").read_text())
    assert [r["id"] for r in recs] == run["order"][:5] == list(right)
    assert [r["correct"] for r in recs] == [right[r["id"]] for r in recs]
    assert all(r["participant"] == "p01" and 0.3 <= r["response_time_s"] < 60 for r in recs)
    assert run["status"] == "incomplete"

    app = App(args, tmp_path / "app.log")  # restart: the same id resumes at item 6
    try:
        page = _sign_in(browser, app, "p01", start=False)
        for k in (5,):
            item = _item_on_page(page)
            assert f"Item {k + 1} of 6" in page.locator("#jp-progress").inner_text()
            assert item == run["order"][k]
            _shoot(page, dirs, item.split("/")[0])
            right[item] = True
            _answer(page, references[item], True)
            _next(page, item)
        page.locator("#jp-done").wait_for()
        _shoot(page, dirs, "finished")
    finally:
        app.stop()

    res = json.loads((pdir / "results.json").read_text())
    assert res["complete"] and res["n_items"] == 6
    assert len(run["withheld"]) == 1 and run["withheld"][0].split("/")[0] in ("order_restoration", "order_generation")
    assert len({p.name for d in dirs[:1] for p in d.glob("*.png")}) == 7  # six tasks + the end page
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 0
    md = (tmp_path / "report" / "report.md").read_text()
    assert "| Human (p01) |" in md and "| Human |" in md and "Human agreement" in md
    for item, ok in right.items():
        config = item.split("/")[0]
        assert res["metrics"][config]["accuracy"] == (100.0 if ok else 0.0)


def test_browse_shows_items_with_their_answers(tmp_path, browser, references):
    dirs = _screens(tmp_path)
    app = App(["--browse", "--split", "lite", "--configs", "order_restoration", "anomaly_detection",
               "--max-items", "1"], tmp_path / "browse.log")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(app.url)
        page.wait_for_selector(".jp-item", state="attached")
        first = _item_on_page(page)
        assert first.startswith("anomaly_detection/")  # table order: AD before OR
        assert references[first]["answer"].replace("\n", " / ") in page.locator("#jp-answer").inner_text()
        page.locator("#jp-next").click()
        _next(page, first)
        second = _item_on_page(page)
        assert second.startswith("order_restoration/")
        shown = page.locator("#jp-answer").inner_text()
        assert f"Answer: {references[second]['answer']}" in " ".join(shown.split())
        assert '"option_orders"' in page.locator("#jp-metadata").inner_text()
        page.locator("img.jp-img").first.click()  # a click zooms an image to the window, Esc closes it
        page.locator("#jp-zoom img").wait_for()
        page.keyboard.press("Escape")
        page.locator("#jp-zoom").wait_for(state="detached")
        _shoot(page, dirs, "browse")
    finally:
        app.stop()


def test_rotated_order_editor(tmp_path, browser):
    """The ``_rot`` configs: the order editor plus a turn for each placed image (keys Q/W/E/R), Backspace taking
    back the last turn first."""
    config = "order_generation_2x2_rot"
    refs = {r["id"]: r for r in jp.load_dataset(config, split="lite").select(range(2))}
    out, dirs = tmp_path / "rot", _screens(tmp_path)
    app = App(["--split", "lite", "--configs", config, "--max-items", "2", "--out", str(out)], tmp_path / "rot.log")
    try:
        page = _sign_in(browser, app, "p02")
        for k in range(2):
            item = _item_on_page(page)
            assert "Q/W/E/R" in page.locator("#jp-progress").inner_text()
            order, turns = jp.spec.parse_oriented(refs[item]["answer"])
            page.wait_for_timeout(300)
            for i in order:
                page.keyboard.press(str(i))
            if k == 1:  # a wrong turn, seen on the page (as a person sees it), then taken back
                page.keyboard.press("QWER"[(turns[0] // 90 + 1) % 4])
                page.wait_for_function("() => !document.querySelector('#jp-turns textarea, #jp-turns input')"
                                       ".value.startsWith('[_')")
                page.keyboard.press("Backspace")
            for r in turns:
                page.keyboard.press("QWER"[r // 90])
            page.wait_for_function("() => !document.querySelector('#jp-turns textarea, #jp-turns input')"
                                   ".value.includes('_')")
            if k == 0:
                _shoot(page, dirs, config)
            page.keyboard.press("Enter")
            _next(page, item)
        page.locator("#jp-done").wait_for()
    finally:
        app.stop()
    recs = [json.loads(x) for x in (out / "participants" / "p02" / "predictions.jsonl").read_text().splitlines()]
    assert len(recs) == 2 and all(r["correct"] for r in recs)
    assert all(r["output"] == refs[r["id"]]["answer"] for r in recs)


def test_tab_pieces_show_on_a_checkerboard(tmp_path, browser):
    """#34.4: a participant given tab configs sees the shaped pieces as the model gets them, RGBA on the checkerboard
    (in the page's dark theme too): every fully transparent pixel on the screen is a checker tone, every opaque one
    the piece's own colour; the zoom is the image's own shape (the board never spills beside it); the header says
    what the checkerboard is; the answers count as for straight items."""
    import io

    import numpy as np
    from PIL import Image

    from jigsaw_puzzles.generation.sheet import CHECKER
    from jigsaw_puzzles.human.app import TRANSPARENT_NOTE

    configs = ["order_generation_tabs", "missing_piece_selection_easy_tabs_silhouette"]
    refs = {r["id"]: r for c in configs for r in jp.load_dataset(c, split="lite").select(range(1))}
    out, dirs = tmp_path / "tabs", _screens(tmp_path)
    app = App(["--split", "lite", "--configs", *configs, "--max-items", "1", "--out", str(out)], tmp_path / "tabs.log")
    try:
        page = browser.new_page(viewport={"width": 1600, "height": 1000}, color_scheme="dark")
        page.goto(app.url)
        page.locator("#jp-participant textarea, #jp-participant input").first.fill("p03")
        page.locator("#jp-start").click()
        for k in range(2):
            item = _item_on_page(page)
            row = refs[item]
            assert TRANSPARENT_NOTE in page.locator("#jp-progress").inner_text()
            img = page.locator("img.jp-img").first
            page.wait_for_function(  # painted, styled, and no longer dimmed by Gradio's pending state
                "(id) => { const i = document.querySelector('img.jp-img');"
                " if (!i || !i.complete || window.jpShown !== id) return false;"
                " if (!getComputedStyle(i).backgroundImage.includes('conic')) return false;"
                " for (let e = i; e; e = e.parentElement) if (getComputedStyle(e).opacity !== '1') return false;"
                " return true; }", arg=item)
            natural, shown = img.evaluate("i => [[i.naturalWidth, i.naturalHeight], [i.clientWidth, i.clientHeight]]")
            assert natural == shown == list(row["images"][0].size)  # at its own size: pixels to compare
            shot = np.asarray(Image.open(io.BytesIO(img.screenshot())).convert("RGB")).astype(int)
            piece = np.asarray(row["images"][0].convert("RGBA")).astype(int)
            w, h = natural
            clear, opaque = piece[..., 3] == 0, piece[..., 3] == 255
            # the image inside its 1 px border (the shot may take a row or column more, the box lying between pixels)
            crops = [shot[y:y + h, x:x + w] for y in range(3) for x in range(3)]
            screen = max((c for c in crops if c.shape == piece.shape[:2] + (3,)),
                         key=lambda c: (np.abs(c[opaque] - piece[opaque][:, :3]) <= 2).mean())
            assert (np.abs(screen[opaque] - piece[opaque][:, :3]) <= 2).all(axis=1).mean() > 0.99
            tones = [(screen[clear] == t).all(axis=1).mean() for t in CHECKER[:2]]
            assert min(tones) > 0.2 and sum(tones) > 0.97, tones  # both tones, nothing else (edges of squares aside)
            img.click()  # the zoom: the image's own shape, scaled to the window
            box = page.locator("#jp-zoom img").bounding_box()
            assert abs(box["width"] / box["height"] - natural[0] / natural[1]) < 0.01
            _shoot(page, dirs, f"zoom_{item.split('/')[0]}")
            page.keyboard.press("Escape")
            page.locator("#jp-zoom").wait_for(state="detached")
            _shoot(page, dirs, item.split("/")[0])
            page.wait_for_timeout(300)
            if item.startswith("order_generation"):
                for i in json.loads(row["answer"]):
                    page.keyboard.press(str(i))
                page.wait_for_function("() => !document.querySelector('#jp-order textarea, #jp-order input')"
                                       ".value.includes('_')")
                page.keyboard.press("Enter")
            else:
                page.keyboard.press(row["answer"].lower())
            _next(page, item)
        page.locator("#jp-done").wait_for()
    finally:
        app.stop()
    recs = [json.loads(x) for x in (out / "participants" / "p03" / "predictions.jsonl").read_text().splitlines()]
    assert sorted(r["id"].split("/")[0] for r in recs) == sorted(configs) and all(r["correct"] for r in recs)
