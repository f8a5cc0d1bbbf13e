"""The strict reader: an answer only in the task's exact format, the whole response or its last line.

``strict`` is the second score beside the flexible reading rule (as lm-evaluation-harness reports
``strict-match`` beside ``flexible-extract``): it reads ``B`` or ``Answer: B`` (an option letter, upper case),
``[2, 3, 1, 4]`` (``Answer: [...]`` too), ``[(2, 90), (3, 0), ...]`` and the three-line anomaly block, either as
the whole response (after a closing ``</think>``) or as its last line (the anomaly block: its last three lines),
and nothing else. A last line stands alone only when the line before it is a finished sentence (it ends with
".", "!" or "?"): after a label or an unfinished sentence ("Incorrect", "Worst match:", "The answer is not") it is
no strict answer. Nor is it when an earlier line is in the exact format with another answer ("Answer: D" ... "B"),
nor when the reading rule does not read the same answer from the whole text (the reasoning above it says another:
"Image 2 is top-left.\n\n[3, 2, 1, 4]"). Anything else, a decorated or hedged answer included, is no strict
answer: the strict reader misreads only where the rule does (docs/scoring.md counts it), and the gap between the
two scores says how much the extraction decided.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from ...spec import ANOMALY, CHOICE, LETTERS, ORDER, ORIENTED, ROTATIONS, format_anomaly, format_order, format_oriented

_LETTER = re.compile(r"(?:Answer: ?)?([A-Z])\.?")
_ORDER = re.compile(r"(?:Answer: ?)?\[(\d{1,2}(?:, ?\d{1,2})*)\]\.?")
_ORIENTED = re.compile(r"(?:Answer: ?)?\[(\(\d{1,2}, ?\d{1,3}\)(?:, ?\(\d{1,2}, ?\d{1,3}\))*)\]\.?")
_PAIR = re.compile(r"\((\d+), ?(\d+)\)")
_BLOCK = re.compile(r"Judgment: ?([AB])\nError Position:(?: ?([A-Z]))?\nError Type:(?: ?([AB]))?")


def _answer(line: str, spec) -> Optional[str]:
    """The answer one line gives in the exact format, or ``None``."""
    kind = spec.kind
    if kind == CHOICE:
        m = _LETTER.fullmatch(line)
        return m.group(1) if m is not None and m.group(1) in spec.letters else None
    if kind == ORDER:
        m = _ORDER.fullmatch(line)
        if m is None:
            return None
        nums = [int(x) for x in m.group(1).split(",")]
        return format_order(nums) if sorted(nums) == list(range(1, spec.order_length + 1)) else None
    if kind == ORIENTED:
        m = _ORIENTED.fullmatch(line)
        if m is None:
            return None
        pairs = [(int(i), int(r)) for i, r in _PAIR.findall(m.group(1))]
        order = [i for i, _ in pairs]
        if sorted(order) != list(range(1, spec.order_length + 1)) or any(r not in ROTATIONS for _, r in pairs):
            return None
        return format_oriented(order, [r for _, r in pairs])
    return None


def _block(lines: list[str], spec) -> Optional[str]:
    m = _BLOCK.fullmatch("\n".join(lines))
    if m is None:
        return None
    j, p, ty = m.groups()
    if j == "A":
        return format_anomaly() if p is None and ty is None else None
    if p is None or ty is None or p not in LETTERS[:spec.num_options]:
        return None
    return format_anomaly(p, ty)


def _finished(before: str) -> bool:
    """True when the last non-empty line of ``before`` is a finished sentence (or there is none)."""
    last = before.rstrip().rsplit("\n", 1)[-1].strip()
    return not last or last.endswith((".", "!", "?", "\u3002", "\uff01", "\uff1f"))


_MEMO: dict = {}  # (short text, config) -> strict answer: a pure function, and short answers repeat


def strict_answer(text: Any, spec) -> Optional[str]:
    """The answer ``text`` gives in the task's exact format (see the module), else ``None``."""
    if type(text) is str and len(text) <= 64:
        key = (text, spec.name)
        if key in _MEMO:
            return _MEMO[key]
        if len(_MEMO) >= 65536:
            _MEMO.clear()
        found = _MEMO[key] = _strict(text, spec)
        return found
    return _strict(text, spec)


def _strict(text: Any, spec) -> Optional[str]:
    if not isinstance(text, str):
        return None
    if "<" in text:
        close = text.rfind("</think>")
        if close >= 0:
            text = text[close + 8:]
        elif "<think>" in text:
            return None  # an unterminated trace: no final answer
    text = text.strip()
    if not text:
        return None
    if spec.kind == ANOMALY:
        lines = [ln.strip() for ln in text.split("\n")]
        found = _block(lines[-3:], spec)
        if found is None or len(lines) == 3:
            return found
        if not _finished("\n".join(lines[:-3])):
            return None
        earlier = {_block(lines[i:i + 3], spec) for i in range(len(lines) - 5) if lines[i].startswith("Judgment")}
        earlier.discard(None)
        return None if earlier - {found} else found
    nl = text.rfind("\n")
    if nl < 0:
        return _answer(text, spec)
    found = _answer(text[nl + 1:].strip(), spec)
    if found is None or not _finished(text[:nl]):
        return None
    longest = len(found) + 12  # an exact line is the answer and at most "Answer: " and a "."
    for line in text[:nl].split("\n"):  # another exact answer earlier: the text keeps two open
        if len(line) > longest + 8:
            continue
        other = _answer(line.strip(), spec)
        if other is not None and other != found:
            return None
    return found
