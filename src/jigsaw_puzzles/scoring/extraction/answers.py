"""Where a text names an answer: every mention of one, per answer kind, with the answer it names.

A mention is only a place; whether the text commits to it is the rule's question (:mod:`.rule`). A mention whose
value is outside the answer space (letter E on A-D, a list that is not a permutation) names no answer and says why.

- Letters: a capital standing alone (not "I", not the article "A good ..."), a lower-case one only where nothing
  but punctuation follows it ("i'd say c"; never "a"), and the Greek and Cyrillic capitals that look like A, B, C, E.
- Option words: Missing Piece Selection's "Candidate 3", "the third candidate", "the fourth (input) image";
  Connection Verification's "adjacent horizontally", "not adjacent", "one above the other"; the 8 directions;
  an Order Restoration list that is one of the item's options.
- Orders: a bracketed list, a bare sequence of n digits ("2 3 1 4", "2-3-1-4", "2 -> 3 -> 1 -> 4"), rows (a nested
  list, "Row 1: 5 -> 1 -> 9" lines, a markdown grid), the four 2x2 regions named ("top-left: image 2, ...").
- Rotated orders: a list of (image, rotation) pairs.
- Anomaly Detection: the labelled block or the three letters alone (:mod:`.blocks`).
"""

from __future__ import annotations

import functools
import re
from typing import Optional

from ...spec import CHOICE, ORDER, ORIENTED, ROTATIONS, format_order, format_oriented
from .blocks import blocks_in, unlabelled_block
from .common import Mention
from .negation import negated
from .forms import alternation, pattern, table, value, values
from .meaning import INVERSE as _INVERSE, candidates, direction as _direction, placed, relative


_LETTER = re.compile(r"(?<![A-Za-z0-9_\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff])([A-Z\u0391\u0392\u0395\u0410\u0412"
                     r"\u0421\u0415])(?![A-Za-z0-9_\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]|'(?!s\b|y?[iu]\b)[a-z]{1,2}\b|-[a-z]{2})")
_LOOKALIKE = {"\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0410": "A", "\u0412": "B", "\u0421": "C", "\u0415": "E"}
_LOWER = re.compile(r"(?<![^\W_\u3040-\u9fff\uac00-\ud7af]|['\-])([a-hj-z]|bee|cee|sea|dee|ay)(?![^\W_\u3040-\u9fff\uac00-\ud7af]|['\-])"
                    r"(?=[\s)\]}\"'*]*(?:[.!,;:(\u3040-\u9fff\uac00-\ud7af]|\n|$|i think|i guess|probably|maybe))", re.I)  # "答案是d", "정답은 d 입니다"
_NAMES = {"bee": "B", "cee": "C", "sea": "C", "dee": "D", "ay": "A"}
_ARTICLE_NEXT = re.compile(r"[ \t]+(?!(?:i|although|albeit|whereas|unless|if|when|yet|tho|is|was|do|does|did|or|and|nor|because|since|as|which|fits|matches|seems|looks|would|should"
                           r"|best|correct|right|fills|belongs|corresponds|for|with|it|too|also|then|instead|here|though"
                           r"|but|could|might|may|has|had|shows|contains|works|continues|aligns|lines|isn't|doesn't|wasn't|değil|degil|—|-)\b)[a-z]")


def _opens(t: str, at: int) -> bool:
    """``at`` opens a sentence, a line or a cell (where "A" may be an article), past quotes, marks and bullets."""
    i = at
    while i > 0 and t[i - 1] in " \t*_\"'([#>\u2022+-":
        i -= 1
    return i == 0 or t[i - 1] in ".!?:;|)\n\u3002\u2014"


def letters(t: str, spec) -> list[Mention]:
    out = []
    for m in _LETTER.finditer(t):
        ch = _LOOKALIKE.get(m.group(1), m.group(1))
        if ch in "AI" and _ARTICLE_NEXT.match(t, m.end()) and (ch == "I" or _opens(t, m.start())):
            continue  # "A good fit", "I think"; not "walaupun A juga cocok" (mid-sentence, "A" is no article)
        if ch == "I" and "I" not in spec.letters:
            continue
        out.append(Mention(m.start(), m.end(), ch if ch in spec.letters else None, "letter",
                           "" if ch in spec.letters else f"letter {ch} is not an option ({'/'.join(spec.letters)})"))
    for m in _LOWER.finditer(t):
        w = m.group(1)
        if len(w) == 1 and w.isupper():
            continue
        ch = _NAMES.get(w.lower(), w.upper())
        if ch in spec.letters:
            out.append(Mention(m.start(), m.end(), ch, "lower"))
    return out


