"""Answer extraction for Jigsaw-Puzzles: raw model text -> the exact-match answer, or a reason it was not read.

The paper scores every task by exact match against one canonical string: a letter for the multiple-choice tasks,
the three-line block for Anomaly Detection, ``"[2, 3, 1, 4]"`` for Order Generation. :func:`classify_response`
reads the answer a careful person reads, in any form and language, and fails closed on whatever can change it.
How, top to bottom, is :mod:`.rule`; what it knows of wording is the data table ``forms.tsv`` (:mod:`.forms`);
structured answers (JSON, tool calls, YAML, tags, tables) are read by parsers (:mod:`.structure`), never executed;
:mod:`.answers` finds where an answer is named; :mod:`.strict` is the second, exact reader.

- ``parsed``: one answer, read; ``ambiguous``: the text names answers but does not commit to one the reader
  understands (the reason is in ``detail``); ``invalid``: no answer, or one outside the answer space.
- Only ``parsed`` responses have an ``answer``; the others score as wrong and are counted in ``invalid_rate``.
  A default letter is never filled in, and nothing is ever guessed.
- Input that is not text (``None``, bytes, numbers) is invalid: one rule for the metric, the rewards and verl.
- Work per answer is bounded: only the last :data:`~.rule.MAX_CHARS` characters are read.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

from ...spec import CONFIGS, canonical, config_from_id, get as _spec, is_config
from .common import AMBIGUOUS, INVALID, PARSED, Extraction, unread
from .rule import MAX_CHARS, read
from .strict import strict_answer

__all__ = ["Extraction", "extract_answer", "classify_response", "config_from_id", "PARSED", "AMBIGUOUS", "INVALID",
           "MAX_CHARS"]

_MEMO: dict = {}  # (short text, config) -> its reading: a pure function, and short answers repeat across a run
_MEMO_MAX, _SHORT = 65_536, 96


def classify_response(text: Any, config: str, options: Optional[Sequence[str]] = None) -> Extraction:
    """Read and classify the final answer of one raw model response.

    Args:
        text: the raw response (anything but ``str`` is invalid).
        config: a config name from :data:`jigsaw_puzzles.spec.CONFIGS` (a grid, cut or rotated one too).
        options: the item's ``row["options"]``: maps an option's own words (an Order Restoration list) to its letter.

    Returns:
        An :class:`Extraction`; ``.answer`` is the canonical answer or ``None``, ``.detail`` says why not.
    """
    key = None
    if type(text) is str and len(text) <= _SHORT and not options:
        key = (text, config)
        hit = _MEMO.get(key)
        if hit is not None:
            return Extraction(hit.answer, hit.status, hit.rule, hit.detail, dict(hit.parts), hit.strict)
    spec = CONFIGS.get(config) if type(config) is str else None
    if spec is None:
        spec = _spec(config)
        straight = _straight(config)  # a cut shares its straight config's answers and wording
        if straight != config:
            return classify_response(text, straight, options)
    if type(text) is not str:
        ex = unread(INVALID, f"not text ({type(text).__name__})" if text is not None else "no response")
    else:
        ex = read(text, spec, config, list(options) if options else None)
        # exact, alone, and where the rest of the text does not say otherwise ("Image 2 is top-left.\n\n[3, 2, 1, 4]")
        strict = strict_answer(text, spec)
        ex.strict = strict if ex.status == PARSED and strict == ex.answer else None
    if key is not None:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = ex
        return Extraction(ex.answer, ex.status, ex.rule, ex.detail, dict(ex.parts), ex.strict)
    return ex


_STRAIGHT: dict[str, str] = {}
_CUT = re.compile(r"(.+?)_tabs(?:_own)?(?:_silhouette|_content)?")


def _straight(config: str) -> str:
    """The straight config whose answers a cut (``_tabs``, ``_tabs_own``, ``_tabs_silhouette``, ``_tabs_content``)
    has: ``connection_verification_tabs`` reads worded answers as ``connection_verification`` does."""
    out = _STRAIGHT.get(config)
    if out is None:
        m = _CUT.fullmatch(config)
        out = _STRAIGHT[config] = canonical(m.group(1)) if m is not None and is_config(m.group(1)) else config
    return out


def extract_answer(text: Any, config: str, options: Optional[Sequence[str]] = None) -> Optional[str]:
    """The final answer in ``row["answer"]`` format, or ``None`` if it cannot be read.

    >>> extract_answer("Looking at the edges, the answer is (B).", "missing_piece_selection_easy")
    'B'
    >>> extract_answer("<think>maybe [1, 2, 3, 4]</think>\\n[2,3,1,4]", "order_generation")
    '[2, 3, 1, 4]'
    >>> extract_answer("Resposta: C", "piece_localization_hard")
    'C'
    >>> extract_answer("The answer is not\\nB", "piece_localization_hard") is None
    True
    """
    return classify_response(text, config, options).answer
