"""Circular evaluation (MMBench's CircularEval): every multiple-choice item asked once per rotation of its options.

A choice config with ``k`` options is asked ``k`` times per item. Rotation ``r`` is a generated item in which new
option ``i`` is the original option ``(i + r) % k`` (VLMEvalKit's rotation: with ``r = 1`` option A shows what B
showed, B what C showed, ..., and the last letter what A showed), so the right answer moves from letter ``s`` to
letter ``(s - r) % k`` and, over the ``k`` rotations, sits once under every letter. How the options turn, per task:

* Missing Piece Selection: the candidate images are reordered (the option texts name image positions and stay);
* Piece Localization: the mask labels are redrawn on the same board (:func:`tasks.piece_localization.draw_masks`,
  the function that drew them: a mask covers its whole cell, so the relabelled board is the board the generator
  would have drawn with those labels); ``metadata.labels`` follows;
* Connection Verification (and its 8-direction variant) and Order Restoration: the option texts are rotated in the
  question's option lines (``metadata.option_orders``/``option_rotations`` follow).

Rotation 0 is the item itself, with its own id (as VLMEvalKit keeps the original ``index`` for it); rotation
``r > 0`` has the id ``<id>#circ<r>`` (:func:`rotation_id`, :func:`parse_rotation`), which
:func:`jigsaw_puzzles.spec.config_from_id` still reads as its config. Each rotated row records
``metadata.circular = {"rotation", "of", "item", "option_order"}`` and its answer position in ``metadata.slot``.
Rotations are a pure function of the row: deterministic, byte for byte.

Anomaly Detection (three fields), Order Generation and the other open-answer configs are not multiple choice and
have no rotations: a circular run answers them once, as a plain run does.

Scoring (:func:`circular_aggregate`): the plain figures come from rotation 0 alone, so they are exactly those of a
plain run; an item is circular-correct iff every one of its ``k`` rotations is; its chance is the product of its
rotations' chances (``1/k**k`` for uniform guessing), and the critical value and p-value come from the exact null
of :func:`jigsaw_puzzles.scoring.score.circular_score`. A model that always answers the same letter is right on exactly
one rotation of every item, so its circular accuracy is 0.
"""
from __future__ import annotations

import hashlib
import io
import json
import re
from typing import Mapping, Sequence

from ..prompts import option_lines
from ..spec import CHOICE, LETTERS, get as get_spec

__all__ = ["is_circular", "num_rotations", "rotation_id", "parse_rotation", "is_rotation", "rotate", "rotations",
           "expand_dataset", "expand_datasets", "circular_aggregate"]

TAG = "#circ"
_ID = re.compile(r"(.+)#circ([1-9][0-9]*)")


def is_circular(config: str) -> bool:
    """Whether ``config`` is multiple choice (asked once per rotation under ``--circular``)."""
    spec = get_spec(config)
    return spec.kind == CHOICE and spec.num_options >= 2


def num_rotations(config: str) -> int:
    """How many times an item of ``config`` is asked: its number of options (1 for a config that is not
    multiple choice)."""
    return get_spec(config).num_options if is_circular(config) else 1


def rotation_id(item_id: str, r: int) -> str:
    """The id of rotation ``r`` of ``item_id``: the item's own id for 0, ``<id>#circ<r>`` otherwise."""
    return str(item_id) if int(r) == 0 else f"{item_id}{TAG}{int(r)}"


def parse_rotation(item_id: str) -> tuple[str, int]:
    """``(the item's id, rotation)`` of a row id: ``("cv/ab12", 2)`` for ``"cv/ab12#circ2"``, rotation 0 else."""
    m = _ID.fullmatch(str(item_id))
    return (m.group(1), int(m.group(2))) if m else (str(item_id), 0)


def is_rotation(item_id: str) -> bool:
    """Whether ``item_id`` names a rotation other than the item itself."""
    return parse_rotation(item_id)[1] > 0


