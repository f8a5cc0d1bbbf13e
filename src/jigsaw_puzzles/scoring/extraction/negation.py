"""When an answer is ruled out where it stands: a negation right before it, or a negative verdict right after it.

An answer is *ruled out* when a negation stands right before it ("not B", "isn't B", "rather than B", "no B",
"neither A nor B") or a negative verdict right after it ("B is wrong", "B: incorrect", "[1, 2, 3, 4] is not
correct", "B \u274c"; a plural one closes a list: "A, C and D do not fit"), in the languages that put it there too
("B değil", "Aじゃなくて"). Both checks read a bounded window.
"""

from __future__ import annotations

import re
from typing import Optional

_NEG_WORDS = ["not", "never", "no", "cannot", "can not", "rather than", "instead of", "eliminate", "eliminating",
              "rule out", "ruling out", "ruled out", "neither", "nor", "than", "unlike", "anything but", "all but",
              "except", "except for", "excluding", "exclude", "hardly", "barely", "tried", "first tried", "reject",
              "rejected", "rejecting", "discard", "discarded", "drop", "dropped", "eliminated", "against", "over",
              "not even", "nicht", "não", "pas", "не", "不是", "非", "ليست", "ليس", "niet", "nie", "không phải", "ไม่ใช่",
              "nem", "no es", "no es la", "no es el", "não é", "não é a", "n'est pas",
              "ce n'est pas", "ist nicht", "es ist nicht", "non è", "non è la", "het is niet", "это не", "bukan", "retract", "retracting",
              "retracted", "withdraw", "withdrawing", "disregard", "ignore", "scratch", "discard", "strike", "לא", "نه", "ولا",
              "وليس", "وليست", "而不是", "并非", "並非", "không phải là", "non", "kein", "keine", "nicht die", "ne"]
