"""An interactive, multi-turn jigsaw: a model moves pieces and sees the board after each move.
May import: the root foundations, baselines, scoring, generation, inference, publishing, training.

One set of rules (:mod:`.core`; the board image, straight or of interlocking pieces: :mod:`.render`), two faces:
:class:`JigsawToolEnv` for TRL's ``GRPOTrainer(environment_factory=...)`` (:mod:`.trl_env`; :func:`environments` is
its dict form, keyed by task) and a ``gymnasium.Env`` registered as ``JigsawPuzzles/Jigsaw-v0`` (:mod:`.gym_env`,
imported on demand: it needs the ``env`` extra). :mod:`.policy` is a scripted policy, driven by the classical placer,
that proves the puzzles solvable through the tools. Docs: docs/interactive.md.
"""

from .core import DEGREES, Game, Observation, Puzzle, Rules
from .render import GUTTER, LABEL, board_size, cell_boxes, pieces_of
from .trl_env import PROMPT, JigsawSwapEnv, JigsawToolEnv, NoEpisode, environments, tool_rows

__all__ = ["DEGREES", "GUTTER", "LABEL", "Game", "Observation", "Puzzle", "Rules", "board_size", "cell_boxes",
           "pieces_of", "PROMPT", "JigsawSwapEnv", "JigsawToolEnv", "NoEpisode", "environments", "tool_rows"]
