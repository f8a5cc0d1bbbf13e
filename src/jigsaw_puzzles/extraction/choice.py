"""Letters: the multiple-choice answer kinds (cascade steps 1-5 for a letter)."""

from __future__ import annotations

import re
from typing import Optional, Sequence

from ..spec import ConfigSpec
from .common import AMBIGUOUS, INVALID, PARSED, Extraction, _OR_OTHER, _PRINT_STR, _boxed_spans, _clean
from .order import _BARE_SEQ, _ints, _order_candidates


# --------------------------------------------------------------------------- letters

# Words after a capital "A" that still leave it an answer ("A because ...", "A is correct").
_A_CONNECTORS = frozenset(
    "is was because since as and or which fits matches seems appears looks would should "
    "best correct right fills belongs corresponds matches - for with".split()
)
_AFTER_LETTER = re.compile(r"[ \t]+([a-z][a-z'-]*)")


def _article_like(text: str, end: int, letter: str) -> bool:
    """True when the letter ending at ``end`` reads as the article "A"/"a" or a word."""
    if letter == "a":
        return True  # lower-case "a" is only accepted at the very end (checked by callers)
    if letter not in ("A", "I"):
        return False
    m = _AFTER_LETTER.match(text, end)
    return bool(m) and m.group(1) not in _A_CONNECTORS


_LOWER_OK = re.compile(r"\s*(?:$|[.,;:!?)\]}\"'*\n])")

_MARKER = re.compile(
    r"(?P<kw>"
    r"(?<![A-Za-z])(?:final|correct|best|right|my)?\s*answer(?:\s+(?:is|would\s+be|should\s+be|will\s+be|is\s+likely|is\s+probably|must\s+be))?"
    r"|(?:correct|right|best|most\s+appropriate|most\s+likely|final)\s+(?:option|choice|letter|candidate|selection)"
    r"(?:\s+(?:is|would\s+be|should\s+be|will\s+be|must\s+be))?"
    r"|i\s*(?:would|will|'d|'ll)?\s*(?:choose|select|pick|go\s+with)"
    r"|my\s+(?:choice|pick|selection)(?:\s+is)?"
    r"|corresponds?\s+to(?:\s+(?:area|region|mask|masked\s+area|position))?"
    r")(?![A-Za-z])"
    r"\s*(?:[:=\-]|is\b)?\s*(?:option|choice|letter|area)?\s*[:\-]?\s*[(\[{\"'<]*\s*"
    r"(?P<letter>[A-Za-z])(?![A-Za-z0-9])",
    re.I,
)
_POST_MARKER = re.compile(
    r"(?<![A-Za-z])(?:option|choice|answer|letter)?\s*\(?(?P<letter>(?-i:[A-Z]))\)?\s+is\s+(?:the\s+)?"
    r"(?:correct|right|answer|best|most\s+(?:appropriate|likely))\b",
    re.I,
)

_SHORT_CHOICE = re.compile(
    r"^[\s>*#\-]*(?:(?:final\s+)?(?:answer|option|choice|letter)\s*[:\-]?\s*)?"
    r"[(\[{\"']?\s*(?P<letter>[A-Za-z])\s*[)\]}\"']?\s*[.:;!]?\s*$",
    re.I,
)
_LETTER_PLUS_TEXT = re.compile(
    r"^[\s>*#\-]*(?:(?:answer|option|choice)\s*[:\-]?\s*)?[(\[]?(?P<letter>[A-Z])\s*[)\].:]\s+\S"
)
_ENUMERATION = re.compile(r"(?m)^\s*\(?[A-Z][).:]\s")
_STANDALONE = re.compile(r"(?<![A-Za-z0-9_'])(?P<letter>[A-Z])(?![A-Za-z0-9_'])")


def _letter_in_fragment(
    frag: str, spec: ConfigSpec, options: Optional[Sequence[str]], config: str, allow_text: bool = True
) -> tuple[Optional[str], str, str]:
    """Read a single choice answer from a short fragment (boxed content, the whole reply, ...).

    Returns (letter_or_None, status, detail); status is "" when nothing was found.
    """
    frag = frag.strip()
    if not frag:
        return None, "", ""
    m = _SHORT_CHOICE.match(frag)
    if m is not None:
        letter = m.group("letter").upper()
        if letter in spec.letters:
            return letter, PARSED, ""
        return None, INVALID, f"letter {letter!r} is not an option ({'/'.join(spec.letters)})"
    if not allow_text:
        return None, "", ""
    m = _LETTER_PLUS_TEXT.match(frag)
    if m is not None and m.group("letter") in spec.letters and not _ENUMERATION.search(frag, m.end()):
        return m.group("letter"), PARSED, ""
    alias = _option_text(frag, spec, options, config)
    if len(alias) == 1:
        return next(iter(alias)), PARSED, ""
    if alias:
        return None, AMBIGUOUS, "names several options: " + "/".join(sorted(alias))
    return None, "", ""


# Option texts that are the same for every item (contract), per config family.
_ORDINALS = {"second": "A", "third": "B", "fourth": "C", "fifth": "D"}
_CANDIDATE = re.compile(r"\bcandidate\s*#?\s*([1-4])\b|\b(second|third|fourth|fifth)\s+(?:input\s+)?image\b", re.I)
_CV_NOT = re.compile(r"\b(?:not|never|aren't|isn't|are\s+not|is\s+not)\s+(?:\w+\s+)?adjacent\w*(?:\s+(?:horizontally|vertically|to\s+each\s+other))?|\bnon[\s-]*adjacent\b", re.I)
_CV_TEXT = (
    ("A", re.compile(r"\bhorizontal(?:ly)?\b|\bleft[\s-]*(?:and[\s-]*|/)?right\b|\bside[\s-]by[\s-]side\b", re.I)),
    ("B", re.compile(r"\bvertical(?:ly)?\b|\btop[\s-]*(?:and[\s-]*|/)?bottom\b|\babove[\s-]*(?:and[\s-]*|/)?below\b", re.I)),
)


