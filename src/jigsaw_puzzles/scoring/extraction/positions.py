"""Cells named in words, per grid: Anomaly Detection's "Error Position" and "Error Type" values, and the order
tasks' pieces placed in words ("image 3 is the top-left", "Top row: 4, 9, 2"; :func:`regions_said`, :func:`rows_said`).

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
from functools import lru_cache
from typing import Optional

from ...spec import LETTERS
from .forms import alternation, forms, pattern, STATEMENT_END, value

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


# ------------------------------------------------------------------ pieces placed in words (the order tasks)
_IMG = r"(?:<\s*)?(?:image|img|piece|tile|picture)\s*#?\s*([1-4])(?:\s*>)?"
_PLACED_IMG = re.compile(r"(?<![^\W_])(?:<\s*)?(?:images?|img|pieces?|tiles?|pictures?|crops?|imagen|imagem|bild|immagine)"
                         r"\s*#?\s*([1-9])(?!\d)(?:\s*>)?|(?:图|圖|画像|이미지)\s*([1-9])", re.I)
_CORNER = re.compile(r"((?:top|upper)[\s+-]*left|(?:top|upper)[\s+-]*right|(?:bottom|lower)[\s+-]*left|(?:bottom|lower)[\s+-]*"
                     r"right)(?![^\W_])(?!\s*(?:corner|edge|side)?\s*of\b)|(?<![^\W_])(?-i:TL|TR|BL|BR)(?![^\W_])|"
                     r"(左上|右上|左下|右下)", re.I)
_CORNER_NUMBER = re.compile(r"(?<![^\W_])((?-i:TL|TR|BL|BR))\s*[:=]\s*([1-4])(?!\d)|(?<![\d.,])([1-4])\s*(?:\u2192|->|=>)\s*"
                            r"((?:top|upper|bottom|lower)[\s-]*(?:left|right))(?![^\W_])|\|\s*((?:top|upper|bottom|lower)[\s-]*"
                            r"(?:left|right))\s*\|\s*(?:image\s*|#)?([1-4])\s*\|", re.I)  # "| top-left | 3 |"
_BARE_PLACED = re.compile(r"[ \t*-]*(?:then[ \t]+)?([1-4])[ \t]+(?:(?:goes|is|sits)[ \t]+)?(?:(?:in|at|on)[ \t]+)?(?:the[ \t]+)?"
                          r"(?:top|upper|bottom|lower)[\s+-]*(?:left|right)[ \t:]*$", re.I)
_OBJECT_IMG = re.compile(r"(?<![^\W_])(?:like|than|as|with)\s+(?:[^\W\d_]+\s+){0,4}?(?:in|of)\s+(?:the\s+)?(?:images?|pieces?|tiles?|"
                         r"pictures?)\s*#?\s*[1-9](?!\d)", re.I)  # "turning it makes it like the road in piece 2 — bottom-left": not piece 2's place
_CORNER_INDEX = {"tl": 0, "tr": 1, "bl": 2, "br": 3, "左上": 0, "右上": 1, "左下": 2, "右下": 3}


def _corner(name: str) -> Optional[int]:
    """The 2x2 region a corner's name gives ("top-left", "Lower right", "TR", "左下"), or None."""
    return _CORNER_INDEX.get(re.sub(r"[\s+-]+", "", name.lower()).replace("upper", "t").replace("lower", "b").replace(
        "top", "t").replace("bottom", "b").replace("left", "l").replace("right", "r"), _CORNER_INDEX.get(name))




def plain_sentences(text: str, kinds=("negation", "hedge", "condition")):
    """The sentences of ``text`` that say a thing plainly: none holds a word of ``kinds`` (by default a negation, a hedge
    or a condition), each looked for with " of " read as a space ("kind of" is no hedge of "the top of")."""
    for sentence in STATEMENT_END.split(text):
        loose = sentence.replace(" of ", " ")
        if not any(pattern(k).search(loose if k == "hedge" else sentence) for k in kinds):
            yield sentence


_IMG_IN_BRACKETS = re.compile(r"(?<=[^\W\d_]) \(([1-9])\)")


