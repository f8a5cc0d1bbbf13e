"""Letters: the multiple-choice answer kinds (cascade steps 1-5 for a letter)."""

from __future__ import annotations

import re
from typing import Optional, Sequence

from ...spec import ConfigSpec
from .common import (AMBIGUOUS, INVALID, PARSED, Extraction, _OR_OTHER, _PRINT_STR, _caseless, _clean, _finditer,
                     _last_boxed, _last_segment, _lowered, _negated, _start)
from .hedge import hedged_letter, other_letters, picks
from .options import _CV_KEYS, _DIR_KEYS, _lists_in, _option_text


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

# Markers are line-bounded: text is cleaned first (a space run is one " ", a line break one "\n"), and a
# marker never reads across a line break to its letter ("Option C: correct\nOption D: wrong" is not a
# marker for D) - except "Answer:" at the end of a line whose next line is the letter alone ("Answer:\n**B**").
_ANSWER_TAIL = r" ?answer(?: (?:is|would be|should be|will be|is likely|is probably|must be))?"
_OPTION_TAIL = r" (?:option|choice|letter|candidate|selection)(?: (?:is|would be|should be|will be|must be))?"
# Every branch starts with a literal letter (the lower-case form then searches fast, see common._lowered);
# the "answer" family must not follow a letter, checked right after its first letter.
_MARKER_KW = (
    r"(?P<kw>"
    r"f(?<![A-Za-z]f)inal" + _ANSWER_TAIL + r"|c(?<![A-Za-z]c)orrect" + _ANSWER_TAIL +
    r"|b(?<![A-Za-z]b)est" + _ANSWER_TAIL + r"|r(?<![A-Za-z]r)ight" + _ANSWER_TAIL +
    r"|m(?<![A-Za-z]m)y" + _ANSWER_TAIL + r"|a(?<![A-Za-z]a)" + _ANSWER_TAIL[3:] +
    r"|correct" + _OPTION_TAIL + r"|right" + _OPTION_TAIL + r"|best" + _OPTION_TAIL +
    r"|most appropriate" + _OPTION_TAIL + r"|most likely" + _OPTION_TAIL + r"|final" + _OPTION_TAIL +
    r"|i ?(?:would|will|'d|'ll)? ?(?:choose|select|pick|go with)"
    r"|my (?:choice|pick|selection)(?: is)?"
    r"|corresponds? to(?: (?:area|region|mask|masked area|position))?"
    r")(?![A-Za-z])"
)
#: Every marker contains one of these at most 17 characters after its start ("most appropriate option").
_MARKER_KEYS = ("answer", "option", "choice", "letter", "candidate", "select", "choose", "pick", "go with",
                "correspond")
_MARKER = _caseless(
    _MARKER_KW +
    r"(?: ?(?:[:=\-]|is\b)? ?(?:option|choice|letter|area)? ?[:\-]? ?[(\[{\"'<]* ?"
    r"| ?: ?\n(?=[(\[{\"'<]*[A-Za-z][)\]}\"'>.!]* ?(?:\n|$))[(\[{\"'<]*)"
    r"(?P<letter>[A-Za-z])(?![A-Za-z0-9])"
)
# The post-marker's tail (" is correct") has a literal start, so the lower-case text is searched for it and
# the letter and what may precede it are checked by hand (_post_markers), accepting exactly _POST_MARKER.
_POST_TAIL = re.compile(r" is (?:the )?(?:correct|right|answer|best|most (?:appropriate|likely))\b")
_POST_KWS = frozenset(["option", "choice", "answer", "letter"])
_POST_MARKER = re.compile(
    r"(?<![A-Za-z])(?:option|choice|answer|letter)? ?\(?(?P<letter>(?-i:[A-Z]))\)? is (?:the )?"
    r"(?:correct|right|answer|best|most (?:appropriate|likely))\b",
    re.I,
)


