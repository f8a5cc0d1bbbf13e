"""#44 3.7: what a user types wrong is one clear error, never a traceback or Python's own words, and the Python API
refuses what the command line refuses (one rule for both)."""

from __future__ import annotations

import pytest

import jigsaw_puzzles as jp
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.errors import UsageError, UserError


def _stages():
    return jp.Curriculum([{"order_generation": 1}, {"order_restoration": 1}], threshold=0.5, window=2)


@pytest.mark.parametrize("call, said", [
    (lambda: jp.with_prompt(None), "with_prompt takes a datasets.Dataset"),
    (lambda: _stages().update([None]), "Curriculum.update takes the rewards as finite numbers, not None"),
    (lambda: _stages().update([0.9, float("nan")]), "not nan"),
    (lambda: jp.load_dataset("order_generation", grid="3"), "grid '3': not rows x columns; give e.g. 3x3"),
    (lambda: jp.load_dataset("order_generation", grid="abc"), "grid 'abc': not rows x columns"),
    (lambda: jp.make_builder("order_generation", grid=(3,)), "grid (3,): not rows x columns"),
    (lambda: jp.make_builder("order_generation", grid=(3.0, 3)), "not rows x columns"),
    (lambda: jp.load_dataset("order_generation", split="lite", num_proc="2"), "num_proc must be a whole number"),
    (lambda: jp.load_dataset("order_generation", split="lite", num_proc=0), "num_proc must be a whole number"),
    (lambda: jp.load_dataset("order_generation", split="lite", num_proc=-1), "num_proc must be a whole number"),
    (lambda: jp.make_builder("order_generation", rotated="yes"), "rotated must be True or False, not 'yes'"),
    (lambda: jp.training_stream("embedded", mixture={}), "a mixture needs non-negative finite weights"),
    (lambda: jp.score("BD", ["B", "D"], ["connection_verification"] * 2), "predictions is one str ('BD'), not a list"),
    (lambda: jp.score(["B"], ["B", "D"], ["connection_verification"]), "references has 2 entries but there are 1"),
])
def test_each_api_mistake_is_one_usage_error_in_the_package_s_words(call, said):
    with pytest.raises(UsageError) as err:
        call()
    text = str(err.value)
    assert said in text and "\n" not in text, text
    assert "--" not in text, text  # a Python caller is told keyword arguments, not the command line's flags


def test_verl_reward_refuses_an_extra_info_that_is_not_a_dict():
    from jigsaw_puzzles.integrations.verl import compute_score

    with pytest.raises(UsageError, match="extra_info must be the row's dict"):
        compute_score("connection_verification", "B", "B", extra_info="notadict")
    assert compute_score("connection_verification", "B", "B", extra_info=None)["acc"] == 1.0


def test_generated_grids_and_process_counts_are_read_or_refused_in_one_line():
    """Any text or value as a grid, any value as num_proc (hypothesis): a config name, or one UserError."""
    from hypothesis import given, settings, strategies as st

    from jigsaw_puzzles.errors import count_value
    from jigsaw_puzzles.generation.builder import with_grid

    junk = st.one_of(st.text(max_size=8), st.integers(-3, 12), st.floats(), st.booleans(), st.none(),
                     st.tuples(st.integers(-2, 12), st.integers(-2, 12)), st.lists(st.integers(0, 9), max_size=3))

    @settings(max_examples=300, deadline=None)
    @given(grid=junk, count=junk)
    def check(grid, count):
        for call in (lambda: with_grid("order_generation", grid), lambda: count_value(count, "num_proc", "one")):
            try:
                call()
            except UserError as err:
                assert "\n" not in str(err) and "unpack" not in str(err) and "literal" not in str(err)

    check()


@pytest.mark.parametrize("argv, said", [
    (["build", "--out", "x", "--grid", "3"], "argument --grid: not rows x columns; give e.g. 3x3"),
    (["build", "--out", "x", "--grid", "abc"], "argument --grid: not rows x columns"),
    (["build", "--out", "x", "--configs", "order_generation,order_restoration"],
     "separate config names with spaces, not commas (--configs order_generation order_restoration)"),
])
def test_cli_grid_and_configs_mistakes_say_the_form(argv, said, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1, err
