"""Unread outputs resolved in the open (issue #46): ``eval --restate`` and ``eval --judge`` against stub endpoints on
127.0.0.1 (an honest judge, one that lies about its span, one answering outside the options, one naming another
answer than its quote, one that times out: each refused and recorded, never a guess), the local transformers judge
on a tiny random-init causal LM, restate on the transformers (tiny Qwen2-VL) and vLLM (mocked) backends, and the
figures they give beside the reader's headline.
"""
from __future__ import annotations

import hashlib
import json
import sys
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.rows import make_dataset  # noqa: E402
from fixtures.stubs import chat_handler, last_text, local_server  # noqa: E402
from jigsaw_puzzles.inference import evaluate_model  # noqa: E402
from jigsaw_puzzles.inference.rundir import read_predictions  # noqa: E402
from jigsaw_puzzles.inference.resolutions import read_resolutions  # noqa: E402
from jigsaw_puzzles.inference.resolve_prompts import JUDGE_PROMPT, RESTATE_PROMPT, restate_prompt  # noqa: E402
from jigsaw_puzzles.scoring.extraction import classify_response  # noqa: E402

CONFIG = "piece_localization_hard"
HEDGE = "Either A or C; I cannot tell."  # no single answer: unread by any reader
# outputs the reader leaves unread that hold words reading as one answer (the first the reader leaves unread is used)
SPANNED = [("The answer is C. Wait, re-checking the seams, the answer is B.", "the answer is B", "B"),
           ("After comparing all four candidates, I choose C.", "I choose C", "C"),
           ("Looking at the edges, the answer is C.", "the answer is C", "C"),
           ("The patch matches masked area C.", "masked area C", "C"),
           ("My vote goes to C, the texture is a match.", "My vote goes to C", "C"),
           ("My vote goes to C; honestly, the texture there is what sold me.", "My vote goes to C", "C")]


def _spanned():
    for output, span, answer in SPANNED:
        if classify_response(output, CONFIG).status != "parsed" and classify_response(span, CONFIG).answer == answer:
            return output, span, answer
    pytest.fail("the reader now reads every output of SPANNED: add one it leaves unread")


OUTPUT, SPAN, ANSWER = _spanned()
OUTPUTS = [OUTPUT, HEDGE, "B"]  # unread with a span, unread without an answer, read


def _slot(body) -> int:
    """Which of OUTPUTS an item gets: from its first image's bytes (every question of a config is one template)."""
    url = body["messages"][0]["content"][0]["image_url"]["url"]
    return int.from_bytes(hashlib.sha256(url.encode()).digest()[:4], "big") % len(OUTPUTS)


def model_reply(body):
    """The evaluated model: OUTPUTS on the first turn; on the restate turn "B" or, for half the items, a sentence."""
    if len(body["messages"]) == 1:
        return OUTPUTS[_slot(body)]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    url = body["messages"][0]["content"][0]["image_url"]["url"]
    return "B" if int.from_bytes(hashlib.sha256(url.encode()).digest()[4:8], "big") % 2 else "I would say B."


def judged_output(body) -> str:
    prompt = last_text(body)
    return prompt.split("----------\n")[1][:-1]


def honest(body):
    return f"<quote>{SPAN}</quote>\n{ANSWER}" if judged_output(body) == OUTPUT else "<quote></quote>\nNONE"


JUDGES = {  # name: (reply, expected status of OUTPUT's reading, words of the reason)
    "liar": (lambda body: "<quote>I am certain it is D</quote>\nD", "refused", "do not occur verbatim"),
    "outside": (lambda body: f"<quote>{SPAN}</quote>\nE", "refused", "not an answer of this task"),
    "misnamed": (lambda body: f"<quote>{SPAN}</quote>\n{'A' if ANSWER != 'A' else 'D'}", "refused",
                 "do not name the answer"),
    "no quote": (lambda body: ANSWER, "refused", "no <quote>"),
}


@pytest.fixture(scope="module")
def data():
    return {CONFIG: make_dataset(CONFIG, 12, size=(72, 72))}


