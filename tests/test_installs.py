"""Every install line names something that exists (#33.6), and the documented environments hold no two packages that
conflict (#33.7).

* Every ``pip install`` line of the README, docs, examples, benchmarks and the package (cards, metric card, error
  messages) installs a local path (a clone: ``-e .``, ``".[extra]"``, ``/path/to/jigsaw-puzzles``, a wheel file) or
  a distribution setup.cfg names (as it pins it): never ``jigsaw-puzzles`` from an index, which holds none.
* The lines that install from a path run verbatim in a fresh venv (slow): the dataset card's, and the Space recipe's
  wheel (docs/human.md).
* Each documented extra (``harness``, ``inspect``, ``verifiers``) and the README's test command resolve, offline,
  from the installed packages' declared requirements plus Inspect's run-time ``openai`` minimum (read from its
  source); ``inspect`` beside ``verifiers`` does not, as docs/integrations.md says, and a side venv with openai 3.x
  runs ``inspect eval ... --model openai/gpt-4o`` (slow).
"""
from __future__ import annotations

import configparser
import importlib.metadata as md
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
#: an install line: what follows "pip install" up to the end of its line ("" where the line ends there: a command
#: cut by a line break, which the test names)
INSTALL = re.compile(r"pip install(?: ([^`\n]*)|[ \t]*$)", re.M)
#: options of ``pip install`` that take a value (the value is not a target)
VALUED = {"-i", "--index-url", "--extra-index-url", "-r", "--requirement", "-c", "--constraint", "-f",
          "--find-links", "-t", "--target"}


