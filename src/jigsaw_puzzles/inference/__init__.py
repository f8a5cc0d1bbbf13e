"""Model evaluation on Jigsaw-Puzzles: ``evaluate_model`` (Python) / ``jigsaw-puzzles eval`` (CLI).
May import: the root foundations, baselines, scoring, generation.

Torch, transformers and vLLM are imported only when their backend is used. Unread outputs resolved in the open
(``eval --restate`` / ``--judge``): :mod:`.resolve`, :mod:`.judge`, :mod:`.resolve_prompts`, :mod:`.resolutions`.
"""
from .backends import BUILTIN_MODELS, Generation, Request
from .registry import BACKENDS, make_backend
from .rundir import RunDir, RunLocked, RunMismatchError
from .runner import evaluate_model
from .config import EvalSettings
from .settings import GenerationSettings, RunIdentity

__all__ = ["evaluate_model", "EvalSettings", "RunDir", "RunLocked", "RunMismatchError", "BACKENDS", "BUILTIN_MODELS",
           "Generation", "GenerationSettings", "Request", "RunIdentity", "make_backend"]
