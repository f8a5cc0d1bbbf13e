"""Order lists: Order Generation's ``[2, 3, 1, 4]`` in any of the ways models write it."""

from __future__ import annotations

import re
from typing import Optional

from ...spec import format_order
from .hedge import list_hedged
from .common import (AMBIGUOUS, INVALID, PARSED, Extraction, _PRINT_LIST, _caseless, _clean, _finditer, _last_boxed,
                     _last_segment, _lowered, _negated, _start)


# --------------------------------------------------------------------------- order lists

_SEP = r"(?:\s*(?:,|;|->|-)\s*|\s+)"
_ITEM = r"(?:<?image\s?|img\s?|#)?\d+>?"
_LIST_BRACKET = re.compile(r"[\[(]\s?(" + _ITEM + r"(?:" + _SEP + _ITEM + r")*)\s?[\])]", re.I)
_BARE_SEQ = re.compile(r"([1-9])(?<![\d.A-Za-z_][1-9])" + (_SEP + r"([1-9])") * 3 + r"(?![\dA-Za-z_]|\.\d)")
_BARE_SEQS: dict[int, re.Pattern] = {4: _BARE_SEQ}


def _bare_seq(n: int) -> re.Pattern | None:
    """An unbracketed sequence of ``n`` single digits ("2 3 1 4"); None past 9 pieces (two-digit numbers must
    come bracketed: a bare "1 2 10" is not read)."""
    if n > 9:
        return None
    if n not in _BARE_SEQS:
        _BARE_SEQS[n] = re.compile(r"([1-9])(?<![\d.A-Za-z_][1-9])" + (_SEP + r"([1-9])") * (n - 1)
                                   + r"(?![\dA-Za-z_]|\.\d)")
    return _BARE_SEQS[n]
# Line-bounded like the letter markers: a list on the next line only counts after a colon ("Order:\n[2, 3, 1, 4]").
# Each branch starts with a literal letter and then checks that no letter precedes it (see common._lowered).
_ORDER_MARKER = _caseless(
    r"(?:a(?<![A-Za-z]a)(?:nswer|rrangement)|o(?<![A-Za-z]o)rder|s(?<![A-Za-z]s)(?:equence|olution)"
    r"|l(?<![A-Za-z]l)ist|r(?<![A-Za-z]r)esult|c(?<![A-Za-z]c)orrect(?: one)?)"
    r"(?: (?:is|would be|should be|will be))?(?: ?: ?\n| ?[:=\-]? ?)"
)
_ORDER_KEYS = ("answer", "arrangement", "order", "sequence", "solution", "list", "result", "correct")
_REGION_NAMES = [
    r"top[\s-]*left|upper[\s-]*left",
    r"top[\s-]*right|upper[\s-]*right",
    r"bottom[\s-]*left|lower[\s-]*left",
    r"bottom[\s-]*right|lower[\s-]*right",
]
_REGION_RX = [re.compile(r"(?:" + n + r")\s*(?:region|corner|position)?\s*(?:[:=]|->|-|is|:\s*image)?\s*(?:<?image\s*|img\s*|#)?([1-9])\b", re.I) for n in _REGION_NAMES]


_DIGITS = re.compile(r"\d+")
_INTS: dict[str, tuple[int, ...]] = {}  # memo of a pure function of short list bodies ("2, 3, 1, 4")


def _ints(s: str) -> tuple[int, ...]:
    nums = _INTS.get(s)
    if nums is None:
        nums = tuple(map(int, _DIGITS.findall(s)))
        if len(s) <= 32:
            if len(_INTS) >= 4096:
                _INTS.clear()
            _INTS[s] = nums
    return nums


def _order_result(nums: tuple[int, ...], rule: str, n: int = 4) -> Extraction:
    parts = {"order": nums} if len(nums) == n else {}
    if len(nums) == n and sorted(nums) == list(range(1, n + 1)):
        return Extraction(format_order(nums), PARSED, rule, "", parts)
    return Extraction(None, INVALID, rule, f"{list(nums)[:70]} is not a permutation of 1-{n}", parts)


def _affirmed_list(frag: str, n: int = 4) -> Optional[tuple[int, ...]]:
    """The last list in ``frag`` that is not negated (bracketed with n numbers, else a bare n-number sequence
    outside the brackets, else a bracketed list of another length): "[1, 2, 3, 4] is wrong, [2, 3, 1, 4]" ->
    (2, 3, 1, 4); "Not [1, 2, 3, 4]." -> None."""
    last = other = None  # the last affirmed bracketed list of n numbers / of another length
    spans = []
    for m in _LIST_BRACKET.finditer(frag):
        spans.append((m.start(), m.end()))
        if not _negated(frag, m.start(), m.end()):
            nums = _ints(m.group(1))
            if len(nums) == n:
                last = nums
            else:
                other = nums
    if last is not None:
        return last
    i = 0
    bare = _bare_seq(n)
    for m in (bare.finditer(frag) if bare is not None else ()):  # in text order: one pointer skips the brackets
        while i < len(spans) and spans[i][1] <= m.start():
            i += 1
        inside = i < len(spans) and spans[i][0] <= m.start()  # part of a (negated) bracket list
        if not inside and not _negated(frag, m.start(), m.end()):
            last = tuple(int(g) for g in m.groups())
    return last if last is not None else other  # "(1, 3) share an edge: 3 1 4 2" is the sequence; "[1, 2, 3]" stays


