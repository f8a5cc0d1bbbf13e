"""Where the statement that carries an answer stands (issue #32): the words :mod:`.known` reads.

The statement is the sentence or line that holds the answer's last mention: the letter (and its option's own words
when they follow it: "B. Candidate 2 (the third input image)"), the list (and a bare sequence after it), the
anomaly block, the pieces in prose; with any parenthesis or markup around it, from after a withdrawal in it
("Actually no, it is [3, 2, 1, 4]"), and with a label line before it that ends in ":" or a heading ("Final
answer:\nB", "**Answer**\nJudgment: B ..."). It ends at its sentence's end, or where a connective after the
answer starts an explanation ("B, because the seams line up").
"""

from __future__ import annotations

import re
from typing import Optional

from ...spec import ANOMALY, CHOICE, ORDER, ORIENTED
from .anomaly import _JUDG, _anomaly_block
from .choice import _article_like
from .common import _RETRACT, Extraction, _finditer, _last_boxed, _lowered, _negated
from .options import _CANDIDATE, _CV_KEYS, _CV_NOT, _CV_TEXT, _DIR_KEYS, _DIRECTION
from .order import _LIST_BRACKET, _bare_seq, _ints, _REGION_RX, _rows
from .oriented import _BARE, _pairs
from .prose import anomaly_prose, oriented_prose
from .vocabulary import AS_EXPLAINS, CONNECTIVES

# A Latin word (with its apostrophes), a word of another script (with its marks, up to ASCII or a space), a number,
# any other character.
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff\u0300-\u036f"
_TOKEN = re.compile(f"[{_LATIN}]+(?:'[{_LATIN}]+)*|[^\\W\\d_{_LATIN}][^\\s!-~]*|\\d+|\\S")
_IMAGE_TAG = re.compile(r"<\s*image\s*(\d+)\s*>", re.I)
_BREAK = re.compile(r"\n|[!?;]|\.(?=\s|$)")
_CAPITAL = re.compile(r"(?<![A-Za-z])[A-HJ-Z](?![A-Za-z])")  # a letter alone, but "I"
_CONNECTIVE = re.compile(r"(?<![^\W\d_])(?:" + "|".join(c.replace(" ", r"\s+") for c in CONNECTIVES) + r")(?![^\W\d_])",
                         re.I)
_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")
_ENDS = re.compile(r"[.!;]")  # a line holding one of these is a sentence, not a heading ("**Answer**")
#: A heading line right above the answer ("**Answer**", "### Final answer") belongs to its statement.
HEADINGS = frozenset("answer final solution result verdict conclusion judgment judgement output response".split())



def _tokens(s: str) -> list[tuple[str, int]]:
    if "<" in s:
        s = _IMAGE_TAG.sub(lambda m: " image " + m.group(1).rjust(len(m.group(0)) - 7), s)  # same length
    s = s.replace("\u2019", "'")
    return [(m.group(0), m.start()) for m in _TOKEN.finditer(s)]


def _words(s: str, numbers: bool = False) -> list[str]:
    """The words of ``s`` (and its numbers)."""
    return [t for t, _ in _tokens(s) if t[0].isalpha() or numbers and t.isdigit()]


def _clause_start(t: str, pos: int) -> int:
    """Where the statement holding ``t[pos]`` starts: its sentence or line, from after a withdrawal in it
    ("Actually no, it is [3, 2, 1, 4]"), or the label line before it ("Final answer:\nB")."""
    brk = _last_break(t, pos)
    start = brk
    for r in _RETRACT.finditer(t, start, pos):
        start = r.end()
    if start > brk:
        return start
    if brk > 0 and t[brk - 1] == "\n":  # a label line before it: "Final answer:\n**B**"
        lo = t.rfind("\n", 0, brk - 1) + 1
        label = t[lo:brk - 1].rstrip(" \t*#>-")
        if label.endswith(":") or (len(label) < 60 and not _ENDS.search(label) and len(_words(label)) <= 3
                                   and not HEADINGS.isdisjoint(w.lower() for w in _words(label))):
            start = lo
            for r in _RETRACT.finditer(t, lo, brk - 1):  # "First guess [1, 2, 3, 4], refined:\n[2, 1, 4, 3]"
                start = r.end()
    return start


def _last_break(t: str, pos: int) -> int:
    """Where the sentence or line holding ``t[pos]`` starts: after the last "\n", "!", ";" or "." followed by white
    space before ``pos`` (a "?" before the answer does not end its statement)."""
    brk = max(t.rfind("\n", 0, pos), t.rfind("!", 0, pos), t.rfind(";", 0, pos))
    d = t.rfind(".", brk + 1, pos - 1) if pos > 1 else -1
    while d > brk and not t[d + 1].isspace():
        d = t.rfind(".", brk + 1, d)
    return max(brk, d) + 1


