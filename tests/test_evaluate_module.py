"""`evaluate.load(jp.METRIC_PATH)`, offline: from a clean working directory, and from an installed wheel."""
import json
import os
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import jigsaw_puzzles as jp

REPO = Path(__file__).resolve().parents[1]
METRIC_DIR = Path(jp.METRIC_PATH)

SCRIPT = r"""
import json, os, sys
import evaluate
from jigsaw_puzzles.scoring import score as scoring  # the module: scoring.score is the function

preds = ["B", "The answer is (C).", "Judgment: B Error Position: C Error Type: A", "2 3 1 4", "A or B"]
refs = ["B", "A", "Judgment: B\nError Position: C\nError Type: A", "[2, 3, 1, 4]", "A"]
cfgs = ["missing_piece_selection_easy", "missing_piece_selection_easy", "anomaly_detection",
        "order_generation", "piece_localization_easy"]
results = []
for path, cwd in zip(sys.argv[1::2], sys.argv[2::2]):
    os.chdir(cwd)
    m = evaluate.load(path)
    out = {"module": type(m).__module__, "cwd": os.getcwd()}
    out["compute"] = m.compute(predictions=preds, references=refs, configs=cfgs)
    for i in range(0, len(preds), 2):
        m.add_batch(predictions=preds[i:i + 2], references=refs[i:i + 2], configs=cfgs[i:i + 2])
    out["add_batch"] = m.compute()
    for p, r, c in zip(preds, refs, cfgs):
        m.add(prediction=p, reference=r, configs=c)
    out["add"] = m.compute()
    out["direct"] = scoring.score(preds, refs, cfgs)
    out["score_is_package"] = sys.modules[type(m).__module__].score is scoring.score
    results.append(out)
print("RESULT" + json.dumps(results))
"""


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """One fresh interpreter (evaluate imports slowly): first from an empty working directory with an
    absolute path, then from the repository root with the documented relative path."""
    tmp_path = tmp_path_factory.mktemp("evaluate")
    clean = tmp_path / "cwd"
    clean.mkdir()
    env = dict(os.environ)
    env.update(
        HF_EVALUATE_OFFLINE="1",
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_HOME=str(tmp_path / "hf_home"),
        HF_MODULES_CACHE=str(tmp_path / "modules"),  # a fresh module cache: the script is really copied
    )
    env.pop("PYTHONPATH", None)
    args = [str(METRIC_DIR), str(clean), "src/jigsaw_puzzles/scoring/metrics/jigsaw_puzzles", str(REPO)]
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], cwd=clean, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT"):]), clean


def _check(out):
    assert out["module"].startswith("evaluate_modules.metrics.jigsaw_puzzles.")
    assert out["score_is_package"]  # the copied script imports the installed package, no name clash
    for key in ("compute", "add_batch", "add"):
        # compared as JSON text so that NaN (no attainable critical value for n=1) equals NaN
        assert json.dumps(out[key], sort_keys=True) == json.dumps(out["direct"], sort_keys=True), key
    res = out["compute"]
    assert res["missing_piece_selection_easy"]["accuracy"] == 50.0
    assert res["anomaly_detection"]["accuracy"] == 100.0
    assert res["order_generation"]["accuracy"] == 100.0
    assert res["piece_localization_easy"]["invalid_rate"] == 100.0
    assert set(res) == {"missing_piece_selection_easy", "piece_localization_easy", "anomaly_detection",
                        "order_generation", "overall"}


def test_load_from_clean_working_directory(loaded):
    results, clean = loaded
    assert Path(results[0]["cwd"]) == clean
    _check(results[0])


def test_load_relative_from_repository_root(loaded):
    results, _ = loaded
    assert Path(results[1]["cwd"]) == REPO
    _check(results[1])


def test_metric_card_has_yaml_header():
    text = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    header = text.split("---\n")[1]
    for key in ("title:", "tags:", "description:"):
        assert key in header
    assert "evaluate.load(jp.METRIC_PATH)" in text
    assert "@misc{lyu2025jigsawpuzzles" in text and "@article" not in text  # one citation everywhere
    for name in ("requirements.txt", "app.py"):  # a valid Hub metric Space: the card names app.py
        assert (METRIC_DIR / name).is_file()


def test_options_map_order_restoration_lists_to_letters(loaded):
    import evaluate

    metric = evaluate.load(jp.METRIC_PATH)
    options = [["[1, 2, 3, 4]", "[4, 3, 2, 1]", "[2, 1, 4, 3]", "[3, 4, 1, 2]"]]
    with_options = metric.compute(predictions=["[2, 1, 4, 3]"], references=["C"], configs=["order_restoration"],
                                  options=options)
    without = metric.compute(predictions=["[2, 1, 4, 3]"], references=["C"], configs=["order_restoration"])
    assert with_options["order_restoration"]["accuracy"] == 100.0
    assert without["order_restoration"]["accuracy"] == 0.0


def test_the_metric_reports_strict_beside_flexible():
    import evaluate

    metric = evaluate.load(jp.METRIC_PATH)
    out = metric.compute(predictions=["B", "The answer is (C).", "Answer: D", "[2, 3, 1, 4]", "I'd say 2 3 1 4."],
                         references=["B", "C", "D", "[2, 3, 1, 4]", "[2, 3, 1, 4]"],
                         configs=["piece_localization_hard"] * 3 + ["order_generation"] * 2)
    hard, order = out["piece_localization_hard"], out["order_generation"]
    assert (hard["accuracy"], hard["strict_correct"]) == (100.0, 2) and round(hard["strict_accuracy"], 2) == 66.67
    assert (order["accuracy"], order["strict_accuracy"], order["strict_correct"]) == (100.0, 50.0, 1)
    assert round(out["overall"]["strict_accuracy"], 2) == 66.67


WHEEL_SCRIPT = r"""
import json, os, sys
import evaluate
import jigsaw_puzzles as jp
assert "site-packages" in jp.METRIC_PATH, jp.METRIC_PATH  # the installed wheel, not the checkout
m = evaluate.load(jp.METRIC_PATH)
print("RESULT" + json.dumps(m.compute(predictions=["B"], references=["B"], configs=["connection_verification"])))
"""


@pytest.mark.slow
def test_metric_loads_from_an_installed_wheel(tmp_path):
    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(dist), str(REPO)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(dist.glob("jigsaw_puzzles-*.whl"))
    # A fresh venv whose dependencies come from *this* interpreter's site-packages. Not `--system-site-packages`:
    # inside a venv (how users run the tests) that names the base interpreter's, where `evaluate` is missing.
    # A .pth line appends this environment's site dirs after the venv's own, so the wheel installed there wins,
    # and the editable install's own .pth hooks (processed only in real site dirs) are not loaded.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    venv_site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    ours = [p for p in dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"],
                                      sysconfig.get_paths()["platlib"]]) if Path(p).is_dir()]
    Path(venv_site, "_jp_test_parent_env.pth").write_text("\n".join(ours) + "\n")
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--ignore-installed",
                              str(wheel)],
                             capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_EVALUATE_OFFLINE="1", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               HF_MODULES_CACHE=str(tmp_path / "modules"), HF_HOME=str(tmp_path / "hf_home"))
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    proc = subprocess.run([str(python), "-c", WHEEL_SCRIPT], cwd=workdir, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")][-1][len("RESULT"):])
    assert result["connection_verification"]["accuracy"] == 100.0
