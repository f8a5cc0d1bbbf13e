"""The reading rule's cues: the marks, words and shapes it recognises around an answer, and the commitment record.

Whole commit forms in every language are data (:mod:`.forms`); what is here is the rule's own English-and-symbol
cues for the scope around an answer (what attaches to it, what rejects or keeps open another one).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Optional

from .common import BREAK, Mention, clause_start
from .forms import alternation, forms, in_note, pattern, sentence_end, sentence_start, table
from .meaning import _ADDS_REASON, _STILL_OPEN, _fit, denial, HAS, _OPEN, _OTHERNESS, _RANKED, ranked_below, _REJECTED

@dataclass(slots=True)
class Commit:
    start: int                 # where the commitment's form (or label line) begins
    pos: int                   # where the answer stands
    end: int                   # where its sentence (without an explanation) ends
    answer: Optional[str]
    why: str = ""              # why the commitment is not understood
    rule: str = "form"
    explain_at: Optional[int] = None
    parts: Optional[dict] = None
    question: bool = False
    note: str = ""             # why the value is outside the answer space


_REMARK = "a remark after the answer that the reader does not know"  # not read, but a commitment against a later one
#: Reasons that bind an answer for what follows: a later "So: A" restates a conditional or rejected A, not frees it.
_BINDING = ("the answer depends", "the answer is introduced as one that is not")
_BULLETS = " \t\n*#>-\u2022\u00b7+0123456789.)([" + "\U0001f534\U0001f7e2\U0001f535\U0001f4cd\U0001f4cc\U0001f504\U0001f539\U0001f538\U0001f449\u27a1\ufe0f\U0001f3af\U0001f4a1\U0001f4dd\U0001f50d"  # decorative bullets (never a mark such as \u274c)
_KNOWN_PUNCT = ".,;:!()[]{}\"'-\u2014\u2013\u3002\uff0c\u3001*\u2705\u2714\u2713\ufe0f\u2611\u0964\u06d4\U0001f9e9\u2b50\u00ab\u00bb\u2039\u203a\u201c\u201d\u201e\u061b\u060c\u00a1"
_DECOR = re.compile(r"[ \t]*(?:(?:[(\[{\"'\u201c\u00ab*#>\u2022\u2705\u2714\u2713\u2611\ufe0f\U0001f449\U0001f9e9\u2b05"
                    r"\U0001f7e2]|>-|>=|\u2192)[ \t]*)*(?:(?:noitpo|rettel|eciohc|etadidnac|rewsna)(?:[ \t]+eht)?[ \t]*"
                    r"(?:[(\[{][ \t]*)*)?", re.I)
_SUBJECT_BEFORE = re.compile(r"[ \t]*(?:yeht|segami owt eht|segami eht|seceip owt eht|>1 egami< dna >2 egami<|"
                             r"2 egami dna 1 egami|segami htob)(?![^\W_])|[ \t]*是?(?:们它|們它|图张两这?|圖張兩這?|域区个两这?|域區個兩這?|块两这?|塊兩這?)"
                             r"|[ \t]*(?:は|が)(?:像画のつ二|つ二)", re.I)


@functools.lru_cache(maxsize=1)
def subject_before() -> re.Pattern:
    """Read right to left from an option's own words: the images they are said of ("they", "the two images", and the
    table's subjects in other languages: "las dos imágenes no son adyacentes")."""
    return re.compile(rf"{_SUBJECT_BEFORE.pattern}|[ \t]*{alternation(forms('subject'), True)}", re.I)
_SEP_BEFORE = re.compile(r"[:=]\s*[(\[\"']?\s*$")
_LABELLED_LINE = re.compile(r"(?m)^[ \t*#>\-\u2022]*(?:(?:option|candidate|choice)[ \t]+|(?:(?:candidate|choice|region|area|mask|masked area)[ \t]*)?"
                            r"\d{0,2}[ \t]*(?=\())?[(\[]?((?-i:[A-Z]))(?:[ \t]*\([^()\n]{1,40}\)|[ \t]*\[[\d, ]+\])?"
                            r"(?:(?<=\])[ \t]*:|[)\].:]|[ \t]+[\u2013\u2014\-])\**[ \t]*(?:\S[^\n]{2,}|\d{1,2}[ \t]?%)$", re.I)  # "- **Candidate 4 (D):** sky", "A: 5%"
_HEAD = re.compile(r"(?:^|(?<=[.;!?\u3002\uff1b\uff01\uff1f]))[ \t*#>\-\u2022]*(?:(?:option|candidate|choice)[ \t]*|\u9009\u9879|"
                   r"\u5019\u9009)?((?-i:[A-Z])|\d{1,2})(?=[ \t*]*(?:[:\uff1a]|[\u2013\u2014-][ \t]))", re.I | re.M)  # "Candidate 1: sand. Candidate 2: ..."
_WORDS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_FILLER_AFTER = re.compile(r"[ \t]*(?:i think|i believe|i guess|probably|i'd say|for sure|then|again|here|overall|"
                           r"in the original(?: full)? image|in the original|in the full image|of <image 1>|in <image 1>|"
                           r"in image 1|of image 1|in the (?:first|large|main|big) image|in the original photo|"
                           r"as (?:my|the) (?:final )?answer|as final|final|finally)(?![^\W_])", re.I)
