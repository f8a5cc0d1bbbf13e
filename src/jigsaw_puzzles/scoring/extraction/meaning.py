"""Answers said as their meaning, in other languages: where one image lies from the other (Connection Verification),
the four placements of a 2x2 order, a candidate by ordinal or number (Missing Piece Selection). The words are data
(forms.tsv kinds ``image``, ``direction``, ``place``, ``candidate``, ``ordinal``); this module only finds them, and
:mod:`.answers` turns what it finds into mentions. A reading needs every part said once and no negation, hedge,
condition or question beside it in any language the table knows: where it cannot tell, it reads nothing. And the
other way: another option said to fit after the answer, in any of them (:func:`fits_after`), keeps it open."""

from __future__ import annotations

import functools
import re
from typing import Optional

from .common import Mention
from .negation import _PT_NOUN
from .forms import _CONJ, alternation, forms, pattern, sentence_end, sentence_start, STATEMENT, STATEMENT_END, value

INVERSE = dict(zip("ABCDEFGH", "BADCHGFE"))  # a direction said of image 1 instead of image 2


def direction(words: str) -> Optional[str]:
    """The letter of a direction in words, of image 2 from image 1 ("above and to the right": E, "upper left": F)."""
    w = " ".join(words.lower().replace("-", " ").split())
    w = re.sub(r"\b(?:directly|diagonally|immediately|just|to the|towards? the|and|to)\b", " ", w)
    w = re.sub(r"\b(above|below) (left|right)\b", lambda m: {"above": "upper ", "below": "lower "}[m.group(1)] + m.group(2),
               " ".join(w.split())).replace("on top", "above")  # "above and to the right": upper right
    for a, b in (("underneath", "below"), ("beneath", "below"), ("under", "below"), ("up", "upper"), ("down", "lower"),
                 ("top", "upper"), ("bottom", "lower"), ("north", "upper"), ("south", "lower"), ("east", "right"),
                 ("west", "left")):
        w = re.sub(rf"\b{a}\b", b, w)
    w = " ".join(w.split())
    table = {"right": "A", "left": "B", "above": "C", "below": "D", "upper right": "E", "upper left": "F",
             "lower right": "G", "lower left": "H"}
    return table.get(w)


_OPENS = re.compile(r"(?:^|[,\uff0c(\uff08:\uff1a\u2014\u2013])[ \t*\u2022(\uff08-]*")  # where a sentence or a part of one opens
#: Where a part of a sentence ends (a comma in any script, or the sentence's end): what follows is a tail of its own.
_PART_END = re.compile(r"[,;.!?\n\u3002\uff0c]")
_NUMBER = {"1": "1", "2": "2", "\u4e00": "1", "\u4e8c": "2", "\uff11": "1", "\uff12": "2"}


@functools.lru_cache(maxsize=1)
def _image_ml() -> re.Pattern:
    return re.compile(rf"(?:{pattern('image').pattern})\s*(?:nr\.?|no\.?|#|\u2116)?\s*([12\u4e00\u4e8c\uff11\uff12])(?!\d)"
                      r"|<\s*image\s*([12])\s*>", re.I)


def relative(t: str) -> list[tuple[int, int, str]]:
    """(start, end, direction of image 2 from image 1) for each sentence (or part after a comma, colon or bracket) in
    another language that opens with one image and says where it lies from the other ("Изображение 2 находится прямо
    под изображением 1", "图2位于图1的左上方", "Bild 1 liegt rechts von Bild 2"): one direction, both images, and no
    negation, hedge, condition or question in it."""
    out: list[tuple[int, int, str]] = []
    if len(_image_ml().findall(t)) < 2:  # two images at least, else no sentence to look at
        return out
    for sm in STATEMENT.finditer(t):
        e = sm.end()
        for om in _OPENS.finditer(sm.group(0)):
            s = sm.start() + om.end()
            imgs = list(_image_ml().finditer(t, s, e))
            if len(imgs) != 2 or imgs[0].start() != s:
                continue
            cut = _PART_END.search(t, imgs[1].end(), e)  # the statement ends at the clause ("图2在图1的下方，")
            end = cut.start() if cut else e
            said = list(pattern("direction").finditer(t, s, e))  # the whole sentence: "..., etwas nach rechts"
            keys = {value("direction", d.group(0)) for d in said}
            a, b = (_NUMBER[m.group(1) or m.group(2)] for m in imgs)
            if len(keys) != 1 or a == b or t[e:e + 1] in ("?", "\uff1f") or any(pattern(k).search(t, s, e) for k in
                                                                 ("negation", "hedge", "condition")):
                break
            d = direction(keys.pop())
            if d is not None:
                out.append((s, end - (len(t[s:end]) - len(t[s:end].rstrip())), d if a == "2" else INVERSE[d]))
            break
    return out


