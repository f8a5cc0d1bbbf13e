"""Jigsaw-Puzzles: the spatial-reasoning benchmark for VLMs, generated on demand.

The contract (configs, answer formats, row schema, citation) is :mod:`jigsaw_puzzles.spec`.
"""

from pathlib import Path as _Path

from ._version import __version__
from . import spec
from .builder import CONFIGS, JigsawPuzzles, JigsawPuzzlesConfig, load_dataset, make_builder
from .errors import ConfigUnavailable, UserError
from .extraction import Extraction, classify_response, extract_answer
from .scoring import PAPER_TABLE2, chance_table, score, score_items
from .sources import CurationRules, curate
from .spec import SPLITS, config_from_id
from .training import jigsaw_reward, make_compute_metrics, make_jigsaw_reward, to_messages, with_prompt
from . import rewards
from .stream import Curriculum, holdout, training_stream
from .inference import evaluate_model  # torch/transformers are imported only when used

#: The ``evaluate`` metric shipped inside the package: ``evaluate.load(jp.METRIC_PATH)`` from any folder.
METRIC_PATH = str(_Path(__file__).parent / "metrics" / "jigsaw_puzzles")

__all__ = ["METRIC_PATH", "CONFIGS", "SPLITS", "JigsawPuzzles", "JigsawPuzzlesConfig", "load_dataset", "make_builder",
           "CurationRules", "curate", "spec", "ConfigUnavailable", "UserError", "Extraction",
           "classify_response", "config_from_id", "extract_answer", "PAPER_TABLE2", "chance_table", "score",
           "score_items", "jigsaw_reward", "make_compute_metrics", "make_jigsaw_reward", "evaluate_model",
           "rewards", "training_stream", "to_messages", "with_prompt", "Curriculum", "holdout",
           "__version__"]
