"""What a resolution of an unread output may claim (issue #46), on generated cases: a judge's reading only with a
span of the output that reads as its answer; the figures never touch the reader's headline and count every unread
output once; a resolution made for another output is void and named; ``verify`` and ``report`` name what does not
belong; the card and the report show each way beside the headline, labelled; rewards stay the reader's.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from jigsaw_puzzles.inference.rederive import Records, rederive  # noqa: E402
from jigsaw_puzzles.inference.resolutions import output_digest  # noqa: E402
from jigsaw_puzzles.inference.resolve_prompts import (JUDGE_PROMPT, RESTATE_PROMPT, read_judge_reply,  # noqa: E402
                                                      read_restatement)
from jigsaw_puzzles.scoring.extraction import classify_response  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIG = "piece_localization_hard"
WORDS = ["The answer is", "I choose", "Either", "or", "maybe", "not", "A", "B", "C", "D", "E", "Answer:", ".", ",",
         "\n", "looking at the seams", "wait", "actually", "the masked area", "(C)", "**B**", "[1, 2, 3, 4]",
         "The answer is B.", "I choose C", "Final answer: D", "the answer is A"]
text = st.lists(st.sampled_from(WORDS), max_size=14).map(" ".join)
outputs = st.lists(st.sampled_from(WORDS), min_size=1, max_size=14).map(" ".join)


@st.composite
def replies(draw, output: str):
    """A judge's reply about ``output``: a quote (a piece of the output, or other words, or none) and an answer."""
    words = output.split(" ")
    how = draw(st.integers(0, 3))
    if output and how == 0:  # any piece of the output
        i = draw(st.integers(0, len(output) - 1))
        quote = output[i:draw(st.integers(i, len(output)))]
    elif output and how in (1, 2):  # a run of its words, as a judge quotes
        i = draw(st.integers(0, len(words) - 1))
        quote = " ".join(words[i:draw(st.integers(i + 1, len(words)))])
    else:
        quote = draw(st.one_of(text, st.just("")))
    named = [w for w in re.findall(r"[A-E]", quote)]
    answer = draw(st.one_of(st.sampled_from(named or ["A"]), st.sampled_from(named or ["A"]),
                            st.sampled_from(list("ABCDE") + ["NONE", "Answer: B", "[2, 1, 3, 4]", "b", ""]), text))
    form = draw(st.sampled_from(["{q}\n{a}", "<quote>{q}</quote>\n{a}", "<quote>{q}</quote>\n{a}",
                                 "<quote>{q}</quote>\n{a}", "<quote>{q}</quote>{a}",
                                 "<quote>{q}</quote>\n<quote>{q}</quote>\n{a}", "<think>x</think><quote>{q}</quote> {a}"]))
    return form.replace("{q}", quote).replace("{a}", answer) if "<quote>" in form else f"{quote}\n{answer}"


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), output=outputs)
def test_a_judge_reading_stands_only_on_a_span_of_the_output_that_reads_as_its_answer(data, output):
    reply = data.draw(replies(output))
    status, answer, span, reason = read_judge_reply(reply, output, CONFIG)
    assert status in ("read", "no_answer", "refused")
    if status == "read":
        said = classify_response(span, CONFIG)
        assert span and span in output and answer in "ABCD" and len(answer) == 1 and not reason
        assert (said.status == "parsed" and said.answer == answer) or said.strict == answer
        assert classify_response(reply.split("</quote>", 1)[1], CONFIG).strict == answer
    elif status == "no_answer":
        assert answer is None and reply.split("</quote>", 1)[1].strip() == "NONE" and \
            re.search(r"<quote>\s*</quote>", reply)  # an empty quote, blanks aside
    else:
        assert answer is None and reason


@settings(max_examples=200, deadline=None)
@given(restatement=st.one_of(text, st.sampled_from(["B", "Answer: C", " D ", "b", "E", "B.", "I say B"])))
def test_a_restatement_counts_only_in_the_exact_format(restatement):
    status, answer, reason = read_restatement(restatement, CONFIG)
    strict = classify_response(restatement, CONFIG).strict
    assert (status, answer) == (("read", strict) if strict else ("refused", None))