@functools.lru_cache(maxsize=1)
def _candidate_ml() -> re.Pattern:
    o, c = pattern("ordinal").pattern, pattern("candidate").pattern
    return re.compile(rf"(?:\b(?:la|el|a|o|il|lo|le|l'|der|die|das|den|dem|de|het)[ \t]+)?({o})[ \t]*(?:\u306e|\u4e2a|\u500b|\u5f20|"
                      rf"\u5f35|\u7684)?[ \t]*(?:{c})|(?:{c})[ \t]*(?:({o})|#?[ \t]*([1-9])"
                      r"(?![\d.,:]\d|\s*[\u00b0%]))", re.I)


def candidates(t: str, spec) -> list[Mention]:
    """Candidates named in another language ("la primera opción", "4番目の候補", "세 번째 후보", "候选3")."""
    out, k = [], len(spec.letters)
    if pattern("candidate").search(t) is None:  # every match holds a noun: one cheap scan first
        return out
    for m in _candidate_ml().finditer(t):
        said = m.group(1) or m.group(2)
        i = int(value("ordinal", said) if said else m.group(3))
        ok = 1 <= i <= k
        out.append(Mention(m.start(), m.end(), spec.letters[i - 1] if ok else None, "text",
                           "" if ok else f"{m.group(0)!r} is not one of the {k} candidates"))
    return out


_PART = re.compile(r"(?:[^,;.\n\uff0c\u3001\uff1b\u3002/](?!\s(?:y|e|i|und|et|and|en|och|dan|ve|v\u00e0|\u0438)\s))+.?")
_ONE_DIGIT = re.compile(r"(?<![\d.,\u00b0])[1-4](?![\d\u00b0%])")
_CORNERS = ("top left", "top right", "bottom left", "bottom right")


def _corner(t: str, s: int, e: int):
    """The corner and the one image a part of the text places there ((1, 3) for "arriba a la derecha la 3"), None when
    it names neither, False when not one of each or with a negation, hedge or condition."""
    corners = {value("place", m.group(0)) for m in pattern("place").finditer(t, s, e)}
    nums = _ONE_DIGIT.findall(t, s, e)
    if not corners and not nums:
        return None
    if len(corners) != 1 or len(nums) != 1 or not corners <= set(_CORNERS) or any(  # Polish "o 90°" is "by 90°"
            not re.match(r"\s*\d+\s*\u00b0", t[h.end():e]) for k in ("negation", "hedge", "condition") for h in pattern(k).finditer(t, s, e)):
        return False
    return _CORNERS.index(corners.pop()), int(nums[0])


def corners_said(t: str) -> list[tuple[int, int]]:
    """(corner, image) for each part of the text that places one image at one corner of a 2x2 grid, in any language
    the table knows ("arriba a la izquierda va la imagen 4", "左上是图1"): what an order beside it must agree with."""
    if pattern("place").search(t) is None:
        return []
    return [p for pm in _PART.finditer(t) if (p := _corner(t, *pm.span()))]