def _order_from_fragment(frag: str, n: int = 4) -> Optional[tuple[int, ...]]:
    return _affirmed_list(frag.strip(), n)


def _order_marker_cand(t: str, m: re.Match, n: int = 4) -> Optional[tuple[int, tuple[int, ...]]]:
    """(end, numbers) of the list an _ORDER_MARKER match introduces, or ``None`` (no list, or a negated one)."""
    tail = t[m.end(): m.end() + 60 + 5 * n]
    bare = _bare_seq(n)
    b = _LIST_BRACKET.match(tail) or (bare.match(tail) if bare is not None else None)
    if b is None or _negated(t, m.end(), m.end() + b.end()):  # "The order [1, 2, 3, 4] is wrong"
        return None
    nums = _ints(b.group(1)) if b.re is _LIST_BRACKET else tuple(int(g) for g in b.groups())
    if list_hedged(t, m.end() + b.start(), m.end() + b.end()):  # "The order is [1, 3, 2, 4] or [1, 3, 4, 2]"
        return m.end() + b.end(), ()
    return m.end() + b.end(), nums


_END_PUNCT = frozenset(" .!*\"'")  # may follow a final list without another candidate ending later
_NUMBERED = re.compile(r"\d+\.[ \t]+")  # "1. " before a line's body


def _last_line_order(t: str, tl: str, n: int = 4) -> Optional[tuple[int, tuple[int, ...]]]:
    """Step 1 decided by the last line or sentence alone ("... The order is [2, 3, 1, 4]."), or ``None``;
    exact for the reasons given in choice._last_line_marker (a list ends with a digit or bracket)."""
    ls = _last_segment(t)
    if ls < 0:  # (a print([...]) ends with ")", which _END_PUNCT leaves out)
        return None
    cand = None
    for m in _ORDER_MARKER[1].finditer(tl, ls):
        c = _order_marker_cand(t, m, n)
        if c is not None:
            cand = c
    if cand is None or not _END_PUNCT.issuperset(t[cand[0]:]):
        return None
    return cand


def _list_at(t: str, m: re.Match, rule: str, n: int) -> Extraction:
    """The bracketed list ``m`` as the answer, unless it is one side of a hedge (ambiguous then)."""
    if list_hedged(t, m.start(), m.end()):
        return Extraction(None, AMBIGUOUS, rule, "hedged: two lists left open")
    return _order_result(_ints(m.group(1)), rule, n)


def _stated(t: str, n: int) -> Optional[Extraction]:
    """The stated answer: the last line that is a list alone ("[3, 1, 4, 2]", "**2 3 1 4**"), which wins over
    numbers in the explanation around it; ``None`` when no line is a list alone. Ambiguous when a later
    bracketed list differs from it or it is hedged ("[1, 3, 2, 4]\nor [1, 3, 4, 2]")."""
    bare = _bare_seq(n)
    last, pos = None, 0
    for line in t.split("\n"):  # (start, end) of each line's body: the line without decoration
        body = line.lstrip(" \t>#*-")
        num = _NUMBERED.match(body)
        body = body[num.end():] if num else body
        start = pos + len(line) - len(body)
        body = body.rstrip(" \t.*")
        if body and (_LIST_BRACKET.fullmatch(body) or (bare is not None and bare.fullmatch(body))):
            last = (start, start + len(body), pos + len(line))
        pos += len(line) + 1
    if last is None:
        return None
    start, end, line_end = last
    nums = _ints(t[start:end])
    later = {_ints(m.group(1)) for m in _LIST_BRACKET.finditer(t, line_end) if not _negated(t, m.start(), m.end())}
    if {x for x in later if len(x) == n} - {nums} or list_hedged(t, start, end):
        return Extraction(None, AMBIGUOUS, "mention", "the stated list and a later one differ, or a hedge")
    return _order_result(nums, "last_line" if not t[line_end:].strip() else "mention", n)


# An order written row by row at the end of the response: a nested list ("[[2, 3], [1, 4]]"), or lines that are a
# markdown grid row ("| 2 | 3 |") or "Row 1: 2 3" each; read when the rows are equally long and make n numbers.
_NESTED = re.compile(r"\[\s*(\[[\d,\s]+\](?:\s*,\s*\[[\d,\s]+\])+)\s*,?\s*\]\W*\Z")
_ROW_LINE = re.compile(r"\s*(?:\|\s*)?(?:(?i:row)\s*\d+\s*[:\-]\s*)?(\d+(?:\s*[|,]?\s*\d+)*)\s*\|?\s*")
_TABLE_RULE = re.compile(r"\s*\|?\s*:?-+:?(?:\s*\|\s*:?-+:?)*\s*\|?\s*")


