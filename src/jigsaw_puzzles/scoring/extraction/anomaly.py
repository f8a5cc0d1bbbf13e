"""Anomaly Detection's three fields (judgment, position, type), in block or short form, or a last sentence in prose
(:mod:`.prose`)."""

from __future__ import annotations

import re
from typing import Optional

from ...spec import LETTERS, anomaly_answers, format_anomaly
from .hedge import hedged_letter
from .positions import cells_named, types_named
from .prose import anomaly_prose
from .common import (AMBIGUOUS, INVALID, PARSED, Extraction, _OR_OTHER, _caseless, _clean, _finditer, _last_boxed,
                     _lowered)


# --------------------------------------------------------------------------- anomaly detection

_BLANK = r"(?:none|n/?a|null|nil|empty|blank|-+|\(?leave\s+blank\)?|\(?blank\)?|not\s+applicable)"
_JUDG = _caseless(  # starts with a literal letter (see common._lowered)
    r"j(?<![A-Za-z]j)udge?ment\s*[:=\-]?\s*[(\[]?\s*"
    r"(?P<val>[ABab](?![A-Za-z0-9])|correct|incorrect|normal|abnormal|anomalous|not\s+correct|yes|no)"
)
# The labels; each value runs to the end of its line, the next label or the end of a sentence, and is read per
# grid by .positions (a position in words, a letter, or several of them: a hedge).
_POS = re.compile(r"(?<![A-Za-z])(?:error[ \t]*position[ \t]*[:=\-]?|position[ \t]*[:=\-])[ \t]*", re.I)
_TYPE = re.compile(r"(?<![A-Za-z])(?:error[ \t]*type[ \t]*[:=\-]?|type[ \t]*[:=\-])[ \t]*", re.I)
_POS_LOOSE = re.compile(r"(?<![A-Za-z])position(?![A-Za-z])[ \t]*", re.I)  # "Position C" with no separator
_TYPE_LOOSE = re.compile(r"(?<![A-Za-z])type(?![A-Za-z])[ \t]*", re.I)
_VALUE_END = re.compile(r"\n|(?<![A-Za-z])(?:error[ \t]*)?(?:type|position)(?![A-Za-z])|(?<![A-Za-z])judge?ment"
                        r"|\.(?:\s|$)", re.I)
_UNLABELLED_1 = re.compile(r"^\W*(?P<j>[AB])\W*$")
_UNLABELLED_3 = re.compile(r"^\W*(?P<j>B)[\s,;/|.)]+(?P<p>[A-Z])[\s,;/|.)]+(?P<t>[AB])\W*$")


def _norm_judgment(v: str) -> Optional[str]:
    v = v.lower().replace(" ", "")
    if v in ("a", "correct", "normal", "yes"):
        return "A"
    if v in ("b", "incorrect", "abnormal", "anomalous", "notcorrect", "no"):
        return "B"
    return None


_BLANK_RX = re.compile(_BLANK, re.I)
_SPACE_DASH = re.compile(r"[\s-]")


def _value(rest: str, m: Optional[re.Match]) -> Optional[tuple[int, str]]:
    """(end, text) of the value after the label match ``m`` in ``rest``."""
    if m is None:
        return None
    e = _VALUE_END.search(rest, m.end())
    end = min(e.start() if e else len(rest), m.end() + 120)
    return end, rest[m.end():end]


def _read(value: Optional[str], what: str, named) -> tuple[Optional[str], str]:
    """(the one value named or None, why ambiguous or "")."""
    if value is None or not value.strip(" \t()[]*.,;:") or _BLANK_RX.fullmatch(value.strip(" \t()[]*.,;:")):
        return None, ""
    found, why = named(value)
    if len(found) == 1:
        return next(iter(found)), ""
    if len(found) > 1:
        return None, f"the error {what} names several: " + " or ".join(sorted(found))
    return None, why


def _anomaly_answer(j: Optional[str], p: Optional[str], ty: Optional[str], rule: str,
                    positions: int = 4) -> Extraction:
    parts = {"judgment": j, "position": p, "type": ty}
    if p is not None and p not in LETTERS[:positions]:
        return Extraction(None, INVALID, rule, f"error position {p} is not one of A-{LETTERS[positions - 1]}", parts)
    if ty is not None and ty not in "AB":
        return Extraction(None, INVALID, rule, f"error type {ty} is not A or B", parts)
    if j == "A":
        if p or ty:
            return Extraction(None, INVALID, rule, "Judgment A (correct) but an error position/type was given", parts)
        return Extraction(format_anomaly(), PARSED, rule, "", parts)
    if j == "B":
        if not (p and ty):
            return Extraction(None, INVALID, rule, "Judgment B (incorrect) without both error position and type", parts)
        return Extraction(format_anomaly(p, ty), PARSED, rule, "", parts)
    return Extraction(None, INVALID, rule, "no judgment found", parts)


