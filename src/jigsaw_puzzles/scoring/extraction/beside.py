"""What the text says beside its answer must agree with it (:mod:`.rule`, step 5): the regions or rows named
before an order (or an Order Restoration letter's list), the anomaly described before an anomaly block, the pieces
said before a rotated order, the two images' corners on Connection Verification, an earlier answer that no withdrawal
or turn replaces (:meth:`Beside._drafts`). And what beside the answer says
nothing of which it is: a description set off after a word (:func:`appositives`), a reason right after it
(:func:`reason_beside`), what the text sets aside (:func:`set_aside`)."""

from __future__ import annotations

import functools
import re

from ...spec import ANOMALY, CHOICE, ORDER, ORIENTED, format_oriented
from .common import AMBIGUOUS, Mention, STEP_LABEL, clause_start
from .negation import negated, negation_span as _negation_span
from .cues import _BINDING, _BULLETS, _BUT, Commit, _clause_end, _CONCEDE, _conceded, _CONFIDENCE, _error_words, _HEDGED, judged_fit, \
    _KNOWN_PUNCT, _OR_NEXT, _REJECTING, _REMARK, _REMARK_START, _SKIP_LINE, _TOO_ADJ, turned
from .forms import alternation, forms, pattern, SENTENCE, table
from .meaning import corners_said, described, fits_wholly, hedged
from .positions import halves_said, regions_said, relations_disagree, row_sets_disagree, rows_disagree
from .prose import _REGION_WORD, anomaly_prose, changes_said, oriented_prose


_VERDICT_WORDS = re.compile(r"(?<![^\W_])(?:correct|incorrect|normal|fine|wrong|anomal\w*|intact)(?![^\W_])", re.I)
#: A sentence that says the whole picture is fine ("Everything looks normal here", "All four pieces line up", "Nothing
#: is out of place"), said after a block that finds an anomaly; not "everything else" nor with an exception.
_ALL_FINE = re.compile(r"(?<![^\W_])(?:(?:everything(?!\s+else)|all\s+(?:four|nine|the)\s+(?:pieces|tiles|parts|sub-?images|cells)|"
                       r"the\s+(?:whole|entire)\s+(?:image|picture|grid|puzzle))\s+(?:looks?|seems?|is|are|appears?)\s+(?:\w+\s+)?"
                       r"(?:normal|fine|correct|ok|okay|intact|consistent|right|in place|aligned)|all\s+(?:four|nine)\s+(?:pieces|"
                       r"tiles|parts|sub-?images|cells)\s+(?:line up|fit|match)|nothing\s+(?:is\s+|looks\s+|seems\s+)?(?:wrong|off|amiss|"
                       r"out of place))(?![^\W_])", re.I)
_EXCEPT = re.compile(r"(?<![^\W_])(?:except|but|apart from|other than|besides|save|aside from|else)(?![^\W_])", re.I)
_LIKELY = re.compile(r"(?<![^\W_])(?:probably|likely)(?![^\W_])", re.I)  # a confidence word after an answer, not beside a tile
#: An English clause's first word: "B \u2014 the one with the wheel", "C \u2014 they come from opposite corners" (not
#: "A \u2014 glorp blub, la verdad", "A \u2014 non lo so, davvero": four words in a language the reader does not know).
_OPENS_CLAUSE = re.compile(r"\s*(?:the|they|it|its|it's|this|that|that's|these|those|and|both|a|an|which|one|each|all|"
                           r"fairly|pretty|quite|very|my|with|from|in|on|at|for|only|just|since|as)(?![^\W_])", re.I)
_LABELLED_BEFORE = re.compile(r"(?:option|choice|candidate|(?<![^\W_])[A-H])[\s:.)(\-\u2014\u2013=]*(?:(?:is|gives|says)[\s:]*)?$", re.I)


_ONLY_BEFORE = re.compile(r"(?<![^\W_])(?:only|just)\s+(?:the\s+)?(?:option|candidate|choice)?\s*$|(?<![^\W_])(?:leav(?:es|ing)|"
                          r"leaves us with)\s+(?:us\s+with\s+)?(?:only\s+)?(?:the\s+)?(?:option|candidate|choice)?\s*$", re.I)
_LEFT_AFTER = re.compile(r"[\s*]*(?:(?:remains|is left|survives|stands|is still standing|is the only one left)(?![^\W_])[\s*]*(?:[.;!\n]|$)|"
                         r"(?:[.;!\n]|$))", re.I)