def _norm_opt(s: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]", " ", s.lower()).split())


def _lists_in(text: str) -> set[tuple[int, ...]]:
    out = {nums for _, nums in _order_candidates(text)}
    out.update(tuple(int(g) for g in m.groups()) for m in _BARE_SEQ.finditer(text))
    return out


def _option_text(text: str, spec: ConfigSpec, options: Optional[Sequence[str]], config: str) -> set[str]:
    """Letters whose option *text* the response names."""
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
    if config.startswith("missing_piece"):
        for m in _CANDIDATE.finditer(text):
            found.add("ABCD"[int(m.group(1)) - 1] if m.group(1) else _ORDINALS[m.group(2).lower()])
    elif config == "connection_verification":
        if _CV_NOT.search(text):
            found.add("C")
            text = _CV_NOT.sub(" ", text)
        found.update(letter for letter, rx in _CV_TEXT if rx.search(text))
    return found


def _choice(t: str, strict: bool, spec: ConfigSpec, options, config: str) -> Extraction:
    letters_desc = "/".join(spec.letters)
    # Step 1: explicit final answers; the one ending last wins.
    cands: list[tuple[int, str, Optional[str], str, str]] = []  # (end, rule, letter, status, detail)
    for end, content in _boxed_spans(t):
        letter, status, detail = _letter_in_fragment(_clean(content), spec, options, config)
        if not status:
            status, detail = INVALID, f"unreadable \\boxed{{{content[:40]}}}"
        cands.append((end, "boxed", letter, status, detail))
    for m in _MARKER.finditer(t):
        raw = m.group("letter")
        if raw.islower() and not _LOWER_OK.match(t, m.end()):
            continue  # "the answer is a bit unclear"
        if _article_like(t, m.end(), raw):
            continue  # "Answer: A good guess ...", "answer: I think ..."
        letter = raw.upper()
        other = _OR_OTHER.match(t, m.end())
        if other and other.group(1) != letter and other.group(1) in spec.letters:
            cands.append((m.end(), "marker", None, AMBIGUOUS, f"hedged answer {letter} or {other.group(1)}"))
        elif letter in spec.letters:
            cands.append((m.end(), "marker", letter, PARSED, ""))
        elif raw.isupper():
            cands.append((m.end(), "marker", None, INVALID, f"letter {letter!r} is not an option ({letters_desc})"))
    for m in _POST_MARKER.finditer(t):
        letter = m.group("letter")
        if letter in spec.letters:
            cands.append((m.end(), "marker", letter, PARSED, ""))
    for m in _PRINT_STR.finditer(t):
        letter, status, detail = _letter_in_fragment(m.group("val"), spec, options, config)
        if status:
            cands.append((m.end(), "code", letter, status, detail))
    if cands:
        _, rule, letter, status, detail = max(cands, key=lambda c: c[0])
        return Extraction(letter, status, rule, detail)
    if strict:
        return Extraction(None, INVALID, "none", "unterminated <think> block without a final answer")

    lines = t.strip().split("\n")
    # Step 2: the whole (short) response is a decorated answer.
    letter, status, detail = _letter_in_fragment(t, spec, options, config, allow_text=len(lines) <= 3)
    if status == PARSED or (status and len(lines) == 1):
        return Extraction(letter, status, "short", detail)
    # Step 3: the last non-empty line.
    if len(lines) > 1:
        m = _SHORT_CHOICE.match(lines[-1]) or _LETTER_PLUS_TEXT.match(lines[-1])
        if m is not None and (m.group("letter").isupper() or len(lines[-1].strip(" .*()[]")) == 1):
            letter = m.group("letter").upper()
            if letter in spec.letters:
                return Extraction(letter, PARSED, "last_line")
            if m.re is _SHORT_CHOICE:
                return Extraction(None, INVALID, "last_line", f"letter {letter!r} is not an option ({letters_desc})")
    # Step 4: option text.
    alias = _option_text(t, spec, options, config)
    if len(alias) == 1:
        return Extraction(next(iter(alias)), PARSED, "option_text")
    # Step 5: a sole standalone option letter.
    mentioned, article_only = set(), False
    for m in _STANDALONE.finditer(t):
        letter = m.group("letter")
        if letter not in spec.letters:
            continue
        if _article_like(t, m.end(), letter):
            article_only = True
            continue
        mentioned.add(letter)
    if len(mentioned) == 1:
        if alias and not (mentioned <= alias):
            return Extraction(None, AMBIGUOUS, "mention", "letter and option text disagree")
        return Extraction(next(iter(mentioned)), PARSED, "mention")
    if mentioned:
        return Extraction(None, AMBIGUOUS, "mention", "mentions several options: " + "/".join(sorted(mentioned)))
    if alias:
        return Extraction(None, AMBIGUOUS, "option_text", "names several options: " + "/".join(sorted(alias)))
    if article_only:
        return Extraction(None, AMBIGUOUS, "mention", "only an article-like 'A' (e.g. 'A good guess ...')")
    if status:  # e.g. a lone out-of-range letter on one of <= 3 lines
        return Extraction(letter, status, "short", detail)
    if config == "order_restoration" and _lists_in(t):
        return Extraction(None, INVALID, "none", "answered with an order list; pass the item's options to map it")
    return Extraction(None, INVALID, "none", "no answer found")