def _post_markers(t: str, tl: Optional[str]):
    """(end, letter) of every post-marker ("B is correct", "option (C) is the answer")."""
    if tl is None:
        for m in _POST_MARKER.finditer(t):
            yield m.end(), m.group("letter")
        return
    if " is " not in tl:
        return
    for h in _POST_TAIL.finditer(tl):
        q = h.start() - 1
        if q > 0 and t[q] == ")":
            q -= 1
        if q < 0 or not ("A" <= t[q] <= "Z"):
            continue
        # _POST_MARKER's start: (?<![A-Za-z])(?:option|choice|answer|letter)? ?\(? before the letter.
        ok = False
        for a in ((q, q - 1) if q > 0 and t[q - 1] == "(" else (q,)):
            for b in ((a, a - 1) if a > 0 and t[a - 1] == " " else (a,)):
                for c in ((b, b - 6) if b >= 6 and tl[b - 6:b] in _POST_KWS else (b,)):
                    if c == 0 or not t[c - 1].isalpha():
                        ok = True
        if ok:
            yield h.end(), t[q]


# A per-option verdict: "A: incorrect", "(B) correct", "C - yes", "Option D: wrong", "A ✓". The verdict word
# must close its clause ("B: right half" is not a verdict).
_MARKS = "[\u2713\u2714\u2705\u2717\u2718\u274c]"
_VERDICT = re.compile(  # starts with the letter (a fast search for capitals), then checks what precedes it
    r"(?P<letter>[A-Z])(?<![A-Za-z0-9_'][A-Z])"
    r"(?:(?:[)\]]? ?(?:[:=]|->|-+)|[)\]])"
    r" ?(?:(?P<word>(?i:correct|incorrect|not correct|not right|yes|no|right|wrong|true|false))"
    r"(?= ?(?:$|[\n.,;:!()\-]|(?i:because|since|as|it|this|the)\b))|(?P<mark>" + _MARKS + r"))"
    r"|[)\]]? ?(?P<mark2>" + _MARKS + r"))"
)
_POSITIVE = frozenset(["correct", "yes", "right", "true", "\u2713", "\u2714", "\u2705"])


def _verdict_matches(t: str):
    """``_VERDICT.finditer(t)``. For ASCII text, a verdict's letter stands at most 3 characters before one of
    ``: = - ) ]``, so only those places are tried (a regex scan for capitals is the slow part otherwise)."""
    if not t.isascii():
        yield from _VERDICT.finditer(t)
        return
    starts = set()
    for c in ":=-)]":
        if c not in t:
            continue
        i = t.find(c)
        while i >= 0:
            for q in (i - 1, i - 2, i - 3):
                if q >= 0 and "A" <= t[q] <= "Z":
                    starts.add(q)
            i = t.find(c, i + 1)
    last = 0
    for q in sorted(starts):
        if q >= last:
            m = _VERDICT.match(t, q)
            if m is not None:
                last = m.end()
                yield m


def _verdicts(t: str, spec: ConfigSpec) -> Optional[tuple[int, Optional[str], str, str]]:
    """The verdict-list rule: (end, letter, status, detail), or ``None`` when there is no verdict list.

    Each option's last verdict counts. Exactly one option judged positive -> that letter; none or several
    -> ambiguous. A single negative verdict ("B: wrong") is only a negation, not a list.
    """
    last: dict[str, bool] = {}
    end = 0
    for m in _verdict_matches(t):
        letter = m.group("letter")
        if letter not in spec.letters:
            continue
        word = (m.group("word") or m.group("mark") or m.group("mark2")).lower()
        last[letter] = word in _POSITIVE
        end = m.end()
    if not last:
        return None
    positive = sorted(k for k, v in last.items() if v)
    if len(positive) == 1:
        return end, positive[0], PARSED, ""
    if len(last) < 2 and not positive:
        return None
    if positive:
        return end, None, AMBIGUOUS, "several options judged correct: " + "/".join(positive)
    return end, None, AMBIGUOUS, "no option judged correct (" + "/".join(sorted(last)) + " judged wrong)"