_CONFIDENCE = re.compile(r"[ \t(\[,;-]*(?:(?:with\s+)?(?:confidence|certainty|probability)\s*(?:level)?\s*[:=]?\s*"
                         r"(?:\d{1,2}\s*/\s*(?:5|10|100)(?!\d)|\d{1,3}(?:\.\d+)?\s*%?|0?\.\d+|high|medium|moderate|very high|low)|(?:about|around|roughly|~|"
                         r"\u2248|maybe|approx\.?|approximately)?\s*\d{1,3}\s*%\s*(?:confident|sure|confidence|certain)?"
                         r"|(?:(?:very\s+)?(?:low|medium|moderate|high|fair|reasonable)\s+confidence)(?:\s*[,;:]?\s*(?:maybe|about|"
                         r"around|roughly|~|\u2248)?\s*\d{1,3}\s*%)?|(?:fairly|pretty|quite|very|reasonably|somewhat|moderately)\s+(?:sure|"
                         r"confident|certain))[ \t)\]]*", re.I)
_NOT_OTHER = re.compile(r"[ \t,;\u060c\uff0c\u3001(\-\u2014]*(?:not|rather than|instead of|over|and not|but not|vs\.?|không phải|nicht|não|"
                        r"no|pas|не|不是|而不是|nie|niet|değil|bukan|ليس|وليس|وليست|ولا|لا|לא|نه|non|sio)[ \t]*(?:option\s+|la\s+|el\s+|a\s+|"
                        r"letter\s+)?[(\[]?(?-i:[A-Z])[)\]]?(?![A-Za-z0-9])[ \t)]*"
                        r"|[ \t,;\u060c\uff0c\u3001(\-\u2014]*[(\[]?(?-i:[A-Z])[)\]]?[ \t]?(?:değil|नहीं|نہیں|نیست|ではなく|じゃなく|가 아니라|이 아니라"
                        r"|không phải)(?![^\W\d_])[ \t)]*", re.I)
_REFERENT = re.compile(r"[\s*\-\u2022>(]*(?:it|this|that|its|it's|this one|this piece|this patch|this candidate|this option|"
                       r"this image|the piece|the patch|the selected \w+|the chosen \w+|this region|this area|this mask|"
                       r"this order|this arrangement|this layout|they|they're|both images|both pieces|the two images|"
                       r"the two pieces|the two regions|the pieces|the images)(?![^\W_])", re.I)
_ANOMALY_WORDS = re.compile(r"(?<![^\W_])(?:rotat\w*|mirror\w*|flip\w*|upside|reversed|backwards|turned|normal|intact|"
                            r"correct(?:ly)?|upright|fine|consistent|natural(?:ly)?|no anomal\w*|nothing)(?![^\W_])", re.I)
_CHOICE_WINDOW = 28
_LINE_POS = re.compile(r"(?<![^\W_])(?:yes|match(?:es)?|fits?|correct|(?<!top-)(?<!top )(?<!upper-)(?<!upper )(?<!bottom-)"
                       r"(?<!bottom )(?<!lower-)(?<!lower )(?<!middle-)(?<!middle )(?<!centre-)(?<!center-)(?<!to the )(?<!on the )"
                       r"right(?![\s-]*(?:side|half|edge|column|corner|of)(?![^\W_]))|lines? up|aligns?|continues|consistent|"
                       r"seamless(?:ly)?|all match|best)(?![^\W_])|\u2713|\u2705|\u2714", re.I)  # not "bottom-right"
_LINE_NEG = re.compile(r"(?<![^\W_])(?:no|not|wrong|too|off|mismatch\w*|ruled out|breaks?|jumps?|swaps?|fails?|cannot|"
                       r"cut|neither|nor|different|incorrect|mirrored|impossible|misaligned|lacks?|missing)(?![^\W_])|n't|"
                       r"\u2717|\u274c|\u2718", re.I)
#: A sentence that describes what the pictures show (a piece, a crop, an image, a region and what is in it).
_CONTENT = re.compile(r"(?<![^\W_])(?:images?|crops?|pieces?|tiles?|patch(?:es)?|candidates?|regions?|quadrants?|"
                      r"sub-?images?|masks?|masked|areas?|edges?|seams?|corners?|halves|half|rows?|columns?|tabs?|blanks?|"
                      r"knobs?|outlines?|gaps?|holes?|sky|skies|horizon|scene|picture|photo|background|lines?|textures?|shadows?)(?![^\W_])", re.I)
_DANGLING = re.compile(r"(?<![^\W_])(?:of|in|for|with|to|and|be|was|than|from|by|at|on|or)\s*$", re.I)
_NEXT_LETTER = re.compile(r"(?<![A-Za-z0-9])[A-Z](?![A-Za-z0-9])|(?i:candidate\s*\d|option\s+[a-z]\b)")
_LEAD_DOUBT = re.compile(r"(?<![^\W_])(?:can't confirm|cannot confirm|can not confirm|not confirmed|unconfirmed|unverified|"
                         r"can't verify|cannot verify|numbered (?:right|from)|counted (?:right|from|column)|right to left|"
                         r"column by column)(?![^\W_])", re.I)
