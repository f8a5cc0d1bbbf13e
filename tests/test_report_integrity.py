"""Every number from the raw outputs (issue #32 section 3): a run directory that was tampered with is named by the
report and by `jigsaw-puzzles verify RUN_DIR`, never believed; an untouched run verifies with exit code 0.

The run is a real `eval` of the random baseline on built items; each case edits a copy of it as a tamperer would,
"re-saving" results.json to match the edited records the way the report used to derive it (stored verdicts, the
records' own references)."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from jigsaw_puzzles.cli import main
from jigsaw_puzzles.errors import UserError
from jigsaw_puzzles.inference import evaluate_model
from jigsaw_puzzles.inference.runner import stored_verdict
from jigsaw_puzzles.reporting.report import load_runs, make_report
from jigsaw_puzzles.scoring.score import aggregate

CONFIGS = ["order_restoration", "connection_verification"]


def lines(p: Path) -> list[dict]:
    return [json.loads(x) for x in (p / "predictions.jsonl").read_text().splitlines()]


def save(p: Path, recs: list[dict]) -> None:
    (p / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def resave(p: Path) -> None:
    """results.json re-saved to match the records, as the report derived it before #32: stored verdicts, the records'
    references, every record counted."""
    recs = lines(p)
    res = json.loads((p / "results.json").read_text())
    res["metrics"] = aggregate([stored_verdict(r) for r in recs], [r["answer"] for r in recs],
                               [r["config"] for r in recs])
    for c in CONFIGS:
        res["metrics"][c].update(truncated=0, empty=0)
    (p / "results.json").write_text(json.dumps(res))


def first_wrong(recs: list[dict]) -> int:
    return next(i for i, r in enumerate(recs) if not r["correct"] and r["config"] == CONFIGS[0])


@pytest.fixture(scope="module")
def base(tmp_path_factory, photo_dir, cache_dir) -> Path:
    out = tmp_path_factory.mktemp("integrity") / "base"
    evaluate_model("random", configs=CONFIGS, source=photo_dir, out=out, progress=False,
                   dataset_kwargs={"cache_dir": cache_dir})
    recs = lines(out)
    assert any(r["correct"] for r in recs) and sum(not r["correct"] for r in recs) >= 3
    return out


# ------------------------------------------------------------------------------------------------ the tamperings
def flipped(p):  # every verdict "correct", results.json re-saved: 100.00 before #32
    save(p, [{**r, "correct": True} for r in lines(p)])
    resave(p)
    return "stored correct (parsed"


def correct_no(p):  # "correct": "no" counted as correct before #32
    recs = lines(p)
    recs[first_wrong(recs)]["correct"] = "no"
    save(p, recs)
    resave(p)
    return "stored correct='no'"


def unselected(p):  # an answer to an id the run never selected raised n before #32
    recs = lines(p)
    recs.append({**recs[0], "id": f"{CONFIGS[0]}/ffffffffffffffff", "output": recs[0]["answer"], "correct": True,
                 "extracted": recs[0]["answer"]})
    save(p, recs)
    resave(p)
    return f"{CONFIGS[0]}/ffffffffffffffff: not an item the run selected"


def edited_reference(p):  # the record's reference set to what the model said, and its verdict to match
    recs = lines(p)
    w = first_wrong(recs)
    recs[w].update(answer=recs[w]["extracted"] or "A", correct=True)
    save(p, recs)
    resave(p)
    return f"{recs[w]['id']}: its record says the answer is"


def edited_manifest(p):  # a reference edited in the manifest itself
    data = (p / "items.jsonl").read_text().splitlines()
    entry = json.loads(data[0])
    entry["answer"] = "B" if entry["answer"] != "B" else "C"
    data[0] = json.dumps(entry, sort_keys=True, separators=(",", ":"))
    (p / "items.jsonl").write_text("\n".join(data) + "\n")
    return "items.jsonl does not match the sha256 run.json records for it"


def edited_output(p):  # a raw output edited to the reference after it was judged: its verdict is stale
    recs = lines(p)
    w = first_wrong(recs)
    recs[w]["output"] = recs[w]["answer"]
    save(p, recs)
    return f"{recs[w]['id']}: stored wrong"


def answered_twice(p):  # issue #44 1.1: the right answer put ahead of each wrong record: 100.00 and verified before
    recs = lines(p)
    wrong = [r for r in recs if not r["correct"]]
    first = [{**r, "output": r["answer"], "extracted": r["answer"], "status": "parsed", "correct": True}
             for r in wrong]
    save(p, first + recs)  # the genuine records are still in the file, after their duplicates
    res = json.loads((p / "results.json").read_text())  # re-saved as the first record of each id gives it
    kept = {r["id"]: r for r in reversed(first + recs)}
    res["metrics"] = aggregate([stored_verdict(r) for r in kept.values()], [r["answer"] for r in kept.values()],
                               [r["config"] for r in kept.values()])
    for c in CONFIGS:
        res["metrics"][c].update(truncated=0, empty=0)
    (p / "results.json").write_text(json.dumps(res))
    return "answered twice with different outputs"


def test_an_item_answered_twice_is_named_by_id_and_neither_answer_counts(tmp_path, capsys, base, photo_dir):
    p = tmp_path / "run"
    shutil.copytree(base, p)
    answered_twice(p)
    wrong = [r["id"] for r in lines(base) if not r["correct"]]
    assert main(["verify", str(p), "--source", str(photo_dir)]) == 1
    out = capsys.readouterr().out
    assert all(f"DIFFERS: {i}: answered twice with different outputs" in out for i in wrong)
    with pytest.raises(UserError, match=f"{len(wrong)} items answered twice with different outputs"):
        load_runs([p])
    from jigsaw_puzzles.inference.rederive import read_records

    recs = read_records(p)
    assert set(recs.twice) == set(wrong)
    save(p, lines(base) + lines(base))  # a record repeated with its own output (a shard beside its merge): one answer
    assert not read_records(p).twice


CASES = [flipped, correct_no, unselected, edited_reference, edited_manifest, edited_output, answered_twice]


@pytest.mark.slow
@pytest.mark.parametrize("tamper", CASES, ids=[f.__name__ for f in CASES])
def test_each_tampering_is_named_by_the_report_and_by_verify_with_a_nonzero_exit(tmp_path, capsys, base, photo_dir,
                                                                                 tamper):
    p = tmp_path / "run"
    shutil.copytree(base, p)
    what = tamper(p)
    code = main(["report", str(p), "--out", str(tmp_path / "rep"), "--no-plots"])
    out, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1 and what in err, err  # the run left out, saying why
    code = main(["verify", str(p), "--source", str(photo_dir)])
    out, err = capsys.readouterr()
    assert code == 1 and "DIFFERS: " in out and what.split(":")[-1].strip() in out, out
    assert "not reproduced here" in out


@pytest.mark.parametrize("tamper", [flipped, correct_no, unselected, edited_reference],
                         ids=["flipped", "correct_no", "unselected", "edited_reference"])
def test_with_results_json_left_honest_the_run_is_shown_with_re_read_figures_and_the_edit_named(tmp_path, base,
                                                                                               tamper):
    """A stored verdict that disagrees is ignored (the re-read one counts), an unselected id is never counted, an
    edited reference is not believed: the figures are the untouched run's, and a note names what was edited."""
    p = tmp_path / "run"
    shutil.copytree(base, p)
    honest = (base / "results.json").read_text()
    what = tamper(p)
    (p / "results.json").write_text(honest)
    rep = make_report([p], out=None, stream=None)
    row = next(r for r in rep["rows"] if r["name"] == "random")
    assert not rep["left_out"]
    for c in CONFIGS:
        assert row[c] == json.loads(honest)["metrics"][c]["accuracy"]
    assert what in rep["markdown"]


