"""Anomaly Detection's answer where the text names it: the labelled block (Judgment, Error Position, Error Type in
any order, on one line or several, values as letters or words), or the three letters alone."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from ...spec import ANOMALY, LETTERS, format_anomaly
from .common import Mention
from .forms import alternation, forms, pattern, value
from .positions import cells_named


@lru_cache(maxsize=1)
def _field_rx() -> re.Pattern:
    lab = {k: alternation(forms(k)) for k in ("judgment", "position", "type")}
    return re.compile(rf"(?<![^\W_])(?:(?P<p>{lab['position']})|(?P<t>{lab['type']})|(?P<j>{lab['judgment']}))"
                      rf"(?=[ \t]*(?:[:=\-\u2013\u2014|\u2192]|->|=>|\n|$)|[ \t]+(?-i:[A-Z])(?![A-Za-z]))", re.I)


_FIELD_SEP = re.compile(r"[ \t]*(?:->|=>|[:=\-\u2013\u2014|\u2192])?[ \t]*")
_VALUE_WORD = re.compile(r"[^\W\d_]+|\d+", re.U)
_POS_KNOWN = frozenset("top upper bottom lower left right middle center centre central row column col corner the "
                       "sub image subimage piece tile cell position option in of and first second third fourth fifth "
                       "sixth seventh eighth last leftmost rightmost 1 2 3 4 5 6 7 8 9 st nd rd th one".split())


@lru_cache(maxsize=None)
def _words_of(kind: str) -> frozenset:
    return frozenset(w for f in forms(kind) for w in _VALUE_WORD.findall(f))


def _field_value(t: str, start: int, end: int, what: str, grid: tuple[int, int]):
    """(value, why): the one value a field states (None: left blank), else "?" and why it is unclear."""
    v = t[start:end].replace("\uff08", "(").replace("\uff09", ")").strip(" \t*()[].,;:'\"")
    if what == "p":  # a place said in another language beside the letter ("C（左下角）")
        v = " ".join(pattern("place").sub(lambda m: " " + value("place", m.group(0)) + " ", v).split())
    if "\u00a4" in v:
        return "?", "the field holds a comment or a hidden mark"
    low = " ".join(v.lower().replace("_", " ").split())
    if not low or low in forms("blank") or _BLANK_MARK.fullmatch(low):
        return None, ""
    words = _VALUE_WORD.findall(low.replace("-", " "))
    if what == "j":
        yes, no = _phrases(low, "correct"), _phrases(low, "incorrect")
        named = ({"A"} if yes and not no else set()) | ({"B"} if no else set())
        named |= {w.upper() for w in words if w in ("a", "b")}
        known = _words_of("correct") | _words_of("incorrect") | {"a", "b", "the", "image", "is", "stitched", "option"}
    elif what == "t":
        named = ({"A"} if _phrases(low, "rotation") else set()) | ({"B"} if _phrases(low, "mirroring") else set())
        named |= {w.upper() for w in words if w in ("a", "b")}
        known = _words_of("rotation") | _words_of("mirroring") | {"a", "b", "type", "error", "option", "by", "degrees",
                                                                  "90", "180", "270", "clockwise", "horizontal",
                                                                  "horizontally", "vertical", "vertically", "°",
                                                                  "the", "piece", "tile", "it", "is", "was", "has", "been",
                                                                  "quarter", "half", "turn"}  # "the piece is turned a quarter turn"
        if re.search(r"counter|anti", low):
            return "?", f"the error type {v!r} counts turns the other way"
    else:
        named, why = cells_named(v, *grid)
        if why:
            return "?", why
        known = _POS_KNOWN
    if "?" in low or "\uff1f" in low:
        return "?", f"{v!r} is asked, not given"
    said = _phrase_rx("incorrect").sub(" ", low) if what == "j" else low  # "B (不正确)": the negation is the judgment's
    if _NEGATION.search(said) and (what != "j" or any(w in ("a", "b") for w in words)):
        return "?", f"{v!r} rules a value out"  # "Judgment: not A", "Error Position: not C"
    unknown = [w for w in words if w not in known | _SURE and not (len(w) == 1 and w.isalpha())]
    if unknown:
        label = {"j": "judgment", "t": "error type", "p": "error position"}[what]
        return "?", f"the {label} {v!r} holds words the reader does not know ({unknown[0]!r})"
    if len(named) != 1:
        return "?", f"{v!r} names {'several' if named else 'no'} values"
    return next(iter(named)), ""


_SURE = frozenset("probably likely clearly definitely certainly confident fairly very quite pretty sure".split())  # "B (probably)"
_NEGATION = re.compile(r"(?<![^\W_])(?:not|no|never|non|nicht|kein|não|nem|не|ні|nie|niet|pas|değil|bukan|không)(?![^\W_])"
                       r"|n't|不|非|ではな|아니", re.I)
_BLANK_MARK = re.compile(r"[\s\-\u2013\u2014_./]*|\(?leave\s+(?:it\s+)?blank\)?|n/?a")


@lru_cache(maxsize=None)
def _phrase_rx(kind: str) -> re.Pattern:
    return re.compile(alternation(forms(kind)))


def _phrases(low: str, kind: str) -> bool:
    return _phrase_rx(kind).search(low) is not None


def blocks_in(t: str, spec) -> list[Mention]:
    """Each labelled anomaly block: its fields from a Judgment to the last field after it."""
    out, fields = [], list(_field_rx().finditer(t))
    if not fields:
        return out
    groups: list[list[re.Match]] = []
    for f in fields:
        if f.lastgroup == "j" or not groups or f.start() - groups[-1][-1].end() > 160:
            groups.append([f])
        else:
            groups[-1].append(f)
    for i in range(len(groups) - 1, 0, -1):  # "Error Type: B / Judgment: B / Error Position: A": fields in any order
        a, b = groups[i - 1], groups[i]
        if all(f.lastgroup != "j" for f in a) and b[0].start() - a[-1].end() <= 160 and \
                not {f.lastgroup for f in a} & {f.lastgroup for f in b}:
            groups[i - 1:i + 1] = [a + b]
    for g in groups:
        vals: dict = {}
        why = ""
        for i, f in enumerate(g):
            vs = _FIELD_SEP.match(t, f.end()).end()
            stop = g[i + 1].start() if i + 1 < len(g) else len(t)
            nl = t.find("\n", vs)
            ve = min(stop, nl if nl >= 0 else len(t))
            if i + 1 < len(g) and "\n" not in t[vs:g[i + 1].start()]:
                ve = g[i + 1].start()
            ve = vs + len(t[vs:ve].rstrip(" \t|,;"))
            val, w = _field_value(t, vs, ve, f.lastgroup, spec.grid)
            if f.lastgroup in vals and vals[f.lastgroup] != val:  # the same value twice is said once (a stream's repeat)
                why = why or "a field is given twice, with two values"
            vals[f.lastgroup] = val
            why = why or w
            end = ve
        j, p, ty = vals.get("j"), vals.get("p"), vals.get("t")
        parts = {"judgment": j, "position": p, "type": ty}
        if "j" not in vals:
            continue
        out.append(_anomaly(j, p, ty, spec, g[0].start(), end, why, parts))
    return out


def _anomaly(j, p, ty, spec, start, end, why="", parts=None) -> Mention:
    parts = parts or {"judgment": j, "position": p, "type": ty}
    if why:
        return Mention(start, end, None, "block", why, parts)
    if j == "A" and not p and not ty:
        return Mention(start, end, format_anomaly(), "block", "", parts)
    if j == "B" and p and ty:
        if p not in LETTERS[:spec.num_options]:
            return Mention(start, end, None, "block", f"error position {p} is not one of A-{LETTERS[spec.num_options - 1]}",
                           parts)
        if ty not in "AB":
            return Mention(start, end, None, "block", f"error type {ty} is not A or B", parts)
        return Mention(start, end, format_anomaly(p, ty), "block", "", parts)
    if j == "A":
        return Mention(start, end, None, "block", "Judgment A (correct) but an error position/type was given", parts)
    if j == "B":
        return Mention(start, end, None, "block", "Judgment B (incorrect) without both error position and type", parts)
    return Mention(start, end, None, "block", "no judgment", parts)


_UNLABELLED = re.compile(r"\s*([AB])(?:[\s,;/|.)]+([A-Z])[\s,;/|.)]+([AB]))?[\s.]*")


_ECHO = re.compile(r"(?:^|(?<=[\n;,\u2014\u2013]))[ \t]*(?:\d\.[ \t]+)?([A-I])\.[ \t]+([^;\n\u2014\u2013,]+?)[ \t.]*(?=$|[\n;,\u2014\u2013])")


def _echoed(t: str, spec) -> Optional[Mention]:
    """The prompt's options echoed, each as its letter and its own words, as the whole response ("A. Correct",
    "B. Incorrect — D. Bottom-right, B. Mirroring"): each value read as a field (words and letter must agree)."""
    items = list(_ECHO.finditer(t))
    if not items or re.sub(r"[\s;,\u2014\u2013]", "", _ECHO.sub("", t)):
        return None  # anything else in the text: not an echo
    vals: dict = {}
    for m in items:
        low = m.group(2).lower()
        what = "j" if _phrases(low, "correct") or _phrases(low, "incorrect") else \
            "t" if _phrases(low, "rotation") or _phrases(low, "mirroring") else "p"
        val, why = _field_value(t, m.start(1), m.end(2), what, spec.grid)
        if why or what in vals:
            return Mention(items[0].start(1), items[-1].end(2), None, "block", why or "a field is echoed twice")
        vals[what] = val
    if "j" not in vals:
        return None
    return _anomaly(vals["j"], vals.get("p"), vals.get("t"), spec, items[0].start(1), items[-1].end(2))


def unlabelled_block(t: str, spec) -> Optional[Mention]:
    """The three letters alone ("B\\nC\\nA", "B C A", "A") as the whole response, or the options echoed."""
    m = _UNLABELLED.fullmatch(t)
    if m is None:
        return _echoed(t.strip(), spec)
    s = len(t) - len(t.lstrip())
    return _anomaly(m.group(1), m.group(2), m.group(3), spec, s, len(t.rstrip()))


def decide(found, unknown) -> tuple[Optional[str], str, bool]:
    """(answer, why, claims anything) of the values ``found`` in one structure and the ``unknown`` names beside them."""
    if not found:
        return None, "", False
    answers = {a for a, _ in found if a is not None}
    whys = [w for a, w in found if a is None and w]
    if unknown:
        return None, f"an answer beside a name the reader does not know ({unknown[0][:30]!r})", True
    if len(answers) > 1:
        return None, "answer fields that disagree: " + " / ".join(sorted(answers)), True
    if whys or not answers:
        return None, (whys[0] if whys else "no answer in the answer field"), True
    return next(iter(answers)), "", True


#: The fields that hold the reasoning beside an answer (not a draft or a think block: those may try other answers).
_REASONING = frozenset(k for k in forms("skip") if re.search(
    r"reason|explan|rational|justif|analys|evidence|observ|grund|erkl|motiv|razo|raci|ragion|spieg|uitleg|toelicht|uzasad|"
    r"wyja|gerek|a\u00e7\u0131k|alasan|penjel|ly_do|l\u00fd_do|giai|gi\u1ea3i|\u7406\u7531|\u8bf4\u660e|\u8aaa\u660e|\u89e3\u91cb|"
    r"\u89e3\u91ca|\u6839\u62e0|\u8aac\u660e|\uc774\uc720|\uc124\uba85|\u043f\u0440\u0438\u0447\u0438\u043d|\u043e\u0431\u044a\u044f\u0441|"
    r"\u043e\u0431\u043e\u0441\u043d|\u0440\u0430\u0441\u0441\u0443\u0436|\u63a8\u7406|\u5206\u6790|\u601d\u8def|\u4f9d\u636e|\u6839\u636e|"
    r"سبب|تفسير|شرح|تعليل|توضیح|دلیل|استدلال|เหตุผล|คำอธิบาย|הסבר|נימוק|कारण|व्याख्या|स्पष्टीकरण|কারণ|ব্যাখ্যা|sebab|huraian|sababu|maelezo|"
    r"dahilan|paliwanag|perustel|selity|zd[uů]vod|vysv[eě]tl|αιτιολ|εξήγ|motivare|explica|indokl|magyar|begrund|f[öo]rklar|motiver|поясн|обґрунт", k)
    and not re.search(r"(?:finish|done|stop)_?reason", k))
_OTHER_BEFORE = ("another answer", "two answers", "one commitment reads as two")


def reasoned(keys: dict, found: list, spec, text) -> list:
    """The answer found, read after each reasoning field beside it as the text's answer would be after its
    reasoning ({"answer": "B", "reasoning": "... only candidate 3 has the striped edge, so C."}): a reasoning that
    concludes, or says fits as a whole, another answer makes the two disagree."""
    answers = {a for a, _ in found if a is not None}
    if len(answers) != 1:
        return found
    a = next(iter(answers))
    for k, v in keys.items():
        if k in _REASONING and isinstance(v, str) and len(v.split()) + len(re.findall(r"[\u3040-\u9fff\uac00-\ud7af]", v)) >= 4:
            said, why = text(v.rstrip() + ("\n\n" if spec.kind == ANOMALY else "\n\nAnswer: ") + a)
            if said != a and (said is not None or why.startswith(_OTHER_BEFORE)):
                found = found + [(None, f"the {k} beside the answer gives another one ({why or said})")]
    return found


__all__ = ["blocks_in", "unlabelled_block"]
