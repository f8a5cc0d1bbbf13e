"""The verifiers taskset id ``jigsaw-puzzles-rl`` (verifiers imports a taskset, harness or env by a top-level
module name): Jigsaw-Puzzles items for single-turn RL. The code: :mod:`jigsaw_puzzles.integrations.verifiers_env`."""
from jigsaw_puzzles.integrations.verifiers_env import ChatHarness, JigsawTaskset

__all__ = ["JigsawTaskset", "ChatHarness"]
