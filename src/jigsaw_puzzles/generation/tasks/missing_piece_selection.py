"""Task 1, Missing Piece Selection: which of four candidates fills the white blank?

The missing region is one cell of the source's 3x3 grid, blanked pure white.
Distractors are cells of the 3x3 grids of *other* sources (the candidate pool),
resized to the blank's size when their size differs.  A candidate closer than 8
grey levels (mean absolute difference) to the truth or to another distractor is
never used.  Easy draws them at random.  Hard takes the most CLIP-similar pool
cells by cosine similarity (ties: smaller region id), excluding near-duplicates
(cosine > 0.95); the default model is open_clip ``ViT-B-32`` with the original
``openai`` weights, because the paper cites the original CLIP (Radford et al.,
2021) and names no variant (see ``jigsaw_puzzles.generation.clip``).  Easy
and hard share the region, the answer letter and everything else but the
distractors, because both derive their randomness from the key
``missing_piece_selection``.

Beyond the paper, ``missing_piece_selection_easy_<R>x<C>`` blanks one cell of an R x C grid (cut as the order
grid configs cut it) and shows 4 candidates, ``..._k<K>`` K candidates (2-26): the true cell and K - 1 random
distractors drawn as for easy (a walk of the other sources' hash ring, the same pixel rule), resized to the
blank's size.  ``missing_piece_selection_hard_<R>x<C>[_k<K>]`` is the same item (same region, same letter: it
shares the easy grid config's randomness) with the K - 1 most CLIP-similar cells of the other sources' R x C
grids instead, mined as for the paper's hard config (the first of 2(K - 1) mined candidates that pass the
pixel rule).

Interlocking pieces (``<config>_tabs``): the hole has the true piece's exact outline, and every candidate has that
outline too (``same outline``: content alone decides); ``<config>_tabs_own`` and the silhouettes let each candidate
keep the outline of where it came from (``own outline``: shape alone can decide); ``<config>_tabs_content`` cuts
every piece with one outline (the congruent cut, ``same outline``), on a board of the grid and its ring.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from PIL import Image

from ... import geometry, prompts
from ...errors import ConfigUnavailable, install_hint
from ...rng import ItemRNG, hash_ring, item_rng, stable_hash
from ...spec import LETTERS, format_choice, get as get_spec
from .base import MIN_DISTINCT, Context, Item, PatchGetter, Task, TaskError
from .order_restoration import grid_cells, grid_reason

NUM_SLOTS = 4
GRID = 3
NUM_DISTRACTORS = 3
RNG_KEY = "missing_piece_selection"


@dataclass
class Distractor:
    """A distractor as shown: cell ``cell`` of source ``source_id`` (``similarity``: CLIP cosine, hard)."""

    source_id: str
    cell: int
    patch: Image.Image
    similarity: float | None = None


def check(image: Image.Image) -> str | None:
    return None  # every 3x3 cell is textured by curation; distractors are checked when drawn


def choose_region(rng: ItemRNG) -> int:
    return rng.child("region").randbelow(GRID * GRID)


def cell_patch(image: Image.Image, cell: int, size: tuple[int, int] | None = None) -> Image.Image:
    """Cell ``cell`` of the 3x3 grid, resized to ``size`` (Lanczos) when it differs."""
    patch = image.crop(geometry.grid_boxes(image.size, GRID, GRID)[cell])
    if size is not None and patch.size != tuple(size):
        patch = geometry.resize(patch, tuple(size), Image.Resampling.LANCZOS)  # the same on every Pillow
    return patch


def acceptable(patch: Image.Image, truth: Image.Image, chosen: Sequence[Distractor]) -> bool:
    """Not a (near-)copy of the true patch nor of a distractor already chosen."""
    return (geometry.mean_abs_diff(patch, truth) >= MIN_DISTINCT
            and all(geometry.mean_abs_diff(patch, d.patch) >= MIN_DISTINCT for d in chosen))


def random_distractors(rng: ItemRNG, source_id: str, pool_ids: Sequence[str], truth: Image.Image,
                       get_patch: PatchGetter, count: int = NUM_DISTRACTORS,
                       cells: int = GRID * GRID) -> list[Distractor]:
    """Three random cells of three distinct other sources (easy difficulty).

    The other sources are tried in the order a walk of the pool's hash ring gives (:class:`~...rng.HashRing`,
    consistent hashing: seeded points, each taking the next source clockwise), and each one's cell is a seeded
    hash of (this item, that source); a source the pixel rule refuses is passed over and the walk goes on from the
    same point. So a photo added to, removed from or replaced in the folder changes only the items whose
    distractor it becomes or was; every other item keeps its distractors. The ring is made once per pool, so an
    item's cost does not grow with the folder (generator 4.1.0; before, every other source was ranked for every
    item).
    """
    ring = hash_ring(pool_ids)
    if len(ring) - (source_id in ring) < count:
        raise TaskError(f"missing_piece_selection needs at least {count + 1} accepted sources")
    draw = rng.child("random distractors")
    chosen: list[Distractor] = []

    def accept(other: str) -> bool:
        cell = draw.child("cell", other).randbelow(cells)
        patch = get_patch(other, cell, truth.size)
        if not acceptable(patch, truth, chosen):
            return False
        chosen.append(Distractor(other, cell, patch))
        return True

    for _ in ring.walk(draw, "point", exclude=(source_id,), accept=accept):
        if len(chosen) == count:
            return chosen
    raise TaskError(f"missing_piece_selection: fewer than {count} distinct distractors in the pool")


def chosen_distractors(candidates: Sequence[tuple[str, int, float]], truth: Image.Image,
                       get_patch: PatchGetter, count: int = NUM_DISTRACTORS) -> list[Distractor]:
    """The first ``count`` mined candidates ``(source_id, cell, similarity)``, most similar first,
    that pass the same pixel rule as random ones (hard difficulty)."""
    chosen: list[Distractor] = []
    for source_id, cell, similarity in candidates:
        patch = get_patch(source_id, cell, truth.size)
        if acceptable(patch, truth, chosen):
            chosen.append(Distractor(source_id, cell, patch, similarity))
            if len(chosen) == count:
                return chosen
    raise TaskError(f"missing_piece_selection_hard: fewer than {count} mined candidates pass the pixel rule")


def make_item(image: Image.Image, rng: ItemRNG, slot: int, region: int,
              distractors: Sequence[Distractor], difficulty: str) -> Item:
    box = geometry.grid_boxes(image.size, GRID, GRID)[region]
    truth = image.crop(box)
    blanked = image.copy()
    geometry.fill(blanked, box, geometry.WHITE)
    candidates = [d.patch for d in distractors]
    candidates.insert(slot, truth)
    options = list(prompts.MISSING_PIECE_OPTIONS)
    return Item(
        images=[blanked] + candidates,
        question=prompts.MISSING_PIECE_SELECTION.format(options=prompts.option_lines(options)),
        options=options,
        answer=format_choice(slot),
        metadata={
            "grid": [GRID, GRID], "region": region, "box": list(box), "difficulty": difficulty,
            "distractors": [{"source_id": d.source_id, "cell": d.cell,
                             "similarity": d.similarity} for d in distractors],
        },
    )


# ----------------------------------------------------------------------------- the two configs

def _patch_getter(ctx: Context) -> PatchGetter:
    """Cell ``cell`` of another source, resized to the blank's size."""
    return lambda source_id, cell, size: cell_patch(ctx.load(source_id), cell, size)