# ------------------------------------------------------------------------------------------- the figures
OUTPUTS = ["A", "B", "C", "D", "Either A or C; I cannot tell.", "Hmm.", "", "E"]


@st.composite
def runs(draw):
    """Items (outputs and references) of one config and resolution lines about them, some made for other outputs,
    some errors, several people."""
    n = draw(st.integers(1, 12))
    outputs = [draw(st.sampled_from(OUTPUTS)) for _ in range(n)]
    refs = [draw(st.sampled_from("ABCD")) for _ in range(n)]
    ids = [f"{CONFIG}/{k:04x}" for k in range(n)]
    lines = []
    for _ in range(draw(st.integers(0, 20))):
        k = draw(st.integers(0, n - 1))
        way = draw(st.sampled_from(["restate", "judge", "person"]))
        digest = output_digest(outputs[k]) if draw(st.integers(0, 5)) else output_digest(outputs[k] + " (edited)")
        rec = {"id": ids[k], "config": CONFIG, "way": way, "output_sha256": digest}
        if draw(st.integers(0, 6)) == 0:
            rec.update(status="error", answer=None, error="timed out")
        elif way == "restate":
            rec["restatement"] = draw(st.sampled_from(["A", "B", "C", "maybe C", "E"]))
            rec["status"], rec["answer"], _ = read_restatement(rec["restatement"], CONFIG)
        elif way == "judge":
            rec["reply"] = draw(replies(outputs[k]))
            rec["status"], rec["answer"], rec["span"], _ = read_judge_reply(rec["reply"], outputs[k], CONFIG)
        else:
            answer = draw(st.sampled_from(["A", "B", "C", None]))
            rec.update(name=draw(st.sampled_from(["Ada", "Bo"])), status="read" if answer else "no_answer",
                       answer=answer)
        if draw(st.integers(0, 9)) == 0:  # a stored reading its raw text does not give
            rec.update(status="read", answer="D")
        lines.append(rec)
    return ids, outputs, refs, lines


def _derive(ids, outputs, refs, lines):
    entries = {i: {"config": CONFIG, "answer": r, "options": None} for i, r in zip(ids, refs)}
    records = Records({i: {"id": i, "config": CONFIG, "output": o, "answer": r} for i, o, r in zip(ids, outputs, refs)},
                      set(), resolutions=list(lines))
    return rederive(entries, records)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=runs())
def test_resolved_figures_keep_the_headline_and_count_every_unread_output_once(case):
    ids, outputs, refs, lines = case
    rd = _derive(ids, outputs, refs, lines)
    plain = _derive(ids, outputs, refs, [])
    assert json.dumps(rd.metrics(), sort_keys=True) == json.dumps(plain.metrics(), sort_keys=True)  # the headline
    fair = [r for r in lines if r["output_sha256"] == output_digest(outputs[ids.index(r["id"])])]
    assert len(rd.of("void")) == len(lines) - len(fair)
    assert _derive(ids, outputs, refs, fair).resolved == rd.resolved  # a void line never counts
    unread = [k for k, (ex, _) in enumerate(rd.items) if ex.status != "parsed"]
    reader_right = sum(ok for _, ok in rd.items)
    for way, figures in rd.resolved.items():
        if way == "agreement":
            for pair in figures:
                assert 0 <= pair["agree"] <= pair["both"] <= len(unread)
            continue
        f = figures[CONFIG]
        assert f["unread"] == len(unread) and f["n"] == len(ids)
        assert f["read"] + f["still_unread"] == f["unread"]
        assert f["read"] + f["no_answer"] + f["refused"] + f["errors"] + f["not_asked"] + f.get("disputed", 0) \
            == f["unread"]
        assert 0 <= f["read_correct"] <= f["read"]
        assert f["correct"] == reader_right + f["read_correct"]
        assert f["accuracy"] == pytest.approx(100 * f["correct"] / len(ids))
        assert f["ci_low"] <= f["accuracy"] <= f["ci_high"]
    if "combined" in rd.resolved:
        decided = rd.resolved["combined"]["overall"]["decided_by"]
        assert sum(decided.values()) <= len(unread)
    for rec in fair:  # a stored reading its raw text does not give is named, and the re-reading counts
        if rec["status"] == "read" and rec["answer"] == "D" and rec.get("error") is None:
            raw = rec.get("restatement", rec.get("reply"))
            if raw is not None and rec["way"] != "person":
                reread = read_restatement(raw, CONFIG)[1] if rec["way"] == "restate" else \
                    read_judge_reply(raw, outputs[ids.index(rec["id"])], CONFIG)[1]
                if reread != "D":
                    assert any(f.item == rec["id"] for f in rd.of("resolution"))