def _pil(image):
    """A PIL image from a decoded image or a ``datasets`` ``{"bytes", "path"}`` dict."""
    if isinstance(image, dict):
        from PIL import Image

        image = Image.open(io.BytesIO(image["bytes"])) if image.get("bytes") else Image.open(image["path"])
        image.load()
    return image


def _rotated_question(question: str, old: Sequence[str], new: Sequence[str]) -> str:
    block = option_lines(list(old))
    if question.count(block) != 1:
        raise ValueError("the question does not list its options exactly once as 'A. ...' lines; its options "
                         "cannot be rotated")
    return question.replace(block, option_lines(list(new)))


def rotate(row: Mapping, config: str, r: int) -> dict:
    """Rotation ``r`` (``0 <= r < k``) of a built ``config`` row (``id``, ``images``, ``question``, ``options``,
    ``answer``, ``metadata``; other columns are kept): a new row, the input untouched. ``ValueError`` for a config
    that is not multiple choice or a row that does not match its config."""
    if not is_circular(config):
        raise ValueError(f"{config} is not multiple choice: it has no circular rotations")
    k = get_spec(config).num_options
    r = int(r)
    if not 0 <= r < k:
        raise ValueError(f"rotation {r}: {config} has rotations 0 to {k - 1}")
    options, answer = list(row["options"]), str(row["answer"]).strip()
    if len(options) != k or answer not in LETTERS[:k]:
        raise ValueError(f"{row.get('id')}: not a {config} row ({len(options)} options, answer {answer!r})")
    out = dict(row)
    if r == 0:
        return out
    order = [(i + r) % k for i in range(k)]  # new option i shows old option order[i]
    meta = json.loads(row["metadata"]) if isinstance(row.get("metadata"), str) else dict(row.get("metadata") or {})
    images = list(row["images"])
    if config.startswith("missing_piece_selection"):
        if len(images) != k + 1:
            raise ValueError(f"{row.get('id')}: {len(images)} images for {k} candidates")
        out["images"] = [images[0]] + [images[1 + j] for j in order]
    elif config.startswith("piece_localization"):
        from ..geometry import grid_boxes
        from .tasks.piece_localization import draw_masks

        if "masked_cells" not in meta or "grid" not in meta:
            raise ValueError(f"{row.get('id')}: its metadata does not say which cells are masked; its labels cannot "
                             "be redrawn")
        masked, (rows, cols) = list(meta["masked_cells"]), meta["grid"]
        if len(masked) != k:
            raise ValueError(f"{row.get('id')}: {len(masked)} masked cells for {k} labels")
        cells = [masked[j] for j in order]
        if meta.get("cut", "straight") != "straight":  # shaped masks keep their outlines: new letters only
            from .tasks.piece_localization import relabel_tab_masks

            board = _pil(images[0]).copy()  # a copy, as below
            ring = int(meta.get("tab_margin") or 0) if meta.get("cut") == "content" else 0  # the grid's ring
            relabel_tab_masks(board, rows, cols, cells, LETTERS[:k], ring)
        else:
            board = _pil(images[0]).convert("RGB")  # a copy: the row's own image is never drawn on
            draw_masks(board, grid_boxes(board.size, rows, cols), cells, LETTERS[:k])
        out["images"] = [board] + images[1:]
        meta["labels"] = dict(zip(LETTERS[:k], cells))
    else:  # the option texts: Connection Verification, Order Restoration
        out["options"] = [options[j] for j in order]
        out["question"] = _rotated_question(row["question"], options, out["options"])
        for key in ("option_orders", "option_rotations"):
            if key in meta:
                meta[key] = [meta[key][j] for j in order]
    new_slot = (LETTERS.index(answer) - r) % k
    out["answer"] = LETTERS[new_slot]
    if "slot" in meta:
        meta["slot"] = new_slot
    meta["circular"] = {"rotation": r, "of": k, "item": row["id"], "option_order": order}
    out["metadata"] = json.dumps(meta, sort_keys=True) if isinstance(row.get("metadata"), str) else meta
    out["id"] = rotation_id(row["id"], r)
    return out


