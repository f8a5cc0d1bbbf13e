"""Answer extraction for Jigsaw-Puzzles: raw model text -> the exact-match answer format.

The paper scores every task by exact match against one canonical string (see
the README's row schema): a letter for the multiple-choice tasks, a three-line block
for Anomaly Detection and ``"[2, 3, 1, 4]"`` for Order Generation. Models rarely
answer in exactly that form, so :func:`classify_response` reads the *final*
answer out of whatever they wrote, using the cascade below, and says how sure it
is. Nothing here ever evaluates model text (no ``eval``/``ast.literal_eval``):
lists and letters are read with regular expressions only.

The reading rule (:mod:`.reading`, issue #27) then judges what the cascade found: an answer is read only when the
text says one thing (nothing after the final statement keeps another answer open, a withdrawal being re-read;
letter and option text agree), else it is ambiguous. Last, it fails closed (:mod:`.known`, issue #32): the
statement that carries the answer, and a short remark after it, are read only when every word and symbol in them
is in the published vocabulary (:mod:`.vocabulary`); an unknown word makes the response ambiguous. The strict
reader (:mod:`.strict`) reads only the exact format, the whole response or its last line (``Extraction.strict``).

Cascade (first step that yields something wins)
-----------------------------------------------
0. **Region.** ``None``/empty -> invalid. If the text contains ``</think>`` only
   what follows the last ``</think>`` is read (empty there -> invalid). An
   unterminated ``<think>`` (a truncated trace) is read in *strict* mode: only
   step 1 may answer. If ``<answer>...</answer>`` tags exist, the last one is
   the region. Only the last :data:`MAX_CHARS` characters of the region are read.
   Unicode is NFKC-normalised (full-width letters), Markdown emphasis/backticks
   and ``\\text{}``-style LaTeX wrappers are removed, and every whitespace run
   becomes one space or one line break.
1. **Explicit final answers, last one wins.** Every ``\\boxed{...}``, every
   answer phrase ("answer is B", "Answer: B) Candidate 2", "final answer: (C)",
   "the correct option is D", "I choose B", "it corresponds to A", "Option C is
   correct", "correct: [2, 3, 1, 4]", the anomaly-detection ``Judgment:`` block),
   a per-option verdict list and every ``print("B")``/``print([2, 3, 1, 4])`` in
   code is a candidate; the one that ends last in the text is the answer, so the
   final answer of a reasoning trace beats earlier drafts. A pick among described options ("... -> C",
   "C: the dog <- this one", :mod:`.hedge`) is a candidate too. A hedge is *ambiguous*, never the first or
   last candidate: "Answer: A or B", "C or maybe D", "B. Or possibly D.", "neither A nor B", bare letters on
   several lines, "[1, 3, 2, 4] or [1, 3, 4, 2]", and in the anomaly block "Error Position: C or D" (the whole
   answer). Anomaly position words are read per grid (:mod:`.positions`: "bottom-right" is I on 3x3; "bottom"
   there names no single cell: ambiguous).

   - Answer phrases are **line-bounded**: a phrase never reads across a line break
     to its letter ("Option C: correct\\nOption D: wrong" is no phrase for D). The
     one exception is a phrase ending in ":" at the end of a line whose next line
     is the letter alone ("Final answer:\\n**C**").
   - **Verdict list.** Options each given a verdict ("A: incorrect", "(B) correct",
     "C - yes", "Option D: wrong", "A ✓"; verdicts correct/incorrect, yes/no,
     right/wrong, true/false, ✓/✗): each option's last verdict counts, exactly one
     option judged positive is the answer, none or several -> *ambiguous*.
2. **Short response.** The whole response is an answer in a decorated form:
   ``B``, ``B.``, ``(B)``, ``**B**``, ``[B]``, ``Option B``, ``B) Candidate 2``,
   ``B. Candidate 2 (the third input image)``; a bare list ``2 3 1 4``;
   anomaly answers on one line (``B C A``) or three. (The ``_rot`` configs' oriented orders,
   ``[(2, 90), (3, 0), ...]``, follow the same steps: see :mod:`.oriented`.)
3. **Last line.** The last non-empty line alone is such a short answer (a trace
   that ends with the answer on its own line; not when options are described one
   per line). For orders, the stated answer, a line that is a list alone, wins over
   numbers in the prose after it; else the last list of the last line that is not
   negated, a bracketed list anywhere beating a bare sequence in running text.
4. **Option text.** The response names exactly one option by its text
   ("Candidate 2", "adjacent vertically", an Order Restoration list when the
   item's ``options`` are given, "top-left: 2, top-right: 3, ..." for orders).
5. **Sole mention.** Exactly one distinct option letter occurs as a standalone
   capital letter (order tasks: the last 4-number sequence). A capital ``A``
   followed by a lower-case word ("A good guess is ...") is read as the article
   and never as an answer; if it is the only candidate the response is
   *ambiguous*. Two or more distinct letters -> *ambiguous*.
   **Prose** (:mod:`.prose`; ``_rot`` orders and Anomaly Detection, when no list or answer block is written): the
   pieces region by region ending the response ("Top-left: image 2, rotate 90° clockwise", ...; tried before
   step 3 for ``_rot`` orders), or the anomaly verdict as the last sentence ("The bottom-left piece is rotated.").
6. Otherwise *invalid* ("no answer found").

**Negation.** A letter or list right after a negation ("not B", "isn't B",
"can't be B", "cannot be B", "never B", "no B", "rather than B", "better than B",
"unlike B", "neither A nor B", "not option (B)") or right before a negative verdict
("B is wrong", "B: incorrect", "B is not correct", "B isn't the answer", "[1, 2, 3, 4]
is wrong"; a plural one closes a list: "A, C and D do not fit") is never a candidate
of any step. If exactly one other candidate stays, it is the answer; a response that
only rules options out ("Not B.", "It can't be A.") is *ambiguous* - the remaining
option is never inferred, not even when only one is left.

After extraction the answer is validated against the task's answer space: a
letter outside the options (``E`` for A-D, ``C`` for Piece Localization Easy),
a list that is not a permutation of 1-4, an anomaly answer with
``Judgment: B`` but no position/type (or ``Judgment: A`` *with* one) are
*invalid*. Only ``parsed`` responses have an ``answer``; the others score as
wrong and are counted in ``invalid_rate`` - a default letter is never filled in.

Work per answer is bounded and linear in the length read: at most
:data:`MAX_CHARS` characters, only the ``\\boxed{}`` that ends last is read,
negations are matched in a fixed window next to the candidate, and every pattern
is free of nested repetition. The commonest complete answers (a bare letter or
order, ``\\boxed{B}``, "The answer is B.", a canonical anomaly block) and a trace
whose last line or sentence is its final answer phrase are answered by shortcuts
that return exactly what the full cascade returns (tested side by side).
"""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