def _left_over(t: str, x: Mention, lo: int, hi: int) -> bool:
    """An elimination that ends on another option ("only candidate 3 remains", "..., which leaves C."): the text chose
    it (English; no hedge or condition in its clause)."""
    before = _ONLY_BEFORE.search(t, max(lo, x.start - 40), x.start)
    after = _LEFT_AFTER.match(t, x.end)
    return before is not None and after is not None and (after.group(0).strip(" *.;!\n") != "" or "leav" in before.group(0).lower()) \
        and not any(pattern(k).search(t, lo, hi) for k in ("hedge", "condition"))


def withdrawn(t: str, lo: int, hi: int) -> bool:
    """A withdrawal that opens a clause in ``t[lo:hi]`` ("Actually, ...", "wait no", "C. Oh actually, B"); not an adverb
    inside one ("the path actually enters from above")."""
    return any(re.search(r"(?:^|[^\w\s]|\n)[\s\"'*]*(?:(?:oh|hmm+|no|wait|but|and|so|ok|okay|um+|uh+)[\s,]+)?$",
                         t[max(lo, w.start() - 24):w.start()], re.I) for w in pattern("withdraw").finditer(t, lo, hi))


@functools.lru_cache(maxsize=1)
def _SUBJECT() -> re.Pattern:  # "The two pieces are" before an option's words, ending where they start
    return re.compile(r"(?<![^\W_])(?:%s)\s+(?:(?:%s)\s+)?$" % (pattern("subject").pattern, pattern("relate").pattern), re.I)


#: The environment's reply right after a submission refuses it ("Observation: Error: answer must be a single letter").
_REFUSED = re.compile(r"(?:[ \t]*(?:</\w+>|<\|/?\w+\|>)?[ \t]*\n)+[ \t]*(?:" + STEP_LABEL + r")?"
                      r"(?:\[?(?:observation|tool(?:[ _]output|[ _]result|_response)?|env(?:ironment)?|result|response|system)\]?"
                      r"[ \t]*[:>\-]?|<tool_response>|<\|observation\|>)[\s{\[\"']*(?:(?:status|result|error)[\"']?[ \t]*[:=][ \t]*"
                      r"[\"']?)?(?:error|invalid|rejected|failed|not accepted|incorrect format|wrong format)(?![^\W_])", re.I)


_APPOSITIVE = re.compile(r"(?<=[^\W\d_])(?:[ \t]*\((?:a|an|the|with|showing|containing)[ \t][^()\n]{0,80}\)|,[ \t]*(?:with|showing|"
                         r"containing|carrying|holding|which shows|that shows)[ \t][^,\n]{0,80},)(?=[ \t]*[^\W\d_]{2})", re.I)
_APPOSITIVE_ANY = re.compile(r"\((?:a|an|the|with|showing|containing)[ \t]|,[ \t]*(?:with|showing|containing|carrying|"
                             r"holding|which shows|that shows)[ \t]", re.I)
_APPOSITIVE_NOT = re.compile(r"(?-i:[A-Z])(?![^\W_])|\d|option|candidate|image|(?<![^\W_])(?:not|no|never|maybe|perhaps|"
                             r"if|unless|probably|possibly|or)(?![^\W_])|n't|\?", re.I)


def set_aside(t: str) -> str:
    """``t`` with what it sets aside blanked (positions kept): "either way" (the choice it closes is made after it) and
    struck text ("~~B~~ D": what is struck through is not said)."""
    return re.sub(r"(?i)(?<![^\W_])either way(?![^\W_])|~~[^~\n]{1,80}~~", lambda m: " " * len(m.group(0)), t) \
        if "ither" in t or "~~" in t else t


def appositives(t: str) -> str:
    """``t`` with each description set off after a word blanked ("The patch (a green umbrella) corresponds to area B",
    "The piece, with its tab on the left, fits area D"): it says what the subject shows, never which answer. One that
    names an option, a letter or a number, negates, hedges or asks is kept."""
    return t if _APPOSITIVE_ANY.search(t) is None else _APPOSITIVE.sub(  # a cheap scan spares most texts the lookbehinds
        lambda m: m.group(0) if _APPOSITIVE_NOT.search(m.group(0)) else " " * len(m.group(0)), t)


_THE_ONE = re.compile(r",?[ \t]*the one(?![^\W_])", re.I)


