"""The interactive jigsaw (issue #23): one set of rules (core), the TRL face and the Gymnasium face."""
from __future__ import annotations

import functools
import hashlib
import json

import numpy as np
import pytest

import jigsaw_puzzles as jp
from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.interactive import (Game, JigsawSwapEnv, JigsawToolEnv, Puzzle, Rules, environments, pieces_of,
                                        tool_rows)
from jigsaw_puzzles.interactive.policy import Plan, moves


@functools.lru_cache(maxsize=None)
def _rows(config: str, seed: int = 0, n: int = 3) -> tuple:
    return tuple(jp.training_stream("embedded", mixture={config: 1.0}, seed=seed, eval_fraction=0.0).take(n))


def row(config="order_generation_3x3", i=0):
    return dict(_rows(config)[i])


def solution(game: Game) -> list[tuple]:
    p = game.puzzle
    return moves(Plan(list(p.order), list(p.rotations or [0] * p.n)))


def digest(image) -> str:
    return hashlib.sha256(image.tobytes() + repr(image.size).encode()).hexdigest()


@pytest.mark.parametrize("config", ["order_generation", "order_generation_3x3", "order_restoration_2x3",
                                    "order_generation_2x2_rot", "order_restoration_3x3_rot",
                                    "order_generation_3x3_tabs", "order_restoration_2x3_tabs",
                                    "order_generation_2x2_rot_tabs", "order_generation_3x3_tabs_silhouette"])
def test_the_known_solution_played_through_the_tools_solves_and_earns_exactly_one(config):
    env = JigsawToolEnv()
    env.reset(**row(config))
    game = env.game
    assert not game.solved  # a shuffled start (these rows are not the identity)
    for name, *args in solution(game):
        reply = getattr(env, name)(*args)
        assert reply[0]["type"] == "image" and reply[1]["type"] == "text"
        assert not reply[1]["text"].startswith("Invalid"), reply[1]["text"]
    assert game.solved and game.submitted and game.actions == game.fewest + 1
    assert env.get_reward() == 1.0
    # the solved board is the photograph: each cell shows the piece that belongs there, turned upright (a board
    # of interlocking pieces: tests/test_interactive_tabs.py)
    p = game.puzzle
    if p.shaped:
        return
    for j, cell in enumerate(pieces_of(reply[0]["image"], p.rows, p.cols)):
        piece = p.pieces[p.order[j] - 1]
        if p.rotated and p.rotations[j]:
            piece = piece.rotate(-p.rotations[j], expand=True)
        assert np.array_equal(np.asarray(cell), np.asarray(piece))


def test_the_start_board_shows_the_item_as_the_benchmark_numbers_it():
    r = row("order_generation_3x3")
    env = JigsawToolEnv()
    image, text = env.reset(**r)
    assert "3x3 grid" in text["text"] and "rotate(" not in text["text"]
    for cell, piece in zip(pieces_of(image["image"], 3, 3), r["images"]):
        assert np.array_equal(np.asarray(cell), np.asarray(piece))


@pytest.mark.parametrize("config", ["order_generation_3x3_rot", "order_generation_3x3_rot_tabs"])
def test_same_row_and_same_actions_give_byte_identical_observations(config):
    actions = [("swap", 1, 5), ("rotate", 2, 90), ("swap", "3", 9), ("rotate", 4, 45), ("swap", 2, 7), ("submit",)]

    def run():
        env = JigsawToolEnv()
        out = [digest(env.reset(**row(config))[0]["image"])]
        for name, *args in actions:
            reply = getattr(env, name)(*args)
            out.append((digest(reply[0]["image"]), reply[1]["text"]))
        return out, env.get_reward()

    first, second = run(), run()
    assert first == second
    assert len({d for d, _ in first[0][1:]}) > 2  # the board really changed along the way