def _rows(t: str, n: int) -> Optional[tuple[int, tuple[int, ...]]]:
    """(start, numbers) of an order written row by row that ends ``t``, else ``None``."""
    m = _NESTED.search(t) if "[[" in t else None
    if m is not None:
        rows = [_ints(r) for r in re.findall(r"\[([\d,\s]+)\]", m.group(1))]
        start = m.start()
    else:
        lines = t.rstrip(" .\n").split("\n")
        rows, start = [], len(t)
        for line in reversed(lines):
            if _TABLE_RULE.fullmatch(line) and rows:
                start -= len(line) + 1
                continue
            r = _ROW_LINE.fullmatch(line)
            if r is None or not ("|" in line or line.lstrip().lower().startswith("row")):
                break
            rows.insert(0, _ints(r.group(1)))
            start -= len(line) + 1
        if len(rows) < 2:
            return None
    if len({len(r) for r in rows}) != 1 or sum(map(len, rows)) != n:
        return None
    return max(0, start), tuple(x for r in rows for x in r)


def _order(t: str, strict: bool, n: int = 4, regions: bool = True) -> Extraction:
    """The order list of ``n`` pieces in ``t``; ``regions``: the 2x2 region names ("top-left: 3") count too."""
    if not strict and ("[[" in t or "|" in t or "Row" in t or "row" in t):
        rows = _rows(t, n)
        if rows is not None:  # another full order before it, not ruled out: the text gives two
            before = t[:rows[0]]
            earlier = _affirmed_list(before, n)
            if (earlier is not None and earlier != rows[1]) or "[[" in before:
                return Extraction(None, AMBIGUOUS, "rows", "an order written row by row and another one")
            return _order_result(rows[1], "rows", n)
    bare = _bare_seq(n)
    cands: list[tuple[int, str, tuple[int, ...]]] = []
    boxed = _last_boxed(t)  # only the box ending last can win
    if boxed is not None:
        end, content = boxed
        nums = _order_from_fragment(_clean(content), n)
        cands.append((end, "boxed", nums))
    tl = _lowered(t)
    if tl is not None and len(t) > 64:
        quick = _last_line_order(t, tl, n)
        if quick is not None and (boxed is None or boxed[0] < quick[0]):
            return _order_result(quick[1], "marker", n)
    for m in _finditer(_ORDER_MARKER, t, tl, _start(tl, _ORDER_KEYS, 0)):
        cand = _order_marker_cand(t, m, n)
        if cand is not None:
            cands.append((cand[0], "marker", cand[1]))
    if "print" in t:
        for m in _PRINT_LIST.finditer(t):
            cands.append((m.end(), "code", _ints(m.group("val"))))
    if cands:
        end, rule, nums = max(cands, key=lambda c: c[0])
        if nums == ():
            return Extraction(None, AMBIGUOUS, rule, "hedged: two lists left open")
        if not nums:
            return Extraction(None, INVALID, rule, "unreadable final answer")
        return _order_result(nums, rule, n)
    if strict:
        return Extraction(None, INVALID, "none", "unterminated <think> block without a final answer")
    stripped = t.strip().strip(".")
    whole = _LIST_BRACKET.fullmatch(stripped) or (bare.fullmatch(stripped) if bare is not None else None)
    if whole:
        return _order_result(_ints(stripped), "short", n)
    stated = _stated(t, n)
    if stated is not None:
        return stated
    lines = [ln for ln in t.splitlines() if ln.strip()]
    if lines:
        # The last affirmed list of the last line wins (a negated one never does), but a bracketed list beats a
        # bare sequence of numbers in running text ("[3, 1, 4, 2] fits: images 1, 2, 3, 4 show ...").
        nums = _affirmed_list(lines[-1].strip(), n)
        if nums is not None and not _LIST_BRACKET.search(lines[-1]):
            lists = [m for m in _LIST_BRACKET.finditer(t)
                     if len(_ints(m.group(1))) == n and not _negated(t, m.start(), m.end())]
            if lists:
                return _list_at(t, lists[-1], "mention", n)
        if nums is not None:
            if any(list_hedged(t, m.start(), m.end()) for m in _LIST_BRACKET.finditer(t)):
                return Extraction(None, AMBIGUOUS, "last_line", "hedged: two lists left open")
            return _order_result(nums, "last_line", n)
    named = []
    for rx in _REGION_RX if regions else ():
        found = rx.findall(t)
        named.append(int(found[-1]) if found else None)
    if named and all(r is not None for r in named):
        return _order_result(tuple(named), "option_text", n)
    lists = [m for m in _LIST_BRACKET.finditer(t) if not _negated(t, m.start(), m.end())]
    if lists:
        return _list_at(t, lists[-1], "mention", n)
    seqs = [m for m in bare.finditer(t) if not _negated(t, m.start(), m.end())] if bare is not None else []
    if seqs:
        return _order_result(tuple(int(g) for g in seqs[-1].groups()), "mention", n)
    if _LIST_BRACKET.search(t) or (bare is not None and bare.search(t)):
        return Extraction(None, AMBIGUOUS, "negation", "every order list in the response is ruled out")
    return Extraction(None, INVALID, "none", "no order list found")
