"""Model evaluation on Jigsaw-Puzzles: ``evaluate_model`` (Python) / ``jigsaw-puzzles eval`` (CLI).

Torch, transformers and vLLM are imported only when their backend is used.
"""
from .backends import BACKENDS, BUILTIN_MODELS, Generation, GenerationSettings, Request
from .runner import RunMismatchError, evaluate_model, load_all_predictions

__all__ = ["evaluate_model", "RunMismatchError", "load_all_predictions", "BACKENDS", "BUILTIN_MODELS",
           "Generation", "GenerationSettings", "Request"]
