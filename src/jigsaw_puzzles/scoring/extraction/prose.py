"""Answers written only in prose (issue #27 section 1's last recall forms): rotated orders and anomaly verdicts.

Both readers run only when the cascade found no answer in any written format, and both read a response only when
its prose says one thing:

- **Rotated orders** (the ``_rot`` configs): the response *ends* with one statement per region, each naming the
  region (grid words such as "top-left", "row 2, column 3", "middle", or "region 3" / "position 3" counted row
  by row), one image ("image 2", "<image 2>", "piece 2") and one clockwise rotation ("rotate it 90 degrees",
  "turn 180°", "rotation: 270", "no rotation", "upright"), or the pair itself ("top-left: (2, 90)"). Statements
  are lines, sentences, or clauses joined by commas or "and". Every region exactly once, the images a
  permutation: that order. A region given two values, a statement with two images or two rotations, a hedge
  ("or", "maybe", "?"), a rotation counted the other way ("counter-clockwise": the answer counts clockwise) or
  a state instead of the turn that fixes it ("image 2 is rotated 90°": rotated from upright, or to be turned?)
  is ambiguous. A trailing remark with no number, position, retraction or hedge ("Hope this helps.",
  "Confidence: 90%") may follow, after either kind.
- **Anomaly Detection**: the *last sentence* says either that nothing is wrong ("Everything looks normal.",
  "All sub-images are correct.", "There is no anomaly.", "None of the pieces is rotated or mirrored.") or names
  exactly one cell of the item's grid (:mod:`.positions`) and one error type ("The bottom-left piece is
  rotated.", "Sub-image C has been mirrored."). A negation, a hedge, a cell word that names no single cell,
  both types, or "normal"/"correct" beside an error is not read.

Returns the parts read, ``AMBIGUOUS`` or ``None`` (nothing of that form); the callers build the answer.
"""

from __future__ import annotations

import re
from typing import Optional, Union

from .common import AMBIGUOUS
from .negation import negated as _negated
from .forms import pattern, value
from .positions import cells_named

_HEDGE = re.compile(r"(?<![A-Za-z])(?:or|maybe|perhaps|possibly|probably|might|could|either|unsure|not sure|guess"
                    r"|alternative\w*|otherwise|if not|likely)(?![A-Za-z])|[?/]", re.I)
_RETRACT = re.compile(r"(?<![A-Za-z])(?:wait|actually|wrong|mistake|incorrect|no|not|hmm|correction|instead"
                      r"|reconsider|but|however|though|although|except|fail\w*|mismatch\w*|bad|never)(?![A-Za-z])"
                      r"|n't", re.I)
_LEAD = re.compile(r"^[\s*#>•-]*(?:\d+[.)]\s+)?(?:(?:so|thus|therefore|hence|overall|in conclusion|in summary),?\s*)?"
                   r"(?:(?:my|the)\s+)?(?:final\s+)?(?:answer|arrangement|solution|result|order)?\s*(?:is\s*)?[:\-]?\s*",
                   re.I)
_SEGMENT = re.compile(r"\n|;|\.(?=\s|$)|!")
_CHUNK = re.compile(r"\s*,\s*(?:and\s+|then\s+)?|\s+(?:and|then)\s+", re.I)

# --------------------------------------------------------------------------------------------- rotated orders
_IMAGE = re.compile(r"<?\s*(?:sub-?image|image|img|piece|tile|picture|crop(?:ped image)?)\s*(?:no\.?|number|#)?\s*"
                    r"(\d{1,3})(?![\d°])\s*>?", re.I)
_PAIR = re.compile(r"[(\[]\s*(?:<?image\s*)?(\d{1,3})>?\s*,\s*(\d{1,3})\s*(?:°|º|deg(?:rees?)?)?\s*[)\]]", re.I)
_ROT_VALUE = re.compile(r"(?:(?:rotation|rotate[ds]?|turn(?:ed|s)?|spin)\s*(?:it\s+|them\s+)?(?:by\s+)?[:=]?\s*"
                        r"(\d{1,3})(?!\d)|(\d{1,3})\s*(?:°|º|deg(?:rees?)?(?![A-Za-z])))", re.I)
