"""Anomaly Detection's three fields (judgment, position, type), in block or short form."""

from __future__ import annotations

import re
from typing import Optional

from ..spec import format_anomaly
from .common import AMBIGUOUS, INVALID, PARSED, Extraction, _OR_OTHER, _boxed_spans, _clean


# --------------------------------------------------------------------------- anomaly detection

_BLANK = r"(?:none|n/?a|null|nil|empty|blank|-+|\(?leave\s+blank\)?|\(?blank\)?|not\s+applicable)"
_JUDG = re.compile(
    r"(?<![A-Za-z])judge?ment\s*[:=\-]?\s*[(\[]?\s*(?P<val>[AB](?![A-Za-z0-9])|correct|incorrect|normal|abnormal|anomalous|not\s+correct|yes|no)",
    re.I,
)
_POS = re.compile(
    r"(?<![A-Za-z])(?:error\s*)?position\s*[:=\-]?[ \t]*[(\[]?[ \t]*(?P<val>" + _BLANK + r"(?![A-Za-z])|[A-D](?![A-Za-z0-9])|"
    r"(?:top|upper|bottom|lower)[ \t-]*(?:left|right))?",
    re.I,
)
_TYPE = re.compile(
    r"(?<![A-Za-z])(?:error\s*)?type\s*[:=\-]?[ \t]*[(\[]?[ \t]*(?P<val>" + _BLANK + r"(?![A-Za-z])|[AB](?![A-Za-z0-9])|"
    r"rotat\w*|mirror\w*|flip\w*|reflect\w*)?",
    re.I,
)
_UNLABELLED_1 = re.compile(r"^\W*(?P<j>[AB])\W*$")
_UNLABELLED_3 = re.compile(r"^\W*(?P<j>B)[\s,;/|.)]+(?P<p>[A-D])[\s,;/|.)]+(?P<t>[AB])\W*$")
_POS_WORDS = {"topleft": "A", "upperleft": "A", "topright": "B", "upperright": "B",
              "bottomleft": "C", "lowerleft": "C", "bottomright": "D", "lowerright": "D"}


def _norm_judgment(v: str) -> Optional[str]:
    v = v.lower().replace(" ", "")
    if v in ("a", "correct", "normal", "yes"):
        return "A"
    if v in ("b", "incorrect", "abnormal", "anomalous", "notcorrect", "no"):
        return "B"
    return None


def _norm_position(v: Optional[str]) -> Optional[str]:
    if not v or re.fullmatch(_BLANK, v, re.I):
        return None
    if len(v) == 1:
        return v.upper()
    return _POS_WORDS.get(re.sub(r"[\s-]", "", v.lower()))


def _norm_type(v: Optional[str]) -> Optional[str]:
    if not v or re.fullmatch(_BLANK, v, re.I):
        return None
    if len(v) == 1:
        return v.upper()
    v = v.lower()
    if v.startswith("rotat"):
        return "A"
    return "B"  # mirror / flip / reflect


def _anomaly_answer(j: Optional[str], p: Optional[str], ty: Optional[str], rule: str) -> Extraction:
    parts = {"judgment": j, "position": p, "type": ty}
    if j == "A":
        if p or ty:
            return Extraction(None, INVALID, rule, "Judgment A (correct) but an error position/type was given", parts)
        return Extraction(format_anomaly(), PARSED, rule, "", parts)
    if j == "B":
        if not (p and ty):
            return Extraction(None, INVALID, rule, "Judgment B (incorrect) without both error position and type", parts)
        return Extraction(format_anomaly(p, ty), PARSED, rule, "", parts)
    return Extraction(None, INVALID, rule, "no judgment found", parts)


def _anomaly_block(t: str) -> Optional[tuple[int, Extraction]]:
    ms = list(_JUDG.finditer(t))
    if not ms:
        return None
    m = ms[-1]
    j = _norm_judgment(m.group("val"))
    other = _OR_OTHER.match(t, m.end())
    if other and other.group(1) in "AB" and other.group(1) != m.group("val").upper():
        return m.end(), Extraction(None, AMBIGUOUS, "marker", "hedged judgment A or B", {"judgment": None})
    rest = t[m.end(): m.end() + 400]
    pm = _POS.search(rest)
    tm = _TYPE.search(rest)
    p = _norm_position(pm.group("val")) if pm else None
    ty = _norm_type(tm.group("val")) if tm else None
    end = m.end() + max(pm.end() if pm else 0, tm.end() if tm else 0)
    return end, _anomaly_answer(j, p, ty, "marker")


def _anomaly(t: str, strict: bool) -> Extraction:
    cands: list[tuple[int, Extraction]] = []
    for end, content in _boxed_spans(t):
        c = _clean(content.replace("\\\\", "\n"))
        blk = _anomaly_block(c)
        ex = blk[1] if blk else _anomaly_short(c, "boxed")
        ex.rule = "boxed"
        if ex.detail == "no answer found":
            ex.detail = f"unreadable \\boxed{{{content[:40]}}}"
        cands.append((end, ex))
    blk = _anomaly_block(t)
    if blk is not None:
        cands.append(blk)
    if cands:
        return max(cands, key=lambda c: c[0])[1]
    if strict:
        return Extraction(None, INVALID, "none", "unterminated <think> block without a final answer")
    ex = _anomaly_short(t, "short")
    if ex.detail != "no answer found":
        return ex
    lines = t.strip().split("\n")
    if len(lines) > 1:
        ex = _anomaly_short(lines[-1], "last_line")
        if ex.detail != "no answer found":
            return ex
    return Extraction(None, INVALID, "none", "no answer found")


def _anomaly_short(t: str, rule: str) -> Extraction:
    s = " ".join(t.split())
    m = _UNLABELLED_3.match(s)
    if m:
        return _anomaly_answer("B", m.group("p"), m.group("t"), rule)
    m = _UNLABELLED_1.match(s)
    if m:
        return _anomaly_answer(m.group("j"), None, None, rule)
    return Extraction(None, INVALID, rule, "no answer found")
