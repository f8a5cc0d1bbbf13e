"""The verifiers taskset id ``jigsaw-puzzles-game`` (verifiers imports a taskset, harness or env by a top-level
module name): the interactive jigsaw, multi-turn. The code: :mod:`jigsaw_puzzles.integrations.verifiers_game`."""
from jigsaw_puzzles.integrations.verifiers_env import ChatHarness
from jigsaw_puzzles.integrations.verifiers_game import JigsawGameEnv, JigsawGameTaskset

__all__ = ["JigsawGameTaskset", "JigsawGameEnv", "ChatHarness"]
