"""Every code block of the README and docs/*.md runs as written, in order, one working directory per page
(issue #28 item 2).

A block runs verbatim unless an HTML comment right above it, ``<!-- snippet: KEY[, KEY] -->``, names entries of
:data:`SUBSTITUTIONS` (tests/fixtures/snippet_subs.py): that table is the one place that lists what this machine cannot have (model weights from
the Hub, a GPU, an API server, a Hub account, the user's own photos) and what the test does instead. Each entry
names the exact text it replaces (the test fails when the page no longer holds it) and the words the page says
next to the block, so a reader sees the substitution too. Besides the table, one rule holds everywhere: the
tests run in the installed package's environment, so a ``pip install`` of this package is checked (every extra
it names exists and its requirements are met here) instead of run again.

Languages: ``python`` blocks are executed in one namespace per page, ``bash``/``sh`` blocks line by line (a
logical line joins ``\\`` continuations) in the page's folder; ``text`` blocks are layouts, formulas and
synopses (a ``synopsis`` entry checks their options against the CLI), ``json`` blocks must parse, ``bibtex``
is the citation. A fence without a language fails the test.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from fixtures.photos import write_photos
from fixtures.snippet_subs import SUBSTITUTIONS, Sub  # noqa: F401  (Sub: the entries' type)
from fixtures.stubs import local_server, reply_json

ROOT = Path(__file__).resolve().parents[1]
#: this tree's src first only where the package is not installed from it: a src/*.egg-info found before the
#: install's own metadata hides its direct_url.json (Inspect then registers its tasks without the package name)
_INSTALLED_HERE = Path(__import__("jigsaw_puzzles").__file__).resolve().parents[1] == ROOT / "src"
SRC_FIRST = [] if _INSTALLED_HERE else [str(ROOT / "src")]
PAGES = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
LANGS = {"python", "bash", "sh", "text", "json", "bibtex"}
@dataclass
class Block:
    page: str
    line: int
    lang: str
    text: str
    keys: tuple = ()
    before: str = ""              # the block's section above the fence

    @property
    def subs(self) -> list[Sub]:
        return [SUBSTITUTIONS[k] for k in self.keys]

    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: str) -> list[Block]:
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    fenced, inside = [], False
    for ln in lines:
        inside ^= ln.startswith("```")
        fenced.append(inside or ln.startswith("```"))
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while not lines[j].startswith("```"):
            j += 1
        head = max([k for k in range(start) if lines[k].startswith("#") and not fenced[k]] or [0])
        above = lines[head:start]            # the block's section, from its heading down to the fence
        keys: tuple = ()
        for ln in reversed(above):
            if ln.strip():
                hit = re.fullmatch(r"<!-- snippet: ([\w\-, ]+) -->", ln.strip())
                keys = tuple(k.strip() for k in hit.group(1).split(",")) if hit else ()
                break
        out.append(Block(page, start + 1, lang, "\n".join(lines[start + 1:j]) + "\n", keys, "\n".join(above)))
        i = j + 1
    return out


ALL = [b for page in PAGES for b in blocks(page)]


def substituted(block: Block, ctx) -> str:
    text = block.text
    for sub in block.subs:
        for old, new in sub.replace:
            text = text.replace(old, new.format_map(ctx) if ctx is not None else new)
    return text


# ---- the fast checks: every block is declared, every substitution is used, visible and still applies ----

def test_every_fence_has_a_language_and_every_comment_names_a_substitution():
    for b in ALL:
        assert b.lang in LANGS, f"{b.where()}: a fence needs one of {sorted(LANGS)}, not {b.lang!r}"
        for k in b.keys:
            assert k in SUBSTITUTIONS, f"{b.where()}: unknown snippet substitution {k!r}"
    used = {k for b in ALL for k in b.keys}
    assert used == set(SUBSTITUTIONS), f"substitutions no page uses: {sorted(set(SUBSTITUTIONS) - used)}"


def test_each_substitution_is_said_on_the_page_and_its_text_is_there():
    for b in ALL:
        for k, sub in zip(b.keys, b.subs):
            assert sub.says.lower() in (b.before + b.text).lower(), \
                f"{b.where()}: the page must say {sub.says!r} next to a block substituted by {k!r}"
            hits = [old for old, _ in sub.replace if old in b.text]
            assert not sub.replace or hits, f"{b.where()}: {k!r} replaces nothing here; update SUBSTITUTIONS"


def test_code_blocks_compile_and_json_parses():
    for b in ALL:
        text = substituted(b, None)
        if b.lang == "python":
            ast.parse(text, b.where())
        elif b.lang in ("bash", "sh"):
            proc = subprocess.run(["bash", "-n"], input=text, text=True, capture_output=True)
            assert proc.returncode == 0, f"{b.where()}: {proc.stderr}"
        elif b.lang == "json":
            json.loads(text)


def test_readme_stays_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) < 250


# ---- running the pages ----

class Answers(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        reply_json(self, {"id": "stub", "object": "chat.completion", "created": 0, "model": body.get("model"),
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": "A"}}],
                          "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(port: int, timeout: float = 180) -> None:
    """Wait until 127.0.0.1:port serves its page (200)."""
    end = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                assert r.status == 200
                return
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(1)


class Context(dict):
    """The stand-ins the templates name, each made on first use."""

    def __init__(self, tmp: Path, api: str):
        super().__init__(api=api)
        self.tmp = tmp

    def __missing__(self, key):
        self[key] = str(getattr(self, "make_" + key)())
        return self[key]

    def make_repo(self):
        return ROOT

    def make_ci_line(self):
        from test_readme_commands import readme_commands
        path = self.tmp / "ci_line.txt"
        path.write_text(readme_commands()[1] + "\n")
        return path

    def make_port(self):
        return free_port()

    def make_photos(self):
        write_photos(self.tmp / "my_photos", 16, start=700)
        return self.tmp / "my_photos"

    def make_tiny(self):
        from _tiny_vlm import build_tiny_vlm
        return build_tiny_vlm(self.tmp / "tiny")

    def make_tool_tiny(self):
        from test_interactive_grpo import tool_ready_tiny_vlm
        return tool_ready_tiny_vlm(self.tmp / "tool_tiny")[0]

    def make_clip_file(self):
        import open_clip
        import safetensors.torch
        model = open_clip.create_model("ViT-S-32", pretrained=None)
        path = self.tmp / "vit_s_32_random.safetensors"
        safetensors.torch.save_file(model.state_dict(), str(path))
        return path


def installed_check(line: str) -> str:
    """A ``pip install`` of this package: check its extras exist and are met here; the command becomes ``true``."""
    from importlib.metadata import PackageNotFoundError, requires, version

    from packaging.requirements import Requirement

    def check(match) -> str:
        target = match.group(2).strip("'\"")
        extras = re.findall(r"\[([^\]]*)\]", target)
        names = [e.strip() for e in extras[0].split(",")] if extras else []
        reqs = [Requirement(r) for r in requires("jigsaw-puzzles") or []]
        known = {m for r in reqs if r.marker for m in re.findall(r'extra == "([^"]+)"', str(r.marker))}
        for extra in names:
            assert extra in known, f"`{line}` names an extra {extra!r} that setup.cfg does not define"
            for r in reqs:
                if r.marker and r.marker.evaluate({"extra": extra}):
                    try:
                        assert version(r.name) in r.specifier or not r.specifier, f"{r} not met"
                    except PackageNotFoundError:
                        pytest.fail(f"`{line}`: {r.name} (extra {extra!r}) is not installed here")
        return "true"

    return re.sub(r"pip install (-e )?(\"[^\"]*jigsaw[^\"]*\"|'[^']*jigsaw[^']*'|\"\.\[[^\"]*\]\"|\.(?=\s|$))",
                  check, line)


def logical_lines(text: str) -> list[str]:
    out, cur = [], ""
    for raw in text.splitlines():
        if raw.rstrip().endswith("\\"):
            cur += raw.rstrip()[:-1] + " "
            continue
        cur += raw
        if cur.strip() and not cur.strip().startswith("#"):
            out.append(cur.strip())
        cur = ""
    return out


def parse_cli(line: str, where: str) -> None:
    from jigsaw_puzzles.cli import build_parser

    words = shlex.split(line, comments=True)
    while words and re.fullmatch(r"\w+=.*", words[0]):
        words = words[1:]
    if words[:1] == ["jigsaw-puzzles"]:
        argv = words[1:]
    elif "jigsaw_puzzles.cli" in words:
        argv = words[words.index("jigsaw_puzzles.cli") + 1:]
    else:
        return  # vllm serve: declared in the substitution, not run
    try:
        build_parser().parse_args(argv)
    except SystemExit as e:
        pytest.fail(f"{where}: the CLI refuses `{line}` (exit {e.code})")


def check_synopsis(block: Block) -> None:
    from jigsaw_puzzles.cli import build_parser

    for line in block.text.splitlines():
        m = re.match(r"\s*jigsaw-puzzles (\w[\w-]*)", line)
        if m:
            sub = build_parser()._subparsers._group_actions[0].choices[m.group(1)]
            known = {o for a in sub._actions for o in a.option_strings}
        for opt in re.findall(r"(--[a-z][\w-]*)", line):
            assert opt in known, f"{block.where()}: the synopsis names {opt}, not an option of this command"


def run_bash(block: Block, text: str, cwd: Path, env: dict, ctx: Context) -> None:
    serve = next((s.serve for s in block.subs if s.serve), "")
    for line in logical_lines(text):
        line = installed_check(line)
        if serve and serve in line:
            port = free_port()
            cmd = re.sub(r"\s+#.*$", "", line) + f" --port {port}"
            proc = subprocess.Popen(["bash", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True, start_new_session=True)
            try:
                fetch(port)
            finally:
                os.killpg(proc.pid, 15)
                proc.wait(30)
            continue
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", line], cwd=cwd, env=env, text=True,
                              capture_output=True, timeout=900)
        assert proc.returncode == 0, f"{block.where()}: `{line}` exit {proc.returncode}\n" \
                                     f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"


def tiny_trainer(scope: dict, ctx: Context) -> None:
    from transformers import AutoModelForImageTextToText, AutoProcessor, Seq2SeqTrainingArguments

    import jigsaw_puzzles as jp
    scope["model"] = AutoModelForImageTextToText.from_pretrained(ctx["tiny"])
    scope["tokenizer"] = AutoProcessor.from_pretrained(ctx["tiny"])
    scope["args"] = Seq2SeqTrainingArguments(output_dir="trainer", use_cpu=True, report_to="none")
    scope["eval_dataset"] = jp.load_dataset("order_restoration", split="lite")


def run_page(page: str, tmp_path: Path, monkeypatch) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    hf = tmp_path.parent / "hf_home"          # one cache for the session's pages, as on a user's machine
    monkeypatch.setenv("HF_HOME", str(hf))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(hf / "datasets"))
    import datasets
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(hf / "datasets"))
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "HOME": str(cwd), "PATH": bindir + os.pathsep + os.environ["PATH"],
           "PYTHONPATH": os.pathsep.join([*SRC_FIRST, str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}
    scope: dict = {"__fetch__": fetch, "__name__": "__snippet__"}
    with local_server(Answers) as api:
        ctx = Context(tmp=tmp_path, api=api)
        for block in blocks(page):
            if block.lang not in ("python", "bash", "sh"):
                if any(s.mode == "synopsis" for s in block.subs):
                    check_synopsis(block)
                continue
            text = substituted(block, ctx)
            modes = {s.mode for s in block.subs} or {"run"}
            if "syntax" in modes:
                continue  # compiled / bash -n by test_code_blocks_compile_and_json_parses
            if "parse" in modes:
                for line in logical_lines(text):
                    parse_cli(line, block.where())
                continue
            for sub in block.subs:
                for line in sub.setup:
                    if line == "python:tiny-trainer":
                        tiny_trainer(scope, ctx)
                    else:
                        run_bash(block, line, cwd, env, ctx)
            if block.lang == "python":
                exec(compile(text, block.where(), "exec"), scope)  # our own docs' code, not model output
            else:
                run_bash(block, text, cwd, env, ctx)


FAST = {"docs/fetch_sample_images.md", "docs/index.md", "docs/faults.md",
        "docs/performance.md"}


@pytest.mark.parametrize("page", [pytest.param(p, marks=() if p in FAST else pytest.mark.slow) for p in PAGES])
def test_page_runs_as_written(page, tmp_path, monkeypatch):
    run_page(page, tmp_path, monkeypatch)