def placed(t: str) -> Optional[tuple[tuple[int, ...], int, int]]:
    """The four images placed in the 2x2 grid, said in another language ("左上是图1，右上是图3，左下是图2，右下是图4",
    "Arriba a la izquierda va la imagen 4, arriba a la derecha la 2, ..."): each part of the text between commas or
    "and" places one number at one corner (forms.tsv ``place``); every corner once, no part between them that places
    only half, and no negation, hedge or condition in them."""
    if len(pattern("place").findall(t)) < 4:  # four corners at least
        return None
    said: dict[int, int] = {}
    lo = hi = None
    for pm in _PART.finditer(t):
        s, e = pm.span()
        part = _corner(t, s, e)
        if part is None:
            continue
        if part is False:
            if said:
                return None
            continue
        at = part[0]
        if at in said:
            return None
        said[at], lo, hi = part[1], s if lo is None else lo, e
        if len(said) == 4:
            break
    if len(said) != 4 or set(said.values()) != {1, 2, 3, 4} or hi - lo > 400 or \
            re.search(r"[?\uff1f]", t[lo:hi + 2]):  # asked, not said: "左上是图1，...，右下是图4？"
        return None
    return tuple(said[i] for i in range(4)), lo, hi


__all__ = ["INVERSE", "direction", "relative", "placed", "corners_said", "candidates"]


#: The words of the ``support`` kind that say what a piece shows, not that it fits ("contains", "muestra", "zeigt").
HAS = re.compile(r"contain|show|muestr|contien|mostr|zeig|enth|montr|cont[ée]m|содерж|показ", re.I)
_DESCRIBES = re.compile(HAS.pattern + r"|міст|يظهر|يحتوي|מראה|"
                        r"menunjuk|göster|pokazuj|zawier|toon|bevat|visar|innehåll|ukazuj|obsahuj|δείχν|περιέχ|arată|"
                        r"conține|nagpapakita|inaonyesha|chứa|berisi|दिखाता|מכיל|içerir|包含|[显顯]示|含む|포함|是|应该|應該|"
                        r"位[于於]|위치|^va\b|^goes?$", re.I)  # and where a piece lies or goes: not a fit
_EN_FIT = ("match", "matches", "matched", "fits", "fit", "continues", "aligns", "lines up", "completes", "fills",
           "blends", "connects", "corresponds", "extends", "flows", "seamless", "seamlessly", "coincides", "joins",
           "merges", "picks up", "also works", "works too", "works as well")
_UNTIL = re.compile(r"[,;:\uff0c\uff1b\uff1a\u3001\u060c\u061b]|(?<![^\W_])(?:but|while|whereas|although|though|unlike|yet)(?![^\W_])", re.I)


_WOULD_NEED = re.compile(r"(?<![^\W_])(?:would|will|must|should)\s+(?:require|need|have)|(?<![^\W_])if(?![^\W_])", re.I)


@functools.lru_cache(maxsize=1)
def _fit() -> re.Pattern:
    from .forms import alternation, table
    return re.compile(alternation({f for lang, fs in table()["support"].items() if lang != "en" for f in fs
                                   if not _DESCRIBES.search(f)} | set(_EN_FIT)), re.I)


def fits_after(t: str, x: Mention, hi: int) -> bool:
    """Another option said to fit right after it, in its clause ("Candidate C completes the corner perfectly",
    "Kandidat C passt perfekt", "C也很吻合"), no negation in that clause, no "would need" or "if" before the word of fit:
    after the answer, it stays open."""
    if ranked_below(t, x):  # "though C is close — the colours only roughly match": C is ranked below the answer
        return False
    end = min(hi, x.end + 80)
    cut = _UNTIL.search(t, x.end, end)
    fit = _fit().search(t, x.end, cut.start() if cut else end)
    return fit is not None and denial(t, x.end, cut.start() if cut else end) is None and \
        _WOULD_NEED.search(t, x.end, fit.start()) is None


#: Words that rank or judge an option out ("the one that fits worst", "the one I would reject", "least likely").
WORSE = re.compile(r"(?<![^\W_])(?:worst|least|reject\w*|exclud\w*|eliminat\w*|rul(?:e|ed|ing) out|unlikely|implausible|poor\w*|"
                   r"weak\w*|bad|worse|clash\w*|conflict\w*|stands? out|sticks? out|out of place|inconsistent|disrupt\w*|differ\w*|"
                   r"odd)(?![^\W_])", re.I)