def setup_cfg() -> dict[str, list[Requirement]]:
    """``{"": install_requires, extra: its requirements}`` as setup.cfg declares them."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg", encoding="utf-8")

    def reqs(text: str) -> list[Requirement]:
        return [Requirement(line.split("#")[0].strip()) for line in text.splitlines() if line.split("#")[0].strip()]

    out = {"": reqs(cfg["options"]["install_requires"])}
    out.update({extra: reqs(text) for extra, text in cfg["options.extras_require"].items()})
    return out


DECLARED = {canonicalize_name(r.name) for reqs in setup_cfg().values() for r in reqs}


def install_lines() -> list[tuple[str, str]]:
    """``(where, the text after "pip install")`` of every install line of the README, docs, examples, benchmarks,
    scripts, CI and the package's own files (cards, metric card, messages)."""
    files = [ROOT / "README.md", ROOT / ".ci" / "run", *sorted((ROOT / "docs").glob("*.md"))]
    for folder in ("examples", "benchmarks", "scripts", "src"):
        files += sorted(p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md", ".txt", ".sh"))
    return [(f"{path.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}", m.group(1) or "")
            for path in files for text in [path.read_text(encoding="utf-8")] for m in INSTALL.finditer(text)]


def targets(args: str) -> list[str]:
    """What one ``pip install`` installs: its arguments up to the end of the command, options and their values
    left out."""
    args = re.split(r"\s(?:&&|;|\|\||#)|\)(?=[\s.,;:])|\s\(", args + " ")[0]
    try:
        words = shlex.split(args)
    except ValueError:
        words = args.split()
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in VALUED:
            skip = True
        elif out and re.fullmatch(r"[A-Za-z]+", word) and canonicalize_name(word) not in DECLARED:
            break  # prose after the command ("... in your clone")
        elif not word.startswith("-"):
            word = word.strip("'\"")
            out.append(word.rstrip(",;:") if word.startswith(".") else word.strip(".,;:"))
    return out


def is_local(target: str) -> bool:
    return target.startswith((".", "/", "~")) or target.endswith((".whl", ".tar.gz")) or "{" in target


def test_every_install_line_names_a_local_path_or_a_distribution_setup_cfg_names():
    declared = defaultdict(list)
    for reqs in setup_cfg().values():
        for r in reqs:
            declared[canonicalize_name(r.name)].append(r.specifier)
    lines, wrong = install_lines(), []
    assert len(lines) >= 20, lines  # the scan sees the docs' install lines
    for where, args in lines:
        found = targets(args)
        if not found:
            wrong.append(f"{where}: `pip install {args}` names nothing to install (a command cut by a line break?)")
        for target in found:
            if "://" in target or target.startswith("git+"):
                wrong.append(f"{where}: {target} needs the network to test (a URL); name a local path")
                continue
            if is_local(target):
                continue
            try:
                req = Requirement(target)
            except InvalidRequirement:
                wrong.append(f"{where}: {target!r} is neither a path nor a requirement")
                continue
            name = canonicalize_name(req.name)
            if name == "jigsaw-puzzles":
                wrong.append(f"{where}: `pip install {target}`: no package index holds jigsaw-puzzles yet; install "
                             "the clone (`pip install -e .`, `pip install /path/to/jigsaw-puzzles`) or a wheel")
            elif name not in declared:
                wrong.append(f"{where}: {req.name} is not a requirement of setup.cfg (add it to an extra)")
            elif req.specifier and any(s and any(x.operator == "==" for x in s) and s != req.specifier
                                       for s in declared[name]):
                wrong.append(f"{where}: {target} is not setup.cfg's pin ({declared[name]})")
    assert not wrong, "\n".join(wrong)


def test_the_install_line_check_refuses_what_no_index_holds():
    """The check above is not vacuous: the lines #33.6 found fail it."""
    assert targets('"jigsaw-puzzles[app]"     # Gradio') == ["jigsaw-puzzles[app]"]
    assert targets("jigsaw-puzzles); multimodal") == ["jigsaw-puzzles"]
    assert targets('-e ".[analysis]" in your clone of jigsaw-puzzles') == [".[analysis]"]  # the prose after it
    assert targets('-e ".[inspect]"   # inspect-ai') == [".[inspect]"]
    assert targets('"torch==2.14.1" "torchvision==0.29.1" --index-url https://x/whl/cpu') == ["torch==2.14.1",
                                                                                             "torchvision==0.29.1"]
    assert not is_local("jigsaw-puzzles") and is_local("./jigsaw_puzzles-VERSION-py3-none-any.whl[app]")


# ------------------------------------------------------------------------------------------- environments (#33.7)
def inspect_openai_minimum() -> str:
    """The openai version Inspect's OpenAI provider checks when it loads (not a declared requirement of inspect-ai:
    read from its source, so a new Inspect that changes it changes this test)."""
    inspect_ai = pytest.importorskip("inspect_ai", reason="the harness extra is not installed")
    source = (Path(inspect_ai.__file__).parent / "model" / "_providers" / "providers.py").read_text(encoding="utf-8")
    match = re.search(r'def validate_openai_client.*?MIN_VERSION = "([^"]+)"', source, re.S)
    assert match, "Inspect's OpenAI provider no longer states its openai minimum where this test reads it"
    return match.group(1)


def closure(requirements: list[Requirement]) -> dict[str, list[tuple[str, SpecifierSet]]]:
    """Every requirement reached from ``requirements`` through the installed packages' declared ones (markers
    evaluated here, extras followed): ``{name: [(who asks, specifier)]}``. A package installed here in a version
    the environment excludes is not followed (its other version's requirements are not here)."""
    specs, seen = defaultdict(list), set()
    todo = [(r, "setup.cfg") for r in requirements]
    while todo:
        req, who = todo.pop()
        name = canonicalize_name(req.name)
        specs[name].append((who, req.specifier))
        key = (name, frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        if not req.specifier.contains(dist.version, prereleases=True):
            continue
        for line in dist.requires or []:
            r = Requirement(line)
            if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in ("", *req.extras)):
                todo.append((r, f"{name} {dist.version}"))
    return specs


def satisfiable(specifiers: list[SpecifierSet], installed: str | None = None) -> bool:
    """Whether one version satisfies every specifier: tried on each bound they name, just above and below it."""
    combined = SpecifierSet(",".join(str(s) for s in specifiers if str(s)))
    candidates = {Version("0"), Version("99999")} | ({Version(installed)} if installed else set())
    for spec in combined:
        try:
            bound = Version(spec.version.rstrip(".*"))
        except InvalidVersion:
            continue
        rel = list(bound.release)
        candidates |= {bound, Version(".".join(map(str, [*rel, 1]))),
                       Version(".".join(map(str, [*rel[:-1], rel[-1] + 1])))}
        if rel[-1] > 0:
            candidates.add(Version(".".join(map(str, [*rel[:-1], rel[-1] - 1, 999]))))
    return any(combined.contains(c, prereleases=True) for c in candidates)


def conflicts(requirements: list[Requirement]) -> dict[str, list[str]]:
    """``{name: [who asks what]}`` for every package no one version of which meets all that the env asks."""
    out = {}
    for name, asks in closure(requirements).items():
        try:
            installed = md.version(name)
        except md.PackageNotFoundError:
            installed = None
        if not satisfiable([s for _, s in asks], installed):
            out[name] = sorted({f"{who}: {s}" for who, s in asks if str(s)})
    return out


def readme_test_extras() -> list[str]:
    from test_readme_commands import readme_commands

    return re.search(r'pip install -e "\.\[([^\]]+)\]"', readme_commands()[1]).group(1).split(",")


def environments() -> dict[str, list[Requirement]]:
    """The environments docs/integrations.md documents, as requirement lists: each extra (plus the openai minimum
    Inspect checks where Inspect's OpenAI provider is promised), and the README's test command."""
    extras, openai = setup_cfg(), Requirement(f"openai>={inspect_openai_minimum()}")
    envs = {"inspect": [*extras["inspect"], openai], "verifiers": extras["verifiers"], "harness": extras["harness"]}
    envs["README test command"] = [r for e in ["", *readme_test_extras()] for r in extras[e]]
    return envs


@pytest.mark.parametrize("env", ["inspect", "verifiers", "harness", "README test command"])
def test_each_documented_environment_holds_no_two_packages_that_conflict(env):
    found = conflicts(environments()[env])
    assert not found, f"the {env} environment asks for versions no release meets: {found}"


def test_inspects_openai_provider_and_verifiers_cannot_share_an_environment_as_the_docs_say():
    """The check sees a conflict where there is one: Inspect's OpenAI provider (openai >= 3.4) beside verifiers
    0.4.0 (openai < 3), in one env or in `harness`; and docs/integrations.md says so and names both extras."""
    envs, minimum = environments(), inspect_openai_minimum()
    both = conflicts(envs["inspect"] + envs["verifiers"])
    assert "openai" in both and any(f">={minimum}" in w for w in both["openai"]), both
    assert "openai" in conflicts(envs["harness"] + [Requirement(f"openai>={minimum}")])
    assert not any(canonicalize_name(r.name) == "openai" for r in envs["harness"])  # harness promises no openai 3
    text = " ".join((ROOT / "docs" / "integrations.md").read_text(encoding="utf-8").split())
    for words in ('pip install -e ".[inspect]"', 'pip install -e ".[verifiers]"', "`openai>=3.4`",
                  "`openai>=2.54,<3`", f"OpenAI API requires at least version {minimum}"):
        assert words in text, words


# ------------------------------------------------------------------------------------------- fresh venvs (slow)
def _fresh_venv(tmp_path: Path) -> tuple[Path, dict]:
    """A new venv whose ``pip`` and ``python`` are its own; this environment's packages are reached through a
    ``.pth`` line after its own site-packages (tests/fixtures/venvs.py), so an install resolves offline. pip never
    touches this environment (an install here is "outside environment" for it)."""
    from fixtures.venvs import parent_sites

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "_jp_parent_env.pth").write_text("\n".join(parent_sites()) + "\n")
    (venv / "bin" / "pip").write_text('#!/bin/sh\nexec "$(dirname "$0")/python" -m pip "$@"\n')
    (venv / "bin" / "pip").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")}
    # offline: no index, the build without an isolated env (setuptools is here); the lines run as written
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(venv), PIP_NO_INDEX="1",
               PIP_NO_BUILD_ISOLATION="0", PIP_DISABLE_PIP_VERSION_CHECK="1", HF_HUB_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
    return venv, env