@pytest.fixture
def model_server():
    handler = chat_handler(model_reply)
    with local_server(handler) as url:
        yield url, handler


def _run(url, data, out, **kw):
    return evaluate_model("m", api_base=url, data=data, out=out, progress=False, batch_size=2,
                          backend_kwargs={"retry_base_delay": 0.01}, **kw)


def _lines(out, way=None):
    return [r for r in read_resolutions(out) if way is None or r["way"] == way]


def test_restate_is_one_more_turn_read_strictly_stored_beside_and_resumed(tmp_path, data, model_server):
    url, handler = model_server
    plain = _run(url, data, tmp_path / "plain")
    first = len(handler.bodies)
    res = _run(url, data, tmp_path / "run", restate=True)
    recs = {r["id"]: r for r in read_predictions(tmp_path / "run" / "predictions.jsonl")}
    unread = {i for i, r in recs.items() if r["status"] != "parsed"}
    assert unread and len(unread) < len(recs)  # read outputs are never asked again
    asked = handler.bodies[2 * first:]
    assert len(asked) == len(unread)
    for body in asked:  # the item's conversation as first sent, the output as the assistant's, then the ask
        user, assistant, turn = body["messages"]
        assert [p["type"] for p in user["content"]] == ["image_url", "image_url", "text"]
        assert assistant["content"][0]["text"] in (OUTPUT, HEDGE)
        assert turn["content"][0]["text"] == restate_prompt(CONFIG) == RESTATE_PROMPT.format(
            format="the question asks for (one letter: A, B, C or D)")
    lines = _lines(tmp_path / "run", "restate")
    assert {r["id"] for r in lines} == unread and len(lines) == len(unread)
    for r in lines:  # the strict reader alone: "B" is read, "I would say B." is not
        assert r["output_sha256"] == hashlib.sha256(recs[r["id"]]["output"].encode()).hexdigest()
        assert (r["status"], r["answer"]) == (("read", "B") if r["restatement"] == "B" else ("refused", None))
        assert r["prompt"] == restate_prompt(CONFIG) and r["model"] == "m" and r["prompt_version"] == 1
    # never replacing the first output; the headline is the plain run's
    assert {i: r["output"] for i, r in recs.items()} == {r["id"]: r["output"] for r in
                                                         read_predictions(tmp_path / "plain" / "predictions.jsonl")}
    assert res["metrics"] == plain["metrics"] and "resolved" not in plain
    refs = {row["id"]: row["answer"] for row in data[CONFIG]}
    fig = res["resolved"]["restate"][CONFIG]
    read = [r for r in lines if r["status"] == "read"]
    right = sum(1 for r in recs.values() if r["correct"]) + sum(r["answer"] == refs[r["id"]] for r in read)
    assert fig["unread"] == len(unread) and fig["read"] == len(read) and fig["still_unread"] == len(unread) - len(read)
    assert fig["accuracy"] == pytest.approx(100 * right / len(recs)) and fig["refused"] == len(unread) - len(read)
    n = len(handler.bodies)
    again = _run(url, data, tmp_path / "run", restate=True)  # resumed: nothing asked twice, the same figures
    assert len(handler.bodies) == n and again["resolved"] == res["resolved"]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["sessions"][-2]["restate"]["asked"] == len(unread) and run["sessions"][-1]["restate"]["asked"] == 0


def test_a_restate_that_fails_is_recorded_and_asked_again_on_resume(tmp_path, data):
    failing = {"on": True}

    def reply(body):
        if len(body["messages"]) == 3 and failing["on"]:
            return 422  # e.g. a context too long for the second turn: an error on that output, not an answer
        return model_reply(body)

    handler = chat_handler(reply)
    with local_server(handler) as url:
        _run(url, data, tmp_path / "run")
        res = _run(url, data, tmp_path / "run", restate=True)
        errored = _lines(tmp_path / "run", "restate")
        assert errored and all(r["status"] == "error" and "HTTP 422" in r["error"] for r in errored)
        assert res["resolved"]["restate"][CONFIG]["errors"] == len(errored)
        assert res["resolved"]["restate"][CONFIG]["read"] == 0
        failing["on"] = False
        res = _run(url, data, tmp_path / "run", restate=True)
    again = _lines(tmp_path / "run", "restate")[len(errored):]
    assert {r["id"] for r in again} == {r["id"] for r in errored}
    assert res["resolved"]["restate"][CONFIG]["errors"] == 0


