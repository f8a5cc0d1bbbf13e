"""The reading rule: an answer is read only when the text says one thing (issue #27).

The cascade (:mod:`.choice`, :mod:`.order`, :mod:`.oriented`, :mod:`.anomaly`) finds the final answer
statement; this module then judges that statement and what stands around it, the same way for every answer kind:

- **One thing.** The final statement names exactly one answer, not joined to another ("... \nand [1, 3, 2, 4]").
  Whatever else its clause says is judged by the known-words rule (:mod:`.known`, issue #32), which replaced
  the lists of qualifiers and doubts this module kept: a statement is read only from words the reader knows, so
  "alternatively", "if not", "anything but", "B?", "B (wrong)", "B is unlikely" need no list of their own.
- **The last word.** After the final statement nothing may keep another answer open: another option letter,
  another option's wording, another order that is not ruled out. When the text *withdraws* its answer after it
  ("wait", "actually", "that's wrong", "on second thought", ...), only what follows the withdrawal is read, by
  the whole rule again: its answer counts if it is itself clean and final, else the response is ambiguous.
- **Letter and text agree.** Words after the final letter that name another option ("C. The two images are
  adjacent horizontally", "E (lower left)" on 8 directions, another option's order list) make it ambiguous.

The rule only ever turns a reading into *ambiguous* or *invalid*, or re-reads the text after a withdrawal: it
never guesses. Its work is linear in the text (a few scans after the final statement).
"""

from __future__ import annotations

import re
from typing import Optional

from ...spec import ANOMALY, CHOICE, ORDER, ORIENTED
from .common import _RETRACT, AMBIGUOUS, INVALID, PARSED, Extraction, _negated
from .hedge import _ARTICLE
from .statement import letter_statement
from .options import _option_text
from .order import _LIST_BRACKET, _bare_seq, _ints
from .oriented import _BARE, _pairs
from .prose import oriented_prose

_WORD = re.compile(r"[a-z]+")


def _search(rx: re.Pattern, keys: frozenset, t: str, lo: int = 0, hi: Optional[int] = None):
    """``rx.search(t, lo, hi)``, skipped when no word of ``t[lo:hi]`` is one of ``keys`` and it holds no "?" or
    "%" (every match of these keyword patterns holds one): the keyword alternations are slow to scan."""
    part = t[lo:hi].lower()
    if "?" not in part and "%" not in part and keys.isdisjoint(_WORD.findall(part)):
        return None
    return rx.search(t, lo, len(t) if hi is None else hi)


def _keys(rx: re.Pattern) -> frozenset:
    """Every word in the pattern's source: a superset of the words any match holds."""
    return frozenset(w for w in _WORD.findall(rx.pattern.lower()) if len(w) > 1)


_NEXT_RETRACT = re.compile(r"[\s,.:;!*-]*")


def _chained(t: str, r):
    """The last of the withdrawals that follow ``r`` in a row ("Actually no, ...", "Wait, hmm. ..."): what comes
    after all of them is the new statement."""
    while r is not None:
        nxt = _RETRACT.match(t, _NEXT_RETRACT.match(t, r.end()).end())
        if nxt is None or nxt.end() == r.end():
            return r
        r = nxt
    return r


_RETRACT_KEYS = _keys(_RETRACT) | {"recheck", "rechecking", "nevermind"}
_CONTINUES = re.compile(r"[\s*#>(\[-]*(?:and|or|plus|as well as|&|\+|/)(?![A-Za-z])", re.I)
# An order written row by row before the answer read from prose (a markdown row anywhere, with or without text
# around it on its line: "... | 2 | 1 | 3 | + [3 2 1]"; "Row 1: 2 3"; a nested list): the text gives another answer.
_ROWS_BEFORE = re.compile(r"(?m)\|[ \t]*\d+[ \t]*\||^[ \t]*(?i:row)[ \t]*\d+[ \t]*[:\-][ \t\d,]+$|\[\[")
_BREAK = re.compile(r"[\n!?;]|\.(?:\s|$)")
_LETTER_AT = {}  # letter -> pattern of it standing alone


def _letter_rx(letter: str) -> re.Pattern:
    rx = _LETTER_AT.get(letter)
    if rx is None:
        rx = _LETTER_AT[letter] = re.compile(r"(?<![A-Za-z0-9_'])" + letter + r"(?![A-Za-z0-9_'])")
    return rx


_END = " \t\n.!*\"')]}"

_DIGITS = re.compile(r"\d+")


_LAST_BREAK = re.compile(r"(?s).*(?:[\n!?;]|\.(?=[ \t]))")


