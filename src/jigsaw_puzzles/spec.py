"""The benchmark's contract: what Jigsaw-Puzzles *is*, in one place.

Everything that must agree between the generator, the scorer, the metric, the runner and the report lives here
and nowhere else:

* one :class:`ConfigSpec` per config (:data:`CONFIGS`, in the paper's Table-2 order): the task family whose
  randomness it shares, its Table-2 column, its answer kind and answer space, how many images a row carries,
  how its pieces are cut, and the accuracy of uniform guessing; the names of the configs beyond the paper;
* the canonical answer strings and their formatters and parsers (:func:`format_choice`, :func:`format_anomaly`,
  :func:`format_order`, :func:`parse_reference`, :func:`answer_space`);
* the row schema (:func:`features`), the splits, the Lite share and the citation.

This module imports nothing heavy (no PIL, no ``datasets`` at import time) so the metric, the scorer and the
harness integrations can depend on it alone. A new config is one task module under ``tasks/`` plus one entry in
:data:`CONFIGS`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import permutations
from typing import Iterable, Sequence

__all__ = [
    "LETTERS", "CHOICE", "ANOMALY", "ORDER", "ConfigSpec", "CONFIGS", "PAPER_CONFIGS", "SPLITS",
    "LITE_FRACTION", "ANOMALY_CHANCE_UNCHANGED", "ANOMALY_CHANCE_ALTERED", "ANOMALY_MIX",
    "format_choice", "format_anomaly", "anomaly_answers", "format_order", "parse_reference", "answer_space",
    "config_from_id", "get", "select_configs", "features", "CITATION", "HOMEPAGE", "GENERATOR_VERSION",
    "GRID_BASES", "MAX_GRID_SIDE", "grid_config", "is_config", "is_answer", "ORIENTED", "ROTATIONS",
    "format_oriented", "parse_oriented", "canonical", "CUTS",
]

#: Option letters, in order: option ``k`` (0-based) is ``LETTERS[k]``.
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: Answer kinds: one option letter; the three-line anomaly block; a permutation list; a permutation with each
#: piece's rotation (the ``_rot`` order configs beyond the paper: ``[(2, 90), (3, 0), (1, 270), (4, 180)]``).
CHOICE, ANOMALY, ORDER, ORIENTED = "choice", "anomaly", "order", "oriented_order"
#: The rotations of the ``_rot`` configs: clockwise degrees that turn a shown piece upright.
ROTATIONS = (0, 90, 180, 270)

SPLITS = ("test", "lite")
LITE_FRACTION = 0.2  # 220 of the paper's 1,100 images

#: Version of the item generator. Items for the same folder and seed are byte-identical within one generator
#: version; a change of any item is a new version, listed in docs/tasks.md ("Generator versions"), e.g. 3.1.0:
#: hard distractors reproducible across CPUs, near-duplicate photos found by perceptual hash. In every item.
GENERATOR_VERSION = "4.1.0"

#: Anomaly Detection under uniform guessing (judgment A/B, then position and type):
#: right with probability 1/2 on an unchanged item and 1/2 * 1/4 * 1/2 on an altered one.
ANOMALY_CHANCE_UNCHANGED = 1 / 2
ANOMALY_CHANCE_ALTERED = 1 / 16
def anomaly_chance_altered(positions: int = 4) -> float:
    """Uniform guessing on an altered item: judgment B, then the position, then the type (1/16 on 2x2)."""
    return 1 / 2 * 1 / positions * 1 / 2


#: The generator's unchanged : altered mix (2 : 1 rotated : 1 mirrored = 1 : 1).
ANOMALY_MIX = (1, 1)


@dataclass(frozen=True)
class ConfigSpec:
    """One config of the benchmark.

    name: the config name (a ``datasets`` config and the row-id prefix). family: configs of one family share
        their randomness (easy/hard Missing Piece Selection share the region and letter; Order Restoration and
        Generation the shuffle; a config and its ``_tabs`` cuts everything but the cut).
    title: the paper's term. short: the Table-2 column label.
    kind: ``CHOICE``, ``ANOMALY`` or ``ORDER``. num_options: option letters of a choice task (anomaly:
        positions). num_images: images per row. grid: ``(rows, cols)`` it is cut on.
    in_overall: whether the paper's "Overall" averages it (Order Generation is reported apart).
    """

    name: str
    family: str
    title: str
    short: str
    kind: str
    num_options: int
    num_images: int
    grid: tuple[int, int]
    in_overall: bool = True
    #: pieces shown turned by a multiple of 90 degrees, the answer naming each one's rotation (``_rot``)
    rotated: bool = False
    #: how the pieces are cut, one of :data:`CUTS`: ``straight`` (the paper), ``tabs``, ``silhouette`` or ``content``
    cut: str = "straight"

    @property
    def letters(self) -> str:
        """Option letters of a choice task (``""`` for the other kinds)."""
        return LETTERS[: self.num_options] if self.kind == CHOICE else ""

    @property
    def order_length(self) -> int:
        return self.grid[0] * self.grid[1]

    @property
    def chance(self) -> float:
        """Accuracy (fraction) of uniform guessing; Anomaly Detection for :data:`ANOMALY_MIX`."""
        if self.kind == CHOICE:
            return 1 / self.num_options
        if self.kind in (ORDER, ORIENTED):  # n! orders, times 4**n turns when the pieces are rotated
            return 1 / (math.factorial(self.order_length) * len(ROTATIONS) ** (self.order_length * self.rotated))
        unchanged, altered = ANOMALY_MIX
        return (unchanged * ANOMALY_CHANCE_UNCHANGED + altered * anomaly_chance_altered(self.num_options)) / \
            (unchanged + altered)


_ALL = [
    ConfigSpec("missing_piece_selection_easy", "missing_piece_selection", "Missing Piece Selection (easy)",
               "MPS Easy", CHOICE, 4, 5, (3, 3)),
    ConfigSpec("missing_piece_selection_hard", "missing_piece_selection", "Missing Piece Selection (hard)",
               "MPS Hard", CHOICE, 4, 5, (3, 3)),
    ConfigSpec("piece_localization_easy", "piece_localization_easy", "Piece Localization (easy)",
               "PL Easy", CHOICE, 2, 2, (2, 2)),
    ConfigSpec("piece_localization_hard", "piece_localization_hard", "Piece Localization (hard)",
               "PL Hard", CHOICE, 4, 2, (3, 3)),
    ConfigSpec("connection_verification", "connection_verification", "Connection Verification",
               "CV", CHOICE, 3, 2, (2, 2)),
    ConfigSpec("anomaly_detection", "anomaly_detection", "Anomaly Detection", "AD", ANOMALY, 4, 1, (2, 2)),
    ConfigSpec("order_restoration", "order", "Order Restoration", "OR", CHOICE, 4, 4, (2, 2)),
    ConfigSpec("order_generation", "order", "Order Generation", "OG", ORDER, 0, 4, (2, 2), in_overall=False),
]
#: Every config, in the paper's table order.
CONFIGS: dict[str, ConfigSpec] = {c.name: c for c in _ALL}
#: The seven columns of the paper's Table 2 that "Overall" averages, in table order.
PAPER_CONFIGS: tuple[str, ...] = tuple(c.name for c in _ALL if c.in_overall)


#: Configs beyond the paper: ``<base>_<R>x<C>`` cuts a base config's task on an R x C grid (R, C in 1..8, at
#: least 2 cells; 2x2 is the paper's own config). They are never part of Table 2 or "Overall".
GRID_BASES = ("order_restoration", "order_generation", "connection_verification", "piece_localization",
              "anomaly_detection", "missing_piece_selection_easy", "missing_piece_selection_hard")
_MPS = ("missing_piece_selection_easy", "missing_piece_selection_hard")
#: Smallest grid side per base (Connection Verification needs a horizontal and a vertical neighbour pair).
_MIN_SIDE = {"connection_verification": 2}
MAX_GRID_SIDE = 8
_GRID_NAME = re.compile(r"(" + "|".join(GRID_BASES) + r")_(\d+)x(\d+)(?:_k(\d+))?(_8dir)?(_rot)?")
#: The bases that take unknown orientation (``_rot``): each piece also turned by 0, 90, 180 or 270 degrees.
ROTATION_BASES = ("order_restoration", "order_generation")
#: Connection Verification's 8-direction variant (Jigsaw-R1): where <image 2> lies among <image 1>'s 8 neighbours.
DIRECTIONS = ("right", "left", "above", "below", "upper right", "upper left", "lower right", "lower left")
#: Piece Localization on a grid masks this many cells unless the name says ``_k<K>`` (2 to min(26, cells - 1)).
DEFAULT_MASKS = 4
_GRID_SPECS: dict[str, ConfigSpec] = {}


def grid_config(base: str, rows: int, cols: int, masks: int | None = None, eight: bool = False,
                rotated: bool = False) -> str:
    """The name of ``base`` cut on ``rows`` x ``cols`` (``"order_generation_3x3"``); the paper's config for its
    own grid. ``masks``: Piece Localization's number of masked cells (``piece_localization_4x4_k6``; default
    :data:`DEFAULT_MASKS`, or all cells but one of a smaller grid), or Missing Piece Selection's number of
    candidates. ``rotated``: unknown orientation (``order_generation_3x3_rot``, 2x2 included), for the
    :data:`ROTATION_BASES`. ``ValueError`` for a base without grids or a grid out of range."""
    if rotated:
        if base not in ROTATION_BASES:
            raise ValueError(f"{base} has no rotated variant (unknown orientation exists for "
                             f"{' and '.join(ROTATION_BASES)})")
        if masks is not None or eight:
            raise ValueError(f"{base} takes no number of masks and no 8 directions")
        return grid_config(base, rows, cols) + ("" if (rows, cols) != CONFIGS[base].grid else f"_{rows}x{cols}") \
            + "_rot"
    if base in ("piece_localization_easy", "piece_localization_hard"):
        base = "piece_localization"
    if base not in GRID_BASES:
        raise ValueError(f"{base!r} takes no grid; grids exist for {', '.join(GRID_BASES)}")
    rows, cols = int(rows), int(cols)
    if not (1 <= rows <= MAX_GRID_SIDE and 1 <= cols <= MAX_GRID_SIDE) or rows * cols < 2:
        raise ValueError(f"grid {rows}x{cols}: rows and columns are 1-{MAX_GRID_SIDE}, with at least 2 cells")
    low = _MIN_SIDE.get(base, 1)
    if min(rows, cols) < low:
        raise ValueError(f"grid {rows}x{cols}: {base} needs at least {low} rows and {low} columns")
    if base == "piece_localization":  # at least one cell stays unmasked: the piece needs a context
        most = min(26, rows * cols - 1)
        default = min(DEFAULT_MASKS, most)
        k = default if masks is None else int(masks)
        if not 2 <= k <= most:
            raise ValueError(f"{k} masks: Piece Localization masks 2 to {max(2, most)} cells of a {rows}x{cols} "
                             "grid, leaving at least one cell unmasked")
        for paper in ("piece_localization_easy", "piece_localization_hard"):
            if (rows, cols) == CONFIGS[paper].grid and k == CONFIGS[paper].num_options:
                return paper
        return f"{base}_{rows}x{cols}" + ("" if k == default else f"_k{k}")
    if base in _MPS:  # K candidates: the true cell and K - 1 distractors (random / CLIP-mined)
        k = DEFAULT_MASKS if masks is None else int(masks)
        if not 2 <= k <= len(LETTERS):
            raise ValueError(f"{k} candidates: Missing Piece Selection shows 2 to {len(LETTERS)} candidates")
        if (rows, cols) == CONFIGS[base].grid and k == CONFIGS[base].num_options:
            return base
        return f"{base}_{rows}x{cols}" + ("" if k == DEFAULT_MASKS else f"_k{k}")
    if eight:
        if base != "connection_verification":
            raise ValueError(f"{base} has no 8-direction variant (Connection Verification has)")
        if min(rows, cols) < 2:
            raise ValueError(f"grid {rows}x{cols}: the 8-direction variant needs at least 2 rows and 2 columns")
        return f"{base}_{rows}x{cols}_8dir"
    if masks is not None:
        raise ValueError(f"{base} takes no number of masks")
    if base == "anomaly_detection" and rows * cols > len(LETTERS):
        raise ValueError(f"grid {rows}x{cols}: Anomaly Detection names each cell by a letter, so at most "
                         f"{len(LETTERS)} cells")
    return base if (rows, cols) == CONFIGS[base].grid else f"{base}_{rows}x{cols}"


def _grid_spec(config: str) -> ConfigSpec | None:
    m = _GRID_NAME.fullmatch(config) if type(config) is str else None
    if m is None:
        return None
    spec = _GRID_SPECS.get(config)
    if spec is None:
        base, rows, cols, masks = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4) or 0) or None
        eight, rotated = bool(m.group(5)), bool(m.group(6))
        name = grid_config(base, rows, cols, masks, eight, rotated)  # ValueError out of range
        if name in CONFIGS and not re.search(r"(?<![0-9])0", config):  # a paper config on its own grid, named
            return CONFIGS[name]  # explicitly: an alias of it (its spec, its items)
        if name != config:  # e.g. a default _k or a zero-padded size spelled out
            raise ValueError(f"{config!r}: use {name!r}")
        paper = CONFIGS["piece_localization_hard" if base == "piece_localization" else base]
        tag = f"{rows}x{cols}"
        n_orders = math.factorial(rows * cols)
        order = paper.kind == ORDER or paper.family == "order"
        options = min(paper.num_options, n_orders) if order else paper.num_options
        title, short = f"{paper.title} ({tag})", f"{paper.short} {tag}"
        if base == "anomaly_detection":
            options = rows * cols  # the error positions: one letter per cell
        family = None
        if base in _MPS:
            options = masks or DEFAULT_MASKS
            level = base.rsplit("_", 1)[1]
            title = f"Missing Piece Selection ({level}, {tag}, {options} candidates)"
            short = f"MPS{' Hard' if level == 'hard' else ''} {tag}" + (f" k{masks}" if masks else "")
            # hard shares the easy config's randomness (region, letter), as the paper's two configs do
            family = grid_config("missing_piece_selection_easy", rows, cols, masks)
        if eight:
            options = len(DIRECTIONS)
            title, short = f"Connection Verification, 8 directions ({tag})", f"CV8 {tag}"
        if base == "piece_localization":
            options = masks or min(DEFAULT_MASKS, rows * cols - 1)
            title, short = f"Piece Localization ({tag}, {options} masks)", f"PL {tag}" + (f" k{masks}" if masks else "")
        kind = paper.kind
        if rotated:  # the order answers name each piece's rotation too: 4**n times as many
            n_orders *= len(ROTATIONS) ** (rows * cols)
            options = min(paper.num_options, n_orders) if paper.kind == CHOICE else 0
            kind = ORIENTED if paper.kind == ORDER else CHOICE
            title, short, tag = f"{paper.title} ({tag}, rotated pieces)", f"{paper.short} {tag} rot", f"{tag}_rot"
        spec = _GRID_SPECS[config] = ConfigSpec(config, family or (f"order_{tag}" if order else config), title, short,
                                                kind, options, rows * cols if order else options + 1 if base in _MPS
                                                else paper.num_images, (rows, cols), in_overall=False, rotated=rotated)
    return spec


def get(config: str) -> ConfigSpec:
    """The spec of ``config`` (a paper config or a grid config such as ``order_generation_3x3``); a clear
    ``ValueError`` for an unknown name."""
    try:
        return CONFIGS[config]
    except (KeyError, TypeError):
        pass
    spec = _grid_spec(config) or _cut_spec(config)
    if spec is None:
        raise ValueError(f"unknown config {config!r}; choose from {', '.join(CONFIGS)}, or a grid config "
                         f"<{'|'.join(GRID_BASES)}>_<R>x<C>[_rot], each also as <config>_tabs[_silhouette|_content]")
    return spec


#: The cuts (:attr:`ConfigSpec.cut`), one family with ``<config>``: ``_tabs`` (shape + content), ``_tabs_silhouette``
#: (shape only), ``_tabs_content`` (content only); MPS's ``_tabs_own``. Never in Table 2 (docs/tasks.md, Interlocking).
CUTS = ("straight", "tabs", "silhouette", "content")
_CUT_NAME = re.compile(r"(.+?)_tabs(_own)?(_silhouette|_content)?")


def _cut_spec(config: str) -> ConfigSpec | None:
    m = _CUT_NAME.fullmatch(config) if type(config) is str else None
    if m is None or not is_config(m.group(1)) or get(m.group(1)).cut != "straight":
        return None
    (base, own, cut), straight = m.groups(), get(m.group(1))
    if straight.name != base:  # an alias: order_generation_2x2_tabs
        return get(straight.name + config[len(base):])
    if (own and (cut or not base.startswith("missing_piece_selection"))) or (cut and straight.rotated) or \
            (cut == "_silhouette" and base.endswith("_8dir")):
        raise ValueError(f"{config!r}: no such cut; '_own' (candidates keep their own outlines) is Missing Piece "
                         "Selection's, an outline cannot tell a whole-picture turn or a diagonal neighbour, so '_rot' "
                         "and '_8dir' have no silhouette control, and '_rot' no content control (with one tab a side "
                         "no outline is the same for every piece and under every quarter turn)")
    word, short = {"_silhouette": ("tab silhouettes", " sil"), "_content": ("tabs, content only", " tabs con"),
                   None: ("tabs, own outlines", " tabs own") if own else ("tabs", " tabs")}[cut]
    return _GRID_SPECS.setdefault(config, replace(straight, name=config, title=f"{straight.title} [{word}]",
                                                  short=straight.short + short, in_overall=False,
                                                  cut=cut[1:] if cut else "tabs"))


def canonical(config: str) -> str:
    """The config's own name: ``order_generation_2x2`` (a paper config on its own grid) is ``order_generation``."""
    return get(config).name