def test_an_honest_judge_is_read_with_its_span_and_everything_is_recorded(tmp_path, data, model_server):
    url, _ = model_server
    judge = chat_handler(honest)
    with local_server(judge) as jurl:
        res = _run(url, data, tmp_path / "run", judge="judge-m", judge_kwargs={"api_base": jurl})
    recs = {r["id"]: r for r in read_predictions(tmp_path / "run" / "predictions.jsonl")}
    lines = {r["id"]: r for r in _lines(tmp_path / "run", "judge")}
    assert set(lines) == {i for i, r in recs.items() if r["status"] != "parsed"}
    for rid, r in lines.items():
        output = recs[rid]["output"]
        assert r["judge"] == "judge-m" and r["judge_backend"] == "openai" and r["api_base"] == jurl
        assert r["prompt"] == JUDGE_PROMPT.format(format="one letter: A, B, C or D", written="as the letter alone",
                                                  options="\nThe options are the letters A, B, C, D.", output=output)
        assert r["reply"] == (f"<quote>{SPAN}</quote>\n{ANSWER}" if output == OUTPUT else "<quote></quote>\nNONE")
        if output == OUTPUT:
            assert (r["status"], r["answer"], r["span"]) == ("read", ANSWER, SPAN) and SPAN in output
        else:
            assert (r["status"], r["answer"]) == ("no_answer", None)
    assert all(judged_output(body) in (OUTPUT, HEDGE) for body in judge.bodies)  # a read output is never sent
    fig = res["resolved"]["judge"][CONFIG]
    assert fig["read"] == sum(recs[i]["output"] == OUTPUT for i in lines)
    assert fig["no_answer"] == sum(recs[i]["output"] == HEDGE for i in lines) == fig["still_unread"]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["sessions"][-1]["judge"]["judge"]["model"] == "judge-m" and "api_key" not in \
        run["sessions"][-1]["judge"]["judge"]


@pytest.mark.parametrize("name", list(JUDGES))
def test_a_judge_that_lies_answers_outside_or_misnames_is_refused_and_recorded(tmp_path, data, model_server, name):
    url, _ = model_server
    reply, status, reason = JUDGES[name]
    with local_server(chat_handler(reply)) as jurl:
        res = _run(url, data, tmp_path / "run", judge="j", judge_kwargs={"api_base": jurl})
    recs = {r["id"]: r for r in read_predictions(tmp_path / "run" / "predictions.jsonl")}
    lines = _lines(tmp_path / "run", "judge")
    assert lines and all(r["reply"] == reply(None) for r in lines)
    for r in lines:  # (the quote of OUTPUT is not in a HEDGE output either: refused for that)
        assert r["status"] == status and r["answer"] is None and r["reason"], r
        assert reason in r["reason"] or recs[r["id"]]["output"] != OUTPUT, r
    fig = res["resolved"]["judge"][CONFIG]  # never a guess: every unread output stays unread
    assert fig["read"] == 0 and fig["refused"] == fig["unread"] == fig["still_unread"] == len(lines)
    assert fig["accuracy"] == res["metrics"][CONFIG]["accuracy"]
    assert sum(r["status"] != "parsed" for r in recs.values()) == len(lines)


