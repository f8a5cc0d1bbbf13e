"""Jigsaw-Puzzles: the spatial-reasoning benchmark for VLMs, generated on demand.

The face, ``import jigsaw_puzzles as jp``:

* data: ``jp.load_dataset``, ``jp.make_builder``, ``jp.JigsawPuzzles``, ``jp.JigsawPuzzlesConfig``, ``jp.CONFIGS``,
  ``jp.SPLITS``, ``jp.curate``, ``jp.CurationRules``, ``jp.config_from_id``, ``jp.spec`` (the contract: configs,
  answer formats, row schema, citation), ``jp.build`` (the Hub-ready export ``jigsaw-puzzles build`` writes, in
  this machine's processes or on a Ray cluster: ``engine="ray"``);
* scoring: ``jp.score``, ``jp.score_items``, ``jp.extract_answer``, ``jp.classify_response``, ``jp.Extraction``,
  ``jp.chance_table``, ``jp.PAPER_TABLE2``, ``jp.METRIC_PATH`` (``evaluate.load(jp.METRIC_PATH)``);
* evaluation and reports: ``jp.evaluate_model``, ``jp.EvalSettings`` (its settings as one validated record),
  ``jp.make_report``;
* training: ``jp.training_stream``, ``jp.Curriculum``, ``jp.holdout``, ``jp.rewards`` (the reward functions),
  ``jp.jigsaw_reward``, ``jp.make_jigsaw_reward``, ``jp.make_compute_metrics``, ``jp.with_prompt``,
  ``jp.to_messages``;
* errors: ``jp.UserError``, ``jp.ConfigUnavailable``.

Documented area imports, for what needs an extra or is a world of its own: ``jigsaw_puzzles.interactive``
(``JigsawToolEnv``, ``tool_rows``, ``Game``, ...) and ``jigsaw_puzzles.interactive.gym_env`` (registers
``JigsawPuzzles/Jigsaw-v0``); ``jigsaw_puzzles.baselines`` (``random_answer``, ``solve``); ``jigsaw_puzzles.analysis``
(``analyze``); ``jigsaw_puzzles.human`` (``browse_app``, ``CSS``, ``HEAD``). Everything else is internal: its
path may move between releases. The areas and their order: docs/tasks.md#layout.
"""

from importlib import import_module as _import
from pathlib import Path as _Path

from ._version import __version__
from .errors import ConfigUnavailable, UserError

#: The ``evaluate`` metric shipped inside the package: ``evaluate.load(jp.METRIC_PATH)`` from any folder.
METRIC_PATH = str(_Path(__file__).parent / "scoring" / "metrics" / "jigsaw_puzzles")

#: the face's names, each imported on first use (PEP 562): ``import jigsaw_puzzles`` (and every CLI command, whose
#: module imports it) costs no ``datasets``, pandas or numpy until a name that needs them is used
_LAZY = {
    "spec": ("spec", None), "SPLITS": ("spec", "SPLITS"), "config_from_id": ("spec", "config_from_id"),
    **{name: ("generation.builder", name) for name in ("CONFIGS", "JigsawPuzzles", "JigsawPuzzlesConfig",
                                                        "load_dataset", "make_builder")},
    **{name: ("scoring.extraction", name) for name in ("Extraction", "classify_response", "extract_answer")},
    **{name: ("scoring.score", name) for name in ("PAPER_TABLE2", "chance_table", "score", "score_items")},
    "CurationRules": ("generation.sources", "CurationRules"), "curate": ("generation.curation", "curate"),
    **{name: ("training.trl_helpers", name) for name in ("jigsaw_reward", "make_compute_metrics",
                                                          "make_jigsaw_reward", "to_messages", "with_prompt")},
    "rewards": ("training.rewards", None),
    **{name: ("training.stream", name) for name in ("Curriculum", "holdout", "training_stream")},
    "EvalSettings": ("inference", "EvalSettings"), "evaluate_model": ("inference", "evaluate_model"),
    "make_report": ("reporting.report", "make_report"),  # matplotlib and the report's modules: when a report is made
    "build": ("publishing.export", "build"),  # the export's modules load only when one is written
}

__all__ = ["METRIC_PATH", "CONFIGS", "SPLITS", "JigsawPuzzles", "JigsawPuzzlesConfig", "load_dataset", "make_builder",
           "CurationRules", "curate", "spec", "ConfigUnavailable", "UserError", "Extraction",
           "classify_response", "config_from_id", "extract_answer", "PAPER_TABLE2", "chance_table", "score",
           "score_items", "make_report", "EvalSettings", "jigsaw_reward", "make_compute_metrics", "make_jigsaw_reward", "evaluate_model",
           "rewards", "training_stream", "to_messages", "with_prompt", "Curriculum", "holdout", "build",
           "__version__"]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = _import(f"{__name__}.{module}")
    value = value if attr is None else getattr(value, attr)
    globals()[name] = value  # once: later uses are plain attribute reads
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