def is_config(config: str) -> bool:
    try:
        return bool(get(config))
    except ValueError:
        return False


def config_from_id(row_id: str) -> str:
    """``"order_restoration/3f2a9c0d1e4b5a67"`` -> ``"order_restoration"`` (row ids are ``config/source``)."""
    config = str(row_id).split("/", 1)[0]
    if not is_config(config):
        raise ValueError(f"cannot derive a config from id {row_id!r}")
    return config


# ----------------------------------------------------------------------------- canonical answers

def format_choice(index: int) -> str:
    """The answer letter of option ``index`` (0-based)."""
    return LETTERS[index]


def format_anomaly(position: str | None = None, kind: str | None = None) -> str:
    """The exact three-line Anomaly Detection answer (Appendix B): ``Judgment``, ``Error Position``,
    ``Error Type``; the last two empty for an unchanged image."""
    if position is None:
        return "Judgment: A\nError Position:\nError Type:"
    return f"Judgment: B\nError Position: {position}\nError Type: {kind}"


def format_order(order: Iterable[int]) -> str:
    """``[2, 3, 1, 4]``: the paper's Python-style list of 1-based indices."""
    return "[" + ", ".join(str(int(i)) for i in order) + "]"


def format_oriented(order: Iterable[int], rotations: Iterable[int]) -> str:
    """``[(2, 90), (3, 0), (1, 270), (4, 180)]``: per region (row by row), the 1-based index of the shuffled
    image that belongs there and the clockwise degrees that turn it upright (the ``_rot`` configs)."""
    return "[" + ", ".join(f"({int(i)}, {int(r)})" for i, r in zip(order, rotations)) + "]"