from ...spec import (ANOMALY, CHOICE, CONFIGS, ORDER, ORIENTED, anomaly_answers, canonical, config_from_id,
                     get as _spec, is_config)
from .anomaly import _anomaly
from .choice import _choice
from .common import AMBIGUOUS, INVALID, PARSED, Extraction, _clean, _region
from .known import gate
from .vocabulary import WORDS
from .order import _order, _order_result
from .oriented import _oriented
from .reading import apply_rule, withdrawn
from .strict import strict_answer

#: Only the last this many characters of the answer region are read (linear, bounded work per response).
MAX_CHARS = 16_384

__all__ = [
    "Extraction",
    "extract_answer",
    "classify_response",
    "config_from_id",
    "PARSED",
    "AMBIGUOUS",
    "INVALID",
]

# Fast paths for the commonest complete answers, decided before the cascade with the cascade's own result
# (tests/test_extraction.py checks each against the full cascade): a bare letter ("B", "B.", "(B)", "[B]",
# "**B**"), a boxed letter ("\\boxed{B}"), a one-phrase answer ("The answer is B.", "Final answer: (C)"),
# a bare order ("[2, 3, 1, 4]", "2 3 1 4", "2, 3, 1, 4") and each anomaly answer as a block, on one line
# or unlabelled ("B\nC\nA").
_FAST_LETTER = re.compile(  # the letter is the last group: 1-4 short, 6 boxed, 8 marker
    r"[ \n]*(?:\*\*([A-Za-z])\*\*|\(([A-Za-z])\)|\[([A-Za-z])\]|([A-Za-z])\.?"
    r"|(\$?\\boxed\{)([A-Za-z])\}\$?\.?"
    r"|((?:[Tt]he )?(?:[Ff]inal )?[Aa]nswer(?: is)?:? )\(?([A-Z])\)?\.?)[ \n]*"
)
_FAST_RULE = {6: "boxed", 8: "marker"}
_FAST_ORDER = re.compile(
    r"[ \n]*(?:\[([1-9]), ?([1-9]), ?([1-9]), ?([1-9])\]|([1-9])(?:, | )([1-9])(?:, | )([1-9])(?:, | )([1-9]))[ \n]*"
)
_FAST_ORDERS: dict[tuple[str, ...], tuple] = {}
_FAST_ANOMALY: dict[str, Extraction] = {}
#: config -> (kind, option letters, "A/B/C/D"), so the hot path reads no properties.
_INFO = {name: (spec.kind, spec.letters, "/".join(spec.letters)) for name, spec in CONFIGS.items()}


