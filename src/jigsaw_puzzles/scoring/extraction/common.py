"""What extraction returns, and the text every reading starts from: the region and its cleaning (negation: :mod:`.negation`).

Cleaning keeps every character where it stands (markup becomes white space of the same length), so a position
found by the structure parsers, the answer finders and the rule means the same character everywhere.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
import unicodedata
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional

from ...spec import format_order
from .forms import pattern, sentence_start

PARSED = "parsed"
AMBIGUOUS = "ambiguous"
INVALID = "invalid"

@dataclass(slots=True)
class Mention:
    """A place where the text names an answer (:mod:`.answers`); whether it commits is the rule's question."""
    start: int
    end: int
    answer: Optional[str]  # None: names no answer of the space (why says so)
    form: str = "letter"   # letter, lower, text (an option's words), list, rows, regions, block, pairs
    why: str = ""
    parts: Optional[dict] = None

    @property
    def value(self) -> Optional[str]:
        """What the mention names, inside the answer space or not (an order outside it as its list)."""
        if self.answer is not None:
            return self.answer
        order = (self.parts or {}).get("order")
        return format_order(order) if order else None


@dataclass(slots=True)
class Extraction:
    """What :func:`classify_response` read from one response.

    answer: the canonical answer (comparable with ``row["answer"]``) when ``status == "parsed"``, else ``None``.
    status: ``"parsed"``, ``"ambiguous"`` (the text gives no single answer the reader understands) or ``"invalid"``
        (no answer, or one outside the answer space).
    rule: how the answer was committed to: ``"short"`` (the whole response), ``"form"`` (a known commit form:
        "The answer is B", "Resposta: C", "答案是B"), ``"bare"`` (an answer alone on its line or sentence),
        ``"structure"`` (JSON, a tool call, a Python call, YAML, an XML tag, a table, a verdict list),
        ``"prose"`` (pieces or an anomaly said in words), ``"retraction"`` (what follows a withdrawal), or ``"none"``.
    detail: why the answer was not read (the unknown word or form, or the answers kept open); "" when parsed.
    parts: partial fields for the diagnostic sub-scores, kept even when the answer is not read: anomaly
        ``{"judgment", "position", "type"}``, order ``{"order": (a, b, c, d)}``.
    strict: what the strict reader reads (the exact format, standing alone), else ``None``.
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


def unread(status: str, why: str, parts: Optional[dict] = None, rule: str = "none") -> Extraction:
    return Extraction(None, status, rule, why, dict(parts or {}))


# --------------------------------------------------------------------------------------------------- the region
_THINK_CLOSE = re.compile(r"</think\s*>", re.I)
_THINK_OPEN = re.compile(r"<think\s*>", re.I)
_DIGITS = str.maketrans({**{chr(0x660 + i): str(i) for i in range(10)}, **{chr(0x6f0 + i): str(i) for i in range(10)},
                         "\u060c": ","})
_ANSWER_OPEN = re.compile(r"<(?:answer|final_answer)\s*>", re.I)
_SUPERSCRIPT = re.compile(r"[\u00b9\u00b2\u00b3\u2070-\u2079]+")
#: An end-of-sequence token: what a model emits after it was generated past its end, and is not read.
_EOS = re.compile(r"</s>|<\|endoftext\|>|<\|im_end\|>|<\|eot_id\|>|<\|eom_id\|>|<\|end\|>|<end_of_turn>|<\|end_of_text\|>|<\|end_of_turn\|>")
#: A chat turn's header: only the last assistant turn is the response ("USER: ...\nASSISTANT: C").
_TURN = re.compile(r"(?:^|\n|(?<=\|>))[ \t]*(?:#{1,3}[ \t]*)?(?:assistant|ASSISTANT|Assistant|<\|assistant\|>)[ \t]*:?[ \t]*(?=\n|$)|"
                   r"(?:^|\n|(?<=\|>))[ \t]*(?:\[\d{1,2}:\d{2}(?:[ \t]?[AP]M)?\][ \t]*)?(?:ASSISTANT|Assistant|### Assistant|"
                   r"### Response|GPT4 Correct Assistant|"
                   r"\[ASSISTANT\]|(?i:chatgpt|gemini|claude|copilot|assistant) said)[ \t]*:|(?i:assistant|chatgpt|claude|gemini|"
                   r"copilot)[ \t]+[\u2014\u2013-][ \t]+(?i:today|yesterday) at \d{1,2}:\d{2}(?:[ \t]?(?i:[ap]m))?[ \t]*(?=\n)|"
                   r"<\|im_start\|>assistant|(?:\[gMASK\]\s*<sop>\s*)?<\|assistant\|>|"
                   r"\[/INST\]|<start_of_turn>model|<\|start_header_id\|>assistant<\|end_header_id\|>")
#: A last turn that only returns thanks ("You're welcome! Let me know if you have another puzzle."): no answer in it.
_COURTESY = re.compile(r"[ \t\n]*(?:(?:you're|you are|you’re) (?:very )?welcome|no problem|my pleasure|glad (?:i could|to) help|happy "
                       r"to help|any ?time|sure thing|sure[ \t,!.\u2014\u2013-]*(?:send it (?:over|along)|go ahead)|go ahead[ \t,]+send it(?: over)?)(?:[ \t\n]*[!.,;]?[ \t]*(?:good luck(?: with (?:the|your) puzzles?)?|let me know if "
                       r"you have (?:any )?(?:other|another|more)(?: questions| puzzles?)?|have a (?:nice|great|good) day|happy "
                       r"puzzling|cheers)?[!.]*)*[ \t\n]*\Z", re.I)
_THANKS = re.compile(r"[ \t\n]*(?:(?:ok(?:ay)?|great|cool|perfect|nice|got it|alright)[ \t,!.]*)?(?:thanks?(?: a lot| so much)?|"
                     r"thank you(?: so much)?|thx|ty)?[ \t!.]*(?:(?:and )?(?:the )?next one[ \t?!.]*)?(?:\n[ \t]*)*", re.I)
_TURN_HINT = re.compile(r"assistant|user|human|said:|INST\]|GPT4", re.I)
_TURN_OTHER = re.compile(r"<\|im_start\|>(?:user|system)|(?:^|\n)[ \t]*(?:#{1,3}[ \t]*)?(?:user|human|you said)[ \t]*(?::|\n|$)"
                         r"|\[INST\]|<start_of_turn>user|<\|start_header_id\|>user|<\|user\|>|GPT4 Correct User:"
                         r"|(?:^|\n)[ \t]*\[\d{1,2}:\d{2}(?:[ \t]?[AP]M)?\][ \t]*(?:you|user)[ \t]*:"
                         r"|(?:^|\n)[ \t]*(?:you|user)[ \t]+[\u2014\u2013-][ \t]+(?:today|yesterday) at \d{1,2}:\d{2}", re.I)
_LETTER_EMOJI = {"\U0001f170": "A", "\U0001f171": "B", "\U0001f172": "C", "\U0001f173": "D"}


def region(text: str) -> tuple[str, bool, str]:
    """(the text to read, truncated, why it is empty). After the last ``</think>`` only what follows is read; an
    unclosed ``<think>`` is a truncated trace (only an explicit commitment may answer there)."""
    truncated = False
    if "<" in text:
        close = None
        for close in _THINK_CLOSE.finditer(text):
            pass
        if close is not None:
            inner, text = text[:close.start()], text[close.end():]
            tag = None
            for tag in _ANSWER_OPEN.finditer(inner) if not text.strip() else ():
                pass
            if tag is not None:  # "<think>... <answer>C</answer></think>": the answer given inside the block
                text = inner[tag.start():]
            elif not text.strip():
                return "", False, "nothing after </think>"
        else:
            o = _THINK_OPEN.search(text)
            if o is not None and not text[o.end():].strip() and text[:o.start()].strip():
                text = text[:o.start()]  # "<answer>F</answer>\n<think>": a new trace opened after the answer, cut at once
            elif o is not None:
                text, truncated = text[o.end():], True
        if "</s>" not in text:
            text = re.sub(r"^\s*<s>", "", text)  # a begin-of-sequence token
    if "<" in text or _TURN_HINT.search(text):  # chat turns, in tokens or in plain text ("User: ...\nAssistant: B")
        turns = list(_TURN.finditer(text))
        turn = turns[-1] if turns else None
        user = None
        for user in _TURN_OTHER.finditer(text, turns[-2].end() if len(turns) > 1 else 0, turn.start() if turn else 0):
            pass
        if user is not None and _COURTESY.match(text, turn.end()) and _THANKS.fullmatch(text, user.end(), turn.start()):
            text = text[turns[-2].end() if len(turns) > 1 else 0:user.start()]  # "You said: thanks / ChatGPT said:
            # You're welcome!": the answer is in the turn before the thanks
        elif turn is not None and text[turn.end():].strip():
            before = re.sub(r"(?:" + _EOS.pattern + r")\s*$", "", text[:turn.start()]).rstrip()  # "[4, 3, 2, 1]</s>"
            if before and not _TURN_OTHER.search(before):  # "A<|im_end|><|im_start|>assistant\nB": one turn after
                text = before + "\n" + text[turn.end():]  # another, with no one between: both are read
            else:
                text = text[turn.end():]  # the last assistant turn (a user may have answered back in between)
        other = None
        for other in _TURN_OTHER.finditer(text):
            pass
        if other is not None and text[:other.start()].strip() and not _TURN.search(text, other.end()) and not re.search(
                r"\n[ \t]*[A-Z][\w.-]{0,15}[ \t]*:", text[other.end():]):  # (not "User: ...\nA: Hmm, not sure": a reply)
            text = text[:other.start()]  # the answer, then a user's turn pasted after it ("You said:\nnext one")
        for eos in _EOS.finditer(text):
            if eos.group(0) == "</s>" and "<s>" in text[:eos.start()]:
                continue  # a struck-through span's end, not the end of the sequence
            if text[:eos.start()].strip():
                text = text[:eos.start()]
                break
    if not text.isascii():
        text = _SUPERSCRIPT.sub(lambda m: " " * len(m.group(0)), text)  # footnote marks, before NFKC digits them
        text = text.translate(_DIGITS)  # Arabic-Indic and Persian digits, the Arabic comma: "[٣، ٢، ٤، ١]"
        if "\u3010" in text:  # a list in lenticular brackets: "【2，1，4，3】" (not a citation: "【4:0†source】")
            text = re.sub(r"\u3010([\d\s,\uff0c\u3001]+)\u3011", lambda m: "[" + m.group(1) + "]", text)
        for k, v in _LETTER_EMOJI.items():
            text = text.replace(k, v)
        text = re.sub("([0-9])\ufe0f?\u20e3", r"\1", text) if "\u20e3" in text else text  # keycaps: "2\ufe0f\u20e3" is 2
        text = unicodedata.normalize("NFKC", text)
    return text, truncated, ""


def thought(text: str, tail: int = 0) -> str:
    """What a closed ``<think>`` block holds (its last one), or "" when there is none; ``tail``: only its last
    sentences within that many characters (where its conclusion is)."""
    close = None
    for close in _THINK_CLOSE.finditer(text) if "<" in text else ():
        pass
    if close is None:
        return ""
    opened = None
    for opened in _THINK_OPEN.finditer(text, 0, close.start()):
        pass
    inner = text[opened.end() if opened is not None else 0:close.start()]
    if tail and len(inner) > tail:
        inner = inner[-tail:]
        inner = inner[min((i for i in (inner.find(". "), inner.find("\n")) if i >= 0), default=-1) + 1:]
    return inner


# --------------------------------------------------------------------------------------------------- structure
@dataclass(slots=True)
class Claim:
    start: int
    end: int
    answer: Optional[str]
    why: str = ""
    form: str = "structure"
    parts: Optional[dict] = None


def key(k: Any) -> str:
    """A structure's key, compared case- and separator-blind ("Final Answer" is final_answer)."""
    return re.sub(r"[\s\-]+", "_", str(k).strip().lower())