_PAIR = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_ORIENTED_BODY = re.compile(r"\[\s*(\(\s*\d+\s*,\s*\d+\s*\)(?:\s*,\s*\(\s*\d+\s*,\s*\d+\s*\))*)\s*\]")


def parse_oriented(answer: str) -> tuple[list[int], list[int]] | None:
    """``(order, rotations)`` of a canonical (or whitespace-varied) oriented order, else ``None``."""
    m = _ORIENTED_BODY.fullmatch(answer.strip()) if type(answer) is str else None
    if m is None:
        return None
    pairs = [(int(i), int(r)) for i, r in _PAIR.findall(m.group(1))]
    return [i for i, _ in pairs], [r for _, r in pairs]


def anomaly_answers(positions: int = 4) -> list[str]:
    """The Anomaly Detection answers in option order: unchanged, then (position, type) pairs."""
    return [format_anomaly()] + [format_anomaly(p, t) for p in LETTERS[:positions] for t in "AB"]


@lru_cache(maxsize=None)
def answer_space(config: str) -> frozenset[str]:
    """Every canonical answer of ``config`` (letters; the 9 anomaly blocks; the n! orders)."""
    spec = get(config)
    if spec.kind == CHOICE:
        return frozenset(spec.letters)
    if spec.kind == ANOMALY:
        return frozenset(anomaly_answers(spec.num_options))
    if spec.kind == ORDER and spec.order_length <= 6:
        return frozenset(format_order(p) for p in permutations(range(1, spec.order_length + 1)))
    raise ValueError(f"{config}: too many answers to list; use is_answer()")