_FIRST_PERSON = re.compile(r"(?<![^\W_])(?<![(\uff08])(?<!tile )(?<!cell )(?<!piece )(?<!position )(?<!square )(?<!region )(?:(?:(?-i:I)|(?-i:i)(?![^\n.!?]*(?-i:[\u00c0-\u024f])))(?!\.[a-z]\.)|i'm|i've|i'd|i'll|my|me|myself|mine)(?![^\W_'])", re.I)
_PLAIN_FIRST_PERSON = re.compile(r"(?:(?:i|my)(?:\s+|(?='))(?:(?:also|first|then|mostly|only|further|additionally)\s+)?(?:'m confident in|am confident in|arrived at|final answer|final choice|reasoning|logic|rationale|got there|think|believe|chose|picked|selected|choose|pick|select|went with|"
                                 r"go with|see|can see|notice|noticed|compared|checked|double-checked|re-checked|rechecked|"
                                 r"verified|confirmed|looked at|matched|answer|choice|pick|determined|worked out|figured out|"
                                 r"(?:'d|'ll|should|would|will|must)\s+"
                                 r"(?:note|mention|add|point out)|"
                                 r"(?:'m|am)\s+not\s+(?:100\s*%|completely|entirely|totally|fully|absolutely)\s+(?:sure|certain)|"
                                 r"(?:could|might|may)\s+be\s+wrong|(?:'m|am)\s+(?:least|less)\s+(?:sure|confident|certain)|runner[- ]?up|second choice|"
                                 r"considered|hesitated\s+over|lingered\s+over|rejected|ruled\s+out|discarded|dismissed|eliminated|"
                                 r"(?:'m|am)\s+(?:only\s+)?(?:fairly|pretty|quite|reasonably|very|moderately|somewhat)\s+(?:confident|sure|certain)|"
                                 r"(?:'m|am)\s+(?:(?:fairly|pretty|quite|very)\s+)?(?:confident|sure|certain)\s+(?:of|about)\s+(?:it|this|that))"
                                 r"|me\s+(?:know\s+if|explain))(?![^\W_])", re.I)  # "Let me know if ...", "Let me explain why ..."
_CJK_OPEN = re.compile(r"也一样|也是一樣|也一樣|同样|同樣|也可以|也可能|也符合|也吻合|其实|其實|もあり得|も同じ|도 가능|도 같")
_REGION_NAME = re.compile(r"(?<![^\W_])(?:top|upper|bottom|lower)[\s-]*(?:left|right)(?![^\W_])", re.I)
_REGION_INDEX = {"top-left": 0, "top-right": 1, "bottom-left": 2, "bottom-right": 3}
@functools.lru_cache(maxsize=1)
def _error_words() -> re.Pattern:
    """Words that say a piece is changed, in any language ("rotated", "gespiegelt", "bị lật gương")."""
    generic = {"turn", "rotate", "change", "flip", "mirror", "rotation", "mirroring", "reflection", "spin", "type",
               "type of change", "kind of change", "change of", "spun"}
    return re.compile(alternation((forms("rotation") | forms("mirroring") | {"upside-down", "reflected"}) - generic),
                      re.I)
_FOOTNOTE_DEF = re.compile(r"\[\^?\w{1,3}\]:?[ \t]")  # a footnote's definition explains what it marks
_NOTE = re.compile(r"(?:note|n\.b\.|nb|p\.s\.|ps|remark|caveat|disclaimer|warning|important|assumption|"
                   r"nota|hinweis|remarque|注意|注|備考|참고)\s*[:\-\u2014]", re.I)
_OPEN_NEAR = re.compile(r"(?<![^\W_])(?:also|too|as well|maybe|perhaps|possibly|could|might|alternatively|either|"
                        r"second|backup|plausible|possible|tempted|torn|equally|likely|just as)(?![^\W_])", re.I)
_CHOICE_CONVENTION = re.compile(r"(?<![^\W_])(?:letters? (?:refer|are|were) (?:swapped|shifted|reversed|to)|labels? "
                                r"(?:refer|are swapped|are reversed)|lettered from|labell?ed from|counting from|relabel\w*|"
                                r"swapped|0-based|zero-based|reversed order|(?:images?|regions?|pieces?|tiles?|crops?|positions?|candidates?|they) "
                                r"(?:are|were|is|was|get) (?:re)?numbered|(?:re)?numbered (?:the|them|each|images|regions|pieces|"
                                r"tiles))(?![^\W_])", re.I)
_JOINED_OTHER = re.compile(r"[\s\u2014\u2013\-,;:(]*(?:and|or|plus|also|&|/)\s+(?:(?:option|candidate|maybe|possibly)\s+)?"
                           r"[(\[]?(?-i:[A-Z])(?![A-Za-z])", re.I)
_RESTATES = re.compile(r"(?<![^\W_])(?:i\.e\.?|ie|that is|namely|ou seja|o sea|cioè|c'est-à-dire|das heißt|d\.\s?h\.|то есть|"
                       r"tức là|yani|yaitu|czyli|dat wil zeggen)(?![^\W_])|->|=>|\u2192|(?<![=!<>])=(?!=)|即|也就是|亦即|つまり", re.I)