_ROT_ZERO = re.compile(r"(?<![A-Za-z])(?:no\s+(?:rotation|turn(?:ing)?)|without\s+(?:rotation|turning)"
                       r"|not\s+(?:rotated|turned)|unrotated|upright|as[- ]is)(?![A-Za-z])", re.I)
_ROT_OTHER_WAY = re.compile(r"counter[- ]?clockwise|anti[- ]?clockwise|(?<![A-Za-z])ccw(?![A-Za-z])"
                            r"|to the (?:left|right)", re.I)
# The image's state, not the turn that fixes it: "image 2 is rotated 90°" (from upright, or to be turned by?).
_ROT_STATE = re.compile(r"(?:(?<![A-Za-z])(?:sub-?image|image|img|piece|tile|picture|it|this|which|that)\s*\d{0,3}\s*>?"
                        r"\s+(?:is|was|are|were|has been|have been|appears?(?: to be)?|looks?|seems?(?: to be)?)"
                        r"|currently|already|originally)\s+(?:\w+\s+)?(?:rotated|turned|tilted)", re.I)
_NUMBERED = re.compile(r"(?<![A-Za-z])(?:region|position|slot|cell|place|spot|square)\s*(?:no\.?|number|#)?\s*"
                       r"(\d{1,2})(?!\d)", re.I)
_REGION_WORD = re.compile(r"(?<![A-Za-z])(?:top|upper|bottom|lower|left|right|middle|center|centre|central|row|col"
                          r"|column|leftmost|rightmost|(?-i:TL|TR|BL|BR))(?![A-Za-z])", re.I)  # ordinals count only with row/column
_CORNER = {"TL": "top left", "TR": "top right", "BL": "bottom left", "BR": "bottom right"}  # "TL: image 2, rotate 90°"
_FILLER = re.compile(r"(?<![A-Za-z])(?:clockwise|cw|degrees?|deg|goes|go|belongs?|placed|place|put|in|at|on|the"
                     r"|is|to|be|it|with|should|must|needs?|and|then)(?![A-Za-z])|[°º:=()\[\]<>*-]", re.I)
_CONFIDENCE = re.compile(r"(?:confidence|certainty)\s*[:=]?\s*\d{1,3}\s*%", re.I)
_VERDICT_WORD = re.compile(r"(?<![A-Za-z])(?:normal|correct|fine|wrong|anomal\w*|errors?|ok|okay|rotat\w*|turned"
                           r"|mirror\w*|flip\w*|reflect\w*|upside)(?![A-Za-z])|(?<![A-Za-z0-9'])(?-i:[A-HJ-Z])(?![A-Za-z0-9'])",
                           re.I)


def _remark(seg: str) -> bool:
    """A trailing remark that says no answer ("Hope this helps.", "That is my answer.", "Confidence: 90%")."""
    bare = _CONFIDENCE.sub(" ", seg)
    return not (any(ch.isdigit() for ch in bare) or _REGION_WORD.search(bare) or _HEDGE.search(bare)
                or _RETRACT.search(bare) or _VERDICT_WORD.search(bare))


# A statement that is planned, tried or tested rather than given ("Let me check whether ...", "If image 2 ...").
_PLAN = re.compile(r"(?<![A-Za-z])(?:try|tried|trying|test|testing|check|checking|let|let's|if|whether|suppose"
                   r"|assume|assuming|consider|considering|hypothes\w*|attempt\w*|first(?! row| col)|initial\w*|draft|backup"
                   r"|would|will|when|examine|verify)(?![A-Za-z])", re.I)

Piece = tuple[int, int, int]  # (cell index, image, rotation)


_UPSIDE_DOWN = re.compile(r"(?<![A-Za-z])upside[- ]down(?![A-Za-z])", re.I)  # 180°: its own inverse, state or turn


def _rotation(text: str) -> Union[int, None, str]:
    """The one clockwise rotation ``text`` (a chunk without its image mention) states, ``None`` or AMBIGUOUS."""
    if _ROT_OTHER_WAY.search(text):
        return AMBIGUOUS
    values = {int(a or b) for a, b in _ROT_VALUE.findall(text)} | ({180} if _UPSIDE_DOWN.search(text) else set())
    zeros = {m.group(0).lower() for m in _ROT_ZERO.finditer(text)}
    if zeros - {"upright"} or (zeros and not values):  # "turn it 90 degrees to make it upright" is 90
        values.add(0)
    if len(values) > 1:
        return AMBIGUOUS
    return next(iter(values)) if values else None