def build_easy(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
    region = choose_region(rng)
    truth = cell_patch(image, region)
    distractors = random_distractors(rng, ctx.source_id, ctx.pool_ids, truth, _patch_getter(ctx))
    return make_item(image, rng, slot, region, distractors, "easy")


def _mined(ctx: Context, region: int) -> list[tuple[str, int, float]]:
    """This item's mined candidates, checked to be mined for the item's own region."""
    mined = ctx.prepared
    if mined is None or mined["region"] != region:
        raise TaskError(f"mined region {None if mined is None else mined['region']} differs from "
                        f"the item's region {region}")
    return [tuple(c) for c in mined["candidates"]]


def build_hard(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
    """Like easy (same region, same letter), with the mined candidates of :class:`HardPreparation`."""
    region = choose_region(rng)
    candidates = _mined(ctx, region)
    truth = cell_patch(image, region)
    distractors = chosen_distractors(candidates, truth, _patch_getter(ctx))
    item = make_item(image, rng, slot, region, distractors, "hard")
    item.metadata.update(ctx.prepared["clip"])
    return item


HARD = "missing_piece_selection_hard"
RANDOM_INIT = "random-init"  # an explicit clip_pretrained=None, as stored in the builder config
MINED_CANDIDATES = 6  # the 3 distractors are the first of these that also pass the pixel rule
HARD_SETTINGS = {"clip_cache_dir": None, "clip_device": None, "clip_batch_size": 64}


def configure_hard(options: dict) -> dict:
    """Normalise the hard config's options: ``None`` weights = random init (tests only), and a
    checkpoint file is fingerprinted so that replacing it invalidates cached builds."""
    options = dict(options)
    if options.get("clip_pretrained") is None:
        options["clip_pretrained"] = RANDOM_INIT
    pretrained = options["clip_pretrained"]
    if os.path.isfile(str(pretrained)):
        st = os.stat(pretrained)
        options["clip_weights_fingerprint"] = stable_hash(os.path.abspath(pretrained), st.st_size,
                                                          st.st_mtime_ns)[:16]
    return options


class HardPreparation:
    """Mines every hard item's distractor candidates once: embed every cell of every source's grid
    (``rows`` x ``cols``, disk-cached), then search the nearest cells of other sources for each item's blank.
    ``family``: the randomness the items draw their region from; ``distractors``: how many each item shows."""

    def __init__(self, options: Mapping[str, Any], settings: Mapping[str, Any], rows: int = GRID, cols: int = GRID,
                 family: str = RNG_KEY, distractors: int = NUM_DISTRACTORS):
        self.rows, self.cols, self.family, self.distractors = rows, cols, family, distractors
        try:  # offline without the default weights: say so before importing torch and open_clip (seconds)
            from ..clip.weights import ClipWeightsUnavailable as _Unavailable, quick_unavailable
            quick_unavailable(options.get("clip_model"), options.get("clip_pretrained"))
        except _Unavailable as err:
            raise ConfigUnavailable(HARD, str(err)) from err
        try:
            from ..clip import DEFAULT_MAX_SIMILARITY, ClipMiner, ClipWeightsUnavailable
            import open_clip  # noqa: F401
            import torch  # noqa: F401
        except ImportError as err:
            raise ConfigUnavailable(HARD, f"needs torch and open_clip: {install_hint('clip')} ({err})") from err
        pretrained = options.get("clip_pretrained")
        pretrained = None if pretrained in (None, RANDOM_INIT) else pretrained
        self.max_similarity = DEFAULT_MAX_SIMILARITY
        try:  # resolves the weights (never loads them here): fails in seconds offline
            self.miner = ClipMiner(options["clip_model"], pretrained, allow_random_init=pretrained is None,
                                   cache_dir=settings.get("clip_cache_dir"), device=settings.get("clip_device"),
                                   batch_size=settings.get("clip_batch_size") or 64, rows=rows, cols=cols)
        except ClipWeightsUnavailable as err:
            raise ConfigUnavailable(HARD, str(err)) from err

    @property
    def metadata(self) -> dict:
        return {**self.miner.spec.metadata(), "clip_precision": self.miner.precision,
                "clip_max_similarity": self.max_similarity}

    def prepare(self, sources: Mapping[str, str], item_ids: Sequence[str], seed: int,
                load: Callable[[str], Image.Image]) -> dict[str, Any]:
        bank = self.miner.embed_sources(sources, load)  # one image in memory at a time
        cells = self.rows * self.cols
        regions = {sid: item_rng(seed, self.family, sid).child("region").randbelow(cells) for sid in item_ids}
        targets = [(sid, *divmod(regions[sid], self.cols)) for sid in item_ids]
        # the paper's config keeps its 6 candidates for 3 distractors (its bytes); the same ratio on any k
        mined = self.miner.mine(bank, targets, k=MINED_CANDIDATES * self.distractors // NUM_DISTRACTORS,
                                strict=False)
        clip = self.metadata
        return {m.source_id: {"region": regions[m.source_id], "clip": clip,
                              "candidates": [[d.source_id, d.row * self.cols + d.col, d.similarity]
                                             for d in m.distractors]}
                for m in mined}


def _clip_defaults() -> dict:
    from ..clip.weights import DEFAULT_CLIP_MODEL, DEFAULT_CLIP_PRETRAINED  # constants: torch loads lazily
    return {"clip_model": DEFAULT_CLIP_MODEL, "clip_pretrained": DEFAULT_CLIP_PRETRAINED}


def grid_task(config: str) -> Task:
    """The task record of ``missing_piece_selection_<easy|hard>_<R>x<C>[_k<K>]`` (and of its ``_tabs`` variants)."""
    spec = get_spec(config)
    if spec.cut != "straight":
        return tab_task(config)
    rows, cols = spec.grid
    k = spec.num_options
    hard = config.startswith(HARD)

    def check_grid(image: Image.Image) -> str | None:
        return grid_reason(image, rows, cols)

    def other_cell(ctx: Context) -> PatchGetter:
        return lambda source_id, cell, size: _resized(grid_cells(ctx.load(source_id), rows, cols)[cell], size)

    def build_grid(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        cells = grid_cells(image, rows, cols)
        region = rng.child("region").randbelow(rows * cols)
        truth = cells[region]
        if hard:
            distractors = chosen_distractors(_mined(ctx, region), truth, other_cell(ctx), k - 1)
        else:
            distractors = random_distractors(rng, ctx.source_id, ctx.pool_ids, truth, other_cell(ctx), k - 1,
                                             rows * cols)
        box = geometry.grid_boxes((truth.width * cols, truth.height * rows), rows, cols)[region]
        blanked = image.crop((0, 0, truth.width * cols, truth.height * rows))
        geometry.fill(blanked, box, geometry.WHITE)
        candidates = [d.patch for d in distractors]
        candidates.insert(slot, truth)
        options = [f"Candidate {j + 1} (<image {j + 2}>)" for j in range(k)]
        question = prompts.MISSING_PIECE_SELECTION_GRID.format(
            images=prompts.image_list(k + 1), grid_words=prompts.grid_words(rows, cols), k=k,
            options=prompts.option_lines(options), letters=prompts.and_list(list(LETTERS[:k]), "or"))
        metadata = {"grid": [rows, cols], "region": region, "box": list(box), "difficulty": "hard" if hard else "easy",
                    "distractors": [{"source_id": d.source_id, "cell": d.cell, "similarity": d.similarity}
                                    for d in distractors]}
        if hard:
            metadata.update(ctx.prepared["clip"])
        return Item(images=[blanked] + candidates, question=question, options=options, answer=format_choice(slot),
                    metadata=metadata)

    if not hard:
        return Task(config, k, check_grid, build_grid,
                    f"Missing Piece Selection (easy) on a {rows}x{cols} grid: {k} candidates", __name__, min_sources=k)
    return Task(config, k, check_grid, build_grid,
                f"Missing Piece Selection (hard) on a {rows}x{cols} grid: the {k - 1} most CLIP-similar distractors",
                __name__, options=_clip_defaults(), settings=dict(HARD_SETTINGS),
                preparer=functools.partial(HardPreparation, rows=rows, cols=cols, family=spec.family,
                                           distractors=k - 1),
                configure=configure_hard, min_sources=k)


def _window(source: Image.Image, rows: int, cols: int, cell: int, like: tuple[int, int, int], clamp: bool):
    """The canvas window around cell ``cell`` of ``source``'s R x C grid (cropped as the grid configs crop it),
    scaled like the truth's canvas ``like`` = ``(cell width, cell height, margin)`` and resized to its size; what
    lies outside the photo is white, or with ``clamp`` the window is shifted inside it (every pixel a photo's)."""
    cw, ch, m = like
    sw, sh = source.width // cols, source.height // rows
    r, c = divmod(cell, cols)
    mx, my = round(m * sw / cw), round(m * sh / ch)
    left, top, right, bottom = c * sw - mx, r * sh - my, (c + 1) * sw + mx, (r + 1) * sh + my
    if clamp:
        dx = max(0, -left) - max(0, right - sw * cols)
        dy = max(0, -top) - max(0, bottom - sh * rows)
        left, right, top, bottom = left + dx, right + dx, top + dy, bottom + dy
    photo = np.asarray(source.convert("RGB"))[:sh * rows, :sw * cols]
    from ..tabs.render import crop

    window = Image.fromarray(crop(photo, (left, top, right, bottom)))
    return np.asarray(_resized(window, (cw + 2 * m, ch + 2 * m)))


def tab_task(config: str) -> Task:
    """The task record of ``missing_piece_selection_<easy|hard>[_<R>x<C>][_k<K>]_tabs[_own]`` and
    ``..._tabs_silhouette``: the straight config's item (region, letter, distractors) with the hole cut to the
    true piece's exact outline (transparent, white beneath) and shaped candidates. Distractor policy, recorded
    per item as ``distractor_policy``: ``same outline`` (``_tabs``: every candidate cut with the hole's outline
    from a window of its photo around its cell, so content alone decides) or ``own outline`` (``_tabs_own``,
    and every silhouette: each candidate keeps the outline of where it came from, a cut of its own photo's grid
    drawn for this item, so shape alone can decide). Under ``own outline`` the cut is re-drawn until every
    distractor's outline differs from the hole's (:data:`.shaped.MIN_MISFIT_PX`)."""
    from ..tabs import Cut, board, piece, remove
    from ..tabs.render import SILHOUETTE_GREY, rgba
    from . import shaped

    spec = get_spec(config)
    rows, cols = spec.grid
    straight = shaped.straight(config)
    base = next((t for t in TASKS if t.config == straight), None) or grid_task(straight)
    silhouette, content = spec.cut == "silhouette", spec.cut == "content"
    own = silhouette or config.endswith("_own")

    def build_tabs(image: Image.Image, rng: ItemRNG, slot: int, ctx: Context) -> Item:
        if content:  # the congruent cut: the hole and every candidate have every piece's outline
            photo, image, cut, meta = shaped.content(image, rows, cols)
        else:
            photo, cell = shaped.cut_cells(image, rows, cols)
        item = base.build(image, rng, slot, ctx)
        region, others = item.metadata["region"], item.metadata["distractors"]
        owns: dict = {}

        def own_outlines(cut, attempt) -> str | None:
            owns.clear()
            truth = cut.alpha(region).astype(np.int64)
            for d in others:
                alpha = Cut.draw(rng.child("own cut", d["source_id"], attempt), rows, cols, cell).alpha(d["cell"])
                diff = np.abs(alpha.astype(np.int64) - truth).sum() / 255
                if diff < shaped.MIN_MISFIT_PX:
                    return f"distractor {d['source_id']} has the hole's outline ({diff:.1f} px apart)"
                owns[d["source_id"], d["cell"]] = alpha
            return None

        if not content:
            cut, redraws = shaped.draw_cut(rng, rows, cols, cell, own_outlines if own else None, attempts=True)
            meta = shaped.metadata(cut, silhouette, redraws)
        truth, cell = cut.alpha(region), cut.cell
        like = (cell[0], cell[1], cut.margin)
        candidates = []
        for d in others:
            alpha = owns[d["source_id"], d["cell"]] if own else truth
            pixels = np.broadcast_to(np.array(SILHOUETTE_GREY, np.uint8), alpha.shape + (3,)) if silhouette else \
                _window(ctx.load(d["source_id"]), rows, cols, d["cell"], like, clamp=not own)
            candidates.append(rgba(pixels, alpha))
        candidates.insert(slot, piece(photo, cut, region, truth, silhouette))
        holed = board(photo, cut, silhouette)
        remove(holed, truth, cut.canvas_box(region))
        item.images = shaped.images([holed] + candidates)
        item.question = shaped.question(item.question, silhouette)
        item.metadata.update(meta, distractor_policy="own outline" if own else "same outline")
        item.metadata["box"] = list(cut.cell_boxes()[region])
        return item

    return Task(config, base.num_slots, (shaped.content_check if content else shaped.check)(base.check, rows, cols),
                build_tabs, f"{base.summary}, as {shaped.words(spec.cut)}" + (" keeping their own outlines" * own),
                __name__, options=base.options, settings=base.settings, preparer=base.preparer,
                configure=base.configure, min_sources=base.min_sources)


def _resized(patch: Image.Image, size) -> Image.Image:
    return patch if patch.size == tuple(size) else geometry.resize(patch, tuple(size), Image.Resampling.LANCZOS)


TASKS = [
    Task("missing_piece_selection_easy", NUM_SLOTS, check, build_easy,
         "Missing Piece Selection (easy): random distractors", __name__, min_sources=NUM_DISTRACTORS + 1),
    Task(HARD, NUM_SLOTS, check, build_hard,
         "Missing Piece Selection (hard): the three most CLIP-similar distractors", __name__,
         options=_clip_defaults(), settings=dict(HARD_SETTINGS),
         preparer=HardPreparation, configure=configure_hard, min_sources=NUM_DISTRACTORS + 1),
]