def regions_said(t: str) -> list[tuple[int, int]]:
    """(region index, image) for each place the text gives an image on a 2x2 grid: "image 3 is the top-left",
    "top-left: image 2", "左上：图2", "image 1 the flat bottom-right", "Top row: 1 and 3". A sentence that names as many
    images as corners pairs them in order; a corner read as content ("the top-left corner of ...") does not count; a
    sentence with a possessive image ("image 2's top-left"), a negation or a hedge is not read. A number in brackets
    after a word is its image ("top-left is the clock face (2)")."""
    t = _IMG_IN_BRACKETS.sub(r" (image \1)", t)
    out = [(2 * r + k, said[k]) for r, said in rows_said(t, 2, 2) for k in (0, 1)]
    for m in _CORNER_NUMBER.finditer(t):  # "TL: 2", "4 → top-left" (not "image 4 → ..."), "| top-left | 3 |"
        if m.group(1) or m.group(5) or not _PLACED_IMG.search(t[max(0, m.start() - 12):m.end()]):
            out.append((_corner(m.group(1) or m.group(4) or m.group(5)), int(m.group(2) or m.group(3) or m.group(6))))
    for sentence in plain_sentences(t, ("hedge", "negation")) if _CORNER.search(t) else ():
        images = [int(m.group(1) or m.group(2)) for m in _PLACED_IMG.finditer(sentence)]
        if not images:  # "Flat edges: 1 top+left, 3 top+right, 2 bottom+left, 4 bottom+right": numbers placed bare
            bare = [_BARE_PLACED.match(re.sub(r"^[^:\d]{0,40}:", "", c)) for c in sentence.split(",")]
            if len(bare) >= 2 and all(bare):
                out += [(_corner(_CORNER.search(b.group(0)).group(0)), int(b.group(1))) for b in bare]
            continue
        corners = [_corner(m.group(0)) for m in _CORNER.finditer(sentence)]
        if re.search(r"\d\s*'s\b", sentence) or None in corners:
            continue
        if len(images) == len(corners) and not _OBJECT_IMG.search(sentence):
            out += list(zip(corners, images))  # "image 2 has the flat bottom-left corner, image 1 the bottom-right"
            continue
        for clause in re.split(r",|\s(?:and|while|whereas)\s", sentence):  # "..., image 1 is the lower-left part"
            im, co = _PLACED_IMG.findall(clause), [_corner(m.group(0)) for m in _CORNER.finditer(clause)]
            if len(im) == 1 and len(co) == 1 and _PLACED_IMG.match(clause.strip(" *-")):  # the image is its subject
                out.append((co[0], int(im[0][0] or im[0][1])))
            elif not im and len(co) == 1 and (bare := _BARE_PLACED.match(clause)):  # "Image 4 top-left, 2 top-right"
                out.append((co[0], int(bare.group(1))))
    return out


_ROW_SAID = re.compile(r"(?<![^\W_])(?:(top|upper|first|middle|second|centre|center|bottom|lower|third|last)\s+row"
                       r"|row\s*([1-3])|(top|upper|middle|bottom|lower)(?=\s*[:=]))(?![^\W_])[ \t]*(?:[:=\u2013\u2014-]|is|has|reads)?([^\n;\u3002]*?)(?=\.\s|[.\n;\u3002]|$|"
                       r",?\s+and\s+(?:the\s+)?(?:top|upper|first|middle|second|centre|center|bottom|lower|third|last)\s+row)", re.I)
@lru_cache(maxsize=1)
def _row_body() -> re.Pattern:
    """What a row said with numbers only may hold beside them: image nouns in any language ("la pièce 4, la pièce 9"),
    "and", "then"."""
    return re.compile(r"[\s\d,&|>\u2192\u2013\u2014-]*(?:(?:images?|pieces?|tiles?|and|then|is|are|" +
                      alternation(forms("image")) + r")[\s\d,&|>\u2192\u2013\u2014-]*)*", re.I)