def rotations(row: Mapping, config: str) -> list[dict]:
    """Every rotation of ``row`` (rotation 0, the row itself, first); the row alone for a config that is not
    multiple choice."""
    return [rotate(row, config, r) for r in range(get_spec(config).num_options)] if is_circular(config) \
        else [dict(row)]


def _expand_batch(batch: dict, config: str) -> dict:
    keys = list(batch)
    out = {key: [] for key in keys}
    for values in zip(*(batch[key] for key in keys)):
        for rotated in rotations(dict(zip(keys, values)), config):
            for key in keys:
                out[key].append(rotated[key])
    return out


def expand_dataset(ds, config: str, max_items: int | None = None, bar=None):
    """The first ``max_items`` items of ``ds`` (all by default), each followed by its rotations (a
    ``datasets.Dataset`` with the same features); ``ds`` itself, cut to ``max_items``, when not multiple choice.
    ``bar`` (a tqdm bar) advances by one per item."""
    if max_items is not None and max_items < len(ds):
        ds = ds.select(range(max_items))
    if not is_circular(config):
        return ds

    def expand(batch):
        out = _expand_batch(batch, config)
        if bar is not None:
            bar.update(len(batch["id"]))
        return out

    fingerprint = hashlib.sha256(f"{ds._fingerprint}/circular/{config}".encode()).hexdigest()[:16]
    return ds.map(expand, batched=True, batch_size=8, features=ds.features, new_fingerprint=fingerprint,
                  load_from_cache_file=False)  # never a stale cache of older code


def expand_datasets(datasets_: Mapping, max_items: int | None = None, progress: bool = False) -> dict:
    """``{config: expand_dataset(ds, config, max_items)}``, under one labelled bar ("circular rotations") when
    ``progress``: rendering every rotation of every multiple-choice item takes a while."""
    from tqdm.auto import tqdm

    total = sum(len(ds) if max_items is None else min(len(ds), max_items)
                for c, ds in datasets_.items() if is_circular(c))
    with tqdm(total=total, desc="circular rotations", unit="item", disable=not progress or not total,
              dynamic_ncols=True) as bar:
        out = {}
        for c, ds in datasets_.items():
            bar.set_postfix_str(c)
            out[c] = expand_dataset(ds, c, max_items, bar)
        return out


# ------------------------------------------------------------------------------------------------ scoring
def circular_aggregate(ids: Sequence[str], items: Sequence, references: Sequence[str],
                       configs: Sequence[str]) -> dict:
    """A circular run's metrics from its per-row verdicts (``items``: ``(Extraction, correct)`` as
    :func:`jigsaw_puzzles.scoring.score.score_items` makes them): :func:`~jigsaw_puzzles.scoring.score.aggregate` over rotation
    0 (the plain figures, equal to a plain run's), and for every multiple-choice config a ``circular`` block
    (:func:`~jigsaw_puzzles.scoring.score.circular_score`) over the items whose every rotation is answered."""
    from ..scoring.score import aggregate, circular_score, item_chance

    plain = [i for i, item_id in enumerate(ids) if not is_rotation(item_id)]
    metrics = aggregate([items[i] for i in plain], [references[i] for i in plain],
                        [configs[i] for i in plain]) if plain else {}
    groups: dict[str, dict[str, dict[int, tuple[bool, float]]]] = {}
    for item_id, (_, ok), ref, config in zip(ids, items, references, configs):
        if is_circular(config):
            base, r = parse_rotation(item_id)
            groups.setdefault(config, {}).setdefault(base, {})[r] = (bool(ok), item_chance(ref, config))
    for config, by_item in groups.items():
        k = num_rotations(config)
        whole = [g for g in by_item.values() if sorted(g) == list(range(k))]
        if whole and config in metrics:
            block = circular_score([[g[r][0] for r in range(k)] for g in whole],
                                   [[g[r][1] for r in range(k)] for g in whole])
            metrics[config]["circular"] = {**block, "rotations": k, "n_partial": len(by_item) - len(whole)}
    return metrics