_SHORT_CHOICE = re.compile(
    r"^[\s>*#\-]*(?:(?:final\s+)?(?:answer|option|choice|letter)\s*[:\-]?\s*)?"
    r"[(\[{\"']?\s*(?P<letter>[A-Za-z])\s*[)\]}\"']?\s*[.:;!]?\s*$",
    re.I,
)
_LETTER_PLUS_TEXT = re.compile(
    r"^[\s>*#\-]*(?:(?:answer|option|choice)\s*[:\-]?\s*)?[(\[]?(?P<letter>[A-Z])\s*[)\].:]\s+\S"
)
_ENUMERATION = re.compile(r"(?m)^\s*\(?[A-Z][).:]\s")
# A line that labels an option ("A) sky", "Option C: ...").
_OPTION_LINE = re.compile(r"(?m)^[ \t>*#\-]*(?:(?i:option|choice|candidate)[ \t]+)?[(\[]?[A-Z][)\].:][ \t]")
_STANDALONE = re.compile(r"(?P<letter>[A-Z])(?<![A-Za-z0-9_'][A-Z])(?![A-Za-z0-9_'])")


_DISAGREE = "letter and option text disagree"


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
    if (m is not None and m.group("letter") in spec.letters and not _ENUMERATION.search(frag, m.end())
            and not _negated(frag, m.start("letter"), m.end("letter"))  # "B: wrong" is no answer
            and not other_letters(frag, m.end("letter"), m.group("letter"), spec.letters)):  # "A: sky. B: sand"
        return m.group("letter"), PARSED, ""
    alias = _option_text(frag, spec, options, config)
    if len(alias) == 1:
        if other_letters(frag, 0, next(iter(alias)), spec.letters):  # "A (adjacent horizontally) or maybe B"
            return None, AMBIGUOUS, _DISAGREE
        return next(iter(alias)), PARSED, ""
    if alias:
        return None, AMBIGUOUS, "names several options: " + "/".join(sorted(alias))
    return None, "", ""


def _marker_cand(t: str, m: re.Match, letters: str, letters_desc: str) -> Optional[tuple[int, Optional[str], str, str]]:
    """The step-1 candidate (end, letter, status, detail) of one _MARKER match, or ``None`` when it is none."""
    raw = t[m.start("letter")]
    if raw.islower() and not _LOWER_OK.match(t, m.end()):
        return None  # "the answer is a bit unclear"
    if _article_like(t, m.end(), raw):
        return None  # "Answer: A good guess ...", "answer: I think ..."
    letter = raw.upper()
    other = _OR_OTHER.match(t, m.end())
    other = other.group(1) if other and other.group(1) != letter and other.group(1) in letters else None
    other = other or hedged_letter(t, m.end(), letter, letters)  # "C or maybe D", "B. Or possibly D."
    if other:
        return m.end(), None, AMBIGUOUS, f"hedged answer {letter} or {other}"
    if _negated(t, m.start("letter"), m.end()):
        return None  # "The answer B is wrong"
    if letter in letters:
        return m.end(), letter, PARSED, ""
    if raw.isupper():
        return m.end(), None, INVALID, f"letter {letter!r} is not an option ({letters_desc})"
    return None


_PRINT_SPAN = 240  # a _PRINT_STR match is shorter than this (its value is at most 200 characters)
#: What may follow a final marker at the very end of a response without another candidate ending later.
_END_PUNCT = frozenset(" .!)]*\"'")


def _last_line_marker(t: str, tl: str, letters: str, letters_desc: str):
    """Step 1 decided by the last line or sentence alone (a long trace ending in "Final answer: (B)"), or
    ``None``.

    Exact, not a heuristic: when the last marker there has nothing after it but closing punctuation, no
    other candidate can end later - a box needs a "}", a verdict, post-marker or later marker a letter,
    code a "print" (none in the text) - and no earlier marker reaches into that segment (common._last_segment).
    Saves scanning long traces for markers.
    """
    ls = _last_segment(t)
    if ls < 0:
        return None
    cand = None
    for m in _MARKER[1].finditer(tl, ls):
        c = _marker_cand(t, m, letters, letters_desc)
        if c is not None:
            cand = c
    if cand is None or not _END_PUNCT.issuperset(t[cand[0]:]):
        return None
    if ")" in t[cand[0]:] and "print" in t[-_PRINT_SPAN:]:  # code's print("...") could end later
        return None
    return cand


