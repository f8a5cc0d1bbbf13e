"""Jigsaw-Puzzles: the spatial-reasoning benchmark for VLMs, generated on demand.

The contract (configs, answer formats, row schema, citation) is :mod:`jigsaw_puzzles.spec`.
"""

from ._version import __version__
from . import spec
from .builder import CONFIGS, JigsawPuzzles, JigsawPuzzlesConfig, load_dataset, make_builder
from .errors import ConfigUnavailable, UserError
from .extraction import Extraction, classify_response, extract_answer
from .scoring import PAPER_TABLE2, chance_table, score, score_items
from .sources import CurationRules, curate
from .spec import SPLITS, config_from_id
from .training import jigsaw_reward, make_compute_metrics, make_jigsaw_reward
from .inference import evaluate_model  # torch/transformers are imported only when used

__all__ = ["CONFIGS", "SPLITS", "JigsawPuzzles", "JigsawPuzzlesConfig", "load_dataset", "make_builder",
           "CurationRules", "curate", "spec", "ConfigUnavailable", "UserError", "Extraction",
           "classify_response", "config_from_id", "extract_answer", "PAPER_TABLE2", "chance_table", "score",
           "score_items", "jigsaw_reward", "make_compute_metrics", "make_jigsaw_reward", "evaluate_model",
           "__version__"]
