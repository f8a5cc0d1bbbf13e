"""Option text: an answer that names an option by its words ("Candidate 2", "adjacent vertically", an Order
Restoration list among the item's options), cascade step 4 of the letters."""

from __future__ import annotations

import re
from typing import Optional, Sequence

from ...spec import ConfigSpec
from .common import _negated
from .order import _BARE_SEQ, _LIST_BRACKET, _ints


# Option texts that are the same for every item (contract), per config family.
_ORDINALS = {"second": "A", "third": "B", "fourth": "C", "fifth": "D"}
# A hedge inside the name ("candidate 2 or 3", "the third or fourth image") names every side of it.
_ALT = r"\s*(?:,\s*)?(?:or|/|and/or|nor)\s*(?:(?:maybe|possibly|perhaps|even)\s+)?"
_CANDIDATE = re.compile(
    r"\bcandidate\s*#?\s*([1-9]\d?)\b(?:" + _ALT + r"(?:candidate\s*)?#?\s*(\d+)\b)?"
    r"|\b((?:second|third|fourth|fifth)(?:" + _ALT + r"(?:the\s+)?(?:second|third|fourth|fifth))*)"
    r"\s+(?:input\s+)?image\b",
    re.I)
_ORDINAL_RX = re.compile(r"second|third|fourth|fifth", re.I)
_CV_NOT = re.compile(r"\b(?:not|never|aren't|isn't|are\s+not|is\s+not)\s+(?:\w+\s+)?adjacent\w*(?:\s+(?:horizontally|vertically|to\s+each\s+other))?|\bnon[\s-]*adjacent\b", re.I)
_CV_TEXT = (
    ("A", re.compile(r"\bhorizontal(?:ly)?\b|\bleft[\s-]*(?:and[\s-]*|/)?right\b|\bside[\s-]by[\s-]side\b", re.I)),
    ("B", re.compile(r"\bvertical(?:ly)?\b|\btop[\s-]*(?:and[\s-]*|/)?bottom\b|\babove[\s-]*(?:and[\s-]*|/)?below\b", re.I)),
)


# Connection Verification's 8 directions (spec.DIRECTIONS, in option order), in the words models use for them.
_DIRECTION = re.compile(
    r"(?<![a-z])(?:(?!(?:upper|top|lower|bottom)[\s-]*right)(?<!upper )(?<!upper-)(?<!top )(?<!top-)(?<!lower )"
    r"(?<!lower-)(?<!bottom )(?<!bottom-)(right)|(?<!upper )(?<!upper-)(?<!top )(?<!top-)(?<!lower )(?<!lower-)"
    r"(?<!bottom )(?<!bottom-)(left)|(above|directly up)|(below|directly down)|((?:upper|top)[\s-]*right|north[\s-]*east)"
    r"|((?:upper|top)[\s-]*left|north[\s-]*west)|((?:lower|bottom)[\s-]*right|south[\s-]*east)"
    r"|((?:lower|bottom)[\s-]*left|south[\s-]*west))(?![a-z])", re.I)
_DIR_KEYS = ("right", "left", "above", "below", "up", "down", "east", "west")
_CV_NOT_BEFORE = re.compile(r"\bnot\s+(?:to\s+the\s+|directly\s+|diagonally\s+)*$", re.I)
_CV_KEYS = ("adjacent", "horizontal", "left", "side", "vertical", "top", "above")  # one is in every _CV_* match


def _norm_opt(s: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]", " ", s.lower()).split())


def _lists_in(text: str) -> set[tuple[int, ...]]:
    """Every order list the text names, except negated ones ("not [1, 2, 3, 4]")."""
    out = {_ints(m.group(1)) for m in _LIST_BRACKET.finditer(text) if not _negated(text, m.start(), m.end())}
    out.update(tuple(int(g) for g in m.groups()) for m in _BARE_SEQ.finditer(text)
               if not _negated(text, m.start(), m.end()))
    return out


def _option_text(text: str, spec: ConfigSpec, options: Optional[Sequence[str]], config: str,
                 ruled_out: Optional[set] = None) -> set[str]:
    """Letters whose option *text* the response names; negated mentions ("not candidate 3") go to
    ``ruled_out`` instead (when given)."""
    found: set[str] = set()
    if options:
        t = _norm_opt(text)
        lists = None
        for letter, opt in zip(spec.letters, options):
            opt = str(opt)
            if config == "order_restoration" or re.fullmatch(r"\s*\[[\d,\s]+\]\s*", opt):
                if lists is None:
                    lists = _lists_in(text)
                if _ints(opt) in lists:
                    found.add(letter)
            else:
                o = _norm_opt(opt)
                if len(o) > 3 and re.search(r"(?<![0-9a-z])" + re.escape(o) + r"(?![0-9a-z])", t):
                    found.add(letter)
        if found:
            return found
    low = text.lower() if text.isascii() else None  # ASCII: skip the searches when no keyword is there
    if config.startswith("missing_piece"):
        if low is not None and "candidate" not in low and "image" not in low:
            return found
        for m in _CANDIDATE.finditer(text):
            if m.group(1):
                named = {spec.letters[int(d) - 1] if 1 <= int(d) <= len(spec.letters) else "?"
                         for d in m.group(1, 2) if d}
            else:
                named = {_ORDINALS[w.lower()] for w in _ORDINAL_RX.findall(m.group(3))}
            if _negated(text, m.start(), m.end()):
                if ruled_out is not None:
                    ruled_out.update(named)
            else:
                found.update(named)
    elif config.endswith("_8dir"):
        if low is not None and not any([k in low for k in _DIR_KEYS]):
            return found
        for m in _DIRECTION.finditer(text):
            letter = spec.letters[[g is not None for g in m.groups()].index(True)]
            if _negated(text, m.start(), m.end()) or _CV_NOT_BEFORE.search(text, max(0, m.start() - 12), m.start()):
                if ruled_out is not None:
                    ruled_out.add(letter)
            else:
                found.add(letter)
    elif config == "connection_verification":
        if low is not None and not any([k in low for k in _CV_KEYS]):
            return found
        if _CV_NOT.search(text):
            found.add("C")
            text = _CV_NOT.sub(" ", text)
        found.update(letter for letter, rx in _CV_TEXT if rx.search(text))
    return found
