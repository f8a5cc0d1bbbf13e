"""Everything the reader understands around an answer (issue #32): its vocabulary, in one place.

The statement that carries the final answer (its sentence or line) is read only when every word and symbol in
it is listed here (:mod:`.known` applies the rule). Anything else next to an answer (a word of another
language, an idiom, markup, a convention, a comment) makes the response ambiguous: the reader never guesses
what an unknown word means. So this module lists what is *known*, never reasons to doubt:

- :data:`WORDS`: commit phrases' words ("the answer is", "final answer", "I choose", "I'd go with"), neutral
  words ("therefore", "so", "option", "correct") and a few closing remarks' words ("I am fairly confident");
- :data:`SYMBOLS`: punctuation and markup that frame an answer (brackets, quotes, ``:``, ``**``-remnants,
  ``\\boxed{}``, ``=>``, a markdown table's ``|``);
- :data:`KIND_WORDS` / :data:`FAMILY_WORDS`: the task's own answer forms: a letter task's option words
  ("candidate", "adjacent vertically", "directly above"), the order tasks' region words, the rotated orders'
  turns, Anomaly Detection's fields and cells;
- :data:`PHRASES`: forms known only whole ("答案是", "no rotation", "not adjacent", "Error Position: none",
  "last column", "second row", "confidence: 90%"): a negative or hedging word ("not", "last", "second") is never
  known alone, only inside such a form, which is itself an answer (option C's own words, the unrotated turn, an
  empty field, a cell);
- :data:`CONNECTIVES`: the words that may introduce an explanation *after* the answer ("because", "since",
  "as the ..."): the explanation is not read for words, but naming another answer in it keeps the response
  open, as everywhere after the answer.

No negative or hedging word is ever known alone (not, no, never, except, least, worst, last, wrong, maybe,
or, but, ...): ``tests/test_extraction_known.py`` checks it. Words are matched lower-cased, whole: "答案不是"
is one unknown word, never read by its prefix "答案".
"""

from __future__ import annotations

NUM = "<num>"  # any number, in a phrase ("candidate 2", "confidence: 90%")

#: Words known in every answer kind.
WORDS = frozenset("""
    the a an answer answers final finally correct right best option choice letter select selected selection
    choose chose chosen pick picked go going with is be would will should must has have it it's its that that's
    this here here's so therefore thus hence overall conclusion summary verdict result output response solution
    my i i'd i'll i'm i've me am we we'd we'll our think believe say definitely clearly certainly surely confident
    confidence sure fairly very quite indeed yes true match matches matching fit fits fitting one of to for in
    question puzzle task let's hope helps again better and about
""".split()) | frozenset("boxed fbox print".split())  # markup and code that frame an answer: \\boxed{B}, print("B")

#: Punctuation and markup that may frame an answer. Not known: "?", "/", "~" (strike-through), "<", "@", "^",
#: "%" (outside "confidence: N%"), "&", "+", a cross, an emoji, any other symbol.
SYMBOLS = frozenset(list(".,:;!()[]{}\"'*#->=|\\`_") + ["\u2022", "\u00b7", "\u2713", "\u2714", "\u2705", "\u00b0",
                                                     "\u00ba", "\u2192", "\u21d2"])

#: Words known for one answer kind (beyond :data:`WORDS`): what that kind's answers are written with.
KIND_WORDS = {
    "choice": frozenset(),
    "order": frozenset("""
        order sequence arrangement list image region regions top bottom left right upper lower corner row rows
        grid table
    """.split()),
    "oriented_order": frozenset("""
        order sequence arrangement list image piece tile region top bottom left right upper lower middle center centre
        central corner row column leftmost rightmost first third fourth fifth sixth seventh eighth ninth
        rotate rotated rotation rotations turn turned turns turning clockwise cw degree degrees deg by upright goes
        go belongs belong placed place put with and then needs need position make
    """.split()),
    "anomaly": frozenset("""
        judgment judgement error position type sub image images piece pieces tile cell cells part region square
        picture grid whole entire everything all are there anomaly anomalous abnormal look looks appears appear
        seems seem been fine normal top bottom left right upper lower middle center centre corner row column
        leftmost rightmost topmost bottommost
        first third fourth fifth sixth seventh eighth rotated rotation turned upside down sideways spun
        mirrored mirroring flipped flip reflected reflection horizontally vertically degrees clockwise by
    """.split()),
}

#: Words of one letter task's option texts (the config family's, matched by name prefix or suffix).
FAMILY_WORDS = {
    "missing_piece": frozenset("""
        candidate input image third fourth fifth sixth seventh eighth ninth piece missing region area blank
        completes fills
    """.split()),
    "piece_localization": frozenset("""
        mask masked area areas region labeled labelled piece content image corresponds belongs comes from shown
    """.split()),
    "connection_verification": frozenset("""
        two images image are adjacent horizontally vertically horizontal vertical left right top bottom relationship
        side by above below original pieces regions they these
    """.split()),
    "order_restoration": frozenset("""
        order sequence arrangement list region regions grid
    """.split()),
    "_8dir": frozenset("""
        image lies located is directly diagonally to the right left above below upper lower top bottom of direction
        north south east west
    """.split()),
}

#: Forms known only whole, per answer kind (``"*"``: every kind), as token sequences (:data:`NUM` for a number).
PHRASES = {
    "*": [("答案是",), ("答案为",), ("答案",), ("confidence", ":", NUM, "%"), ("confidence", NUM, "%"),
          ("second", "row"), ("second", "column"), ("second", "input", "image"), ("second", "image")],
    "choice": [("candidate", NUM), ("candidate", "#", NUM), ("image", NUM), ("not", "adjacent"),
               ("non", "-", "adjacent"), ("are", "not", "adjacent"), ("is", "not", "adjacent")],
    "order": [],
    "oriented_order": [("last", "column"), ("last", "row"), (NUM, "st"), (NUM, "nd"), (NUM, "rd"), (NUM, "th"),
                       ("no", "rotation"), ("no", "turn"), ("no", "turning"), ("not", "rotated"),
                       ("not", "turned"), ("without", "rotation"), ("without", "turning")],
    "anomaly": [("last", "column"), ("last", "row"), (NUM, "st"), (NUM, "nd"), (NUM, "rd"), (NUM, "th"),
                ("position", ":", "none"), ("type", ":", "none"), ("position", ":", "n", "/", "a"),
                ("type", ":", "n", "/", "a"), ("position", ":", "-"), ("type", ":", "-")],
}

#: Words that may introduce an explanation after the answer ("B, because the colours line up"); "as" only before
#: one of :data:`AS_EXPLAINS` ("as the edges match", not "as a joke").
CONNECTIVES = ("because", "since", "given that", "as")
AS_EXPLAINS = frozenset("the it its this these those they both each all there every shown seen".split())

#: A remark after the answer of at most this many words ("Just kidding.", "Not really.", "/s") is read for words
#: like the statement: one the reader does not know makes the response ambiguous. Longer sentences after the
#: answer are explanations: not read for words (what they may not do is stated in :mod:`.reading`).
REMARK_MAX_WORDS = 4


def size() -> int:
    """How many words, symbols and phrases the vocabulary holds (docs/scoring.md states it)."""
    kinds = set().union(*KIND_WORDS.values(), *FAMILY_WORDS.values())
    return len(WORDS | kinds | SYMBOLS) + sum(map(len, PHRASES.values()))


__all__ = ["WORDS", "SYMBOLS", "KIND_WORDS", "FAMILY_WORDS", "PHRASES", "CONNECTIVES", "AS_EXPLAINS", "NUM",
           "REMARK_MAX_WORDS", "size"]