def test_people_who_disagree_leave_the_output_disputed():
    ids, outputs, refs = [f"{CONFIG}/0001"], ["Either A or C; I cannot tell."], ["A"]
    line = {"id": ids[0], "config": CONFIG, "way": "person", "output_sha256": output_digest(outputs[0]),
            "status": "read"}
    rd = _derive(ids, outputs, refs, [{**line, "name": "Ada", "answer": "A"}, {**line, "name": "Bo", "answer": "C"}])
    f = rd.resolved["person"][CONFIG]
    assert f["disputed"] == 1 and f["read"] == 0 and f["accuracy"] == 0
    rd = _derive(ids, outputs, refs, [{**line, "name": "Ada", "answer": "A"}, {**line, "name": "Bo", "answer": "A"}])
    assert rd.resolved["person"][CONFIG]["read"] == 1 and rd.resolved["person"][CONFIG]["accuracy"] == 100


# ------------------------------------------------------------------------------------------- docs and faces
def test_the_published_prompts_are_the_code_s():
    doc = (ROOT / "docs" / "evaluation.md").read_text(encoding="utf-8")
    assert RESTATE_PROMPT in doc
    block = re.search(r"<!-- judge-prompt -->\n```text\n(.*?)\n```", doc, re.S)
    assert block and block.group(1) == JUDGE_PROMPT


def test_the_card_shows_each_way_beside_the_headline():
    from jigsaw_puzzles.publishing.card import _results_table

    figures = {"accuracy": 50.0, "read": 3, "still_unread": 1, "unread": 4}
    res = {CONFIG: {"accuracy": 25.0, "n": 8, "chance": 25.0, "critical_value": 50.0},
           "resolved": {"judge": {CONFIG: figures, "overall": {**figures, "tasks": 1}}}}
    table = _results_table([CONFIG], {"m": res})
    assert "| m | 25.00 |" in table  # the headline, unchanged
    assert "| m, judged (3 of 4 unread read) | 50.00 (3 read, 1 unread) |" in table


def test_rewards_never_reach_a_judge():
    """RL rewards read by the reader alone: no reward module imports the judge, the restate pass or the endpoint."""
    from test_architecture import GRAPH

    faces = [m for m in GRAPH if m.startswith(("jigsaw_puzzles.training", "jigsaw_puzzles.interactive"))
             or m in ("jigsaw_puzzles.integrations.verl", "jigsaw_puzzles.integrations.verifiers_env")]
    banned = {"jigsaw_puzzles.inference.judge", "jigsaw_puzzles.inference.resolve",
              "jigsaw_puzzles.inference.openai_backend"}

    def reach(mod, seen):
        for t in GRAPH.get(mod, ()):
            if t not in seen:
                seen.add(t)
                reach(t, seen)
        return seen

    assert faces and not [(m, sorted(reach(m, set()) & banned)) for m in faces if reach(m, set()) & banned]