def _sentence_end(t: str, pos: int) -> int:
    m = _BREAK.search(t, pos)
    if m is None:
        return len(t)
    return m.start() if m.group(0) == "\n" else m.end()


def _sentences(t: str, pos: int):
    """(text, offset) of each non-blank sentence or line of ``t[pos:]``, its closing punctuation included."""
    while pos < len(t):
        m = _BREAK.search(t, pos)
        end = len(t) if m is None else m.end()
        if t[pos:end].strip():
            yield t[pos:end], pos
        pos = end


def _explained_from(t: str, pos: int, end: int) -> int:
    """Where an explanation after the answer starts in ``t[pos:end]`` (a connective: "because", "since", "as the
    ..."), else ``end``."""
    for m in _CONNECTIVE.finditer(t, pos, end):
        if m.group(0).lower() != "as":
            return m.start()
        w = _NEXT_WORD.match(t, m.end())
        if w is not None and w.group(1).lower() in AS_EXPLAINS:
            return m.start()
    return end


_WORDCHAR_SET = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'")


def letter_statement(t: str, letter: str) -> Optional[tuple[int, int]]:
    """(start, end) of the last occurrence of ``letter`` standing alone in ``t`` that is neither negated nor the
    article ("A good fit"): the letter's final statement."""
    if _LAST_LETTER[0] == (t, letter):  # the reading rule and the gate ask for the same one
        return _LAST_LETTER[1]
    _LAST_LETTER[0], _LAST_LETTER[1] = (t, letter), _letter_statement(t, letter)
    return _LAST_LETTER[1]


_LAST_LETTER: list = [None, None]


def _letter_statement(t: str, letter: str) -> Optional[tuple[int, int]]:
    i = len(t)
    while True:
        i = t.rfind(letter, 0, i)
        if i < 0:
            return None
        quoted = 0 < i < len(t) - 1 and t[i - 1] == t[i + 1] == "'"  # print('B')
        if ((quoted or (i == 0 or t[i - 1] not in _WORDCHAR_SET) and (i + 1 == len(t) or t[i + 1] not in _WORDCHAR_SET))
                and not _negated(t, i, i + 1) and not _article_like(t, i + 1, letter)):
            return i, i + 1


def _lower_letter(t: str, letter: str) -> Optional[tuple[int, int]]:
    """The last lower-case ``letter`` standing alone ("(b)", "answer: b."): the cascade reads one only where
    nothing but punctuation follows it."""
    for m in reversed(list(re.finditer(r"(?<![A-Za-z0-9_'])" + letter.lower() + r"(?![A-Za-z0-9_'])", t))):
        if not t[m.end():].strip(" \t\n.,;:!)]}\"'*"):
            return m.span()
    return None


_OPTION_KEYS = {"missing_piece": ("candidate", "image"), "_8dir": _DIR_KEYS, "connection_verification": _CV_KEYS}


def _family(config: str) -> str:
    return ("missing_piece" if config.startswith("missing_piece") else "_8dir" if config.endswith("_8dir")
            else "connection_verification" if config.startswith("connection_verification") else "")


_ORDINAL_LETTER = {"second": "A", "third": "B", "fourth": "C", "fifth": "D"}


def _option_span(t: str, config: str, letters: str, letter: str, options=None
                 ) -> Optional[tuple[int, int, bool]]:
    """(start, end, it is an order list) of the last mention of ``letter``'s own option words that names it alone
    and is not ruled out, or ``None``."""
    spans = []
    if not options:
        keys = _OPTION_KEYS.get(_family(config))
        if keys is None:
            return None  # a config whose options have no words of their own (letters only)
        low = t.lower() if t.isascii() else None
        if low is not None and not any([k in low for k in keys]):
            return None  # none of the option words' keywords: no mention (the searches below are slow)
    opt = str(options[letters.index(letter)]) if options and letter in letters[:len(options)] else ""
    listed = bool(re.fullmatch(r"\s*\[[\d,\s]+\]\s*", opt))
    if listed:  # an order among the options (Order Restoration)
        want = _ints(opt)
        bare = _bare_seq(len(want))
        spans = [m.span() for m in _LIST_BRACKET.finditer(t) if _ints(m.group(1)) == want]
        spans += [m.span() for m in (bare.finditer(t) if bare else ()) if tuple(map(int, m.groups())) == want]
    elif config.startswith("missing_piece"):
        for m in _CANDIDATE.finditer(t):
            if m.group(1):
                named = {letters[int(d) - 1] if 1 <= int(d) <= len(letters) else "?" for d in m.group(1, 2) if d}
            else:
                named = {_ORDINAL_LETTER[w.lower()] for w in re.findall(r"second|third|fourth|fifth", m.group(3), re.I)}
            if named == {letter}:
                spans.append(m.span())
    elif config.endswith("_8dir"):
        spans = [m.span() for m in _DIRECTION.finditer(t)
                 if letters[[g is not None for g in m.groups()].index(True)] == letter]
    elif config.startswith("connection_verification"):
        for rx in [_CV_NOT] if letter == "C" else [rx for lt, rx in _CV_TEXT if lt == letter]:
            spans += [m.span() for m in rx.finditer(t)]
    spans = [sp for sp in spans if not _negated(t, *sp)]
    return (*max(spans, key=lambda sp: sp[1]), listed) if spans else None