# --------------------------------------------------------------------------------------------------- cleaning
def _blank(m: re.Match) -> str:
    return " " * len(m.group(0))


def _unknown(m: re.Match) -> str:  # a mark no vocabulary knows: next to an answer, it is never read
    return "\u00a4" * len(m.group(0))


_MARKUP = re.compile(r"^[ \t]*```[\w+\-]*[ \t]*$|\*+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])|`+|\$+|^[ \t]*#{1,6}(?=[ \t])|^[ \t]*>+|[\u200e\u200f\u202a-\u202e"
                     r"\u2066-\u2069\u200b\ufeff]|\\\[|\\\]|\\\(|\\\)", re.M)
_MARKUP_CHAR = re.compile(r"[*_`$#>\\\u200e\u200f\u202a-\u202e\u2066-\u2069\u200b\ufeff]")  # a cheap test first
_FENCED = re.compile(r"```[^\n]*\n.*?(?:```|\Z)", re.S)
_CALL_COMMENT = re.compile(r"^[ \t]*(?:#+|//)[ \t]*[A-Za-z_][\w.]*[ \t]*\([^\n]*\)[ \t;]*$", re.M)
_CODE_COMMENT = re.compile(r"^[ \t]*(?:#|//)[^\n]*$", re.M)
_STRIKE = re.compile(r"~~[^~\n]{1,200}~~")
_LATEX_WRAP = re.compile(r"\\(?:text|textbf|mathrm|mathbf|texttt|textit|operatorname|mathit|emph)\s*\{([^{}]*)\}")
_LATEX_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_LATEX_MISC = re.compile(r"\\\\|\\quad|\\qquad|\\,|\\;|\\!|\\left|\\right(?![a-z])|\\displaystyle|\\(?:begin|end)\{\w+\*?\}"
                         r"(?:\{[lcr|]*\})?|\\hline|&")
