"""The command line: user mistakes are one line on stderr and exit code 2, never a traceback; every option is
documented, each default shown once; choices come from the spec and the backend registry."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

from jigsaw_puzzles import cli
from jigsaw_puzzles.cli import build_parser, main
from jigsaw_puzzles.inference.registry import BACKENDS
from jigsaw_puzzles.spec import CONFIGS, SPLITS


def one_error_line(capsys) -> str:
    """stderr is exactly one line, ``jigsaw-puzzles: error: ...``."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("jigsaw-puzzles: backend ")]
    assert len(lines) == 1 and lines[0].startswith("jigsaw-puzzles: error: "), err
    return lines[0]


def error_line_after_progress(capsys) -> str:
    """Where the dataset is built first: above the one error line, only its progress bars."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines[-1].startswith("jigsaw-puzzles: error: ")
    bar = re.compile(r"^\r?[\w ,/()\[\]-]+: +\d+%\|")  # a labelled tqdm bar ("curating sources:  50%|...")
    assert all(ln.startswith(("Generating ", "\r")) or " examples" in ln or bar.match(ln) for ln in lines[:-1]), err
    return lines[-1]


@pytest.mark.parametrize("command", ["build", "eval"])
@pytest.mark.parametrize("case", ["missing", "file", "empty"])
def test_bad_source_folder(command, case, tmp_path, capsys):
    source = {"missing": tmp_path / "nowhere", "file": tmp_path / "photo.jpg", "empty": tmp_path / "empty"}[case]
    if case == "file":
        source.write_bytes(b"not a folder")
    if case == "empty":
        source.mkdir()
    argv = {"build": ["build", "--out", str(tmp_path / "out"), "--configs", "order_generation"],
            "eval": ["eval", "--model", "random", "--out", str(tmp_path / "out"), "--no-progress"]}[command]
    rc = main(argv + ["--source", str(source), "--cache-dir", str(tmp_path / "c")])
    line = one_error_line(capsys)
    assert rc == 2
    assert {"missing": "not found", "file": "not a file", "empty": "needs at least 1 usable source"}[case] in line
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_hard_config_without_weights_offline(tmp_path, capsys, monkeypatch, photo_dir):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty_hf_home"))
    rc = main(["build", "--out", str(tmp_path / "out"), "--source", str(photo_dir),
               "--configs", "missing_piece_selection_hard", "--cache-dir", str(tmp_path / "c")])
    line = one_error_line(capsys)
    assert rc == 2 and "missing_piece_selection_hard" in line
    # eval refuses a config asked for by name that cannot be built here, as build does
    rc = main(["eval", "--model", "random", "--source", str(photo_dir), "--configs", "missing_piece_selection_hard",
               "--out", str(tmp_path / "run"), "--no-progress", "--cache-dir", str(tmp_path / "c")])
    assert rc == 2 and "missing_piece_selection_hard" in one_error_line(capsys)
    assert not (tmp_path / "run" / "run.json").exists()


@pytest.mark.parametrize("argv,says", [
    (["eval", "--model", "solver", "--configs", "not_a_config"], "unknown config 'not_a_config'"),
    (["eval", "--configs", "order_generation"], "required: --model"),
    (["eval", "--model", "random", "--split", "train"], "invalid choice: 'train'"),
    (["eval", "--model", "random", "--backend", "nope"], "invalid choice: 'nope'"),
    (["eval", "--model", "random", "--max-items", "many"], "invalid int value"),
    (["build"], "required: --out"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["report", "x", "--params", "7B"], "expected NAME=VALUE"),
])
def test_usage_errors_are_one_line(argv, says, capsys):
    assert main(argv) == 2
    assert says in one_error_line(capsys)


def test_builtin_model_with_another_backend(tmp_path, capsys):
    rc = main(["eval", "--model", "random", "--backend", "openai", "--out", str(tmp_path / "r")])
    assert rc == 2 and "built-in baseline" in one_error_line(capsys)


def test_report_of_a_folder_that_is_not_a_run(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nowhere"), "--out", str(tmp_path / "rep")]) == 2
    assert "no results.json" in one_error_line(capsys)


def test_report_of_a_corrupt_run(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.json").write_text('{"model": ')
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep")]) == 2
    assert "results.json is not valid JSON" in one_error_line(capsys)


@pytest.mark.slow
def test_report_with_a_bad_parameter_count(tmp_path, capsys):
    assert main(["eval", "--model", "random", "--configs", "piece_localization_easy", "--max-items", "2",
                 "--out", str(tmp_path / "run"), "--no-progress", "--json", "--cache-dir", str(tmp_path / "c")]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep"), "--params", "run=lots"]) == 2
    assert "cannot parse a parameter count" in one_error_line(capsys)
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep"), "--params", "other=7B"]) == 2
    assert "no run named 'other'" in one_error_line(capsys)


def test_curate_a_missing_folder(tmp_path, capsys):
    assert main(["curate", str(tmp_path / "nowhere")]) == 2
    assert "not found" in one_error_line(capsys)


def test_show_index_out_of_range(tmp_path, capsys, photo_dir, cache_dir, monkeypatch):
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache_dir)
    rc = main(["show", "order_generation", "--index", "9999", "--source", str(photo_dir), "--out",
               str(tmp_path / "x.png")])
    assert rc == 2 and "out of range" in error_line_after_progress(capsys)


def test_a_bug_keeps_its_traceback(monkeypatch):
    def broken(args):
        raise KeyError("a bug")

    monkeypatch.setattr(cli, "cmd_curate", broken)
    with pytest.raises(KeyError):
        main(["curate"])


# ------------------------------------------------------------------------------------------------ the parser
def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_has_help_and_shows_its_default_once():
    parser = build_parser()
    for name, sub in {"": parser, **_subparsers(parser)}.items():
        for action in sub._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}: no help text"
        text = re.sub(r"\s+", " ", sub.format_help())
        entries = re.split(r" (?=--?[a-z])", text.split(" options: ", 1)[-1])
        for entry in entries:
            assert entry.lower().count("default") <= 1, f"{name}: default shown twice in {entry!r}"
    defaults = re.sub(r"\s+", " ", _subparsers(parser)["eval"].format_help())
    for shown in ("(default: test)", "(default: 120.0)", "(default: 8)", "(default: 600.0)", "(default: 256)"):
        assert shown in defaults


def test_choices_come_from_the_spec_and_the_registry():
    subs = _subparsers(build_parser())
    actions = {a.dest: a for a in subs["eval"]._actions}
    for command in ("eval", "build"):  # any config of the spec, a grid config, nothing else
        check = {a.dest: a for a in subs[command]._actions}["configs"].type
        assert [check(c) for c in CONFIGS] == list(CONFIGS) and check("order_generation_3x3")
        for bad in ("not_a_config", "order_generation_02x2", "order_generation_9x9"):
            with pytest.raises(argparse.ArgumentTypeError):
                check(bad)
        assert check("order_generation_2x2") == "order_generation"  # an alias (#28.4): the paper config's name
    assert list(actions["backend"].choices) == list(BACKENDS)
    assert tuple(actions["split"].choices) == tuple(SPLITS)


def test_one_cli_module_and_nothing_below_inference_imports_it():
    root = Path(cli.__file__).parent
    assert not (root / "inference" / "cli.py").exists()
    for path in (root / "inference").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            assert not any(n == "cli" or n.endswith(".cli") for n in names), f"{path} imports the CLI"
    tree = ast.parse(Path(cli.__file__).read_text())
    handlers = [h for node in ast.walk(tree) if isinstance(node, ast.Try) for h in node.handlers]
    assert not any(isinstance(h.type, ast.Name) and h.type.id == "ImportError" for h in handlers)


def test_every_command_shows_examples_that_parse():
    """``--help`` ends with examples; each example line that calls the CLI parses with today's parser."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in [(None, parser), *sub.choices.items()]:
        text = command.format_help()
        assert "examples:" in text, name
        for line in cli.EXAMPLES.get(name, "").splitlines():
            line = line.split("#")[0].strip()
            if line.startswith("jigsaw-puzzles "):
                argv = line.split()[1:]
                build_parser().parse_args([a.replace("runs/*", "runs/a") for a in argv])