_COUNTED = re.compile(r"(?<![^\W_])(?:images?|pieces?|tiles?|crops?|indices|numbers|labels?)\s*$", re.I)
_HEDGED = re.compile(r"(?<![^\W_])(?:maybe|perhaps|possibly|probably|i think|could be|might be)\s*[(\[]?\s*$", re.I)
_JOINS_ANOTHER = re.compile(r"[\s*\-\u2022>]*(?:and|or|plus|&|\+|/|nor)(?![^\W_])", re.I)
_REJECTING = re.compile(r"(?<![^\W_])(?:wrong|incorrect|worst|least likely|least|rejected|excluded|eliminated|bad|"
                        r"weakest|unlikely|not the|not my|not an?)\s+(?:\w+\s+)?(?:answer|option|match|"
                        r"choice|candidate|pick|guess|fit|one|order|ordering|list|arrangement)s?(?![^\W_])|(?<![^\W_])"
                        r"(?:incorrect|wrong|rejected|excluded|least likely[^:\n]{0,24}|(?:second|2nd|third|3rd)[ -](?:choice|best"
                        r"|pick|guess))\s*:", re.I)
_CODE_ECHO = re.compile(r"(?:print|return|submit|display|echo|console\.log)\s*\(?\s*[A-Za-z_]\w*\s*\)?\s*;?", re.I)
_CONNECTOR = re.compile(r"(?<![^\W_])(?:and|but|while|whereas|though|although)(?![^\W_])", re.I)
_PAREN_LETTER = re.compile(r"\s*\(\s*(?:option\s+)?[A-Z]\s*\)")


def judged_fit(t: str, lo: int, hi: int) -> bool:
    """``t[lo:hi]`` judges an option a fit and says nothing against it ("C: roofline matches", not "B: too dark")."""
    return _LINE_POS.search(t, lo, hi) is not None and _LINE_NEG.search(t, lo, hi) is None and \
        pattern("hedge").search(t, lo, hi) is None


# a concession in any language ("though", "aunque", "虽然"); a turn ("but") in English only: a turn opens what the
# thinner vocabularies cannot judge ("B, maar eerlijk gezegd weet ik het niet" disclaims it)
_TURN_WORDS = alternation(forms("concede") | set(table()["but"]["en"]))
_REMARK_START = re.compile(r"\s*(?:\u2014|\u2013|--| - |:(?=\s+\S)|:(?=[\u2e80-\u9fff\uac00-\ud7af]))\s*|"
                           rf"\s*(?:[,\uff0c\u3001]\s*)?{_TURN_WORDS}", re.I)  # (not "\s*,?\s*": quadratic on blanks)


def undescribed(t: str, rm: re.Match, stop: int) -> bool:
    """A remark opened by a concession in another language that says nothing the table knows of the picture ("de\u0219i
    glorp"): English concessions are judged as explanations; the thinner vocabularies need a word of fit or description
    ("aunque la iluminaci\u00f3n no coincide del todo") before what follows is taken for one."""
    turn = CONCEDE_WORD.search(rm.group(0))
    return turn is not None and turn.group(0).lower() not in table()["concede"]["en"] and not any(
        pattern(k).search(t, rm.end(), stop) for k in ("support", "describe"))


#: A remark after the answer that opens by judging it out ("C – no", "B — wrong", "D: unlikely, the sky is off").
_SAID_AGAINST = re.compile(r"[\s*]*(?:(?:no|nope|not|wrong|incorrect|false|unlikely|impossible|implausible|rejected|excluded|"
                           r"eliminated|ruled out|mismatch\w*|bad|poor|weak|doubtful|doesn't|does not|isn't|is not|can't|"
                           r"cannot|won't)(?![^\W_])(?=[\s*]*(?:$|[.,;!?)(\n])|\s+(?:a |an |the |my |this |that |it |quite |"
                           r"really |very )?(?:match|fit|answer|correct|right|it|one|option|choice|candidate|good|likely|possible|"
                           r"plausible|sure)(?![^\W_]))|[\u2717\u2718\u274c\u2716])", re.I)
_NOT_AGAINST = re.compile(r"[\s*]*(?:no (?:doubt|question)|not only|not because|not just|not merely|not (?:\d+ ?%|entirely|completely|fully|totally|quite|"
                          r"very|absolutely|a hundred percent) (?:sure|certain|confident))(?![^\W_])", re.I)


def said_against(t: str, pos: int) -> bool:
    """A remark after the answer at ``pos`` opens by judging it out ("C – no", "B — wrong.", "D: not a match", "C —
    ✗", "C — não."); not one that explains it ("C — no edge continues"), "no doubt", or a withdrawal ("no wait")."""
    if _NOT_AGAINST.match(t, pos) or _at(pattern("withdraw"), t, pos):
        return False
    n = _SAID_AGAINST.match(t, pos) or _at(pattern("negation"), t, pos)
    return n is not None and (n.re is _SAID_AGAINST or re.match(r"[\s*]*(?:$|[.,;!?)\n])", t[n.end():]) is not None)