def test_a_judge_that_times_out_is_an_error_recorded_then_asked_again(tmp_path, data, model_server):
    url, _ = model_server
    with local_server(chat_handler(lambda body: None, hang=2.0)) as jurl:
        res = _run(url, data, tmp_path / "run", judge="j",
                   judge_kwargs={"api_base": jurl, "timeout": 0.3, "max_retries": 0})
    lines = _lines(tmp_path / "run", "judge")
    assert lines and all(r["status"] == "error" and "timed out" in r["error"] and r["answer"] is None for r in lines)
    fig = res["resolved"]["judge"][CONFIG]
    assert fig["errors"] == fig["still_unread"] == len(lines) and fig["read"] == 0
    judge = chat_handler(honest)
    with local_server(judge) as jurl:  # the same command later: the errored outputs are asked again
        res = _run(url, data, tmp_path / "run", judge="j", judge_kwargs={"api_base": jurl})
    assert len(judge.bodies) == len(lines)
    assert res["resolved"]["judge"][CONFIG]["errors"] == 0 and res["resolved"]["judge"][CONFIG]["read"] > 0


def test_restate_and_judge_together_give_combined_figures_and_agreement(tmp_path, data, model_server):
    url, _ = model_server
    with local_server(chat_handler(honest)) as jurl:
        res = _run(url, data, tmp_path / "run", restate=True, judge="j", judge_kwargs={"api_base": jurl})
    resolved = res["resolved"]
    assert set(resolved) == {"restate", "judge", "combined", "agreement"}
    lines = _lines(tmp_path / "run")
    by = {(r["way"], r["id"]): r for r in lines}
    both = [i for (w, i) in by if w == "judge" and by[("judge", i)]["status"] in ("read", "no_answer")
            and by.get(("restate", i), {}).get("status") in ("read", "no_answer")]
    agree = sum(by[("judge", i)]["answer"] == by[("restate", i)]["answer"] for i in both)
    assert resolved["agreement"] == [{"ways": ["restate", "judge"], "both": len(both), "agree": agree}]
    decided = resolved["combined"]["overall"]["decided_by"]
    assert decided["judge"] == sum(r["status"] in ("read", "no_answer") for r in lines if r["way"] == "judge")
    assert decided["judge"] + decided["restate"] <= resolved["combined"]["overall"]["unread"]


def test_judge_and_restate_flags_are_checked_before_anything_is_written(tmp_path, data, capsys, monkeypatch):
    from jigsaw_puzzles.cli import main
    from jigsaw_puzzles.errors import UserError

    with pytest.raises(UserError, match="judge_kwargs are given without a judge"):
        evaluate_model("solver", data=data, out=tmp_path / "a", judge_kwargs={"timeout": 3})
    with pytest.raises(UserError, match="unknown key"):
        evaluate_model("solver", data=data, out=tmp_path / "a", judge="j", judge_kwargs={"temperature": 3})
    with pytest.raises(UserError, match="nothing answers"):  # a dead judge endpoint: seconds, not after the run
        evaluate_model("solver", data=data, out=tmp_path / "a", judge="j",
                       judge_kwargs={"api_base": "http://127.0.0.1:9/v1"})
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(UserError, match="no endpoint to ask it at"):  # never a guess at an endpoint either
        evaluate_model("solver", data=data, out=tmp_path / "a", judge="gpt-judge")
    assert not (tmp_path / "a").exists()
    assert main(["eval", "--model", "solver", "--judge-api-base", "http://127.0.0.1:9/v1", "--out",
                 str(tmp_path / "b")]) == 2
    assert "without --judge MODEL" in capsys.readouterr().err and not (tmp_path / "b").exists()


def test_an_empty_output_is_never_asked_again(tmp_path, data):
    """An empty output states nothing: a "restatement" would be a first answer, a judge would read nothing."""
    handler = chat_handler(lambda body: "" if len(body["messages"]) == 1 else "B")
    with local_server(handler) as url, local_server(chat_handler(honest)) as jurl:
        res = _run(url, data, tmp_path / "run", restate=True, judge="j", judge_kwargs={"api_base": jurl})
    assert len(handler.bodies) == len(data[CONFIG]) and "resolved" not in res
    session = json.loads((tmp_path / "run" / "run.json").read_text())["sessions"][-1]
    assert session["restate"]["asked"] == session["judge"]["asked"] == 0