_WHOLLY = re.compile(r"(?<![^\W_])(?:perfect\w*|seamless\w*|exact\w*|best|flawless\w*|nahtlos\w*|perfekt\w*|parfait\w*|"
                     r"perfeit\w*|perfett\w*|sin costuras|sem costura|идеально|ідеально|idealnie|doskonale|mükemmel|"
                     r"sempurna|hoàn hảo|perfect)(?![^\W_])|完美|完全|ぴったり|완벽", re.I)


def fits_wholly(t: str, x: Mention, lo: int, hi: int) -> bool:
    """Another option said, before the answer, to fit as a whole and with nothing else in its clause ("C fits best.",
    "Candidate 5 continues the wall seamlessly", "Kandidat 5 setzt die Mauer nahtlos fort"): the text gives two answers.
    Said to match one feature ("A matches the sky colour"), beside another option, with a hedge or a condition, or
    granted and then rejected, it is reasoning, not a choice."""
    if not _WHOLLY.search(t, x.end, hi) or any(h.group(0).lower() != "of" for k in ("condition", "hedge")  # Dutch "or"
                                               for h in pattern(k).finditer(t, lo, hi)):
        return False
    return fits_after(t, x, hi) or bool(_SEPARABLE.search(t, x.end, hi))


_SEPARABLE = re.compile(r"(?<![^\W_])(?:setzt|passt|f[üu]gt)(?![^\W_])[^.;\n]*(?<![^\W_])(?:fort|ein|an)(?![^\W_])", re.I)


_EN_FITS = re.compile(r"(?<![^\W_])(?:%s|best)(?:\s+(?:it|here|best|better|far|much|most|perfectly|clearly|exactly|"
                      r"seamlessly|nicely|smoothly|precisely|cleanly|the (?:gap|blank|hole|mask|masked area|area|region)))*"
                      r"[\s*]*$" % "|".join(_EN_FIT[:-3]), re.I)
_NOT_SAID_FIT = re.compile(r"(?<![^\W_])(?:worst|least|weak\w*|poor\w*|sa[iy]\w*|suggest\w*|claim\w*|thought|think\w*|believ\w*|you|user|"
                           r"hint\w*|other|another|else|but|except|was|were|would|could|might|too|also|well|if|when|"
                           r"which|what|whichever|whether|who|doubt\w*|almost|nearly|seem\w*|appear\w*|guess\w*|kind|sort|"
                           r"(?!(?:perfectly|clearly|exactly|seamlessly|nicely|naturally|smoothly|precisely|fully|really|"
                           r"obviously|definitely|cleanly|closely|directly)(?![^\W_]))\w+ly)(?![^\W_])", re.I)


def fit_closed(lead: str) -> bool:
    """A clause that says the answer fits, closed by a colon before it ("Candidate 1 fills it best: A", "The seam
    matches far better: A"): the colon joins it as "so" would. English only, one clause that ends on its word of fit
    (or "best", "perfectly", "the gap" after it), no link or introducer in it, and not a clause that could say
    something else of the answer (a negation, hedge, condition, doubt, contrast or ordinal; "worst", "said", "was",
    "which", "too", "almost", an adverb in -ly other than "perfectly", "clearly" and their like)."""
    body = lead.rstrip(" \t*")
    clause = body[:-1]
    return body.endswith(":") and clause.isascii() and _EN_FITS.search(clause) is not None and \
        not re.search(r"[,;(]", clause) and not any(pattern(k).search(clause) for k in ("link", "intro")) and denial(clause, 0, len(clause)) is None \
        and _NOT_SAID_FIT.search(clause) is None and not any(pattern(k).search(clause) for k in (
            "hedge", "condition", "doubt", "withdraw", "ordinal", "contrast"))


_BAD = re.compile(r"\s*(?:(?:so |too |all that |that )?(?:bad|schlecht|mal|mauvais|male|плох|ruim|kötü|buruk|tệ|slecht|zł|dålig|"
                  r"špatn|κακ|rău|بد|बुरा|나쁘|悪|差|错|錯))", re.I)


