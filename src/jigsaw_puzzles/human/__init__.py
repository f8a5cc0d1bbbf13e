"""The human baseline: take the benchmark in a browser (``jigsaw-puzzles human``) and browse its items.
May import: the root foundations, baselines, scoring, generation, inference.

:mod:`.session` (no Gradio): the test folder, each participant's seeded order, answers and response times written
as a run directory of ``eval``'s format. :mod:`.pool`: the report's per-participant and pooled "Human" rows and
the agreement between participants. :mod:`.app`: the Gradio pages (the ``[app]`` extra). :mod:`.adjudicate` and
:mod:`.adjudicate_app`: ``jigsaw-puzzles adjudicate RUN_DIR``, a person deciding a run's unread outputs.
"""
from .session import HumanTest, Participant, answer_text, participant_order

__all__ = ["HumanTest", "Participant", "answer_text", "participant_order", "test_app", "browse_app", "CSS", "HEAD"]


def test_app(test):
    from .app import test_app as make

    return make(test)


def browse_app(datasets):
    from .app import browse_app as make

    return make(datasets)


def __getattr__(name):
    """``CSS`` and ``HEAD`` (the pages' style and script, for a Space's ``launch``) come from the Gradio module."""
    if name in ("CSS", "HEAD"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
