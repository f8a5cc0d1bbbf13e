"""Fail closed (issue #32): an answer is read only from words the reader knows.

The cascade finds the final answer and the reading rule (:mod:`.reading`) checks that nothing keeps another one
open. This module then reads the *statement* that carries the answer, the way a careful grader does who knows only
the words of :mod:`.vocabulary`:

1. **The statement** is the sentence or line that holds the answer's last mention (the letter, the list, an
   option's own words, the anomaly block, the pieces in prose), with any parenthesis or markup around it, and a
   label line before it that ends in ":" ("Final answer:\\nB"). An explanation after a connective that follows
   the answer ("B, because the seams line up") is not read for words.
2. **Every word and symbol of the statement is known**: in the vocabulary, or one of the task's own answer forms.
   Another answer the statement rules out ("B, not C") is understood and skipped. An unknown word, another script,
   strike-through, a comment, a sarcasm mark, a qualifier of the order's convention: ambiguous.
3. **A short remark after the statement** (at most :data:`~.vocabulary.REMARK_MAX_WORDS` words: "Just kidding.",
   "Not really.", "/s") is read the same way; a longer sentence after it is an explanation, judged only by the
   reading rule (another answer named, a withdrawal, a backup: ambiguous).

8-direction answers in prose are read only when the sentence's subject is image 2 (the question's subject).
"""

from __future__ import annotations

import re
from typing import Optional

from ...spec import ANOMALY, CHOICE, ORDER, ORIENTED
from .common import AMBIGUOUS, Extraction, _negated, _negation_span
from .order import _LIST_BRACKET, _bare_seq, _ints
from .oriented import _BARE, _pairs
from .statement import (_CAPITAL, _IMAGE_TAG, _TOKEN, _clause_start, _explained_from, _sentence_end, _sentences,
                        _spans, _tokens, _words)
from .vocabulary import FAMILY_WORDS, KIND_WORDS, NUM, PHRASES, REMARK_MAX_WORDS, SYMBOLS, WORDS

_QUIET_END = " \t\n.!*\"')]}"  # nothing after the statement but these: no remark to read
_GROUP = re.compile(r"\[[^\[\]\n]{0,300}\]|\[\[[^\n]{0,300}?\]\]")
_DIGIT = re.compile(r"\d")
_DIGITS = re.compile(r"\d+")

class Vocabulary:
    """What one config's statements may hold: words, phrases (by first token), whether numbers and single
    letters are known."""

    __slots__ = ("words", "quick", "phrases", "numbers", "letters")

    def __init__(self, config: str, kind: str, options=None):
        words = set(WORDS | KIND_WORDS.get(kind, frozenset()))
        for family, extra in FAMILY_WORDS.items():
            if config.startswith(family) or config.endswith(family):
                words |= extra
        phrases: dict[str, list[tuple[str, ...]]] = {}
        for p in PHRASES["*"] + PHRASES.get(kind, []):
            phrases.setdefault(p[0], []).append(p)
        for opt in options or ():  # the item's option texts are known whole
            toks = tuple(_norm(tok) for tok, _ in _tokens(str(opt)))
            if toks:
                phrases.setdefault(toks[0], []).append(toks)
        for first in phrases:
            phrases[first].sort(key=len, reverse=True)
        self.words = frozenset(words)
        self.quick = self.words | SYMBOLS  # what a statement of plain known tokens holds (no phrase, number, letter)
        self.phrases = phrases
        self.numbers = kind != CHOICE
        self.letters = kind == ANOMALY


_VOCABS: dict[str, Vocabulary] = {}


def vocabulary(config: str, kind: str, options=None) -> Vocabulary:
    if options:
        return Vocabulary(config, kind, options)
    v = _VOCABS.get(config)
    if v is None:
        v = _VOCABS[config] = Vocabulary(config, kind)
    return v


def _norm(tok: str) -> str:
    return NUM if tok.isdigit() else tok.lower()