_SKIP_LINE = re.compile(r"[\s\u00a4\-=_*~+|:.]*|[\s\u2500-\u257f|+\-]*")
_IDIOMS = re.compile(r"(?<![^\W_])if (?:i|we) (?:had|have|must|were) to (?:guess|choose|pick|bet|say)|if forced to "
                     r"(?:choose|pick|guess)|if i'm forced to choose|were (?:i|we) (?:forced )?to (?:choose|pick|guess)|as if|"
                     r"unless i(?:'m| am) (?:mistaken|wrong)|if i (?:had|must) to (?:bet|wager)|(?<!not )(?<=[a-z] )provided(?=[ \t]*(?:[,.;:)]|$))|" +
                     pattern("idiom").pattern, re.I)  # and the table's, in any language ("unless i misread the seams", "si no me equivoco")


def _strip_all(s: str) -> tuple[str, bool]:
    """``s`` without the fillers, links and withdrawals at its end, and whether a link or withdrawal was among them."""
    licensed, rev, pos, rx = False, s[::-1], 0, pattern("strip")
    while True:
        sm = rx.match(rev, pos)
        if sm is None or sm.end() == pos:
            return s[:len(s) - pos], licensed
        licensed = licensed or sm.group(1) is not None
        pos = sm.end()


def _at(rx: re.Pattern, t: str, pos: int):
    m = rx.match(t, pos)
    return m if m is not None and m.end() > pos else None


def _explains(t: str, m: re.Match, inline: bool = False) -> bool:
    """An explanation connective: "as" only before "the/it/its/this ..."; a section word only as a label (or a
    heading on a line of its own); "where"/"while" only inside the answer's sentence."""
    if m.re is _FOOTNOTE_DEF:
        return True
    w = m.group(0).lower()
    nxt = t[m.end():m.end() + 12].lstrip(" \t")
    if w in ("where", "whereas", "while", "which") and not inline:
        return False
    if nxt[:1] == "\n" or not nxt:
        return w not in ("as", "where", "whereas", "while", "given", "also", "first", "second", "third", "finally")
    if w == "as":
        return bool(re.match(r"(?:the|it|its|this|these|those|they|both|each|all|there|every|shown|seen|candidate|"
                             r"image|piece|patch)\b", nxt, re.I))
    if w in ("because", "since", "given that", "due to", "owing to", "this is because", "that's because",
             "that is because", "it's because", "the reason is", "here's why", "here is why", "in that"):
        return True
    if w in ("to verify", "verification", "check", "checking", "verify", "confirmation", "evidence", "analysis",
             "details", "observations", "observation", "thoughts", "thought process", "reasons", "reason", "why",
             "reasoning", "explanation", "rationale", "justification", "supporting evidence", "key evidence",
             "brief explanation", "short explanation", "the reason", "alternative considered",
             "alternatives considered") or w.startswith("why "):  # "Why the others fail:"
        nxt = nxt.lstrip("*_") if w.startswith("why ") else nxt  # "**Why not the others?**"
        if w.startswith("why ") and nxt[:1] in ("?", "\n", "") or w == "why" and re.match(  # "Why A ([3, 2, 4, 1]):"
                r"(?:option |candidate )?[A-H](?:\s*\([^()\n]{0,40}\))?\s*[:?]", t[m.end():m.end() + 60].lstrip(" \t*")):
            return True
        return nxt[:1] in (":", "-", "\u2014") or w.endswith(":") or t[m.end():m.end() + 1] == ":" or \
            (w in ("to verify",) and nxt[:1] == ",")
    return True


def _clause_end(t: str, pos: int) -> int:
    m = BREAK.search(t, pos)
    return len(t) if m is None else m.start()


def _paragraph_end(t: str, pos: int) -> int:
    m = re.compile(r"\n[ \t]*\n").search(t, pos)
    return len(t) if m is None else m.start()


def _withdrawal(t: str, u0: int, u1: int) -> Optional[int]:
    """Where what follows a withdrawal begins, when the sentence starts with one (or has one after a comma)."""
    for m in pattern("withdraw").finditer(t, u0, u1):
        before = t[u0:m.start()]
        if not before.strip(_BULLETS) or before.rstrip().endswith((",", ";", "\u2014", "-", "(", ":", "...", "\u3001", "\uff0c")):
            return m.start()  # (the withdrawal opens what is read again: "wait, 2 and 4 are swapped: [...]")
    return None


_OF_ARTICLE = re.compile(r"of\s+(?:the|a|an|its|this|that|their|his|her|it|them)(?![^\W_])", re.I)


_SIDE = re.compile(r"(?<![^\W_])(?:right(?=[ \t-]+(?:(?:colou?r|palette|shape|scale|size|texture|tone|hue|shade|part|side|"
                   r"edge|half|corner|column|end|hand|border|margin|portion|third|quarter)s?)(?![^\W_]))|only(?=[ \t]*[,;:])|(?:top|upper|"
                   r"bottom|lower|middle|centre|center)[ \t-]*right|to the right)", re.I)  # "show water only, candidate 3 is ..."
_TOO_ADJ = re.compile(r"(?<![^\W_])too(?=[ \t]+(?!(?:but|though|and|or|since|because|as|if|so|then|now|is|was|are|fits?|match\w*|works?|looks?|seems?|could|might|would|may|can|lines?|aligns?|continues?|plausible|possible|likely|viable|valid|good|close)(?![^\W_]))"
                      r"[^\W\d_])", re.I)


