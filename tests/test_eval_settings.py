"""The runner's settings as one validated record (#26.6), the backend's extra named when it is missing, and the
circular expansion's labelled bar (#28.4)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from fixtures.rows import make_dataset
from jigsaw_puzzles import EvalSettings, UserError, evaluate_model
from jigsaw_puzzles.cli import main

CONFIG = "order_restoration"


@pytest.fixture()
def data():
    return {CONFIG: make_dataset(CONFIG, 4)}


def test_settings_and_keywords_are_the_same_run(data, tmp_path):
    by_name = evaluate_model("solver", data=data, out=tmp_path / "a", progress=False, max_items=3)
    settings = EvalSettings(data=data, out=tmp_path / "b", progress=False, max_items=3)
    by_record = evaluate_model("solver", settings)
    mixed = evaluate_model("solver", EvalSettings(data=data, progress=False), out=tmp_path / "c", max_items=3)
    assert by_name["metrics"] == by_record["metrics"] == mixed["metrics"]
    assert by_name["n_items"] == by_record["n_items"] == mixed["n_items"] == 3
    runs = [json.loads((tmp_path / d / "run.json").read_text()) for d in "abc"]
    assert runs[0]["max_items"] == runs[1]["max_items"] == runs[2]["max_items"] == 3


def test_every_setting_is_documented_and_the_signature_is_model_settings_overrides():
    import inspect

    from jigsaw_puzzles.inference import runner

    doc = runner.evaluate_model.__doc__
    missing = [f.name for f in dataclasses.fields(EvalSettings) if f.name not in doc]
    assert not missing, f"settings not described in evaluate_model's docstring: {missing}"
    assert list(inspect.signature(runner.evaluate_model).parameters) == ["model", "settings", "overrides"]


def cli_flags(text: str) -> list[str]:
    """The command-line flags a message names outside backticks (a quoted command may keep its own)."""
    import re

    return [m for part in text.split("`")[::2] for m in re.findall(r"(?<![\w`-])--[a-z][\w-]*", part)]


@pytest.mark.parametrize("overrides, option", [
    ({"max_items": 0}, "max_items"), ({"temperature": -1.0}, "temperature"), ({"top_p": 0.0}, "top_p"),
    ({"dtype": "float8"}, "dtype"), ({"seed": 1.5}, "seed"), ({"backend": "tpu"}, "backend"),
    ({"prompt_style": "poetry"}, "prompt style"), ({"blind": True, "input_format": "composite"}, "blind"),
    ({"overwrite": "yes"}, "overwrite"), ({"max_itemz": 3}, "max_itemz"),
])
def test_a_wrong_setting_is_one_usage_error_before_anything_is_written(data, tmp_path, overrides, option):
    """#44 3.5: a Python caller is told the keyword argument, never the command line's flag."""
    with pytest.raises(UserError, match=option) as err:
        evaluate_model("solver", data=data, out=tmp_path / "run", progress=False, **overrides)
    assert cli_flags(str(err.value)) == [], str(err.value)
    assert not (tmp_path / "run").exists()
    if "max_itemz" not in overrides:  # the record refuses the same values by itself
        with pytest.raises(UserError):
            EvalSettings(**overrides).validate()


@pytest.mark.parametrize("overrides, message", [
    ({"configs": [None]}, "configs must be a config name or a non-empty list"),
    ({"configs": []}, "configs must be a config name or a non-empty list"),
    ({"source": 123}, "source must be a path"), ({"source": ""}, "source is empty"),
    ({"out": 123}, "out must be a path"), ({"out": ""}, "out is empty"),
    ({"backend_kwargs": "x"}, "backend_kwargs must be a dict"),
    ({"dataset_kwargs": "x"}, "dataset_kwargs must be a dict"),
    ({"dataset_kwargs": {"clip_modle": "ViT-S-32"}}, r"unknown argument\(s\) clip_modle; the builder's options are"),
    ({"dataset_kwargs": {"splits": ("lite",)}}, r"unknown argument\(s\) splits"),
    ({"data": {CONFIG: "x"}}, "data must map config names to datasets.Dataset"),
    ({"backend_kwargs": {"timeout": 5}}, r"backend_kwargs\['timeout'\]: the builtin backend takes no keyword"),
    ({"backend_kwargs": {"batch_size": 5}}, "set by the run"),
    ({"seed": "abc"}, "seed must be a whole number"), ({"seed": None}, "seed must be a whole number"),
    ({"seed": True}, "seed must be a whole number"),
])
def test_section_5_1_each_fault_is_one_usage_error_before_anything_is_written(data, tmp_path, monkeypatch, overrides,
                                                                              message):
    """#32.5.1: each of these raised a traceback (or ran everything, or wrote into the current folder)."""
    monkeypatch.chdir(tmp_path)
    kwargs = {"data": data, "out": tmp_path / "run", "progress": False, **overrides}
    with pytest.raises(UserError, match=message):
        evaluate_model("solver", **kwargs)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no run directory, no runs/ in the current folder


