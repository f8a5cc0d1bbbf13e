"""verifiers integration (issue #29 item 3): ``vf-eval`` (verifiers' own evaluation loop, a subprocess, offline)
runs the single-turn taskset and the multi-turn game against a stub chat server on 127.0.0.1, through the
package's in-process harness; every trace must have run (vf-eval exits 0 even when every rollout errored), and
its rewards equal ``jp.rewards``' on the trace's own completion (single turn) or the Gym face's reward for the
same actions (multi-turn)."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

import jigsaw_puzzles as jp
from fixtures.stubs import local_server, reply_json

vf = pytest.importorskip("verifiers.v1", reason="the [harness] extra (verifiers) is not installed")

ROOT = Path(__file__).resolve().parents[1]
#: Single-turn replies: right or wrong orders, a hedge, prose, a tagged answer, nothing.
REPLIES = ["[2, 1, 4, 3]", "[1, 2, 3, 4]", "The order is [3, 1, 2, 4].", "[1, 1, 2, 3]", "no idea",
           "<think>hm</think><answer>[4, 3, 2, 1]</answer>", "", "[2, 3, 1, 4] or [1, 2, 3, 4]"]


def _reply(body: dict, text: str) -> dict:
    return {"id": "stub", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def _first_image(body: dict) -> str:
    user = [m for m in body["messages"] if m["role"] == "user"][0]
    return next(p["image_url"]["url"] for p in user["content"] if p.get("type") == "image_url")


def _vf_eval(url: str, out: Path, taskset: str, *args: str) -> list:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "STUB_KEY": "stub", "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "NO_COLOR": "1"}
    vf_eval = Path(sys.executable).with_name("vf-eval")
    proc = subprocess.run([str(vf_eval), taskset, "-m", "stub", "--client.base-url", url, "--client.api-key-var",
                           "STUB_KEY", "--no-push", "-o", str(out), "--env.agent.runtime.type", "subprocess", *args],
                          env=env, capture_output=True, text=True, timeout=600, cwd=out.parent)
    traces = list(out.glob("*/traces.jsonl"))
    assert proc.returncode == 0 and len(traces) == 1, (proc.stdout + proc.stderr)[-3000:]
    episodes = [vf.WireEpisode.model_validate(json.loads(line)) for line in traces[0].read_text().splitlines()]
    for episode in episodes:  # every rollout ran: vf-eval's exit code does not say so
        why = (episode.errors, episode.is_timeout, [(t.ok, t.errors, t.is_timeout, t.stop_condition, t.is_completed)
                                                    for t in episode.traces])
        assert episode.ok and not episode.errors and len(episode.traces) == 1, why
        assert episode.traces[0].ok and not episode.traces[0].errors
    return [e.traces[0] for e in episodes]


class SingleTurn(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        digest = hashlib.sha256(_first_image(body).encode()).digest()
        reply_json(self, _reply(body, REPLIES[digest[0] % len(REPLIES)]))


@pytest.mark.slow
def test_vf_eval_single_turn_rewards_equal_jp_rewards(tmp_path):
    rows = {r["id"]: r for r in jp.load_dataset("order_generation", split="lite")}
    with local_server(SingleTurn) as url:
        traces = _vf_eval(url, tmp_path / "out", "jigsaw-puzzles-rl")
    assert len(traces) == len(rows) > 0
    replies = set()
    for trace in traces:
        data, reply = trace.task.data, trace.last_reply
        replies.add(reply)
        row = rows[data.id]
        content = trace.messages[0].content  # the prompt: the images as image-URL parts, then the question
        assert [p.type for p in content] == ["image_url"] * len(row["images"]) + ["text"]
        assert content[-1].text == row["question"]
        kwargs = {"completions": [reply], "answer": [row["answer"]], "config": ["order_generation"],
                  "metadata": [row["metadata"]]}
        assert trace.rewards["reward"].score == pytest.approx(jp.rewards.position_reward(**kwargs)[0])
        assert trace.rewards["format_reward"].score == pytest.approx(0.2 * jp.rewards.format_reward(**kwargs)[0])
        assert trace.metrics["correct"] == jp.rewards.exact_reward(**kwargs)[0]
    assert len(replies) >= 3  # the rewards were compared on several kinds of reply


def _solving_actions(row: dict) -> list[str]:
    """swap calls that restore an unrotated puzzle from its start (the item's order), then submit()."""
    order = json.loads(row["metadata"])["order"] if isinstance(row["metadata"], str) else row["metadata"]["order"]
    board, actions = list(range(1, len(order) + 1)), []
    for j, want in enumerate(order):
        k = board.index(want)
        if k != j:
            board[j], board[k] = board[k], board[j]
            actions.append(f"swap({j + 1}, {k + 1})")
    return [*actions, "submit()"]


def test_the_solving_actions_solve(tmp_path):
    from jigsaw_puzzles.interactive import Game, Puzzle

    for row in jp.load_dataset("order_generation", split="lite").select(range(3)):
        game = Game(Puzzle.from_row(row))
        for action in _solving_actions(row):
            game.act(action)
        assert game.solved and game.submitted and game.reward() == 1.0


@pytest.mark.slow
def test_vf_eval_multi_turn_game_rewards_equal_the_gym_faces(tmp_path):
    gym = pytest.importorskip("gymnasium")
    import jigsaw_puzzles.interactive.gym_env  # noqa: F401  registers the Gym face
    from jigsaw_puzzles.inference.backends import image_to_data_url
    from jigsaw_puzzles.interactive import Game, Puzzle

    rows = list(jp.load_dataset("order_generation", split="lite"))
    scripts = {}  # the starting board -> what the stub plays on it
    for i, row in enumerate(rows):
        solve = _solving_actions(row)
        script = [solve, ["swap(1, 2)", "look left", "swap(9, 1)", "submit()"], ["hello"] * 20][i % 3]
        scripts[hashlib.sha256(image_to_data_url(Game(Puzzle.from_row(row)).render()).encode()).hexdigest()] = script

    class Player(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            script = scripts[hashlib.sha256(_first_image(body).encode()).hexdigest()]
            turn = sum(m["role"] == "assistant" for m in body["messages"])
            reply_json(self, _reply(body, script[min(turn, len(script) - 1)]))

    with local_server(Player) as url:
        traces = _vf_eval(url, tmp_path / "out", "jigsaw-puzzles-game", "--env.taskset.configs", '["order_generation"]')
    assert len(traces) == len(rows)
    by_id = {r["id"]: r for r in rows}
    solved = 0
    for trace in traces:
        row = by_id[trace.task.data.id]
        replies = [m.content if isinstance(m.content, str) else "".join(getattr(p, "text", "") for p in m.content)
                   for m in trace.messages if m.role == "assistant"]
        users = [m for m in trace.messages if m.role == "user"]
        assert len(users) == len(replies)  # a board after every move but the last
        assert all(p.type == "image_url" for u in users for p in u.content[:1])
        env = gym.make("JigsawPuzzles/Jigsaw-v0", config="order_generation")
        env.reset(options={"row": row})
        reward, done = 0.0, False
        for reply in replies:
            assert not done
            _, reward, terminated, truncated, _ = env.step(reply.strip())
            done = terminated or truncated
        assert done  # the episode ended where the game ended
        assert trace.rewards["game_reward"].score == pytest.approx(reward)
        solved += trace.info["game"]["solved"]
    assert 0 < solved < len(traces)


def test_the_tasksets_take_the_training_stream(photo_dir):
    from jigsaw_puzzles.integrations.verifiers_env import JigsawTaskset, JigsawTasksetConfig
    from jigsaw_puzzles.integrations.verifiers_game import JigsawGameTaskset, JigsawGameTasksetConfig

    single = JigsawTaskset(JigsawTasksetConfig(configs=["order_generation", "anomaly_detection"], stream=True,
                                               source=str(photo_dir)))
    assert not single.bounded  # endless, as the stream is
    tasks = list(single.take(4))
    assert {t.data.config for t in tasks} == {"order_generation", "anomaly_detection"}
    stream = jp.training_stream(str(photo_dir), mixture={"order_generation": 1, "anomaly_detection": 1})
    assert [t.data.id for t in tasks] == [row["id"] for row, _ in zip(stream, range(4))]  # the very stream rows
    game = list(JigsawGameTaskset(JigsawGameTasksetConfig(configs=["order_generation_3x3"], stream=True,
                                                          source=str(photo_dir))).take(2))
    assert [len(t.data.pieces) for t in game] == [9, 9] and all(t.puzzle().n == 9 for t in game)