def reason_beside(t: str, pos: int, others, at: int = 0) -> bool:
    """What follows the answer only says why it fits or which it is: a bracket that judges a fit ("A (the fronds
    match the undergrowth around mask A)"), ", the one ..." ("Area B, the one by the window") or a clause after a
    comma that says in English that it fits ("D, the roof edge only fits there"; not after a condition on the answer
    at ``at``, nor with a concession or a turn; in other languages a word of fit beside words the reader does not know
    is not enough). Nothing else may be in it: no other option (``others(lo, hi)``), negation, hedge, condition, doubt
    or convention. Read as an explanation."""
    if t[pos] == "(":
        end = t.find(")", pos)
        if end < 0 or not (judged_fit(t, pos, end) or not re.search(r"[^\W\d_]{2}", t[pos:end], re.A) and pattern(
                "support").search(t, pos, end) and not pattern("hedge").search(t, pos, end)):  # "D（背景の山の稜線がつながっているため）"
            return False  # (in a script without Latin words, a word of fit the table knows)
    elif _THE_ONE.match(t, pos) or t[pos] == "," or t[max(0, pos - 2):pos].strip(" ") == ",":
        end = next((i for i in range(pos + 1, len(t)) if t[i] in ".;!?\n"), len(t))
        if pattern("hedge").search(t, pos, end) or not (_THE_ONE.match(t, pos) or judged_fit(t, pos, end) and not (
                _CONCEDE.search(t[pos:end]) or _BUT.search(t, pos, end) or pattern("contrast").search(t, pos, end) or
                pattern("condition").search(t, clause_start(t, at), at))):  # "If it were A, I'd expect ... to continue"
            return False  # (not "B, although A fits too": a concession may keep another open)
    else:
        return False
    return not others(pos, end) and not any(pattern(k).search(t, pos, end) for k in ("negation", "condition", "doubt",
                                                                                      "convention"))


def committed_after(t: str, x: Mention) -> bool:
    """A commit form right after an option, closing its clause ("B is correct.", "B is the answer"): said after the answer,
    it gives a second one, whatever stands before it ("Not B, B is correct.")."""
    p = pattern("pred").match(t, x.end)
    return p is not None and p.end() > x.end and re.match(r"[ \t*]*(?:[.!;\n]|$)", t[p.end():p.end() + 8]) is not None


_TURNS = re.compile(r"(?<![^\W_])(?:though|although|but|however|yet|even so)(?![^\W_])", re.I)
_AGAINST_IT = re.compile(r"(?<![^\W_])(?:wrong|(?:does not|doesn't|can't|cannot|won't) (?:fit|match|line up|be)|isn't (?:right|it)|"
                         r"(?:far|way) off)(?![^\W_])", re.I)


def turned_on(t: str, x: Mention) -> bool:
    """The answer named again after a turn in its clause, with words against it ("..., though honestly the fence post in
    C sits far too high for it to be the real piece"): the explanation rules it out."""
    c0 = clause_start(t, x.start)
    c1 = _clause_end(t, x.end)
    return _TURNS.search(t, c0, x.start) is not None and (_AGAINST_IT.search(t, x.end, c1) or _TOO_ADJ.search(t, x.end, c1)) is not None


