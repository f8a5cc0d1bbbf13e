"""Oriented orders: the ``_rot`` configs' ``[(2, 90), (3, 0), (1, 270), (4, 180)]`` in the ways models write it.

A pair is ``(image, degrees)`` or ``[image, degrees]``, the image optionally written ``<image 2>`` or ``image 2``
and the degrees optionally followed by ``°`` or ``deg``/``degrees``; a list is such pairs inside ``[...]``,
separated by commas or spaces, or (alone on the last line) the pairs without the outer brackets. The cascade is
the order lists' one: the list of a ``\\boxed{}``, after an answer phrase ("Final answer: [...]") or in a
``print(...)``, the one ending last, wins; then the whole response, then the last line, then the last list
mentioned. A negated list ("not [(1, 0), ...]", "[...] is wrong") is never a candidate. An answer is parsed only
with one pair per region, the images a permutation of 1..n and every rotation one of 0, 90, 180, 270;
anything else is invalid (a plain order without rotations too: it is not an answer to the question). A response
with no such list at all may give the pieces in prose, region by region (:mod:`.prose`).
"""

from __future__ import annotations

import re
from typing import Optional

from ...spec import ROTATIONS, format_oriented
from .common import AMBIGUOUS, INVALID, PARSED, Extraction, _clean, _finditer, _last_boxed, _lowered, _negated, _start
from .hedge import list_hedged
from .order import _ORDER_KEYS, _ORDER_MARKER
from .prose import oriented_prose

_PAIR_BODY = r"[(\[]\s*(?:<?image\s*|img\s*|#)?(\d{1,3})>?\s*,\s*(\d{1,4})\s*(?:°|deg(?:rees?)?)?\s*[)\]]"
_PAIR = re.compile(_PAIR_BODY, re.I)
_LIST = re.compile(r"\[\s*" + _PAIR_BODY + r"(?:\s*,?\s*" + _PAIR_BODY + r")*\s*,?\s*\]", re.I)
_BARE = re.compile(_PAIR_BODY + r"(?:\s*,?\s*" + _PAIR_BODY + r")*", re.I)
_PRINT = re.compile(r"print\s*\(\s*(?P<val>\[[^\n]{0,400}\])\s*\)")


def _pairs(s: str) -> tuple[tuple[int, int], ...]:
    return tuple((int(i), int(r)) for i, r in _PAIR.findall(s))


def _result(pairs: tuple[tuple[int, int], ...], rule: str, n: int) -> Extraction:
    parts = {"order": tuple(i for i, _ in pairs), "rotations": tuple(r for _, r in pairs)} if len(pairs) == n else {}
    if not parts:
        return Extraction(None, INVALID, rule, f"{len(pairs)} (image, rotation) pairs, not {n}")
    if sorted(parts["order"]) != list(range(1, n + 1)):
        return Extraction(None, INVALID, rule, f"images {list(parts['order'])[:70]} are not a permutation of 1-{n}",
                          parts)
    if not set(parts["rotations"]) <= set(ROTATIONS):
        return Extraction(None, INVALID, rule, "a rotation other than 0, 90, 180 or 270 degrees", parts)
    return Extraction(format_oriented(parts["order"], parts["rotations"]), PARSED, rule, "", parts)


def _affirmed(frag: str) -> Optional[tuple[int, ...]]:
    """The pairs of the last list in ``frag`` that is not negated, else ``None``."""
    last = None
    for m in _LIST.finditer(frag):
        if not _negated(frag, m.start(), m.end()):
            last = _pairs(m.group(0))
    return last


_REJECTED = re.compile(r"(?<![A-Za-z])(?:tried|try|initially|considered|tested|wait|actually|wrong|instead"
                       r"|reconsider|mistake|correction)(?![A-Za-z])", re.I)