def denial(t: str, lo: int, hi: int) -> Optional[re.Match]:
    """A negation in ``t[lo:hi]`` in any language, but not "not bad" ("nicht schlecht", "不错"): that is praise."""
    for neg in pattern("negation").finditer(t, lo, hi):
        if not _BAD.match(t, neg.end()):
            return neg
    return None


#: A runner-up named after the best answer in a ranking ("best: C, second: A", "Runner-up: B", "Best match: A\nWorst
#: match: D"): not kept open.
@functools.lru_cache(maxsize=1)
def _runner_up() -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """(a runner-up's label and answer, a cheap scan implied by it, a best answer's label before it), in the table's
    languages too ("Segunda opção: B", "其次是D")."""
    runner = alternation(forms("runner"))
    label = r"(?:\s*(?:[:=]|\uff1a)|\s+(?:is|was|would be|es|é|est|ist|è|是|は|는|은|wäre|sería|seria))"
    return (re.compile(r"(?:(?<=[,;(\n\uff0c\u3001\u3002])|(?<=\. )|^)[ \t*]*(?:(?:the\s+)?(?:runner[- ]?up|second[- ]best|next[- ]best|"
                       r"second(?:[- ]place)?|2nd|top[- ]?[2-4]|third|3rd|worst|least likely)(?:\s+(?:choice|pick|option|candidate|place|"
                       r"match|fit))?[ \t*]*[:=]|" + runner + label + r"?)[ \t*]*(?:[A-Z](?![^\W_])|\[[\d,\s]+\])(?:\s*\([^()\n]{0,40}\))?",
                       re.I),
            re.compile(r"(?:runner|second|2nd|top|third|3rd|worst|least)[^:=]{0,48}[:=]", re.I),
            re.compile(r"(?<![^\W_])(?:best(?:\s+(?:match|fit|choice|option|candidate))?|top[- ]?1|top choice|first choice|answer|final|"
                       r"winner|" + alternation(forms("label")) + r")[ \t*]*[:=]?[ \t*]*((?-i:[A-Z])(?![^\W_])|\[[\d,\s]+\]|)", re.I))


@functools.lru_cache(maxsize=1)
def _runner_stems() -> tuple:
    """Each runner-up label's longest word (of a CJK label, its first two letters), lower-cased: a scan by
    ``in`` is cheaper than the trie."""
    return tuple(sorted({f.lower()[:2] if re.match(r"[\u3040-\u9fff\uac00-\ud7af]", f) else
                         max(f.lower().split(), key=len) for f in forms("runner")}))


_RANK_VALUE = re.compile(r"(?-i:[A-Z])(?![^\W_])(?=[^:=]*\Z)|\[[\d,\s]+\]|(?-i:[A-Z])(?![^\W_])")  # the runner-up's own answer


def runners_up(t: str) -> str:
    """``t`` with each runner-up that follows a best answer blanked (characters kept where they stand)."""
    runner, scan, best_before = _runner_up()
    low = t.lower()  # cheap scans, implied by the runner-up's pattern: most texts hold none of its words
    if scan.search(t) is None and not any(s in low for s in _runner_stems()):
        return t
    for m in list(runner.finditer(t)):
        best = [b.group(1) for b in best_before.finditer(t, 0, m.start()) if b.group(1)]
        if best and best[-1] != _RANK_VALUE.search(m.group(0)).group(0):  # "Best: D\nWorst: D" contradicts itself
            t = t[:m.start()] + " " * (m.end() - m.start()) + t[m.end():]
    return t


#: Another option ranked below the answer in words ("D is the runner-up", "C is a close second"): not kept open.
_RANKED = re.compile(r"[ \t]*(?:\([^()\n]{0,40}\)[ \t]*)?(?:is|was|comes|came|would be|as)[ \t]+(?:the[ \t]+|a[ \t]+|my[ \t]+)?(?:close[ \t]+|"
                     r"distant[ \t]+|closest[ \t]+|clear[ \t]+|strong[ \t]+)?(?:runner[- ]?up|second(?:[- ]best)?(?:[ \t]+(?:choice|pick|option|"
                     r"place))?|next[- ]best|close(?=[ \t]*(?:[,.;:!\u2014\u2013]|$))|(?:the[ \t]+)?(?:closest|only(?:[ \t]+real)?|real|main)[ \t]+(?:competitor|alternative|contender|call|rival))(?![^\W_])", re.I)


