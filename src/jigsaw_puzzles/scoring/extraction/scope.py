"""Where a commitment starts: the lead-in joined to it, the line above a bare answer, and the sentences around it
that a commitment's scope reads (see :mod:`.rule`, steps 1-3)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from ...spec import ANOMALY, CHOICE, ORDER, ORIENTED, format_order, format_oriented
from .answers import mentions
from .blocks import unlabelled_block
from .common import AMBIGUOUS, Mention, clause_start
from .negation import negated, negation_span as _negation_span
from .forms import corrected, forms, pattern, value
from .beside import rejected_above
from .meaning import _CONCEDED_END, described, fit_closed, paired_without, settled
from .positions import regions_said
from .prose import REST_FINE, anomaly_prose, oriented_prose
from .cues import (AND_WORDS, _ANOMALY_WORDS, _BULLETS, _chosen_near, _CODE_ECHO, Commit, _CONFIDENCE, _CONNECTOR, _CONTENT, DIFFERENT, OTHERS,
                   _COUNTED, _DANGLING, _IDIOMS, _JOINS_ANOTHER, _KNOWN_PUNCT, _LABELLED_LINE, _LEAD_DOUBT, _LINE_NEG, _OF_ARTICLE, _PAREN_LETTER,
                   _REFERENT, _REGION_INDEX, _REGION_NAME, _rejected, _REJECTING, _SKIP_LINE, _strip_all, _WORDS)

_CHECKED = re.compile(r"(?<![^\W_])(?:reconsider(?:ing)?|re-?check(?:ing)?|re-?examin(?:e|ing)|double[- ]check(?:ing)?|"
                      r"rethink(?:ing)?|look(?:ing)? again at|compar(?:e|ing)|test(?:ing)?|tr(?:y|ying))(?:[ \t]+the)?[ \t]*$", re.I)
_INTRO_CLOSED = re.compile(r"[,\uff0c\u3001\u060c]")


@lru_cache(maxsize=1)
def _labels() -> frozenset:
    labels, copulas = forms("label"), forms("copula")
    return frozenset(labels | {f"{a} {c}" for a in labels for c in copulas} | {a + c for a in labels for c in copulas})


def _label_alone(core: str) -> bool:
    """Only a label, with its copula ("The answer is", "Cevap", "答案")."""
    return " ".join(core.lower().split()).rstrip(" :\uff1a") in _labels()


_OPTIONS_HEAD = re.compile(r"^[\s*#>\-]*(?:(?:let(?:'s| us)\s+|i'll\s+|now\s+)?(?:look(?:ing)?\s+at|go(?:ing)?\s+through|"
                           r"check(?:ing)?|examin(?:e|ing)|consider(?:ing)?|review(?:ing)?|analy[sz](?:e|ing)|evaluat(?:e|ing))"
                           r"\s+)?(?:each\s+of\s+)?(?:the\s+|all\s+|these\s+|all\s+the\s+|the\s+four\s+|the\s+given\s+)?"
                           r"(?:options|candidates|choices|regions|areas|masks)(?:\s+(?:one\s+by\s+one|in\s+turn))?"
                           r"[ \t*]*[:\uff1a]?[ \t*]*$", re.I)
_LAST_SENTENCE = re.compile(r"(?:[.!?;\u0964\u06d4](?:[ \t]+)|[\u3002\uff01\uff1f\uff1b]|,[ \t]*(?i:but|however|still|anyway)[ \t,]+)([^.!?;\u0964\u06d4\u3002\uff01\uff1f\uff1b\n]{1,40}[:\uff1a][ \t*]*)$",
                            re.M)
#: A restating link that names the answer of the clause before it: "..., which is area C", "..., labelled C".
_RESTATING = re.compile(r"(?:,|[ \t][\u2014\u2013-])[ \t]*(?:which|that)(?:'s|[ \t]+(?:is|corresponds[ \t]+to|matches))(?![^\W_])|"
                        r",[ \t]*(?:label(?:l)?ed|marked)(?![^\W_])|[ \t][\u2014\u2013-][ \t]*that(?:'s|[ \t]+is)(?![^\W_])", re.I)
_THEN_END = re.compile(r"(?<![^\W_])(?:and\s+)?then[\s,:]*$", re.I)
#: An English sentence of fit after the answer that points at no other option, even without naming one ("The pattern on
#: the rug continues smoothly into it."): no option, number, or word that could point at another one.
_ABOUT_IT = re.compile(r"[A-Za-z][A-Za-z \t',;\-]*")
_ELSEWHERE = re.compile(r"(?<![^\W_])(?:another|other|others|else|different|ones?|first|second|third|fourth|fifth|sixth|"
                        r"last|previous|earlier|former|latter|better|best|worse|instead|rather|too|also|either|both|all|"
                        r"none|neither|each|every|any|only|more|less|than|but|if|when|unless|except|left|right|top|bottom|"
                        r"upper|lower|middle|centre|center|scratch|disregard|ignore|never|mind|oops|sorry|kidd\w*|jok\w*|"
                        r"guess\w*|random\w*|coin|sure|please|verify|check\w*|wrong|mistake|typo|meant|mean|actually|wait|"
                        r"hmm+|though|although|however|yet|still|whatever|any\w+|some\w+|which\w*|seems?|appears?|might|"
                        r"could|would|should|may|can|lol|jk|haha)(?![^\W_])", re.I)
_BETTER = re.compile(r"(?<![^\W_])(?:mejor|melhor|mieux|besser|meglio|lepiej|beter|лучше|краще|iyi|baik|hơn|bättre|lépe|"
                     r"καλύτερα|bine|bora|mabuti|بهتر|أفضل|बेहतर|טוב|অন্য|دوسر)(?![^\W_])|更|より|더|其他|別の|다른", re.I)
_BETWEEN_RULED = re.compile(rf"(?<=\0)[ \t,\uff0c\u3001]*(?:{AND_WORDS}|or|nor|та|oraz|ו|和|或|也)?[ \t,\uff0c\u3001]*(?=\0)", re.I)


class _Span:
    """How far back a corrected form reaches, read as a match of the reversed text (from 0)."""
    def __init__(self, n: int):
        self.n = n

    def start(self) -> int:
        return 0

    def end(self) -> int:
        return self.n


class Scope:
    """The lead and neighbourhood of a commitment; mixed into the rule's reading (:class:`.rule._Reading`)."""

    def _lead_in(self, at: int) -> str:
        """Why the words before a structure on its line do not join it ("" when they do: none, or known ones)."""
        lead = self.m[clause_start(self.m, at):at]
        s, licensed = _strip_all(lead)
        if not lead.strip(_BULLETS) or self._joined(s, lead, licensed, False):  # not under "Incorrect:"
            return rejected_above(self.m, at) if not lead.strip(_BULLETS) else ""
        return f"the answer is joined to {s.strip()[-50:]!r} in a way the reader does not know"

    def _parts(self, m) -> dict:
        return dict(m.parts or {})

    def _whole(self) -> Optional[Commit]:
        """The whole response is the answer: three anomaly letters alone ("B C A")."""
        if self.spec.kind != ANOMALY:
            return None
        m = unlabelled_block(self.m, self.spec)
        if m is None:
            return None
        return Commit(m.start, m.start, m.end, m.answer, m.why if m.answer is None and m.why else "", "short",
                      parts=m.parts)

    def _prose(self) -> list[Commit]:
        """Pieces in prose at the end ("Top-left: image 2, rotate 90°..."), an anomaly said in the last sentence."""
        spec, t, where = self.spec, self.m, []
        if spec.kind == ORIENTED:
            said = oriented_prose(t, *spec.grid, where) if spec.grid[0] * spec.grid[1] == spec.order_length else None
            if said is None:
                return []
            if said == AMBIGUOUS:
                return [Commit(where[0] if where else 0, 0, len(t), None, "the pieces' prose leaves more than one answer",
                               "prose")]
            order, rots = [i for i, _ in said], [r for _, r in said]
            ok = sorted(order) == list(range(1, spec.order_length + 1))
            return [Commit(where[0], where[0], where[1], format_oriented(order, rots) if ok else None,
                           self._prose_link(where[0], where[1]), "prose")]
        if self.config.startswith("connection_verification") and spec.grid == (2, 2) and len(spec.letters) == 3 \
                and not self.mentions:  # "Image 1 is the top-left region and image 2 the top-right one."
            lo = t.rstrip().rfind("\n") + 1
            said = regions_said(t[lo:])
            at = dict((img, r) for r, img in said)
            if len(said) != 2 or set(at) != {1, 2} or at[1] == at[2]:
                return []
            letter = "ABC"[0 if at[1] // 2 == at[2] // 2 else 1 if at[1] % 2 == at[2] % 2 else 2]
            return [Commit(lo, lo, len(t.rstrip()), letter, self._prose_link(lo, len(t.rstrip())), "prose")]
        if spec.kind == ANOMALY and not self.mentions:
            said = anomaly_prose(t, *spec.grid, where)
            if said is None:
                return []
            if said == AMBIGUOUS:
                return [Commit(where[0], where[0], where[1], None, "the last sentence leaves more than one answer open",
                               "prose")]
            from .blocks import _anomaly
            m = _anomaly(*said, spec, where[0], where[1])
            return [Commit(where[0], where[0], where[1], m.answer, self._prose_link(where[0], where[1], said[0] != "B"),
                           "prose", parts=m.parts)]
        return []

    def _prose_link(self, start: int, end: int, rejecting: bool = True) -> str:
        """Why a statement in prose is not given outright: a condition or a rejecting label in it or before it (not
        "The image is incorrect: ..." before the anomaly it names)."""
        span = self.m[clause_start(self.m, start):end]
        rej = _REJECTING.search(span)
        if rej is not None and not rejecting and re.fullmatch(r"[\W_]*(?:the (?:stitched )?image is )?(?:incorrect|wrong)[\W_]*",
                                                              rej.group(0), re.I):
            rej = None  # "The image is incorrect: the top-left piece is rotated" gives the anomaly
        cond = pattern("condition").search(_IDIOMS.sub(" ", span)) or rej
        return f"the answer depends on a condition ({cond.group(0)!r})" if cond else ""

    # ------------------------------------------------------------------------------------------ 2. one commitment
    def _typo_form(self, t: str, cs: int, pos: int, kind: str = "left"):
        """The commit form (or with ``kind="label"`` the label) before ``pos`` read with misspelt words corrected ("teh
        answer is", "Fianl answer:", "optoin b")."""
        left = t[max(cs, pos - 240):pos]
        words = list(_WORDS.finditer(left))
        fixed, changed = left, False
        for w in reversed(words):
            c = corrected(w.group(0))
            if c.lower() != w.group(0).lower():
                fixed, changed = fixed[:w.start()] + c + fixed[w.end():], True
        if not changed:
            return None
        fm = pattern(kind).match(fixed[::-1])
        if fm is None:
            return None
        n_words = len(_WORDS.findall(fixed[len(fixed) - fm.end():]))
        return _Span(len(left) - (words[-n_words].start() if 0 < n_words <= len(words) else len(left)))

    def _ruled_out_from(self, pos: int, stop: int) -> Optional[int]:
        """Where a ruled-out other answer that starts at ``pos`` (with its negation: "not horizontally (option A)")
        ends, else ``None``."""
        t = self.m
        for x in self._within(pos, min(stop, pos + 40)):
            span = _negation_span(t, x.start, x.end)
            if span is not None and (span[0] <= pos or not _CONNECTOR.sub("", t[pos:span[0]]).strip(" ,;")):
                end = max(span[1], x.end)
                letter = _PAREN_LETTER.match(t, end)
                return letter.end() if letter else end
        return None

    def _line_above(self, cs: int, m: Mention) -> Optional[tuple[int, str]]:
        """(start, why) for an answer alone in its clause: the line above it must be a known label, a finished
        sentence, or nothing; ``None`` when the clause is part of a list of options ("A. sky\\nB. sand")."""
        t = self.m
        if self._listed(m):
            return None
        if cs > 0 and t[cs - 1] != "\n":  # a sentence of its own after a finished one ("The roof continues. C.")
            after = t[m.end:].lstrip(" \t)]*\"'")
            if after[:1] in (".", "!", "\u3002") or m.form != "letter":
                return cs, ""
            ls = t.rfind("\n", 0, cs) + 1  # the letter ends the text after a sentence naming no other answer:
            others = set(re.findall(r"(?<![^\W_])[A-Z](?![^\W_]|')", t[ls:cs])) & set(self.spec.letters) - {m.answer}
            if not after.strip() and re.search(r"[^\W\d_]{3,}", t[ls:cs]) and not others and \
                    not any(x.value not in (None, m.value) for x in self._within(ls, cs)):  # "... the road continues. A"
                return cs, ""
            return None
        lo, hi = t.rfind("\n", 0, max(cs - 1, 0)), max(cs - 1, 0)
        while hi > 0 and (not t[lo + 1:hi].strip() or _SKIP_LINE.fullmatch(t[lo + 1:hi])):  # the first line too
            hi, lo = (lo, t.rfind("\n", 0, lo)) if lo >= 0 else (0, -1)
        above = t[lo + 1:hi].strip() if cs > 0 else ""
        if not above.strip(_BULLETS):
            return cs, ""
        if pattern("label_line").fullmatch(above):
            return lo + 1, ""
        last = _LAST_SENTENCE.search(t, lo + 1, hi)  # "... is rotated 180 degrees. Cevabım:": a label ends the line
        if last is not None and pattern("label_line").fullmatch(last.group(1).strip()) and not (
                last.group(0)[0] == "," and self._within(lo, last.start())):  # "It is not B, but my answer:\nB"
            return last.start(1), ""
        if _LABELLED_LINE.fullmatch(above) and self._heads is not None and len(self._heads) >= 2:
            return cs, ""  # the option list echoed above, then the answer alone
        x = next((x for x in self._within(max(0, lo - 400), hi) if hi - 3 <= x.end <= hi
                  and not t[x.end:hi].strip(_KNOWN_PUNCT + " ") and (x.start > lo or x.value == m.value)), None)
        if x is not None:  # an answer above, on its own line (a repeated block: the same one, ending on the line above);
            # another one: a run of answers, read under the line above the run ("Ruled out:\nB\nD")
            return (cs, "the line above rules the answer out" if x.value == m.value and negated(t, x.start, x.end) else "") \
                if x.value == m.value or x.start <= lo else (cs, (self._line_above(lo + 1, x) or (0, ""))[1])  # not "not B\nB"
        if self.spec.kind == ORIENTED and isinstance(oriented_prose(t[:hi], *self.spec.grid), list) or \
                self.spec.kind == ORDER and self.spec.order_length == 4 and regions_said(above):
            return cs, ""  # the pieces said region by region above (they must agree: _contradicted)
        if _OPTIONS_HEAD.search(above):  # "Looking at the options:" opens a walk through them, not the answer
            return cs, f"the line above introduces the options, not an answer ({above[-60:]!r})"
        said = last.group(1).strip() if last is not None else above  # its last sentence ("... For now, based on what I see:")
        said = said.split(",", 1)[1] if "," in said and pattern("fillers").fullmatch(said.split(",")[0].strip()) else said
        if above.rstrip(" *").endswith((":", "\uff1a")) and any(self._joins(x.rstrip(" *")[:-1]) or (
                pattern("intro").match(x.strip(_BULLETS)) and not pattern("condition").search(x)) or
                pattern("fillers").fullmatch(x.strip(_BULLETS).rstrip(" *:\uff1a")) for x in {above, said}):
            return lo + 1, ""  # "Given that the horizon is straight across all four pieces:", "I'm fairly confident:"
        sm = pattern("strip").match(above.rstrip(" *")[::-1])
        if sm is not None and sm.group(1) and not any(pattern(k).search(above) for k in ("condition", "negation", "hedge")) \
                and not _REJECTING.search(above):
            return lo + 1, ""  # "... is written backwards, hence" (a link ends the line)
        if m.form in ("block", "rows", "regions", "list", "pairs") and above.startswith("|") and above.endswith("|"):
            return cs, ""  # a table's last row above a block or an order
        if re.fullmatch(r"(?:question|prompt|user|input)\s*:?", above, re.I):
            return cs, ""  # the prompt echoed (blanked) under its label, then the answer
        end = above.rstrip(" *")
        if end.endswith((".", "!", "\u3002", "\uff01", ")", "]", "}", '"', "\u0964", "\u06d4", "\u104b", "\u17d4")) and len(above) >= 2 \
                or re.search(r"[\u0e01-\u0e4e]{12}$", end) and not end.endswith(tuple(forms("copula"))) and not any(  # Thai:
                    pattern(k).search(above) for k in ("negation", "hedge", "condition", "label_line")):  # no full stop
            return cs, ""
        if end.endswith(("?", "\uff1f")) and len(above) > 12:
            return cs, ""  # the question echoed, then the answer
        rejecting = _REJECTING.search(above)  # "Rejected ordering:\n[2, 1, 4, 3]": an answer set aside, not given
        return cs, (f"the answer is introduced as one that is not chosen ({rejecting.group(0)!r})" if rejecting else
                    f"the line above the answer is not understood ({above[-60:]!r})")

    def _joins(self, line: str) -> bool:
        """A line that introduces the answer below it: reasoning closed by a link ("..., so:"), or an introducer
        ("On close inspection, the top-right block is upside down:")."""
        if pattern("condition").search(_IDIOMS.sub(" ", line)):
            return False
        sm = pattern("strip").match(line[::-1])
        return bool(sm is not None and sm.group(1)) or (pattern("intro").match(line.strip(_BULLETS)) is not None and
                                                           "," in line)

    def _joined(self, s: str, lead: str, licensed: bool, others: bool, value=None) -> bool:
        """The lead-in ``lead``, left as ``s`` once its fillers and links are stripped, joins the commitment."""
        core = s.strip(_BULLETS + ",:;()[]")
        closed = s.rstrip().endswith(",") or lead[len(s):].lstrip().startswith(",")
        body = s.rstrip(" ,")
        last = body[max(body.rfind(","), body.rfind(";")) + 1:]  # "..., but from what I can make out, the answer is A"
        cjk = (not others or _CONCEDED_END.search(lead.rstrip()) is not None) and re.search(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af][ \t]*,[ \t]*$", lead) is not None and \
            not any(pattern(k).search(re.sub("不[过過]", "", lead)) for k in ("doubt", "hedge", "negation"))  # "两张图片是上下相邻的关系，答案选B"
        return not core or licensed or cjk or self._introduced(lead, value) or (closed and self._introduced(body + ",")) \
            or (closed and last != body and self._introduced(last + ",")) \
            or (self._known(core) and not others and not _DANGLING.search(core)) or (not others and fit_closed(lead))

    def _about_it(self, s: str) -> bool:
        """Words only, and in another script or language none of the table's words that could point at another option
        (a choice or contrast word, "other", an ordinal, a direction, "better")."""
        if _ABOUT_IT.fullmatch(s.strip(" \t.!")) is not None:
            return True
        return re.fullmatch(r"[^\W\d_](?:[^\W\d_]|[ \t',;\-\u00b7\u200c\u0900-\u09ff\u0e00-\u0e7f\u064b-\u065f\u3001\uff0c])*",
                            s.strip(" \t.!\u3002\u0964\u06d4"))\
            is not None and not (DIFFERENT.search(s) or _BETTER.search(s) or any(pattern(k).search(s) for k in (
                "choice", "contrast", "ordinal", "direction", "place", "explain", "link")))

    def _place_lead(self, before: str, m: Mention) -> bool:
        """What stands before a place label on its line ("area D") lets it commit: nothing, or an introducer closed by
        its comma ("Considering the brick pattern, masked area D")."""
        return not before.strip(_BULLETS) or before.rstrip().endswith(",") and self._introduced(before, m.value)

    def _introduced(self, lead: str, value=None) -> bool:
        body = lead.strip(_BULLETS)
        im = pattern("intro").match(body) if body else None
        if im is None or not lead.rstrip().endswith((",", "\uff0c", "\u3001", "\u060c", ":", "\u2014")) or \
                pattern("condition").search(_IDIOMS.sub(" ", lead)) is not None:
            return False
        cut = _INTRO_CLOSED.search(body, im.end()) if value is not None and lead.rstrip().endswith((":", "\u2014")) else None
        rest = body[cut.end():] if cut is not None else ""  # ("Looking at the edges, A glede : Candidate 1": the
        # introducer closed at its comma; the answer said after it, beside a word the reader does not know, is no part
        # of it; a letter that may be an article too: "A co :")
        return not rest or all(x.value != value for x in mentions(rest, self.spec, self.config, self.options)) and not (
            self.spec.kind == CHOICE and re.search(rf"(?<![^\W_]){re.escape(str(value))}(?![^\W_])", rest))

    def _concluded(self, m: Mention, lo: int, hi: int) -> bool:
        """The answer restated from a list in ``[lo, hi)`` that holds it too ("A: 0.9, B: 0.1 -> A")."""
        return any(y.value == m.value for y in self._within(lo, hi) if y is not m)

    def _restated_other(self, m: Mention, start: int) -> str:
        """A restating link that opens its clause ("选项B，即 [1, 4, 2, 3]"): the clause before, in its sentence and on
        its line, must not name another answer."""
        prev = self._within(max(clause_start(self.m, max(0, start - 1)), self.m.rfind("\n", 0, start) + 1), start)
        other = next((x for x in prev if x.answer not in (None, m.answer) and not negated(self.m, x.start, x.end)), None)
        if other is not None and self._concluded(m, self.m.rfind("\n", 0, start) + 1, start):
            return ""
        return f"the answer restates another one ({self.m[other.start:other.end]!r})" if other else ""

    def _link(self, lead: str, m: Mention, lo: int, linked: bool = False, restates: bool = False) -> str:
        """Why the sentence's lead-in ``lead`` (at ``lo``) is not joined to the commitment in a known way ("" when
        it is)."""
        said = _IDIOMS.sub(lambda x: " " * len(x.group(0)), self.m[lo:m.start])[:len(lead)]  # "If I had to pick, B"
        cond = pattern("condition").search(said) or _LEAD_DOUBT.search(lead) or \
            pattern("convention").search(lead)
        if cond is not None:
            return f"the answer depends on a condition ({cond.group(0)!r})"
        rejecting = _REJECTING.search(self.m, lo, m.start)
        if rejecting is not None:
            return f"the answer is introduced as one that is not chosen ({rejecting.group(0)!r})"
        if _CHECKED.search(lead):  # "Let me reconsider candidate 2 against candidate 4": what is checked, not chosen
            return f"the answer is what is checked again, not given ({lead.strip()[-30:]!r})"
        t, hi = self.m, lo + len(lead)
        s, others, ruled = list(lead), False, False
        for x in (lead_in := self._within(lo, hi)):  # other answers ruled out, and the answer said again, are understood
            if x.end <= hi and x is not m:
                if x.value == m.value and x.value is not None:
                    a, b = x.start, x.end
                elif negated(t, x.start, x.end):
                    a, b = _negation_span(t, x.start, x.end)
                    ruled = True
                    p = _PAREN_LETTER.match(t, b)
                    b = p.end() if p else b
                elif any(y.start == x.start - 1 or 0 < x.start - y.end <= 2 for y in self._within(x.start - 60, x.start)
                         if y is not x and negated(t, y.start, y.end) and y.end <= x.start):
                    continue  # the letter of an option ruled out just before: "not upper left (F)"
                elif ((x.answer is not None and _chosen_near(t, x)) or self._states(x) and not (x.why.startswith("an edge's") and
                        t[x.start:x.start + 3].lower() == {"A": "ver", "B": "hor"}.get(m.value))) and not settled(t, x, m, self._within(lo, hi)):
                    # (a horizontal seam joins crops stacked vertically: said before B it agrees)
                    return f"another answer is named as chosen before it ({t[x.start:x.end]!r})"
                else:
                    if (pair := paired_without(t, x, m, lead_in)) or (restates and x.answer != m.answer and not self._concluded(m, lo, hi)):
                        return f"the answer is neither of {pair!r}" if pair else f"the answer restates another one ({t[x.start:x.end]!r})"
                    others = True
                    continue
                for i in range(max(a, lo), min(b, hi)):
                    s[i - lo] = "\0"
        # "and" between two answers ruled out is understood too: "Not A and not C, but B", "Не A и не C, а B"
        if others and _THEN_END.search(lead):  # "Region C is where I'd look first, then B": a sequence, not a choice
            return "the answer follows another one in a sequence"
        s, licensed = _strip_all(_BETWEEN_RULED.sub("\0", "".join(s)).replace("\0", " "))
        licensed = licensed or linked
        said = _RESTATING.search(self.m, lo, m.start)  # "The patch comes from the roof, which is area C"
        if said is not None and not others and not (ruled or _IDIOMS.search(self.m, lo, said.start())) and not any(
                pattern(k).search(self.m, lo, said.start()) for k in ("negation", "hedge", "condition", "doubt", "withdraw")):
            return ""
        if _JOINS_ANOTHER.match(s):
            return "the answer is joined to another one"
        if self._joined(s, lead, licensed, others, m.value):
            return ""
        fixed = _WORDS.sub(lambda w: corrected(w.group(0)), s)  # misspelt: "teh answer is", "Fianl answer:"
        if fixed != s and self._joined(_strip_all(fixed)[0], fixed, _strip_all(fixed)[1] or licensed, others):
            return ""
        core = s.strip(_BULLETS + ",:;()[]")
        if ruled and _label_alone(core):  # "The answer is not B, but D", "Cevap C değil, A", "答案不是C，而是A"
            return ""
        return f"the answer is joined to {core[-50:]!r} in a way the reader does not know"

    # ------------------------------------------------------------------------------------------ 3. after it
    def _regions_out_of_order(self, u0: int, u1: int):
        """Region names listed in another order than the prompt's ("That's top-left, bottom-left, top-right, ...",
        "「左上、左下、右上、右下」の順"), each where it is first named: the order's convention changed."""
        if self.spec.kind not in (ORDER, ORIENTED) and not self.config.startswith("order"):
            return None
        named = sorted([*_REGION_NAME.finditer(self.m, u0, u1), *pattern("place").finditer(self.m, u0, u1)], key=lambda m: m.start())
        seq = list(dict.fromkeys(i for m in named if (i := _REGION_INDEX.get(re.sub(r"[\s-]+", "-", value("place", m.group(0)) if m.re is not
                                 _REGION_NAME else m.group(0).lower().replace("upper", "top").replace("lower", "bottom")))) is not None))
        return named[0] if len(seq) >= 3 and seq != sorted(seq) else None

    def _rejects(self, u0: int, u1: int, c: Commit) -> bool:
        """A sentence that rules other options out ("A is wrong because ...", "Not C or D: those are on the water.",
        "A: too dark.")."""
        t, xs = self.m, [x for x in self._within(u0, u1) if x.answer is not None]
        if not xs or any(x.value == c.answer for x in xs):
            return False
        head = self._option_head(u0, u1)
        return all(negated(t, x.start, x.end) or _rejected(t, x) or (x is head and _LINE_NEG.search(t, x.end, u1))
                   for x in xs)

    def _option_head(self, u0: int, u1: int) -> Optional[Mention]:
        """The option a line opens with, as a label ("A: ...", "Candidate 2 (B) - ...", "Option C [2, 1, 4, 3]: ...")."""
        t = self.m
        lead = u0 + len(t[u0:u1]) - len(t[u0:u1].lstrip(_BULLETS.replace("(", "").replace("[", "") + "\u2022"))
        first = next(iter(self._within(lead, lead + 12)), None)
        if first is None or t[lead:first.start].strip().lower() not in ("", "option", "candidate", "answer", "mask",
                                                                          "area", "region", "masked area"):
            return None
        after = re.match(r"(?:\s*\([^()\n]{1,40}\)|\s*\[[\d, ]+\])*\s*(?:[:.)\-\u2013\u2014]|->)", t[first.end:u1])
        return first if after else None

    def _enumerates(self, x: Mention) -> bool:
        """Numbers that count the images rather than order them ("images 1, 2, 3, 4 were given shuffled")."""
        t = self.m
        return t[x.start] not in "[(" and (x.value == format_order(range(1, self.spec.order_length + 1)) or
                                           _COUNTED.search(t, max(0, x.start - 16), x.start) is not None)

    def _states(self, x: Mention) -> bool:
        """An option's own words that state it (a relation, a direction, an order), unlike a candidate named in a
        description: said of another option, they disagree with the answer."""
        return x.form in ("list", "rows", "regions", "pairs") or (x.form == "text" and bool(self.spec.letters) and
                                                         not self.config.startswith("missing_piece"))

    def _differs(self, u0: int, u1: int, answer):
        """A sentence after a piece's answer that says a piece differs ("A — the brick colour is different", "другой
        цвет"), naming no other option and no word of the others: it may say the answer does not fit."""
        dif = DIFFERENT.search(self.m, u0, u1) if self.config.startswith(("missing_piece", "piece_loc")) else None
        return dif if dif is not None and not OTHERS.search(self.m, u0, u1) and all(
            x.value in (None, answer) for x in self._within(u0, u1)) else None

    def _known(self, body: str) -> bool:
        """Only known words, numbers and marks (a mark the vocabulary does not list, "❌", "¬", "≠", is unknown)."""
        rest = _CONFIDENCE.sub(" ", re.sub(r"[ \t]{2,}", " ", pattern("neutral").sub(" ", _CODE_ECHO.sub(" ", body))))  # (runs: quadratic)
        return not re.sub(r"[\s\d_\u2500-\u257f]+", "", rest).strip(_KNOWN_PUNCT + "\u2026/|`#%&+<>\uff1f\uff01\uff1a\uff1b\u300c\u300d")

    def _refers(self, u0: int, u1: int, c: Commit) -> bool:
        """A sentence that says why the answer fits: it names the answer (or opens with "It", "This piece", ...) and
        says a word of fit ("The sky in C matches.", "It continues the roof line."); for an anomaly, it names its
        cell or its kind of change ("The top-left tile is upside down.")."""
        s = self.m[u0:u1]
        names = any(x.value == c.answer for x in self._within(u0, u1)) or \
            _REFERENT.match(s) is not None
        if self.spec.kind == ANOMALY and c.parts and REST_FINE.fullmatch(s.strip(" \t.!*")):
            return c.parts.get("judgment") == "B"  # "... is upside down. Everything else is fine."
        if self.spec.kind == ANOMALY and c.parts and not names:
            said = anomaly_prose(s, *self.spec.grid)
            if said == tuple(c.parts.get(k) for k in ("judgment", "position", "type")):
                return True  # the block said again in words, in any language ("La pieza inferior izquierda está reflejada")
            names = isinstance(said, tuple) or bool(_ANOMALY_WORDS.search(s))
        sm = pattern("support").search(s) or (pattern("describe").search(s) if described(s) and self.spec.kind != ANOMALY else None)
        said = [x.end - u0 for x in self._within(u0, u1) if x.value == c.answer] if self.spec.kind == CHOICE else []
        if said and any(pattern("negation").search(s, max(said[0], m.start() - 24), m.start()) for m in  # "A's edge doesn't
                        pattern("support").finditer(s, said[0]) if m.start() - said[0] < 40):  # line up"
            return False
        if sm is None or (pattern("negation").search(s, max(0, sm.start() - 24), sm.start()) is not None and
                          not self.config.startswith("connection_verification") and  # "don't share an edge": C
                          not re.search(r"(?<![^\W_])(?:others?|rest|remaining|else|none|neither|nor)(?![^\W_])", s, re.I)):  # "the others don't fit"
            return False
        return names or _CONTENT.search(s) is not None or pattern("content").search(s) is not None or (
            self._about_it(s) and _ELSEWHERE.search(s) is None and not self._within(u0, u1)
            and not any(not _OF_ARTICLE.match(s, h.start()) for k in ("negation", "hedge", "condition", "doubt", "withdraw")
                        for h in pattern(k).finditer(s)))  # (Dutch "of" is "or"; "the colours of the wall" is not)
