"""Jigsaw-Puzzles: the spatial-reasoning benchmark for VLMs, generated on demand."""

__version__ = "0.1.0"

from .builder import CONFIGS, SPLITS, JigsawPuzzles, JigsawPuzzlesConfig, load_dataset, make_builder  # noqa: E402
from .sources import CurationRules, curate  # noqa: E402
from .extraction import TASKS as ANSWER_SPACES, Extraction, classify_response, config_from_id, extract_answer  # noqa: E402
from .scoring import PAPER_TABLE2, chance_table, score, score_items  # noqa: E402
from .training import jigsaw_reward, make_compute_metrics, make_jigsaw_reward  # noqa: E402
from .inference import evaluate_model  # noqa: E402  (torch/transformers are imported only when used)

__all__ = ["CONFIGS", "SPLITS", "JigsawPuzzles", "JigsawPuzzlesConfig", "load_dataset", "make_builder",
           "CurationRules", "curate", "ANSWER_SPACES", "Extraction", "classify_response", "config_from_id",
           "extract_answer", "PAPER_TABLE2", "chance_table", "score", "score_items", "jigsaw_reward",
           "make_compute_metrics", "make_jigsaw_reward", "evaluate_model", "__version__"]
