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

from typing import Any, Optional, Sequence

from ..spec import CHOICE, ORDER, config_from_id, get as _spec
from .anomaly import _anomaly
from .choice import _choice
from .common import AMBIGUOUS, INVALID, PARSED, Extraction, _clean, _region
from .order import _order

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
    if len(region) > MAX_CHARS:  # bounded work per answer: a final answer is at the end of a response
        region = region[-MAX_CHARS:]
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