def _features(chunk: str) -> tuple[set, set, bool]:
    """(images, rotations, has region words) of a chunk; rotations may hold AMBIGUOUS."""
    rest = chunk
    images = {int(i) for i in _IMAGE.findall(rest)}
    rot = AMBIGUOUS if _ROT_STATE.search(rest) and not _UPSIDE_DOWN.search(rest) else _rotation(_IMAGE.sub(" ", rest))
    rots = {rot} if rot is not None else set()
    return images, rots, bool(_REGION_WORD.search(rest) or _NUMBERED.search(rest))


def _region(text: str, rows: int, cols: int) -> Union[int, None, str]:
    """The cell index ``text`` (a statement without its image and rotation) names, ``None`` or AMBIGUOUS."""
    nums = {int(k) for k in _NUMBERED.findall(text)}
    words = re.sub(r"(?<![A-Za-z])(?:TL|TR|BL|BR)(?![A-Za-z])", lambda m: _CORNER[m.group(0)], _NUMBERED.sub(" ", text))
    if not _REGION_WORD.search(words):
        i = None
    else:
        named, why = cells_named(_FILLER.sub(" ", words), rows, cols)
        i = ord(next(iter(named))) - ord("A") if len(named) == 1 and not why else AMBIGUOUS
    if nums:  # "Region 3 (bottom-left)": a number and the words must name one cell
        k = next(iter(nums)) - 1
        return k if len(nums) == 1 and 0 <= k < rows * cols and i in (None, k) else AMBIGUOUS
    return i if not isinstance(i, int) or 0 <= i < rows * cols else AMBIGUOUS


def _statements(segment: str, rows: int, cols: int) -> Union[list[Piece], None, str]:
    """The pieces a segment states (every one complete), ``None`` (not such a segment) or AMBIGUOUS."""
    groups: list[list] = []  # [text, images, rotations, region words]
    segment = _PAIR.sub(lambda m: f" image {m.group(1)} rotation {m.group(2)} ", segment)  # no comma to split at
    for chunk in _CHUNK.split(segment):
        if not chunk.strip():
            continue
        images, rots, words = _features(chunk)
        cur = groups[-1] if groups else None
        resolved = cur is not None and cur[3] and isinstance(_region(_strip(cur[0]), rows, cols), int)
        if cur is None or (images and cur[1]) or (rots and cur[2]) or (words and resolved):
            groups.append([chunk, images, rots, words])
        else:
            cur[0] += ", " + chunk
            cur[1] |= images
            cur[2] |= rots
            cur[3] = cur[3] or words
    pieces = []
    for text, images, rots, _ in groups:
        if not images or not rots:
            return None  # not a statement of a piece ("The sky should be at the top")
        if AMBIGUOUS in rots or len(images) > 1 or len(rots) > 1:
            return AMBIGUOUS
        cell = _region(_strip(text), rows, cols)
        if cell == AMBIGUOUS:
            return AMBIGUOUS
        if cell is None:
            return None
        pieces.append((cell, next(iter(images)), next(iter(rots))))
    return pieces or None


def _strip(text: str) -> str:
    """A statement without its image, pair and rotation mentions."""
    return _ROT_ZERO.sub(" ", _ROT_VALUE.sub(" ", _IMAGE.sub(" ", text)))


_BRACKETS = re.compile(r"\[[^\[\]\n]{0,300}\]")


_DOUBT = re.compile(r"(?<![A-Za-z])(?:hmm|wait|actually|though|although|but|however|instead|correction)(?![A-Za-z])",
                    re.I)