def is_answer(answer: str, config: str) -> bool:
    """Whether ``answer`` is a canonical answer of ``config`` (an order: any permutation of 1..n)."""
    spec = get(config)
    if spec.kind == ORIENTED:
        parsed = parse_oriented(answer)
        return parsed is not None and format_oriented(*parsed) == answer and \
            sorted(parsed[0]) == list(range(1, spec.order_length + 1)) and all(r in ROTATIONS for r in parsed[1])
    if spec.kind == ORDER and spec.order_length > 6:
        m = _ORDER_BODY.fullmatch(answer)
        return m is not None and format_order(m.group(1).split(",")) == answer and \
            sorted(int(v) for v in m.group(1).split(",")) == list(range(1, spec.order_length + 1))
    return answer in answer_space(config)


_LINE_SPACE = re.compile(r"[ \t\r\f\v]+")
_ORDER_BODY = re.compile(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]")


def parse_reference(reference: object, config: str) -> str:
    """The canonical form of a reference answer, or ``ValueError`` if it is not one.

    Whitespace and case are normalised as for predictions (trailing spaces, ``\\r\\n`` or a lone
    ``\\r``, blank lines, ``b`` for ``B``, ``[2,3,1,4]``); anything else is malformed. Memoised for string
    arguments (a benchmark has a handful of distinct answers per config; score() reads each more than once).
    """
    if type(reference) is str and type(config) is str:
        return _parse_reference(reference, config)
    return _parse_reference.__wrapped__(reference, config)