def test_build_shows_one_labelled_bar_per_config_and_split(tmp_path, capsys, photo_dir):
    cache_dir = str(tmp_path / "cache")  # a fresh cache: the items are really generated
    assert main(["build", "--out", str(tmp_path / "export"), "--source", str(photo_dir), "--cache-dir", cache_dir,
                 "--configs", "order_restoration", "connection_verification"]) == 0
    err = capsys.readouterr().err
    assert "Generating test split" not in err  # datasets' unnamed bars are off
    for config in ("order_restoration", "connection_verification"):
        for split in ("test", "lite"):
            assert f"{config} [{split}]" in err


def test_a_resume_with_another_seed_is_refused_before_anything_is_built(tmp_path, capsys, monkeypatch,
                                                                       photo_dir, cache_dir):
    out = str(tmp_path / "run")
    common = ["eval", "--model", "random", "--configs", "order_restoration", "--source", str(photo_dir),
              "--cache-dir", cache_dir, "--out", out, "--no-progress", "--max-items", "2"]
    assert main(common) == 0
    capsys.readouterr()
    from jigsaw_puzzles.inference import runner

    def no_build(*args, **kwargs):
        raise AssertionError("datasets were built before the run's identity was checked")

    monkeypatch.setattr(runner, "load_datasets", no_build)
    assert main([*common, "--seed", "5"]) == 2
    assert "seed" in one_error_line(capsys)