def _fast(text: str, config: str) -> Optional[Extraction]:
    """The cascade's result for a short, complete answer in its commonest forms, else ``None``."""
    if len(text) > 64 or not text.isascii():
        return None
    info = _INFO.get(config)
    if info is None:  # a grid config (order_generation_3x3): the full cascade
        return None
    kind, letters, desc = info
    if kind == CHOICE:
        m = _FAST_LETTER.fullmatch(text)
        if m is None:
            return None
        i = m.lastindex
        letter = m.group(i).upper()
        if letter in letters:
            return Extraction(letter, PARSED, _FAST_RULE.get(i, "short"))
        return Extraction(None, INVALID, _FAST_RULE.get(i, "short"), f"letter {letter!r} is not an option ({desc})")
    if kind == ORDER:
        m = _FAST_ORDER.fullmatch(text)
        if m is None:
            return None
        digits = m.group(1, 2, 3, 4) if m.group(1) else m.group(5, 6, 7, 8)
        known = _FAST_ORDERS.get(digits)  # at most 9**4 entries: what _order_result(nums, "short") says
        if known is None:
            ex = _order_result(tuple(map(int, digits)), "short")
            known = _FAST_ORDERS[digits] = (ex.answer, ex.status, ex.detail, ex.parts["order"])
        return Extraction(known[0], known[1], "short", known[2], {"order": known[3]})
    if kind == ANOMALY and CONFIGS[config].num_options == 4:
        if not _FAST_ANOMALY:  # each answer as a block, on one line, and unlabelled ("B\nC\nA", "B C A", "A")
            for a in anomaly_answers(4):
                bare = "\n".join(line.partition(":")[2].strip() for line in a.split("\n")).strip()
                for form in (a, a.replace("\n", " "), bare, bare.replace("\n", " ")):
                    _FAST_ANOMALY[form] = _anomaly(form, False)
        ex = _FAST_ANOMALY.get(text.strip())
        if ex is not None:
            return Extraction(ex.answer, ex.status, ex.rule, ex.detail, dict(ex.parts))
    return None


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
    if type(text) is str and type(config) is str and config in _INFO:
        spec = CONFIGS[config]
        fast = _fast(text, config)
        if fast is None:
            fast = _cascade(text, spec, config, options)
        fast.strict = strict_answer(text, spec)
        return fast
    spec = _spec(config)
    straight = _straight(config)  # a cut shares its straight config's answers and wording: read as that one
    if straight in _INFO and type(text) is str:
        return classify_response(text, straight, options)
    ex = _cascade(text, spec, straight, options)
    ex.strict = strict_answer(text, spec)
    return ex


_STRAIGHT: dict[str, str] = {}
_CUT = re.compile(r"(.+?)_tabs(?:_own)?(?:_silhouette|_content)?")


def _straight(config: str) -> str:
    """The straight config whose answers a cut (``_tabs``, ``_tabs_own``, ``_tabs_silhouette``, ``_tabs_content``) has:
    ``connection_verification_tabs`` reads worded answers as ``connection_verification`` does."""
    out = _STRAIGHT.get(config)
    if out is None:
        m = _CUT.fullmatch(config)
        out = _STRAIGHT[config] = canonical(m.group(1)) if m is not None and is_config(m.group(1)) else config
    return out