def test_an_edited_manifest_with_its_digest_re_recorded_passes_the_report_but_not_verify(tmp_path, capsys, base,
                                                                                      photo_dir):
    """The report trusts the manifest as far as its digest; verify rebuilds the items and names the edited one."""
    p = tmp_path / "run"
    shutil.copytree(base, p)
    edited_manifest(p)
    run = json.loads((p / "run.json").read_text())
    data = (p / "items.jsonl").read_bytes()
    run["items"].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    (p / "run.json").write_text(json.dumps(run))
    assert main(["verify", str(p), "--source", str(photo_dir)]) == 1
    out = capsys.readouterr().out
    assert "the manifest's answer" in out and "is not the item's" in out


def test_an_untouched_run_verifies_with_exit_0_and_reports_without_notes(tmp_path, capsys, base, photo_dir):
    p = tmp_path / "run"
    shutil.copytree(base, p)
    assert main(["verify", str(p), "--source", str(photo_dir)]) == 0
    out = capsys.readouterr().out
    assert "every item, verdict and number of the run is reproduced here" in out
    assert all(f"{c:34s} 16 items identical to the manifest" in out for c in CONFIGS)
    assert load_runs([p])[0].notes == []  # reported, with nothing to say about it


# ------------------------------------------------------------------------------------------------ user errors
def test_verify_user_errors_are_one_line_and_exit_2(tmp_path, capsys, base):
    def one_line(argv) -> str:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
        return err

    assert "is not a folder" in one_line(["verify", str(tmp_path / "nope")])
    p = tmp_path / "run"
    shutil.copytree(base, p)
    run = json.loads((p / "run.json").read_text())
    (p / "run.json").write_text(json.dumps({**run, "source": str(tmp_path / "gone")}))
    assert "which is not here: pass the same photos with --source DIR" in one_line(["verify", str(p)])
    for made in run["items"]["configs"].values():
        made["generator_version"] = "0.9.0"
    (p / "run.json").write_text(json.dumps(run))
    assert "made by generator 0.9.0" in one_line(["verify", str(p)])
    for made in run["items"]["configs"].values():
        made.update(generator_version=json.loads((base / "run.json").read_text())["items"]["configs"][CONFIGS[0]]
                    ["generator_version"], built=False)
    (p / "run.json").write_text(json.dumps(run))
    assert "were given as datasets" in one_line(["verify", str(p)])