def _CJK(w: str) -> bool:  # written without spaces: a negation there is a word wherever it stands ("答案不是C")
    return bool(re.match(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", w[0]))


_NEG_BEFORE_REV = re.compile(
    r"!|[-~\u2212](?![A-Za-z0-9\u0590-\u05ff])|[\s(\[\"'\u00a4]*(?::?(?:(?:noitpo|eciohc|etadidnac|rettel|rewsna|redro|tsil|aera|noiger)(?: eht)? |eht |a )?"
    r"(?:(?:eb|esoohc|kcip|tceles|yas|htiw og|si) )?(?:(?:" + "|".join(re.escape(w[::-1]) for w in sorted(_NEG_WORDS, key=len, reverse=True) if not _CJK(w)) +
    r")(?!\w)|" + "|".join(re.escape(w[::-1]) for w in sorted(_NEG_WORDS, key=len, reverse=True) if _CJK(w)) + r")|\ufe0f?[\u274c\u2717\u2718\u2716\u00ac\u2260\U0001f6ab\u26d4]|=!|t'n)", re.I)
_NEG_WORD = (r"(?:wrong|incorrect|false|impossible|ruled out|eliminated|excluded|unlikely|least likely|doubtful|out"
             r"|not (?:correct|right|it|possible|likely|a (?:match|fit)|the (?:answer|correct|right|one|solution)\w*))")
_NEG_AFTER = re.compile(
    r"[)\]\"']?(?: ?(?:[:=]|->|-+) ?(?:wrong|incorrect|false|no|not correct|not right|ruled out|eliminated|excluded|nope)"
    r"| ?(?:(?:[:=]|->|-+) ?)?[\u2717\u2718\u274c\u2716]| ?\((?:wrong|incorrect|unlikely|doubtful|no|not it|unsure|\?|x)\)"
    r"| (?:is|was|'s|seems|looks|appears|would be|must be|should be|will be|can be)"
    r" (?:(?:definitely|clearly|obviously|also|probably|certainly|likely|still|too|way) )?" + _NEG_WORD +
    r"|'s " + _NEG_WORD +
    r"| (?:isn't|wasn't|is not|was not|can't be|cannot be) (?:correct|right|it|possible|the (?:answer|correct|right|one|"
    r"solution)\w*)| (?:are|were) (?:(?:all|both|definitely|clearly|obviously|also) )?" + _NEG_WORD +
    r"| (?:doesn't|does not|don't|do not|can't|cannot|won't|wouldn't|didn't|did not|fails to|fail to)"
    r" (?:fit|match|work|line up|align|continue|do (?:that|this|it)|hold|be (?:it|right|correct|the answer)))(?![A-Za-z])",
    re.I)
#: A negation after the letter, in the languages that put it there: "B değil", "C नहीं", "Bではなく", "A가 아니라", "B不对".
_NEG_AFTER_ML = re.compile(r"[)\]\"']?\s?(?:değil|नहीं|নয়|نہیں|نیست|、?(?:ではなく|じゃなく)て?|ではない|じゃない|ではありません|は違|は不正解|は間違"
                           r"|[가이는은] ?(?:아니(?:라|고|다|에요|요)?|아닙니다|아닌|아님)|아님|不对|不對|不是|错|錯|不正确|不正確|не подходит|не подходить|неверн|"
                           r"неправильн|ist falsch|passt nicht|לא נכון|שגוי|خاطئ|غير صحيح|sai|salah|si sahihi|"
                           r"[:=]?\s?(?:不(?:适合|適合|匹配|符合|合适|合適|吻合|相符)|合わない|合いません|一致しない|適合しない|맞지 않|"
                           r"일치하지 않|부적합))")
_LIST_TAIL = re.compile(r"(?:(?:,| and| or| nor| &|/) ?(?:and |or )?(?:option )?[(\[]?[A-Z][)\]]?(?![A-Za-z0-9])){1,7}")
_NEG_LIST = re.compile(
    r"(?: (?:are|were) (?:(?:all|both|definitely|clearly|obviously|also) )?" + _NEG_WORD +
    r"| (?:all |both )?(?:do not|don't|cannot|can't|won't|fail to|didn't) (?:fit|match|work|line up|align|continue"
    r"|be (?:it|right|correct|the answer))| ?(?:[:=]|->|-+) ?(?:all |both )?(?:wrong|incorrect|no|ruled out))(?![A-Za-z])",
    re.I)
_WINDOW = 48
_PT_NOUN = re.compile(r"(?:candidat[oa]|imagem|opção|região|área|bloco|quadrante|recorte|fragmento|canto|lado)(?![^\W_])", re.I)


_RUN_BEFORE_REV = re.compile(r"(?:\s*(?:,|ro|ron|dna|&|/)\s*(?:noitpo\s+)?[(\[]?[A-Z][)\]]?(?![A-Za-z]))+\s*(?:,|ro|ron|dna|&|/)?\s*")


_SEEN: dict = {}  # (text, start, end) -> span: the rule asks about the same mentions many times (a str caches its hash)


def negation_span(t: str, start: int, end: int) -> Optional[tuple[int, int]]:
    """(start, end) of the mention ``t[start:end]`` with the negation that rules it out, or ``None``."""
    key = (t, start, end)
    if key in _SEEN:
        return _SEEN[key]
    if len(_SEEN) > 4096:
        _SEEN.clear()
    found = _SEEN[key] = _negation_span(t, start, end)
    return found


def _negation_span(t: str, start: int, end: int) -> Optional[tuple[int, int]]:
    m = _NEG_AFTER.match(t, end) or _NEG_AFTER_ML.match(t, end)
    if m is not None:
        return start, m.end()
    if end - start == 1 or (end - start <= 3 and t[start] in "([" and t[end - 1] in ")]"):
        lt = _LIST_TAIL.match(t, end)
        if lt is not None:
            m = _NEG_LIST.match(t, lt.end())
            if m is not None:
                return start, m.end()
    back = t[max(0, start - _WINDOW - 1):start][::-1]
    m = _NEG_BEFORE_REV.match(back)
    if m is not None and back[:m.end()].strip().lower() == "on" and _PT_NOUN.match(t, start):
        m = None  # Portuguese "no" is "in the": "a cerca continua no candidato 3"
    if m is None and end - start == 1:  # a letter in a run the negation opens: "not C or D", "neither A nor B"
        run = _RUN_BEFORE_REV.match(t[max(0, start - 80):start][::-1])  # (not "Not B, B is correct": B again opens a clause)
        if run is not None and not re.search(rf"(?<![^\W_]){re.escape(t[start])}(?![^\W_])", t[start - run.end():start]):
            back = t[max(0, start - run.end() - _WINDOW - 1):start - run.end()][::-1]
            m2 = _NEG_BEFORE_REV.match(back)
            if m2 is not None:
                return start - run.end() - m2.end(), end
    return (start - m.end(), end) if m is not None else None


def negated(t: str, start: int, end: int) -> bool:
    """True when the answer mention ``t[start:end]`` is ruled out where it stands (see above)."""
    return negation_span(t, start, end) is not None


__all__ = ["negated", "negation_span"]