_LATEX_ARROW = re.compile(r"\\(?:rightarrow|to|Rightarrow|implies|longrightarrow)(?![A-Za-z])")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_PLAIN_TAG = re.compile(r"</?(?:b|strong|em|i|u|mark|br|p|div|h[1-6]|li|ul|ol|code|pre|details|summary|small|big"
                        r"|blockquote|center|font|tt|hr|table|tr|td|th|tbody|thead|tool_call|tool_calls|function_calls?|function_results|"
                        r"tool_response|note|notes|comment|explanation|reasoning|reason|rationale|analysis|"
                        r"\|python_tag\||\|tool_call_(?:start|end|begin)\||\|im_start\||\|im_end\||\|/?action\||\|/?observation\||s|span|sup|sub|ins)(?:\s+(?![^>]*(?:hidden|display\s*:"
                        r"\s*none|visibility))[^<>]*)?/?>", re.I)
_STRUCK = re.compile(r"<(del|strike|s)>.*?(?:</\1\s*>|\Z)|<(\w+)\b[^>]*(?:hidden|display\s*:\s*none|"
                     r"visibility\s*:\s*hidden)[^>]*>.*?(?:</\2\s*>|\Z)", re.I | re.S)
_FOOTNOTE_MARK = re.compile(r"(?<!\n)(?<!^)(?:\[\^\w{1,3}\]|\[\d{1,2}\]):?(?!\s*[,\d])|\^\[?\d{1,2}\]?|\[(?:source|sources|cite|citation|ref|"
                            r"reference|citations)\b[^\]\n]{0,80}\]|\(\s*(?:cf\.?|see|ref\.?)\s*\[\^?\w{1,3}\]\s*\)|"
                            r"\u3010[^\u3011\n]{0,40}(?:\u2020|source|\d:\d)[^\u3011\n]{0,40}\u3011", re.I)  # 【4:0†source】, not 【D】