def open_said(t: str, u0: int, u1: int, others=()):
    """A phrase that keeps another answer open in ``t[u0:u1]`` ("also fits", "runner-up"), but not a ranking below
    the answer said of one option ("D is the runner-up"), one in a grant the sentence then rules out ("though C is
    close, ... as well, but its edge is off"), nor one that adds a reason and names no other ("the door also matches
    the light"). ``others``: the other options named in it."""
    op = _OPEN.search(_RANKED.sub(lambda m: " " * len(m.group(0)), t[u0:u1]))
    if op is None or any(x.start < u0 + op.start() and _conceded(t, x, u0, u1) for x in others):
        return None
    return op if others or not _ADDS_REASON.match(t, u0 + op.end()) or _OTHERNESS.search(t, u0, u1) else None


def _chosen_near(t: str, x: Mention) -> bool:
    """Another answer kept open or preferred in its clause ("D is also plausible", "maybe D", "B fits better"), not
    one described or rejected ("candidate 3 looks close, but the water is off, so not it")."""
    c0, c1 = clause_start(t, x.start), _clause_end(t, x.end)
    lo, hi = max(c0, x.start - _CHOICE_WINDOW), min(c1, x.end + _CHOICE_WINDOW)
    if ranked_below(t, x):
        return False
    hedged = any(not _OF_ARTICLE.match(t, h.start()) and not t[h.end():h.end() + 1].isalnum()  # "o" of "of" cut off
                 for h in pattern("hedge").finditer(t, lo, hi)) or \
        pattern("note").search(t, c0, x.start) is not None  # "B, although I'm not absolutely sure C"
    near = " " + _SIDE.sub(lambda m: " " * len(m.group(0)), _TOO_ADJ.sub(lambda m: "   ", t[lo:hi]))  # "A is too dark":
    # "too" is no "also" there; "the right part of the pot": "right" is a side, no choice; "water only,": no "only C"
    if hedged or _OPEN_NEAR.search(near) is not None or _STILL_OPEN.search(_TOO_ADJ.sub("   ", t[x.end:c1])):  # or
        # "too" at its clause's end ("A has the right colour palette too"); Dutch "of" is "or", "a piece of" is not
        return not _conceded(t, x, lo, c1)
    if _rejected(t, x) or _conceded(t, x, lo, c1):  # "C was the closest alternative ..., but its awning is not blue"
        return False
    return pattern("choice").search(near) is not None


#: A line that says why an option was not chosen ("Why not D: ...") or heads the lines that do ("Why not the others:").
_WHY_NOT = re.compile(r"[ \t*#>\-\u2022]*(?:why not|why (?:i )?(?:didn't|did not) (?:choose|pick|go with)|why (?:the )?others? "
                      r"(?:fail|are wrong|don't fit|do not fit)|ruled out|rejected|eliminated|not chosen)(?![^\W_])[^\n:?]{0,40}:", re.I)


def why_not(t: str, u0: int) -> bool:
    """``t[u0:]`` is a line that says why an option is not the answer ("Why not D: D was close, but ..."), or a line under
    a heading that does, in its paragraph ("Why not the others:\n- A: the colours match, but ..."): what it says of an
    option rejects it, unless it chooses it again."""
    line0 = t.rfind("\n", 0, u0) + 1
    if _WHY_NOT.match(t, line0):
        return True
    para = t.rfind("\n\n", 0, line0) + 2 if "\n\n" in t[:line0] else 0
    head = t[para:t.find("\n", para) if t.find("\n", para) >= 0 else len(t)]
    return para < line0 and bool(_WHY_NOT.fullmatch(head.rstrip(" \t*")))


_ALSO = re.compile(r"(?<![^\W_])(?:also|too|as well|también|também|auch|aussi|anche|тоже|также|ook|też|juga)(?![^\W_])", re.I)
#: "though" set off by commas turns to another answer ("Image 2 has the sun, though, and ..."); "although D fits" concedes.
_THOUGH = re.compile(r",[ \t]*though[ \t]*[,.:;\u2014\u2013]", re.I)


#: A word that says a piece differs ("the brick colour is different", "другой цвет"): said of the answer's piece, beside
#: no other option and no word of the others, it may say the answer does not fit.
DIFFERENT = re.compile(r"(?<![^\W_])(?:different|differs?|mismatch\w*|otro|otra|distint[oa]|anders|andere[nrs]?|autre|"
                       r"diff[ée]rente?s?|другой|другая|другого|другие|отличается|diferente|diverso|diversa|farkl[ıi]|"
                       r"berbeda|kh[áa]c)(?![^\W_])|不同|違う|異なる|다른", re.I)
OTHERS = re.compile(r"(?<![^\W_])(?:others?|rest|remaining|unlike|whereas|while|than|from|de|von|от|que|[1-9])(?![^\W_])", re.I)


_NOT_JOKING = re.compile(r"(?<![^\W_])(?:no joke|(?:and no, )?(?:i'm |i am )?not (?:joking|kidding)(?: this time)?|no kidding)"
                         r"(?![^\W_])", re.I)