@pytest.mark.parametrize("call, why", [
    (("swap", 0, 2), "no position 0"),
    (("swap", 1, 10), "no position 10"),
    (("swap", 3, 3), "two different positions"),
    (("swap", "two", 3), "whole number"),
    (("swap", 2.5, 3), "whole number"),
    (("swap", True, 3), "whole number"),
    (("swap", None, [1]), "whole number"),
    (("swap", "9" * 5000, 1), "whole number"),
    (("swap", 10 ** 5000, 1), "no position <int too large to show>"),  # past Python's 4,300-digit str limit
    (("swap", 2, -10 ** 4400), "no position"),
    (("swap", [10 ** 5000], 1), "whole number"),
    (("rotate", 1, 10 ** 5000), "90, 180 or 270"),
    (("rotate", 1, 45), "90, 180 or 270"),
    (("rotate", 1, -90), "90, 180 or 270"),
    (("rotate", 1, "ninety"), "90, 180 or 270"),
    (("rotate", 12, 90), "no position 12"),
])
@pytest.mark.parametrize("config", ["order_generation_3x3_rot", "order_generation_3x3_rot_tabs"])
def test_invalid_actions_say_why_change_nothing_and_cost_a_turn(call, why, config):
    env = JigsawToolEnv()
    env.reset(**row(config))
    before = (list(env.game.board), list(env.game.turns))
    name, *args = call
    text = getattr(env, name)(*args)[1]["text"]
    assert text.startswith("Invalid:") and why in text and "\n" not in text
    assert (env.game.board, env.game.turns) == before
    assert env.game.actions == 1 and env.game.invalid == 1


@pytest.mark.parametrize("name, args, kwargs, why", [
    ("swap", (), {"a": 1, "b": 2}, "missing a required argument"),       # misnamed arguments
    ("swap", (1,), {}, "missing a required argument"),
    ("swap", (1, 2, 3), {}, "too many positional arguments"),
    ("rotate", (), {"position": 1, "degrees": 90, "why": "x"}, "unexpected keyword argument"),
    ("submit", (), {"board": [1, 2]}, "unexpected keyword argument"),
])
def test_malformed_tool_calls_reach_the_game_and_cost_a_turn(name, args, kwargs, why):
    """A call TRL makes with the arguments the model wrote (``tool(**arguments)``) that does not fit the tool's
    signature is an invalid action of the game, not a TypeError the environment never sees."""
    env = JigsawToolEnv()
    env.reset(**row("order_generation_3x3_rot"))
    before = (list(env.game.board), list(env.game.turns))
    text = getattr(env, name)(*args, **kwargs)[1]["text"]
    assert text.startswith("Invalid: a malformed " + name) and why in text and "\n" not in text
    assert (env.game.board, env.game.turns) == before and not env.game.submitted
    assert env.game.actions == 1 and env.game.invalid == 1


@pytest.mark.parametrize("config", ["order_generation_3x3", "order_generation_3x3_tabs"])
def test_rotate_is_refused_on_an_unrotated_puzzle_and_text_actions_are_parsed_strictly(config):
    game = Game(Puzzle.from_row(row(config)))
    assert "no turned pieces" in game.rotate(1, 90).text
    for text in ["swap 1 2", "swap(1, 2, 3)", "submit(1)", "move(1, 2)", "swap(1; 2)", "", None, "x" * 10_000,
                 "swap(1, 2)) and submit()", "swap(1.5, 2)", "swap(-1, 2)"]:
        assert not game.act(text).valid, text
    assert game.board == list(range(9)) and game.invalid == 12
    assert game.act(" SWAP( 1 ,2 ) ").valid and game.board[:2] == [1, 0]
    assert game.act("submit()").valid and game.submitted


def test_the_turn_budget_ends_the_episode_and_later_calls_are_invalid():
    game = Game(Puzzle.from_row(row("order_generation")), Rules(max_turns=3))
    for _ in range(3):
        assert game.swap(1, 2).valid
    assert game.over and not game.submitted
    obs = game.submit()
    assert not obs.valid and "no turns left" in obs.text and obs.done
    assert game.score() == 0.0 and game.reward() <= 0.0  # nothing submitted: never rewarded