def unknown(s: str, vocab: Vocabulary, remark: bool = False, letter: str = "") -> Optional[str]:
    """The first token of ``s`` the vocabulary does not know (``None`` when every one is known). ``remark``:
    numbers and "%" are known too (a confidence note after the answer); ``letter``: the answer's own letter."""
    if "<" not in s and "\u2019" not in s and _CAPITAL.search(s) is None:  # the common case: plain tokens
        if vocab.quick.issuperset(map(str.lower, _TOKEN.findall(s))):
            return None
    toks = _tokens(s)
    norm = [_norm(t) for t, _ in toks]
    i, n = 0, len(toks)
    while i < n:
        for p in vocab.phrases.get(norm[i], ()):
            if tuple(norm[i:i + len(p)]) == p:
                i += len(p)
                break
        else:
            tok, low = toks[i][0], norm[i]
            if low == NUM:
                if not (vocab.numbers or remark):
                    return tok
            elif len(tok) == 1 and tok.isalpha() and tok.isupper() and tok != "I":
                article = tok == "A" and i + 1 < n and toks[i + 1][0].islower()
                if not (vocab.letters or article or tok == letter):
                    return tok
            elif len(tok) == 1 and (tok.upper() == letter or vocab.letters and tok.isascii() and tok.isalpha()):
                pass  # the answer's letter written lower-case ("(b)"); an anomaly field's letter
            elif low not in vocab.words and low not in SYMBOLS and not (remark and low == "%"):
                return tok
            i += 1
    return None


def _blank_negated_others(s: str, off: int, t: str, ex: Extraction, spec) -> str:
    """``s`` (= ``t[off:off + len(s)]``) with each other answer it rules out ("not C", "C is wrong",
    "[1, 2, 3, 4] is wrong") blanked, negation included: the reader understands those. A doubt ("C?") is no
    ruling out: it stays, and its "?" is unknown."""
    if spec.kind == ANOMALY or (spec.kind == CHOICE and _CAPITAL.search(s) is None and "[" not in s) or (
            spec.kind != CHOICE and not _DIGIT.search(s)):
        return s
    n = spec.order_length
    if spec.kind == ORIENTED:  # another whole order (of n pieces), never a single piece
        want = _pairs(ex.answer)
        spans = [m.span() for m in _BARE.finditer(s) if len(_pairs(m.group(0))) == n and _pairs(m.group(0)) != want]
    else:
        want = _ints(ex.answer) if spec.kind == ORDER else None
        spans = [m.span() for m in _LIST_BRACKET.finditer(s) if len(_ints(m.group(1))) == n and _ints(m.group(1)) != want]
        bare = _bare_seq(n) if spec.kind == ORDER else None
        if bare is not None:
            spans += [m.span() for m in bare.finditer(s) if tuple(map(int, m.groups())) != want]
    if spec.kind == CHOICE:
        spans += [(m.start(), m.end()) for m in re.finditer(r"(?<![A-Za-z0-9_'])[A-Z](?![A-Za-z0-9_'])", s)
                  if m.group(0) != ex.answer and m.group(0) in spec.letters]
    out = list(s)
    for a, b in spans:
        neg = _negation_span(t, off + a, off + b)
        if neg is not None and "?" not in t[neg[0]:neg[1]]:
            lo, hi = max(neg[0] - off, 0), min(neg[1] - off, len(s))
            out[lo:hi] = " " * (hi - lo)
    return "".join(out)


_ALONE: dict[str, re.Pattern] = {}


def _ruled_out_later(t: str, pos: int, ex: Extraction, spec) -> bool:
    """True when the answer is named again after ``pos`` and ruled out or doubted there ("B. B is wrong", "So: X?")."""
    if spec.kind == CHOICE:
        rx = _ALONE.get(ex.answer) or _ALONE.setdefault(ex.answer, re.compile(
            r"(?<![A-Za-z0-9_'])" + ex.answer + r"(?![A-Za-z0-9_'])"))
        spans = [m.span() for m in rx.finditer(t[pos:])]
    elif spec.kind == ORDER:
        want, bare = _ints(ex.answer), _bare_seq(spec.order_length)
        spans = [m.span() for m in _LIST_BRACKET.finditer(t[pos:]) if _ints(m.group(1)) == want]
        spans += [m.span() for m in (bare.finditer(t[pos:]) if bare else ()) if tuple(map(int, m.groups())) == want]
    elif spec.kind == ORIENTED:
        spans = [m.span() for m in _BARE.finditer(t[pos:]) if _pairs(m.group(0)) == _pairs(ex.answer)]
    else:
        return False
    return any(_negated(t, pos + a, pos + b) for a, b in spans)


def _unread_order(seg: str, n: int) -> bool:
    """True when ``seg`` holds every number 1..n outside the lists the reader reads there: an order it cannot read
    ("So: 1, also 2, 3")."""
    bare = _bare_seq(n)
    rest = _LIST_BRACKET.sub(" ", seg)
    rest = bare.sub(" ", rest) if bare is not None else rest
    return set(range(1, n + 1)) <= set(map(int, _DIGITS.findall(rest)))


