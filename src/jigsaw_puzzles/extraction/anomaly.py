"""Anomaly Detection's three fields (judgment, position, type), in block or short form."""

from __future__ import annotations

import re
from typing import Optional

from ..spec import LETTERS, anomaly_answers, format_anomaly
from .common import (AMBIGUOUS, INVALID, PARSED, Extraction, _OR_OTHER, _caseless, _clean, _finditer, _last_boxed,
                     _lowered)


# --------------------------------------------------------------------------- anomaly detection

_BLANK = r"(?:none|n/?a|null|nil|empty|blank|-+|\(?leave\s+blank\)?|\(?blank\)?|not\s+applicable)"
_JUDG = _caseless(  # starts with a literal letter (see common._lowered)
    r"j(?<![A-Za-z]j)udge?ment\s*[:=\-]?\s*[(\[]?\s*"
    r"(?P<val>[ABab](?![A-Za-z0-9])|correct|incorrect|normal|abnormal|anomalous|not\s+correct|yes|no)"
)
_POS = re.compile(  # any letter: one outside the item's positions makes the answer invalid (_anomaly_answer)
    r"(?<![A-Za-z])(?:error\s*)?position\s*[:=\-]?[ \t]*[(\[]?[ \t]*(?P<val>" + _BLANK + r"(?![A-Za-z])|[A-Z](?![A-Za-z0-9])|"
    r"(?:top|upper|bottom|lower)[ \t-]*(?:left|right))?",
    re.I,
)
_TYPE = re.compile(
    r"(?<![A-Za-z])(?:error\s*)?type\s*[:=\-]?[ \t]*[(\[]?[ \t]*(?P<val>" + _BLANK + r"(?![A-Za-z])|[AB](?![A-Za-z0-9])|"
    r"rotat\w*|mirror\w*|flip\w*|reflect\w*)?",
    re.I,
)
_UNLABELLED_1 = re.compile(r"^\W*(?P<j>[AB])\W*$")
_UNLABELLED_3 = re.compile(r"^\W*(?P<j>B)[\s,;/|.)]+(?P<p>[A-Z])[\s,;/|.)]+(?P<t>[AB])\W*$")
_POS_WORDS = {"topleft": "A", "upperleft": "A", "topright": "B", "upperright": "B",
              "bottomleft": "C", "lowerleft": "C", "bottomright": "D", "lowerright": "D"}


def _norm_judgment(v: str) -> Optional[str]:
    v = v.lower().replace(" ", "")
    if v in ("a", "correct", "normal", "yes"):
        return "A"
    if v in ("b", "incorrect", "abnormal", "anomalous", "notcorrect", "no"):
        return "B"
    return None


_BLANK_RX = re.compile(_BLANK, re.I)
_SPACE_DASH = re.compile(r"[\s-]")


def _norm_position(v: Optional[str]) -> Optional[str]:
    if not v or _BLANK_RX.fullmatch(v):
        return None
    if len(v) == 1:
        return v.upper()
    return _POS_WORDS.get(_SPACE_DASH.sub("", v.lower()))


def _norm_type(v: Optional[str]) -> Optional[str]:
    if not v or _BLANK_RX.fullmatch(v):
        return None
    if len(v) == 1:
        return v.upper()
    v = v.lower()
    if v.startswith("rotat"):
        return "A"
    return "B"  # mirror / flip / reflect


def _anomaly_answer(j: Optional[str], p: Optional[str], ty: Optional[str], rule: str,
                    positions: int = 4) -> Extraction:
    parts = {"judgment": j, "position": p, "type": ty}
    if p is not None and p not in LETTERS[:positions]:
        return Extraction(None, INVALID, rule, f"error position {p} is not one of A-{LETTERS[positions - 1]}", parts)
    if j == "A":
        if p or ty:
            return Extraction(None, INVALID, rule, "Judgment A (correct) but an error position/type was given", parts)
        return Extraction(format_anomaly(), PARSED, rule, "", parts)
    if j == "B":
        if not (p and ty):
            return Extraction(None, INVALID, rule, "Judgment B (incorrect) without both error position and type", parts)
        return Extraction(format_anomaly(p, ty), PARSED, rule, "", parts)
    return Extraction(None, INVALID, rule, "no judgment found", parts)


def _anomaly_block(t: str, positions: int = 4) -> Optional[tuple[int, Extraction]]:
    m = None
    for m in _finditer(_JUDG, t, _lowered(t)):
        pass
    if m is None:
        return None
    val = t[m.start("val"):m.end("val")]
    j = _norm_judgment(val)
    other = _OR_OTHER.match(t, m.end())
    if other and other.group(1) in "AB" and other.group(1) != val.upper():
        return m.end(), Extraction(None, AMBIGUOUS, "marker", "hedged judgment A or B", {"judgment": None})
    rest = t[m.end(): m.end() + 400]
    pm = _POS.search(rest)
    tm = _TYPE.search(rest)
    p = _norm_position(pm.group("val")) if pm else None
    ty = _norm_type(tm.group("val")) if tm else None
    end = m.end() + max(pm.end() if pm else 0, tm.end() if tm else 0)
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


def _anomaly(t: str, strict: bool, positions: int = 4) -> Extraction:
    if len(t) > 64 and "}" not in t and positions == 4:
        ex = _final_block(t)
        if ex is not None:
            return ex
    cands: list[tuple[int, Extraction]] = []
    boxed = _last_boxed(t)  # only the box ending last can win
    if boxed is not None:
        end, content = boxed
        c = _clean(content.replace("\\\\", "\n"))
        blk = _anomaly_block(c, positions)
        ex = blk[1] if blk else _anomaly_short(c, "boxed", positions)
        ex.rule = "boxed"
        if ex.detail == "no answer found":
            ex.detail = f"unreadable \\boxed{{{content[:40]}}}"
        cands.append((end, ex))
    blk = _anomaly_block(t, positions)
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