def _clone(tmp_path: Path) -> Path:
    """The repository's tracked files, as a clone holds them (never built in place: the build writes there)."""
    clone = tmp_path / "jigsaw-puzzles"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    return clone


def _run(line: str, env: dict, cwd: Path) -> str:
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", line], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, f"`{line}` failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.mark.slow
def test_the_path_and_wheel_installs_run_verbatim_in_a_fresh_venv(tmp_path):
    """The dataset card's `pip install /path/to/jigsaw-puzzles` and the Space recipe's wheel (`pip wheel ... --no-deps`,
    then the requirements line `./jigsaw_puzzles-VERSION-py3-none-any.whl[app]`), each as written, the path being a
    clone of this repository: the installed package (not this checkout) imports, its console script runs, its
    metric loads, and the app extra's Gradio is there."""
    before = md.distribution("jigsaw-puzzles").read_text("direct_url.json")
    card = (ROOT / "src" / "jigsaw_puzzles" / "publishing" / "cards" / "dataset_card.md").read_text(encoding="utf-8")
    human = (ROOT / "docs" / "human.md").read_text(encoding="utf-8")
    card_line = re.search(r"# (pip install /path/to/jigsaw-puzzles)\b", card).group(1)
    wheel_line = re.search(r"`(pip wheel /path/to/jigsaw-puzzles --no-deps)`", human).group(1)
    requirement = re.search(r"`(\./jigsaw_puzzles-VERSION-py3-none-any\.whl\[app\])`", human).group(1)
    clone, (_, env) = _clone(tmp_path), _fresh_venv(tmp_path)
    space = tmp_path / "space"
    space.mkdir()
    where = ("python -c 'import importlib.metadata as m, sys; d = m.distribution(\"jigsaw-puzzles\"); "
             "print(d.version, str(d.locate_file(\"\")).startswith(sys.prefix), m.version(\"gradio\"))'")
    _run(card_line.replace("/path/to/jigsaw-puzzles", str(clone)), env, tmp_path)
    assert _run(where, env, tmp_path).split()[:2] == [md.version("jigsaw-puzzles"), "True"]  # in the venv
    _run(wheel_line.replace("/path/to/jigsaw-puzzles", str(clone)), env, space)
    wheel = next(space.glob("jigsaw_puzzles-*-py3-none-any.whl")).name
    (space / "requirements.txt").write_text(requirement.replace("VERSION", wheel.split("-")[1]) + "\n")
    _run("pip install -r requirements.txt", env, space)  # what the Space runs, its one line as the page gives it
    assert _run(where, env, tmp_path).split()[:2] == [md.version("jigsaw-puzzles"), "True"]  # gradio: [app] met
    out = _run("python -c 'import jigsaw_puzzles as jp, evaluate, sys; assert jp.__file__.startswith(sys.prefix), "
               "jp.__file__; print(type(evaluate.load(jp.METRIC_PATH)).__name__)' && jigsaw-puzzles --version",
               env, tmp_path)
    assert "JigsawPuzzles" in out and md.version("jigsaw-puzzles") in out
    assert md.distribution("jigsaw-puzzles").read_text("direct_url.json") == before  # this environment untouched