# ------------------------------------------------------------------------------------------------ option words
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_ORD = "|".join(_ORDINALS)
_NTH_OPTION = re.compile(rf"(?<![^\W_])the\s+({_ORD}|last)\s+(?:option|choice|list)(?![^\W_])", re.I)
_CANDIDATE = re.compile(rf"\b(?:candidate|candidat|candidata|candidato|kandidat|kandydat|aday)\s*(?:#|no\.?|number|n[º°o]\.?)?\s*([1-9])\b|\bthe\s+({_ORD}|last)\s+(?:candidate(?:\s+(?:patch|"
                        rf"image|piece))?|patch|option|choice|one)\b|\b(?:the\s+)?({_ORD}|last)\s+(?:input\s+|candidate\s+)?(?:image|candidate)\b|<\s*image\s*([1-9])\s*>"
                        rf"|\bimage\s*#?\s*([1-9])\b", re.I)
# the verb between an image and where it lies: known words only ("Image 2 is not below image 1" says no relation)
_IS = r"(?:(?:probably|likely|clearly|definitely|certainly)\s+(?=(?:is|sits|lies|fits|goes|belongs|continues|appears|comes)\s))?(?:(?:is|was|were|sits|lies|fits|goes|belongs|continues|appears|comes|would\s+be|should\s+be|must\s+be|is\s+(?:located|positioned|placed|somewhere))\s+)?(?:(?:probably|likely|clearly|definitely|certainly)\s+)?"
_ONE = r"(?:\bimage\s*[12]\b|\bthe\s+(?:first|second)(?:\s+(?:image|one|crop|piece))?\b)"  # "the first image", "the second one"
_CV = (("C", re.compile(r"(?:\b(?:not|never)|(?<=[A-Za-z])n't)\s+(?:directly\s+)?(?:adjac(?:ent|net|nt|ant)|"
                        r"neighbou?ring|neighbou?rs|touching|touch|connected|share\s+an\s+edge)\b|\bnon[\s-]*adjacent\b"
                        r"|\bnonadjacent\b|\bdiagonal(?:ly)?\b(?:\s+(?:placed|positioned|apart|related|adjacent))?"
                        r"|不相邻|不相鄰|不相连|不相連|不接壤|对角关系|對角關係|隣接していない|隣り合っていない|인접하지 않", re.I)),
       ("A", re.compile(r"\b(?:adjacent\s+)?horizontal(?:ly)?(?:\s+(?:adjacent|neighbou?rs))?\b|\bleft[\s-]*(?:and[\s-]*|/|"
                        r"-|to[\s-]*)?right\b(?:\s+(?:relationship|neighbou?rs|adjacent))?|\bside[\s-]by[\s-]side\b|\bnext\s+to\s+each\s+other\s+"
                        r"horizontally\b|" + _ONE + r"\s+" + _IS + r"(?:directly\s+|just\s+)?to\s+the\s+(?:left|right)\s+of\s+"
                        + _ONE + r"|\bneighbou?rs\s+left[\s-]*(?:and[\s-]*|/|-|to[\s-]*)?right\b|左右相邻|左右相鄰|水平相邻|水平相鄰|左右に隣接|좌우로 인접", re.I)),
       ("B", re.compile(r"\b(?:adjacent\s+)?vertical(?:ly)?(?:\s+(?:adjacent|neighbou?rs))?\b|\btop[\s-]*(?:and[\s-]*|/|"
                        r"-|to[\s-]*)?bottom\b(?:\s+(?:relationship|neighbou?rs|adjacent))?|\babove[\s-]*(?:and[\s-]*|/)?below\b|\bone\s+(?:is\s+)?"
                        r"(?:directly\s+)?(?:above|below|on\s+top\s+of|under|beneath)\s+the\s+other\b|\bone\s+(?:sits|lies|goes|is\s+placed)\s+"
                        r"(?:directly\s+)?(?:above|below|on\s+top\s+of|under|beneath)\s+the\s+other\b|\bstacked\b|上下相邻|上下相鄰|"
                        r"垂直相邻|垂直相鄰|上下に隣接|위아래로 인접|"
                        + _ONE + r"\s+" + _IS + r"(?:directly\s+|right\s+|just\s+)?(?:above|below|under|beneath|"
                        r"on\s+top\s+of)\s+" + _ONE + r"|\bneighbou?rs\s+top[\s-]*(?:and[\s-]*|/|-|to[\s-]*)?bottom\b", re.I)))
