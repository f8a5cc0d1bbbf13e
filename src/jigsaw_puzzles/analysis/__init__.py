"""Why items are hard: per-item features, error models, answer bias and the paper's analyses over run directories.
May import: every area below it (reporting and what reporting may import).

>>> from jigsaw_puzzles.analysis import analyze
>>> analyze(["runs/model-a", "runs/model-b"], out="analysis")   # analysis/analysis.md, CSVs, PNGs

CLI: ``jigsaw-puzzles analyze RUN... --out DIR``. Needs the ``[analysis]`` extra (scikit-learn, scipy);
docs/analysis.md describes every output and statistic.
"""
from .analyze import analyze, require_extra
from .bias import answer_bias, bias_test
from .error_model import design_matrix, fit_error_model
from .features import FEATURES, item_cells, item_features
from .paper import self_correction, stated_orders

__all__ = ["analyze", "require_extra", "answer_bias", "bias_test", "design_matrix", "fit_error_model", "FEATURES",
           "item_cells", "item_features", "self_correction", "stated_orders"]
