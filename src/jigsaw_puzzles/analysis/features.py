"""Per-item features: what an item's pixels and answer look like, for explaining which items a model gets wrong.

Every feature is a pure function of one dataset row (its images, options, answer and metadata); nothing here
reads a model's output. Pixel features are measured on the *cells of the original photo's grid*, recovered from
what the item carries (:func:`item_cells`); a cell the item does not show is unknown and left out, and a feature
that needs what is unknown is NaN:

===========================  ==================================================================================
config                       cells recovered
===========================  ==================================================================================
missing_piece_selection_*    the 3x3 board (image 1) with the true candidate (the reference letter's image)
                             pasted into the blank region (``metadata.region``): all 9 cells
piece_localization_*         the unmasked cells of the board and the piece at ``metadata.piece_cell``; the
                             other masked cells are unknown (so no solver margin)
connection_verification      the two cells shown, at ``metadata.cells``; the other two are unknown
anomaly_detection            the 2x2 cells of the image, the altered cell turned back (``metadata.transform``):
                             the original photo's grid
order_restoration/generation the four pieces put in their true regions (``metadata.order``)
===========================  ==================================================================================
"""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
from PIL import Image

from .. import geometry
from ..baselines.continuity import as_array
from ..baselines.placer import place
from ..baselines.solver import _nd, _Piece
from ..spec import ANOMALY, CHOICE, LETTERS, get as get_spec, parse_reference

#: Bump when a feature's definition changes: cached features of another version are recomputed.
FEATURE_VERSION = 1

#: Feature name -> what it measures (docs/analysis.md says more).
FEATURES = {
    "seam_true": "mean normalised seam dissimilarity of the true neighbour pairs among the known cells",
    "seam_contrast": "mean dissimilarity of every wrong pairing (cell i right of / above cell j, not neighbours) "
                     "divided by seam_true: how clearly the true seams stand out (higher = easier)",
    "solver_margin": "the placer's margin (1 - best / second-best layout cost) on the original grid's cells; "
                     "NaN when a cell is unknown",
    "solver_solved": "1 if the placer puts the original grid's cells back exactly, else 0; NaN when a cell is "
                     "unknown",
    "texture": "mean gradient magnitude of the grey levels (0-255 scale), averaged over known cells",
    "sharpness": "variance of the 4-neighbour Laplacian of the grey levels, averaged over known cells",
    "colour_entropy": "entropy (bits) of the colour histogram (8 levels per channel, 512 bins) of known cells",
    "near_duplicate": "largest cosine similarity between two known cells' mean-centred 16x16 RGB thumbnails",
    "clip_similarity": "mean CLIP cosine similarity of the distractors to the blank (hard Missing Piece Selection, "
                       "from metadata); NaN elsewhere",
    "answer_position": "0-based index of the reference letter (choice tasks); 0 unchanged / 1 altered (anomaly "
                       "judgment); NaN for Order Generation",
    "grid_cells": "cells of the grid the item is cut on (4 or 9)",
}
NAMES = tuple(FEATURES)
GREY = np.array([0.299, 0.587, 0.114], np.float32)
THUMB = 16
#: Undoing an anomaly transform (rotations by 90 degrees swap; the others are their own inverse).
INVERSE = {"rotate_90": "rotate_270", "rotate_270": "rotate_90"}


def metadata_of(row) -> dict:
    meta = row.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta) if meta else {}
        except json.JSONDecodeError:
            meta = {}
    return meta if isinstance(meta, dict) else {}


def _letter_index(answer) -> int | None:
    text = str(answer).strip().upper()
    return LETTERS.index(text) if len(text) == 1 and text in LETTERS else None


def _order_of(row, config: str, meta: dict) -> list[int] | None:
    """The true order (``order[j]``: 1-based piece at region j) from the metadata, else from the answer."""
    order = meta.get("order")
    if not order:
        text = str(row.get("answer", ""))
        if config == "order_restoration":
            k = _letter_index(text)
            options = row.get("options") or []
            text = options[k] if k is not None and k < len(options) else ""
        order = [int(x) for x in "".join(ch if ch.isdigit() else " " for ch in text).split()]
    return list(order) if sorted(order) == [1, 2, 3, 4] else None


def item_cells(row, config: str) -> tuple[int, int, list[np.ndarray | None]]:
    """``(rows, cols, cells)``: the original grid's cells as float RGB arrays, row-major, ``None`` if unknown."""
    meta = metadata_of(row)
    rows, cols = (meta.get("grid") or get_spec(config).grid)[:2]
    images = list(row["images"])
    n = rows * cols
    if config.startswith("missing_piece_selection"):
        board = as_array(images[0])
        cells = [c.copy() for c in geometry.split_array(board, rows, cols)]
        k = _letter_index(row.get("answer"))
        region = meta.get("region")
        if region is None:  # the blank: the whitest cell
            region = int(np.argmax([np.all(c == 255, axis=-1).mean() for c in cells]))
        if k is None or 1 + k >= len(images):
            cells[region] = None
        else:
            truth = _fit(images[1 + k], cells[region].shape)
            cells[region] = truth
        return rows, cols, cells
    if config.startswith("piece_localization"):
        cells = [c.copy() for c in geometry.split_array(as_array(images[0]), rows, cols)]
        shapes = [c.shape for c in cells]
        piece = meta.get("piece_cell")
        for m in meta.get("masked_cells") or []:
            cells[m] = None
        if piece is not None and len(images) > 1:
            cells[piece] = _fit(images[1], shapes[piece])
        return rows, cols, cells
    if config == "connection_verification":
        cells: list = [None] * n
        for position, image in zip(meta.get("cells") or [], images[:2]):
            cells[position] = as_array(image)
        return rows, cols, cells
    if config == "anomaly_detection":
        image = images[0] if isinstance(images[0], Image.Image) else Image.fromarray(images[0].astype(np.uint8))
        parts = geometry.split(image.convert("RGB"), rows, cols)
        if meta.get("altered") and meta.get("transform") and meta.get("cell") is not None:
            name = meta["transform"]
            parts[meta["cell"]] = geometry.transform(parts[meta["cell"]], INVERSE.get(name, name))
        return rows, cols, [as_array(p) for p in parts]
    if config in ("order_restoration", "order_generation"):
        order = _order_of(row, config, meta)
        if order is None or len(images) < n:
            return rows, cols, [None] * n
        return rows, cols, [as_array(images[order[j] - 1]) for j in range(n)]
    raise ValueError(f"no cell recovery for config {config!r}")