_HALF = re.compile(r"(?<![^\W_])(?:image|piece|tile|picture)\s*([1-4])\s+(?:(?:has|shows|contains|holds|covers|is|depicts|forms|"
                   r"gives|carries)\s+)?the\s+(left|right|top|upper|bottom|lower)\s+half(?![^\W_])(?!\s+of\s+(?:the\s+)?(?:image|"
                   r"piece|tile|picture|it)\b)", re.I)


def halves_said(t: str) -> list[tuple[int, set]]:
    """(image, the 2x2 regions it may hold) for each image said to hold a half of the picture ("Image 1 has the left half
    of the beach and image 3 the right half"); "the left half of image 2" and a hedged or negated sentence are not
    read."""
    out = []
    for sentence in plain_sentences(t, ("hedge", "negation")) if _HALF.search(t) else ():
        for m in _HALF.finditer(sentence):
            side = m.group(2).lower()
            out.append((int(m.group(1)), {"left": {0, 2}, "right": {1, 3}, "top": {0, 1}, "upper": {0, 1}}.get(side, {2, 3})))
    return out


def _line_index(word: str, n: int) -> Optional[int]:
    """The row (or column) of ``n`` a word names: "top"/"left"/"first"/"1" the first, "bottom"/"right"/"last" the last,
    "middle" the centre of three (None on two)."""
    return {"top": 0, "upper": 0, "left": 0, "first": 0, "1": 0, "second": 1, "2": 1, "third": 2, "3": 2, "bottom": n - 1,
            "lower": n - 1, "right": n - 1, "last": n - 1}.get(word, 1 if n == 3 and word in ("middle", "centre", "center") else None)


@lru_cache(maxsize=64)
def _in_english(text: str) -> str:
    return pattern("row").sub(lambda m: value("row", m.group(0)), text)


def rows_said(text: str, rows: int, cols: int) -> list[tuple[int, list[int]]]:
    """(row index, images) for each row said in prose with numbers only ("Top row: 4, 9, 2.", "the second row is 3 5
    7", "Top row: image 1 and image 3", "Top: 1, 2; bottom: 4, 3"); a row that also says something else is not read."""
    out = []
    text = _in_english(text)  # "Нижній ряд: 8, 4, 7" is "bottom row: 8, 4, 7"
    for m in _ROW_SAID.finditer(text):
        word = (m.group(1) or m.group(2) or m.group(3)).lower()
        r = _line_index(word, rows)
        bare = re.sub(r"\([^()]*\)", " ", m.group(4)).replace("*", " ")  # "Top row: 1 (sky), 5, 7": numbers only
        bare = re.split(r"\s[\u2014\u2013-]\s|:\s", bare)[0]  # "**Row 1:** 3, 9, 1 — sky and the sail"
        said = [int(d) for d in re.findall(r"(?<!\d)[1-9](?!\d)", bare)]
        if _row_body().fullmatch(bare) and r is not None and r < rows and len(said) == cols:
            out.append((r, said))
    return out


def rows_disagree(text: str, order, rows: int, cols: int) -> bool:
    """A row said in prose that ``order`` puts otherwise."""
    return bool(order) and len(order) == rows * cols and any(
        list(order[r * cols:(r + 1) * cols]) != said for r, said in rows_said(text, rows, cols))


_ROW_WORD = re.compile(r"(?<![^\W_])(top|upper|first|middle|second|centre|center|bottom|lower|third|last)\s+row(?![^\W_])", re.I)
_JOINED = re.compile(r"(?<![\d.])\d(?:\s*(?:,|\u3001|\uff0c|&|\+|/|\band\b|\u3068|\u548c|\u53ca|\u8207|\by\b|\be\b|\bund\b|\bet\b|"
                     r"\bи\b|\ben\b|\boch\b|\bve\b|\bdan\b|\bv\u00e0\b|\bi\b|\bat\b)\s*(?:(?:the\s+)?(?:images?|pieces?|tiles?|"
                     r"\u753b\u50cf|\u56fe\u7247?|\u5716\u7247?|\uc774\ubbf8\uc9c0|imagens?|im\u00e1genes|imagen|bild(?:er)?)\s*)?\d)+(?![\d.])", re.I)
