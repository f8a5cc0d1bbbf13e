"""Answer extraction for Jigsaw-Puzzles: raw model text -> the exact-match answer format.

The paper scores every task by exact match against one canonical string (see
the README's row schema): a letter for the multiple-choice tasks, a three-line block
for Anomaly Detection and ``"[2, 3, 1, 4]"`` for Order Generation. Models rarely
answer in exactly that form, so :func:`classify_response` reads the *final*
answer out of whatever they wrote, using the cascade below, and says how sure it
is. Nothing here ever evaluates model text (no ``eval``/``ast.literal_eval``):
lists and letters are read with regular expressions only.

Cascade (first step that yields something wins)
-----------------------------------------------
0. **Region.** ``None``/empty -> invalid. If the text contains ``</think>`` only
   what follows the last ``</think>`` is read (empty there -> invalid). An
   unterminated ``<think>`` (a truncated trace) is read in *strict* mode: only
   steps 1-2 may answer. If ``<answer>...</answer>`` tags exist, the last one is
   the region. Unicode is NFKC-normalised (full-width letters), Markdown
   emphasis/backticks and ``\\text{}``-style LaTeX wrappers are removed.
1. **Explicit final answers, last one wins.** Every ``\\boxed{...}``, every
   answer phrase ("answer is B", "Answer: B) Candidate 2", "final answer: (C)",
   "the correct option is D", "I choose B", "it corresponds to A", "Option C is
   correct", the anomaly-detection ``Judgment:`` block) and every
   ``print("B")``/``print([2, 3, 1, 4])`` in code is a candidate; the one that
   ends last in the text is the answer, so the final answer of a reasoning trace
   beats earlier drafts. "Answer: A or B" is *ambiguous*.
2. **Short response.** The whole response is an answer in a decorated form:
   ``B``, ``B.``, ``(B)``, ``**B**``, ``[B]``, ``Option B``, ``B) Candidate 2``,
   ``B. Candidate 2 (the third input image)``; a bare list ``2 3 1 4``;
   anomaly answers on one line (``B C A``) or three.
3. **Last line.** The last non-empty line alone is such a short answer (a trace
   that ends with the answer on its own line).
4. **Option text.** The response names exactly one option by its text
   ("Candidate 2", "adjacent vertically", an Order Restoration list when the
   item's ``options`` are given, "top-left: 2, top-right: 3, ..." for orders).
5. **Sole mention.** Exactly one distinct option letter occurs as a standalone
   capital letter (order tasks: the last 4-number sequence). A capital ``A``
   followed by a lower-case word ("A good guess is ...") is read as the article
   and never as an answer; if it is the only candidate the response is
   *ambiguous*. Two or more distinct letters -> *ambiguous*.
6. Otherwise *invalid* ("no answer found").

After extraction the answer is validated against the task's answer space: a
letter outside the options (``E`` for A-D, ``C`` for Piece Localization Easy),
a list that is not a permutation of 1-4, an anomaly answer with
``Judgment: B`` but no position/type (or ``Judgment: A`` *with* one) are
*invalid*. Only ``parsed`` responses have an ``answer``; the others score as
wrong and are counted in ``invalid_rate`` - a default letter is never filled in.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from .spec import ANOMALY, CHOICE, ORDER, ConfigSpec, config_from_id, format_anomaly, format_order, get as _spec

__all__ = [
    "Extraction",
    "extract_answer",
    "classify_response",
    "config_from_id",
    "PARSED",
    "AMBIGUOUS",
    "INVALID",
]

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


# --------------------------------------------------------------------------- letters

# Words after a capital "A" that still leave it an answer ("A because ...", "A is correct").
_A_CONNECTORS = frozenset(
    "is was because since as and or which fits matches seems appears looks would should "
    "best correct right fills belongs corresponds matches - for with".split()
)
_AFTER_LETTER = re.compile(r"[ \t]+([a-z][a-z'-]*)")


def _article_like(text: str, end: int, letter: str) -> bool:
    """True when the letter ending at ``end`` reads as the article "A"/"a" or a word."""
    if letter == "a":
        return True  # lower-case "a" is only accepted at the very end (checked by callers)
    if letter not in ("A", "I"):
        return False
    m = _AFTER_LETTER.match(text, end)
    return bool(m) and m.group(1) not in _A_CONNECTORS


_LOWER_OK = re.compile(r"\s*(?:$|[.,;:!?)\]}\"'*\n])")
_OR_OTHER = re.compile(r"\s*(?:,|/|or|and/or)\s*\(?([A-Z])\b")

_MARKER = re.compile(
    r"(?P<kw>"
    r"(?<![A-Za-z])(?:final|correct|best|right|my)?\s*answer(?:\s+(?:is|would\s+be|should\s+be|will\s+be|is\s+likely|is\s+probably|must\s+be))?"
    r"|(?:correct|right|best|most\s+appropriate|most\s+likely|final)\s+(?:option|choice|letter|candidate|selection)"
    r"(?:\s+(?:is|would\s+be|should\s+be|will\s+be|must\s+be))?"
    r"|i\s*(?:would|will|'d|'ll)?\s*(?:choose|select|pick|go\s+with)"
    r"|my\s+(?:choice|pick|selection)(?:\s+is)?"
    r"|corresponds?\s+to(?:\s+(?:area|region|mask|masked\s+area|position))?"
    r")(?![A-Za-z])"
    r"\s*(?:[:=\-]|is\b)?\s*(?:option|choice|letter|area)?\s*[:\-]?\s*[(\[{\"'<]*\s*"
    r"(?P<letter>[A-Za-z])(?![A-Za-z0-9])",
    re.I,
)
_POST_MARKER = re.compile(
    r"(?<![A-Za-z])(?:option|choice|answer|letter)?\s*\(?(?P<letter>(?-i:[A-Z]))\)?\s+is\s+(?:the\s+)?"
    r"(?:correct|right|answer|best|most\s+(?:appropriate|likely))\b",
    re.I,
)
_PRINT_STR = re.compile(r"print\s*\(\s*(?:f?[\"'])(?P<val>[^\"'\n]{1,200})[\"']\s*\)")
_PRINT_LIST = re.compile(r"print\s*\(\s*(?P<val>\[[^\]\n]{0,80}\])\s*\)")

_SHORT_CHOICE = re.compile(
    r"^[\s>*#\-]*(?:(?:final\s+)?(?:answer|option|choice|letter)\s*[:\-]?\s*)?"
    r"[(\[{\"']?\s*(?P<letter>[A-Za-z])\s*[)\]}\"']?\s*[.:;!]?\s*$",
    re.I,
)
_LETTER_PLUS_TEXT = re.compile(
    r"^[\s>*#\-]*(?:(?:answer|option|choice)\s*[:\-]?\s*)?[(\[]?(?P<letter>[A-Z])\s*[)\].:]\s+\S"
)
_ENUMERATION = re.compile(r"(?m)^\s*\(?[A-Z][).:]\s")
_STANDALONE = re.compile(r"(?<![A-Za-z0-9_'])(?P<letter>[A-Z])(?![A-Za-z0-9_'])")


def _letter_in_fragment(
    frag: str, spec: ConfigSpec, options: Optional[Sequence[str]], config: str, allow_text: bool = True
) -> tuple[Optional[str], str, str]:
    """Read a single choice answer from a short fragment (boxed content, the whole reply, ...).

    Returns (letter_or_None, status, detail); status is "" when nothing was found.
    """
    frag = frag.strip()
    if not frag:
        return None, "", ""
    m = _SHORT_CHOICE.match(frag)
    if m is not None:
        letter = m.group("letter").upper()
        if letter in spec.letters:
            return letter, PARSED, ""
        return None, INVALID, f"letter {letter!r} is not an option ({'/'.join(spec.letters)})"
    if not allow_text:
        return None, "", ""
    m = _LETTER_PLUS_TEXT.match(frag)
    if m is not None and m.group("letter") in spec.letters and not _ENUMERATION.search(frag, m.end()):
        return m.group("letter"), PARSED, ""
    alias = _option_text(frag, spec, options, config)
    if len(alias) == 1:
        return next(iter(alias)), PARSED, ""
    if alias:
        return None, AMBIGUOUS, "names several options: " + "/".join(sorted(alias))
    return None, "", ""


# Option texts that are the same for every item (contract), per config family.
_ORDINALS = {"second": "A", "third": "B", "fourth": "C", "fifth": "D"}
_CANDIDATE = re.compile(r"\bcandidate\s*#?\s*([1-4])\b|\b(second|third|fourth|fifth)\s+(?:input\s+)?image\b", re.I)
_CV_NOT = re.compile(r"\b(?:not|never|aren't|isn't|are\s+not|is\s+not)\s+(?:\w+\s+)?adjacent\w*(?:\s+(?:horizontally|vertically|to\s+each\s+other))?|\bnon[\s-]*adjacent\b", re.I)
_CV_TEXT = (
    ("A", re.compile(r"\bhorizontal(?:ly)?\b|\bleft[\s-]*(?:and[\s-]*|/)?right\b|\bside[\s-]by[\s-]side\b", re.I)),
    ("B", re.compile(r"\bvertical(?:ly)?\b|\btop[\s-]*(?:and[\s-]*|/)?bottom\b|\babove[\s-]*(?:and[\s-]*|/)?below\b", re.I)),
)


def _norm_opt(s: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]", " ", s.lower()).split())


def _lists_in(text: str) -> set[tuple[int, ...]]:
    out = {nums for _, nums in _order_candidates(text)}
    out.update(tuple(int(g) for g in m.groups()) for m in _BARE_SEQ.finditer(text))
    return out


def _option_text(text: str, spec: ConfigSpec, options: Optional[Sequence[str]], config: str) -> set[str]:
    """Letters whose option *text* the response names."""
    found: set[str] = set()
    if options:
        t = _norm_opt(text)
        lists = None
        for letter, opt in zip(spec.letters, options):
            opt = str(opt)
            if config == "order_restoration" or re.fullmatch(r"\s*\[[\d,\s]+\]\s*", opt):
                if lists is None:
                    lists = _lists_in(text)
                if _ints(opt) in lists:
                    found.add(letter)
            else:
                o = _norm_opt(opt)
                if len(o) > 3 and re.search(r"(?<![0-9a-z])" + re.escape(o) + r"(?![0-9a-z])", t):
                    found.add(letter)
        if found:
            return found
    if config.startswith("missing_piece"):
        for m in _CANDIDATE.finditer(text):
            found.add("ABCD"[int(m.group(1)) - 1] if m.group(1) else _ORDINALS[m.group(2).lower()])
    elif config == "connection_verification":
        if _CV_NOT.search(text):
            found.add("C")
            text = _CV_NOT.sub(" ", text)
        found.update(letter for letter, rx in _CV_TEXT if rx.search(text))
    return found


def _choice(t: str, strict: bool, spec: ConfigSpec, options, config: str) -> Extraction:
    letters_desc = "/".join(spec.letters)
    # Step 1: explicit final answers; the one ending last wins.
    cands: list[tuple[int, str, Optional[str], str, str]] = []  # (end, rule, letter, status, detail)
    for end, content in _boxed_spans(t):
        letter, status, detail = _letter_in_fragment(_clean(content), spec, options, config)
        if not status:
            status, detail = INVALID, f"unreadable \\boxed{{{content[:40]}}}"
        cands.append((end, "boxed", letter, status, detail))
    for m in _MARKER.finditer(t):
        raw = m.group("letter")
        if raw.islower() and not _LOWER_OK.match(t, m.end()):
            continue  # "the answer is a bit unclear"
        if _article_like(t, m.end(), raw):
            continue  # "Answer: A good guess ...", "answer: I think ..."
        letter = raw.upper()
        other = _OR_OTHER.match(t, m.end())
        if other and other.group(1) != letter and other.group(1) in spec.letters:
            cands.append((m.end(), "marker", None, AMBIGUOUS, f"hedged answer {letter} or {other.group(1)}"))
        elif letter in spec.letters:
            cands.append((m.end(), "marker", letter, PARSED, ""))
        elif raw.isupper():
            cands.append((m.end(), "marker", None, INVALID, f"letter {letter!r} is not an option ({letters_desc})"))
    for m in _POST_MARKER.finditer(t):
        letter = m.group("letter")
        if letter in spec.letters:
            cands.append((m.end(), "marker", letter, PARSED, ""))
    for m in _PRINT_STR.finditer(t):
        letter, status, detail = _letter_in_fragment(m.group("val"), spec, options, config)
        if status:
            cands.append((m.end(), "code", letter, status, detail))
    if cands:
        _, rule, letter, status, detail = max(cands, key=lambda c: c[0])
        return Extraction(letter, status, rule, detail)
    if strict:
        return Extraction(None, INVALID, "none", "unterminated <think> block without a final answer")

    lines = t.strip().split("\n")
    # Step 2: the whole (short) response is a decorated answer.
    letter, status, detail = _letter_in_fragment(t, spec, options, config, allow_text=len(lines) <= 3)
    if status == PARSED or (status and len(lines) == 1):
        return Extraction(letter, status, "short", detail)
    # Step 3: the last non-empty line.
    if len(lines) > 1:
        m = _SHORT_CHOICE.match(lines[-1]) or _LETTER_PLUS_TEXT.match(lines[-1])
        if m is not None and (m.group("letter").isupper() or len(lines[-1].strip(" .*()[]")) == 1):
            letter = m.group("letter").upper()
            if letter in spec.letters:
                return Extraction(letter, PARSED, "last_line")
            if m.re is _SHORT_CHOICE:
                return Extraction(None, INVALID, "last_line", f"letter {letter!r} is not an option ({letters_desc})")
    # Step 4: option text.
    alias = _option_text(t, spec, options, config)
    if len(alias) == 1:
        return Extraction(next(iter(alias)), PARSED, "option_text")
    # Step 5: a sole standalone option letter.
    mentioned, article_only = set(), False
    for m in _STANDALONE.finditer(t):
        letter = m.group("letter")
        if letter not in spec.letters:
            continue
        if _article_like(t, m.end(), letter):
            article_only = True
            continue
        mentioned.add(letter)
    if len(mentioned) == 1:
        if alias and not (mentioned <= alias):
            return Extraction(None, AMBIGUOUS, "mention", "letter and option text disagree")
        return Extraction(next(iter(mentioned)), PARSED, "mention")
    if mentioned:
        return Extraction(None, AMBIGUOUS, "mention", "mentions several options: " + "/".join(sorted(mentioned)))
    if alias:
        return Extraction(None, AMBIGUOUS, "option_text", "names several options: " + "/".join(sorted(alias)))
    if article_only:
        return Extraction(None, AMBIGUOUS, "mention", "only an article-like 'A' (e.g. 'A good guess ...')")
    if status:  # e.g. a lone out-of-range letter on one of <= 3 lines
        return Extraction(letter, status, "short", detail)
    if config == "order_restoration" and _lists_in(t):
        return Extraction(None, INVALID, "none", "answered with an order list; pass the item's options to map it")
    return Extraction(None, INVALID, "none", "no answer found")


# --------------------------------------------------------------------------- order lists

_SEP = r"(?:\s*(?:,|;|->|-)\s*|\s+)"
_ITEM = r"(?:<?image\s?|img\s?|#)?\d+>?"
_LIST_BRACKET = re.compile(r"[\[(]\s?(" + _ITEM + r"(?:" + _SEP + _ITEM + r")*)\s?[\])]", re.I)
_BARE_SEQ = re.compile(r"(?<![\d.\w])([1-9])" + (_SEP + r"([1-9])") * 3 + r"(?![\d\w]|\.\d)")
_ORDER_MARKER = re.compile(
    r"(?<![A-Za-z])(?:answer|order|sequence|arrangement|list|result)(?:\s+(?:is|would\s+be|should\s+be|will\s+be))?\s*[:=\-]?\s*",
    re.I,
)
_REGION_NAMES = [
    r"top[\s-]*left|upper[\s-]*left",
    r"top[\s-]*right|upper[\s-]*right",
    r"bottom[\s-]*left|lower[\s-]*left",
    r"bottom[\s-]*right|lower[\s-]*right",
]
_REGION_RX = [re.compile(r"(?:" + n + r")\s*(?:region|corner|position)?\s*(?:[:=]|->|-|is|:\s*image)?\s*(?:<?image\s*|img\s*|#)?([1-9])\b", re.I) for n in _REGION_NAMES]


def _ints(s: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", s))


def _order_candidates(t: str) -> list[tuple[int, tuple[int, ...]]]:
    """(end, numbers) for bracketed lists of any length."""
    return [(m.end(), _ints(m.group(1))) for m in _LIST_BRACKET.finditer(t)]


def _order_result(nums: tuple[int, ...], rule: str) -> Extraction:
    parts = {"order": nums} if len(nums) == 4 else {}
    if len(nums) == 4 and sorted(nums) == [1, 2, 3, 4]:
        return Extraction(format_order(nums), PARSED, rule, "", parts)
    return Extraction(None, INVALID, rule, f"{list(nums)} is not a permutation of 1-4", parts)


def _order_from_fragment(frag: str) -> Optional[tuple[int, ...]]:
    frag = frag.strip()
    m = _LIST_BRACKET.search(frag)
    if m:
        return _ints(m.group(1))
    m = _BARE_SEQ.search(frag)
    if m:
        return tuple(int(g) for g in m.groups())
    return None


def _order(t: str, strict: bool) -> Extraction:
    cands: list[tuple[int, str, tuple[int, ...]]] = []
    for end, content in _boxed_spans(t):
        nums = _order_from_fragment(_clean(content))
        cands.append((end, "boxed", nums if nums is not None else ()))
    for m in _ORDER_MARKER.finditer(t):
        tail = t[m.end(): m.end() + 60]
        b = _LIST_BRACKET.match(tail)
        if b:
            cands.append((m.end() + b.end(), "marker", _ints(b.group(1))))
            continue
        s = _BARE_SEQ.match(tail)
        if s:
            cands.append((m.end() + s.end(), "marker", tuple(int(g) for g in s.groups())))
    for m in _PRINT_LIST.finditer(t):
        cands.append((m.end(), "code", _ints(m.group("val"))))
    if cands:
        end, rule, nums = max(cands, key=lambda c: c[0])
        if not nums:
            return Extraction(None, INVALID, rule, "unreadable final answer")
        return _order_result(nums, rule)
    if strict:
        return Extraction(None, INVALID, "none", "unterminated <think> block without a final answer")
    stripped = t.strip().strip(".")
    whole = _LIST_BRACKET.fullmatch(stripped) or _BARE_SEQ.fullmatch(stripped)
    if whole:
        return _order_result(_ints(stripped), "short")
    lines = [ln for ln in t.splitlines() if ln.strip()]
    if lines:
        nums = _order_from_fragment(lines[-1])
        if nums is not None:
            return _order_result(nums, "last_line")
    regions = []
    for rx in _REGION_RX:
        found = rx.findall(t)
        regions.append(int(found[-1]) if found else None)
    if all(r is not None for r in regions):
        return _order_result(tuple(regions), "option_text")
    lists = _order_candidates(t)
    if lists:
        return _order_result(lists[-1][1], "mention")
    seqs = list(_BARE_SEQ.finditer(t))
    if seqs:
        return _order_result(tuple(int(g) for g in seqs[-1].groups()), "mention")
    return Extraction(None, INVALID, "none", "no order list found")


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


# --------------------------------------------------------------------------- public API


def classify_response(text: Any, config: str, options: Optional[Sequence[str]] = None) -> Extraction:
    """Extract and classify the final answer of one raw model response.

    Args:
        text: the raw response (``None`` and non-strings are invalid).
        config: a config name from :data:`jigsaw_puzzles.spec.CONFIGS`.
        options: optional: the item's ``row["options"]``; only used to map option
            *text* (e.g. an Order Restoration list) to its letter.

    Returns:
        An :class:`Extraction`; ``.answer`` is the canonical answer or ``None``.
    """
    spec = _spec(config)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str) or not text.strip():
        return Extraction(None, INVALID, "none", "empty response")
    region, strict, why = _region(text)
    if why:
        return Extraction(None, INVALID, "none", why)
    t = _clean(region)
    if not t.strip():
        return Extraction(None, INVALID, "none", "empty response")
    if spec.kind == CHOICE:
        return _choice(t, strict, spec, options, config)
    if spec.kind == ORDER:
        return _order(t, strict)
    return _anomaly(t, strict)


def extract_answer(text: Any, config: str, options: Optional[Sequence[str]] = None) -> Optional[str]:
    """The final answer in ``row["answer"]`` format, or ``None`` if it cannot be read.

    >>> extract_answer("Let me think... so the answer is (B).", "missing_piece_selection_easy")
    'B'
    >>> extract_answer("<think>maybe [1, 2, 3, 4]</think>\\n[2,3,1,4]", "order_generation")
    '[2, 3, 1, 4]'
    >>> extract_answer("A good guess is that it fits.", "piece_localization_hard") is None
    True
    """
    return classify_response(text, config, options).answer