@lru_cache(maxsize=65_536)
def _parse_reference(reference: object, config: str) -> str:
    spec = get(config)
    text = str(reference)
    if spec.kind == CHOICE:
        ref = text.strip().upper()
    elif spec.kind == ANOMALY:
        lines = [_LINE_SPACE.sub(" ", line).strip() for line in text.splitlines()]  # \n, \r\n and a lone \r
        lines = [line for line in lines if line]
        fixed = []
        for line in lines:
            head, sep, value = line.partition(":")
            fixed.append(f"{head.strip().title()}:" + (f" {value.strip().upper()}" if value.strip() else "")
                         if sep else line)
        ref = "\n".join(fixed)
    elif spec.kind == ORIENTED:
        parsed = parse_oriented(text)
        ref = format_oriented(*parsed) if parsed else text.strip()
    else:
        m = _ORDER_BODY.fullmatch(text.strip())
        ref = format_order(m.group(1).split(",")) if m else text.strip()
    if not is_answer(ref, config):
        raise ValueError(f"reference {reference!r} is not a valid {config} answer (see the README, 'Row schema')")
    return ref


def features():
    """The row schema as ``datasets.Features`` (imported lazily)."""
    import datasets

    s = lambda: datasets.Value("string")  # noqa: E731
    return datasets.Features({"id": s(), "source_id": s(), "images": datasets.List(datasets.Image()), "question": s(),
                              "options": datasets.List(s()), "answer": s(), "metadata": s(), "source_license": s(),
                              "source_attribution": s(), "source_url": s()})


HOMEPAGE = "https://zesen01.github.io/jigsaw-puzzles"
CITATION = """\
@misc{lyu2025jigsawpuzzles,
  title={Jigsaw-Puzzles: From Seeing to Understanding to Reasoning in Vision-Language Models},
  author={Lyu, Zesen and Zhang, Dandan and Ye, Wei and Li, Fangdi and Jiang, Zhihang and Yang, Yao},
  howpublished={\\url{https://zesen01.github.io/jigsaw-puzzles}},
  year={2025}
}
"""


def select_configs(configs: Sequence[str] | None = None) -> list[str]:
    """``configs`` in table order, grid configs after them in the order given (all paper configs when
    ``None``), with a clear error for unknown names."""
    if configs is None:
        return list(CONFIGS)
    unknown = [c for c in configs if not is_config(c)]
    if unknown:
        raise ValueError(f"unknown config(s) {', '.join(map(str, unknown))}; choose from {', '.join(CONFIGS)}, or "
                         f"a grid config <{'|'.join(GRID_BASES)}>_<R>x<C>[_rot]")
    return [c for c in CONFIGS if c in set(configs)] + list(dict.fromkeys(c for c in configs if c not in CONFIGS))