def _cascade(text: Any, spec, config: str, options: Optional[Sequence[str]] = None) -> Extraction:
    """The full cascade (classify_response without its fast paths)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str) or not text or text.isspace():
        return Extraction(None, INVALID, "none", "empty response")
    region, strict, why = _region(text)
    if why:
        return Extraction(None, INVALID, "none", why)
    if len(region) > MAX_CHARS:  # bounded work per answer: a final answer is at the end of a response, before any
        region = region.rstrip()[-MAX_CHARS:]  # trailing white space (trimmed first: "B" + 16,400 spaces is "B")
    if region is not text and not strict and "<" not in region:  # e.g. the "B" after a </think>
        fast = _fast(region, config)
        if fast is not None:
            return fast
    t = _clean(region)
    if not t or t.isspace():
        return Extraction(None, INVALID, "none", "empty response")
    return _read(t, strict, spec, config, options)


def _read(t: str, strict: bool, spec, config: str, options, depth: int = 0) -> Extraction:
    """The cascade's reading of the cleaned text ``t``, judged by the reading rule (:mod:`.reading`)."""
    if spec.kind == CHOICE:
        ex = _choice(t, strict, spec, options, config)
    elif spec.kind == ORDER:
        ex = _order(t, strict, spec.order_length, spec.grid == (2, 2))
    elif spec.kind == ORIENTED:
        ex = _oriented(t, strict, spec.order_length, spec.grid)
    else:
        ex = _anomaly(t, strict, spec.num_options, spec.grid)
    reread = lambda rest, d: (_read(rest.strip(), False, spec, config, options, d) if rest.strip()  # noqa: E731
                              else Extraction(None, INVALID, "none", "nothing after the withdrawal"))
    if ex.status == AMBIGUOUS:  # "A... wait, actually C": what follows the last withdrawal may be clean
        return withdrawn(t, ex, reread, depth)
    if ex.status != PARSED or _plain_end(t, ex, config):
        return ex
    ex = apply_rule(t, ex, spec, config, options, reread, depth)
    if ex.status != PARSED or ex.rule == "retraction":  # a withdrawal's remainder was judged whole by _read
        return ex
    return gate(t, ex, spec, config, options)


def _plain_end(t: str, ex: Extraction, config: str) -> bool:
    """True when ``t`` ends with its answer alone in one of the plain forms ("Final answer: (B)", "The order is
    [2, 3, 1, 4].", a canonical anomaly block) as its last line or sentence (closing remarks of known words aside),
    after a line that is no label or heading: then the reading rule and the known-words rule have nothing to judge
    (nothing after it can name or withdraw an answer; its statement is that line, all of whose words are known) and
    return ``ex`` as they are (tests/test_extraction.py checks it against them)."""
    if not _PLAIN_ENDS or config not in _INFO or ex.rule not in ("marker", "last_line", "short"):
        return False
    kind = _INFO[config][0]
    if kind == ORDER and ex.rule != "marker":  # an order read from prose: the rule also reads what precedes it
        return False
    nl = t.rfind("\n")
    while nl > 0 and _plain_remark(t[nl + 1:]):  # "I am fairly confident.": nothing there to read or judge
        t = t[:nl]
        nl = t.rfind("\n")
    if kind == ANOMALY:
        nl = t.rfind("\nJudgment: ")
        if nl < 0 or t[nl + 1:].rstrip() not in _FAST_ANOMALY:
            return False
    else:
        dot = t.rfind(". ")
        seg = t[max(nl, dot + 1) + 1:]
        if not seg.isascii():
            return False
        if kind == ORDER:
            m = _PLAIN_ORDER.fullmatch(seg)
            if m is None or "[" + ", ".join(m.group(1, 2, 3, 4)) + "]" != ex.answer:
                return False
        else:
            fast = _fast(seg, config)
            if fast is None or fast.answer != ex.answer:
                return False
        if dot > nl:  # the last sentence of its line: no label line before it
            return True
    if nl < 0:
        return False
    prev = t[t.rfind("\n", 0, nl) + 1:nl].rstrip(" \t*#>-")
    return not prev.endswith(":") and (len(prev) > 60 or not _HEADING_WORDS.search(prev))


_PLAIN_ORDER = re.compile(r"(?:(?:[Tt]he |[Mm]y )?(?:[Ff]inal )?(?:[Aa]nswer|[Oo]rder)(?: is)?:? )?"
                          r"\[([1-9]), ([1-9]), ([1-9]), ([1-9])\]\.?")


def _plain_remark(line: str) -> bool:
    """A closing line of known words that can name no answer, cell or type and withdraw nothing ("I am fairly
    confident.", "Hope this helps!")."""
    return len(line) <= 80 and line.isascii() and _REMARK_WORDS.issuperset(_REMARK_TOKEN.findall(line.lower())) \
        and _REMARK_FORM.fullmatch(line) is not None and _LONE_CAPITAL.search(line) is None


_PLAIN_ENDS = True  # tests turn it off to compare
_REMARK_WORDS = (WORDS - {"right", "correct"}) | {".", "!", ","}  # ("right", "correct": option and anomaly words)
_REMARK_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)*|\S")
_REMARK_FORM = re.compile(r"[a-zA-Z' ,.!\t]*")  # no digit, "?", "%" or other symbol
_LONE_CAPITAL = re.compile(r"(?<![A-Za-z])[A-HJ-Z](?![A-Za-z])")  # a letter standing alone, but "I"
_HEADING_WORDS = re.compile(r"(?i:answer|final|solution|result|verdict|conclusion|judge?ment|output|response)")


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