_FOOTNOTE_LINE = re.compile(r"^[ \t]*(?:\[\^\w{1,3}\]:?|\[\d{1,2}\]:?|\^?\d{1,2}[.:)]?)[ \t]*(?:https?:\S+|www\.\S+|\S+\.(?:com|org|net|"
                            r"edu|io)\S*)[^\n]*$", re.M | re.I)


#: A step label of an agent's trace ("Step 3 —", "Turn 2:", "Step 4 →"), before a call or an observation.
STEP_LABEL = r"(?i:step|turn)[ \t]*\d{1,2}[ \t]*[:\u2014\u2013.)\u2192-][ \t]*"
#: Lines an agent's harness writes (tool output, speaker tags, model and timing lines): not the model's words.
_SPEAKER = re.compile(r"^[ \t]*\[(?:agent|assistant|ai|bot|model)\][ \t]*|^[ \t]*(?:\[(?:tool|system|user|env|observation)\]|"
                      r"(?i:observation|tool(?: output| result)?|result of tool|env|environment)[ \t]*:)[^\n]*$|"
                      r"^[ \t]*(?i:model[ \t]*:(?![ \t]*(?:[\[({]|(?-i:[A-I])(?![\w-])))|(?:latency|time|tokens|generated in|response time)[ \t]*:)[^\n]*$|"
                      r"^[ \t]*" + STEP_LABEL + r"(?:call[ \t]+)?(?=`?[a-z_][\w.]*\(|(?i:action|thought|observation)\b)", re.M)  # "Step 3 \u2014 submit(...)"


