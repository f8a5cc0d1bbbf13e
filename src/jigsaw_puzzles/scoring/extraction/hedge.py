"""Hedges and picks: an answer that leaves two candidates open is ambiguous; a text that points at one is read.

- **Letter hedges** right after a stated letter, on its line: "C or D", "C or maybe D", "C (or possibly D)",
  "B. Or possibly D.", "C/D", "C, maybe D" -> ambiguous, never the first or the last letter.
- **List hedges**: "[1, 3, 2, 4] or [1, 3, 4, 2]" (either side of the "or") -> ambiguous.
- **Other letters after a decorated letter**: "A: sky. B: sand. C: a dog" starts with "A:" but describes every
  option; such a text is read by the later steps (a pick, a sole mention) or is ambiguous.
- **Picks**: an arrow to a letter at the end of a line ("... -> C") or a pointer back to an option's line
  ("C: the dog <- this one") states the answer (cascade step 1, like "Answer: C").
"""

from __future__ import annotations

import re
from typing import Optional

from .common import _negated

_SOFT = r"(?:maybe|possibly|perhaps|probably|potentially|alternatively|even|else)"
_HEDGE_AFTER = re.compile(
    r"[ \t]*(?:[,;:.)\]]+[ \t]*|[ \t]*-+[ \t]*)?\(?[ \t]*"
    r"(?:(?:or|and/or|/)[ \t]*(?:" + _SOFT + r"[ \t]+){0,2}|(?:maybe|possibly|perhaps|alternatively)[ \t]+)"
    r"(?:(?:option|choice|candidate|letter)[ \t]+)?[(\[]?[ \t]*(?-i:(?P<other>[A-Z]))(?![A-Za-z0-9])",
    re.I,
)


_BEFORE_WORD = frozenset(" \t,;:.)]-(")


def hedged_letter(t: str, end: int, letter: str, letters: str) -> Optional[str]:
    """The other option a hedge right after ``letter`` (ending at ``end``) leaves open, else ``None``."""
    i, n = end, len(t)
    while i < n and t[i] in _BEFORE_WORD:  # what _HEDGE_AFTER allows before its word: nothing else there, no hedge
        i += 1
    if i == n or t[i] == "\n":
        return None
    m = _HEDGE_AFTER.match(t, end)
    if m is None:
        return None
    other = m.group("other")
    if other == letter or other not in letters or _negated(t, m.start("other"), m.end("other")):
        return None
    return other


_LIST_OR_AFTER = re.compile(
    r"\s*[,;.]?\s*\(?\s*(?:or|and/or|/|maybe|possibly|perhaps|alternatively)(?![A-Za-z])\s*"
    r"(?:" + _SOFT + r"\s+)?(?:(?:the )?(?:order|list|sequence|answer)\s+)?[\[(]{0,2}\s*\d", re.I)
_LIST_OR_BEFORE = re.compile(r"[\])\d]\s*[,;.]?\s*(?:or|and/or|/)\s*(?:" + _SOFT + r"\s+)?\s*$", re.I)


_BEFORE_LIST_WORD = frozenset(" \t\n\r\x0b\x0c,;.(")
_BEFORE_ENDS = ("or", "/", "maybe", "possibly", "perhaps", "probably", "potentially", "alternatively", "even", "else")


def list_hedged(t: str, start: int, end: int) -> bool:
    """True when the list ``t[start:end]`` is one side of "... or ..." with another list."""
    i, n = end, len(t)
    while i < n and t[i] in _BEFORE_LIST_WORD:  # nothing but these after the list: no hedge after it
        i += 1
    if i < n and _LIST_OR_AFTER.match(t, end):
        return True
    before = t[max(0, start - 40):start]
    # _LIST_OR_BEFORE's window ends in "or", "/" or a soft word, then spaces: test that first (cheap)
    return before.rstrip().lower().endswith(_BEFORE_ENDS) and _LIST_OR_BEFORE.search(before) is not None


_OTHER = re.compile(r"(?<![A-Za-z0-9_'])(?P<letter>[A-Z])(?![A-Za-z0-9_'])")
_ARTICLE = re.compile(r" (?!(?:or|and|nor|is|was|fits|matches|seems|looks|because|since|as|which)\b)[a-z]")


def other_letters(t: str, start: int, letter: str, letters: str) -> set:
    """Option letters other than ``letter`` that ``t[start:]`` names and does not rule out."""
    out = set()
    for m in _OTHER.finditer(t, start):
        o = m.group("letter")
        if o == letter or o not in letters or o in out:
            continue
        if o in "AI" and _ARTICLE.match(t, m.end()):
            continue
        if not _negated(t, m.start(), m.end()):
            out.add(o)
    return out


# "... -> C" at a line end; "C: the dog <- this one" (the pointer on the option's own line).
_PICK_ARROW = re.compile(r"(?:->|=>|\u21d2)[ \t]*(?:(?:option|answer|choice)[ \t]*:?[ \t]*)?[(\[]?(?P<letter>[A-Z])"
                         r"[)\]]?(?=[ \t]*[.!]?[ \t]*(?:\n|$))")
_PICK_BACK = re.compile(
    r"(?m)^[ \t>*#\-]*(?:option[ \t]+)?[(\[]?(?P<letter>[A-Z])[)\].:][^\n<\u2190]{0,120}?(?:<-+|<=+|\u2190)[ \t]*"
    r"(?:this|that|here|correct|answer|the answer|my (?:answer|pick|choice)|pick|chosen|best)(?![A-Za-z])", re.I)


def picks(t: str, letters: str) -> Optional[tuple[int, Optional[str]]]:
    """(end, letter) of the last pick: an arrow to a letter, or a pointer back to an option's line; the letter
    is ``None`` when the picks name different options (an echoed mapping "Candidate 1 -> A\nCandidate 2 -> B")."""
    found = []
    if "->" in t or "=>" in t or "\u21d2" in t:
        found += [(m.end(), m.group("letter")) for m in _PICK_ARROW.finditer(t)]
    if "<-" in t or "<=" in t or "\u2190" in t:
        found += [(m.end(), m.group("letter")) for m in _PICK_BACK.finditer(t) if m.group("letter").isupper()]
    found = [f for f in found if f[1] in letters]
    if not found:
        return None
    end = max(f[0] for f in found)
    return end, (found[0][1] if len({f[1] for f in found}) == 1 else None)
