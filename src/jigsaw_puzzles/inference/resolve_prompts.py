"""What ``eval --restate`` and ``eval --judge`` send about an unread output, and how each reply is read.

Both prompts are published (docs/evaluation.md quotes them; a test checks the quote is this text) and versioned
(:data:`RESTATE_VERSION`, :data:`JUDGE_VERSION`, recorded with every resolution): a changed wording is a new
version, never an accident.

* **Restate** (two-stage answer extraction, Kojima et al. 2022): one more user turn in the output's own
  conversation, :data:`RESTATE_PROMPT`. The restatement is read by the **strict** reader alone
  (``Extraction.strict``: the exact answer standing alone, or as the last line): a restatement in any other form
  is no answer.
* **Judge**: a text-only model gets the output, the task's answer format and options, :data:`JUDGE_PROMPT`, and
  must reply with the span of the output it read the answer from, between ``<quote>`` and ``</quote>``, and the
  answer after it. :func:`read_judge_reply` accepts the reading only when the span occurs verbatim in the output,
  the span itself reads as that answer (the reader, or the strict reader, on the span alone), and the answer is
  the strict reading of what follows the quote (an answer outside the options is none). Anything else is refused,
  with its reason; the judge is never believed on its word.

Nothing here runs a model: :mod:`.resolve` sends the prompts, :mod:`.resolutions` reads the replies back (again, for
``report`` and ``verify``) with these functions.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

from ..scoring.extraction import PARSED, classify_response
from ..spec import CHOICE, ORDER, ORIENTED, LETTERS, get as get_spec

RESTATE_VERSION = 1
JUDGE_VERSION = 1

#: The restate turn; ``{format}`` is :func:`answer_format` of the item's config.
RESTATE_PROMPT = "State only your final answer, in the format {format}, without reconsidering."

#: The judge's prompt (one user turn, no image); its fields are filled by :func:`judge_prompt`.
JUDGE_PROMPT = (
    "You are reading another model's response to a visual puzzle. Report the final answer that the response "
    "gives. Do not solve the puzzle yourself and do not judge whether the answer is right.\n"
    "\n"
    "An answer to this puzzle is {format}.{options}\n"
    "\n"
    "The response, between the two lines of ten dashes:\n"
    "----------\n"
    "{output}\n"
    "----------\n"
    "\n"
    "Reply in exactly this form, and write nothing else:\n"
    "<quote>WORDS</quote>\n"
    "ANSWER\n"
    "WORDS are the words of the response that state its final answer, copied exactly, character for character. "
    "ANSWER is that answer, written {written}, after the quote. If the response gives no single final answer "
    "(none at all, or several left open), reply with exactly:\n"
    "<quote></quote>\n"
    "NONE"
)
NO_ANSWER = "NONE"
_QUOTE = re.compile(r"<quote>(.*?)</quote>", re.S)


def answer_format(config: str) -> str:
    """The task's exact answer format in words, as the restate turn and the judge's prompt say it."""
    spec = get_spec(config)
    if spec.kind == CHOICE:
        letters = list(spec.letters)
        return f"the question asks for (one letter: {', '.join(letters[:-1])} or {letters[-1]})"
    if spec.kind == ORDER:
        n = spec.order_length
        example = "[2, 3, 1, 4]" if n == 4 else "[" + ", ".join(map(str, [2, 1, *range(3, n + 1)])) + "]"
        return f"the question asks for (a Python-style list of {n} integers, like {example})"
    if spec.kind == ORIENTED:
        return (f"the question asks for (a Python-style list of {spec.order_length} (image, rotation) pairs, like "
                "[(2, 90), (1, 0), ...])")
    cells = LETTERS[:spec.num_options]
    return (f"the question asks for (exactly three lines: \"Judgment: A\" or \"Judgment: B\"; \"Error Position:\" "
            f"then one of {'/'.join(cells)}, left blank when the judgment is A; \"Error Type:\" then A (rotation) "
            "or B (mirroring), left blank when the judgment is A)")


def restate_prompt(config: str) -> str:
    return RESTATE_PROMPT.format(format=answer_format(config))


def _options_text(config: str, options: Optional[Sequence[str]]) -> str:
    spec = get_spec(config)
    if spec.kind != CHOICE:
        return ""
    if options and list(options) != list(spec.letters)[:len(options)]:  # option texts, not the letters themselves
        return "\nThe options:\n" + "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(options))
    return f"\nThe options are the letters {', '.join(spec.letters)}."


def judge_prompt(output: str, config: str, options: Optional[Sequence[str]] = None) -> str:
    """The judge's prompt for one output (:data:`JUDGE_PROMPT` filled in)."""
    fmt = answer_format(config).replace("the question asks for (", "", 1)[:-1]  # the words inside the brackets
    written = "as the letter alone" if get_spec(config).kind == CHOICE else "in that format"
    return JUDGE_PROMPT.format(format=fmt, options=_options_text(config, options), output=output, written=written)


def read_restatement(text, config: str, options: Optional[Sequence[str]] = None) -> tuple[str, Optional[str], str]:
    """``(status, answer, reason)`` of a restatement: ``("read", answer, "")`` when the strict reader reads it,
    else ``("refused", None, why)``."""
    strict = classify_response(text if isinstance(text, str) else None, config, options).strict
    if strict is None:
        return "refused", None, "the strict reader reads no answer in the restatement (only the exact format counts)"
    return "read", strict, ""


def read_judge_reply(reply, output, config: str, options: Optional[Sequence[str]] = None
                     ) -> tuple[str, Optional[str], Optional[str], str]:
    """``(status, answer, span, reason)`` of a judge's reply about ``output``: ``"read"`` (the answer, and the span
    it was read from), ``"no_answer"`` (the judge says the output gives none) or ``"refused"`` (why)."""
    if not isinstance(reply, str) or not isinstance(output, str):
        return "refused", None, None, "no reply"
    if "</think>" in reply:  # a reasoning judge: its reply follows its trace
        reply = reply[reply.rindex("</think>") + len("</think>"):]
    quotes = _QUOTE.findall(reply)
    if len(quotes) != 1:
        return "refused", None, None, ("the reply holds no <quote>...</quote>" if not quotes else
                                       f"the reply holds {len(quotes)} quotes, not one")
    span = quotes[0].strip()
    rest = reply[reply.index("</quote>") + len("</quote>"):].strip()
    if rest == NO_ANSWER:
        if span:
            return "refused", None, span, "the reply quotes words and says NONE"
        return "no_answer", None, None, ""
    strict = classify_response(rest, config, options).strict
    if strict is None:
        return "refused", None, span or None, (f"the reply's answer {rest[:80]!r} is not an answer of this task in its "
                                               "exact format (outside the options, or not the format)")
    if not span:
        return "refused", None, None, "the reply quotes no words of the output"
    if span not in output:
        return "refused", None, span, "the quoted words do not occur verbatim in the output"
    said = classify_response(span, config, options)
    if (said.status == PARSED and said.answer == strict) or said.strict == strict:
        return "read", strict, span, ""
    named = said.answer if said.status == PARSED else said.status
    return "refused", None, span, f"the quoted words do not name the answer {strict!r} (read alone they give {named})"