@pytest.mark.parametrize("config", ["order_generation_3x3", "order_generation_3x3_tabs"])
def test_reward_rules_partial_credit_costs_and_bounds(config):
    r = row(config)
    plain = Game(Puzzle.from_row(r))
    plain.submit()  # the shuffled board as it is
    from jigsaw_puzzles.training.rewards import position_reward

    share = position_reward(completions=[plain.answer()], answer=[r["answer"]], config=[config])[0]
    assert plain.score() == pytest.approx(0.5 * share) and plain.reward() == pytest.approx(0.5 * share)
    assert Game(Puzzle.from_row(r), Rules(partial=None)).score() == 0.0

    # a solve with wasted moves and invalid actions pays for them, and is still the best a rollout can do
    game = Game(Puzzle.from_row(r))
    game.swap(1, 2), game.swap(1, 2), game.swap(1, 99)
    for name, *args in solution(game):
        getattr(game, name)(*args)
    assert game.solved
    per_turn = 0.25 / game.budget
    assert game.reward() == pytest.approx(1.0 - 3 * per_turn - 0.05)
    assert 0.5 < game.reward() < 1.0

    costly = Game(Puzzle.from_row(r), Rules(invalid_cost=0.5))
    for _ in range(5):
        costly.swap(0, 0)
    assert costly.reward() == -1.0  # clipped
    generous = Game(Puzzle.from_row(r), Rules(partial_weight=1.0, turn_cost=0.0))
    for name, *args in solution(generous):
        getattr(generous, name)(*args)
    assert generous.reward() == 1.0  # never above 1
    with pytest.raises(UsageError):
        Rules(partial="neighbours")


@pytest.mark.parametrize("bad", [{"invalid_cost": float("nan")}, {"turn_cost": float("inf")},
                                 {"partial_weight": float("nan")}, {"invalid_cost": -0.1}, {"turn_cost": 1.5},
                                 {"partial_weight": 2.0}, {"invalid_cost": "0.05"}, {"turn_cost": True},
                                 {"max_turns": "x"}, {"max_turns": 1.5}, {"max_turns": 0}, {"max_turns": True}])
def test_rules_refuse_non_finite_and_out_of_range_values(bad):
    """#32.5.2: Rules(invalid_cost=nan) or turn_cost=inf were accepted and a perfect solve then scored -1.0."""
    with pytest.raises(UsageError, match=r"must be (a finite number in \[0, 1\]|a whole number of at least 1)"):
        Rules(**bad)


@pytest.mark.parametrize("config", ["order_generation", "order_generation_tabs"])
def test_any_rules_accepted_pay_a_clean_solve_exactly_one_and_every_reward_lies_in_minus_one_to_one(config):
    from hypothesis import HealthCheck, given, settings, strategies as st

    number = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 3), st.none(), st.booleans())
    r = row(config)

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(partial_weight=number, turn_cost=number, invalid_cost=number, max_turns=st.one_of(st.none(),
                                                                                            st.integers(-1, 12)),
           wasted=st.integers(0, 6))
    def check(partial_weight, turn_cost, invalid_cost, max_turns, wasted):
        try:
            rules = Rules(max_turns=max_turns, partial_weight=partial_weight, turn_cost=turn_cost,
                          invalid_cost=invalid_cost)
        except UsageError:
            return
        solved = Game(Puzzle.from_row(r), rules)
        for name, *args in solution(solved):
            getattr(solved, name)(*args)
        if not solved.over:
            solved.submit()
            assert solved.reward() == 1.0
        sloppy = Game(Puzzle.from_row(r), rules)
        for _ in range(wasted):
            sloppy.swap(0, 0)
        sloppy.submit()
        assert -1.0 <= sloppy.reward() <= 1.0

    check()


