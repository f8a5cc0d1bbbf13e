"""Fail closed (issue #32): an answer is read only from words the reader knows (scoring/extraction/known.py,
vocabulary.py).

- The issue's probes, and probes of the same kinds it does not quote (other languages, idioms, markup,
  conventions, comments): never read as the answer they exclude (here: never read at all).
- Clean commits in the vocabulary are read as before.
- No negative or hedging word is ever in the vocabulary.
- The property that cannot be tuned to: every statement the reader reads (the generated compositions of
  tests/_compositions.py and the letter and order rows of the tables), with a token from outside the vocabulary
  inserted next to the answer or anywhere in its statement, is not read. The tokens are drawn from `wordfreq`'s
  word lists in its 40+ languages, markup and symbols; the slow test makes more than 100,000 insertions.
"""
from __future__ import annotations

import random
import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings

from _compositions import compositions
from jigsaw_puzzles.scoring.extraction import PARSED, classify_response
from jigsaw_puzzles.scoring.extraction.known import vocabulary
from jigsaw_puzzles.scoring.extraction.vocabulary import (CONNECTIVES, FAMILY_WORDS, KIND_WORDS, PHRASES, SYMBOLS,
                                                          WORDS, size)
from jigsaw_puzzles.spec import ANOMALY, CHOICE, ORDER, get

PLH, PLE, CV, CV8 = ("piece_localization_hard", "piece_localization_easy", "connection_verification",
                     "connection_verification_2x2_8dir")
OG, OGR, AD, MPS = "order_generation", "order_generation_2x2_rot", "anomaly_detection", "missing_piece_selection_easy"

# (text, config): none may be read (each names an answer it does not give, or none)
ISSUE_PROBES = [
    ("Die Antwort ist nicht B.", PLH), ("La respuesta no es B.", PLH), ("答案不是B。", PLH), ("Ответ не B.", PLH),
    ("B would be my last choice.", PLH), ("B is the worst fit.", PLH), ("B is a decoy.", PLH),
    ("B is out of the question.", PLH), ("Everyone would say B, but they'd be wrong.", PLH),
    ("B looks right but isn't.", PLH), ("\u274c B", PLH), ("Answer: B (just kidding, I don't know)", PLH),
    ("Answer: D /s", PLH), ("Answer: ~~A~~", PLH), ("Mask B is too dark, so I pick the other one.", PLH),
    ("Column-major: [4, 2, 1, 3]", OG), ("As positions of images 1-4: [3, 1, 2, 4]", OG),
    ("Zero-based: [1, 2, 0, 3]", OG), ("Zero-based: [0, 1, 2, 3]", OG),
    ('<tool_call>{"name": "zoom", "arguments": {"label": "B"}}</tool_call>', PLH),
    ("<image 1> is directly above <image 2>.", CV8),
]
# The same kinds, not quoted by the issue: other languages, idioms, markup, conventions, comments, remarks.
MORE_PROBES = [
    ("Antwort: B", PLH), ("Réponse : B", PLH), ("Respuesta: B", PLH), ("答え：B", PLH), ("정답은 B가 아닙니다", PLH),
    ("La risposta non è B.", PLH), ("Odpowiedź: nie B", PLH), ("Answer: B (nicht)", PLH),
    ("B is a red herring.", PLH), ("B, said no one ever.", PLH), ("Answer: B, jk", PLH), ("Answer: B lol", PLH),
    ("B is my least favourite.", PLH), ("B is a trap.", PLH), ("Not in a million years: B.", PLH),
    ("Answer: <s>B</s>", PLH), ("Answer: <del>B</del> ", PLH), ("Answer: B <!-- not really -->", PLH),
    ("Answer: B \U0001f643", PLH), ("Answer: B \u2717", PLH), ("Answer: B?", PLH), ("Answer: B (?)", PLH),
    ("Answer: B. Just kidding.", PLH), ("Answer: B. Not really.", PLH), ("Answer: B. /s", PLH),
    ("Answer: B. I don't know.", PLH), ("Answer: B. Nope.", PLH), ('{"answer": "B", "confidence": 0.1}', PLH),
    ('{"answer": "not B"}', PLH), ("Answer: B (in the transposed layout)", PLH), ("Answer: B if mirrored", PLH),
    ("B, as a joke.", PLH), ("Wrong answer: B", PLH), ("Worst answer: B", PLH), ("Answer (inverted): B", PLH),
    ("Order (1-indexed by position): [3, 1, 2, 4]", OG), ("Order (column-major): [2, 1, 4, 3]", OG),
    ("Positions: [3, 1, 2, 4]", OG), ("Regions by image: [3, 1, 2, 4]", OG), ("Reading order: [3, 1, 2, 4]", OG),
    ("Transposed: [3, 1, 2, 4]", OG), ("Order: [3, 1, 2, 4] (reversed)", OG), ("Order: ~~[3, 1, 2, 4]~~", OG),
    ("The order is [3, 1, 2, 4]. Just kidding.", OG), ("La orden es [3, 1, 2, 4].", OG),
    ("[(2, 90), (3, 0), (1, 270), (4, 180)] counter-clockwise", OGR),
    ("Answer: [(2, 90), (3, 0), (1, 270), (4, 180)] (degrees anticlockwise)", OGR),
    ("Judgment: B\nError Position: C (mirrored view)\nError Type: A", AD),
    ("Judgment: B\nError Position: C\nError Type: A\nJust kidding.", AD),
    ("Urteil: B\nJudgment: B\nError Position: C\nError Type: A lol", AD),
    ("Everything looks normal, I guess.", AD), ("Everything looks normal. Not.", AD),
    ("<image 1> lies below <image 2>.", CV8), ("Image 1 is to the right of image 2.", CV8),
    ("Candidate 2, the decoy.", MPS), ("Candidate 2 (kidding)", MPS),
]