def test_a_numpy_seed_is_the_same_run_as_its_int(data, tmp_path):
    import numpy as np

    a = evaluate_model("solver", data=data, out=tmp_path / "a", progress=False, seed=3)
    b = evaluate_model("solver", data=data, out=tmp_path / "b", progress=False, seed=np.int64(3))
    assert a["metrics"] == b["metrics"]
    assert json.loads((tmp_path / "b" / "run.json").read_text())["seed"] == 3
    evaluate_model("solver", data=data, out=tmp_path / "a", progress=False, seed=np.int32(3))  # resumes: one run


def test_an_unknown_setting_is_the_package_s_error_and_still_a_type_error():
    """#44 3.5: EvalSettings(bogus=1) raised Python's TypeError, not the package's error."""
    from jigsaw_puzzles.errors import UsageError

    for make in (lambda: EvalSettings(bogus=1), lambda: EvalSettings.of(None, bogus=1),
                 lambda: dataclasses.replace(EvalSettings(), bogus=1), lambda: EvalSettings(*range(40))):
        with pytest.raises(UsageError) as err:
            make()
        assert isinstance(err.value, TypeError) and ("bogus" in str(err.value) or "by name" in str(err.value))
    assert EvalSettings("openai", split="lite").backend == "openai"


def test_the_same_check_names_the_flag_on_the_command_line_and_the_argument_in_python(data, tmp_path, capsys):
    from jigsaw_puzzles.errors import UsageError

    assert main(["eval", "--model", "solver", "--num-proc", "0", "--out", str(tmp_path / "r")]) == 2
    assert "--num-proc must be at least 1, got 0" in capsys.readouterr().err
    with pytest.raises(UsageError, match="^num_proc must be at least 1, got 0$"):
        evaluate_model("solver", data=data, out=tmp_path / "r", num_proc=0)
    with pytest.raises(UsageError, match="timeout must be a number of seconds above 0") as err:
        EvalSettings(backend="openai", backend_kwargs={"timeout": 0}).validate()
    assert cli_flags(str(err.value)) == []


def test_a_positional_backend_is_refused_with_what_to_do(data, tmp_path):
    with pytest.raises(UserError, match="by name"):
        evaluate_model("solver", "builtin", data=data, out=tmp_path / "run")


def test_the_key_never_shows_in_the_settings_repr():
    assert "s3cret" not in repr(EvalSettings(api_key="s3cret")) and "api_key" not in repr(EvalSettings())


def test_the_cli_builds_the_settings_from_its_flags(monkeypatch, tmp_path, photo_dir, cache_dir):
    from jigsaw_puzzles.inference import runner

    seen = {}

    def fake(model, settings=None, **overrides):
        seen.update(model=model, settings=settings, overrides=overrides)
        raise UserError("stop here")

    monkeypatch.setattr(runner, "evaluate_model", fake)
    argv = ["eval", "--model", "solver", "--source", str(photo_dir), "--configs", CONFIG, "--max-items", "2",
            "--seed", "3", "--split", "lite", "--out", str(tmp_path / "run"), "--no-progress", "--circular",
            "--cache-dir", cache_dir]
    assert main(argv) == 2
    s = seen["settings"]
    assert isinstance(s, EvalSettings) and not seen["overrides"] and seen["model"] == "solver"
    assert (s.configs, s.max_items, s.seed, s.split, s.circular, s.progress) == ((CONFIG,), 2, 3, "lite", True, False)
    assert s.validate() is s