@functools.lru_cache(maxsize=1)
def _echo() -> re.Pattern:
    """The prompts' own sentences (Appendix B and ours), and their worked examples: echoed back, they are not said."""
    from ... import prompts
    out = set()
    for name, v in vars(prompts).items():
        if name.isupper() and isinstance(v, str):
            out.update(m.group(0) for m in re.finditer(r"Example[^\n{]*:\n(?:[^\n{]+\n?){3}", v))
            out.update(p.strip() for p in re.split(r"(?<=[.:?])[ \t]+|\n", v) if len(p.strip()) >= 30 and "{" not in p
                       and "(the sub-image in" not in p)
    from .forms import alternation  # one trie, not sixty alternatives tried at every position
    return re.compile(alternation([" ".join(p.split()) for p in out], whole=False))


def clean(text: str, residue: re.Pattern, offer: Optional[re.Pattern] = None) -> str:
    """``text`` with markup, LaTeX wrappers, HTML, footnotes and chat-UI residue blanked, each character kept where it
    stands; struck-through or hidden text and comments holding words become a mark no vocabulary knows; ``offer``:
    an offer on the answer's line ("C. Would you like me to explain why?"), looked for only where one may stand."""
    t = text.replace("\r", " ").replace("\t", " ")
    if len(t) > 60:  # the prompt echoed back ("Answer only "A" or "B".")
        t = _echo().sub(_blank, t)

    if "%" in t:  # a LaTeX comment line is not said: "% [(4, 0), (3, 90), ...]"
        t = re.sub(r"(?m)^[ \t]*%(?!\d)[^\n]*", _unknown, t)
    if "<" in t:
        if "<!--" in t:
            t = _COMMENT.sub(lambda m: _unknown(m) if re.search(r"[^\W_]", m.group(0)[4:]) else _blank(m), t)
        t = _STRUCK.sub(_blank, t)  # struck through or hidden: not said
        t = _PLAIN_TAG.sub(_blank, t)
    if "\\" in t:
        for _ in range(3):  # nested: \textbf{\text{B}}
            new = _LATEX_WRAP.sub(lambda m: " " * (m.start(1) - m.start()) + m.group(1) + " ", t)
            if new == t:
                break
            t = new
        t = _LATEX_BOX.sub(lambda m: " " * (len(m.group(0)) - 6) + "Final:", t)  # a box is a final answer's form
        t = _LATEX_ARROW.sub(lambda m: "->" + " " * (len(m.group(0)) - 2), t)
        t = _LATEX_MISC.sub(_blank, t)
    if "~~" in t:
        t = _STRIKE.sub(_blank, t)
    if "#" in t or "//" in t:  # a call commented out is not made: "# submit("B")"
        t = _CALL_COMMENT.sub(_blank, t)
    if "```" in t:  # a comment in a code block is not said: "# answer = 'A'"
        t = _FENCED.sub(lambda m: _CODE_COMMENT.sub(_blank, m.group(0)), t)
    if _MARKUP_CHAR.search(t):
        t = _MARKUP.sub(_blank, t)
    if "[" in t or "^" in t or "\u3010" in t:
        t = _FOOTNOTE_LINE.sub(_blank, t)
        t = _FOOTNOTE_MARK.sub(_blank, t)
    if ":" in t or "[" in t or "tep " in t or "urn " in t:
        t = _SPEAKER.sub(_blank, t)
    t = residue.sub(_blank, t)
    loop = _LOOP.match(t)  # a decoding loop says the same again and again, the last copy cut off: said once
    if loop is not None and loop.group(1).startswith(t[loop.end():].strip()):
        t = t[:loop.end(1)] + " " * (len(t) - loop.end(1))
    return offer.sub(_blank, t) if offer is not None and ("?" in t or "if you" in t.lower()) and _OFFER_HINT.search(t) else t


_STEP_CUT = re.compile(r"[ \t*]*(?::|\u2014|\u2013| - )[^.!?\n\u3002]*?(?:[,:;\u2014\u2013-]|(?<![^\W_])(?-i:the|a|an|and|or|of|to|with|"
                       r"in|on|at|for|from|that|which|but|its|their|than|as|by|so|because|while|where|el|la|los|las|y|de|"
                       r"del|que|con|por|para|pero|der|die|das|und|oder|mit|von|zu|den|dem|des|aber|le|les|et|ou|du|avec|"
                       r"pour|mais|os|as|e|da|do|em|com|il|lo|gli|di|che|per|ma))\s*\Z")