def _clause_start(t: str, pos: int) -> int:
    """Start of the clause (line or sentence) holding ``t[pos]``: after the last of "\n", "!", "?", ";" or a "."
    followed by white space before it (the :data:`_BREAK` that ends last before ``pos``)."""
    m = _LAST_BREAK.match(t, 0, pos)  # greedy: the break that ends last before pos
    start = m.end() - 1 if m is not None else -1
    if pos >= 1 and t[pos - 1] == "." and pos == len(t):
        start = max(start, pos - 1)
    return start + 1


def _statement(t: str, ex: Extraction, spec) -> Optional[tuple[int, int]]:
    """(start, end) of the final statement of ``ex.answer`` in ``t``: its last occurrence that is not negated
    (``None`` when the answer is not written out, e.g. named by an option's text or region names)."""
    kind = spec.kind
    if kind == CHOICE:  # the occurrences from the last one back (what _letter_rx matches, found with rfind)
        return letter_statement(t, ex.answer)
    if kind == ORDER:  # the commonest case first: the answer's bracketed list with no digit after it (so no list
        i = t.rfind("[")  # or bare sequence can end later: what the scan below would return)
        m = _LIST_BRACKET.match(t, i) if i >= 0 else None
        if (m is not None and _DIGITS.search(t, m.end()) is None
                and _ints(m.group(1)) == tuple(map(int, _DIGITS.findall(ex.answer))) and not _negated(t, i, m.end())):
            return i, m.end()
    # orders: the lists in the last 400 characters first (the final statement is usually there), else all
    for pos in ((len(t) - 400, 0) if len(t) > 400 else (0,)):
        found = []
        if kind == ORDER:
            want = tuple(int(x) for x in ex.answer.strip("[]").split(","))
            bare = _bare_seq(len(want))
            for rx in (_LIST_BRACKET, bare) if bare is not None else (_LIST_BRACKET,):
                for m in rx.finditer(t, pos):
                    nums = _ints(m.group(1)) if rx is _LIST_BRACKET else tuple(int(g) for g in m.groups())
                    if nums == want:
                        found.append((m.end(), m.start()))
        elif kind == ORIENTED:
            want = _pairs(ex.answer)
            found = [(m.end() + (t[m.end():m.end() + 1] == "]"), m.start()) for m in _BARE.finditer(t, pos)
                     if _pairs(m.group(0)) == want]
        for end, start in sorted(found, reverse=True):
            if not _negated(t, start, end):
                return start, end
    return None


# A word near another answer after the final one that keeps it open ("D is also plausible", "if not B then D",
# "Alternative answer: D", "70% sure; otherwise D"); an explanation that only mentions another option ("option B
# shows sky", "images 1, 2, 3, 4 were given shuffled") keeps nothing open.
_OPEN = re.compile(
    r"(?<![A-Za-z])(?:also|too|as well|alternative\w*|backup|fall ?back|second|if not|otherwise|or|either|maybe"
    r"|perhaps|possibly|probably|might|could|may|plausible|possible|possibility|likely|instead|rather|unsure"
    r"|not sure|confiden\w*|guess|equally|answer|choose|choice|pick|select|go with|correct|right|then)(?![A-Za-z])"
    r"|%", re.I)
_JOINED = re.compile(r"[\s.)\]}$*\"']*(?:,|&|\+|/|and|or|plus|as well as|together with|along with)\s*[(\[]?\s*"
                     r"(?:(?:option|choice|candidate|letter|region)\s*)?[(\[]?\s*$", re.I)
_WINDOW = 30


def _keeps_open(tail: str, start: int, end: int) -> bool:
    """True when the mention ``tail[start:end]`` of another answer is one: joined to the final answer, alone in
    its clause, or with an open word within :data:`_WINDOW` characters of it in its clause."""
    c0 = _clause_start(tail, start)
    if _JOINED.fullmatch(tail[:start]) or _JOINED.fullmatch(tail[c0:start]):  # "B and D", "B.\nand D"
        return True
    e = _BREAK.search(tail, end)
    c1 = e.start() if e else len(tail)
    if not tail[c0:start].strip(" \t*#>-([:") and not tail[end:c1].strip(" \t*)].:"):
        return True
    return _OPEN.search(tail, max(c0, start - _WINDOW), start) is not None or \
        _OPEN.search(tail, end, min(c1, end + _WINDOW)) is not None