def earnest(t: str, u0: int, u1: int) -> str:
    """``t`` with "no joke", "I'm not joking this time" in ``t[u0:u1]`` blanked: said to mean the answer, no doubt."""
    if _NOT_JOKING.search(t, u0, u1) is None:
        return t
    return t[:u0] + _NOT_JOKING.sub(lambda m: " " * len(m.group(0)), t[u0:u1]) + t[u1:]


def turned(t: str, lo: int, hi: int, later: str = "", others=()) -> bool:
    """A withdrawal or a turn ("but", "looking again", ", though,") in ``t[lo:hi]``: a later answer replaces one before;
    not "B, but D." (nothing said on the way); a note after it is no clean turn; nor a turn in a sentence that names
    the ``later`` answer, or joins what it says of another option (``others``: where they are named) ("D is the other
    area with a notch, but it faces down": said against D; "B\n\nCandidate 1 has the colours but not the cable")."""
    def against_later(m) -> bool:
        s0 = sentence_start(t, m.start(), lo)
        return m.re is not _THOUGH and any(s0 <= o < m.start() for o in others) or bool(later) and re.search(
            rf"(?<![^\W_]){re.escape(later)}(?![^\W_])", t[s0:m.start()]) is not None
    return pattern("withdraw").search(t, lo, hi) is not None or (not pattern("note").search(t, lo, hi) and any(
        re.search(r"[^\W_]", t[m.end():hi]) and not against_later(m) for p in (pattern("contrast"), _THOUGH)
        for m in p.finditer(t, lo, hi)))


_BUT = re.compile(alternation(forms("concede") | forms("but")), re.I)
_BUT_REJECTS = re.compile(r"[^\n;.]*?(?:(?<![^\W_])(?:not|no|never|nothing|impossible|fails?|breaks?|shift\w*|jumps?|wrong|different|worse|off|mismatch\w*|lacks?|too|"
                          r"otro|otra|outro|outra|anders|andere\w*|autre|другой|другая|другого|abruptly|thicker|thinner|"
                          r"darker|lighter|brighter|wider|narrower|smaller|larger|mirrored|flipped|reversed|upside)(?![^\W_])|n't)", re.I)


def _conceded(t: str, x: Mention, lo: int, c1: int) -> bool:
    """Another option granted a shared feature, then rejected in its sentence: "B also has sky, but its clouds stop
    abruptly", "D has the right colours too, but its knob is on the wrong side", "C was the closest alternative ..., but
    its awning is not blue". A hedge before the "but", or a hedge, doubt or choice after it ("A fits too, but I'm not
    sure"), keeps it open."""
    c1 = next((i for i in range(x.end, min(len(t), x.end + 240)) if t[i] in ".;!?\n"), min(len(t), x.end + 240))
    but = _BUT.search(t, x.end, c1)  # in its sentence: "C was the closest alternative because ..., but ... not ..."
    if but is None or _BUT_REJECTS.match(t, but.end()) is None:
        return False
    granted = _ALSO.sub(" ", t[lo:but.start()])
    return pattern("hedge").search(granted) is None and not any(pattern(k).search(t, but.end(), c1) for k in ("hedge", "doubt", "choice"))


CONCEDE_WORD = re.compile(alternation(forms("concede")), re.I)
_CONCEDE = re.compile(CONCEDE_WORD.pattern + r"[^.;\n]*$", re.I)


_CONCEDE_BARE = re.compile(_CONCEDE.pattern.replace("[^.;\\n]*$", r"[\s*(\"']*$"), re.I)
_SAID_NOTHING = re.compile(r"[\s*\"')\]]*(?:[.!;,\n]|$)")


def denied_after(t: str, x: Mention) -> bool:
    """The answer named again in an explanation with a negation later in its clause that rules nothing else out ("B.
    Allerdings passt B an der Kante überhaupt nicht.", "但是B的纹理方向完全不对"); "B, not C" rules C out."""
    hi = min(_clause_end(t, x.end), x.end + 40)
    neg = next((n for n in pattern("negation").finditer(t, x.end, hi) if len(n.group(0)) >= 4 or n.group(0).lower() ==
                "not" or not re.match(r"[A-Za-z\u00c0-\u024f]", n.group(0))), None)  # not "mai", "pas"
    return x.form == "letter" and neg is not None and not _NOT_AGAINST.match(t, neg.start()) and not re.search(
        r"(?<![^\W_])[A-Z](?![^\W_])", t[x.end:neg.start()]) and not re.match(r"[\s,(]*(?:option\s+|candidate\s+)?[(\[]?(?-i:[A-Z])(?![^\W_])", t[neg.end():hi]) \
        and not _OF_ARTICLE.match(t, neg.start()) and re.search(r"(?<![^\W_])(?:others?|rest|all|none)(?![^\W_])", t[x.end:hi],
                                                                 re.I) is None


