"""What extraction returns, and the region/cleaning steps every answer kind shares (cascade step 0)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Optional



PARSED = "parsed"
AMBIGUOUS = "ambiguous"
INVALID = "invalid"


@dataclass(slots=True)
class Extraction:
    """What :func:`classify_response` read from one response.

    answer: the canonical answer string (comparable with ``row["answer"]``) when
        ``status == "parsed"``, else ``None``.
    status: ``"parsed"``, ``"ambiguous"`` or ``"invalid"``.
    rule: the cascade step that decided (``"boxed"``, ``"marker"``, ``"verdicts"``, ``"code"``,
        ``"short"``, ``"last_line"``, ``"option_text"``, ``"mention"``, ``"prose"``, ``"negation"``, ``"none"``).
    detail: a human-readable reason for ambiguous/invalid results.
    parts: partial fields, kept even when the answer is invalid, for the
        diagnostic sub-scores: anomaly ``{"judgment", "position", "type"}`` (``"?"`` for a field that is
        hedged or names no single cell: it matches no reference, blank ones included),
        order ``{"order": (a, b, c, d)}`` (any 4 integers that were read).
    strict: the answer the strict reader reads (:mod:`.strict`: only the task's exact format, the whole
        response or its last line), else ``None``; set by :func:`classify_response`.
    """

    answer: Optional[str]
    status: str
    rule: str
    detail: str = ""
    parts: dict = field(default_factory=dict)
    strict: Optional[str] = None

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
_VSPACE = re.compile(r"\n\s+")
_ODD_ASCII_SPACE = ("\t", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")  # other than " " and "\n"


def _last_tag(text: str, rx: re.Pattern, endpos: int, prefix: str = "<"):
    """The last match of the tag pattern ``rx`` (it starts with ``prefix``) in ``text[:endpos]``: tried at
    each ``prefix`` from the end, so a long trace is not scanned from its start (the same match as the last
    of finditer: tags cannot overlap)."""
    i = text.rfind(prefix, 0, endpos)
    while i >= 0:
        m = rx.match(text, i, endpos)
        if m is not None:
            return m
        i = text.rfind(prefix, 0, i)
    return None


def _region(text: str) -> tuple[str, bool, str]:
    """Return (region, strict, why_empty)."""
    if "<" not in text:  # no <think> or <answer> tag
        return text, False, ""
    m = _last_tag(text, _THINK_CLOSE, len(text), "</")
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
    if "<" not in text:
        return text, strict, ""
    close = _last_tag(text, _ANSWER_CLOSE, len(text), "</")  # the last <answer>...</answer>
    if close is not None:
        opener = _last_tag(text, _ANSWER_OPEN, close.start())
        if opener is not None and text[opener.end():close.start()].strip():
            return text[opener.end():close.start()], False, ""
    return text, strict, ""


def _clean(text: str) -> str:
    ascii_ = text.isascii()
    if not ascii_:  # NFKC is the identity on ASCII: skip it for the common case
        text = unicodedata.normalize("NFKC", text)
        text = text.replace("\u2192", "->").replace("\u2013", "-").replace("\u2014", "-")
    if "\\" in text:
        # LaTeX wrappers, repeated for nesting like \textbf{\text{B}}.
        for _ in range(3):
            new = _LATEX_WRAP.sub(r"\1", text)
            if new == text:
                break
            text = new
    if "*" in text or "_" in text or "`" in text or "$" in text:
        text = text.replace("**", "").replace("__", "").replace("`", "").replace("$", "")
    # Collapse whitespace runs (one space, or one newline): keeps every regex below linear-time and lets
    # the markers use a plain " " where a space may stand (a marker never reads across a newline).
    if not ascii_ or "  " in text or any([c in text for c in _ODD_ASCII_SPACE]):  # else: space runs are one " "
        text = _HSPACE.sub(" ", text)
    if "\n" in text:
        if " \n" in text:
            text = text.replace(" \n", "\n")
        text = _VSPACE.sub("\n", text)
    return text


def _last_boxed(text: str) -> Optional[tuple[int, str]]:
    """(end position, content) of the \\boxed{...} that ends last, or ``None``.

    Only that one can win step 1 (the candidate ending last wins), so it is the only one read: one
    linear pass with a stack of open braces, and one content string however many boxes are nested
    (reading every nested box was quadratic: ``\\boxed{`` * n + ``}`` * n).
    """
    if "{" not in text or "boxed" not in text and "fbox" not in text:
        return None
    openers = {m.end() - 1 for m in _BOXED.finditer(text)}  # index of each boxed opener's "{"
    if not openers:
        return None
    best, stack = None, []
    for m in _BRACE.finditer(text):
        if m.group() == "{":
            stack.append(m.start())
        elif stack:
            start = stack.pop()
            if start in openers:
                best = (m.end(), start)
    if best is None:
        return None
    return best[0], text[best[1] + 1: best[0] - 1]


def _lowered(t: str) -> Optional[str]:
    """``t.lower()`` when ``t`` is ASCII (same length, so match positions carry over), else ``None``.

    Case-insensitive keyword patterns come in two compiled forms (:func:`_caseless`): with ``re.I`` for any
    text, and without it for the lowered ASCII text, where a pattern that starts with a set of literal
    letters lets the regex engine skip straight to the places a keyword can start (several times faster
    than ``re.I``, which disables that search). Both forms accept exactly the same matches.
    """
    return t.lower() if t.isascii() else None


def _start(tl: Optional[str], keys: tuple[str, ...], before: int) -> int:
    """Where to start scanning ``tl`` for a keyword pattern: every match contains one of ``keys`` at most
    ``before`` characters after its start, so nothing before the first key can match (-1: no key at all).
    Without a lowered text (non-ASCII) the whole text is scanned."""
    if tl is None:
        return 0
    first = -1
    for k in keys:
        if k in tl:
            i = tl.find(k)
            if first < 0 or i < first:
                first = i
    return first if first < 0 else max(0, first - before)


def _last_segment(t: str) -> int:
    """Start of the last line or sentence of ``t`` (after its last "\n" or ". "), or -1.

    No marker, order list or marker-plus-list contains ". " or reads across a line break - except a marker
    ending in ":" at a line end (-1 then) - so none straddles that start: scanning from it finds exactly the
    matches a scan of the whole text finds there (see choice._last_line_marker)."""
    nl = t.rfind("\n")
    dot = t.rfind(". ")
    if dot + 1 > nl:
        return dot + 2
    if nl < 0 or (nl > 0 and t[nl - 1] == ":"):
        return -1
    return nl + 1


def _caseless(pattern: str) -> tuple[re.Pattern, re.Pattern]:
    """(``re.I`` form, lower-case form) of ``pattern``; its literal letters must be lower case and its letter
    classes list both cases (``[A-Za-z]``, ``[ABab]``)."""
    return re.compile(pattern, re.I), re.compile(pattern)


def _finditer(rx: tuple[re.Pattern, re.Pattern], t: str, tl: Optional[str], pos: int = 0):
    """Matches of a :func:`_caseless` pattern from ``pos``; positions index ``t`` (groups of the lower-case
    form are lower case: read letters from ``t``)."""
    if pos < 0:
        return ()
    return rx[1].finditer(tl, pos) if tl is not None else rx[0].finditer(t, pos)


# A withdrawal of what came before: only the text after it is read.
_RETRACT = re.compile(
    r"(?<![A-Za-z])(?:wait|actually|on (?:second|further) (?:thought|reflection|look)|correction|scratch that"
    r"|i was wrong|i'?m wrong|that(?:'s| is| was) (?:wrong|incorrect|not right|a mistake)|i take (?:that|it) back"
    r"|let me (?:reconsider|re-?check|correct)|re-?checking|no,|hmm|hold on|never ?mind|instead|refined|revised"
    r"|corrected|updated)(?![A-Za-z])",
    re.I)

# Shared by several answer kinds: 'A or B' alternatives and answers printed by code.
_OR_OTHER = re.compile(r"\s*(?:,|/|or|and/or)\s*\(?([A-Z])\b")
_PRINT_STR = re.compile(r"print\s*\(\s*(?:f?[\"'])(?P<val>[^\"'\n]{1,200})[\"']\s*\)")
_PRINT_LIST = re.compile(r"print\s*\(\s*(?P<val>\[[^\]\n]{0,80}\])\s*\)")

# --------------------------------------------------------------------------- negation
# A letter or list is *negated* when a negation stands right before it ("not B", "isn't B", "can't be B",
# "cannot be B", "never B", "no B", "rather than B", "not option (B)") or a negative verdict right after it
# ("B is wrong", "B: incorrect", "[1, 2, 3, 4] is not correct", "B isn't the answer"). A negated occurrence is
# never an answer candidate. Both checks are anchored at the candidate and read a bounded window (linear time):
# the one before it is matched on the reversed window, so it is a single anchored match, not a scan.
_NEG_WORDS = ["not", "never", "no", "cannot", "can not", "rather than", "instead of", "eliminate", "eliminating",
              "rule out", "ruling out", "neither", "nor", "than", "unlike", "anything but", "all but",
              "everything but", "any but", "except", "except for", "hardly", "barely", "tried", "first tried"]
_NEG_BEFORE_REV = re.compile(  # reversed: [bracket][space][:][option [the] ][be ]WORD, WORD at a word start
    r"[(\[\"']? ?:?(?:(?:noitpo|eciohc|etadidnac|rettel|rewsna|redro|tsil)(?: eht)? )?"
    r"(?:(?:eb|esoohc|kcip|tceles|yas|htiw og) )?"
    r"(?:(?:" + "|".join(w[::-1] for w in _NEG_WORDS) + r")(?!\w)|t'n)",
    re.I,
)
_NEG_WINDOW = 40  # longer than any phrase above
_NEG_WORD = (
    r"(?:wrong|incorrect|false|impossible|ruled out|eliminated|excluded|unlikely|least likely|doubtful"
    r"|not (?:correct|right|it|possible|likely|"
    r"a (?:match|fit)|the (?:answer|correct|right|one|solution)\w*))"
)
_NEG_AFTER = re.compile(
    r"[)\]\"']?(?: ?(?:[:=]|->|-+) ?(?:wrong|incorrect|false|no|not correct|not right)"
    r"| ?(?:(?:[:=]|->|-+) ?)?[\u2717\u2718\u274c]"
    r"| ?\? ?|\?$| ?\((?:wrong|incorrect|unlikely|doubtful|no|not it|unsure|\?)\)"
    r"| (?:is|was|'s|seems|looks|appears|would be|must be|should be|will be)"
    r" (?:(?:definitely|clearly|obviously|also|probably|certainly|likely|still) )?" + _NEG_WORD +
    r"|'s " + _NEG_WORD +
    r"| (?:isn't|wasn't|is not|was not) (?:correct|right|it|possible|the (?:answer|correct|right|one|solution)\w*)"
    r"| (?:are|were) (?:(?:all|both|definitely|clearly|obviously|also) )?" + _NEG_WORD +
    r"| (?:doesn't|does not|don't|do not|can't|cannot|won't|wouldn't)"
    r" (?:fit|match|work|be (?:it|right|correct|the answer)))"
    r"(?![A-Za-z])",
    re.I,
)


# A letter in a list that a plural negative verdict closes: "A, C and D do not fit", "B and C are wrong" (not
# "A, and B is wrong": a singular verdict is B's alone).
_LIST_TAIL = re.compile(r"(?:(?:,| and| or| nor| &|/) ?(?:and |or )?(?:option )?[(\[]?[A-Z][)\]]?(?![A-Za-z0-9])){1,6}")
_NEG_LIST = re.compile(
    r"(?: (?:are|were) (?:(?:all|both|definitely|clearly|obviously|also) )?" + _NEG_WORD +
    r"| (?:all |both )?(?:do not|don't|cannot|can't|won't) (?:fit|match|work|be (?:it|right|correct|the answer))"
    r"| ?(?:[:=]|->|-+) ?(?:all |both )?(?:wrong|incorrect|no))(?![A-Za-z])", re.I)


_NEG_SEEN: dict = {}  # (text, start, end) -> verdict: the cascade and the reading rule ask about the same spans


def _negated(t: str, start: int, end: int) -> bool:
    """True when the candidate ``t[start:end]`` is negated (see above)."""
    key = (t, start, end)
    seen = _NEG_SEEN.get(key)
    if seen is None:
        if len(_NEG_SEEN) >= 512:
            _NEG_SEEN.clear()
        seen = _NEG_SEEN[key] = _negated_at(t, start, end)
    return seen


def _negated_at(t: str, start: int, end: int) -> bool:
    return _negation_span(t, start, end) is not None


def _negation_span(t: str, start: int, end: int) -> Optional[tuple[int, int]]:
    """(start, end) of the candidate ``t[start:end]`` with the negation that rules it out ("not B", "B is wrong",
    "A, C and D do not fit"), or ``None`` when it is not negated."""
    m = _NEG_AFTER.match(t, end)
    if m is not None:
        return start, m.end()
    if end - start == 1:
        lt = _LIST_TAIL.match(t, end)
        if lt is not None:
            m = _NEG_LIST.match(t, lt.end())
            if m is not None:
                return start, m.end()
    if start == 0:
        return None
    # One anchored match on the reversed window (one character more, for the word-start check).
    m = _NEG_BEFORE_REV.match(t[max(0, start - _NEG_WINDOW - 1):start][::-1])
    return (start - m.end(), end) if m is not None else None