_CV_KIND = {"A": "horizontal", "B": "vertical", "C": "apart"}  # the same relations in forms.tsv, in other languages
_EDGE = re.compile(r"\b(?:horizontal|vertical)(?:ly)?\s+(?:edge|seam|border|boundary|cut|split|join)s?\b", re.I)
_ADJACENT = re.compile(r"\b(?:adjacent|neighbou?rs|neighbou?ring|touching)\b", re.I)
_DIAG = r"(?:[\s-]+diagonal(?=[\s.,;:!]|$))?"  # "Upper-left diagonal."
_AND = r"[\s-]+and[\s-]+(?:to[\s-]+the[\s-]+)?"  # "down and to the left"
_DIRS = (("E", rf"(?:(?:upper|top|above|up)[\s-]*right|(?:up|above){_AND}right|north[\s-]*east){_DIAG}"),
         ("F", rf"(?:(?:upper|top|above|up)[\s-]*left|(?:up|above){_AND}left|north[\s-]*west){_DIAG}"),
         ("G", rf"(?:(?:lower|bottom|below|down)[\s-]*right|(?:down|below){_AND}right|south[\s-]*east){_DIAG}"),
         ("H", rf"(?:(?:lower|bottom|below|down)[\s-]*left|(?:down|below){_AND}left|south[\s-]*west){_DIAG}"),
         ("A", r"(?:directly\s+)?(?:to\s+the\s+)?right(?!\s+(?:above|below|under|beneath|on|over|next|beside|at|in|into|there|here|behind|after)\b)(?:\s+of)?"), ("B", r"(?:directly\s+)?(?:to\s+the\s+)?left(?:\s+of)?"),
         ("C", r"(?:directly\s+)?above"), ("D", r"(?:directly\s+)?below"))
_DIR = re.compile("|".join(rf"(?P<{k}>(?:diagonally\s+)?(?:to\s+the\s+)?\b(?:{p}))\b" for k, p in _DIRS), re.I)
_IMG = r"(?:<\s*image\s*([12])\s*>|\b(?:the\s+)?image\s*([12]|one|two)\b|\bthe\s+(first|second)(?:\s+(?:image|one|crop|piece))?(?![^\W_]))"
_DIR_WORDS = (r"(?:directly\s+|diagonally\s+|immediately\s+|just\s+)?(?:to\s+the\s+|towards?\s+the\s+)?(?:(?:upper|top|lower|"
              r"bottom)[\s-]*(?:right|left)|north[\s-]*(?:east|west)|south[\s-]*(?:east|west)|right|left|above|below|"
              r"(?:up|down|above|below)\s+and\s+(?:to\s+the\s+)?(?:left|right)|(?:up|down)[\s-]*(?:left|right)|on\s+top|"
              r"under(?:neath)?|beneath)")
_DIR_SENTENCE = re.compile(_IMG + r"\s+(?:is|lies|sits|appears|would\s+be|should\s+be|must\s+be|is\s+located|is\s+positioned|\u2192|->|"
                           r"is\s+placed|goes|belongs)\s+(" + _DIR_WORDS + r")\s*(?:of|from|to)?\s*" + _IMG, re.I)
_PART_OF = re.compile(r"\b(?:(?:upper|lower|top|bottom)[\s-]*(?:left|right)|left|right|top|bottom)[\s-]+(?:corner|edge|side|"
                      r"border|half|part|portion)s?\b", re.I)  # a corner or an edge of one image: no direction
_AXIS = re.compile(r"\b(?:adjacent\s+(?:horizontally|vertically)|(?:horizontally|vertically)\s+adjacent|not\s+adjacent|"
                   r"side\s+by\s+side|diagonal(?:ly)?\s+adjacent)\b", re.I)


def _eight(t: str) -> list[Mention]:
    """"<image 2> is diagonally to the lower left of <image 1>" (H); said of image 1, the direction turns round."""
    out = []
    for m in _DIR_SENTENCE.finditer(t):
        word = {"one": "1", "two": "2", "first": "1", "second": "2"}
        a = m.group(1) or word.get((m.group(2) or "").lower(), m.group(2)) or word.get((m.group(3) or "").lower(), "")
        b = m.group(5) or word.get((m.group(6) or "").lower(), m.group(6)) or word.get((m.group(7) or "").lower(), "")
        d = _direction(m.group(4))
        if d is None or a == b or not a or not b:
            continue
        out.append(Mention(m.start(), m.end(), d if a == "2" else _INVERSE[d], "text"))
    return out