@pytest.mark.slow
def test_inspects_openai_provider_runs_in_the_inspect_environment_and_stops_in_harness(tmp_path):
    """The `inspect` extra's environment (openai 3.x, a side venv over this one) runs `inspect eval ... --model
    openai/gpt-4o` against a stub chat-completions server on 127.0.0.1; the `harness` environment (this one) stops
    with Inspect's version error, as docs/integrations.md says."""
    pytest.importorskip("inspect_ai", reason="the harness extra is not installed")
    from http.server import BaseHTTPRequestHandler

    from fixtures.stubs import local_server, reply_json
    from fixtures.venvs import side_env, side_venv

    minimum = inspect_openai_minimum()
    openai3 = "openai==3.57.0"
    assert Version(openai3.split("==")[1]) >= Version(minimum) and SpecifierSet(
        str(next(r for r in setup_cfg()["inspect"] if r.name == "openai").specifier)).contains(openai3.split("==")[1])
    python = side_venv("inspect-openai3", [openai3], parent_hooks=True)  # the package found as installed
    asked = []

    class Chat(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            asked.append((self.path, body.get("model")))
            reply_json(self, {"id": "c", "object": "chat.completion", "created": 0, "model": body.get("model"),
                              "choices": [{"index": 0, "message": {"role": "assistant", "content": "The answer is B."},
                                           "finish_reason": "stop"}],
                              "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    argv = ["-m", "inspect_ai", "eval", "jigsaw_puzzles/order_restoration", "--model", "openai/gpt-4o", "-T",
            "split=lite", "--limit", "2", "--display", "plain", "--log-format", "json"]
    with local_server(Chat) as url:
        env = side_env(OPENAI_BASE_URL=url, OPENAI_API_KEY="dummy", INSPECT_LOG_DIR=str(tmp_path / "logs"))
        # as a user runs it: no checkout on PYTHONPATH, whose src/*.egg-info (no direct_url.json) would hide the
        # install and with it Inspect's `jigsaw_puzzles/` namespace ("No inspect tasks were found")
        env.pop("PYTHONPATH")
        here = subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True, cwd=tmp_path,
                              timeout=600)
        assert here.returncode != 0 and f"requires at least version {minimum} of package openai" in " ".join(
            (here.stdout + here.stderr).split()) and not asked
        there = subprocess.run([str(python), *argv], env=env, capture_output=True, text=True, cwd=tmp_path,
                               timeout=600)
    assert there.returncode == 0, there.stderr[-3000:]
    assert asked == [("/v1/chat/completions", "gpt-4o")] * 2
    log = json.loads(next((tmp_path / "logs").glob("*.json")).read_text())
    assert log["status"] == "success" and log["eval"]["packages"].get("openai", "3").startswith("3")
    assert [s["scores"]["jigsaw_scorer"]["answer"] for s in log["samples"]] == ["B", "B"]