_COL_WORD = re.compile(r"(?<![^\W_])(left|right|middle|centre|center|first|second|third|last)\s+(?:column|half)(?![^\W_])", re.I)
_IMAGE_WORD = re.compile(r"(?<![^\W_])(?:images?|pieces?|tiles?|pictures?|crops?)(?![^\W_])", re.I)


def row_sets_disagree(text: str, order, rows: int, cols: int) -> bool:
    """A sentence that puts as many images as a row (or a column) holds in one row, in any order ("the sky shows in images
    3 and 4, so they form the top row", "空の部分が画像2と画像1に写っているため、上段になります", "images 1 and 4 are the right
    half"), where ``order`` puts others. Only a sentence with one row or column word, an image word, exactly that many
    numbers said together ("images 3 and 4", each once, none possessive: "image 2's edge"; not "image 2 continues from
    image 1") and no negation, hedge or condition counts."""
    if not order or len(order) != rows * cols:
        return False
    for sentence in plain_sentences(text):
        said = [value("row", m.group(0)).split()[0] for m in pattern("row").finditer(sentence)] + \
            [m.group(1).lower() for m in _ROW_WORD.finditer(sentence)]
        across = [m.group(1).lower() for m in _COL_WORD.finditer(sentence)]
        if len(said) + len(across) != 1 or not (_IMAGE_WORD.search(sentence) or pattern("image").search(sentence)):
            continue
        word, n, many = (said[0], rows, cols) if said else (across[0], cols, rows)
        k = _line_index(word, n)
        nums = re.findall(r"(?<![\d.,\u00b0])\d+(?![\d\u00b0%])", sentence)
        group = _JOINED.search(sentence)  # the numbers said together ("images 3 and 4"), not "2 ... from image 1"
        if k is None or k >= n or len(set(nums)) != len(nums) or len(nums) != many or any(int(x) > rows * cols for x in nums) \
                or re.search(r"\d\s*(?:'s|\u7684|\u306e|\uc758)", sentence) or group is None \
                or len(re.findall(r"\d", group.group(0))) != many:  # "image 2's edge", "图片2的下边缘"
            continue
        cells = order[k * cols:(k + 1) * cols] if said else order[k::cols]
        if {int(x) for x in nums} != set(cells):
            return True
    return False


_REL = re.compile(r"(?<![^\W_])(?:(?:image|piece|tile)\s*(\d)|(it))\s+(?:is|goes|sits|lies|belongs|fits|comes|continues|"
                  r"must go|should go)?\s*(?:directly|just|right|immediately)?\s*(below|under|beneath|above|over|on top of|"
                  r"to the left of|left of|to the right of|right of)\s+(?:image|piece|tile)\s*(\d)(?![\d\u00b0])", re.I)


def relations_disagree(text: str, order, rows: int, cols: int) -> bool:
    """A sentence that says where one image lies from another ("image 2 ... goes directly below image 3", "image 4 is to
    the right of image 1"), where ``order`` puts it elsewhere. "It" is the one image named before it in its sentence; a
    sentence with a negation, hedge or condition says nothing."""
    if not order or len(order) != rows * cols:
        return False
    for sentence in plain_sentences(text):
        for m in _REL.finditer(sentence):
            before = re.findall(r"(?<![^\W_])(?:image|piece|tile)\s*(\d)", sentence[:m.start()], re.I)
            x = m.group(1) or (before[0] if m.group(2) and len(set(before)) == 1 else None)
            if x is None:
                continue
            x, y = int(x), int(m.group(4))
            if x == y or x not in order or y not in order:
                continue
            (rx, cx), (ry, cy), w = divmod(list(order).index(x), cols), divmod(list(order).index(y), cols), m.group(3).lower()
            ok = (cx == cy and rx > ry) if w in ("below", "under", "beneath") else (cx == cy and rx < ry) if w in (
                "above", "over", "on top of") else (rx == ry and cx < cy) if "left" in w else (rx == ry and cx > cy)
            if not ok:
                return True
    return False