def _subject_ok(statement: str) -> bool:
    """8 directions: a sentence naming images must have image 2 (the question's subject) first."""
    m = re.search(r"(?:image|img)\s*(\d+)", _IMAGE_TAG.sub(r"image \1", statement), re.I)
    return m is None or m.group(1) == "2"


_CHECKED: dict[tuple, Optional[str]] = {}  # (text, vocabulary, answer, remark) -> its unknown word: a pure function


def _checked(text: str, vocab: Vocabulary, ex: Extraction, spec, remark: bool = False) -> Optional[str]:
    """The first unknown word of a statement or remark ``text`` (the other answers it rules out understood).
    Statements repeat across responses once the answer is blanked out ("Final answer: ( )"): memoised."""
    key = (text, id(vocab), ex.answer, remark)
    word = _CHECKED.get(key, _MISSING)
    if word is _MISSING:
        if len(_CHECKED) >= 8192:
            _CHECKED.clear()
        word = unknown(_blank_negated_others(text, 0, text, ex, spec), vocab, remark,
                       letter=ex.answer if spec.kind == CHOICE else "")
        if len(text) <= 256 and vocab is _VOCABS.get(spec.name):  # (an item's own options make a vocabulary of
            _CHECKED[key] = word  # their own, never memoised)
    return word


_MISSING = object()


def gate(t: str, ex: Extraction, spec, config: str, options=None) -> Extraction:
    """``ex`` (a parsed reading of the cleaned text ``t``) when its statement and the short remarks after it hold
    only known words, else ambiguous with the word named."""
    spans = _spans(t, ex, spec, config, options)
    if not spans:
        return Extraction(None, AMBIGUOUS, "known", "the answer's statement cannot be located", ex.parts)
    vocab = vocabulary(config, spec.kind, options)
    closed = spec.kind == ANOMALY and ex.rule == "prose" and ex.answer.startswith("Judgment: A")
    last = 0
    for start, end, literal in spans:
        s0 = _clause_start(t, start)
        s1 = _sentence_end(t, max(end, start + 1) if literal else end)
        last = max(last, s1)
        cut = _explained_from(t, end, s1)
        text = (t[s0:start] + " " * (end - start) + t[end:cut]) if literal else t[s0:cut]
        word = None if closed else _checked(text, vocab, ex, spec)
        if word is not None:
            return Extraction(None, AMBIGUOUS, "known", f"the answer's statement holds a word the reader does not "
                                                         f"know ({word!r})", ex.parts)
        if config.endswith("_8dir") and not _subject_ok(t[s0:cut]):
            return Extraction(None, AMBIGUOUS, "known", "the direction is said of another image than image 2",
                              ex.parts)
    if not t[last:].strip(_QUIET_END):  # nothing after the statement: no later mention, list or remark
        return ex
    if _ruled_out_later(t, last, ex, spec):
        return Extraction(None, AMBIGUOUS, "known", "the answer is ruled out or doubted after it is given", ex.parts)
    if spec.kind in (ORDER, ORIENTED):  # a list after the answer that is neither it nor ruled out: "So: [1, x 2, 3]"
        for m in _GROUP.finditer(t, last):
            g = m.group(0)
            same = (_LIST_BRACKET.fullmatch(g) is not None and _ints(g) == _ints(ex.answer) if spec.kind == ORDER
                    else _BARE.fullmatch(g) is not None and _pairs(g) == _pairs(ex.answer))
            if _DIGIT.search(g) and not same and not _negated(t, *m.span()):
                return Extraction(None, AMBIGUOUS, "known", "a list after the answer that the reader cannot read "
                                                             "as it", ex.parts)
    tail = t[last:]
    if len(tail) <= 256 and _checked(tail, vocab, ex, spec, remark=True) is None:
        return ex  # every word after the statement is known: no remark or unreadable order to find
    for seg, off in _sentences(t, last):  # the short remarks after it, and orders the reader cannot read there
        if spec.kind == ORDER and _unread_order(seg, spec.order_length):
            word = _checked(seg, vocab, ex, spec, remark=True)
            if word is not None:
                return Extraction(None, AMBIGUOUS, "known", f"numbers after the answer that may restate it stand among "
                                                             f"words the reader does not know ({word!r})", ex.parts)
        if len(seg.split()) <= 3 * REMARK_MAX_WORDS:
            word = _checked(seg, vocab, ex, spec, remark=True)
            if word is not None and len(_words(seg, numbers=True)) <= REMARK_MAX_WORDS:
                return Extraction(None, AMBIGUOUS, "known", f"a remark after the answer holds a word the reader "
                                                             f"does not know ({word!r})", ex.parts)
    return ex


__all__ = ["gate", "unknown", "vocabulary", "Vocabulary"]