def test_the_default_backend_is_said_in_one_line(monkeypatch, tmp_path):
    from jigsaw_puzzles.inference.runner import backend_choice

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert backend_choice("random")[0] == "builtin"
    assert backend_choice("Qwen/Qwen2-VL-2B-Instruct")[0] == "transformers"
    assert backend_choice("gpt-4o", "http://127.0.0.1:9/v1")[0] == "openai"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    backend, why = backend_choice("gpt-4o")
    assert backend == "openai" and "OPENAI_BASE_URL" in why
    assert backend_choice(str(tmp_path))[0] == "transformers"  # a local checkpoint folder


def test_version_names_the_package_and_the_generator(capsys):
    import jigsaw_puzzles as jp
    from jigsaw_puzzles._version import __version__

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == f"jigsaw-puzzles {__version__} (generator {jp.spec.GENERATOR_VERSION})"


# ------------------------------------------------------------------------------------------------ #21.13-15
@pytest.mark.parametrize("argv, config", [
    (["order_generation", "--grid", "3x3"], "order_generation_3x3"),
    (["order_restoration", "--rotated"], "order_restoration_2x2_rot"),
    (["order_generation_3x3_rot"], "order_generation_3x3_rot"),
    (["piece_localization_4x4_k8"], "piece_localization_4x4_k8"),
])
@pytest.mark.slow
def test_show_takes_the_configs_build_takes(argv, config, tmp_path, capsys, photo_dir, cache_dir, monkeypatch):
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache_dir)
    out = tmp_path / "item.png"
    assert main(["show", *argv, "--source", str(photo_dir), "--out", str(out)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith(f"{config}/") and out.stat().st_size > 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left


def test_show_refuses_a_grid_its_config_cannot_take(capsys):
    assert main(["show", "anomaly_detection", "--rotated"]) == 2
    assert "--rotated applies to" in one_error_line(capsys)


def test_a_built_export_is_named_dataset_everywhere_and_the_old_name_still_works(capsys):
    parser = build_parser()
    subs = _subparsers(parser)
    exports = {"analyze": subs["analyze"], "export vlmevalkit": _subparsers(subs["export"])["vlmevalkit"],
               "lmms-eval": subs["lmms-eval"], "human": subs["human"]}
    for name, sub in exports.items():
        text = sub.format_help()
        assert "--dataset" in text and "--from-export" not in text, name
    args = parser.parse_args(["analyze", "runs/a", "--from-export", "exp"])
    assert args.dataset == "exp" and "--from-export is deprecated; use --dataset" in capsys.readouterr().err
    args = parser.parse_args(["export", "vlmevalkit", "--out", "x", "--from-export", "exp"])
    assert args.dataset == "exp" and args.format == "vlmevalkit"
    assert parser.parse_args(["analyze", "runs/a", "--dataset", "exp"]).dataset == "exp"


def test_test_only_options_are_hidden_and_every_help_is_its_own():
    parser = build_parser()
    subs = _subparsers(parser)
    helps = {name: sub.format_help() for name, sub in subs.items()}
    helps["export vlmevalkit"] = _subparsers(subs["export"])["vlmevalkit"].format_help()
    assert not [name for name, text in helps.items() if "--clip-random-init" in text]
    assert parser.parse_args(["build", "--out", "x", "--clip-random-init"]).clip_random_init  # still works
    assert helps["export"] != helps["export vlmevalkit"]
    assert "--split" in helps["export vlmevalkit"] and "vlmevalkit" in helps["export"]


def test_curate_rejects_noise_and_shows_task_skips(tmp_path, capsys):
    import json

    import numpy as np
    from PIL import Image

    from fixtures.photos import write_photos
    from test_build_faults import twin_tiles

    folder = tmp_path / "photos"
    twin_tiles(folder)  # a tile repeated 3x3: cells alike, Piece Localization (hard) skips them
    write_photos(folder, 2)
    Image.fromarray(np.random.default_rng(0).integers(0, 256, (360, 480, 3), dtype=np.uint8)).save(folder / "noise.png")
    assert main(["curate", str(folder), "--skips", "--configs", "piece_localization_hard"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"REJ noise\.png  -- no structure", text)
    skips = re.search(r"piece_localization_hard: (\d+) task skips?", text)
    assert skips and int(skips.group(1)) >= 1 and "  SKIP tile_" in text, text
    assert main(["curate", str(folder), "--json", "--skips", "--configs", "piece_localization_hard"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["task_skips"]["piece_localization_hard"]) == int(skips.group(1))


# ------------------------------------------------------------------------------------------------ #34.4: show tabs
TAB_TASKS = ["missing_piece_selection_easy", "piece_localization_easy", "piece_localization_hard",
             "connection_verification", "anomaly_detection", "order_restoration", "order_generation_3x3"]


def test_on_checker_shows_transparency_as_a_checkerboard():
    """A transparent pixel is drawn as the checkerboard's tone at its place (never the colour it stores), an opaque
    one as itself, a half-transparent one blended; an image without transparency is returned untouched."""
    import numpy as np
    from PIL import Image

    from jigsaw_puzzles.generation.sheet import CHECKER, on_checker

    rgba = np.zeros((40, 50, 4), np.uint8)  # stored black: a reader dropping the alpha would show black
    rgba[:, 25:] = (10, 200, 30, 255)
    rgba[:, 20:25] = (10, 200, 30, 128)
    shown = np.asarray(on_checker(Image.fromarray(rgba, "RGBA"))).astype(int)
    dark, light, side = CHECKER
    y, x = np.mgrid[0:40, 0:50]
    want = np.where((x // side + y // side) % 2 == 0, dark, light)[..., None]
    assert shown.shape == (40, 50, 3) and {dark, light} <= set(np.unique(shown[:, :20]))
    assert (shown[:, :20] == want[:, :20]).all()
    assert (shown[:, 25:] == (10, 200, 30)).all()
    blend = (128 * np.array((10, 200, 30)) + 127 * want[:, 20:25]) / 255
    assert (np.abs(shown[:, 20:25] - blend) <= 1).all()
    photo = Image.new("RGB", (8, 8), "white")
    assert on_checker(photo) is photo


@pytest.mark.slow
@pytest.mark.parametrize("straight", TAB_TASKS)
def test_the_sheet_draws_every_tasks_tab_items_on_a_checkerboard(straight, tmp_path, monkeypatch):
    """Every task's ``_tabs`` and ``_tabs_silhouette`` item as ``show`` draws it: each image handed to matplotlib
    is the item's image on the checkerboard (its transparent pixels in the checker's tones, its opaque ones its
    own), the sheet says so, and a piece's canvas is never shown as the white or black its transparent pixels
    store."""
    import json

    import matplotlib.axes
    import matplotlib.figure
    import numpy as np

    from fixtures.photos import make_photo
    from jigsaw_puzzles.generation.sheet import CHECKER, PER_ROW, draw_item
    from jigsaw_puzzles.generation.tasks import Context, get_task
    from jigsaw_puzzles.rng import item_rng

    pool = [f"p{k}" for k in range(6)]
    photos = {sid: make_photo(60 + k) for k, sid in enumerate(pool)}
    shown, titles = [], []
    imshow, suptitle = matplotlib.axes.Axes.imshow, matplotlib.figure.Figure.suptitle
    places = []  # (row, column) of each image on the sheet
    monkeypatch.setattr(matplotlib.axes.Axes, "imshow", lambda ax, im, **kw: shown.append(np.asarray(im)) or
                        places.append((ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start)) or
                        imshow(ax, im, **kw))
    monkeypatch.setattr(matplotlib.figure.Figure, "suptitle", lambda fig, t, **kw: titles.append(t) or
                        suptitle(fig, t, **kw))
    dark, light, _ = CHECKER
    for config in (f"{straight}_tabs", f"{straight}_tabs_silhouette"):
        task = get_task(config)
        item = task.build(photos["p0"], item_rng(0, task.family, "p0"), 1,
                          Context("p0", pool_ids=pool, load=photos.__getitem__))
        row = {"id": f"{config}/p0", "images": item.images, "question": item.question, "answer": item.answer,
               "metadata": json.dumps(item.metadata)}
        shown.clear()
        places.clear()
        draw_item(row, str(tmp_path / f"{config}.png"))
        assert len(shown) == len(item.images) and (tmp_path / f"{config}.png").stat().st_size > 10_000
        lines = -(-len(item.images) // PER_ROW)  # balanced rows of at most PER_ROW: 9 pieces are 5 + 4
        assert sorted(places) == [divmod(k, -(-len(item.images) // lines)) for k in range(len(item.images))]
        transparent = 0
        for image, drawn in zip(item.images, shown):
            pixels = np.asarray(image.convert("RGBA")).astype(int)
            alpha = pixels[..., 3]
            assert drawn.shape == pixels.shape[:2] + (3,)
            assert (drawn[alpha == 255] == pixels[alpha == 255][:, :3]).all()
            clear = drawn[alpha == 0]
            assert ((clear == dark) | (clear == light)).all()
            transparent += len(clear)
        assert transparent > 0, f"{config}: no transparent pixel to show"  # every tab item has some
        assert titles[-1].endswith("(transparent pixels on a checkerboard)")


def test_show_draws_a_tab_config(tmp_path, capsys, cache_dir, monkeypatch):
    """``jigsaw-puzzles show <config>_tabs`` end to end: the sheet shows the checkerboard (both tones, exactly)."""
    import datasets
    import numpy as np
    from PIL import Image

    from fixtures.photos import write_photos
    from jigsaw_puzzles.generation.sheet import CHECKER

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache_dir)
    folder = tmp_path / "photos"
    write_photos(folder, 4, start=70)
    out = tmp_path / "item.png"
    for config in ("order_generation_tabs", "order_generation_tabs_silhouette"):
        assert main(["show", config, "--source", str(folder), "--out", str(out)]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.startswith(f"{config}/")
        sheet = np.asarray(Image.open(out).convert("RGB")).astype(int)
        for tone in CHECKER[:2]:
            assert ((sheet == tone).all(axis=2)).sum() > 2_000, (config, tone)


# ------------------------------------------------------------------------------------------------ start-up (#44 3.4)
def test_each_command_is_listed_with_its_own_help_line():
    """A command not being run is listed from cli.COMMANDS: the same words and order as its own parser gives."""
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {c.dest: c.help for c in action._choices_actions} == cli.COMMANDS
    assert list(action.choices) == list(cli.COMMANDS)
    for name in cli.COMMANDS:  # only that command's parser is full; the others are bare names
        one = _subparsers(build_parser(name))
        assert list(one) == list(cli.COMMANDS) and one[name].format_help() == _subparsers(build_parser())[
            name].format_help()


HEAVY = ("datasets", "pandas", "pyarrow", "torch", "matplotlib", "transformers")


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["evl"], ["verify", "/nonexistent/export"],
                                  ["report", "--help"]])
def test_help_a_typo_and_verify_import_no_heavy_library(argv, tmp_path):
    """`--help` spent about 2 s of CPU importing datasets before it printed anything: measured apart
    (docs/performance.md#command-line-start-up); here, what it imports."""
    import json
    import subprocess
    import sys

    code = (f"import sys\nfrom jigsaw_puzzles.cli import main\ntry:\n    rc = main({argv!r})\nexcept SystemExit as e:\n"
            f"    rc = e.code\nprint(rc, [m for m in {HEAVY!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    rc, loaded = done.stdout.strip().splitlines()[-1].split(" ", 1)
    assert json.loads(loaded.replace("'", '"')) == [], done.stdout + done.stderr
    assert int(rc) == (2 if argv[0] in ("evl", "verify") else 0)


def test_the_package_face_imports_each_name_on_first_use(tmp_path):
    import subprocess
    import sys

    code = ("import sys\nimport jigsaw_puzzles as jp\nassert 'datasets' not in sys.modules\n"
            "assert callable(jp.load_dataset) and 'datasets' in sys.modules\n"
            "from jigsaw_puzzles import *\nassert callable(score) and set(jp.__all__) <= set(dir(jp))\n"
            "assert jp.rewards.__name__ == 'jigsaw_puzzles.training.rewards' and jp.spec.CONFIGS\n"
            "try:\n    jp.nope\nexcept AttributeError as e:\n    print('ok', e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0 and "ok module 'jigsaw_puzzles' has no attribute 'nope'" in done.stdout, done.stderr