def _ruled_out(t: str, start: int, seg: str, lists: list) -> bool:
    """A segment (at ``start`` in ``t``) that only rules lists out: "Definitely not [(1, 0), ...]." (their pairs
    are appended to ``lists``)."""
    found = list(_BRACKETS.finditer(seg))
    rest = _BRACKETS.sub(" ", seg)
    if not found or any(ch.isdigit() for ch in rest) or _REGION_WORD.search(rest) or _HEDGE.search(rest) \
            or _IMAGE.search(rest) or _DOUBT.search(rest):
        return False
    if not all(_negated(t, start + m.start(), start + m.end()) for m in found):
        return False
    lists += [[(int(i), int(r)) for i, r in _PAIR.findall(m.group(0))] for m in found]
    return True


def _segments(t: str, starts: Optional[list] = None) -> list[str]:
    """The lines, sentences and ";" clauses of ``t`` (their start offsets appended to ``starts``)."""
    out, pos = [], 0
    for m in [*_SEGMENT.finditer(t), None]:
        end = m.start() if m is not None else len(t)
        seg = t[pos:end]
        if seg.strip(" \t*#>-•"):
            out.append(seg.strip())
            if starts is not None:
                starts.append(pos + len(seg) - len(seg.lstrip()))
        pos = m.end() if m is not None else end
    return out


def oriented_prose(t: str, rows: int, cols: int, where: Optional[list] = None
                   ) -> Union[list[tuple[int, int]], None, str]:
    """The (image, rotation) pairs, region by region, of a response ending in prose statements; ``None`` or
    AMBIGUOUS. ``where`` gets the offset the statements start at."""
    starts: list[int] = []
    segs = _segments(t, starts)
    ruled_out: list = []  # the lists a trailing "[(1, 0), ...] is wrong." rules out
    while segs and (_remark(segs[-1]) and not (_IMAGE.search(segs[-1]) or _ROT_ZERO.search(segs[-1]))
                    or _ruled_out(t, starts[len(segs) - 1], segs[-1], ruled_out)):
        segs.pop()  # "Hope this helps.", "[(1, 0), ...] is wrong."
    pieces: list[Piece] = []
    i = len(segs) - 1
    while i >= 0:
        seg = _LEAD.sub("", segs[i], count=1)
        got = _statements(seg, rows, cols)
        if got is None:
            break
        if got == AMBIGUOUS or _HEDGE.search(seg) or _PLAN.search(seg):
            return AMBIGUOUS
        pieces[:0] = got
        i -= 1
    if not pieces:
        return None
    if i >= 0 and segs[i].endswith(":") and (_HEDGE.search(segs[i]) or _PLAN.search(segs[i])):
        return AMBIGUOUS  # "Alternatively:", "I first tried:" before the statements
    by_cell: dict[int, tuple[int, int]] = {}
    for cell, image, rot in pieces:
        if by_cell.setdefault(cell, (image, rot)) != (image, rot):
            return AMBIGUOUS  # one region given two values
    if len(by_cell) != rows * cols:
        return None
    said = [by_cell[c] for c in range(rows * cols)]
    if said in ruled_out:
        return AMBIGUOUS  # the text rules its own answer out
    if where is not None:  # where the statements start and end (the remarks after them left out)
        where += [starts[i + 1], starts[len(segs) - 1] + len(segs[-1])]
    return said


def rotations_said(t: str) -> list[tuple[int, int]]:
    """The (image, clockwise turn) pairs the clauses of ``t`` state one at a time ("Image 1 is already upright; image 3
    needs a 180° turn"): definite ones only (a state, "image 2 is rotated 90°", says no turn; a negated, hedged or
    supposed clause, "(1, 0) would mean image 1 upright", or one that explains the notation, is left out)."""
    out = []
    for chunk in (c for part in re.split(r"[;.!?]", t) for c in _CHUNK.split(part)):
        images, rots, _ = _features(chunk)
        if len(images) == 1 and len(rots) == 1 and isinstance(r := next(iter(rots)), int) and not _PLAN.search(chunk) and \
                not _HEDGE.search(chunk) and not _NOTATION.search(chunk) and not _NOT.search(_ROT_ZERO.sub(" ", chunk)):
            out.append((next(iter(images)), r))
    return out


_NOTATION = re.compile(r"(?<![A-Za-z])means?(?![A-Za-z])|[(\[]\s*\d")  # "(1, 0) means ...": explains the notation
TURN_SENSE = re.compile(r"(?:counter|anti)[ -]?clockwise|\bccw\b|degrees (?:counter|anti)", re.I)  # a turn's sense
_NOT = re.compile(r"(?<![A-Za-z])(?:not|never|no)(?![A-Za-z])|n't", re.I)