def option_words(t: str, spec, config: str, options) -> list[Mention]:
    """Mentions of an option by its own words."""
    out: list[Mention] = []
    k = len(spec.letters)
    if config.startswith("missing_piece"):
        for m in _CANDIDATE.finditer(t):
            cand, nth, img, tag, bare = m.groups()
            if cand:
                i = int(cand)
            elif nth:  # "the third candidate", "the third one", "the last candidate patch"
                i = k if nth.lower() == "last" else _ORDINALS.index(nth.lower()) + 1
            elif img:  # the N-th input image is candidate N-1 (the first is the puzzle); "the last candidate" is k
                if img.lower() == "last":
                    i = k
                elif re.search(r"candidate\s*$", m.group(0), re.I):
                    i = _ORDINALS.index(img.lower()) + 1
                else:
                    i = _ORDINALS.index(img.lower())
            else:
                i = int(tag or bare) - 1
            ok = 1 <= i <= k
            out.append(Mention(m.start(), m.end(), spec.letters[i - 1] if ok else None, "text",
                               "" if ok else f"{m.group(0)!r} is not one of the {k} candidates"))
        out += [x for x in candidates(t, spec) if not any(x.start < m.end and m.start < x.end for m in out)]
    elif config.endswith("_8dir"):
        out = _eight(t)
        out += [Mention(a, b, d, "text") for a, b, d in relative(t) if not any(a < m.end and m.start < b for m in out)]
        taken = [(m.start, m.end) for m in out] + [m.span() for m in _PART_OF.finditer(t)]  # "its lower-left corner"
        out += [Mention(m.start(), m.end(), m.lastgroup, "text") for m in _DIR.finditer(t)
                if not any(a <= m.start() < b for a, b in taken)]
        out += [Mention(m.start(), m.end(), None, "text", f"{m.group(0)!r} names no single direction")
                for m in _AXIS.finditer(t)]
    elif config.startswith("connection_verification"):
        taken = [m.span() for m in _EDGE.finditer(t)]  # "a horizontal seam" joins crops stacked vertically
        out += [Mention(a, b, None, "text", "an edge's direction names no relation") for a, b in taken]
        for a, b, d in relative(t):  # "Bild 2 liegt links von Bild 1": side by side (A); above or below (B)
            taken.append((a, b))
            out.append(Mention(a, b, "A" if d in "AB" else "B" if d in "CD" else "C", "text"))
        ml = pattern("relation").search(t) is not None  # any of the three in another language: one scan
        for letter, rx in _CV:
            other = pattern(_CV_KIND[letter]).finditer(t) if ml else ()  # English here, the rest as data
            for m in sorted([*rx.finditer(t), *other], key=lambda m: m.start() - m.end()):  # the longest first
                if not any(a < m.end() and m.start() < b for a, b in taken):
                    taken.append(m.span())
                    out.append(Mention(m.start(), m.end(), letter, "text"))
        out += [Mention(m.start(), m.end(), None, "text", "'adjacent' alone names no single option (A or B)")
                for m in _ADJACENT.finditer(t) if not any(a <= m.start() < b for a, b in taken)]
    elif options and spec.kind == CHOICE and all(_LIST_ONLY.fullmatch(str(o)) for o in options):
        want = {_ints(str(o)): spec.letters[i] for i, o in enumerate(options[:k])}
        n = len(next(iter(want)))
        for m in orders_in(t, n):
            if m.form in ("list", "rows", "regions") and m.parts and "order" in m.parts:
                letter = want.get(tuple(m.parts["order"]))
                out.append(Mention(m.start, m.end, letter, "list", "" if letter else
                                   f"the order {list(m.parts['order'])} is none of the options", m.parts))
        for m in _NTH_OPTION.finditer(t):  # "the second option", "the last choice" (Order Restoration's lists)
            i = k if m.group(1).lower() == "last" else _ORDINALS.index(m.group(1).lower()) + 1
            out.append(Mention(m.start(), m.end(), spec.letters[i - 1] if i <= k else None, "text",
                               "" if i <= k else f"{m.group(0)!r} is not one of the {k} options"))
        out += [x for x in candidates(t, spec) if not any(x.start < m.end and m.start < x.end for m in out)]
    return sorted(out, key=lambda m: m.start)