@pytest.mark.parametrize("text,config", ISSUE_PROBES + MORE_PROBES)
def test_probes_are_not_read(text, config):
    ex = classify_response(text, config)
    assert ex.status != PARSED, (text, ex)


# Clean commits in the vocabulary are read as before.
RECALL = [
    ("Therefore, the answer is B.", PLH, "B"), ("**Final Answer:** B", PLH, "B"), ("I'll go with B.", PLH, "B"),
    ("The answer is B, since the colours line up.", PLH, "B"), ("The answer is B because the seams match.", PLH, "B"),
    ("The answer is B, as the edges line up.", PLH, "B"), ("答案是B", PLH, "B"), ("Final answer:\nB", PLH, "B"),
    ("I think the answer is B.", PLH, "B"), ("B is correct.", PLH, "B"), ("The answer is B, not C.", PLH, "B"),
    ("Answer: B\nI am fairly confident.", PLH, "B"), ("Answer: B. Confidence: 90%.", PLH, "B"),
    ("<image 2> is directly above <image 1>.", CV8, "C"), ("Direction: above", CV8, "C"),
    ("They are not adjacent in the original image.", CV, "C"), ("Candidate 2", MPS, "B"),
    ("The order is [3, 1, 2, 4].", OG, "[3, 1, 2, 4]"), ("Row 1: 3 1\nRow 2: 2 4", OG, "[3, 1, 2, 4]"),
    ("[2, 3, 1, 4]. Actually no, it is [3, 2, 1, 4]", OG, "[3, 2, 1, 4]"),
    ("Judgment: B\nError Position: C\nError Type: A", AD, "Judgment: B\nError Position: C\nError Type: A"),
    ("There is no anomaly.", AD, "Judgment: A\nError Position:\nError Type:"),
    ("The bottom-left piece is rotated.", AD, "Judgment: B\nError Position: C\nError Type: A"),
]


@pytest.mark.parametrize("text,config,answer", RECALL)
def test_clean_commits_are_read(text, config, answer):
    ex = classify_response(text, config)
    assert (ex.answer, ex.status) == (answer, PARSED), (text, ex)


NEGATIVE = """not no never none nothing nobody nowhere neither nor except excluding least worst last wrong incorrect
false maybe perhaps possibly probably might could or but though although however unless if without unlikely
doubt doubtful guess hardly barely instead rather than unlike other else alternatively also only just almost
nearly kidding joke joking decoy lie fake bad worse poor reject rejected eliminate eliminated excluded ruled out
isn't don't doesn't can't cannot won't wouldn't shouldn't aren't wasn't weren't haven't hasn't nope nah
second backup alternative otherwise tried try unsure uncertain""".split()


def test_no_negative_word_is_in_the_vocabulary():
    known = set(WORDS).union(*KIND_WORDS.values(), *FAMILY_WORDS.values(), CONNECTIVES)
    assert not known & set(NEGATIVE), sorted(known & set(NEGATIVE))
    assert size() > 300  # docs/scoring.md states the size


# ------------------------------------------------------------------------------------------ the property
def _pool() -> list[str]:
    """Tokens from outside any vocabulary: words of wordfreq's languages, markup, symbols, negations."""
    wordfreq = pytest.importorskip("wordfreq")
    out = ["?", "??", "/s", "~~", "/", "\u00bf", "\u00a1", "\u274c", "\u2717", "\u2718", "\U0001f643", "\U0001f602",
           "<s>", "</s>", "<!--", "-->", "^", "@", "&", "+", "%", "\u2026", "//", "(jk)", "(lol)", "(?)", "\u00ac",
           "!=", "\u2260", "<", "~", "\u3002", "\u3001"]
    for lang in sorted(wordfreq.available_languages()):
        out += wordfreq.top_n_list(lang, 300)
    return sorted({t for t in out if t and not re.search(r"[\s\d.!;\n]", t) and not (len(t) == 1 and t.isalpha())})


