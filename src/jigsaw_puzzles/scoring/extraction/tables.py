"""Answers given as a table: a markdown table of options with one row marked (✅, "selected", "← answer"), an anomaly's
fields or an order's regions in a table, and per-option verdict lists ("A: no / B: yes", "A ✗ B ✓ C ✗")."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from ...spec import ANOMALY, CHOICE, LETTERS, ORDER, ORIENTED, format_anomaly, format_order
from .forms import alternation, forms, pattern
from .common import Claim, key as _key
from .positions import cells_named

TABLE = re.compile(r"(?:^[ \t]*\|[^\n]*\|[ \t]*(?:\n|$)){3,}", re.M)
_MARK = r"\u2713|\u2717|\u2705|\u274c|\u2714\ufe0f?|\u2718|\u2611\ufe0f?|\u2b1c|\u2b1b|\U0001f7e2|\U0001f534|\u2716\ufe0f?"
_VERDICT_WORD = (r"yes|no|correct|incorrect|wrong|right|true|false|matches|match|no match|does not match|doesn't match|"
                 r"fits|does not fit|doesn't fit|ok|okay|对|不对|正确|错误|是|否|o|x|" + _MARK)
_VERDICT = re.compile(r"(?:^|(?<=[\n;,.\s]))[ \t]*(?:[-*\u2022][ \t]*)?(?:option[ \t]+|candidate[ \t]*(?=\d))?[(\[]?((?-i:[A-Z1-9]))[)\]]?[ \t]*"
                      r"(?:\[[\d,\s]+\][ \t]*)?(?:[:=\-\u2013\u2014]|->|\u2192)?[ \t]*(" + _VERDICT_WORD + r")"
                      r"(?=[ \t]*(?:[,.;:!\n(\u2014\-]|\s+[A-Z(\[]|\s+(?:" + _MARK + r")|$))"
                      r"|(?:^|(?<=\s))(" + _MARK + r")[ \t]*(?:option[ \t]+)?[(\[]?((?-i:[A-Z]))[)\]]?(?![A-Za-z0-9])", re.I | re.M)
#: An option kept possible, in a table's row or a verdict list ("| C | maybe |", "C: ?").
_OPEN = r"(?:(?<![^\W_])(?:maybe|perhaps|possibly|unsure|not sure|uncertain|could be|might|either)(?![^\W_])|\?)"
_OPEN_MARK = re.compile(_OPEN, re.I)
_OPEN_VERDICT = re.compile(r"(?:^|(?<=[\n;,.\s]))[ \t]*(?:[-*\u2022][ \t]*)?[(\[]?((?-i:[A-Z]))[)\]]?[ \t]*(?:[:=\-\u2013\u2014]|->)?"
                           r"[ \t]*" + _OPEN, re.I | re.M)
_VERDICT_POS = {"yes", "correct", "right", "true", "\u2713", "\u2705", "\u2714", "\u2714\ufe0f", "match", "matches",
                "fits", "ok", "okay", "对", "正确", "是", "o", "\u2611", "\u2611\ufe0f", "\U0001f7e2"}


def _cells(row: str) -> list[str]:
    return [" ".join(c.replace("*", " ").split()) for c in row.strip().strip("|").split("|")]


_POS_MARK = re.compile(r"^(?:\u2705|\u2713|\u2714\ufe0f?|\u2611\ufe0f?|\U0001f7e2)|(?:<-+|\u2190|\u2b05\ufe0f?)\s*(?:answer|"
                       r"selected|chosen|pick|this)?$|^(?:yes|selected|chosen|correct|picked|answer|best|x)$|\b(?:selected|"
                       r"chosen)\b", re.I)
#: A column that asks which row is chosen ("Best?", "Selected", "Pick"), and a star that marks its row there.
_PICK_HEADER = re.compile(r"(?:best|selected|chosen|pick(?:ed)?|choice|winner)\s*\??", re.I)
_STAR = re.compile(r"\u2605|\u2b50\ufe0f?|\U0001f31f")
_NEG_MARK = re.compile(r"^(?:\u274c|\u2717|\u2718|\u2716\ufe0f?|\u2b1c|\U0001f534)|^(?:no|incorrect|wrong|-|\u2014)?$", re.I)


def table(t: str, m: re.Match, spec, text, anomaly) -> Optional[Claim]:
    """A markdown table: options with one row marked (✅, "selected", "← answer" in a cell), an anomaly's fields or
    each cell's status, or an order's regions."""
    rows = [_cells(r) for r in m.group(0).strip().split("\n")]
    rows = [r for r in rows if not all(re.fullmatch(r"[\s:\-]*", c) for c in r)]
    if len(rows) < 2:
        return None
    body = rows[1:] if not any(text(c)[0] for c in rows[0]) else rows
    if spec.kind == ANOMALY:
        fields = {_key(r[0]): r[1] for r in body if len(r) >= 2}
        if {"judgment", "judgement"} & set(fields):
            a, why = anomaly(fields)
            return Claim(m.start(), m.end(), a, why, "table")
        return None
    if spec.kind == ORDER:  # | top-left | 3 |: the image each region holds
        cells: dict[str, int] = {}
        for r in body:
            if len(r) >= 2 and r[-1].isdigit():
                named, why = cells_named(r[0], *spec.grid)
                if len(named) == 1 and not why:
                    cells[next(iter(named))] = int(r[-1])
        n = spec.order_length
        if len(cells) == n:
            order = [cells.get(LETTERS[i]) for i in range(n)]
            ok = None not in order and sorted(order) == list(range(1, n + 1))
            return Claim(m.start(), m.end(), format_order(order) if ok else None, "" if ok else
                         "the table's regions do not make one order", "table", {"order": tuple(order)})
        return None
    if spec.kind == ORIENTED:
        return None
    if any(re.search(r"(?i)exclud|eliminat|reject|wrong|ruled|discard|not\b|no\b|worst|least", c) or pattern("negation").search(c)
           for c in rows[0]) and body is not rows:
        return None  # the marks say what is ruled out ("Excluded?", "¿Descartada?")
    yes = forms("yes") if body is not rows and any(pattern("support").search(c) for c in rows[0]) else frozenset()
    marked, seen, open_ = [], 0, []
    picks = [i for i, c in enumerate(rows[0]) if _PICK_HEADER.fullmatch(c)] if body is not rows else []
    def option(c):  # "A (क्षैतिज)": a relation's letter with its words in brackets, in any language, that agree with it
        if len(c) <= 40 and text(c)[0] is not None:
            return text(c)[0]
        b = re.fullmatch(r"(.{1,12}?)\s*\(([^()]{1,30})\)", c)
        said = [k for k in ("horizontal", "vertical", "apart") if b and pattern(k).search(b.group(2))]
        words = pattern("apart").sub(" ", b.group(2)) if said == ["apart"] else b and b.group(2)  # "(सटे हुए नहीं)": "not adjacent"
        return text(b.group(1))[0] if len(said) == 1 and not pattern("negation").search(words) and text(b.group(1))[0] == \
            {"horizontal": "A", "vertical": "B", "apart": "C"}[said[0]] and spec.kind == CHOICE and spec.letters == "ABC" else None
    for r in body:
        opt = next((c for c in r if option(c) is not None), None)
        if opt is None:
            continue
        seen += 1
        others = [c for c in r if c is not opt]
        if any(_OPEN_MARK.search(c) for c in others) and not any(_NEG_MARK.search(c) for c in others):
            open_.append(option(opt))  # "| C | maybe |": a row kept open
        if any(_POS_MARK.search(c) or c.lower() in yes for c in others) and not any(  # "| C | sí |" under "¿Coincide?"
                _NEG_MARK.search(c) and c for c in others if not _POS_MARK.search(c)) or any(  # "| B | 8 | \u2605 |" under
                i < len(r) and _STAR.fullmatch(r[i]) for i in picks):  # "Best?"

            marked.append(option(opt))
    if seen < 2 or not marked:
        return None
    if set(open_) - set(marked):
        return Claim(m.start(), m.end(), None, "a row of the table is kept open: " + "/".join(sorted(set(open_))), "table")
    if len(set(marked)) > 1:
        return Claim(m.start(), m.end(), None, "several rows of the table are marked: " + "/".join(sorted(set(marked))),
                     "table")
    return Claim(m.start(), m.end(), marked[0], "", "table")



def verdicts(t: str, spec, free) -> Optional[Claim]:
    """Per-option verdicts ("A: no\\nB: yes\\nC: no", "A ✗ B ✓ C ✗"): exactly one positive is the answer."""
    last: dict[str, bool] = {}
    spans = []
    for m in _VERDICT.finditer(t):
        letter, word = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if letter.isdigit():  # "Candidate 4: ✓" on Missing Piece Selection
            if not re.match(r"[ \t\-*\u2022]*candidate", t[m.start():], re.I) or int(letter) > len(spec.letters):
                continue
            letter = spec.letters[int(letter) - 1]
        if letter in spec.letters and free(m.start()):
            last[letter] = word.lower() in _VERDICT_POS
            spans.append(m.span())
    if len(last) < 2:
        return None
    pos = sorted(k for k, v in last.items() if v)
    start, end = spans[0][0], spans[-1][1]
    kept = {m.group(1) for m in _OPEN_VERDICT.finditer(t, start, min(len(t), end + 80))} & set(spec.letters)
    if kept - set(pos):  # "A: no / B: yes / C: maybe": another kept open
        return Claim(start, end, None, "an option is judged possible beside the one judged correct: " + "/".join(sorted(kept)),
                     "verdicts")
    if len(pos) == 1:
        return Claim(start, end, pos[0], "", "verdicts")
    if pos:
        return Claim(start, end, None, "several options judged correct: " + "/".join(pos), "verdicts")
    return None


#: One sub-image's state per line or row: "Top-left: OK", "| F | mirrored horizontally |", "C - rotated 90°".
_STATUS_LINE = re.compile(r"^[ \t>*\-\u2022|]*([A-Za-z][A-Za-z \-]{0,24}?|\(?[A-I]\)?)[ \t*]*(?:[:|=]|[ \t][\-\u2013\u2014][ \t]|->)[ \t*]*"
                          r"([^\n|]{1,40}?)[ \t*|]*$", re.M)
_NORMAL_ANY = re.compile(r"normal|ok|fine|correct|intact|upright|unchanged|no change|as expected|good|\u2713|\u2705|\u2714",
                         re.I)
_STATE_EXTRA = re.compile(r"(?<![^\W_])(?:horizontally|vertically|left-to-right|top-to-bottom|by|degrees|deg|clockwise|"
                          r"upside|down|(?:90|180|270)\s*\u00b0?|\u00b0)(?![^\W_])|[\s.,;!\u00b0]", re.I)
_NORMAL = re.compile(r"(?:normal|ok|okay|fine|correct|intact|upright|unchanged|no change|as expected|good|\u2713|\u2705|"
                     r"\u2714\ufe0f?)[.!]?", re.I)


@lru_cache(maxsize=None)
def _words(kind: str) -> re.Pattern:
    return re.compile(alternation(forms(kind)), re.I)


def statuses(t: str, spec) -> Optional[Claim]:
    """Anomaly Detection as one state per sub-image ("Top-left: OK / ... / Bottom-left: rotated 90°"): every cell
    said once, at most one changed, its change one of rotation or mirroring."""
    if spec.kind != ANOMALY:
        return None
    rows, cols = spec.grid
    if len(_NORMAL_ANY.findall(t)) < rows * cols - 1:  # all but one said to be fine, or no such list
        return None
    turned, flipped = _words("rotation"), _words("mirroring")
    said: dict[str, str] = {}
    spans: list[tuple[int, int]] = []
    for m in _STATUS_LINE.finditer(t):
        cells, why = cells_named(m.group(1), rows, cols)
        if why or len(cells) != 1:
            continue
        state = m.group(2).strip()
        if _NORMAL.fullmatch(state):
            v = "ok"
        elif _STATE_EXTRA.sub("", flipped.sub("", turned.sub("", state))).strip():
            v = "?"  # a word or mark more ("mirrored (?)", "not rotated", "rotated counterclockwise")
        else:
            v = "A" if turned.search(state) and not flipped.search(state) else \
                "B" if flipped.search(state) and not turned.search(state) else "?"
        cell = next(iter(cells))
        if cell in said and said[cell] != v:
            v = "?"
        said[cell] = v
        spans.append(m.span())
    if len(said) < rows * cols or set(said) - set(LETTERS[:rows * cols]):
        return None
    changed = {c: v for c, v in said.items() if v != "ok"}
    start, end = spans[0][0], spans[-1][1]
    if not changed:
        return Claim(start, end, format_anomaly(), "", "statuses")
    if len(changed) == 1 and "?" not in changed.values():
        (cell, kind), = changed.items()
        return Claim(start, end, format_anomaly(cell, kind), "", "statuses")
    return Claim(start, end, None, "the sub-images' states do not make one answer", "statuses")




#: "Ranking: C > A > B > D", "Ranking (worst to best): D < B < A < C": the best is the answer, if the text says which.
RANKING = re.compile(r"(?<![^\W_])(?:ranking|ranked|rank|order of (?:preference|likelihood))[ \t]*(\([^()\n]{0,40}\))?[ \t]*"
                      r"[:=][ \t]*((?-i:[A-Z])(?:[ \t]*(?:>|<|,|>=|<=)[ \t]*(?-i:[A-Z])){1,8})(?![\w(\[])", re.I)
#: Ranks as lines: "1st: D / 2nd: B / 3rd: A" (a tie for the first rank is no answer).
RANK_LINES = re.compile(r"(?:^[ \t*\-]*(?:1st|2nd|3rd|[4-9]th|#[1-9]|first|second|third|fourth)[ \t]*(?:\(tie[d]?\))?[ \t]*"
                         r"[:.)\-][ \t]*[(\[]?(?-i:[A-Z])[)\]]?[ \t]*(?:\n|$)){2,}", re.M | re.I)
_UP = re.compile(r"(?:worst|least|lowest)\W+(?:\w+\W+)?to\W+(?:the\W+)?(?:best|most|highest)", re.I)
_DOWN = re.compile(r"(?:best|most|highest)\W+(?:\w+\W+)?to\W+(?:the\W+)?(?:worst|least|lowest)", re.I)


def ranked(m: re.Match, spec) -> tuple[Optional[str], str]:
    letters, seps = re.findall(r"[A-Z]", m.group(2)), set(re.findall(r"[<>,]", m.group(2)))
    way = {">": "down", "<": "up"}.get(next(iter(seps))) if len(seps) == 1 and "," not in seps else None
    said = "up" if _UP.search(m.group(1) or "") else "down" if _DOWN.search(m.group(1) or "") else None
    if way and said and way != said or not (way or said) or len(set(letters)) != len(letters):
        return None, "a ranking whose best option is not said"
    best = letters[0] if (way or said) == "down" else letters[-1]
    return (best, "") if best in spec.letters else (None, f"letter {best} is not an option")


__all__ = ["RANK_LINES", "RANKING", "ranked", "TABLE", "statuses", "table", "verdicts"]