# ------------------------------------------------------------------------------------------------ orders
_LIST_ONLY = re.compile(r"\s*\[[\d,\s]+\]\s*")
_ITEM = r"(?:<\s*(?:image|img|piece|tile)\s*\d{1,2}\s*>|(?:(?:image|img|piece|tile)\s*|#)?\d{1,2})"
_SEP = r"(?:\s*(?:,|;|->|\u2192|=>|>|\||-|\u2013|/|\u3001|\uff0c)\s*|\s+)"  # "6 3 9 / 1 8 2 / 7 4 5", "3、1、2、4"
_BRACKET = re.compile(r"[\[(]\s*(" + _ITEM + r"(?:" + _SEP + _ITEM + r")*)\s*(?:,\s*)?(?:[\])]|(?<=\d)(?=\s*\Z))", re.I)  # or cut off
_DIGITS = re.compile(r"\d+")
_NESTED = re.compile(r"\[\s*(\[[\d,\s]+\](?:\s*,\s*\[[\d,\s]+\])+)\s*,?\s*\]")
_ROW_LINE = re.compile(r"[ \t]*(?:[-*\u2022]\s*)?(?:\|\s*)?(?:(?i:(row\s*\d+(?:\s*\((?:top|middle|centre|center|bottom)\))?|(?:top|middle|bottom|first|second|third|"
                       r"last|upper|lower|center|centre)\s+row|(?:top|middle|bottom|upper|lower)(?=\s*[|:])))\s*(?:[:=\-|]|->|\u2192)?\s*)?[\[(]?\s*(?:(?i:images?|pieces?|tiles?)\s+(?=\d))?(\d+(?:(?:\s*(?:[|,;\u3001]|->|\u2192|-)\s*"
                       r"|\s+|\s*,?\s+(?i:and|&)\s+(?:(?i:image|piece|tile)\s*)?)\d+)+)(?:\s*[\])|])?[\s.]*")  # "images 1 and 4"
_TABLE_RULE = re.compile(r"[ \t]*[|+]?\s*:?-{2,}:?(?:\s*[|+]\s*:?-{2,}:?)*\s*[|+]?[ \t]*")
_REGIONS = [re.compile(r"(?:" + n + r")\)?(?:\s+(?:region|corner|position|cell|quadrant|slot))?\s*(?:[:=]|->|\u2192|-|is|"
                       r"gets|has|holds|goes|belongs)?\s*(?:(?:is|gets|has|holds)\s+)?(?:the\s+)?(?:<?\s*(?:image|img|"
                       r"piece|tile)\s*|#)?([1-9]|one|two|three|four)\b", re.I)
            for n in (r"top[\s-]*left|upper[\s-]*left|\b(?-i:TL)", r"top[\s-]*right|upper[\s-]*right|\b(?-i:TR)",
                      r"bottom[\s-]*left|lower[\s-]*left|\b(?-i:BL)", r"bottom[\s-]*right|lower[\s-]*right|\b(?-i:BR)")]


_MORE_BEFORE = re.compile(r"\d\s*(?:,|;|->|-|\u2192|>)\s*$")
_MORE_AFTER = re.compile(r"\s*(?:,|;|->|-|\u2192|>)\s*\d")


_IMAGE_FIRST = re.compile(r"(?:<\s*)?(?:image|img|piece|tile)\s*#?\s*([1-4])(?:\s*>)?\s*(?:is|goes|belongs|sits|fits|"
                          r"must go|should go|->|\u2192|:)?\s*(?:in|at|on|to)?\s*(?:the\s+)?(top[\s-]*left|upper[\s-]*left|"
                          r"top[\s-]*right|upper[\s-]*right|bottom[\s-]*left|lower[\s-]*left|bottom[\s-]*right|lower[\s-]*right)"
                          r"(?![A-Za-z])", re.I)
_REGION_OF = {"top-left": 0, "top-right": 1, "bottom-left": 2, "bottom-right": 3}


def _ints(s: str) -> tuple[int, ...]:
    return tuple(int(x) for x in _DIGITS.findall(s))


_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_NW = "(" + "|".join(_NUMBER_WORDS) + ")"


def _spoken(n: int) -> Optional[re.Pattern]:
    """An order said in words ("two, four, one, three")."""
    return None if n > 9 else re.compile(r"(?<![A-Za-z])" + _NW + (r"(?:\s*[,;]?\s*|\s*-\s*)" + _NW) * (n - 1)
                                         + r"(?![A-Za-z])", re.I)


def _bare(n: int) -> Optional[re.Pattern]:
    if n > 9:
        return None
    return re.compile(r"(?<![\d.A-Za-z_,\[(])([1-9])" + (_SEP + r"([1-9])") * (n - 1) + r"(?![\dA-Za-z_]|\.\d|\s*[,\])])")