# ------------------------------------------------------------------------------------------- verify and report
@pytest.mark.slow
def test_verify_and_report_name_a_resolution_that_does_not_belong_to_its_output(tmp_path, capsys):
    from fixtures.stubs import chat_handler, last_text, local_server
    from jigsaw_puzzles.cli import main
    from jigsaw_puzzles.inference import evaluate_model
    from test_resolve import HEDGE, OUTPUT, SPAN, ANSWER

    said = iter(range(10 ** 6))
    first = [OUTPUT, HEDGE, "B"]

    def model(body):
        return first[next(said) % 3] if len(body["messages"]) == 1 else "B"

    def judge(body):
        prompt = last_text(body)
        return f"<quote>{SPAN}</quote>\n{ANSWER}" if OUTPUT in prompt else "<quote></quote>\nNONE"

    run = tmp_path / "run"
    with local_server(chat_handler(model)) as url, local_server(chat_handler(judge)) as jurl:
        res = evaluate_model("m", api_base=url, split="lite", configs=[CONFIG], max_items=3, out=run, batch_size=1,
                             progress=False, restate=True, judge="j", judge_kwargs={"api_base": jurl})
    assert res["resolved"]["judge"][CONFIG]["read"] == 1 and res["resolved"]["restate"][CONFIG]["read"] == 2
    assert main(["verify", str(run)]) == 0
    out = capsys.readouterr().out
    assert "every item, verdict and number of the run is reproduced here" in out
    assert re.search(r"\b4 resolutions of unread outputs \(resolutions.jsonl\) read again", out)

    preds = run / "predictions.jsonl"  # the hedge edited (still unread): its restatement and judging are void
    recs = [json.loads(x) for x in preds.read_text().splitlines()]
    hedged = next(r["id"] for r in recs if r["output"] == HEDGE)
    preds.write_text("".join(json.dumps({**r, "output": r["output"].replace("tell.", "tell!")}) + "\n"
                             for r in recs))
    lines = [json.loads(x) for x in (run / "resolutions.jsonl").read_text().splitlines()]
    spanned = next(r["id"] for r in lines if r["way"] == "judge" and r["status"] == "read")
    (run / "resolutions.jsonl").write_text("".join(json.dumps(
        {**r, "reply": r["reply"].replace(SPAN, SPAN + " surely"), "span": SPAN + " surely"}
        if r["way"] == "judge" and r["id"] == spanned else r) + "\n" for r in lines))
    assert main(["verify", str(run)]) == 1
    out = capsys.readouterr().out
    assert re.search(rf"DIFFERS: {re.escape(hedged)}: its restate resolution was made for another output", out)
    assert re.search(rf"DIFFERS: {re.escape(hedged)}: its judge resolution was made for another output", out)
    assert re.search(rf"DIFFERS: {re.escape(spanned)}: its judge resolution says '{ANSWER}'; its raw text reads "
                     r"refused \(the quoted words do not occur verbatim in the output\)", out)
    assert "resolved.restate" in out  # results.json's resolved figures no longer the outputs'
    assert main(["report", str(run), "--out", str(tmp_path / "report"), "--no-plots"]) == 0
    md = (tmp_path / "report" / "report.md").read_text()
    assert "resolutions of unread outputs made for another output" in md and hedged in md
    assert "· restated:" in md and "### Unread answers resolved" in md


def test_the_cost_benchmark_runs_as_performance_md_says():
    """benchmarks/resolve.py (its figures: docs/performance.md#unread-answers) on a few items: a restatement sends
    the images again, a judge request none."""
    import subprocess

    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "resolve.py"), "--items", "4", "--repeat", "1",
                          "--size", "192x144", "--json"], capture_output=True, text=True, timeout=600,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT / "src")})
    assert out.returncode == 0, out.stderr[-2000:]
    passes = json.loads(out.stdout)["passes"]
    assert [passes[p]["requests"] for p in ("first pass", "--restate", "--judge")] == [4, 4, 4]
    assert passes["--restate"]["bytes_vs_first"] > 0.99 and passes["--judge"]["bytes_vs_first"] < 0.2
    assert passes["--restate"]["text_chars_per_output"] > passes["first pass"]["text_chars_per_output"]