def trails_off(t: str, pos: int) -> bool:
    """The answer ending at ``pos`` opens a step ("Now B: its left edge has the same bumper, and the") whose words are
    cut off: what was said of it is not known."""
    return _STEP_CUT.match(t, pos) is not None


_LETTER_END = re.compile(r"(?<![^\W_])(?:[a-z]|ay|bee|cee|dee|sea)\W*\Z", re.I)


def cut_off(raw: str) -> bool:
    """The text is cut off after a commit form, before its answer ("..., so the answer would be"). A letter that is
    also a copula ends nothing ("option E": Romanian "e" is "is"; "option ay": Tagalog "ay")."""
    tail = raw.rstrip(" \t\n*")
    if not (tail[-1:].isalpha() and pattern("unfinished").match(tail[:-200:-1]) and not _LETTER_END.search(tail)):
        return False
    frag = tail[sentence_start(tail, len(tail)):].strip()  # a loop cut off: "The answer is B." 3+ times, then
    return not (len(frag) > 8 and tail.count(frag) > 3 and len(set(re.findall(re.escape(frag) + r"[^.!?\n]*[.!?]", tail))) == 1)


_OFFER_HINT = re.compile(r"me to|me know if|free to ask|anything else|(?:shall|should|can) i |any other|do you want|would you like|wollen sie|möchten sie|willst du", re.I)
#: "[4, 1, 3, 2] [4, 1, 3, 2] [4, 1", "Judgment: B\nError Position: A\n...\nJudgment: B\nError Pos": one text, twice or more.
_LOOP = re.compile(r"\s*(\S.{0,299}?)(?:\s+\1)+", re.S)


# --------------------------------------------------------------------------------------------------- units
#: A sentence or line ends at a line break, at "!", "?", ";", "。", "！", "？", "；", the Devanagari "।", the Arabic-script
#: "۔", "؟", "؛", the Ethiopic "።", the Burmese "။", the Armenian "։", or at "." followed by white space.
BREAK = re.compile(r"\n|[;\u3002\uff01\uff1f\uff1b\u0964\u06d4\u061f\u061b\u1362\u104b\u0589]|(?<!i\.e)(?<!e\.g)(?<!etc)(?<!\bvs)(?<!\bcf)(?<!approx)(?<!\bfig)(?:(?<!\bno)[.!?]|(?<=\bno)\.(?!\s*\d))(?=\s|$)", re.I)


@functools.lru_cache(maxsize=16)
def _break_ends(t: str) -> list[int]:
    """Where each sentence or line of ``t`` ends (every break is one character), found once per text."""
    return [m.end() for m in BREAK.finditer(t)]


def clause_start(t: str, pos: int, lo: int = 0) -> int:
    """Where the sentence or line holding ``t[pos]`` starts (not before ``lo``, nor 400 characters before ``pos``)."""
    floor = max(lo, pos - 400)
    if pos > floor and t[pos - 1] in ".!?" and BREAK.match(t, pos - 1, pos):
        return pos  # a stop right before ``pos`` ends a sentence there, whatever follows it
    ends = _break_ends(t)
    i = bisect.bisect_right(ends, pos)
    return ends[i - 1] if i and ends[i - 1] - 1 >= floor else lo


def units(t: str, pos: int, end: Optional[int] = None):
    """(start, end) of each non-blank sentence or line of ``t[pos:end]``, its closing punctuation included."""
    end = len(t) if end is None else end
    while pos < end:
        m = BREAK.search(t, pos, end)
        stop = end if m is None else m.end()
        if t[pos:stop].strip():
            yield pos, stop
        pos = stop




def parse_expression(src: str):
    """``src`` parsed as one Python expression (an :mod:`ast` node, never run); the model's text may hold "\\R" in a
    string, and a warning about it is no user's business."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(src, mode="eval").body


__all__ = ["Claim", "key", "Extraction", "PARSED", "AMBIGUOUS", "INVALID", "region", "clean", "clause_start", "units", "trails_off",
           "thought", "unread", "parse_expression"]
