"""One run directory under any sequence of options (issue #33 item 1): every session extends the run, or is refused
before any work with one line; never a run that `eval` or `report` no longer accepts.

The generated test draws sequences of config sets, grids, splits and --max-items on one --out and, after every step,
checks that `report` accepts the run and that its numbers equal a fresh derivation made here without the run's own
files: the items rebuilt with ``jp.load_dataset``, every raw output scored by ``jp.score``."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import jigsaw_puzzles as jp
from fixtures.photos import write_photos
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.reporting.report import load_runs

POOL = ["order_restoration", "connection_verification", "order_generation", "anomaly_detection"]
FILES = ("run.json", "predictions.jsonl", "items.jsonl", "results.json")


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> Path:
    return write_photos(tmp_path_factory.mktemp("photos8"), 8)[0].parent


def _eval(capsys, out, photos, cache, configs=None, grid=None, split="test", max_items=None, model="random"):
    argv = ["eval", "--model", model, "--source", str(photos), "--out", str(out), "--split", split, "--no-progress",
            "--cache-dir", str(cache)]
    argv += ["--configs", *configs] if configs else []
    argv += ["--grid", grid] if grid else []
    argv += ["--max-items", str(max_items)] if max_items else []
    code = main(argv)
    _, err = capsys.readouterr()
    return code, err


def fresh(out: Path, photos: Path, cache) -> dict:
    """The run's figures derived here: its selected items rebuilt, every answered raw output scored by jp.score."""
    run = json.loads((out / "run.json").read_text())
    recs = {}
    for line in (out / "predictions.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if not rec.get("error"):
            recs.setdefault(rec["id"], rec)
    preds, refs, configs, options, missing = [], [], [], [], 0
    for config, n in run["dataset"]["selected"].items():
        ds = jp.load_dataset(config, split=run["split"], source=photos, cache_dir=str(cache))
        cols = ds.select_columns(["id", "answer", "options"])[:n]
        assert len(cols["id"]) == n
        for item_id, ref, opts in zip(cols["id"], cols["answer"], cols["options"]):
            if item_id not in recs:
                missing += 1
                continue
            preds.append(recs[item_id]["output"])
            refs.append(ref)
            configs.append(config)
            options.append(opts)
    assert len(preds) == len(recs), "every answer belongs to a selected item"
    return {"metrics": jp.score(preds, refs, configs, options=options), "n_missing": missing}


def _snapshot(out: Path) -> dict:
    return {name: (out / name).read_bytes() for name in FILES if (out / name).exists()}


def check_run(out: Path, photos: Path, cache) -> None:
    """`report` accepts the run, and its numbers, results.json's and a fresh derivation's are the same."""
    run = load_runs([out])[0]  # raises (one line) if the report leaves the run out
    expected = fresh(out, photos, cache)
    stored = json.loads((out / "results.json").read_text())
    assert run.notes == [] and run.complete and expected["n_missing"] == 0 == stored["n_missing"]
    configs = [c for c in expected["metrics"] if c != "overall"]
    assert sorted(run.metrics) == sorted(configs) == sorted(c for c in stored["metrics"] if c != "overall")
    for c in configs:
        for key in ("accuracy", "n", "correct", "chance", "p_value", "strict_accuracy"):
            assert run.metrics[c][key] == pytest.approx(expected["metrics"][c][key], nan_ok=True), (c, key)
            assert stored["metrics"][c][key] == pytest.approx(expected["metrics"][c][key], nan_ok=True), (c, key)


# ------------------------------------------------------------------------------------------- the issue's sequences
@pytest.mark.parametrize("first,second", [
    (dict(configs=["order_generation"], grid="3x3"), dict()),
    (dict(configs=["order_restoration"]), dict(configs=["connection_verification"])),
])
@pytest.mark.slow
def test_the_issues_sequences_extend_the_run(tmp_path, capsys, photos, cache_dir, first, second):
    """#33.1: `--configs order_generation --grid 3x3` then every config (the hard one skipped here), and
    `--configs order_restoration` then `--configs connection_verification`, on one --out: results.json covers every
    config answered, and both eval and report accept the run after each step."""
    out = tmp_path / "run"
    for step in (first, second):
        code, err = _eval(capsys, out, photos, cache_dir, **step)
        assert code == 0, err
        check_run(out, photos, cache_dir)
    answered = {json.loads(x)["config"] for x in (out / "predictions.jsonl").read_text().splitlines()}
    stored = json.loads((out / "results.json").read_text())
    assert answered == {c for c in stored["metrics"] if c != "overall"} and len(answered) >= 2
    code, err = _eval(capsys, out, photos, cache_dir, **first)  # and back: nothing pending, nothing lost
    assert code == 0, err
    check_run(out, photos, cache_dir)


def test_a_smaller_max_items_keeps_the_answers_a_larger_one_extends(tmp_path, capsys, photos, cache_dir):
    out = tmp_path / "run"
    for k, expect in ((4, 4), (2, 4), (6, 6)):
        code, err = _eval(capsys, out, photos, cache_dir, configs=["order_restoration"], max_items=k)
        assert code == 0, err
        check_run(out, photos, cache_dir)
        assert json.loads((out / "results.json").read_text())["metrics"]["order_restoration"]["n"] == expect


def test_the_next_command_completes_a_config_an_earlier_session_left_unanswered(tmp_path, capsys, photos, cache_dir):
    """A session stopped with items unanswered (here: its last two answers lost); a later command naming another
    config answers them too, at the selection the run made (not the new --max-items), so re-running any command
    completes the run."""
    out = tmp_path / "run"
    assert _eval(capsys, out, photos, cache_dir, configs=["order_restoration"], max_items=5)[0] == 0
    kept = (out / "predictions.jsonl").read_text().splitlines()[:3]
    (out / "predictions.jsonl").write_text("\n".join(kept) + "\n")
    code, err = _eval(capsys, out, photos, cache_dir, configs=["connection_verification"], max_items=2)
    assert code == 0 and "also building order_restoration, which an earlier session selected" in err, err
    check_run(out, photos, cache_dir)
    stored = json.loads((out / "results.json").read_text())["metrics"]
    assert (stored["order_restoration"]["n"], stored["connection_verification"]["n"]) == (5, 2)


def test_a_run_from_before_manifests_gets_one_at_its_next_session(tmp_path, capsys, photos, cache_dir):
    """A run written before runs recorded their items is left out by the report (its references cannot be
    checked); its next session, whatever configs it names, records the items of every config it answered."""
    out = tmp_path / "run"
    assert _eval(capsys, out, photos, cache_dir, configs=["order_restoration"], max_items=3)[0] == 0
    (out / "items.jsonl").unlink()
    run = json.loads((out / "run.json").read_text())
    del run["items"]
    (out / "run.json").write_text(json.dumps(run))
    with pytest.raises(jp.UserError, match="no item manifest recorded in run.json"):
        load_runs([out])
    code, err = _eval(capsys, out, photos, cache_dir, configs=["anomaly_detection"], max_items=2)
    assert code == 0 and "also building order_restoration, which an earlier session selected" in err, err
    check_run(out, photos, cache_dir)
    stored = json.loads((out / "results.json").read_text())["metrics"]
    assert (stored["order_restoration"]["n"], stored["anomaly_detection"]["n"]) == (3, 2)


STEP = st.fixed_dictionaries({
    "configs": st.one_of(st.none(), st.lists(st.sampled_from(POOL), min_size=1, max_size=2, unique=True)),
    "grid": st.sampled_from([None, None, "3x3"]),
    "split": st.sampled_from(["test", "test", "lite"]),
    "max_items": st.sampled_from([None, 2, 3]),
})


@pytest.mark.slow
@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=2, max_size=4))
def test_any_sequence_of_options_extends_the_run_or_is_refused_before_any_work(tmp_path_factory, capsys, photos,
                                                                               cache_dir, steps):
    out = tmp_path_factory.mktemp("seq") / "run"
    split = None  # the run's split, once a session has written it
    for step in steps:
        if step["configs"] is None and step["grid"] is None:
            step = {**step, "configs": POOL}  # "every config" here: the CLIP one cannot be built offline
        before = _snapshot(out) if out.exists() else {}
        code, err = _eval(capsys, out, photos, cache_dir, **step)
        if split is not None and step["split"] != split:
            assert code == 2 and len(err.strip().splitlines()) == 1 and "--overwrite" in err, err
            assert _snapshot(out) == before  # refused before any work: the run is as it was
        else:
            assert code == 0, (step, err)
            split = step["split"]
        check_run(out, photos, cache_dir)
