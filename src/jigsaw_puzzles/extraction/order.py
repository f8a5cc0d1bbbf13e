"""Order lists: Order Generation's ``[2, 3, 1, 4]`` in any of the ways models write it."""

from __future__ import annotations

import re
from typing import Optional

from ..spec import format_order
from .common import INVALID, PARSED, Extraction, _PRINT_LIST, _boxed_spans, _clean


# --------------------------------------------------------------------------- order lists

_SEP = r"(?:\s*(?:,|;|->|-)\s*|\s+)"
_ITEM = r"(?:<?image\s?|img\s?|#)?\d+>?"
_LIST_BRACKET = re.compile(r"[\[(]\s?(" + _ITEM + r"(?:" + _SEP + _ITEM + r")*)\s?[\])]", re.I)
_BARE_SEQ = re.compile(r"(?<![\d.\w])([1-9])" + (_SEP + r"([1-9])") * 3 + r"(?![\d\w]|\.\d)")
_ORDER_MARKER = re.compile(
    r"(?<![A-Za-z])(?:answer|order|sequence|arrangement|list|result)(?:\s+(?:is|would\s+be|should\s+be|will\s+be))?\s*[:=\-]?\s*",
    re.I,
)
_REGION_NAMES = [
    r"top[\s-]*left|upper[\s-]*left",
    r"top[\s-]*right|upper[\s-]*right",
    r"bottom[\s-]*left|lower[\s-]*left",
    r"bottom[\s-]*right|lower[\s-]*right",
]
_REGION_RX = [re.compile(r"(?:" + n + r")\s*(?:region|corner|position)?\s*(?:[:=]|->|-|is|:\s*image)?\s*(?:<?image\s*|img\s*|#)?([1-9])\b", re.I) for n in _REGION_NAMES]


def _ints(s: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", s))


def _order_candidates(t: str) -> list[tuple[int, tuple[int, ...]]]:
    """(end, numbers) for bracketed lists of any length."""
    return [(m.end(), _ints(m.group(1))) for m in _LIST_BRACKET.finditer(t)]


def _order_result(nums: tuple[int, ...], rule: str) -> Extraction:
    parts = {"order": nums} if len(nums) == 4 else {}
    if len(nums) == 4 and sorted(nums) == [1, 2, 3, 4]:
        return Extraction(format_order(nums), PARSED, rule, "", parts)
    return Extraction(None, INVALID, rule, f"{list(nums)} is not a permutation of 1-4", parts)


def _order_from_fragment(frag: str) -> Optional[tuple[int, ...]]:
    frag = frag.strip()
    m = _LIST_BRACKET.search(frag)
    if m:
        return _ints(m.group(1))
    m = _BARE_SEQ.search(frag)
    if m:
        return tuple(int(g) for g in m.groups())
    return None


def _order(t: str, strict: bool) -> Extraction:
    cands: list[tuple[int, str, tuple[int, ...]]] = []
    for end, content in _boxed_spans(t):
        nums = _order_from_fragment(_clean(content))
        cands.append((end, "boxed", nums if nums is not None else ()))
    for m in _ORDER_MARKER.finditer(t):
        tail = t[m.end(): m.end() + 60]
        b = _LIST_BRACKET.match(tail)
        if b:
            cands.append((m.end() + b.end(), "marker", _ints(b.group(1))))
            continue
        s = _BARE_SEQ.match(tail)
        if s:
            cands.append((m.end() + s.end(), "marker", tuple(int(g) for g in s.groups())))
    for m in _PRINT_LIST.finditer(t):
        cands.append((m.end(), "code", _ints(m.group("val"))))
    if cands:
        end, rule, nums = max(cands, key=lambda c: c[0])
        if not nums:
            return Extraction(None, INVALID, rule, "unreadable final answer")
        return _order_result(nums, rule)
    if strict:
        return Extraction(None, INVALID, "none", "unterminated <think> block without a final answer")
    stripped = t.strip().strip(".")
    whole = _LIST_BRACKET.fullmatch(stripped) or _BARE_SEQ.fullmatch(stripped)
    if whole:
        return _order_result(_ints(stripped), "short")
    lines = [ln for ln in t.splitlines() if ln.strip()]
    if lines:
        nums = _order_from_fragment(lines[-1])
        if nums is not None:
            return _order_result(nums, "last_line")
    regions = []
    for rx in _REGION_RX:
        found = rx.findall(t)
        regions.append(int(found[-1]) if found else None)
    if all(r is not None for r in regions):
        return _order_result(tuple(regions), "option_text")
    lists = _order_candidates(t)
    if lists:
        return _order_result(lists[-1][1], "mention")
    seqs = list(_BARE_SEQ.finditer(t))
    if seqs:
        return _order_result(tuple(int(g) for g in seqs[-1].groups()), "mention")
    return Extraction(None, INVALID, "none", "no order list found")