def test_a_refused_reset_leaves_no_episode_on_either_face():
    """#32.5.2: reset(options={"row": "garbage"}) and options="x" raised AttributeError, and a step after a refused
    reset played (and paid) the previous episode."""
    gym = pytest.importorskip("gymnasium", reason="the [env] extra (gymnasium) is not installed")
    from jigsaw_puzzles.errors import UserError
    from jigsaw_puzzles.interactive.gym_env import JigsawEnv, ResetNeeded
    from jigsaw_puzzles.interactive.trl_env import NoEpisode

    good = row("order_generation")
    for env in (JigsawEnv("order_generation"), gym.make("JigsawPuzzles/Jigsaw-v0", config="order_generation")):
        with pytest.raises(gym.error.ResetNeeded):  # never reset (Gymnasium's OrderEnforcing says it under make)
            env.step("submit()")
        env.reset(options={"row": good})
        env.step("swap(1, 2)")
        for options, why in (({"row": "garbage"}, "a puzzle row is a dataset row"), ("x", "options take one key"),
                             ({"rows": good}, "options take one key"), ({"row": row("order_generation_3x3")},
                                                                         "does not fit"),
                             (None, "training_stream needs source=")):  # no source to stream from
            with pytest.raises(UsageError, match=why):
                env.reset(options=options)
            with pytest.raises(ResetNeeded, match="no live episode") as refused:
                env.step("submit()")
            assert isinstance(refused.value, gym.error.ResetNeeded) and isinstance(refused.value, UserError)
        obs, info = env.reset(options={"row": good})  # and the next episode plays from its start
        assert env.step("swap(1, 2)")[4]["turns_left"] == env.unwrapped.game.budget - 1
    for tools, refused in ((JigsawToolEnv(), {"id": "connection_verification/0123456789abcdef"}),
                           (JigsawSwapEnv(), row("order_generation_2x2_rot"))):  # swap only: no rotated puzzle
        with pytest.raises(NoEpisode, match="no live episode"):
            tools.swap(1, 2)
        tools.reset(**good)
        tools.swap(1, 2)
        with pytest.raises(UsageError):
            tools.reset(**refused)
        for call in (lambda: tools.swap(1, 2), tools.submit, lambda: tools.swap("1")):
            with pytest.raises(NoEpisode, match="no live episode"):
                call()
        assert tools.get_reward() == 0.0  # never the previous puzzle's reward


def test_rows_of_other_tasks_or_broken_rows_are_refused_with_a_clear_error():
    with pytest.raises(UsageError, match="order config"):
        Puzzle.from_row(dict(_rows("connection_verification")[0]))
    broken = row("order_generation_3x3")
    broken["images"] = broken["images"][:8]
    with pytest.raises(UsageError, match="do not make a 3x3 puzzle"):
        Puzzle.from_row(broken)
    bad_meta = row("order_generation_3x3")
    bad_meta["metadata"] = "{not json"
    with pytest.raises(UsageError, match="metadata"):
        Puzzle.from_row(bad_meta)


def test_a_built_dataset_row_and_an_order_restoration_row_make_puzzles(photo_dir, cache_dir):
    ds = jp.load_dataset("order_restoration", source=str(photo_dir), cache_dir=cache_dir)
    built = ds[0]
    puzzle = Puzzle.from_row(built)  # the answer is a letter; the order comes from the metadata
    assert puzzle.order == tuple(json.loads(built["metadata"])["order"]) and puzzle.rows == puzzle.cols == 2
    game = Game(puzzle)
    for name, *args in solution(game):
        getattr(game, name)(*args)
    assert game.solved and game.reward() == 1.0


def test_tool_rows_moves_the_pieces_out_of_the_prompt_images():
    stream = jp.training_stream("embedded", mixture={"order_generation_2x2_rot": 1.0}, seed=0, eval_fraction=0.0)
    converted = next(iter(tool_rows(stream)))
    assert "images" not in converted and len(converted["pieces"]) == 4
    assert converted["prompt"] == [{"role": "user", "content": jp.interactive.PROMPT}]
    env = JigsawToolEnv()
    assert env.reset(**converted)[0]["type"] == "image"


def test_the_tools_have_the_schemas_trl_renders():
    pytest.importorskip("transformers")
    from transformers.utils import get_json_schema

    names = {get_json_schema(getattr(JigsawToolEnv(), n))["function"]["name"] for n in ("swap", "rotate", "submit")}
    assert names == {"swap", "rotate", "submit"}
    swap = get_json_schema(JigsawToolEnv().swap)["function"]["parameters"]
    assert swap["required"] == ["first", "second"] and swap["properties"]["first"]["type"] == "integer"
    from jigsaw_puzzles.interactive.trl_env import NoEpisode

    with pytest.raises(NoEpisode, match="no live episode"):  # a tool before reset: TRL answers the model its message
        JigsawToolEnv().swap(1, 2)