_POOL: list[str] = []


def _outside(config: str) -> list[str]:
    """The pool without the config's known words, symbols, connectives and phrase words (a phrase word could
    complete a known phrase: "not" + "adjacent" is option C's own words)."""
    global _POOL
    if not _POOL:
        _POOL = _pool()
    spec = get(config)
    vocab = vocabulary(config, spec.kind)
    phrase_words = {w for ps in vocab.phrases.values() for p in ps for w in p}
    known = vocab.words | SYMBOLS | phrase_words | {w for c in CONNECTIVES for w in c.split()}
    return [t for t in _POOL if unicodedata.normalize("NFKC", t).lower() not in known and t.lower() not in known
            and not set(unicodedata.normalize("NFKC", t)) <= SYMBOLS]  # "-->", "…" are made of known symbols


_OUTSIDE: dict[str, list[str]] = {}


def _insertions(text: str, lo: int, hi: int, answer_at: tuple[int, int], rng: random.Random, pool: list[str], k: int):
    """``k`` copies of ``text`` with one pool token inserted in ``text[lo:hi]``: next to the answer, or at a
    random word boundary of the statement."""
    if text[lo:hi].rstrip().endswith((".", "!")):  # after its closing full stop is the next sentence
        hi = lo + len(text[lo:hi].rstrip()) - 1
    answer_at = tuple(min(a, hi) for a in answer_at)
    bounds = sorted({lo, hi, *answer_at} | {lo + m.start() for m in re.finditer(r"\s", text[lo:hi])})
    for _ in range(k):
        at = rng.choice(list(answer_at) + bounds)
        yield text[:at] + " " + rng.choice(pool) + " " + text[at:]


def _answer_at(text: str, lo: int, hi: int, answer: str, kind: str) -> tuple[int, int]:
    """Where the answer's literal stands in the statement (its last occurrence there), else the statement."""
    if kind == CHOICE:
        for m in reversed(list(re.finditer(r"(?<![A-Za-z])" + answer + r"(?![A-Za-z])", text[lo:hi]))):
            return lo + m.start(), lo + m.end()
    elif kind == ORDER:
        digits = re.findall(r"\d+", answer)
        m = re.search(r"[\[(]?\s*" + r"\D{1,4}".join(digits) + r"\s*[\])]?", text[lo:hi])
        if m:
            return lo + m.start(), lo + m.end()
    return lo, hi


def _check_compositions(n: int, per: int) -> int:
    done = []

    @settings(max_examples=n, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(compositions())
    def run(c):
        if c.verdict is None:
            return
        ex = classify_response(c.text, c.config)
        if ex.status != PARSED:
            return
        pool = _OUTSIDE.setdefault(c.config, _outside(c.config))
        lo = c.text.rfind(c.statement)
        hi = lo + len(c.statement)
        if c.suffix == "restated" and get(c.config).kind != ANOMALY:  # the restatement is the final statement
            lo, hi = hi + 1, len(c.text)
        rng = random.Random(c.text)
        at = _answer_at(c.text, lo, hi, c.verdict, get(c.config).kind)
        for text in _insertions(c.text, lo, hi, at, rng, pool, per):
            ex = classify_response(text, c.config)
            assert ex.status != PARSED, ("read with an unknown token", c.text, text, ex)
            done.append(1)

    run()
    return len(done)


def _table_rows():
    """The letter and order rows of the hand-written tables that the reader reads."""
    from test_extraction import CASES
    from test_extraction_hedges import GRID_CASES
    rows = [(t, c, a) for t, c, a, s in CASES + GRID_CASES if s == PARSED and get(c).kind in (CHOICE, ORDER)]
    return [(t, c, a) for t, c, a in rows + [(t, c, a) for t, c, a in RECALL if get(c).kind in (CHOICE, ORDER)]
            if classify_response(t, c).status == PARSED]


def test_an_unknown_token_next_to_a_tables_answer_is_never_read():
    rng, n = random.Random(32), 0
    for text, config, answer in _table_rows():
        pool = _OUTSIDE.setdefault(config, _outside(config))
        at = _answer_at(text, 0, len(text), answer, get(config).kind)
        if at == (0, len(text)):
            continue
        for tok in rng.sample(pool, 16):
            for pos in at:
                modified = text[:pos] + " " + tok + " " + text[pos:]
                ex = classify_response(modified, config)
                assert ex.status != PARSED, ("read with an unknown token", text, modified, ex)
                n += 1
    assert n > 2000


def test_an_unknown_token_in_a_composed_statement_is_never_read():
    assert _check_compositions(300, 10) > 1000


@pytest.mark.slow
def test_a_hundred_thousand_unknown_tokens_are_never_read():
    n = _check_compositions(2500, 100)
    print(f"\n{n} insertions of a token from outside the vocabulary into read statements: 0 read")
    assert n >= 100_000
