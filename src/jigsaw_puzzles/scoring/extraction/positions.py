"""Cells named in words, per grid: Anomaly Detection's "Error Position" and "Error Type" values.

The sub-images of an R x C item are lettered row by row (``A`` top-left ... the last letter bottom-right), so a
position word means a different letter on each grid: "bottom-right" is ``D`` on 2x2 and ``I`` on 3x3. A value is
read into the set of cells it names:

- a letter (``C``, ``(C)``; one lower-case letter alone);
- corner and edge words: "top-left", "upper right corner", "bottom-left" (any grid), "top-middle",
  "centre-left", "middle" / "centre" / "center" (the middle row or column, which exists only for an odd number
  of rows or columns), "top" / "left" alone (only on a grid with one column / one row);
- rows and columns: "row 2, column 3", "column 3 row 2", "second row, third column", "2nd row, last column",
  "middle row, rightmost column".

Exactly one cell named (a letter and words that agree count once) -> that cell's letter. Two or more ("C or
D", "bottom-left or bottom-right", "C (top-right)" on 2x2) or words that name no single cell of this grid
("bottom" on 3x3, "middle" on 2x2, "second from the left": an ordinal counted along something unsaid) ->
ambiguous: never the first option, never a guess. A row or column past
the grid names no cell of it -> ambiguous too.
"""

from __future__ import annotations

import re
from typing import Optional

from ...spec import LETTERS

_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
        "top": 1, "leftmost": 1, "upper": 1}
_ORD_END = ("last", "bottom", "rightmost", "lower", "bottommost")
_ORD_MID = ("middle", "center", "centre", "central")
_ORDW = r"(first|second|third|fourth|fifth|sixth|seventh|eighth|last|top|upper|bottom|lower|bottommost|leftmost|" \
        r"rightmost|middle|center|centre|central|\d+(?:st|nd|rd|th))"
_NUM = r"\s*(?:no\.?|number|#)?\s*(\d+)"
_ROW = re.compile(r"(?<![a-z])(?:row" + _NUM + r"|" + _ORDW + r"[\s-]+row)(?![a-z])")
_COL = re.compile(r"(?<![a-z])(?:col(?:umn)?" + _NUM + r"|" + _ORDW + r"[\s-]+col(?:umn)?)(?![a-z])")
_WORD = re.compile(r"(?<![a-z])(top|upper|bottom|lower|left|right|middle|center|centre|central)(?![a-z])")
_LOOSE_ORDINAL = re.compile(r"(?<![a-z0-9])(?:first|second|third|fourth|fifth|sixth|seventh|eighth|\d+(?:st|nd|rd|th))"
                            r"(?![a-z])")
_LETTER = re.compile(r"(?<![A-Za-z0-9'])([A-Z])(?![A-Za-z0-9'])")
# "A rotated tile", "I think": an article or a pronoun, not a letter ("A or B", "A is", "A (rotation)" are letters)
_ARTICLE = re.compile(
    r" (?!(?:or|and|nor|is|was|maybe|possibly|perhaps|because|since|as|which|seems|looks|but)\b)[a-z]")


def _index(word: Optional[str], num: Optional[str], n: int) -> Optional[int]:
    """1-based index of an ordinal/number in a dimension of ``n`` (0: none such, e.g. "middle" of 2)."""
    if num is not None:
        return int(num)
    w = word or ""
    if w in _ORD_END:
        return n
    if w in _ORD_MID:
        return (n + 1) // 2 if n % 2 else 0
    if w[:1].isdigit():
        return int(w.rstrip("stndrh"))
    return _ORD.get(w, 0)


_PARTS = re.compile(r"(?<![A-Za-z])(?:or|nor|either|maybe|possibly|perhaps|probably|vs)(?![A-Za-z])|[/;()\[\]]", re.I)


def cells_named(value: str, rows: int, cols: int) -> tuple[set, str]:
    """(set of letters named, detail); a letter past the grid stays in the set (the caller makes it invalid).

    An empty set with a detail: the words name no single cell of this grid (ambiguous). Each side of a hedge
    ("row 1, column 1 or top-middle") and of a bracket ("C (bottom-left)") is read on its own."""
    stripped = value.strip(" \t()[]*.,;:'\"")
    if len(stripped) == 1 and stripped.isalpha():
        return {stripped.upper()}, ""
    named: set = set()
    for part in _PARTS.split(value):
        found, why = _cells(part, rows, cols)
        if why:
            return set(), why
        named |= found
    return named, ""


def _cells(value: str, rows: int, cols: int) -> tuple[set, str]:
    """:func:`cells_named` for one part of a value."""
    named: set = set()
    for m in _LETTER.finditer(value):
        if m.group(1) in "AI" and _ARTICLE.match(value, m.end()):
            continue
        named.add(m.group(1))
    low = value.lower()
    row_idx = {_index(m.group(2), m.group(1), rows) for m in _ROW.finditer(low)}
    col_idx = {_index(m.group(2), m.group(1), cols) for m in _COL.finditer(low)}
    low = _COL.sub(" ", _ROW.sub(" ", low))
    if _LOOSE_ORDINAL.search(low):  # "second from the left in the top row": counted along something unsaid
        return set(), f"{value.strip()!r} counts cells in a way that is not read"
    words = _WORD.findall(low)
    vert = {1 if w in ("top", "upper") else rows for w in words if w in ("top", "upper", "bottom", "lower")}
    horiz = {1 if w == "left" else cols for w in words if w in ("left", "right")}
    mid = sum(w in _ORD_MID for w in words)
    if not (row_idx or col_idx or vert or horiz or mid):
        return named, ""
    rows_said = row_idx | vert
    cols_said = col_idx | horiz
    if mid:  # "middle" fills the dimension(s) nothing else names: "middle-left", "top-centre", "centre"
        if not rows_said:
            rows_said = {_index("middle", None, rows)}
        if not cols_said:
            cols_said = {_index("middle", None, cols)}
    if not rows_said and rows == 1:
        rows_said = {1}
    if not cols_said and cols == 1:
        cols_said = {1}
    if len(rows_said) != 1 or len(cols_said) != 1 or 0 in rows_said or 0 in cols_said:
        return set(), f"{value.strip()!r} names no single cell of a {rows}x{cols} grid"
    r, c = next(iter(rows_said)), next(iter(cols_said))
    if not (1 <= r <= rows and 1 <= c <= cols):
        return set(), f"{value.strip()!r} is outside a {rows}x{cols} grid"
    named.add(LETTERS[(r - 1) * cols + (c - 1)])
    return named, ""


_TYPE_WORD = re.compile(r"(?<![a-z])(rotat|turn|spun|mirror|flip|reflect)")