def _others_after(tail: str, ex: Extraction, spec, config: str, options, strong: bool = True) -> str:
    """Why the text after the final statement keeps another answer open ("" when it does not)."""
    kind = spec.kind
    if kind == CHOICE:
        for m in _OTHER_LETTER.finditer(tail):
            o = m.group(0)
            if o == ex.answer or o not in spec.letters or (o in "AI" and _ARTICLE.match(tail, m.end())):
                continue
            if not _negated(tail, m.start(), m.end()) and _keeps_open(tail, m.start(), m.end()):
                return "another answer stays open after the final one: " + o
        named = _option_text(tail, spec, options, config, set()) - {ex.answer}
        if named:
            return "letter and option text disagree: " + "/".join(sorted(named))
        return ""
    if kind == ORDER:
        want = tuple(int(x) for x in ex.answer.strip("[]").split(","))
        found = [(m, _ints(m.group(1))) for m in _LIST_BRACKET.finditer(tail)]
        bare = _bare_seq(len(want))
        if bare is not None:
            found += [(m, tuple(int(g) for g in m.groups())) for m in bare.finditer(tail)]
        for m, nums in found:
            if (nums != want and len(nums) == len(want) and not _negated(tail, m.start(), m.end())
                    and (not strong or _keeps_open(tail, m.start(), m.end()))):
                return "another order stays open after the final one"
        return ""
    if kind == ORIENTED:
        want = _pairs(ex.answer)
        said = oriented_prose(tail, *spec.grid)  # the pieces in prose after the list: they must say the same
        if said is not None and (said == AMBIGUOUS or tuple(said) != want):
            return "the pieces' prose after the final list gives another order"
        for m in _BARE.finditer(tail):
            if (len(_pairs(m.group(0))) == len(want) and _pairs(m.group(0)) != want
                    and not _negated(tail, m.start(), m.end())
                    and (not strong or _keeps_open(tail, m.start(), m.end()))):
                return "another order stays open after the final one"
    return ""


_OTHER_LETTER = re.compile(r"(?<![A-Za-z0-9_'])[A-Z](?![A-Za-z0-9_'])")
# What can name or open another answer after the final one: a digit, "?", "%", a capital letter standing alone
# (not "I"/"A" used as a word, as _others_after skips them); else only keywords (checked by word) and option text.
# A digit, "?", "%" or a capital letter at ASCII word boundaries (a superset of the letters _others_after reads),
# but "I"/"A" used as a word.
_LOUD = re.compile(r"[0-9?%]|\b(?![AI]" + _ARTICLE.pattern + r")[A-Z]\b", re.A)


def _quiet(tail: str) -> bool:
    """True when nothing in ``tail`` can withdraw the answer or name another but option wording: no digit, "?",
    "%" or letter standing alone (but "I"/"A" used as a word, which _others_after skips too), and no word of the
    withdrawal pattern."""
    return _LOUD.search(tail) is None and _RETRACT_KEYS.isdisjoint(_WORD.findall(tail.lower()))


def apply_rule(t: str, ex: Extraction, spec, config: str, options, reread, depth: int = 0) -> Extraction:
    """``ex`` (the cascade's reading of the cleaned text ``t``) judged by the reading rule; ``reread(text)``
    reads a withdrawal's remainder with the whole cascade and rule."""
    if ex.status != PARSED or spec.kind == ANOMALY:
        return _anomaly_rule(t, ex, reread, depth) if ex.status == PARSED else ex
    span = _statement(t, ex, spec)
    if span is None:
        if spec.kind == CHOICE and _letter_rx(ex.answer).search(t) and ex.rule != "code":
            return Extraction(None, AMBIGUOUS, "rule", "the answer is ruled out where it stands", ex.parts)
        return ex
    start, end = span
    tail = t[end:]
    bare_end = not tail.strip(_END)  # nothing after the final statement but closing punctuation
    quiet = not bare_end and _quiet(tail)
    r = None if bare_end or quiet else _search(_RETRACT, _RETRACT_KEYS, tail)
    r = _chained(tail, r)
    if r is not None and depth < 3:
        again = reread(tail[r.end():], depth + 1)
        if again.status == PARSED:
            return Extraction(again.answer, PARSED, "retraction", "", again.parts)
        return Extraction(None, AMBIGUOUS, "rule", "the answer is withdrawn without a clean new one", ex.parts)
    c0 = _clause_start(t, start)
    if spec.kind != CHOICE and ex.rule in ("last_line", "mention"):  # read from prose: nothing before may differ
        r = None
        for r in _RETRACT.finditer(t, 0, start):
            pass
        before = t[r.end() if r else 0:start]
        if _others_after(before, ex, spec, config, options, strong=False) or _ROWS_BEFORE.search(before) or (
                spec.kind == ORIENTED and oriented_prose(before, *spec.grid) not in (None, list(_pairs(ex.answer)))):
            return Extraction(None, AMBIGUOUS, "rule", "an earlier answer differs and is not withdrawn", ex.parts)
    if _CONTINUES.match(t, c0, start):  # "... \nand [1, 3, 2, 4]": a second answer joined to what came before
        return Extraction(None, AMBIGUOUS, "rule", "the final answer is joined to another", ex.parts)
    if bare_end:
        return ex
    if quiet:  # no letter, number or keyword after the answer can name or open another; only option wording can
        named = _option_text(tail, spec, options, config, set()) - {ex.answer} if spec.kind == CHOICE else ()
        return Extraction(None, AMBIGUOUS, "rule", "letter and option text disagree: " + "/".join(sorted(named)),
                          ex.parts) if named else ex
    why = _others_after(tail, ex, spec, config, options)
    if why:
        return Extraction(None, AMBIGUOUS, "rule", why, ex.parts)
    return ex