# --------------------------------------------------------------------------------------------- anomaly detection
_SUBJECT = r"(?:everything|all(?: of)?(?: the)?(?: (?:four|nine|4|9))? (?:sub-?images|pieces|tiles|parts|cells|squares|images|regions)" \
           r"|(?:the )?(?:whole |entire |full |stitched |assembled |combined )?(?:image|picture|puzzle|grid|composite)" \
           r"|each (?:sub-?image|piece|tile)|every (?:sub-?image|piece|tile))"
_JUDGED_WRONG = re.compile(r"(?:the )?(?:stitched |assembled |combined )?(?:image|picture|puzzle|grid) is (?:incorrect|wrong|"
                          r"not correct)", re.I)
_BARE_CORRECT = re.compile(r"(?:(?:yeah|yes|yep),?\s+)?(?:correct|all (?:correct|good|fine))", re.I)
_NORMAL = re.compile(
    r"(?:" + _SUBJECT + r" (?:looks?|is|are|seems?|appears?)(?: to be)? (?:completely |perfectly |entirely |all |fully )?"
    r"(?:normal|correct|fine|ok|okay|intact|consistent|upright|right|in place|in (?:the )?(?:right|correct) "
    r"(?:place|position|orientation)|where (?:it|they) should be|(?:correctly|properly) (?:oriented|placed|assembled)"
    r"|(?:put together|assembled|stitched|oriented) (?:correctly|properly))(?: to me)?"
    r"|no (?:sub-?image|piece|tile) (?:is|has been|was) "
    r"(?:altered|changed|modified)"
    r"|there (?:is|are) no (?:anomal(?:y|ies)|errors?|problems?|issues?|mistakes?)(?: in (?:the )?(?:image|picture|grid))?"
    r"|(?:i )?(?:see|find|detect|notice) no (?:anomal(?:y|ies)|errors?|problems?|issues?)"
    r"|(?:i )?(?:do not|don't|can't|cannot) (?:see|find|detect|spot) any (?:anomal(?:y|ies)|errors?|problems?|issues?|"
    r"(?:rotation|rotated (?:piece|tile)s?) or (?:mirroring|mirrored (?:piece|tile)s?|flips?)|(?:mirroring|flips?) or rotation)"
    r"|nothing (?:is|looks|seems|appears)(?: to be| to have been)? (?:(?:rotated|turned) or (?:mirrored|flipped)|"
    r"(?:mirrored|flipped) or (?:rotated|turned))"
    r"|no (?:anomal(?:y|ies)|errors?)(?: (?:is|are|was|were))? (?:found|detected|present)"
    r"|nothing (?:is|looks|seems) (?:wrong|off|out of place)(?: with (?:the |this )?(?:image|picture|puzzle))?"
    r"|(?:all (?:four |nine )?(?:pieces|tiles|sub-?images) line up,? and )?(?:none(?: of them| of the (?:sub-?images|pieces|"
    r"tiles|quadrants|parts|cells))?|no (?:sub-?image|piece|tile|quadrant|part|cell)) (?:is|are|has been|have been|was|were|"
    r"appears?|seems?|looks?)(?: to (?:be|have been))? "
    r"(?:(?:rotated|turned) or (?:mirrored|flipped)|(?:mirrored|flipped) or (?:rotated|turned)))",  # both types said
    re.I)
REST_FINE = re.compile(r"(?:(?:and |while )?(?:all )?(?:the )?(?:rest(?: of the (?:picture|image|pieces|grid|sub-?images))?|others|everything else|all else"
                        r"|every other (?:tile|piece|sub-?image|part|cell|square)|each other (?:tile|piece|sub-?image)"
                        r"|other (?:three|eight|sub-?images|pieces|tiles)|remaining (?:sub-?images|pieces|tiles)) (?:are|is|looks?"
                        r"|seems?) (?:all )?(?:fine|normal|correct|ok|okay"
                        r"|upright|unchanged))", re.I)