BLOCKED = """
import sys
for name in ("torch", "transformers", "vllm"):
    sys.modules[name] = None   # as on the base install: `pip install -e .` has none of them
from jigsaw_puzzles.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("backend, extra", [("transformers", "inference"), ("vllm", "vllm")])
def test_a_backend_whose_modules_are_missing_names_the_extra_exit_2(tmp_path, photo_dir, backend, extra):
    ckpt = tmp_path / "x"
    ckpt.mkdir()
    argv = ["eval", "--model", str(ckpt), "--backend", backend, "--source", str(photo_dir), "--configs", CONFIG,
            "--out", str(tmp_path / "run"), "--no-progress"]
    proc = subprocess.run([sys.executable, "-c", BLOCKED, *argv], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and f'pip install -e ".[{extra}]"' in lines[0] and "Traceback" not in proc.stderr
    assert not (tmp_path / "run").exists()


def test_the_default_backend_for_a_local_folder_names_the_extra_too(tmp_path, photo_dir):
    ckpt = tmp_path / "x"
    ckpt.mkdir()
    proc = subprocess.run([sys.executable, "-c", BLOCKED, "eval", "--model", "./x", "--source", str(photo_dir),
                           "--configs", CONFIG, "--no-progress"], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 2 and 'pip install -e ".[inference]"' in proc.stderr.strip().splitlines()[-1]
    assert "ModuleNotFoundError" not in proc.stderr


def test_circular_expansion_shows_a_labelled_bar(tmp_path, photo_dir, cache_dir, capsys):
    argv = ["eval", "--model", "solver", "--source", str(photo_dir), "--configs", CONFIG, "--max-items", "3",
            "--out", str(tmp_path / "run"), "--circular", "--cache-dir", cache_dir, "--json"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "circular rotations" in err and "3/3" in err
    assert main([*argv[:-1], "--no-progress", "--overwrite", "--json"]) == 0
    assert "circular rotations" not in capsys.readouterr().err


def _junk():
    import numpy as np
    from hypothesis import strategies as st

    return st.one_of(
        st.none(), st.booleans(), st.integers(-2, 1), st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=4), st.binary(max_size=3), st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=3)),
                                                              max_size=2),
        st.dictionaries(st.text(max_size=3), st.one_of(st.integers(), st.text(max_size=2)), max_size=2),
        st.sampled_from([np.int64(3), np.float32(1.5), object(), (), (CONFIG,), [CONFIG], {CONFIG: None},
                         float("nan"), "  ", "\x00", -0.0]))


def test_generated_bad_settings_never_give_a_traceback(data, tmp_path, monkeypatch):
    """Any value of any setting (hypothesis): the run runs, or refuses with one UserError before writing anything;
    never another exception."""
    from hypothesis import HealthCheck, given, settings, strategies as st

    monkeypatch.chdir(tmp_path)  # a value read as a relative path lands here, never in the repository
    names = [f.name for f in dataclasses.fields(EvalSettings) if f.name not in ("progress", "num_proc")]
    counter = iter(range(10 ** 6))

    def run(name, value):
        out = tmp_path / f"run{next(counter)}"
        kwargs = {"data": data, "out": out, "progress": False, "max_items": 1, name: value}
        try:
            evaluate_model("solver", **kwargs)
        except UserError as err:
            assert cli_flags(str(err)) == [], str(err)  # a Python caller is told its keyword arguments
            if name != "out":
                assert not out.exists()

    for name in names:  # every setting once with each of a few fixed values, then generated ones
        for value in (None, "", -1, float("nan"), object()):
            run(name, value)
    settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))(
        given(name=st.sampled_from(names), value=_junk())(run))()


def test_generated_bad_seeds_and_sources_on_the_data_faces(photo_dir):
    """The same checks on load_dataset's builder and the training stream (one place: jigsaw_puzzles.errors)."""
    import jigsaw_puzzles as jp
    from hypothesis import HealthCheck, given, settings, strategies as st

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(seed=_junk(), source=st.one_of(st.just(str(photo_dir)), _junk()))
    def check(seed, source):
        for face in (lambda: jp.make_builder("order_generation", source, seed),
                     lambda: jp.training_stream(source, mixture={"order_generation": 1}, seed=seed)):
            try:
                face()
            except UserError:
                pass

    check()