def test_environments_is_trls_dict_factory_keyed_by_task():
    envs = environments(["order_generation", "order_generation_2x2_rot"], rules=Rules(max_turns=5))
    upright, rotated = envs["order_generation"](), envs["order_generation_2x2_rot"]()
    assert type(upright) is JigsawSwapEnv and type(rotated) is JigsawToolEnv and upright.rules.max_turns == 5
    assert not hasattr(upright, "rotate") and hasattr(rotated, "rotate")  # no rotate tool where nothing is turned
    stream = jp.training_stream("embedded", mixture={"order_generation": 1.0, "order_generation_2x2_rot": 1.0}, seed=0,
                                eval_fraction=0.0)
    rows = list(tool_rows(stream, environment=True).take(12))
    assert {r["environment"] for r in rows} == set(envs) and all(r["environment"] == r["config"] for r in rows)
    for r in rows:  # as TRL resets them: the environment column is its routing field, not a reset argument
        env = envs[r["environment"]]()
        assert env.reset(**{k: v for k, v in r.items() if k != "environment"})[0]["type"] == "image"
    rot = next(r for r in rows if r["environment"] == "order_generation_2x2_rot")
    with pytest.raises(UsageError, match="rotate tool"):
        JigsawSwapEnv().reset(**rot)
    with pytest.raises(UsageError, match="not an order config"):
        environments(["order_generation", "anomaly_detection"])
    with pytest.raises(ValueError, match="unknown config"):
        environments(["order_generation_rot"])


# ----------------------------------------------------------------------------------------------- Gymnasium
gym = pytest.importorskip("gymnasium", reason="the [env] extra (gymnasium) is not installed")


@pytest.mark.parametrize("config", ["order_generation", "order_generation_tabs", "order_generation_3x3_rot_tabs",
                                    "order_generation_3x3_tabs_silhouette"])
def test_the_gym_face_is_registered_and_passes_the_env_checker(config):
    from gymnasium.utils.env_checker import check_env

    from jigsaw_puzzles.interactive import gym_env

    assert gym_env.ENV_ID in gym.registry  # registered on import
    env = gym.make("JigsawPuzzles/Jigsaw-v0", config=config, source="embedded", render_mode="rgb_array")
    check_env(env.unwrapped, skip_render_check=False)
    obs, info = env.reset(seed=1)
    grid = "x".join(map(str, jp.spec.get(config).grid))
    assert obs["board"].shape == env.observation_space["board"].shape and f"{grid} grid" in obs["text"]
    assert env.render().shape == (info["board_size"][1], info["board_size"][0], 3)


@pytest.mark.parametrize("config", ["order_generation_2x2_rot", "order_generation_2x2_rot_tabs"])
def test_gym_same_seed_same_actions_byte_identical_and_reward_paid_once(config):
    from jigsaw_puzzles.interactive.gym_env import JigsawEnv

    actions = ["swap(1, 2)", "rotate(1, 90)", "nonsense((", "swap(3, 4)", "submit()", "swap(1, 2)"]

    def run(seed):
        env = JigsawEnv(config, source="embedded")
        obs, info = env.reset(seed=seed)
        out = [hashlib.sha256(obs["board"].tobytes()).hexdigest()]
        for a in actions:
            obs, reward, term, trunc, info = env.step(a)
            out.append((hashlib.sha256(obs["board"].tobytes()).hexdigest(), obs["text"], reward, term, trunc))
        return out

    first = run(5)
    assert first == run(5) and first != run(6)
    # the Gym board (drawn into the array directly) is the PIL render, pixel for pixel, on a black canvas
    env = JigsawEnv(config, source="embedded")
    env.reset(seed=5)
    for a in actions[:4]:
        obs, *_, info = env.step(a)
        width, height = info["board_size"]
        assert np.array_equal(obs["board"][:height, :width], np.asarray(env.game.render()))
        assert not obs["board"][height:].any() and not obs["board"][:, width:].any()
    rewards = [step[2] for step in first[1:]]
    assert rewards[:4] == [0.0] * 4 and rewards[5] == 0.0  # paid on the submit step alone
    assert first[5][3] is True and -1.0 <= rewards[4] <= 1.0