def test_the_builtin_baselines_leave_nothing_to_resolve(tmp_path, data):
    res = evaluate_model("solver", data=data, out=tmp_path / "run", progress=False, restate=True)
    assert "resolved" not in res and not (tmp_path / "run" / "resolutions.jsonl").exists()
    assert json.loads((tmp_path / "run" / "run.json").read_text())["sessions"][-1]["restate"]["asked"] == 0


# ============================================================================================== other backends
@pytest.mark.slow
def test_the_local_judge_runs_a_transformers_causal_lm(tmp_path, model_server):
    pytest.importorskip("transformers")
    from _tiny_vlm import build_tiny_lm

    judge = build_tiny_lm(tmp_path / "tiny-judge")
    url, _ = model_server
    data = {CONFIG: make_dataset(CONFIG, 5, size=(72, 72))}
    res = _run(url, data, tmp_path / "run", judge=str(judge), judge_kwargs={"max_new_tokens": 12, "concurrency": 3})
    recs = {r["id"]: r for r in read_predictions(tmp_path / "run" / "predictions.jsonl")}
    lines = _lines(tmp_path / "run", "judge")
    assert {r["id"] for r in lines} == {i for i, r in recs.items() if r["status"] != "parsed"}
    for r in lines:  # a random model's reply is recorded raw and read like any judge's
        assert r["judge_backend"] == "transformers" and r["api_base"] is None and isinstance(r["reply"], str)
        assert 1 <= r["completion_tokens"] <= 12 and r["prompt_tokens"] > 100
        assert r["status"] in ("refused", "read", "no_answer")
        if r["status"] == "read":
            assert r["span"] in recs[r["id"]]["output"]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["sessions"][-1]["judge"]["judge_info"]["model_class"] == "Qwen2ForCausalLM"
    assert res["resolved"]["judge"][CONFIG]["unread"] == len(lines)


def test_restate_on_the_transformers_backend(tmp_path):
    pytest.importorskip("transformers")
    from _tiny_vlm import build_tiny_vlm

    model = str(build_tiny_vlm(tmp_path / "tiny"))
    data = {CONFIG: make_dataset(CONFIG, 2, size=(72, 72))}
    res = evaluate_model(model, backend="transformers", data=data, out=tmp_path / "run", max_new_tokens=4,
                         batch_size=2, progress=False, restate=True)
    recs = {r["id"]: r for r in read_predictions(tmp_path / "run" / "predictions.jsonl")}
    lines = _lines(tmp_path / "run", "restate")
    assert {r["id"] for r in lines} == {i for i, r in recs.items() if r["status"] != "parsed"}
    for r in lines:
        assert isinstance(r["restatement"], str) and r["completion_tokens"] <= 4
        assert r["prompt_tokens"] > recs[r["id"]]["prompt_tokens"]  # the first turn, its output and the ask
    if lines:
        assert res["resolved"]["restate"][CONFIG]["unread"] == len(lines)


def test_restate_on_the_vllm_backend(tmp_path, monkeypatch):
    conversations = []

    class LLM:
        def __init__(self, **kw):
            pass

        def chat(self, messages, sampling_params=None, use_tqdm=True, **kw):
            conversations.extend(messages)
            return [types.SimpleNamespace(prompt_token_ids=[1] * 9, outputs=[types.SimpleNamespace(
                text=HEDGE if len(m) == 1 else "C", token_ids=[1], finish_reason="stop")]) for m in messages]

    fake = types.ModuleType("vllm")
    fake.LLM, fake.SamplingParams, fake.__version__ = LLM, lambda **kw: None, "0.0-mock"
    monkeypatch.setitem(sys.modules, "vllm", fake)
    data = {CONFIG: make_dataset(CONFIG, 3, size=(72, 72))}
    res = evaluate_model("org/vlm", backend="vllm", data=data, out=tmp_path / "run", progress=False, restate=True)
    second = [c for c in conversations if len(c) == 3]
    assert len(second) == 3 and all(c[1] == {"role": "assistant", "content": [{"type": "text", "text": HEDGE}]}
                                    for c in second)
    assert all(c[0]["content"][0]["type"] == "image_url" for c in second)
    assert res["resolved"]["restate"][CONFIG]["read"] == 3