def ranked_below(t: str, x: Mention) -> bool:
    """Said of ``x`` right after it ("D is the runner-up", "though C is close"), with no hedge or doubt in its sentence
    ("D is the runner-up, maybe even better") and nothing that keeps it open before a reason ("C is close; it fits too")."""
    c1 = sentence_end(t, x.end)
    why = _REASON.search(t, x.end, c1)  # "since it's also on the clock" gives a reason; "; it matches too" keeps it open
    s0 = sentence_start(t, x.start)  # "Not fully sure, B is my second choice": kept open
    return _RANKED.match(t, x.end) is not None and not any(pattern(k).search(t, s0, c1) for k in ("hedge", "doubt", "note")) \
        and _STILL_OPEN.search(t, x.end, why.start() if why else c1) is None


_REASON = re.compile(r"(?<![^\W_])(?:since|because|as|given|for)(?![^\W_])", re.I)
_STILL_OPEN = re.compile(r"(?<![^\W_])(?:too|also|as well|equally|just as|as good)(?![^\W_])", re.I)
#: A phrase that keeps another answer open ("also fits", "runner-up"; read by ``cues.open_said``).
_OPEN = re.compile(r"(?<![^\W_])(?:could also|might also|may also|also possible|also plausible|or maybe|or possibly|"
                   r"alternatively|second choice|second best|backup|fallback|also works|also fits|also matches|"
                   r"equally|just as|as good|as likely|as plausible|as well|for that matter|can't decide|cannot decide|"
                   r"torn between|runner-up|runner up|close second|hard to choose|toss-up|either one|either of|or at least|"
                   r"more certain|more likely|more convincing|stronger candidate|better candidate|better fit|better match|"
                   r"both (?-i:[A-H]) and (?-i:[A-H]) (?:would|could|work|fit|match|seem|look|are (?:possible|plausible|fine))|"
                   r"both (?:would|could) (?:work|fit|match|do)|(?:an)?other (?:one|candidate|option|patch|piece|area|region"
                   r"|mask)?[ \t]*\w*[ \t]*(?:too|also|as well))"  # "The other one matches too."
                   r"(?![^\W_])", re.I)
_ADDS_REASON = re.compile(r"[ \t]+(?:the|its|their|this|that|with)(?![^\W_])", re.I)
_OTHERNESS = re.compile(r"(?<![^\W_])(?:other|another|second|both|either|else|rest|alternative)(?![^\W_])", re.I)
_REJECTED = re.compile(r"(?<![^\W_])(?:not|no|never|isn't|doesn't|don't|aren't|wasn't|cannot|can't|won't|off|wrong|"
                       r"breaks?|broken|would break|too|different|differs?|worse|clash\w*|conflict\w*|stands? out|sticks? out|"
                       r"out of place|inconsistent|disrupt\w*|"
                       r"mismatch\w*|rule[sd]? out|reject\w*|eliminat\w*|except|unlike|lacks?|missing|fails?|fail)"
                       r"(?![^\W_])|n't", re.I)
_RELATIVE = re.compile(r"[\s,]*(?:which|que|qui|che|который|которая|которое|który|która|które|yang|(?:although|though|even though|but|"
                       r"yet|however|because|since|as)[\s,]+(?:it|this|that|this one|that one|th(?:is|e|at) answer|my answer))(?![^\W_])",
                       re.I)  # "A, which is wrong"; "A, although it is wrong": the answer ruled out in its own explanation