class Beside:
    """A mixin of the rule's reading (needs ``m``, ``spec``, ``config``, ``options``)."""

    @staticmethod
    def _heard(raw: str, found: list) -> list:
        """The structures, a submission the environment refused at once made void (masked, never a commitment)."""
        for c in found:
            if c.form != "void" and _REFUSED.match(raw, c.end):
                c.form, c.answer = "void", None
        return found

    def _says_nothing(self, at: int, lo: int, hi: int, value) -> bool:
        """A remark after a dash (``t[at:lo]``) is no reason unless it says something: a word of fit, the answer
        again, a clause of its own (four words opened by an English clause word, or six CJK characters) or only known words ("B \u2014 idk")."""
        body = self.m[lo:hi]
        return bool(re.search(r"[\u2014\u2013-]", self.m[at:lo])) and not (
            pattern("support").search(body) or described(body) or self._known(_CONFIDENCE.sub(" ", body))
            or any(x.value == value for x in self._within(lo, hi)) or (_OPENS_CLAUSE.match(body) and sum(
                bool(re.search(r"[^\W\d_]", w)) for w in body.split()) >= 4) or re.search(r"[\u3040-\u9fff\uac00-\ud7af]{6}",
                pattern("hedge").sub(" ", body)))  # (not a hedge alone: "B \u2014 \u4f55\u3068\u3082\u8a00\u3048\u307e\u305b\u3093")

    def _anomaly_before(self, final: Commit) -> str:
        t, lo = self.m, 0
        for w in pattern("withdraw").finditer(t, 0, final.start):
            lo = w.end()
        before = t[lo:final.start]
        p = final.parts
        if not before.strip():
            return ""
        said = anomaly_prose(before, *self.spec.grid)
        if isinstance(said, tuple) and (said[0], said[1], said[2]) != (p.get("judgment"), p.get("position"),
                                                                       p.get("type")):
            return "the anomaly described before the answer is another one"
        if p.get("judgment") == "A":
            for m in _error_words().finditer(before):  # "rotated", "bị lật gương", "gespiegelt", ...
                cut = max(before.rfind(".", 0, m.start()), before.rfind("\n", 0, m.start()), m.start() - 120)
                near = before[max(0, cut):m.start()]  # "I don't see any reversed text, ... or tiles that are upside down"
                negations = [n.group(0).lower() for n in pattern("negation").finditer(near)]  # "ninguna", not "except"
                if not re.search(r"(?<![^\W_])(?:not|no|none|never|nothing|neither|nor|without)(?![^\W_])|n't", near,
                                 re.I) and not any(len(n) <= 5 or n not in table()["negation"]["en"] for n in negations):
                    return f"the text before says a piece is changed ({m.group(0)!r}) but the answer says none is"
        return ""

    def _turned_to(self, c: Commit, final: Commit) -> bool:
        """A turn from ``c`` to a ``final`` answer that names it ("B. Hmm, but the seam fits C better, so C"); not a "but"
        inside what is said of a third option, nor a turn ("However, ...") to an option's words alone ("they are stacked
        vertically" after "Answer: A": the text contradicts its answer)."""
        return all(x.form != "text" for x in self._within(final.pos, final.pos + 1)) and turned(
            self.m, c.end, final.pos, final.answer or "", [x.start for x in self._within(c.end, final.pos) if x.answer not in (None, c.answer)])

    def _drafts(self, final: Commit, commits: list[Commit]) -> str:
        t = self.m
        hedged = [Commit(x.start, x.start, x.end, x.answer) for x in self.mentions if x.answer is not None and
                   x.end <= final.start and _HEDGED.search(t, max(0, x.start - 16), x.start) and
                   not negated(t, x.start, x.end) and x.form in ("list", "rows", "pairs", "block")
                   and not re.match(r"[ \t]*[?\uff1f]", t[x.end:])]  # "maybe [3, 1, 2, 4]?" is asked, not given
        for c in commits:  # made conditional (any answer) or rejected (this one) before: a later "So: B" does not free it
            if c is not final and c.end <= final.start and c.why.startswith(_BINDING if c.answer == final.answer or final.rule
                    == "bare" else _BINDING[0]) and not turned(t, c.end, final.pos):  # "Worst: A\nBest: D" is D; "+ D" joins
                return c.why
        for x in self._within(0, final.start):  # "The answer is not B. ... So: B": ruled out in a commit form, or bare, before
            span = _negation_span(t, x.start, x.end) if x.answer == final.answer and x.end <= final.start else None
            back = t[max(0, span[0] - 240):span[0]][::-1] if span else ""
            if span and (pattern("left").match(back) or pattern("label").match(back) or x.form == "letter" and (
                    not (pre := t[clause_start(t, span[0]):span[0]].strip(_BULLETS + " *")) or pattern("fillers").fullmatch(pre))) \
                    and not turned(t, span[1], final.pos):  # "Not B.\nB", "Definitely not B.\nAnswer: B"
                return "the answer is ruled out before it is given"
        for c in commits + hedged:  # an earlier answer, or one floated with "maybe": the text gives two
            if c is final or (c.why and not c.why.startswith(("the line above", _REMARK))) or c.answer == final.answer or \
                    c.end > final.start or withdrawn(t, c.end, final.pos) or self._turned_to(c, final):
                continue
            said = c.answer or repr(t[c.pos:c.end].strip()[:30])
            return f"two answers are given: {said} and then {final.answer}"
        return ""

    def _contradicted(self, final: Commit) -> str:
        """What the text said just before the answer must agree with it: another option said to fit as a whole, the
        regions named before a 2x2 order, the anomaly described before an anomaly block (not withdrawn)."""
        for x in self._within(0, final.start):  # another answer said before to fit as a whole: "C fits best.\nAnswer: D"
            if x.answer in (None, final.answer):
                continue
            lo, hi = clause_start(self.m, x.start), _clause_end(self.m, x.end)
            if len(self._within(lo, hi)) == 1 and (fits_wholly(self.m, x, lo, hi) or _left_over(self.m, x, lo, hi)) \
                    and not negated(self.m, x.start, x.end) and not _conceded(self.m, x, lo, hi) and \
                    not turned(self.m, x.end, final.pos):
                return f"another answer is said to fit before it: {x.answer}"
        if self.spec.kind == ANOMALY and final.parts:
            return self._anomaly_before(final)
        if self.spec.kind == ORIENTED and final.answer and final.rule != "prose":
            said = oriented_prose(self.m[:final.start], *self.spec.grid)
            if said == AMBIGUOUS or (isinstance(said, list) and format_oriented([i for i, _ in said],
                                                                                 [r for _, r in said]) != final.answer):
                return "the pieces said in prose before the answer give another one"
        if self.config == "connection_verification" and final.answer:  # image 1 top-left, image 2 bottom-right: C
            at = {img: r for r, img in regions_said(self.m[:final.start] + "\n" + self.m[final.end:])}
            if {1, 2} <= set(at) and "ABC"[0 if at[1] // 2 == at[2] // 2 else 1 if at[1] % 2 == at[2] % 2 else 2] \
                    != final.answer:
                return "the regions named for the two images give another relation"
        order = (final.parts or {}).get("order") if self.spec.kind in (ORDER, ORIENTED) else None
        if not (order or self.options and final.answer):
            return ""
        lo = max([w.end() for w in pattern("withdraw").finditer(self.m, 0, final.start)] or [0])
        if self.options and final.answer:
            for x in self._within(lo, final.start):  # "The order is [4, 1, 3, 2], option B. ... Answer: A"
                if x.form == "list" and x.answer not in (None, final.answer) and not negated(self.m, x.start, x.end) \
                        and not self._listed(x) and not _LABELLED_BEFORE.search(self.m, max(0, x.start - 16), x.start) \
                        and "?" not in self.m[x.end:x.end + 3]:
                    return f"an order said before the answer is another option's ({x.answer})"
        if self.options and final.answer in self.spec.letters[:len(self.options)]:  # Order Restoration's letter
            order = tuple(int(d) for d in re.findall(r"\d+", str(self.options[self.spec.letters.index(final.answer)])))
        if not order:
            return ""
        beside = self._of_others(lo, final.start, final) + "\n" + self._of_others(final.end, len(self.m), final)
        if len(order) == 4 and any(order[r] != img for r, img in regions_said(beside) + corners_said(beside)):
            return "the order disagrees with the regions named beside it"
        if len(order) == 4 and any(order.index(img) not in cells for img, cells in halves_said(beside) if img in order):
            return "the order puts an image in another half than the text says"
        grid = (2, 2) if len(order) == 4 else (3, 3) if len(order) == 9 else (0, 0)
        if rows_disagree(beside, order, *grid):
            return "the order disagrees with the rows named beside it"
        if row_sets_disagree(beside, order, *grid):
            return "the order puts other images in a row named beside it"
        if relations_disagree(beside, order, *grid):
            return "the order puts an image elsewhere than where the text says it lies from another"
        return ""

    def _of_others(self, lo: int, hi: int, final: Commit) -> str:
        """``t[lo:hi]`` with each sentence that opens by naming another option blanked: "Options B and C put image 1
        at the top-left" says where that option puts it, not where the answer does."""
        out = list(self.m[lo:hi])
        for s in SENTENCE.finditer(self.m, lo, hi):
            head = re.match(r"[\s*\-\u2022\u2014\u2013]*(?:(?:hmm+|so|but|now|well|ok(?:ay)?)\W+)?(?:(?:options?|choices?|candidates?)\s+)?",
                            self.m[s.start():s.end()], re.I)  # "Hmm — option B puts image 4 in the top-left"
            first = next(iter(self._within(s.start() + head.end(), s.start() + head.end() + 1)), None)
            if first is not None and first.form in ("letter", "list") and first.answer not in (None, final.answer):
                out[s.start() - lo:s.end() - lo] = " " * (s.end() - s.start())
        return "".join(out)

    def _regions_again(self, u0: int, u1: int, c: Commit) -> bool:
        """A sentence after a 2x2 order that names the image of each of the four regions as the order does ("TL = 2
        (kite), TR = 1 (sun), BL = 4 (dog), BR = 3"): the answer said again."""
        order = (c.parts or {}).get("order") if self.spec.kind == ORDER else None
        said = regions_said(self.m[u0:u1]) if order and len(order) == 4 else []
        return len({r for r, _ in said}) == 4 and all(order[r] == img for r, img in said)

    def _again(self, u0: int, u1: int, c: Commit) -> bool:
        """A sentence that only says the answer again ("E", "**E**")."""
        xs = self._within(u0, u1)
        rest = list(self.m[u0:u1])
        for x in xs:  # an option's words with their subject: "The two pieces are not adjacent"
            sm = _SUBJECT().search(self.m, u0, x.start) if x.form == "text" else None
            lo = sm.start() if sm else x.start
            rest[lo - u0:x.end - u0] = " " * (min(x.end, u1) - lo)
        rest = "".join(rest)  # "E", "**E**", "Yeah, dee."
        return (bool(xs) and all(x.answer == c.answer and not _OR_NEXT.match(self.m, x.end) for x in xs) and (not rest.strip(_KNOWN_PUNCT + " \t\n*") or (
            self.spec.kind == CHOICE and self._known(rest)))) or self._regions_again(u0, u1, c)

    def _anomaly_again(self, u0: int, u1: int, c: Commit) -> bool:
        """A sentence after an anomaly block that names its tile and its change as the block does, in any language
        the table knows ("왼쪽 위 조각의 건물이 90도 회전되어 있습니다", "Die Kachel oben links ist gespiegelt")."""
        parts = c.parts or {}
        return self.spec.kind == ANOMALY and parts.get("judgment") == "B" and anomaly_prose(
            self.m[u0:u1], *self.spec.grid) == ("B", parts.get("position"), parts.get("type"))

    def _anomaly_after(self, u0: int, u1: int, c: Commit) -> str:
        """Why a sentence explaining an anomaly block disagrees with it: another tile or change ("... mirrored, not
        rotated"), the judgment left open ("It might be correct after all."), or a hedge beside a tile ("Maybe the
        bottom-right one too", "Probably the bottom-right too", "Vielleicht aber auch die Kachel unten rechts")."""
        s, parts = self.m[u0:u1], c.parts
        said = anomaly_prose(s, *self.spec.grid)
        if isinstance(said, tuple) and said[0] == "B" and (said[1], said[2]) != (parts.get("position"), parts.get("type")) \
                or said is None and changes_said(s) == {"A": {"B"}, "B": {"A"}}.get(parts.get("type")):
            return "the explanation names another anomaly"
        if parts.get("judgment") == "B" and _ALL_FINE.search(s) and not _EXCEPT.search(s):
            return "the explanation says nothing is wrong"
        if said == AMBIGUOUS and _VERDICT_WORDS.search(s) or parts.get("judgment") == "B" and (hedged(s) or _LIKELY.search(
                s)) and (pattern("place").search(s) is not None or _REGION_WORD.search(s) is not None):
            return "the explanation leaves the judgment open"
        return ""

    def _remark_at(self, u0: int, u1: int, c: Commit) -> int:
        """Where a remark opens after the answer said again in a sentence ("They are not adjacent: no edge continues")."""
        last = max((x.end for x in self._within(u0, u1) if x.value == c.answer), default=u1)
        rm = _REMARK_START.match(self.m, last) if last < u1 else None
        return last if rm is not None and rm.end() < u1 and re.search(r"[:\u2014\u2013-]", rm.group(0)) else u0


def rejected_above(t: str, at: int) -> str:
    """Why the label line above a structure that opens its line sets its answer aside ("Incorrect:\n{"answer": "B"}",
    "Respuesta incorrecta:\n```yaml ..."): a short label that rejects or negates; "" when none does."""
    hi = t.rfind("\n", 0, at)
    while hi > 0:
        lo = t.rfind("\n", 0, hi)
        above = t[lo + 1:hi].strip()
        if above and not _SKIP_LINE.fullmatch(above) and not re.fullmatch(r"(?:```|~~~)[\w+-]*", above):
            if above.rstrip(" *").endswith((":", "\uff1a")) and len(above) <= 60 and (
                    _REJECTING.search(above) or _WRONG.search(above) or pattern("negation").search(above)):
                return f"the answer is introduced as one that is not chosen ({above[-40:]!r})"
            if len(above) <= 60 and _DRAFT.search(above):  # "Draft answer:", "Borrador de la respuesta:", "草稿："
                return f"the answer is introduced as a draft ({above[-40:]!r})"
            return ""
        hi = lo
    return ""


_WRONG = re.compile(alternation(forms("incorrect")), re.I)
_DRAFT = re.compile(alternation(forms("draft")), re.I)