def conceded_open(t: str, x: Mention) -> bool:
    """Another answer said to fit in a concession and not ruled out in its sentence: "C, although D fits", "aunque D
    encaja" keep D open; "although D is close, its sky is off", "although C has similar foliage" do not."""
    if _CONCEDE_BARE.search(t, max(0, x.start - 40), x.start) and _SAID_NOTHING.match(t, x.end):
        return True  # "B, though D.": what is conceded of D is left unsaid
    c1 = _clause_end(t, x.end)
    fit = pattern("support").search(t, x.end, c1)  # a word of fit, not of content ("contains", "muestra")
    return fit is not None and not HAS.match(fit.group(0)) and _CONCEDE.search(t, max(0, x.start - 100), x.start) is not \
        None and not _rejected(t, x) and _BUT_REJECTS.match(t[:c1], x.end) is None


def _rejected(t: str, x: Mention, later: tuple = ()) -> bool:
    """What is said of another answer rules it out ("1 2 4 3 would break the seam", "C is too dark") or ranks it
    below the answer ("D is the runner-up"), or its sentence does so when it names it again (``later``: "Mask A covers
    the shore, so A is ruled out")."""
    end = sentence_end(t, x.end) if later else 0
    if any(y.value == x.value and x.end < y.start < end and _rejected(t, y) for y in later):
        return True
    c1 = _clause_end(t, x.end)
    if ranked_below(t, x):
        return True
    lo = max(clause_start(t, x.start), x.start - _CHOICE_WINDOW)
    nxt = _NEXT_LETTER.search(t, x.end, c1)  # what is said of it: up to the next answer named in its clause
    hi = c1 if nxt and _AND.fullmatch(t, x.end, nxt.start()) else nxt.start() if nxt else c1  # "A y C no encajan"
    if any(not (_NOT_AGAINST.match(t, r.start()) or in_note(t, r.start()))  # "not 100% sure D" rejects no D
           for r in (*_REJECTED.finditer(t, x.end, hi), *_REJECTED.finditer(t, lo, x.start))):
        return True
    neg = denial(t, x.end, hi)  # a negation of fit in any language: "A passt nicht", "A和C都不匹配"
    return neg is not None and (_fit().search(t, neg.end(), min(hi, neg.end() + 24)) or
                                _fit().search(t, max(x.end, neg.start() - 24), neg.start())) is not None


#: "and" between two options in the table's spaced languages: a list said of both ("A y C no encajan"; and in scope)
AND_WORDS = "and|и|і|y|e|und|et|và|dan|ve|i|en|och|și|و"
_AND = re.compile(rf"\s*(?:,|&|/|(?<![^\W_])(?:{AND_WORDS}|a|και|at|na|और)(?![^\W_])|和|与|跟|と|[와과]|ו-?)\s*", re.I)


#: A consequence drawn after the answer, in its sentence, explains it (a restating link, "i.e. C", does not).
_THEREFORE = re.compile(r"(?:so|therefore|thus|hence|which is why|that's why|consequently|as a result|and so|"
                        r"and therefore|and thus|所以|因此|donc|daher|deshalb|por eso|por isso|поэтому)(?![^\W_])", re.I)
#: What a note after an order may change: how it is numbered or read (then it must be in known words).
_NUMBERING = re.compile(r"(?<![^\W_])(?:numbers?|numbered|numbering|index\w*|positions?|goes|go|placed?|read|reading|"
                        r"columns?|rows?|order\w*|sequence|left|right|top|bottom|clockwise|counter\w*|flipped|reversed|"
                        r"inverse|permutation|mapping|maps?|refers?|means?|zero|based|first|last)(?![^\W_])", re.I)
#: Labels that also name a place in the puzzle: alone before a letter ("Now mask D.", "Region C is sky") they commit
#: to nothing; with a separator or a copula they do ("Region: C", "The masked area is C").
_PLACE_LABEL = re.compile(r"[ \t*(\[\"']*(?:ksam|noiger|aera|noitacol|noitisop|noitcerid|aera deksam|ksam eht|noiger eht|"
                          r"aera eht|noitacol eht|noitisop eht|noitcerid eht|aera deksam eht)(?![^\W_])", re.I)
_OWN_LINE = re.compile(r"[ \t.!*)\]]*(?:\n|\Z)")
_OR_NEXT = re.compile(r"[ \t)\]]*(?:(?:or|and/or|vs\.?|versus)[ \t]+|/[ \t]*)[\w(\[<]", re.I)
_CLOSED_END = re.compile(r"[ \t]*[.!][\s.!]*\Z")  # "i choose a." ends the text: no article, a letter




#: Where a Piece Localization mask lies, said beside its letter ("C, the bottom left", "B (the lower one)", "area B, in
#: the bottom-left of the photo"): a description of the answer there, never another one (its answers are letters).
PL_PLACE = re.compile(r"[ \t]*(?:in |at |on |near )?(?:the )?(?:very )?(?:(?:top|upper|bottom|lower|middle|centre|center|left|right"
                      r"|central)(?:[ \t-]+(?:left|right|middle|centre|center|half|corner|side|part|edge|area|one|region|quadrant"
                      r"|mask|hole))*)(?:[ \t]+(?:of|in)[ \t]+(?:the[ \t]+)?(?:photo|image|picture|original|frame|scene|main image))?"
                      r"(?![^\W_])|[ \t]*(?:the )?one (?:over|near|by|next to|beside|above|below|under|on|in|at|with) (?:the )?"
                      r"[^\W\d_]+(?: [^\W\d_]+)?(?=[ \t]*[).,;]|$)", re.I)