_IT_AGAIN = re.compile(r"(?:it|this(?: one| tile| piece)?)\s+(?:has been|had been|was|is)\s+(?:\w+\s+)?(?:rotat|turned|flip|mirror|"
                       r"reflect|upside)[^,;:]*$", re.I)
_REST_AFTER = re.compile(r"[,;]?\s+(?:%s)[\s.!]*$" % REST_FINE.pattern, re.I)
_NEGATION = re.compile(r"(?<![A-Za-z])(?:not|no|none|never|neither|nor|without|nothing|normal|correct|correctly"
                       r"|fine|ok|okay|except|but|other|else|only because|just because|merely)(?![A-Za-z])|n't", re.I)
_TYPE = re.compile(r"(?<![A-Za-z])(?:(rotat\w*|turned|upside[- ]down|spun)|(mirror\w*|flipped|flip|reflect\w*))"
                   r"(?![A-Za-z])", re.I)
# The last sentence must assert the error ("... is rotated", "a mirrored piece", "the rotation is in ...").
_ASSERTED = re.compile(
    r"(?<![A-Za-z])(?:(?:is|are|was|were|has been|have been|appears?(?: to be)?|looks?|seems?(?: to be)?)\s+"
    r"(?:\w+\s+)?(?:rotat|turned|upside|spun|mirror|flip|reflect)"
    r"|(?:rotated|mirrored|flipped|reflected|upside[- ]down)\s+(?:sub-?image|piece|tile|image|part|cell|square|region)"
    r"|(?:rotation|mirroring|reflection|flip)\s+(?:is\s+)?(?:in|at|of)(?![A-Za-z]))", re.I)
_LABELLED = re.compile(r"(?<![A-Za-z])(?:type|judge?ment|position|option|answer)(?![A-Za-z])", re.I)
_CELL_LETTER = re.compile(r"(?<![A-Za-z])(?:sub-?image|piece|tile|cell|image|region|square|part)\s+\(?([A-Z])\)?"
                          r"(?![A-Za-z0-9'])", re.I)
_TYPE_DETAIL = re.compile(r"\d+\s*(?:°|º|degrees?)|(?<![A-Za-z])(?:clockwise|counter-?clockwise|anti-?clockwise"
                          r"|horizontally|vertically|by|(?:left|right|top|bottom)[- ]to[- ](?:left|right|top|bottom)|left[- ]right|right[- ]left"
                          r"|top[- ]bottom|bottom[- ]top)(?![A-Za-z])", re.I)


def _judged_wrong_ml(head: str) -> bool:
    """A short head that says in another language the picture is wrong ("La imagen es incorrecta", "Das Bild ist falsch"),
    before a colon and the tile it names: no other negation, hedge, condition, tile or change in it."""
    wrong = [m.span() for m in pattern("incorrect").finditer(head)]
    return len(head.split()) <= 6 and bool(wrong) and pattern("content").search(head) is not None and not any(
        pattern(k).search(head) for k in ("rotation", "mirroring", "place", "hedge", "condition")) and all(
        any(a <= n.start() < b for a, b in wrong) for n in pattern("negation").finditer(head))


