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
_ANSWER_TAG = re.compile(r"<answer\s*>(.*?)</answer\s*>", re.I | re.S)
_LATEX_WRAP = re.compile(r"\\(?:text|textbf|mathrm|mathbf|texttt|textit|operatorname)\s*\{([^{}]*)\}")
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
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
    tags = _ANSWER_TAG.findall(text)
    if tags and tags[-1].strip():
        return tags[-1], False, ""
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
    """(end position, content) of every \\boxed{...}, with brace matching."""
    out = []
    for m in _BOXED.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            i += 1
        if depth == 0:
            out.append((i, text[m.end(): i - 1]))
    return out


# Shared by several answer kinds: 'A or B' alternatives and answers printed by code.
_OR_OTHER = re.compile(r"\s*(?:,|/|or|and/or)\s*\(?([A-Z])\b")
_PRINT_STR = re.compile(r"print\s*\(\s*(?:f?[\"'])(?P<val>[^\"'\n]{1,200})[\"']\s*\)")
_PRINT_LIST = re.compile(r"print\s*\(\s*(?P<val>\[[^\]\n]{0,80}\])\s*\)")
