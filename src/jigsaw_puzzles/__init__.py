"""Jigsaw-Puzzles: the spatial-reasoning benchmark for VLMs, generated on demand."""

__version__ = "0.1.0"

from .builder import CONFIGS, SPLITS, JigsawPuzzles, JigsawPuzzlesConfig, load_dataset, make_builder  # noqa: E402
from .sources import CurationRules, curate  # noqa: E402

__all__ = ["CONFIGS", "SPLITS", "JigsawPuzzles", "JigsawPuzzlesConfig", "load_dataset", "make_builder",
           "CurationRules", "curate", "__version__"]