def anomaly_prose(t: str, rows: int, cols: int, where: Optional[list] = None
                  ) -> Union[tuple[str, Optional[str], Optional[str]], None, str]:
    """(judgment, position letter, type) the last sentence of ``t`` states, ``None`` or AMBIGUOUS. ``where`` gets
    the start and end of that sentence."""
    starts: list[int] = []
    segs = _segments(t, starts)
    while len(segs) > 1 and (_remark(segs[-1]) or REST_FINE.fullmatch(segs[-1].strip(" \t*\"'")) or
                             _JUDGED_WRONG.fullmatch(_LEAD.sub("", segs[-1], count=1).strip(" \t*\"'")) or
                             (_IT_AGAIN.match(segs[-1]) and not _HEDGE.search(segs[-1]))):  # "...; it has been rotated 180°"
        segs.pop()  # "That is my answer.", "the rest are fine", "So the stitched image is incorrect" (after its tile)
    if not segs:
        return None
    if where is not None:
        where += [starts[len(segs) - 1], starts[len(segs) - 1] + len(segs[-1])]
    last = _LEAD.sub("", segs[-1], count=1).strip(" \t*\"'")
    last = _REST_AFTER.sub("", last)  # "The top-right tile is upside down, while the other three look normal."
    if not last:
        return None
    if _BARE_CORRECT.fullmatch(last) and not any(re.search(r"\b[A-I]\b|\d", x) or _TYPE.search(x) for x in segs[:-1]):
        return "A", None, None  # "Correct", "... yeah, correct." (not "B. Correct": the letter says otherwise)
    head, *tail = re.split(r"\s+[\u2014\u2013]\s+|:\s+|\s+-\s+", last, maxsplit=1)
    if tail and (_JUDGED_WRONG.fullmatch(head) or _judged_wrong_ml(head)) and not _HEDGE.search(tail[0]):  # "The stitched image is incorrect: the
        last = tail[0]  # top-right piece has been rotated — the horizon ...": what is wrong, and its evidence after it
        head, *tail = re.split(r"\s+[\u2014\u2013]\s+|:\s+|\s+-\s+", last, maxsplit=1)
    if tail and not _TYPE.search(tail[0]) and not _HEDGE.search(tail[0]) and \
            not _RETRACT.search(re.sub(r"instead of|rather than", " ", tail[0], flags=re.I)):
        said = _stated(head, rows, cols)  # "... is flipped: the bicycle faces the other way" (its evidence after)
        if said is not None and not (isinstance(said, tuple) and said[0] == "B" and any(pattern(k).search(tail[0]) for k in (
                "rotation", "mirroring", "withdraw"))):  # "... ist gespiegelt – nein, eher gedreht": the change taken back
            return said
    if tail and re.fullmatch(r"(?:everything|it all|all (?:four|nine|the) (?:tiles|pieces)) (?:lines? up|fits?|looks? (?:right|"
                             r"fine|normal))", head.strip(), re.I) and _stated(tail[0], rows, cols) == ("A", None, None):
        return "A", None, None  # "Everything lines up: no tile is rotated or flipped."
    return _stated(last, rows, cols)


def changes_said(t: str) -> set:
    """The kinds of change (A rotation, B mirroring) ``t`` asserts: not negated, contrasted or supposed ("mirrored, not
    rotated", "rather than a rotation", "a rotation would look ...": B, none, none)."""
    return {"A" if m.group(1) else "B" for m in _TYPE.finditer(t)
            if not re.search(r"(?<![^\W_])(?:not|no|never|nor|n't|without|nothing|none|than|instead of)\W+(?:\w+\W+)?\Z",
                             t[max(0, m.start() - 24):m.start()], re.I)
            and not re.match(r"\W+(?:\w+\W+)?(?:would|could|might)(?![^\W_])", t[m.end():m.end() + 24], re.I)}


def _stated(last: str, rows: int, cols: int):
    said = _stated_en(last, rows, cols)
    return _stated_ml(last, rows, cols) if said is None else said


_CELLS = {2: ("top left", "top right", "bottom left", "bottom right"),
          3: ("top left", "top middle", "top right", "middle left", "center", "middle right", "bottom left",
              "bottom middle", "bottom right")}
_ROW_COL = re.compile(r"\u7b2c\s*([1-9])\s*\u884c\W{0,3}\u7b2c\s*([1-9])\s*\u5217|([1-9])\s*\u884c\u76ee\W{0,3}([1-9])\s*\u5217\u76ee"
                      r"|h\u00e0ng\s*([1-9]),?\s*c\u1ed9t\s*([1-9])|([1-9])\s*\ud589\W{0,3}([1-9])\s*\uc5f4", re.I)