def _spans(t: str, ex: Extraction, spec, config: str, options=None) -> list[tuple[int, int, bool]]:
    """(start, end, the span is the answer's literal) of the answer's last mention in ``t``; for a letter, of its
    last mention as a letter and as its option's own words ("B. Candidate 2 (the third input image)"): both are
    its statements."""
    if spec.kind == CHOICE:
        letter = letter_statement(t, ex.answer) or _lower_letter(t, ex.answer)
        option = _option_span(t, config, spec.letters, ex.answer, options)
        if letter is None:
            return [option] if option is not None else []
        return [(*letter, True)] + ([option] if option is not None and option[0] > letter[0] else [])
    if spec.kind == ORDER and ex.rule not in ("rows", "option_text"):  # its last mention bracketed, and bare after it
        want = _ints(ex.answer)
        brackets = [m.span() for m in _LIST_BRACKET.finditer(t) if _ints(m.group(1)) == want]
        bare = _bare_seq(len(want))
        seqs = [m.span() for m in (bare.finditer(t) if bare is not None else ())
                if tuple(map(int, m.groups())) == want and not any(a <= m.start() < b for a, b in brackets)]
        brackets = [sp for sp in brackets if not _negated(t, *sp)]
        seqs = [sp for sp in seqs if not _negated(t, *sp) and (not brackets or sp[0] > brackets[-1][0])]
        return [(*f[-1], True) for f in (brackets, seqs) if f]
    span = _span(t, ex, spec, config)
    return [span] if span is not None else []


def _span(t: str, ex: Extraction, spec, config: str) -> Optional[tuple[int, int, bool]]:
    """(start, end, the span is the answer's literal) of the answer's last mention in ``t`` (not a letter)."""
    kind = spec.kind
    if kind == ORDER and ex.rule == "rows":
        rows = _rows(t, spec.order_length)
        if rows is None:
            return None
        return rows[0] + len(t[rows[0]:]) - len(t[rows[0]:].lstrip()), len(t.rstrip()), False
    if kind == ORDER and ex.rule == "option_text":
        ms = [m for rx in _REGION_RX for m in rx.finditer(t)]
        return (min(m.start() for m in ms), max(m.end() for m in ms), False) if ms else None
    if kind == ORIENTED and ex.rule == "prose":
        where: list[int] = []
        oriented_prose(t, *spec.grid, where)
        return (where[0], where[1], False) if len(where) == 2 else None
    if kind == ANOMALY:
        return _anomaly_span(t, ex, spec)
    want = _pairs(ex.answer)
    found = [(m.start(), m.end() + (t[m.end():m.end() + 1] == "]")) for m in _BARE.finditer(t)
             if _pairs(m.group(0)) == want]
    found = [f for f in found if not _negated(t, *f)]
    return (*max(found, key=lambda f: f[1]), True) if found else None


def _anomaly_span(t: str, ex: Extraction, spec) -> Optional[tuple[int, int, bool]]:
    if ex.rule == "prose":
        where: list[int] = []
        anomaly_prose(t, *spec.grid, where)
        return (where[0], where[1], False) if len(where) == 2 else None
    lo = 0
    if ex.rule == "boxed":  # the box that ends last holds the answer
        box = _last_boxed(t)
        if box is None:
            return None
        lo = max(t.rfind("\\boxed", 0, box[0]), t.rfind("\\fbox", 0, box[0]))
        if t.lower().find("judg", lo, box[0]) < 0:
            return lo, box[0], False
    last = None
    for last in _finditer(_JUDG, t, _lowered(t), lo):
        pass
    if last is None:  # an unlabelled block: the whole text ("B\nC\nA"), or its last line ("... \nB C A")
        return (0 if ex.rule == "short" else t.rstrip().rfind("\n") + 1), len(t), False
    return last.start(), _anomaly_block(t, spec.num_options, spec.grid)[0], False
