"""The reading rule, top to bottom: read what a careful person reads, and fail closed on what can change it.

1. **The commitment.** Every place the text commits to an answer is found: a structure (:mod:`.structure`), a known
   commit form around an answer mention ("The answer is B", "Resposta: C", "答案是B", "B is correct", "I choose
   C"; the forms are data, :mod:`.forms`), or an answer standing alone in its sentence or line. The one that ends
   last is *the commitment*. A lower-case letter counts only in a commit form ("i'd say c"; never "a").
2. **It is understood whole.** Everything attached to the answer is read: the marks around it, what follows it
   in its sentence (its option's own words, "is correct", a ruled-out other answer "not C", a confidence note; an
   explanation after "because"), and the line above a bare answer, which must be a known label ("Final
   answer:") or a finished sentence ("Incorrect\\nB" and "The answer is not\\nB" are not read). An unknown word or
   mark there ("Answer != B", "B — idk", "B if mirrored", "~~B~~") leaves the text unread, in any language.
3. **The link, not the reasoning.** What leads to the commitment in its sentence need not be understood word by
   word, provided it is joined in a known way: after a link ("..., so the answer is C", "所以答案是C") or a
   withdrawal, or as an introducer closed by a comma ("Looking at the edges, the answer is C"). A condition
   ("If ..., C", "Assuming ..., A"), an unknown join or a lead-in naming another answer as chosen is not read.
4. **Everything after it.** Each sentence after the commitment must be known words ("Hope this helps!",
   "Confidence: 90%"), chat-UI residue (blanked before), or an explanation: one that opens with a connective or a
   section label ("because ...", "Explanation: ...": the rest of that paragraph), or that supports the answer
   ("The sky in C matches."). An explanation may describe or reject other options; it may not commit to, prefer
   or keep open another one, nor rule out or doubt the answer. Any other sentence leaves the text unread ("The
   answer is B. Just kidding, I have no idea."; "[2, 4, 1, 3]\\nI numbered the regions column by column.").
   A withdrawal ("wait", "actually", "just kidding") after the answer: only what follows it is read, by this rule.
5. **Nothing before it disagrees.** An earlier commitment to another answer, or another option said to fit as a
   whole ("C fits best.\nAnswer: D"), stands unless a withdrawal or a contrast ("but", "looking again"; not a bare
   "B, but D", nor a concession: "C. Although D fits." keeps D open) comes between; an order is not read when the
   regions or rows named beside it say otherwise (:mod:`.beside`), nor an answer after a ``<think>`` block whose
   last sentences commit to another one.

Every answer not read carries its reason (``Extraction.detail``); nothing is guessed.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Optional

from ...spec import ANOMALY, CHOICE, ORDER, ORIENTED
from .answers import mentions
from .common import AMBIGUOUS, INVALID, PARSED, Extraction, Mention, clause_start, clean, cut_off, region, thought, trails_off, units, unread
from .negation import negated, negation_span as _negation_span
from .cues import (_at, _BINDING, _BULLETS, _HEAD, _LABELLED_LINE, _conceded, _CHOICE_CONVENTION, _chosen_near, _CJK_OPEN, _clause_end, _CLOSED_END, Commit, CONCEDE_WORD, _CONFIDENCE,
                   _NUMBERING, _OR_NEXT, _OWN_LINE, _PLACE_LABEL, _THEREFORE, _DECOR, _explains, _FILLER_AFTER, _FIRST_PERSON, _FOOTNOTE_DEF, _IDIOMS,
                   _JOINED_OTHER, judged_fit, _KNOWN_PUNCT, _LINE_NEG, _LINE_POS, _NOT_OTHER, _NOTE, open_said, _paragraph_end, conceded_open,
                   denied_after, _PLAIN_FIRST_PERSON, PL_PLACE, _rejected, _REMARK, _REMARK_START, _RESTATES, _SEP_BEFORE, subject_before, _withdrawal,
                   said_against, earnest, undescribed, why_not)
from .forms import blank_unsure, pattern
from .meaning import conceded_until, fits_after, relative_denied, runners_up, WORSE
from .positions import rows_disagree
from .prose import TURN_SENSE, rotations_said
from .beside import appositives, Beside, committed_after, reason_beside, set_aside, turned_on
from .scope import Scope
from .structure import claims, streamed

#: Only the last this many characters of the region are read (bounded work per response).
MAX_CHARS = 16_384
#: Only the last this many answer mentions are judged as commitments (bounded work on degenerate text).
_MAX_MENTIONS, _LONGEST_LEAD, _THOUGHT_TAIL = 400, 600, 320
_GLOSS = re.compile(r"[ \t]*[(\[][ \t]*")  # an option's words in brackets after its letter say the same option


def read(text: str, spec, config: str, options=None, depth: int = 0) -> Extraction:
    """The answer ``text`` commits to, by the rule above."""
    if not isinstance(text, str) or not text.strip():
        return unread(INVALID, "empty response")
    text = (streamed(text) or text) if text.lstrip()[:6] in ("data: ", "event:", "data:{") else text  # SSE, pasted
    reg, truncated, why = region(text)
    if why:
        return unread(INVALID, why)
    if len(reg) > MAX_CHARS:
        reg = reg.rstrip()[-MAX_CHARS:]
    reg = reg.replace("\u2019", "'").replace("\u2018", "'")
    t = blank_unsure(clean(reg, pattern("residue"), pattern("offer")))  # "B, but I'm not sure.": a confidence note
    if not t.strip():
        return unread(INVALID, "empty response")
    t = runners_up(t) if spec.kind in (CHOICE, ORDER) else t  # "best: C, second: A": A is ranked, not kept open
    if spec.kind != ANOMALY and cut_off(reg):  # "..., so the answer would be": what it was about to say is not known
        return unread(AMBIGUOUS, "the text is cut off before the answer of its last commitment")
    ex = _Reading(t, reg, spec, config, options, depth, truncated).result()
    inner = thought(text, _THOUGHT_TAIL) if ex.status == PARSED and depth == 0 else ""  # its last sentences
    if inner.strip():  # "<think>... So it's A.</think> B": the reasoning concluded another answer
        said = read(inner, spec, config, options, depth + 1)
        if said.detail.startswith(_REMARK):  # "... So it's A — idk.</think> B": the reasoning's answer is not known
            return unread(AMBIGUOUS, f"the reasoning before </think> ends on {said.detail[0].lower()}{said.detail[1:]}")
        if said.status == PARSED and said.answer != ex.answer and said.rule in ("form", "retraction", "structure", "prose"):
            return unread(AMBIGUOUS, f"the reasoning before </think> concludes another answer ({said.answer!r})",
                          ex.parts, ex.rule)
        order = [int(d) for d in re.findall(r"\d+", ex.answer)] if spec.kind == ORDER else None
        if order and rows_disagree(inner, order, *spec.grid):  # "<think>... Row 3: 7 5 8.</think>"
            return unread(AMBIGUOUS, "the rows said before </think> give another order", ex.parts, ex.rule)
    return ex


_NUMBERED = re.compile(r"(?:^|\n)[ \t*\-]*\d{1,2}[.)][ \t]+\Z")  # a numbered line's start, just before an answer


class _Reading(Scope, Beside):
    def __init__(self, t, raw, spec, config, options, depth, truncated):
        self.t, self.spec, self.config, self.options, self.depth = t, spec, config, options, depth
        self.truncated = truncated
        self.claims = self._heard(raw, claims(raw, spec, options, self._value)) if depth < 3 else []
        masked = list(t)
        for c in self.claims:  # a structure's own text is masked (its lines kept)
            masked[c.start:c.end] = ["\n" if ch == "\n" else " " for ch in t[c.start:c.end]]
        self.m = appositives(set_aside("".join(masked)))
        self.mentions = mentions(self.m, spec, config, options)
        self._starts = [m.start for m in self.mentions]
        self._heads: Optional[set] = None
        self._inline: list = []
        self._items: dict = {}

    def _within(self, lo: int, hi: int) -> list[Mention]:
        """The mentions that start in ``[lo, hi)``."""
        return self.mentions[bisect_left(self._starts, lo):bisect_left(self._starts, hi)]

    def _listed(self, m: Mention) -> bool:
        """True when the answer's line is one of several lines that each start with an option ("A. sky", the
        prompt's option list echoed), or it heads one of several sentences that do ("A — sky. B — road."), or it opens
        one of several numbered lines that open with different answers ("1. [2, 1, 4, 3] (likelier)\n2. [1, 2, 4, 3]")."""
        t = self.m
        if self._heads is None:  # found once per text: the heads of lines, of sentences, and numbered items
            self._heads = {h.group(1) for h in _LABELLED_LINE.finditer(t)}
            inline = list(_HEAD.finditer(t))
            self._inline = [h.span() for h in inline] if len({h.group(1) for h in inline}) >= 2 else []
            items = {x.start: x.answer for x in self.mentions if _NUMBERED.search(t, max(0, x.start - 12), x.start)}
            self._items = items if len(set(items.values())) >= 2 else {}
        if _LABELLED_LINE.match(t, t.rfind("\n", 0, m.start) + 1) and len(self._heads) >= 2:
            return True
        return m.start in self._items or any(a <= m.start < b for a, b in self._inline)

    def _value(self, s: str) -> tuple[Optional[str], str]:
        ex = read(s, self.spec, self.config, self.options, self.depth + 1)
        return (ex.answer, "") if ex.status == PARSED else (None, ex.detail or "no answer")

    # ------------------------------------------------------------------------------------------ 1. commitments
    def result(self) -> Extraction:
        t = self.m
        commits = [Commit(c.start, c.start, c.end, c.answer, c.why or self._lead_in(c.start), "structure",
                          parts=c.parts) for c in self.claims if c.form != "void"]
        whole = self._whole()
        if whole is not None:
            commits.append(whole)
        commits += [c for c in map(self._commit, self.mentions[-_MAX_MENTIONS:]) if c is not None]
        commits += self._prose()
        commits = [c for c in commits if not c.question and (not self.truncated or c.rule in ("structure", "form"))]
        if not commits:
            named = [m for m in self.mentions if not negated(t, m.start, m.end)]
            if self.truncated:
                return unread(INVALID, "a truncated <think> block without a final answer")
            if named:
                return unread(AMBIGUOUS, "an answer is named but never committed to in words the reader knows",
                              self._parts(named[-1]))
            if self.mentions:
                return unread(AMBIGUOUS, "only rules answers out; names no answer", rule="negation")
            return unread(INVALID, "no answer found")
        final = max(commits, key=lambda c: (c.end, c.pos))
        if final.why.startswith(_BINDING[1]) and (best := [c for c in commits if not c.why and c.end <= final.start and
                                                            c.answer not in (None, final.answer)]):
            final = max(best, key=lambda c: c.end)  # "Best match: D\nWorst match: A": the worst one ranks the others
        if final.why and final.answer is not None:  # a restatement of a clean answer is read as its explanation
            clean_before = [c for c in commits if not c.why and c.answer == final.answer and c.end <= final.start]
            if clean_before:
                final = max(clean_before, key=lambda c: c.end)
        parts = final.parts or {}
        if final.why:
            return unread(AMBIGUOUS, final.why, parts, final.rule)
        if final.answer is None:
            return unread(INVALID, final.note or "no answer in the answer space", parts, final.rule)
        if any(c.end == final.end and c.answer not in (None, final.answer) for c in commits):  # one span, two readings
            return unread(AMBIGUOUS, "one commitment reads as two answers", parts, final.rule)
        after = self._tail(final)
        if after is not None:
            return after
        why = self._drafts(final, commits) or self._contradicted(final)
        if why:
            return unread(AMBIGUOUS, why, parts, final.rule)
        return Extraction(final.answer, PARSED, final.rule, "", dict(parts))

    def _commit(self, m: Mention) -> Optional[Commit]:
        t = self.m
        if negated(t, m.start, m.end) or self._listed(m) or trails_off(t, m.end):  # ruled out, listed, or cut off
            return None
        cs = max(clause_start(t, m.start), m.start - _LONGEST_LEAD)  # a longer sentence's start is reasoning
        back = t[max(cs, m.start - 240):m.start][::-1]
        fm = pattern("left").match(back) or self._typo_form(t, cs, m.start)
        if fm is not None:
            start, rule = m.start - fm.end(), "form"
        elif (lm := pattern("label").match(back) or self._typo_form(t, cs, m.start, "label")) is not None and (not _PLACE_LABEL.match(back, lm.start()) or (
                (_OWN_LINE.match(t, m.end) or (not t[:m.start - lm.end()].strip(_BULLETS) and self._remark_after(m)))
                and self._place_lead(t[t.rfind("\n", 0, m.start) + 1:m.start - lm.end()], m))):
            start, rule = m.start - lm.end(), "label"  # "Answer B", "Option C"; "Region B — ..." opening the text or
            # after an introducer ("Based on the texture, area D."); not "mask D", "region C" alone
        elif m.form == "text" and (sm := subject_before().match(back)) is not None:
            start, rule = m.start - sm.end(), "form"  # "They are not adjacent": the option's words said of the images
        else:
            start, rule = m.start - _DECOR.match(back).end(), "bare"
        end, pred, why, explain_at, clean = self._right(m, not t[:start].strip(_BULLETS))
        remark, why, clean = (why, "", True) if why and why.startswith(_REMARK) else ("", why, clean)  # "A — idk" stays
        if pred and rule == "bare":
            rule = "pred"
        if m.form == "lower" and (rule not in ("form", "label") or (t[m.start:m.end].lower() == "a" and not
                                                                   _SEP_BEFORE.search(t, max(cs, start - 3), m.start)
                                                                   and not _CLOSED_END.match(t, m.end) and not
                                                                   (len(t.strip()) <= 40 and not t[m.end:].strip()) and
                                                                   t[m.start - 1:m.end + 1] not in ("(a)", "[a]"))):  # no article
            if not (rule == "bare" and not t[cs:start].strip(_BULLETS) and clean and not why):
                return None
        lead, prev = t[cs:start], t[clause_start(t, cs - 1):cs].strip() if cs > 0 and t[cs - 1] != "\n" else ""
        if "?" in prev and (not re.sub(r"[\W_]", "", prev) or prev.rstrip(" ?\t").endswith(":")):
            return None  # after a stray mark, not a finished sentence ("A. ? B", "Final answer: ? A")
        if rule in ("bare", "label", "pred") and (why or not clean):
            return None  # a mention inside a description, not a commitment
        if rule in ("bare", "pred") and lead.strip(_BULLETS):
            if why := self._link(lead, m, cs):  # a conditional answer stays one: a later "So: A" does not free it
                return Commit(start, m.start, end, m.answer, why) if why.startswith(_BINDING) else None
            rule = "form"
        elif rule == "bare" or (m.form in ("block", "rows", "regions") and not lead.strip(_BULLETS)):
            above = self._line_above(cs, m)
            if above is None:
                return None
            start, why2 = above
            why = why or why2
            rule = "form" if m.form in ("block", "rows", "regions") or start < cs else "bare"
        else:
            linked = pattern("link").search(t, start, m.start) is not None  # "..., i.e. [3, 2, 1, 4]"
            restates = _RESTATES.search(t, start, m.start) is not None
            why = why or self._link(lead, m, cs, linked, restates)
        why = why or (self._restated_other(m, start) if _RESTATES.search(t, max(0, start - 6), m.start) else "")
        if m.answer is None and m.why and ("words" in m.why or "several" in m.why or "counts" in m.why or
                                           "?" in (m.parts or {}).values()):
            why = why or m.why
        if not t[:start].strip(_BULLETS) and not t[end:].strip(_BULLETS + ".!") and rule == "bare":
            rule = "short"
        return Commit(start, m.start, end, m.answer, why or remark, rule if rule != "label" else "form", explain_at, m.parts,
                      note=m.why)

    def _right(self, m: Mention, opening: bool = False):
        """(end, a commit form follows, why not understood, explanation start, all known) of what follows the answer."""
        t = self.m
        stop = _clause_end(t, m.end)
        stop = min(stop, conceded_until(t, m.end) or stop)  # "虽然一开始觉得是 A，但 ...": the conceded clause ends at its comma
        pos = min(pattern("close").match(t, m.end).end(), stop)
        opening = opening or not t[:m.start].strip(_BULLETS)  # the text opens with it ("They are side by side: ...")
        led = bool(t[t.rfind("\n", 0, m.start) + 1:m.start].strip(_BULLETS)) or (opening and m.form == "text")
        # (not "A: 0.45, B: ..." (an option's line))
        if led and pos > m.end and t[pos - 1] == ":" and _REMARK_START.match(t, pos - 1):
            pos -= 1  # "The answer is C: the two images are not adjacent" opens a remark, not a close of the answer
        pred = False
        pm = pattern("pred").match(t, pos)
        if pm is not None and pm.end() > pos and pm.end() <= max(stop, pos):
            pos, pred = pm.end(), True
            if pm.group(0).rstrip().lower().endswith((" with", " that", " for", " to", " which", " whose", " where")):
                ce = _clause_end(t, pos)  # "B is the one that fits"; not "B is the one that doesn't fit / is wrong"
                bad = next((b for k in ("negation", "hedge", "doubt", "condition") if (b := pattern(k).search(t, pos, ce))),
                           None) or _LINE_NEG.search(t, pos, ce) or WORSE.search(t, pos, ce)
                return ce, pred, bad and f"the clause after the answer says otherwise ({bad.group(0)!r})", pos, not bad
            pos = pos if _REMARK_START.match(t, pos) else min(pattern("close").match(t, pos).end(), stop)  # "fits: ..."
        why, explain_at = "", None
        if opening and ":" in t[m.end:pos] and len(self.mentions) == 1 and judged_fit(t, pos, stop):
            return pos, pred, "", pos, True  # "C: roofline matches": the one option named, judged a fit
        if t[m.end:].strip(" \t*") == ":":  # "- C:" ending the text: a list cut off there, not an answer
            return len(t), pred, "the text ends on a label with nothing after it", None, False
        while pos < stop:
            ch = t[pos]
            if (pos > m.end or led) and ch in "\u2014\u2013-:," and (m.form in ("letter", "lower", "list", "pairs", "block") or pred
                                                                   or opening) and \
                    _REMARK_START.match(t, pos - 1 if t[pos - 1] == " " else pos):
                rm = _REMARK_START.match(t, pos - 1 if t[pos - 1] == " " else pos)
                apposed = None if CONCEDE_WORD.search(rm.group(0)) else next(  # "A, although D is close": no apposition
                    (x for x in self._within(rm.end(), rm.end() + 6) if x is not m and not t[rm.end():x.start].strip(" (the")), None)
                if apposed is not None and apposed.value != m.value and not negated(t, apposed.start, apposed.end):
                    why = "letter and option text disagree"
                    break
                if said_against(t, rm.end()):
                    why = "the remark after the answer rules it out"  # "C – no", "B — wrong", "D: unlikely"
                    break
                if rm.end() < stop and not _at(pattern("withdraw"), t, rm.end()) and \
                        (apposed is None or apposed.value == m.value):  # "A — Candidate 1 matches the sunset"
                    why = f"{_REMARK} ({t[rm.end():stop].strip()[:40]!r})" if self._says_nothing(  # "B — idk"
                        pos - 1, rm.end(), stop, m.value) or undescribed(t, rm, stop) else ""
                    explain_at = None if why else pos
                    break
            if (ch in "(,t" or t[pos - 2:pos].strip(" ") == ",") and reason_beside(
                    t, pos, lambda a, b: [x for x in self._within(a, b) if x.value != m.value], m.start):
                explain_at = pos  # "A (the patch's fern fronds match the undergrowth)", "B, the one by the window"
                break
            if ch.isspace() or ch in _KNOWN_PUNCT:
                pos += 1
                continue
            same = next((x for x in self._within(pos, pos + 1) if x is not m), None)
            if same is not None:
                if same.value == m.value and same.value is not None:
                    pos = same.end
                    continue
                span = _negation_span(t, same.start, same.end)
                if span is not None:  # another answer ruled out: "C, not B", "Cevap C, B değil"
                    pos = max(span[1], same.end)
                    continue
                why = "letter and option text disagree" if same.form == "text" or m.form == "text" else \
                    f"another answer stands beside it ({t[same.start:same.end]!r})"
                break
            neg = _NOT_OTHER.match(t, pos)
            ruled = neg.end() if neg is not None else self._ruled_out_from(pos, stop)
            if ruled is not None:  # "B, not C" rules another out; "D pas (below)" rules out D's own words
                if any(x.value == m.value for x in self._within(pos, min(ruled + 3, stop)) if x is not m):
                    why = f"the answer is ruled out beside itself ({t[pos:ruled].strip()!r})"
                    break
                pos = ruled
                continue
            if (rm := _REMARK_START.match(t, pos)) and pos > m.end:  # "D, although the sky is off" (not "D, deși glorp")
                why, explain_at = (f"{_REMARK} ({t[rm.end():stop].strip()[:40]!r})", None) if undescribed(t, rm, stop) else ("", pos)
                break
            ex = _at(pattern("explain"), t, pos) or (_THEREFORE.match(t, pos) if t[:pos].rstrip()[-1:] in ",;" else None)
            if ex is not None and (ex.re is _THEREFORE or _explains(t, ex, inline=True)) and not (  # "candidate 2 also has"
                    m.form == "text" and ex.group(0).lower() == "also" and pos == m.end + 1):
                drawn = next((x for x in self._within(ex.end(), ex.end() + 16) if x.value != m.value
                              and not negated(t, x.start, x.end)), None)
                if ex.re is _THEREFORE and drawn is not None:  # "D, so C": another answer drawn from it
                    why = f"another answer follows the answer as its consequence ({t[drawn.start:drawn.end]!r})"
                    break
                explain_at = pos  # "The answer is B, so C is ruled out": what follows is read as its explanation
                break
            if _at(pattern("withdraw"), t, pos) is not None:
                stop = pos
                break
            cm = _CONFIDENCE.match(t, pos) or _at(_FILLER_AFTER, t, pos) or _at(pattern("neutral"), t, pos) or \
                _at(pattern("pred"), t, pos)
            if cm is not None and cm.end() > pos:
                pos = cm.end()
                continue
            pl = PL_PLACE.match(t, pos) if self.config.startswith("piece_localization") else None
            if pl is not None and pl.end() > pos:
                pos = pl.end()
                continue
            tok = re.match(r"[^\s,.;:!?)\]]+", t[pos:])
            why = f"a word the reader does not know stands by the answer ({tok.group(0) if tok else t[pos]!r})"
            break
        if not why and (t[stop:stop + 1] in ("?", "\uff1f") or t[m.end:stop].rstrip().endswith("?")):
            why = "the answer is asked or doubted, not given"
        return (stop if explain_at is None else explain_at), pred, why, explain_at, not why

    def _tail(self, c: Commit) -> Optional[Extraction]:
        t = self.m
        section = c.explain_at is not None
        para_end = _paragraph_end(t, c.end) if section else c.end
        for u0, u1 in units(t, c.end):
            body = t[u0:u1].strip(_BULLETS + ".!")
            if not body:
                continue
            w = _withdrawal(t, u0, u1)
            if w is not None:
                return self._reread(w)
            if u0 >= para_end:
                section = False
            head = u0 + len(t[u0:u1]) - len(t[u0:u1].lstrip(_BULLETS.replace("[", "")))
            ex = _at(pattern("explain"), t, head) or _FOOTNOTE_DEF.match(t, head)
            note = _NOTE.match(t, head)
            if note is not None and self.spec.kind in (ORDER, ORIENTED) and _NUMBERING.search(t, note.end(), u1) \
                    and not self._known(t[note.end():u1]):
                return unread(AMBIGUOUS, f"a note after the order that the reader does not know: {body[:60]!r}",
                              c.parts, c.rule)  # it may renumber the order ("each number is the position ...")
            if (ex is not None and _explains(t, ex)) or note is not None:
                section, para_end = True, _paragraph_end(t, u0)
            elif not section and (self._known(body) and not any(x.value for x in self._within(u0, u1)) or
                                  self._again(u0, u1, c)):  # known words; the answer again ("... of image 1. E")
                continue
            elif not section and self._again(u0, self._remark_at(u0, u1, c), c):  # "They are not adjacent: no edge ..."
                section, para_end = True, _paragraph_end(t, u0)
            elif not section and (self._refers(u0, u1, c) or self._rejects(u0, u1, c)):
                section, para_end = True, _paragraph_end(t, u0)  # the rest of its paragraph explains too
            elif not section and self._anomaly_again(u0, u1, c):  # the block said again in another language: the
                continue  # sentences after it must be understood
            elif not section:
                return unread(AMBIGUOUS, f"a sentence after the answer that the reader does not know: {body[:60]!r}",
                              c.parts, c.rule)
            why = self._explanation(u0, u1, c)
            if why:
                return unread(AMBIGUOUS, why, c.parts, c.rule)
        return None

    def _remark_after(self, m: Mention) -> bool:
        """The answer's clause goes on with a remark ("Region B (top-right) — the patch shows the gutter"), and no
        other answer is named after it."""
        rest, paren = self.m[m.end:m.end + 200], re.match(r"\s*\(([^()\n]{1,40})\)", self.m[m.end:m.end + 60])
        if paren is not None and PL_PLACE.fullmatch(paren.group(1)):
            rest = rest[paren.end():]
        return re.match(r"\s*(?:\u2014|\u2013|-|:)\s|\s*\.(?:\s|$)|\s*$|,[ \t]*the one(?![^\W_])", rest) is not None and \
            not any(x.value not in (None, m.value) for x in self._within(m.end, len(self.m)))

    def _reread(self, at: int) -> Extraction:
        if self.depth >= 3:
            return unread(AMBIGUOUS, "withdrawn too many times")
        again = read(self.t[at:], self.spec, self.config, self.options, self.depth + 1)
        if again.status == PARSED:
            return Extraction(again.answer, PARSED, "retraction", "", again.parts)
        return unread(AMBIGUOUS, "the answer is withdrawn without a clean new one")

    def _explanation(self, u0: int, u1: int, c: Commit) -> str:
        """Why an explanation after the answer is not one: it doubts, withdraws or disclaims the answer, keeps another
        answer open, or (after an order) changes its convention ("" when none of these)."""
        t = earnest(self.m, u0, u1)  # "No joke, the fence lines up": no doubt said
        d = pattern("doubt").search(t, u0, u1) or relative_denied(t, u0) or _CJK_OPEN.search(t, u0, u1) or self._differs(u0, u1, c.answer)
        if d is not None:
            return f"the answer is doubted or disclaimed after it is given ({d.group(0)!r})"
        me = _FIRST_PERSON.search(t, u0, u1)
        if me is not None and not _PLAIN_FIRST_PERSON.match(t, me.start(), u1):
            return f"the model speaks of itself after the answer ({t[me.start():me.start() + 30]!r}): not read as explanation"
        cond = pattern("condition").search(_IDIOMS.sub(" ", t[u0:u1]))
        if cond is not None and (len(cond.group(0)) >= 4 or cond.group(0).lower() == "if" or " " in cond.group(0) or
                                 cond.group(0) > "\u3000"):  # a CJK condition is a word of its own ("如果")
            return f"the answer is made to depend on a condition after it is given ({cond.group(0)!r})"
        if _JOINED_OTHER.match(t, u0):
            return "another answer is joined to the answer"
        if self.spec.kind == ORIENTED and c.parts and any(dict(zip(c.parts.get("order", ()), c.parts.get("rotations", ()))).get(
                i, r) != r for i, r in rotations_said(t[u0:u1])):  # "[(1, 90), ...]. Image 1 is already upright."
            return "the explanation turns an image otherwise than the answer"
        cv = next((v for v in pattern("convention").finditer(t, u0, u1) if self.spec.kind != ANOMALY or not TURN_SENSE.search(
            v.group(0))), None) or _CHOICE_CONVENTION.search(t, u0, u1) or self._regions_out_of_order(u0, u1)
        # (which way a tile turned changes no anomaly answer: "rotated 90° counter-clockwise" is a rotation either way)
        if cv is not None:
            return f"a note after the answer may change how it is read ({cv.group(0)!r})"
        wn, head = why_not(t, u0), self._option_head(u0, u1)  # "Why not the others:\n- A: the colours match, but ..."
        if head is not None:  # "Candidate 1 (A): a strip of sky, so it can't fit": one option judged on its line
            rest = t[head.end:u1]
            pos_, neg = _LINE_POS.search(rest) is not None, _LINE_NEG.search(rest) is not None
            if head.value == c.answer and neg and not pos_:
                return "the answer's own line after it rules it out"
            if head.value != c.answer and (pos_ or fits_after(t, head, u1)) and not neg and not wn:
                return f"another option is judged a match after the answer ({t[head.start:head.end]!r})"
        for x in self._within(u0, u1):
            if x is head or (head is not None and x.start < head.end + 12 and x.value == head.value) or any(  # "B (top-bottom)"
                    y.value == x.value and y.end <= x.start and _GLOSS.fullmatch(t, y.end, x.start) for y in self._within(u0, u1)):
                continue
            if x.answer is None and x.form == "text" and x.why:
                return f"the explanation names what is not the answer's option ({t[x.start:x.end]!r})"
            if x.answer is None or (x.form == "list" and self._enumerates(x)):
                continue
            if _OR_NEXT.match(t, x.end) and not negated(t, x.start, x.end):  # "Candidate 1 or 2", "candidate 1/2"
                return "answers are joined as alternatives after the answer"
            if x.answer == c.answer:
                if negated(t, x.start, x.end) or t[x.end:x.end + 2].strip().startswith("?") or denied_after(t, x) or turned_on(t, x):
                    return "the answer is ruled out or doubted after it is given"
            elif not negated(t, x.start, x.end) and (_chosen_near(t, x) or committed_after(t, x) or conceded_open(t, x) or not wn and ((
                    self._states(x) and not _rejected(t, x, self._within(x.end, u1))) or (fits_after(t, x, u1) and not _conceded(t, x, u0, u1)))):
                return f"another answer stays open after the final one ({t[x.start:x.end]!r})"
        if open_said(t, u0, u1, [x for x in self._within(u0, u1) if x.answer not in (None, c.answer)]):
            return "another answer stays open after the final one"
        return self._anomaly_after(u0, u1, c) if self.spec.kind == ANOMALY and c.parts else ""

    # ------------------------------------------------------------------------------------------ 4. before it


__all__ = ["read", "MAX_CHARS", "Commit"]
