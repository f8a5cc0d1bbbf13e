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

from pathlib import Path as _Path

from ._version import __version__
from . import spec
from .generation.builder import CONFIGS, JigsawPuzzles, JigsawPuzzlesConfig, load_dataset, make_builder
from .errors import ConfigUnavailable, UserError
from .scoring.extraction import Extraction, classify_response, extract_answer
from .scoring.score import PAPER_TABLE2, chance_table, score, score_items
from .generation.sources import CurationRules
from .generation.curation import curate
from .spec import SPLITS, config_from_id
from .training.trl_helpers import jigsaw_reward, make_compute_metrics, make_jigsaw_reward, to_messages, with_prompt
from .training import rewards
from .training.stream import Curriculum, holdout, training_stream
from .inference import EvalSettings, evaluate_model  # torch/transformers are imported only when used

#: The ``evaluate`` metric shipped inside the package: ``evaluate.load(jp.METRIC_PATH)`` from any folder.
METRIC_PATH = str(_Path(__file__).parent / "scoring" / "metrics" / "jigsaw_puzzles")

__all__ = ["METRIC_PATH", "CONFIGS", "SPLITS", "JigsawPuzzles", "JigsawPuzzlesConfig", "load_dataset", "make_builder",
           "CurationRules", "curate", "spec", "ConfigUnavailable", "UserError", "Extraction",
           "classify_response", "config_from_id", "extract_answer", "PAPER_TABLE2", "chance_table", "score",
           "score_items", "make_report", "EvalSettings", "jigsaw_reward", "make_compute_metrics", "make_jigsaw_reward", "evaluate_model",
           "rewards", "training_stream", "to_messages", "with_prompt", "Curriculum", "holdout", "build",
           "__version__"]


def __getattr__(name):
    if name == "make_report":  # matplotlib and the report's modules load only when a report is made
        from .reporting.report import make_report

        return make_report
    if name == "build":  # the export's modules load only when one is written
        from .publishing.export import build

        return build
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
