"""CLIP similarity mining for the hard Missing Piece Selection config (issue #3).

The paper (Sec. 3.1) builds the *Hard* Missing Piece Selection distractors "using
CLIP (Radford et al., 2021) similarity to closely resemble the ground-truth
patch".  This module turns that sentence into a reproducible procedure:

* **Pool.**  Every accepted, normalised source image is cut into its 3x3 grid
  (row-major, cells ``w/3 x h/3``; see :func:`grid_cells`, the tasks' own cut; the grid configs
  ``missing_piece_selection_hard_<R>x<C>`` cut R x C, ``ClipMiner(rows=, cols=)``).  A *region* is
  ``(source_id, row, col)`` and its pool id is ``"<source_id>/r<row>c<col>"``.
  Every cell of every source is embedded once, at its native size, through the
  model's own validation transform, and the L2-normalised float32 embeddings
  are cached on disk (:class:`EmbeddingCache`).
* **Search.**  For a target cell, candidates are all cells of all *other*
  sources, ranked by cosine similarity (:func:`nearest_neighbours`).  Excluded:
  (a) every cell of the target's own source, (b) exact pixel duplicates of the
  true patch (same size and bytes), (c) near duplicates: cosine similarity above
  ``max_similarity`` (default :data:`DEFAULT_MAX_SIMILARITY` = 0.95), and
  (d) a candidate that is a pixel duplicate or near duplicate of an already
  chosen distractor (so the four options are pairwise distinct).
* **Order.**  The chunked float32 pass on the device only retrieves a
  candidate short-list; every decision is taken on CPU from the float64 dot
  product of the stored float32 embeddings, rounded to ``1e-3``
  (``rint(s * 1e3)``).  Order is higher rounded similarity first, then the
  smaller pool id string.  Given the same embeddings, CPU and GPU searches
  therefore return identical picks (float32/TF32 noise of the device pass is
  covered by a 1e-4 safety margin and exact rescans).

Nothing here sets global seeds.  Random initialisation (``pretrained=None``) is
only for tests and must be asked for with ``allow_random_init=True``; the
weights are then created under :func:`torch.random.fork_rng` with a fixed local
seed, on CPU, so that every process builds identical weights.

torch and open_clip are imported lazily (extra ``jigsaw-puzzles[clip]``).
"""

from .cache import EMBEDDING_FORMAT_VERSION, EmbeddingCache, default_cache_dir
from .embed import (GRID_COLS, GRID_ROWS, EmbedStats, PatchBank, PatchEmbedder, grid_cells, pixel_digest, region_id,
                    split_preprocess)
from .miner import Candidate, ClipMiner, MinedDistractors
from .search import DEFAULT_MAX_SIMILARITY, SIMILARITY_DECIMALS, duplicate_source_groups, nearest_neighbours
from .weights import (DEFAULT_CLIP_MODEL, DEFAULT_CLIP_PRETRAINED, RANDOM_INIT_SEED, ClipWeightsUnavailable, WeightsSpec,
                      load_clip, resolve_clip_weights)

__all__ = [
    "DEFAULT_CLIP_MODEL", "DEFAULT_CLIP_PRETRAINED", "DEFAULT_MAX_SIMILARITY", "SIMILARITY_DECIMALS", "GRID_ROWS",
    "GRID_COLS", "RANDOM_INIT_SEED", "EMBEDDING_FORMAT_VERSION", "ClipWeightsUnavailable", "WeightsSpec",
    "resolve_clip_weights", "load_clip", "grid_cells", "pixel_digest", "region_id", "PatchEmbedder", "split_preprocess",
    "EmbeddingCache", "EmbedStats", "PatchBank", "Candidate", "MinedDistractors", "ClipMiner", "nearest_neighbours",
    "duplicate_source_groups", "default_cache_dir",
]