def relative_denied(t: str, u0: int):
    """A relative clause right after the answer that says it is wrong or does not fit ("A, which is wrong", "A, que
    não encaixa"), or a pronoun that stands for the answer and says so ("A. This is wrong.", "A, although it is
    wrong"), also after a join later in its sentence when no other option is named before it ("B (the colours match),
    but it is wrong"; not "A is close, but it is wrong"): it rules the answer out. None where ``t[u0:]`` says neither."""
    if m := _SELF_DENIED.match(t, u0):
        return m
    end = sentence_end(t, u0)
    j = _JOINED_DENIED.search(t, u0, end) if "t" in t[u0:end] else None
    if j is not None and not _OTHER_NAMED.search(t, u0, j.start()):
        return j
    r = _RELATIVE.match(t, u0)
    end = r and sentence_end(t, r.end(), _PART_END)
    if r and (turn := _contrast_turn().match(t, end)):
        hi = sentence_end(t, turn.end(), STATEMENT_END)  # "C, which seems to
        neg = pattern("negation").search(t, turn.end(), hi)  # match at first glance, but whose edge does not connect"
        if neg and not _OTHER_NAMED.search(t, turn.end(), hi) and not _OTHERNESS.search(t, turn.end(), hi):
            return neg
    return r and (_REJECTED.search(t, r.end(), end) or pattern("negation").search(t, r.end(), end) or
                  pattern("incorrect").search(t, r.end(), end) or pattern("doubt").search(t, r.end(), end))




@functools.cache
def _contrast_turn() -> re.Pattern:
    """A turn after a comma (", but", ", however", ", pero"): after a relative clause, what follows may rule it out."""
    return re.compile(r",\s*(?:%s)(?![^\W_])" % pattern("contrast").pattern, re.I)
_SELF_DENIED = re.compile(r"[\s,*]*(?:it|this|that|this one|that one|th(?:is|e|at) answer|my answer)(?:'s\s+|\s+(?:is|was|'s|seems|"
                          r"looks|must be|might be|may be|could be)\s+)(?:(?:probably|definitely|clearly|actually|likely|completely|"
                          r"totally|just|only|merely|the obvious|an obvious)\s+)?(?:wrong|incorrect|false|a mistake|an error|a decoy|"
                          r"decoy|a trap|a red herring|not (?:right|correct|it|true|the (?:right |correct )?answer))(?![^\W_])|[\s,*]*(?:it|"
                          r"this|that|this one|that one|th(?:is|e|at) answer|my answer)\s+(?:does not|doesn't|did not|didn't) (?:fit|"
                          r"match|work)(?![^\W_])", re.I)

_JOINED_DENIED = re.compile(r"(?<![^\W_])(?:but|though|although|however|yet|and|even so),?(?:\s+i (?:think|suspect|fear|guess|"
                            r"believe))?" + _SELF_DENIED.pattern, re.I)
_OTHER_NAMED = re.compile(r"(?<![^\W_])(?-i:[A-H])(?![^\W_])|(?<![^\W_])(?:option|candidate|image|piece|tile)s?\s*#?\d", re.I)


def hedged(s: str) -> bool:
    """A hedge in ``s`` in any language; one of two ASCII letters is a word elsewhere (Dutch "of" is "or", the article
    "o")."""
    return any(len(w) > 2 or not w.isascii() for w in pattern("hedge").findall(s))


def described(s: str) -> bool:
    """A sentence that describes the picture in words of the ``describe`` kind ("O recorte tem o mesmo padrão de
    azulejos", "На фрагменте видна нижняя часть скамейки", "Ảnh 4 cần xoay 90 độ") and says nothing else the reader
    would have to understand: no negation, hedge, condition, contrast, concession, doubt, confidence note, withdrawal
    or numbering convention anywhere in it (those lists are shorter outside English: where one is said, read none)."""
    if pattern("describe").search(s) is None or hedged(s) or any(
            not m.group(0)[-1].isspace() or not s[max(0, m.start() - 1)].isalnum() or m.start() == 0
            for m in _CONJ.finditer(s)):  # "ama", not "sıralama"
        return False
    for k in ("negation", "condition", "contrast", "doubt", "note", "withdraw", "convention"):
        for m in pattern(k).finditer(s):
            if not (m.group(0).lower() == "no" and _PT_NOUN.match(s, m.end() + 1)):
                return False  # (not Portuguese "no canto": "in the corner")
    return True