def _fit(image, shape) -> np.ndarray:
    arr = as_array(image)
    if arr.shape[:2] != tuple(shape[:2]):
        im = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)).resize((shape[1], shape[0]), Image.BICUBIC)
        arr = as_array(im)
    return arr


# ------------------------------------------------------------------------------------------------ statistics
def _grey(arr: np.ndarray) -> np.ndarray:
    return arr @ GREY


def texture(arr: np.ndarray) -> float:
    g = _grey(arr)
    if min(g.shape) < 2:
        return math.nan
    gx, gy = np.diff(g, axis=1)[:-1], np.diff(g, axis=0)[:, :-1]
    return float(np.hypot(gx, gy).mean())


def sharpness(arr: np.ndarray) -> float:
    g = _grey(arr).astype(np.float64)
    if min(g.shape) < 3:
        return math.nan
    lap = g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] - 4 * g[1:-1, 1:-1]
    return float(lap.var())


def colour_entropy(arrays: list[np.ndarray]) -> float:
    q = np.concatenate([np.clip(a, 0, 255).astype(np.uint8).reshape(-1, 3) // 32 for a in arrays])
    counts = np.bincount(q[:, 0].astype(np.int64) * 64 + q[:, 1] * 8 + q[:, 2], minlength=512)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def near_duplicate(arrays: list[np.ndarray]) -> float:
    if len(arrays) < 2:
        return math.nan
    thumbs = []
    for a in arrays:
        t = np.asarray(Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).resize((THUMB, THUMB), Image.BILINEAR),
                       dtype=np.float64).ravel()
        t -= t.mean()
        norm = np.linalg.norm(t)
        thumbs.append(t / norm if norm > 1e-9 else t)
    return float(max(float(a @ b) for a, b in itertools.combinations(thumbs, 2)))


def seam_features(rows: int, cols: int, cells: list) -> tuple[float, float]:
    """``(seam_true, seam_contrast)`` over the known cells (NaN when no true seam is known)."""
    pieces = {k: _Piece(c) for k, c in enumerate(cells) if c is not None}
    true, wrong = [], []
    for i, j in itertools.permutations(pieces, 2):
        for side, step in (("right", 1), ("bottom", cols)):
            neighbour = j == i + step and (side == "bottom" or i % cols + 1 < cols)
            (true if neighbour else wrong).append(_nd(pieces[i], side, pieces[j]))
    if not true:
        return math.nan, math.nan
    seam_true = float(np.mean(true))
    contrast = float(np.mean(wrong)) / seam_true if wrong and seam_true > 0 else math.nan
    return seam_true, contrast


def _clip_similarity(meta: dict) -> float:
    sims = [d.get("similarity") for d in meta.get("distractors") or [] if isinstance(d, dict)]
    sims = [float(s) for s in sims if s is not None]
    return float(np.mean(sims)) if sims else math.nan


def _answer_position(row, config: str) -> float:
    spec = get_spec(config)
    if spec.kind == CHOICE:
        k = _letter_index(row.get("answer"))
        return math.nan if k is None else float(k)
    if spec.kind == ANOMALY:
        try:
            ref = parse_reference(row.get("answer"), config)
        except ValueError:
            return math.nan
        return 0.0 if ref.startswith("Judgment: A") else 1.0
    return math.nan


def item_features(row, config: str) -> dict[str, float]:
    """Every feature of :data:`FEATURES` for one row (NaN where it does not apply or cannot be measured)."""
    rows, cols, cells = item_cells(row, config)
    known = [c for c in cells if c is not None]
    out = dict.fromkeys(NAMES, math.nan)
    out["grid_cells"] = float(rows * cols)
    out["clip_similarity"] = _clip_similarity(metadata_of(row))
    out["answer_position"] = _answer_position(row, config)
    if known:
        out["texture"] = float(np.nanmean([texture(c) for c in known]))
        out["sharpness"] = float(np.nanmean([sharpness(c) for c in known]))
        out["colour_entropy"] = colour_entropy(known)
        out["near_duplicate"] = near_duplicate(known)
        out["seam_true"], out["seam_contrast"] = seam_features(rows, cols, cells)
    if len(known) == rows * cols and len({c.shape for c in known}) == 1:
        placement = place(known, rows, cols)
        out["solver_margin"] = float(placement.margin)
        out["solver_solved"] = float(placement.order == list(range(1, rows * cols + 1)))
    return out