def _order(nums: tuple[int, ...], n: int, start: int, end: int, form: str) -> Mention:
    parts = {"order": nums} if len(nums) == n else None
    if sorted(nums) == list(range(1, n + 1)):
        return Mention(start, end, format_order(nums), form, "", parts)
    return Mention(start, end, None, form, f"{list(nums)[:20]} is not a permutation of 1-{n}", parts)


_NUMBERED = re.compile(r"(?im)^[^\n]*\b(?:order|sequence|arrangement)\b[^\n]*:[ \t*]*\n((?:[ \t]*\d[.)][ \t]*(?:images?|pieces?|"
                       r"tiles?|img)[ \t]*#?\d[ \t]*(?:\n|$))+)")  # "The correct order is:\n1. Image 3\n2. Image 4 ..."


def orders_in(t: str, n: int) -> list[Mention]:
    out: list[Mention] = []
    for m in _NUMBERED.finditer(t):  # each line's place, in turn, then its image
        lines = re.findall(r"(\d)[.)][ \t]*\D*(\d)", m.group(1))
        if [int(k) for k, _ in lines] == list(range(1, len(lines) + 1)):
            out.append(_order(tuple(int(i) for _, i in lines), n, m.start(1), m.end(1), "list"))
    for m in _NESTED.finditer(t):
        rows = [_ints(r) for r in re.findall(r"\[([\d,\s]+)\]", m.group(1))]
        if len({len(r) for r in rows}) == 1:
            out.append(_order(tuple(x for r in rows for x in r), n, m.start(), m.end(), "rows"))
    out += _row_lines(t, n)
    inside = [(m.start, m.end) for m in out]
    for m in _BRACKET.finditer(t):
        if not any(a <= m.start() < b for a, b in inside):
            out.append(_order(_ints(m.group(1)), n, m.start(), m.end(), "list"))
    bare = _bare(n)
    taken = [(m.start, m.end) for m in out]
    for m in bare.finditer(t) if bare is not None else ():
        if _MORE_BEFORE.search(t, max(0, m.start() - 4), m.start()) or _MORE_AFTER.match(t, m.end()):
            continue  # part of a longer run of numbers
        if not any(a <= m.start() < b for a, b in taken):
            out.append(_order(tuple(int(g) for g in m.groups()), n, m.start(), m.end(), "list"))
    spoken = _spoken(n)
    for m in spoken.finditer(t) if spoken is not None and re.search(r"(?i)\b(?:one|two|three)\b", t) else ():
        if not any(a <= m.start() < b for a, b in taken):
            out.append(_order(tuple(_NUMBER_WORDS.index(g.lower()) + 1 for g in m.groups()), n, m.start(), m.end(),
                              "list"))
    if n == 4:
        said: dict[int, re.Match] = {}
        for m in _IMAGE_FIRST.finditer(t):
            said[_REGION_OF[re.sub(r"[\s-]+", "-", m.group(2).lower().replace("upper", "top").replace("lower", "bottom"))]] = m
        if len(said) == 4:
            lo = min(m.start() for m in said.values())
            if max(m.end() for m in said.values()) - lo < 400 and not any(a <= lo < b for a, b in taken):
                out.append(_placements(t, [said[i] for i in range(4)], n))
        four = placed(t) if not said else None  # the same in another language
        if four is not None and not any(a <= four[1] < b for a, b in taken):
            out.append(_order(four[0], n, four[1], four[2], "regions"))
        found = [(rx.search(t), rx) for rx in _REGIONS]
        if all(f for f, _ in found):
            spans = [list(rx.finditer(t))[-1] for _, rx in found]
            if max(s.end() for s in spans) - min(s.start() for s in spans) < 400:
                out.append(_placements(t, spans, n))  # "Top-left: 2, top-right: 4, ...", "top left is two"
    return sorted(out, key=lambda m: m.start)


@functools.lru_cache(maxsize=1)
def _english_off() -> re.Pattern:
    """The English hedges, negations and conditions (the placements' words are English: Dutch "of" is no "or" here)."""
    return re.compile(alternation(frozenset(f for k in ("hedge", "negation", "condition") for f in table()[k].get("en", ()))), re.I)