def _from_prose(t: str, said, n: int, block: int) -> Extraction:
    """The prose statement's reading, unless a different list before it stands (not ruled out, tried or
    withdrawn): then the text gives two answers."""
    if said == AMBIGUOUS:
        return Extraction(None, AMBIGUOUS, "prose", "the pieces' prose leaves more than one answer open")
    ex = _result(tuple(said), "prose", n)
    for m in _LIST.finditer(t, 0, block):
        if _pairs(m.group(0)) == tuple(said) or _negated(t, m.start(), m.end()):
            continue
        if not (_REJECTED.search(t, t.rfind("\n", 0, m.start()) + 1, m.start())
                or _REJECTED.search(t, m.end(), block)):
            return Extraction(None, AMBIGUOUS, "prose", "a different list before the prose is not withdrawn")
    return ex


def _oriented(t: str, strict: bool, n: int, grid: Optional[tuple[int, int]] = None) -> Extraction:
    cands: list[tuple[int, str, tuple]] = []
    boxed = _last_boxed(t)
    if boxed is not None:
        end, content = boxed
        cands.append((end, "boxed", _affirmed(_clean(content)) or _pairs(content)))
    tl = _lowered(t)
    for m in _finditer(_ORDER_MARKER, t, tl, _start(tl, _ORDER_KEYS, 0)):
        b = _LIST.match(t, m.end())
        if b is not None and not _negated(t, m.end(), b.end()):
            cands.append((b.end(), "marker", "hedge" if list_hedged(t, b.start(), b.end()) else _pairs(b.group(0))))
    if "print" in t:
        for m in _PRINT.finditer(t):
            cands.append((m.end(), "code", _pairs(m.group("val"))))
    if cands:
        end, rule, pairs = max(cands, key=lambda c: c[0])
        if pairs == "hedge":
            return Extraction(None, AMBIGUOUS, rule, "hedged: two lists left open")
        if not pairs:
            return Extraction(None, INVALID, rule, "unreadable final answer")
        return _result(pairs, rule, n)
    if strict:
        return Extraction(None, INVALID, "none", "unterminated <think> block without a final answer")
    if any(list_hedged(t, m.start(), m.end()) for m in _LIST.finditer(t) if not _negated(t, m.start(), m.end())):
        return Extraction(None, AMBIGUOUS, "mention", "hedged: two lists left open")  # "[(...)] or [(...)]"
    where: list[int] = []
    said = oriented_prose(t, *grid, where) if grid is not None and grid[0] * grid[1] == n else None
    if said is not None:  # the text ends with the pieces in prose: the final statement
        return _from_prose(t, said, n, where[0] if where else len(t))
    stripped = t.strip().strip(".")
    if _LIST.fullmatch(stripped) or _BARE.fullmatch(stripped):
        return _result(_pairs(stripped), "short", n)
    lines = [ln.strip().strip(".") for ln in t.splitlines() if ln.strip()]
    stated = [i for i, ln in enumerate(lines) if _LIST.fullmatch(ln.strip("*#>- "))]  # a list alone on its line
    if stated:  # the stated answer wins over the explanation after it, unless a later list differs
        i = stated[-1]
        pairs = _pairs(lines[i])
        later = {_pairs(m.group(0)) for ln in lines[i + 1:] for m in _LIST.finditer(ln)
                 if not _negated(ln, m.start(), m.end())}
        if later - {pairs}:
            return Extraction(None, AMBIGUOUS, "mention", "the stated list and a later one differ")
        return _result(pairs, "last_line" if i == len(lines) - 1 else "mention", n)
    if lines:
        pairs = _affirmed(lines[-1])
        if pairs is None and _BARE.fullmatch(lines[-1]):
            pairs = _pairs(lines[-1])
        if pairs is not None:
            return _result(pairs, "last_line", n)
    pairs = _affirmed(t)
    if pairs is not None:
        return _result(pairs, "mention", n)
    if _LIST.search(t):
        return Extraction(None, AMBIGUOUS, "negation", "every (image, rotation) list in the response is ruled out")
    return Extraction(None, INVALID, "none", "no list of (image, rotation) pairs found")