def _named_with(t: str, x: Mention, lead) -> Optional[list]:
    """The options named together with ``x`` after "between" ("between B and D"); None when no "between" opens it."""
    if not _BETWEEN.search(t, max(0, x.start - 40), x.start):
        return None
    return [y for y in lead if x.start < y.start <= x.end + 16]


def paired_without(t: str, x: Mention, m: Mention, lead) -> str:
    """The options named together from ``x`` on ("between B and D") when the answer ``m`` is none of them ("Between B
    and D, C."); "" otherwise."""
    named = _named_with(t, x, lead)
    if named is None or any(y is m or y.value == m.value for y in named):
        return ""
    return t[x.start:(named or [x])[-1].end]


_BETWEEN = re.compile(r"(?<![^\W_])(?:between|entre|tra|fra|zwischen|между|między|pomiędzy)[ \t]+(?:(?:the[ \t]+)?(?:options?|candidates?|"
                      r"areas?)[ \t]+)?\Z", re.I)


@functools.lru_cache(maxsize=1)
def _concede() -> re.Pattern:
    return re.compile(alternation(forms("concede")), re.I)


#: A clause that ends as a concession, in the languages that say so at its end (Korean "-지만", Japanese "けど").
_CONCEDED_END = re.compile(r"(?:지만|けど|けれど|けれども)\s*[,\uff0c\u3001]\Z")


def conceded_until(t: str, pos: int) -> Optional[int]:
    """Where the conceded clause holding ``t[pos]`` ends (its first comma after ``pos``), when its sentence opens with a
    concession ("虽然一开始觉得是 A，但 ...": the clause ends at the comma); None otherwise."""
    s0 = sentence_start(t, pos)
    if _concede().match(t, len(t) - len(t[s0:].lstrip(" \t\n*\"'"))) is None:
        return None
    comma = re.compile(r"[,\uff0c\u3001]").search(t, pos, sentence_end(t, pos))
    return None if comma is None else comma.start()


def settled(t: str, x: Mention, m: Mention, lead: list) -> bool:
    """``x``, kept open before the answer ``m`` in its sentence, is settled by it: the two were named together ("B or
    D", "between B and D", "B and D both look plausible"), or ``x`` was only hedged ("Maybe B"), then a contrast after a
    comma turns to the answer ("..., but I'll go with D", "..., pero me quedo con la D"), and no other answer is named
    after the turn."""
    if any(y.value == m.value and y is not m for y in _named_with(t, x, lead) or ()) and not any(x.end + 16 < y.start and y.end <= m.start
                                                                                           for y in lead):
        return True  # "Between B and D, I choose D", "Tra B e D scelgo D": the two named together, then one chosen
    s0 = sentence_start(t, x.start)
    opens = _concede().match(t, s0 + len(t[s0:x.start]) - len(t[s0:x.start].lstrip(" \t\n*\"'")))
    comma = re.compile(r"[,\uff0c\u3001]").search(t, x.end, m.start)
    conceded = (opens is not None and opens.end() <= x.start) or (  # "B가 더 그럴듯해 보이지만, 정답은 A": ends as one
        comma is not None and _CONCEDED_END.search(t, x.end, comma.end()) is not None)
    if conceded and comma is not None and not any(x.end <= y.start < m.start for y in lead) \
            and not any(pattern(k).search(t, comma.end(), m.start) for k in ("hedge", "negation", "condition")):
        return True  # "Although A looked right at first, the answer is C", "虽然一开始觉得是 A，但仔细看应该是 C": A is conceded
    turn = next((c for c in pattern("contrast").finditer(t, x.end, m.start) if re.search(r"[,;\u2014\u2013\uff0c]\s*\Z",
                                                                                        t[max(0, c.start() - 3):c.start()])), None)
    hedged = any(h.end() == len(t[:x.start].rstrip(" *")) for h in pattern("hedge").finditer(t, max(0, x.start - 24), x.start))
    return turn is not None and (hedged or any(y.value == m.value and y is not m and abs(y.start - x.start) <= 40 and y.end <=
                                               turn.start() for y in lead)) and not any(turn.end() <= y.start < m.start for y in lead)