def _placements(t: str, spans: list, n: int) -> Mention:
    """The order four placements say, corner by corner (the number in each span's first group); nothing between them
    may name another number, hedge, negate, condition or ask ("Top left is 2 or 4, ...": not read)."""
    lo, hi = min(s.start() for s in spans), max(s.end() for s in spans)
    tail = re.match(r"[ \t]*\([^()\n]{1,80}\)", t[hi:])  # "Bottom-right: image 1 (the dog on the grass)": its description
    hi += tail.end() if tail else 0
    rest = list(t[lo:hi])
    for s in spans:
        rest[s.start() - lo:s.end() - lo] = " " * (s.end() - s.start())
    rest = re.sub(r"(?m)^[ \t]*\d[.)]", " ", "".join(rest))  # a numbered list's numbers are no placements
    if re.search(r"[\d?]|(?<![^\W_])(?:one|two|three|four)(?![^\W_])", rest, re.I) or _english_off().search(rest):
        return Mention(lo, hi, None, "regions", "another number, a hedge or a negation stands between the placements")
    g = [s.group(1) for s in spans]
    return _order(tuple(int(x) if x.isdigit() else _NUMBER_WORDS.index(x.lower()) + 1 for x in g), n, lo, hi, "regions")


@functools.lru_cache(maxsize=1)
def _row_label() -> re.Pattern:
    return re.compile(r"[ \t]*(?:[-*\u2022]\s*)?(" + alternation(values("row")) + r")(?=\s*(?:[:=|\uff1a]|->|\u2192))", re.I)


def _row_lines(t: str, n: int) -> list[Mention]:
    """Blocks of consecutive lines that are rows of an order ("Row 1: 5 -> 1 -> 9", "| 2 | 3 |", "[2, 3]"), also
    rows on one line ("top row: 4, 1; bottom row: 3, 2")."""
    out, block, pos = [], [], 0
    t = t.translate(_BOX)
    pieces = re.split(r"(\n|;|[.,/](?= (?i:\w+ )?(?i:row)\b)|(?<=\d) / (?=\d))", t)  # "7-3-1 / 9-5-2 / 4-8-6": rows too
    lines, seps = pieces[::2], [len(p) for p in pieces[1::2]] + [1]
    for i, line in enumerate(lines + [None]):
        end = pos + len(line) if line is not None else pos
        if line is not None and (said := _row_label().match(line)):  # "Obere Reihe: 4, 8, 2" read as "top row: ..."
            line = line[:said.start(1)] + value("row", said.group(1)) + line[said.end(1):]
        r = _ROW_LINE.fullmatch(line) if line is not None and len(line) <= 200 else None  # a row is short
        rowish = r is not None and ("|" in line or re.match(r"\s*(?:[-*\u2022]\s*)?[\[(]?\s*\d", line) is None
                                    or line.strip().startswith(("[", "(")) or re.fullmatch(r"\s*\d(?:\s*(?:-|->|\u2192)\s*\d)+\s*", line))
        if line is not None and block and _TABLE_RULE.fullmatch(line):
            pos = end + seps[i]
            continue
        row = (pos, end, _ints(r.group(2)), (r.group(1) or "").lower()) if rowish else None
        if row is not None and (not block or len(row[2]) == len(block[0][2])):
            block.append(row)
        else:  # (a list of another length after the rows closes them: "Top row: 2, 9, 4; ...\n[2, 9, 4, ...]")
            if len(block) >= 2 and len({len(b[2]) for b in block}) == 1 and len(block) * len(block[0][2]) == n:
                at = [_row_index(b[3], len(block)) for b in block]  # "Bottom row: 3, 1\nTop row: 4, 2": by label
                lo, hi = block[0][0], block[-1][1]
                head = t[max(0, lo - 160):lo].rsplit("\n", 3)[-3:]  # "| | right | left |": the columns reversed
                why = "the table's columns are not in left-to-right order" if any(
                    re.search(r"right.*\bleft", h, re.I) for h in head) else ""
                if not why and None not in at and sorted(at) == list(range(len(block))):
                    block = [b for _, b in sorted(zip(at, block), key=lambda x: x[0])]
                elif why or any(a is not None for a in at):  # a row labelled twice, or outside the grid
                    out.append(Mention(lo, hi, None, "rows", why or "the rows' labels do not name each row once"))
                    block = []
                if block:
                    out.append(_order(tuple(x for b in block for x in b[2]), n, lo, hi, "rows"))
            block = [row] if row is not None else []
        pos = end + (seps[i] if i < len(seps) else 1)
    return out