def test_gym_reset_with_a_row_and_the_budget_truncates():
    from jigsaw_puzzles.interactive.gym_env import JigsawEnv

    env = JigsawEnv("order_generation_3x3", rules=Rules(max_turns=2))
    obs, info = env.reset(options={"row": row("order_generation_3x3")})
    assert info["id"] == row("order_generation_3x3")["id"]
    assert env.step("swap(1, 2)")[2:4] == (False, False)
    _, reward, term, trunc, _ = env.step("swap(1, 2)")
    assert (term, trunc) == (False, True) and reward <= 0.0
    with pytest.raises(UsageError, match="does not fit"):
        JigsawEnv("order_generation").reset(options={"row": row("order_generation_3x3")})
    with pytest.raises(UsageError, match="order config"):
        JigsawEnv("connection_verification")


def test_gym_a_refused_row_leaves_the_env_and_gymnasiums_checker_ready_for_the_next_episode():
    """#28.4: a row the env refuses (another grid, turned pieces in an unturned env) raises UsageError on reset,
    and the next episode plays under the passive checker ``gym.make`` wraps it in (the stock one then failed the
    first step with TypeError); an alias config plays its paper config."""
    from gymnasium.wrappers import PassiveEnvChecker

    import jigsaw_puzzles.interactive.gym_env  # noqa: F401  (registers the env)

    env = gym.make("JigsawPuzzles/Jigsaw-v0", config="order_generation", source="embedded")
    chain, wrapped = [], env
    while wrapped is not env.unwrapped:
        chain.append(type(wrapped))
        wrapped = wrapped.env
    assert sum(issubclass(t, PassiveEnvChecker) for t in chain) == 1  # checked, once
    for refused, why in ((row("order_generation_3x3"), r"\(3x3, no turned pieces\) does not fit"),
                         (row("order_generation_2x2_rot"), r"\(2x2, turned pieces\) does not fit")):
        with pytest.raises(UsageError, match=why):
            env.reset(options={"row": refused})
        obs, info = env.reset(seed=3)
        obs, reward, terminated, truncated, info = env.step("swap(1, 2)")
        assert info["valid"] and obs["text"].startswith("Swapped") and (terminated, truncated) == (False, False)
    with pytest.raises(UsageError, match="turned pieces"):  # and the other way round
        gym.make("JigsawPuzzles/Jigsaw-v0", config="order_generation_2x2_rot").reset(options={"row": row("order_generation")})
    alias = gym.make("JigsawPuzzles/Jigsaw-v0", config="order_generation_2x2", source="embedded")
    plain = gym.make("JigsawPuzzles/Jigsaw-v0", config="order_generation", source="embedded")
    a, b = alias.reset(seed=4), plain.reset(seed=4)
    assert alias.unwrapped.config == "order_generation" and a[1]["id"] == b[1]["id"]
    assert np.array_equal(a[0]["board"], b[0]["board"])
    assert env.step(10 ** 5000)[4]["valid"] is False  # a non-text action past the str limit: invalid, no raise


def test_the_readme_gymnasium_quickstart_runs(photo_dir):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = readme.split("## Quickstart 6")[1].split("```python")[1].split("```")[0]
    gym_lines = block[block.index("import gymnasium"):]
    assert 'source="/data/my_photos"' in gym_lines  # a training folder, never the embedded evaluation photos
    gym_lines = gym_lines.replace("/data/my_photos", str(photo_dir))  # the own-photos stand-in of the snippets
    scope: dict = {}
    exec(compile(gym_lines, "README Quickstart 6", "exec"), scope)
    assert scope["obs"]["text"].startswith("Swapped the pieces at positions 1 and 5")
    assert scope["reward"] == 0.0 and not scope["terminated"]