def test_a_run_records_the_versions_that_shape_items_and_both_say_when_they_differ(tmp_path, capsys, base, photo_dir):
    from jigsaw_puzzles.generation.versions import item_versions

    run = json.loads((base / "run.json").read_text())
    assert all(m["versions"] == item_versions([c]) for c, m in run["items"]["configs"].items())
    assert set(item_versions(CONFIGS)) == {"pillow", "libjpeg", "zlib", "numpy"}
    assert {"torch", "open_clip"} <= set(item_versions(["missing_piece_selection_hard"]))
    p = tmp_path / "run"
    shutil.copytree(base, p)
    run["items"]["configs"][CONFIGS[0]]["versions"]["pillow"] = "11.0.0"
    (p / "run.json").write_text(json.dumps(run))
    assert main(["verify", str(p), "--source", str(photo_dir)]) == 0
    assert f"pillow 11.0.0 there, {item_versions()['pillow']} here" in capsys.readouterr().out
    md = make_report([p], out=None, stream=None)["markdown"]
    assert f"pillow 11.0.0 there, {item_versions()['pillow']} here" in md


def test_a_run_without_a_manifest_is_left_out_saying_why(tmp_path, base):
    p = tmp_path / "run"
    shutil.copytree(base, p)
    (p / "items.jsonl").unlink()
    rep = make_report([p, base], out=None, stream=None)
    assert rep["left_out"] and "items.jsonl: missing" in rep["left_out"][0][1]
    run = json.loads((p / "run.json").read_text())
    del run["items"]
    (p / "run.json").write_text(json.dumps(run))
    rep = make_report([p, base], out=None, stream=None)
    assert "no item manifest recorded in run.json" in rep["left_out"][0][1]


def test_the_report_lists_why_answers_went_unread(tmp_path, base, photo_dir, cache_dir):
    """Issue #43 section 4: a run's most frequent reasons the reader left outputs unread, with their counts."""
    run = tmp_path / "run"
    shutil.copytree(base, run)
    recs = lines(run)
    said = ["I cannot see the images.", "Maybe A, or maybe B.", "I cannot see the images."]
    for rec, text in zip(recs, said):
        rec["output"] = text
    save(run, recs)
    evaluate_model("random", configs=CONFIGS, source=photo_dir, out=run, progress=False,
                   dataset_kwargs={"cache_dir": cache_dir})  # results.json read again from the outputs
    (summary,) = load_runs([run])
    reasons = summary.unread
    assert sum(reasons.values()) == 3 and max(reasons.values()) == 2, reasons
    md = make_report([run], out=None, plots=False, stream=None)["markdown"]
    section = md.split("### Why answers went unread", 1)[1]
    top = max(reasons, key=reasons.get)
    assert f"{summary.name}: 3 unread; 2 × {top}; 1 × " in section.splitlines()[2], section
