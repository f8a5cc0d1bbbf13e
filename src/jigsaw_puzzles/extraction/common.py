"""What extraction returns, and the region/cleaning steps every answer kind shares (cascade step 0)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Optional



PARSED = "parsed"
AMBIGUOUS = "ambiguous"
INVALID = "invalid"


@dataclass
class Extraction:
    """What :func:`classify_response` read from one response.

    answer: the canonical answer string (comparable with ``row["answer"]``) when
        ``status == "parsed"``, else ``None``.
    status: ``"parsed"``, ``"ambiguous"`` or ``"invalid"``.
    rule: the cascade step that decided (``"boxed"``, ``"marker"``, ``"short"``,
        ``"last_line"``, ``"option_text"``, ``"mention"``, ``"none"``, ...).
    detail: a human-readable reason for ambiguous/invalid results.
    parts: partial fields, kept even when the answer is invalid, for the
        diagnostic sub-scores: anomaly ``{"judgment", "position", "type"}``,
        order ``{"order": (a, b, c, d)}`` (any 4 integers that were read).
    """

    answer: Optional[str]
    status: str
    rule: str
    detail: str = ""
    parts: dict = field(default_factory=dict)

    @property
    def is_parsed(self) -> bool:
        return self.status == PARSED


# --------------------------------------------------------------------------- region + cleaning

_THINK_CLOSE = re.compile(r"</think\s*>", re.I)
_THINK_OPEN = re.compile(r"<think\s*>", re.I)
_ANSWER_OPEN = re.compile(r"<answer\s*>", re.I)
_ANSWER_CLOSE = re.compile(r"</answer\s*>", re.I)
_LATEX_WRAP = re.compile(r"\\(?:text|textbf|mathrm|mathbf|texttt|textit|operatorname)\s*\{([^{}]*)\}")
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BRACE = re.compile(r"[{}]")
_HSPACE = re.compile(r"[^\S\n]+")
_VSPACE = re.compile(r" ?\n[\s]*")


def _region(text: str) -> tuple[str, bool, str]:
    """Return (region, strict, why_empty)."""
    m = None
    for m in _THINK_CLOSE.finditer(text):
        pass
    strict = False
    if m is not None:
        text = text[m.end():]
        if not text.strip():
            return "", False, "nothing after </think>"
    else:
        o = _THINK_OPEN.search(text)
        if o is not None:
            text = text[o.end():]
            strict = True
    close = None
    for close in _ANSWER_CLOSE.finditer(text):  # the last <answer>...</answer>, found in linear time
        pass
    if close is not None:
        opener = None
        for opener in _ANSWER_OPEN.finditer(text, 0, close.start()):
            pass
        if opener is not None and text[opener.end():close.start()].strip():
            return text[opener.end():close.start()], False, ""
    return text, strict, ""


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    # LaTeX wrappers, repeated for nesting like \textbf{\text{B}}.
    for _ in range(3):
        new = _LATEX_WRAP.sub(r"\1", text)
        if new == text:
            break
        text = new
    text = text.replace("**", "").replace("__", "").replace("`", "").replace("$", "")
    text = text.replace("\u2192", "->").replace("\u2013", "-").replace("\u2014", "-")
    # Collapse whitespace runs (one space, or one newline): keeps every regex below linear-time.
    text = _HSPACE.sub(" ", text)
    return _VSPACE.sub("\n", text)


def _boxed_spans(text: str) -> list[tuple[int, str]]:
    """(end position, content) of every \\boxed{...}, with brace matching, in one linear pass
    (a stack of open braces; scanning forward from every opener was quadratic on ``\\boxed{`` * n)."""
    if "{" not in text:
        return []
    openers = {m.end() - 1 for m in _BOXED.finditer(text)}  # index of each boxed opener's "{"
    out, stack = [], []
    for m in _BRACE.finditer(text):
        if m.group() == "{":
            stack.append(m.start())
        elif stack:
            start = stack.pop()
            if start in openers:
                out.append((m.end(), text[start + 1: m.start()]))
    out.sort()
    return out


# Shared by several answer kinds: 'A or B' alternatives and answers printed by code.
_OR_OTHER = re.compile(r"\s*(?:,|/|or|and/or)\s*\(?([A-Z])\b")
_PRINT_STR = re.compile(r"print\s*\(\s*(?:f?[\"'])(?P<val>[^\"'\n]{1,200})[\"']\s*\)")
_PRINT_LIST = re.compile(r"print\s*\(\s*(?P<val>\[[^\]\n]{0,80}\])\s*\)")