def _row_index(label: str, rows: int):
    """The row a label names ("top row", "row 2", "bottom row") in a grid of ``rows`` rows, or None."""
    label, _, aside = label.partition("(")  # "row 3 (bottom)": the two must agree
    word = label.split()[-1] if label.startswith("row") else label.split()[0] if label else ""
    at = {"top": 0, "upper": 0, "first": 0, "second": 1, "third": 2, "bottom": rows - 1, "lower": rows - 1,
          "last": rows - 1}.get(word, (int(word) - 1 if word.isdigit() else 1 if rows == 3 and word else None))
    return at if not aside or _row_index(aside.strip(" )"), rows) == at else None


_BOX = str.maketrans({c: "|" for c in "\u2502\u2503\u2551"} | {c: "-" for c in "\u2500\u2501\u2550\u250c\u2510\u2514\u2518"
                                                                "\u251c\u2524\u252c\u2534\u253c\u2554\u2557\u255a\u255d"})


# ------------------------------------------------------------------------------------------------ rotated orders
_PAIR = (r"[(\[]\s*(?:<?image\s*|img\s*|#)?(\d{1,3})>?\s*,\s*(?:(?:rotation|rot|turn|angle)\s*[:=]?\s*)?(\d{1,4})\s*"
         r"(?:°|deg(?:rees?)?|\^\s*\{?\s*\\circ\s*\}?)?\s*[)\]]")  # "(image 3, rotation 90)", "(1, 90^\circ)"
_PAIRS = re.compile(r"\[?\s*" + _PAIR + r"(?:\s*(?:,\s*)?" + _PAIR + r")*(?:\s*,)?\s*\]?", re.I)
_ONE_PAIR = re.compile(_PAIR, re.I)
_AT = r"(?<![\w@])(?:image\s*|img\s*|#)?(\d{1,3})\s*@\s*(\d{1,4})\s*(?:°|deg(?:rees?)?)?(?![\w@])"  # "image 3 @ 90°", "3@90"
_AT_PAIRS, _ONE_AT = re.compile(_AT + r"(?:\s*[,;]\s*" + _AT + r")+", re.I), re.compile(_AT, re.I)
_DEG = r"(?<![\w(@])(?:image\s*|img\s*|#)?(\d{1,3})\s*\(\s*(\d{1,4})\s*(?:°|deg(?:rees?)?)\s*\)"  # "3 (0°), 1 (90°), ..."
_DEG_PAIRS, _ONE_DEG = re.compile(_DEG + r"(?:\s*(?:[,;]|->|\u2192)\s*" + _DEG + r")+", re.I), re.compile(_DEG, re.I)
_BARE = r"(?<![\w(@])(\d)\((0|90|180|270)\)(?![\w(])"  # "2(0) 3(90) 1(270) 4(180)": a turn with no unit, one of the four
_BARE_PAIRS, _ONE_BARE = re.compile(_BARE + r"(?:[ \t]*(?:[,;]|->|\u2192)?[ \t]*" + _BARE + r")+"), re.compile(_BARE)


def pairs_in(t: str, n: int) -> list[Mention]:
    out = []
    for m, one in [(m, _ONE_PAIR) for m in _PAIRS.finditer(t)] + [(m, _ONE_AT) for m in _AT_PAIRS.finditer(t)] + \
            [(m, _ONE_DEG) for m in _DEG_PAIRS.finditer(t)] + [(m, _ONE_BARE) for m in _BARE_PAIRS.finditer(t)]:
        pairs = [(int(i), int(r)) for i, r in one.findall(m.group(0))]
        order, rots = [i for i, _ in pairs], [r for _, r in pairs]
        if len(pairs) < 2:
            continue
        ok = sorted(order) == list(range(1, n + 1)) and set(rots) <= set(ROTATIONS)
        why = "" if ok else f"{len(pairs)} pairs that are not a permutation of 1-{n} with turns of 0/90/180/270"
        out.append(Mention(m.start(), m.end(), format_oriented(order, rots) if ok else None, "pairs", why,
                           {"order": tuple(order), "rotations": tuple(rots)} if len(pairs) == n else None))
    return out


def mentions(t: str, spec, config: str, options=None) -> list[Mention]:
    """Every mention of an answer in ``t``, by position."""
    if spec.kind == CHOICE:
        found = letters(t, spec) + option_words(t, spec, config, options)
    elif spec.kind == ORDER:
        found = orders_in(t, spec.order_length)
    elif spec.kind == ORIENTED:
        found = pairs_in(t, spec.order_length)
    else:
        found = blocks_in(t, spec)
    return sorted(found, key=lambda m: (m.start, -m.end))


__all__ = ["Mention", "mentions", "letters", "option_words", "orders_in", "pairs_in", "blocks_in", "unlabelled_block",
           "negated"]