def withdrawn(t: str, ex: Extraction, reread, depth: int) -> Extraction:
    """An ambiguous reading re-read after the text's last withdrawal ("A... wait, actually C"): its answer when
    that remainder is clean and final by the whole rule, else ``ex``."""
    if depth >= 3:
        return ex
    last = None
    for last in _RETRACT.finditer(t):
        pass
    if last is None:
        return ex
    again = reread(t[last.end():], depth + 1)
    return Extraction(again.answer, PARSED, "retraction", "", again.parts) if again.status == PARSED else ex


_JUDGMENT = re.compile(r"(?<![A-Za-z])judge?ment(?![A-Za-z])", re.I)
_FIELD_LINE = re.compile(r"[^\n]*(?:\n|$)")
_LABEL_LINE = re.compile(r"[ \t*>#-]*(?:error[ \t]*)?(?:position|type)(?![A-Za-z])", re.I)
_ANOMALY_OPEN = re.compile(
    r"(?<![A-Za-z0-9'])(?:[A-Z](?![A-Za-z0-9'])(?! (?!or|and|is|was)[a-z])|(?:upper|lower|top|bottom|left|right"
    r"|middle|center|centre|row|column|rotat\w*|mirror\w*|flip\w*|normal|correct|incorrect)(?![A-Za-z]))", re.I)


_ANOMALY_WORDS = frozenset(("upper", "lower", "top", "bottom", "left", "right", "middle", "center", "centre", "row",
                            "column", "normal", "correct", "incorrect"))  # _ANOMALY_OPEN's words, and its stems:
_ANOMALY_STEMS = ("rotat", "mirror", "flip")
def _anomaly_rule(t: str, ex: Extraction, reread, depth: int) -> Extraction:
    """The rule for Anomaly Detection: after the last answer block (its Judgment line and the two field lines
    that follow), a withdrawal is re-read and anything naming a judgment, a cell or a type keeps another answer
    open."""
    low, i, last = t.lower(), len(t), None  # the last "Judgment": found with rfind, confirmed by the pattern
    while last is None:
        i = low.rfind("judg", 0, i)
        if i < 0:
            return ex
        last = _JUDGMENT.match(t, i)
    if _CONTINUES.match(t, t.rfind("\n", 0, last.start()) + 1, last.start()):  # "... rotated.\nand Judgment: A"
        return Extraction(None, AMBIGUOUS, "rule", "the final answer is joined to another", ex.parts)
    m = _FIELD_LINE.match(t, last.end())  # the Judgment line, then the field lines that follow it
    end = m.end()
    while _LABEL_LINE.match(t, end):
        end = _FIELD_LINE.match(t, end).end()
        if end >= len(t):
            break
    tail = t[end:]
    if not tail.strip(_END):
        return ex
    words = None if _LOUD.search(tail) else set(_WORD.findall(tail.lower()))
    if words is not None and words.isdisjoint(_RETRACT_KEYS) and words.isdisjoint(_ANOMALY_WORDS) and not any(
            w.startswith(_ANOMALY_STEMS) for w in words):
        return ex  # quiet: nothing there can withdraw the answer or name a judgment, a cell or a type
    r = _chained(tail, _search(_RETRACT, _RETRACT_KEYS, tail))
    if r is not None and depth < 3:
        again = reread(tail[r.end():], depth + 1)
        if again.status == PARSED:
            return Extraction(again.answer, PARSED, "retraction", "", again.parts)
        return Extraction(None, AMBIGUOUS, "rule", "the answer is withdrawn without a clean new one", ex.parts)
    m = _ANOMALY_OPEN.search(tail)
    if m is not None:
        return Extraction(None, AMBIGUOUS, "rule", f"another answer stays open after the final one ({m.group(0)!r})",
                          ex.parts)
    return ex


__all__ = ["apply_rule", "withdrawn", "INVALID"]