def _nothing_to_read(t: str, tl: str, letters: str, config: str) -> bool:
    """True when no step can read anything from ``t`` (one ASCII line with no marker keyword, which the caller
    checked): the cascade would end in "no answer found", and this says so after a few substring tests
    instead of running every step ("I cannot tell from the images."). Tested against the full cascade."""
    if ("\n" in t or "{" in t or ":" in t or ")" in t or "-" in t or "]" in t or "=" in t or " is " in tl
            or "print" in t or any([c in t for c in letters])):  # boxes, verdicts, post-markers, code, letters
        return False
    if config.startswith("missing_piece"):
        if "candidate" in tl or "image" in tl:
            return False
    elif config == "connection_verification":
        if any([k in tl for k in _CV_KEYS]):
            return False
    elif config.endswith("_8dir"):
        if any([k in tl for k in _DIR_KEYS]):
            return False
    elif config == "order_restoration" and _ANY_DIGIT.search(t):
        return False
    return _SHORT_CHOICE.match(t) is None  # a lone letter in any case ("b", "(e)")


_ANY_DIGIT = re.compile(r"\d")
_LETTERS: dict[str, tuple[str, str]] = {}  # config -> (option letters, "A/B/C/D")


def _choice(t: str, strict: bool, spec: ConfigSpec, options, config: str) -> Extraction:
    known = _LETTERS.get(config)
    if known is None:
        known = _LETTERS[config] = (spec.letters, "/".join(spec.letters))
    letters, letters_desc = known
    # Step 1: explicit final answers; the one ending last wins.
    cands: list[tuple[int, str, Optional[str], str, str]] = []  # (end, rule, letter, status, detail)
    boxed = _last_boxed(t)
    if boxed is not None:
        end, content = boxed
        letter, status, detail = _letter_in_fragment(_clean(content), spec, options, config)
        if not status:
            status, detail = INVALID, f"unreadable \\boxed{{{content[:40]}}}"
        cands.append((end, "boxed", letter, status, detail))
    tl = _lowered(t)
    if tl is not None and len(t) > 64:
        quick = _last_line_marker(t, tl, letters, letters_desc)
        if quick is not None and (boxed is None or boxed[0] < quick[0]):
            return Extraction(quick[1], quick[2], "marker", quick[3])
    pos = _start(tl, _MARKER_KEYS, 20)
    if pos < 0 and not strict and not options and _nothing_to_read(t, tl, letters, config):
        return Extraction(None, INVALID, "none", "no answer found")
    for m in _finditer(_MARKER, t, tl, pos):
        cand = _marker_cand(t, m, letters, letters_desc)
        if cand is not None:
            cands.append((cand[0], "marker", cand[1], cand[2], cand[3]))
    verdict = (_verdicts(t, spec) if tl is None or ":" in t or ")" in t or "-" in t or "]" in t or "=" in t
               else None)  # an ASCII verdict has one of these after its letter
    if verdict is not None:  # before the post-markers: on a tie ("B is correct. C is correct.") the list decides
        end, letter, status, detail = verdict
        cands.append((end, "verdicts", letter, status, detail))
    if tl is None or " is " in tl:
        for end, letter in _post_markers(t, tl):
            if letter in letters:
                cands.append((end, "marker", letter, PARSED, ""))
    pick = picks(t, letters)  # "A: sky. B: sand. C: a dog -> C", "C: the dog <- this one"
    if pick is not None:
        cands.append((pick[0], "marker", pick[1], PARSED if pick[1] else AMBIGUOUS,
                      "" if pick[1] else "arrows point at different options"))
    if "print" in t:
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
    if status == PARSED and len(lines) > 1:  # "not adjacent\nA": option text, then another letter on its own
        m = _SHORT_CHOICE.match(lines[-1])
        if m is not None and m.group("letter").upper() in letters and m.group("letter").upper() != letter:
            return Extraction(None, AMBIGUOUS, "mention", "letter and option text disagree")
    if status == PARSED or (status and len(lines) == 1):
        return Extraction(letter, status, "short", detail)
    if status == AMBIGUOUS and detail == _DISAGREE:  # "not adjacent\nA": option text and another letter
        return Extraction(None, AMBIGUOUS, "mention", detail)
    # Step 3: the last non-empty line.
    if len(lines) > 1:
        last = lines[-1]
        # Candidates described one per line ("A) sky\nB) sand\nC) the dog"): the last line is a description.
        m = _SHORT_CHOICE.match(last) or (_LETTER_PLUS_TEXT.match(last) if len(_OPTION_LINE.findall(t)) < 2 else None)
        bare = {b.group("letter").upper() for b in map(_SHORT_CHOICE.match, lines[:-1]) if b is not None}
        if m is not None and (m.group("letter").isupper() or len(last.strip(" .*()[]")) == 1):
            found = m.group("letter").upper()
            if bare & set(letters) - {found}:  # "B\nC\nD": bare letters on several lines leave them open
                return Extraction(None, AMBIGUOUS, "last_line", "several lines each give a letter: "
                                  + "/".join(sorted(bare & set(letters) | {found})))
            if m.re is _LETTER_PLUS_TEXT and (_negated(last, m.start("letter"), m.end("letter"))
                                              or other_letters(last, m.end("letter"), found, letters)):
                pass  # "D: incorrect" on the last line is no answer; "B. Or possibly D." leaves two open
            elif found in letters:
                return Extraction(found, PARSED, "last_line")
            elif m.re is _SHORT_CHOICE:
                return Extraction(None, INVALID, "last_line", f"letter {found!r} is not an option ({letters_desc})")
    # Steps 4-5 never return a negated letter ("not B", "B is wrong", "it can't be A").
    mentioned, negated, article_only = set(), set(), False
    for m in _STANDALONE.finditer(t):
        letter = m.group("letter")
        if letter not in letters:
            continue
        if _negated(t, m.start(), m.end()):
            negated.add(letter)
            continue
        if _article_like(t, m.end(), letter):
            article_only = True
            continue
        mentioned.add(letter)
    # Step 4: option text.
    alias = _option_text(t, spec, options, config, negated) - negated
    mentioned -= negated  # a letter ruled out anywhere is never the answer
    if len(alias) == 1:
        if mentioned - alias:  # "They are adjacent horizontally. Maybe B though."
            return Extraction(None, AMBIGUOUS, "option_text", "letter and option text disagree")
        return Extraction(next(iter(alias)), PARSED, "option_text")
    # Step 5: a sole standalone option letter that is not negated.
    if len(mentioned) == 1:
        if alias and not (mentioned <= alias):
            return Extraction(None, AMBIGUOUS, "mention", "letter and option text disagree")
        return Extraction(next(iter(mentioned)), PARSED, "mention")
    if mentioned:
        return Extraction(None, AMBIGUOUS, "mention", "mentions several options: " + "/".join(sorted(mentioned)))
    if alias:
        return Extraction(None, AMBIGUOUS, "option_text", "names several options: " + "/".join(sorted(alias)))
    if negated:
        return Extraction(None, AMBIGUOUS, "negation",
                          "only rules out " + "/".join(sorted(negated)) + "; names no answer")
    if article_only:
        return Extraction(None, AMBIGUOUS, "mention", "only an article-like 'A' (e.g. 'A good guess ...')")
    if status:  # e.g. a lone out-of-range letter on one of <= 3 lines
        return Extraction(letter, status, "short", detail)
    if config == "order_restoration" and _lists_in(t):
        return Extraction(None, INVALID, "none", "answered with an order list; pass the item's options to map it")
    return Extraction(None, INVALID, "none", "no answer found")