def _anomaly_block(t: str, positions: int = 4, grid: tuple[int, int] = (2, 2)) -> Optional[tuple[int, Extraction]]:
    m = None
    for m in _finditer(_JUDG, t, _lowered(t)):
        pass
    if m is None:
        return None
    val = t[m.start("val"):m.end("val")]
    j = _norm_judgment(val)
    other = _OR_OTHER.match(t, m.end())
    hedged = other and other.group(1) in "AB" and other.group(1) != val.upper()
    if hedged or (j and hedged_letter(t, m.end(), j, "AB")):
        return m.end(), Extraction(None, AMBIGUOUS, "marker", "hedged judgment A or B", {"judgment": None})
    rest = t[m.end(): m.end() + 400]
    pv = _value(rest, _POS.search(rest) or _POS_LOOSE.search(rest))
    tv = _value(rest, _TYPE.search(rest) or _TYPE_LOOSE.search(rest))
    p, why_p = _read(pv and pv[1], "position", lambda v: cells_named(v, *grid))
    ty, why_t = _read(tv and tv[1], "type", lambda v: (types_named(v), ""))
    end = m.end() + max(pv[0] if pv else 0, tv[0] if tv else 0)
    if why_p or why_t:  # a hedge or a word naming no single cell: the whole answer is ambiguous
        parts = {"judgment": j, "position": "?" if why_p else p, "type": "?" if why_t else ty}  # "?": unclear, not blank
        return end, Extraction(None, AMBIGUOUS, "marker", why_p or why_t, parts)
    return end, _anomaly_answer(j, p, ty, "marker", positions)


_BLOCKS: dict[str, Extraction] = {}  # each labelled answer block (3 lines or 1) -> what _anomaly_block reads


def _final_block(t: str) -> Optional[Extraction]:
    """Step 1 for a response that ends with a labelled answer block ("...\nJudgment: B\nError Position: C
    \nError Type: A"), or ``None``. Exact: that block holds the last Judgment (the one step 1 reads), its
    position and type, and nothing after it ends later (a box needs a "}")."""
    j = t.rfind("Judgment: ")
    if j < 0 or (j > 0 and t[j - 1] != "\n"):
        return None
    if not _BLOCKS:
        for a in anomaly_answers(4):
            for form in (a, a.replace("\n", " ")):
                _BLOCKS[form] = _anomaly_block(form)[1]
    ex = _BLOCKS.get(t[j:].rstrip())
    return None if ex is None else Extraction(ex.answer, ex.status, ex.rule, ex.detail, dict(ex.parts))


def _anomaly(t: str, strict: bool, positions: int = 4, grid: tuple[int, int] = (2, 2)) -> Extraction:
    if len(t) > 64 and "}" not in t and positions == 4:
        ex = _final_block(t)
        if ex is not None:
            return ex
    cands: list[tuple[int, Extraction]] = []
    boxed = _last_boxed(t)  # only the box ending last can win
    if boxed is not None:
        end, content = boxed
        c = _clean(content.replace("\\\\", "\n"))
        blk = _anomaly_block(c, positions, grid)
        ex = blk[1] if blk else _anomaly_short(c, "boxed", positions)
        ex.rule = "boxed"
        if ex.detail == "no answer found":
            ex.detail = f"unreadable \\boxed{{{content[:40]}}}"
        cands.append((end, ex))
    blk = _anomaly_block(t, positions, grid)
    if blk is not None:
        cands.append(blk)
    if cands:
        return max(cands, key=lambda c: c[0])[1]
    if strict:
        return Extraction(None, INVALID, "none", "unterminated <think> block without a final answer")
    ex = _anomaly_short(t, "short", positions)
    if ex.detail != "no answer found":
        return ex
    lines = t.strip().split("\n")
    if len(lines) > 1:
        ex = _anomaly_short(lines[-1], "last_line", positions)
        if ex.detail != "no answer found":
            return ex
    said = anomaly_prose(t, *grid)
    if said == AMBIGUOUS:
        return Extraction(None, AMBIGUOUS, "prose", "the last sentence leaves more than one answer open")
    if said is not None:
        return _anomaly_answer(*said, "prose", positions)
    return Extraction(None, INVALID, "none", "no answer found")


def _anomaly_short(t: str, rule: str, positions: int = 4) -> Extraction:
    s = " ".join(t.split())
    m = _UNLABELLED_3.match(s)
    if m:
        return _anomaly_answer("B", m.group("p"), m.group("t"), rule, positions)
    m = _UNLABELLED_1.match(s)
    if m:
        return _anomaly_answer(m.group("j"), None, None, rule, positions)
    return Extraction(None, INVALID, rule, "no answer found")