def _stated_ml(last: str, rows: int, cols: int):
    """A tile and its change said in another language ("Нижний левый фрагмент отзеркален", "右上的子图被旋转了",
    "Ô ở hàng 1, cột 1 bị lật gương"): one place (forms.tsv ``place``, or a row and column by number), one kind of
    change (``rotation``, ``mirroring``), and no negation, hedge, condition or question in the sentence."""
    found = {k: [m.span() for m in pattern(name).finditer(last)] for k, name in (("A", "rotation"), ("B", "mirroring"))}
    types = {k for k, spans in found.items() if any(not any(o[0] <= a and b <= o[1] and o != (a, b) for o in found[
        "B" if k == "A" else "A"]) for a, b in spans)}  # a word of either inside a longer one of the other: "좌우로 뒤집혀"
    negs = [n.span() for n in pattern("negation").finditer(last)]
    denied = {k: [(n0, b) for a, b in found[k] for n0, e in negs if e <= a and not last[e:a].strip()] for k in types}
    if len(types) == 2 and sum(len(v) == len(found[k]) for k, v in denied.items()) == 1:  # "dicerminkan, bukan diputar":
        k = next(k for k, v in denied.items() if len(v) == len(found[k]))  # the change named, the other ruled out
        types -= {k}
        for n0, b in denied[k]:
            last = last[:n0] + " " * (b - n0) + last[b:]
    judged = {m.group(0).lower() for m in pattern("correct").finditer(last)} - {"yes", "ok", "okay", "fine", "normal"}
    if not types and judged and "?" not in last and pattern("content").search(last) and not any(  # not the English yes/ok
            pattern(k).search(last) for k in ("negation", "hedge", "condition", "incorrect")):
        return "A", None, None  # "La imagen está correcta.", "Bilden är korrekt.", "這張拼接圖是正確的。"
    if not types or "?" in last or any(pattern(k).search(last) for k in ("negation", "hedge", "condition")):
        return None
    cells = {value("place", m.group(0)) for m in pattern("place").finditer(last)}
    numbered = False
    for m in _ROW_COL.finditer(last):
        r, c = (int(g) for g in m.groups() if g)
        cells.add(_CELLS[3][(r - 1) * 3 + c - 1] if rows == cols == 3 and r <= 3 and c <= 3 else "?")
        numbered = True
    if len(types) > 1 or len(cells) > 1:
        return AMBIGUOUS
    if cells == {"center"} and not numbered and pattern("line").search(last):  # "in der Mitte der ersten Reihe"
        return None
    order = _CELLS.get(rows) if rows == cols else None
    if not cells or order is None or next(iter(cells)) not in order:
        return None
    return "B", chr(65 + order.index(next(iter(cells)))), next(iter(types))


#: The other kind of change ruled out at the sentence's end ("Sub-image D was rotated, not mirrored."): said of the
#: same tile, it names the change that is not there; alone it leaves no change said.
_NOT_OTHER = re.compile(r",?\s+(?:and\s+|but\s+)?(?:not|rather than|instead of)\s+(?:an?\s+|being\s+)?(?:%s)[\s.!]*$"
                        % _TYPE.pattern, re.I)


def _stated_en(last: str, rows: int, cols: int):
    other = _NOT_OTHER.search(last)
    if other is not None and {m.group(1) is None for m in _TYPE.finditer(last, 0, other.start())} == \
            {_TYPE.search(last, other.start()).group(1) is not None}:  # the kept change is the other kind
        last = last[:other.start()]
    *lead, end = re.split(r",?\s+(?:and|so|hence|therefore|thus)\s+", last)  # "The seams line up, so the image is correct"
    if _NORMAL.fullmatch(end) and all(_NORMAL.fullmatch(x) or not (_TYPE.search(x) or _HEDGE.search(x) or
                                                                  _RETRACT.search(x) or _PLAN.search(x)) for x in lead):
        return "A", None, None
    if _HEDGE.search(last):
        return AMBIGUOUS
    types = {"A" if m.group(1) else "B" for m in _TYPE.finditer(last)}
    if not types or _NEGATION.search(last) or _PLAN.search(last) or _LABELLED.search(last) \
            or not _ASSERTED.search(last):
        return None
    if len(types) > 1:
        return AMBIGUOUS
    letters = {m.group(1) for m in _CELL_LETTER.finditer(last) if m.group(1).isupper()}  # "Sub-image C"
    named, why = cells_named(_TYPE_DETAIL.sub(" ", _TYPE.sub(" ", _CELL_LETTER.sub(" ", last))), rows, cols)
    named |= letters
    if why or len(named) > 1:
        return AMBIGUOUS
    if not named:
        return None
    return "B", next(iter(named)), next(iter(types))


__all__ = ["anomaly_prose", "oriented_prose", "changes_said", "rotations_said", "REST_FINE"]
