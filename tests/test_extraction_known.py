"""Read what a person reads, and fail closed on what can change it (issue #43; scoring/extraction/rule.py, the
vocabulary as data in forms.tsv).

- The issue's shapes a person reads at once are read; the shapes its adversary aimed at the rule are not.
- The vocabulary is data: whole forms in at least 25 languages; no negation or hedge is a form that commits.
- The property that cannot be tuned to: in every composed answer the reader reads (tests/_compositions.py, which
  now has lead-ins, structures, explanations and languages), a token from outside the vocabulary put next to the
  answer, between the link and the commit form, or at the start of what follows, is never read; nor is a negation
  of any language put before the answer. The tokens are words of `wordfreq`'s 40+ languages, negations of the
  table, markup and symbols.
"""
from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings

from _compositions import compositions
from jigsaw_puzzles.scoring.extraction import PARSED, classify_response
from jigsaw_puzzles.scoring.extraction.forms import corrected, forms, languages, table
from jigsaw_puzzles.spec import ANOMALY, CHOICE, ORDER, ORIENTED, get

PLH, PLE, CV, CV8 = ("piece_localization_hard", "piece_localization_easy", "connection_verification",
                     "connection_verification_3x3_8dir")
OG, OG9, OGR, AD, AD9 = ("order_generation", "order_generation_3x3", "order_generation_2x2_rot", "anomaly_detection",
                         "anomaly_detection_3x3")
MPS, OR = "missing_piece_selection_easy", "order_restoration"
OR_OPTS = ["[2, 4, 1, 3]", "[3, 1, 4, 2]", "[1, 2, 3, 4]", "[4, 3, 2, 1]"]

# The shapes of issue #43's table: each abstained before; a person reads every one at once.
READ = [
    ("Looking at the edges, the answer is C.", MPS, "C"),
    ("After comparing all four candidates, I choose C.", MPS, "C"), ("Based on the texture, C.", MPS, "C"),
    ("The roof line continues into the third candidate, so the answer is C.", MPS, "C"),
    ("**Answer: C**\n\nThe sky in C matches.", MPS, "C"),
    ("Answer: A\nExplanation: the sky continues into candidate 1, while B, C and D show other scenes.", MPS, "A"),
    ("The answer is C. Wait, re-checking the seams, the answer is B.", MPS, "B"),
    ("The patch matches masked area C.", PLH, "C"),
    ("Resposta: C", PLH, "C"), ("Cevap: D", PLH, "D"), ("Ответ: B", PLH, "B"), ("答えはAです。", PLH, "A"),
    ("정답은 A입니다.", PLH, "A"), ("उत्तर: B", PLH, "B"),
    ('{"name": "submit_answer", "arguments": "{\\"option\\": \\"A\\"}"}', PLH, "A"),
    ("submit(order=[2, 4, 1, 3])", OG, "[2, 4, 1, 3]"), ("<final_answer>B</final_answer>", PLH, "B"),
    ("```yaml\nanswer: C\n```", PLH, "C"),
    ("Row 1: 5 -> 1 -> 9\nRow 2: 7 -> 2 -> 4\nRow 3: 3 -> 8 -> 6", OG9, "[5, 1, 9, 7, 2, 4, 3, 8, 6]"),
    ("| Option | Verdict |\n|---|---|\n| A | ❌ |\n| B | ✅ selected |\n| C | ❌ |\n| D | ❌ |", PLH, "B"),
    ("Judgment: Incorrect (B)\nError Position: F (middle-right)\nError Type: Mirroring (B)", AD9,
     "Judgment: B\nError Position: F\nError Type: B"),
    ("teh answer is D", PLH, "D"), ("Fianl answer: [4, 2, 1, 3]", OG, "[4, 2, 1, 3]"),
    ("C\n\nCopy  Edit  Share\n\n👍 👎", PLH, "C"), ("C.[1]\n\n[1] The sky in C matches the gap.", PLH, "C"),
    ("i'd say c", PLH, "C"), ("Answer: B\nI am fairly confident.", PLH, "B"),
    ("Die Antwort ist nicht B, sondern D.", PLH, "D"), ("It's not B, it's C.", PLH, "C"),
    ("They are not adjacent in the original image.", CV, "C"), ("<image 1> is directly above <image 2>.", CV8, "D"),
    ("The answer is not A. Wait, the answer is A.", PLH, "A"), ("Final answer: <final_answer>B</final_answer>", PLH, "B"),
]

# The adversary's shapes (issue #43) and more of the same kinds: none gives the answer it names.
NOT_READ = [
    ("Incorrect\nB", PLH), ("Worst match:\nB", PLH), ("The answer is not\nB", PLH), ("Least likely:\nD", PLH),
    ("The answer is B. Just kidding, I have no idea.", PLH),
    ("B. Please disregard that letter, I cannot see the images.", PLH), ("Answer != B", PLH),
    ("The answer is !B", PLH), ("<!-- Answer: B -->", PLH), ("Answer: B <!-- not really -->", PLH),
    ("They are not adjacent horizontally.", CV),
    ("[2, 4, 1, 3]\nNote that the angles above are measured counterclockwise.", OG),
    ("[2, 4, 1, 3]\n\nI numbered the regions column by column.", OG),
    ("The top-left is image 2, so: [3, 2, 1, 4]", OG),
    ("Die Antwort ist nicht B.", PLH), ("La respuesta no es B.", PLH), ("答案不是B。", PLH), ("Ответ не B.", PLH),
    ("정답은 B가 아닙니다", PLH), ("La risposta non è B.", PLH), ("B is a decoy.", PLH), ("B?", PLH),
    ("Answer: B (just kidding, I don't know)", PLH), ("Answer: D /s", PLH), ("Answer: ~~A~~", PLH), ("\u274c B", PLH),
    ("Answer: B lol", PLH), ("Answer: B if mirrored", PLH), ("If the sky is on top, the answer is C.", MPS),
    ("Assuming the pieces are upright, C.", MPS), ("Answer: B or D", PLH), ("B, though D is also plausible.", PLH),
    ("Column-major: [4, 2, 1, 3]", OG), ("Zero-based: [1, 2, 0, 3]", OG), ("Order (column-major): [2, 1, 4, 3]", OG),
    ("Answer (inverted): B", PLH), ('<tool_call>{"name": "zoom", "arguments": {"label": "B"}}</tool_call>', PLH),
    ('{"answer": "B", "alternative": "C"}', PLH), ('{"answer": "not B"}', PLH), ("zoom(label=\"B\")", PLH),
    ("Final answer: A.\n\n---\n\nFinal answer: C.", CV), ("The answer is B.\n\nThe answer is D.", PLH),
    ("[(2, 90), (3, 0), (1, 270), (4, 180)] counter-clockwise", OGR),
    ("Judgment: B\nError Position: C\nError Type: A\nJust kidding.", AD),
    ("Everything lines up except the top-left tile, which is rotated 90°.\nJudgment: A\nError Position:\nError Type:",
     AD), ("Candidate 2, the decoy.", MPS), ("B — the fourth input image", MPS),
    ("Option D: [3, 1, 4, 2]", OR),  # D's list is [4, 3, 2, 1]: letter and list disagree
    ("The answer is not A.\nSo: A.", PLH), ("Answer: not A\nSo: A.", PLH),  # ruled out in a commit form, then given
    ("kinda <final_answer>B</final_answer>", PLH),  # an unknown word joins a structure on its line
]


@pytest.mark.parametrize("text,config,answer", READ)
def test_what_a_person_reads_is_read(text, config, answer):
    ex = classify_response(text, config, OR_OPTS if config == OR else None)
    assert (ex.answer, ex.status) == (answer, PARSED), (text, ex)


@pytest.mark.parametrize("text,config", NOT_READ)
def test_what_the_text_does_not_give_is_never_read(text, config):
    ex = classify_response(text, config, OR_OPTS if config == OR else None)
    assert ex.status != PARSED, (text, ex)
    assert ex.detail, "every abstention carries its reason"


def test_the_strict_reader_reads_only_an_answer_that_stands_alone():
    for text in ("Incorrect\nB", "Worst match:\nB", "The answer is not\nB", "Answer: D\nB", "Final answer:\nB"):
        assert classify_response(text, PLH).strict is None, text
    for text in ("B", "Answer: B", "I compared the seams.\nB"):
        assert classify_response(text, PLH).strict == "B", text


# ------------------------------------------------------------------------------------------ the vocabulary as data
def test_the_commit_forms_cover_twenty_five_languages():
    tab = table()
    for kind in ("label", "link", "withdraw", "explain", "negation", "hedge"):
        assert len(tab[kind]) >= 25, (kind, sorted(tab[kind]))
    assert len(languages()) >= 25


def test_no_negation_or_hedge_is_a_form_that_commits():
    committing = forms("label") | forms("verb") | forms("filler") | forms("link") | forms("pred") | forms("copula")
    never = {f for f in forms("negation") | forms("hedge") if len(f) > 2 or not f.isascii()}
    assert not committing & never, sorted(committing & never)
    for text in ("答案不是B", "The answer is not B", "Die Antwort ist nicht B", "A resposta não é B"):
        assert classify_response(text, PLH).status != PARSED, text  # a form is known only whole


def test_a_typo_of_a_negation_is_never_read_as_a_commit_word():
    from jigsaw_puzzles.scoring.extraction.forms import corrected

    assert corrected("Fianl") == "final" and corrected("anwser") == "answer" and corrected("teh") == "the"
    for word in ("nto", "nevr", "neevr", "cnanot", "nicht"):
        assert corrected(word) == word
    # an option noun misspelt is one too; a plural is a word, not a typo ("layout" is a label)
    assert corrected("optoin") == "option" and corrected("layouts") == "layouts" and corrected("answers") == "answers"
    for text, want in (("optoin b", "B"), ("Answer: optoin C", "C"), ("Based on typical puzzle layouts, A.", "A"),
                       ("not optoin b", None), ("optoin b or c", None), ("optoin b?", None)):
        ex = classify_response(text, PLH)
        assert (ex.answer if ex.status == PARSED else None) == want, (text, ex)



# "probably" is a filler in every language, as in English ("Probably D" is D); "maybe" stays a hedge, and another
# option beside it, a negation or a question still keeps it unread (eleventh session)
@pytest.mark.parametrize("text, want", [
    ("아마 D일 거예요.", "D"), ("아마 D 또는 B일 거예요.", None), ("D일 수도 있어요.", None),
    ("たぶんDかな。", "D"), ("たぶんDかBかな。", None), ("Dかな？", None),
    ("Відповідь мабуть D.", "D"), ("Відповідь мабуть D або B.", None), ("Відповідь можливо D.", None),
    ("Odpověď je pravděpodobně D.", "D"), ("Odpověď je pravděpodobně D nebo B.", None), ("Odpověď je možná D.", None),
    ("Răspunsul este probabil D.", "D"), ("Răspunsul probabil nu este D.", None), ("Răspunsul este poate D.", None),
    ("התשובה כנראה D.", "D"), ("התשובה כנראה לא D.", None), ("התשובה אולי D.", None),
    ("因此，最合适的选项是 **D**。", "D"), ("最合适的选项不是D。", None), ("最合适的选项是D或B。", None),
    ("图2显示的是一只猫的尾巴，对应的是区域D。", "D"), ("图2对应的不是区域D。", None),
    ("Easy one: D. 😎", "D"), ("D it is 😅", "D"), ("😅 D or B", None), ("D. 😄 Or B.", None),
])
def test_words_of_likelihood_and_more_commit_forms(text, want):
    ex = classify_response(text, PLH)
    assert (ex.answer if ex.status == PARSED else None) == want, ex


_AD_B = "Judgment: B\nError Position: B\nError Type: B"


@pytest.mark.parametrize("text, config, want", [
    # a place label after an introducer closed by its comma commits, as it does opening the text
    ("Considering the brick pattern visible in the patch, masked area D.", PLH, "D"),
    ("Based on the texture, area D.", PLH, "D"), ("If the texture is right, masked area D.", PLH, None),
    ("Considering the texture, not masked area D.", PLH, None), ("The sky: masked area D.", PLH, None),
    ("Based on the texture, area D, or area B.", PLH, None),
    # the diagonals said with "above"/"below" or followed by "diagonal"
    ("Below-left: H", CV8, "H"), ("Upper-left diagonal.", CV8, "F"), ("Image 2 is above right of image 1.", CV8, "E"),
    ("Not upper-left diagonal.", CV8, None), ("Upper-left diagonal or lower-right diagonal.", CV8, None),
    ("Below-left: E", CV8, None),
    # a judgment glossed with "incorrect" in words that hold a negation ("不正确", "nicht korrekt") is that judgment
    ("判断：B（不正确）\n错误位置：B（右上）\n错误类型：B（镜像）", AD, _AD_B),
    ("Judgment: B (nicht korrekt)\nError Position: B\nError Type: B", AD, _AD_B),
    ("Judgment: A (nicht korrekt)\nError Position: B\nError Type: B", AD, None),
    ("Judgment: A (不正确)\nError Position: B\nError Type: B", AD, None),
    ("Judgment: B (not incorrect)\nError Position: B\nError Type: B", AD, None),
    ("Judgment: not B (incorrect)\nError Position: B\nError Type: B", AD, None),
    # a withdrawal and its new answer in more languages
    ("Ответ: A. Стоп, нет — правильно C.", PLH, "C"), ("Ответ: A. Стоп, нет — правильно не C.", PLH, None),
    ("B... à không, D mới đúng.", PLH, "D"), ("B... à không, D mới đúng không?", PLH, None),
    ("Odpowiedź: B. Chwileczkę… nie, jednak A.", PLH, "A"), ("Odpowiedź: B. Nie, jednak nie A.", PLH, None),
    ("Die Antwort ist B. Nein, Quatsch — D.", PLH, "D"), ("Die Antwort ist B. Nein, Quatsch — D oder C.", PLH, None),
    # an English sentence of fit after the answer that points at no other option explains it, named or not
    ("Answer: C. The pattern on the rug continues smoothly into it.", MPS, "C"),
    ("Answer: C. The pattern continues into the left one.", MPS, None), ("Answer: C. Another one fits better.", MPS, None),
    ("Answer: C. The grass does not continue.", MPS, None), ("Answer: C. Just kidding, the pattern continues.", MPS, None),
    ("Answer: C. The pattern continues, I guess.", MPS, None), ("Answer: C. Scratch that, the rug matches.", MPS, None),
    ("Answer: C. The other one matches too.", MPS, None), ("Answer: C. The other candidate fits too.", MPS, None),
    ("Answer: C. The other ones are too dark.", MPS, "C"), ("Answer: C. The colours of the brick wall are the same.", MPS, "C"),
    # and in other languages, with none of the table's words that could point at another option
    ("Respuesta: C. El patrón de la alfombra continúa sin interrupción.", MPS, "C"),
    ("Ответ: C. Узор ковра продолжается без разрыва.", MPS, "C"), ("答案：C。地毯的图案完美衔接。", MPS, "C"),
    ("答え：C。カーペットの模様が自然につながっています。", MPS, "C"), ("정답: C. 카펫 무늬가 자연스럽게 이어집니다.", MPS, "C"),
    ("उत्तर: C. कालीन का पैटर्न पूरी तरह से मेल खाता है।", MPS, "C"),
    ("Respuesta: C. La otra encaja mejor.", MPS, None), ("Antwort: C. Die andere passt besser.", MPS, None),
    ("Respuesta: C. La segunda continúa el patrón.", MPS, None), ("Respuesta: C. Quizás el patrón continúa.", MPS, None),
    ("Ответ: C. Но узор продолжается в другом.", MPS, None), ("答案：C。其他的图案也衔接。", MPS, None),
    ("Respuesta: C. Si el patrón continúa.", MPS, None), ("Respuesta: C. El patrón de la izquierda continúa.", MPS, None),
    ("答案：C。左边的图案衔接。", MPS, None),
    # a last chat turn that only returns thanks leaves the answer in the turn before it
    ("[14:03] Assistant: A\n[14:03] You: ok thanks\n[14:04] Assistant: You're welcome! Let me know if you have any "
     "other puzzles.", PLH, "A"),
    ("B\n\n4o mini\n\nYou said:\nthanks\n\nChatGPT said:\nYou're welcome! Good luck with the puzzle.", PLH, "B"),
    ("Assistant: B\nUser: is it C?\nAssistant: You're welcome!", PLH, None),
    ("Assistant: B\nUser: thanks\nAssistant: You're welcome! Actually D.", PLH, "D"),
    ("Assistant: B\nUser: thanks\nAssistant: You're welcome! Actually, not B.", PLH, None),
    # the image said to be correct: a bare "Correct", and in other languages with an image noun
    ("Correct", AD, "Judgment: A\nError Position:\nError Type:"), ("Correct? Not sure.", AD, None), ("Not correct.", AD, None),
    ("La imagen está correcta.", AD, "Judgment: A\nError Position:\nError Type:"),
    ("Bilden är korrekt.", AD, "Judgment: A\nError Position:\nError Type:"),
    ("La imagen no está correcta.", AD, None), ("L'immagine è corretta? Forse.", AD, None),
    ("La imagen está correcta, pero la pieza C está girada.", AD, None),
    # more chat-UI residue: "Ask ChatGPT", "Related" after a blank line, read receipts, Korean buttons, a share link
    ("ChatGPT said:\nC\n\n\nCopy\nEdit\n\nAsk ChatGPT", MPS, "C"),
    ("The answer is **B**[1].\n\nSources\n\n[1] Jigsaw-Puzzles — arxiv.org\n\nRelated\n\nHow do VLMs reason?", PLH, "B"),
    ("[14:33] Assistant: [4, 1, 3, 2]\n[14:33] ✓✓ Read", OG, "[4, 1, 3, 2]"),
    ("정답: B\n\n복사\n다시 생성\n좋아요  싫어요\n\nGPT-4o · 오후 3:12", CV, "B"),
    ("Shared via ChatGPT app\n\n[2, 4, 1, 3]\n\nhttps://chatgpt.com/share/6710a3f2-9c4e", OG, "[2, 4, 1, 3]"),
    ("[14:33] Assistant: [4, 1, 3, 2]\n[14:33] ✓✓ Read\nActually [1, 4, 3, 2]?", OG, None),
    # "provided" after a noun is no condition; before a clause, or negated, it stays one
    ("Based on the two masked areas and the patch provided, the answer is B.", PLH, "B"),
    ("Provided the lighting is consistent, the answer is B.", PLH, None), ("The answer is B, provided the patch is not rotated.", PLH, None),
    # a horizontal seam joins crops stacked vertically: said before B it agrees, before A it does not
    ("The two crops meet along a horizontal seam, so they are adjacent vertically, option B.", CV, "B"),
    ("They share a horizontal edge, so they are left-right neighbours: A.", CV, None), ("They share a vertical edge, so A.", CV, "A"),
    # a call's "pieces"; an anomaly block's fields in any order
    ("submit_solution(pieces=[(1, 270), (4, 0), (2, 90), (3, 180)])", OGR, "[(1, 270), (4, 0), (2, 90), (3, 180)]"),
    ("Error Type: B\nJudgment: B\nError Position: A", AD, "Judgment: B\nError Position: A\nError Type: B"),
    ("Error Type: A\nError Type: B\nJudgment: B\nError Position: A", AD, None),
    ("Error Type: B\n\nJudgment: A\nError Position:\nError Type:", AD, None),
    # the anomaly said after "the image is incorrect:", with its evidence after a dash; "every other tile is fine"
    ("The stitched image is incorrect: the top-right piece has been rotated — the horizon in it runs vertically.", AD,
     "Judgment: B\nError Position: B\nError Type: A"),
    ("The image is incorrect: maybe the top-right piece has been rotated — the horizon runs vertically.", AD, None),
    ("The stitched image is incorrect: the top-right piece has been rotated or mirrored — hard to say.", AD, None),
    ("Sub-image H (bottom row, middle) is mirrored: the clock runs the wrong way round. Every other tile is fine.", AD9,
     "Judgment: B\nError Position: H\nError Type: B"),
    # a resubmission after "resubmit"/"revising"; turns as "image 3 @ 90°" under a known label
    ('Action: submit_answer\nAction Input: {"choice": "B"}\nObservation: ok\nThought: B was wrong; resubmit C.\n'
     'Action: submit_answer\nAction Input: {"choice": "C"}', MPS, "C"),
    ('Action: submit_answer\nAction Input: {"choice": "B"}\nObservation: ok\nAction: submit_answer\n'
     'Action Input: {"choice": "C"}', MPS, None), ("The answer is B. Revising.", MPS, None),
    ("image 3 @ 0°, image 1 @ 180°, image 4 @ 90°, image 2 @ 0°", OGR, "[(3, 0), (1, 180), (4, 90), (2, 0)]"),
    ("pairs: 2@90, 4@0, 1@0, 3@180", OGR, "[(2, 90), (4, 0), (1, 0), (3, 180)]"), ("3@0, 1@180", OGR, None),
    ("image 3 @ 0°, image 1 @ 180°, image 4 @ 90°, image 2 @ 0° or maybe image 2 @ 90°", OGR, None),
    ("Order (top-left, top-right, bottom-left, bottom-right): [1, 4, 3, 2]", OG, "[1, 4, 3, 2]"),
    ("Order (column by column): [1, 4, 3, 2]", OG, None),
    # the diagonals said "down and to the left": the same direction as the letter explains it, another one does not
    ("H. The road continues down and to the left.", CV8, "H"), ("G. The road continues down and to the left.", CV8, None),
    ("Up and to the right: E.", CV8, "E"), ("H. The road continues down-left.", CV8, "H"),
    ("G. The road continues down-left.", CV8, None), ("C. Image 2 is right above image 1.", CV8, "C"),
    ("Image 2 is right next to image 1.", CV8, None),
    # Italian "i" (the article) is no English "I": a lower-case "i" in a sentence with letters of other Latin scripts
    ("Scelgo la C: non sono adiacenti, perché né i bordi orizzontali né quelli verticali combaciano.", CV, "C"),
    ("Answer: C. i have no idea.", CV, None), ("[4, 2, 3, 1]\n(where entry i says which region image i goes to)", OG, None),
    # the images said as "the first image", "the second one"; "neighbours left-right"
    ("The second image sits right under the first one.", CV, "B"), ("The second image is to the left of the first one.", CV, "A"),
    ("The first image is not on top of the second one.", CV, None), ("so they're neighbours left-right.", CV, "A"),
    ("They are neighbours top-bottom.", CV, "B"), ("They are not neighbours left-right.", CV, None),
])
def test_eleventh_session_shapes(text, config, want):
    ex = classify_response(text, config)
    assert (ex.answer if ex.status == PARSED else None) == want, ex

# ------------------------------------------------------------------------------------------ the property
def _pool() -> list[str]:
    """Tokens from outside the vocabulary: words of wordfreq's languages, markup, symbols, and every negation and
    hedge of the table."""
    wordfreq = pytest.importorskip("wordfreq")
    out = ["?", "??", "/s", "~~", "\u274c", "\u2717", "\U0001f643", "<!--", "^", "@", "!=", "\u2260", "\u00ac",
           "(jk)", "(lol)", "(?)", "lol", "jk"]
    for lang in sorted(wordfreq.available_languages()):
        out += wordfreq.top_n_list(lang, 200)
    out += sorted(forms("negation") | forms("hedge"))
    known = set()
    for kind in ("label", "verb", "pred", "filler", "link", "copula", "sep", "open", "close", "noun", "neutral",
                 "explain", "withdraw", "contrast", "intro", "subject", "relate", "residue", "support", "content",
                 "judgment", "position", "type", "correct", "incorrect", "rotation", "mirroring", "blank", "choice",
                 "concede"):  # (a concession opens a lead-in as an introducer does: "Although A looked right, C")
        known |= {w.casefold() for f in forms(kind) for w in f.split(" ")}
    negations = {f.casefold() for f in forms("negation") | forms("hedge")}
    return sorted({t for t in out if t and not re.search(r"[\s\d.!;,:\n]", t) and not (len(t) == 1 and t.isalpha())
                   and (re.sub(r"[()]", "", t.casefold()) not in known or t.casefold() in negations)
                   and corrected(t) == t})  # one edit from a commit word of 5+ letters is that word (a typo)


_POOL: list[str] = []
_POOL_DASH: list[str] = []
_INTRODUCER = re.compile(r"(?:Looking|After|Based|Given|Judging)\b")


def _value_at(text: str, lo: int, answer: str, kind: str):
    """(start, end) of the answer's literal in text[lo:] (its last occurrence), else None."""
    if kind == CHOICE:
        found = list(re.finditer(r"(?<![A-Za-z])" + answer + r"(?![A-Za-z])", text[lo:]))
    elif kind in (ORDER, ORIENTED):
        digits = re.findall(r"\d+", answer)
        found = list(re.finditer(r"(?:[\[(] *)?" + r"\D{1,6}".join(digits) + r"(?: *[\])])?", text[lo:]))
    else:
        return None
    return (lo + found[-1].start(), lo + found[-1].end()) if found else None


def _check_compositions(n: int, per: int, dash: bool = False) -> int:
    global _POOL, _POOL_DASH
    if not _POOL:
        _POOL = _pool()
        described = {w.casefold() for f in forms("describe") for w in f.split(" ")}  # a remark in them says something
        _POOL_DASH = [t for t in _POOL if t.casefold() not in described]
    done = []

    @settings(max_examples=n, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(compositions())
    def run(c):
        kind = get(c.config).kind
        if c.verdict is None or kind == ANOMALY or c.prose:
            return
        if classify_response(c.text, c.config).status != PARSED:
            return
        lo = c.text.rfind(c.statement)
        at = _value_at(c.text, max(lo, 0), c.verdict, kind)
        if lo < 0 or at is None or c.suffix == "restated":  # restated: the restatement is the commitment
            return
        link_end = lo  # between the link (or the sentence start) and the commit form
        first = re.match(r"(?i)(?:(?:so|therefore|thus|hence)\b,?|=>|->|\u2192)", c.statement)
        if first:  # the statement opens with its link ("So the answer is A"): before it is reasoning
            link_end = lo + first.end()
        # a fence opens its own line: a token before it stands on the reasoning's line, outside the link
        places = [at[0], at[1]] + ([] if c.statement.startswith("```") else [link_end])
        if c.lead and c.text.rfind(c.lead) + len(c.lead) == lo and not first and \
                _INTRODUCER.match(c.lead):
            places.append(lo - len(c.lead))  # where an introducer opens ("Looking at ..., ")
        rng = random.Random(c.text)
        for _ in range(per):
            pos, tok = rng.choice(places), rng.choice(_POOL_DASH if dash else _POOL)
            text = c.text[:pos] + " " + tok + " " + c.text[pos:]
            if dash:  # a remark of one unknown word after a dash ("B \u2014 glorp."): no reason, so not read either
                pos = lo + len(c.statement.rstrip(" .!*"))  # after the statement, its gloss too ("A (right)")
                text = c.text[:pos] + rng.choice([" \u2014 ", " \u2013 ", " - "]) + tok + "." + c.text[pos:]
            ex = classify_response(text, c.config)
            read = ex.answer if ex.status == PARSED else None
            assert read is None, ("read with an unknown token next to the answer or its link", repr(text), ex)
            done.append(1)

    run()
    return len(done)


@pytest.mark.slow
def test_an_unknown_token_next_to_a_composed_answer_is_never_read():
    assert _check_compositions(500, 8) > 400  # the sample moves with the source (derandomize): >= 50 compositions read


def test_one_unknown_word_in_a_remark_after_a_composed_answer_is_never_read():
    assert _check_compositions(150, 3, dash=True) > 120


def test_a_negation_of_any_language_before_an_answer_is_never_read():
    rng, n = random.Random(43), 0
    negations = sorted(f for f in forms("negation") if len(f) > 1)
    for neg in negations:
        for form in ("The answer is {n} B.", "Answer: {n} B", "{n} B", "答案是{n}B", "Resposta: {n} B"):
            text = form.format(n=neg)
            assert classify_response(text, PLH).status != PARSED, text
            n += 1
    assert n > 500


def test_a_sign_touching_an_answer_is_never_read():
    for sign in ("!", "-", "~", "\u2212", "\u00ac", "\u2260", "!=", "\u274c"):
        for form in ("Answer: {s}B", "The answer is {s}B.", "{s}B", "Final answer: **{s}B**", "答案是{s}B"):
            text = form.format(s=sign)
            assert classify_response(text, PLH).status != PARSED, text


@pytest.mark.slow
def test_ten_thousand_unknown_tokens_are_never_read():
    n = _check_compositions(2500, 24)
    print(f"\n{n} insertions of a token from outside the vocabulary next to a read answer or its link: 0 read")
    assert n >= 10_000


def test_the_vocabulary_regexes_do_not_depend_on_the_hash_seed():
    """A set's iteration order changes with PYTHONHASHSEED; the regexes built from the table (and so every reading)
    must not: two interpreters with other seeds build the same patterns, and a longer form wins over its prefix."""
    import hashlib
    import subprocess
    import sys

    code = ("import hashlib; from jigsaw_puzzles.scoring.extraction.forms import KINDS, alternation, forms, pattern; "
            "src = [alternation(forms(k)) for k in KINDS] + [pattern(n).pattern for n in "
            "('left', 'label', 'strip', 'label_line', 'unfinished')]; "
            "print(hashlib.sha256('\\x00'.join(src).encode()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout.strip()
               for seed in ("1", "22", "34")}
    assert len(digests) == 1, digests
    from jigsaw_puzzles.scoring.extraction.forms import alternation
    rx = re.compile(alternation({"answer", "answer is", "the answer is"}))
    assert rx.match("the answer is C").group(0) == "the answer is" and rx.match("answered") is None


def test_a_call_holding_a_stray_escape_warns_no_user():
    """Python call syntax is parsed with ast (never run); the model's "\\R" in a string is its text, not our warning."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert classify_response('submit(answer="\\R")', PLH).status != PARSED
        assert classify_response("submit(order=[2, 4, 1, 3])", OG).answer == "[2, 4, 1, 3]"



def test_the_options_listed_by_their_letters_are_no_answer_said_before():
    """"A is [1, 3, 4, 2], ..., D is [2, 4, 1, 3]" lists the options; an order said alone before another letter is one."""
    opts = ["[1, 3, 4, 2]", "[3, 4, 2, 1]", "[4, 2, 1, 3]", "[2, 4, 1, 3]"]
    listed = "A is [1, 3, 4, 2], D is [2, 4, 1, 3]. So the order [2, 4, 1, 3] matches D. Answer: D"
    assert classify_response(listed, OR, opts).answer == "D"
    for text in ("The order is [1, 3, 4, 2]. Answer: D", "The order is [1, 3, 4, 2], which is A. Answer: D"):
        assert classify_response(text, OR, opts).status != PARSED, text


@pytest.mark.parametrize("text, config, want", [
    # an English clause that says the answer fits, closed by a colon, joins it as "so" would
    ("The blank is at the point above. Candidate 1 fills it best: **A**.", MPS, "A"),
    ("The seam matches far better: A", CV, "A"), ("The colours match perfectly: B", MPS, "B"),
    ("The roof line continues across the seam, so agar A: Candidate 1", MPS, None),
    ("The seam matches agar: A", CV, None), ("Image 2 continues the bridge from the corner: G", CV8, None),
    ("The one that fits worst: B", MPS, None), ("Nothing fits: B", MPS, None), ("I doubt it fits: B", MPS, None),
    ("The user thinks it fits: B", MPS, None), ("The piece that barely fits: B", MPS, None),
    ("Almost fits: B", MPS, None), ("The seam does not match: B", MPS, None), ("Quizas encaja: B", MPS, None),
    ("It fits only if mirrored: B", MPS, None), ("Candidate 2 fits too: B", MPS, None),
    # a note after an order that says how the images or regions are numbered may change its reading
    ("[4, 2, 3, 1]\n\n(Images are numbered left to right as they appear in the collage.)", OG, None),
    ("[4, 2, 3, 1]\n\nRegions were numbered column by column.", OG, None),
    ("[4, 2, 3, 1]\n\nImage 4 has the sky and the top of the mountain.", OG, "[4, 2, 3, 1]"),
])
def test_twelfth_session_shapes(text, config, want):
    ex = classify_response(text, config)
    assert (ex.answer if ex.status == PARSED else None) == want, ex


_AD_A_A = "Judgment: B\nError Position: A\nError Type: A"


@pytest.mark.parametrize("text, config, want", [
    # chat-UI residue: a bare time ("11:05 ص"), "(edited)", a chat header with its time, the UI in more languages
    ("الإجابة: C\n\nنسخ\nمشاركة\nإعادة الإنشاء\n\n11:05 ص", CV8, "C"), ("回答：B\n\nコピー\n共有する\n再生成", MPS, "B"),
    ("You — Today at 14:02\nWhich area?\n\nAssistant — Today at 14:02\nA\n\n(edited)", PLE, "A"),
    ("You — Today at 14:02\nIs it A?\n\nAssistant — Today at 14:03\nNo.", PLE, None),
    ("الإجابة: C\n\n11:05 ص ليس C", CV8, None),
    # the last turn only asks for the next puzzle: the answer is in the turn before
    ("ChatGPT said:\nThe patch belongs to mask **B**.\n\nYou said:\nok and the next one?\n\nChatGPT said:\nSure — send it over.",
     PLH, "B"),
    ("ChatGPT said:\nB\n\nYou said:\nis it A?\n\nChatGPT said:\nSure — send it over.", PLH, None),
    ("The missing patch is candidate 4.", MPS, "D"), ("The missing patch is not candidate 4.", MPS, None),
    # "Tile I" on a 3x3 grid is a tile, not the model speaking of itself
    ("Judgment: A\nError Position:\nError Type:\n\nTile I looked odd because the slats lean, but H leans the same way.",
     AD9, "Judgment: A\nError Position:\nError Type:"),
    ("Judgment: A\nError Position:\nError Type:\n\nAnd I have no idea.", AD9, None),
    # the regions listed in the prompt's order, then one named again, are no other convention
    ("**B**\n\nThe lists are read top-left, top-right, bottom-left, bottom-right, so B = [4, 2, 3, 1] puts image 4 "
     "in the top-left corner.", OR, "B"),
    ("**B**\n\nThe lists are read top-right, top-left, bottom-left, bottom-right.", OR, None),
    # an anomaly said again in Bengali, Swahili; an explanation of fit in Hindi, Swahili
    ("উত্তর:\nJudgment: B\nError Position: A\nError Type: A\n\nউপরের বাম দিকের অংশটি ৯০ ডিগ্রি ঘোরানো হয়েছে।", AD, _AD_A_A),
    ("Judgment: B\nError Position: A\nError Type: A\n\nKipande cha juu kulia kimezungushwa.", AD, None),
    ("Jibu ni B. Kipande hiki kinaonyesha sehemu ya shina la mti inayoendelea hadi kwenye eneo lililo wazi.", MPS, "B"),
])
def test_twelfth_session_residue_and_turns(text, config, want):
    ex = classify_response(text, config, ["[2, 4, 1, 3]", "[4, 2, 3, 1]", "[1, 2, 3, 4]", "[4, 3, 2, 1]"] if config == OR else None)
    assert (ex.answer if ex.status == PARSED else None) == want, ex


@pytest.mark.parametrize("text, config, want", [
    # a line above that turns with "but" to a label: only the label introduces the answer
    ("I can't verify this with certainty, but here's my best attempt:\nJudgment: B\nError Position: D\nError Type: A", AD,
     "Judgment: B\nError Position: D\nError Type: A"),
    ("It is not B, but here is my answer:\nB", MPS, None), ("I cannot verify this, but here is my best attempt:\nB", MPS, "B"),
    # "不过" (however) is no negation before a closed introducer; "不是" still is
    ("抱歉，我无法百分之百确定。不过从拼块边缘的颜色来看，我选 C。", PLH, "C"), ("不过不是从颜色来看，我选 C。", PLH, None),
    # withdrawals and new answers in Ukrainian and Vietnamese
    ("Відповідь: A. Ні, стривайте, це C.", PLH, "C"), ("Це не C.", PLH, None),
    ("Đáp án: D. À không, tôi nhầm rồi, phải là A.", OR, "A"), ("Đáp án: D. Tôi nhầm rồi.", OR, None),
    # an agent's closing call that submits nothing; one that names another answer
    ('Action: submit_answer("C")\nObservation: Answer recorded.\nAction: finalize()', PLH, "C"),
    ('Action: submit_answer("C")\nObservation: Answer recorded.\nAction: finalize("B")', PLH, None),
    # rotated pieces said "3 (0°), 1 (90°), ..."
    ("Order: 3 (0°), 1 (90°), 4 (270°), 2 (180°)", OGR, "[(3, 0), (1, 90), (4, 270), (2, 180)]"),
    ("3 (0°) → 1 (90°) → 4 (270°) → 2 (180°)", OGR, "[(3, 0), (1, 90), (4, 270), (2, 180)]"),
    ("Order: 3 (0°), 1 (90°), 4 (270°)", OGR, None),
])
def test_twelfth_session_links_and_turns(text, config, want):
    ex = classify_response(text, config, OR_OPTS if config == OR else None)
    assert (ex.answer if ex.status == PARSED else None) == want, ex


@pytest.mark.parametrize("text, want", [
    # a confidence note standing alone as a clause keeps the answer, as "(not entirely sure)" and "Confidence: low" do
    ("I'd say B, but I'm not sure.", "B"), ("B. I'm not 100% sure, though.", "B"), ("B, though I could be wrong.", "B"),
    ("Diría que A, aunque no estoy del todo seguro.", "A"), ("Ich würde sagen B, bin mir aber nicht ganz sicher.", "B"),
    ("おそらくCだと思いますが、確信はありません。", "C"), ("Myslím, že správná odpověď je D, ale nejsem si úplně jistý.", "D"),
    ("I am not sure, but B.", "B"),
    # the other side: a note that scopes over an answer, or one beside another answer left open, or a disclaimer
    ("I'm not sure it's B.", None), ("B. I'm not sure, it might be C.", None), ("I'm not sure, B or C.", None),
    ("B. I'm not sure about the top row though.", None), ("B? I'm not sure.", None), ("Not B, I'm not sure.", None),
    ("B. I'm not sure. Honestly I have no idea.", None), ("The answer is B. Not sure though, maybe C.", None),
    ("B, I think, but I'm not certain; C is close.", None), ("Cだと思いますが、Dかもしれません。", None),
    ("B, A ou C, je ne suis pas sûr.", None), ("B — for the first one, I'm not sure.", None),
])
def test_a_confidence_note_alone_keeps_the_answer(text, want):
    ex = classify_response(text, "missing_piece_selection_easy")
    assert (ex.answer if ex.status == PARSED else None) == want, ex


@pytest.mark.parametrize("text, want", [
    # another option ranked below the answer in words is not kept open, as "Runner-up: D" after "Best: C" is not
    ("I'd go with C (about 55% sure; D is the runner-up).", "C"), ("E — the seam is blurred; F is the runner-up.", "E"),
    ("B\n\nA is the runner-up since it's also on the clock, but the numeral settles it.", "B"),
    ("I'd say D. Its shadow lines up with the staircase, though C is a close second.", "D"),
    ("C. D is the runner-up, maybe even better.", None), ("C. D could be the runner-up.", None),
    ("C. D also fits.", None), ("C, or D as a close second.", None),
    # a question about the answer's form only, then the answer on that assumption
    ("Do you want just the letter? Assuming so: D", "D"), ("Wollen Sie nur den Buchstaben? Dann: D.", "D"),
    ("Do you want the letter or the candidate number? I'll give the letter: C.", "C"),
    ("Do you want just the letter? If the sky is on top: D", None), ("Is the sky on top? If so: C", None),
    ("Do you want just the letter or B? If so: C", None),
    # Tagalog: the answer before "ang sagot", after "if I had to guess"
    ("Pero kung huhulaan ko, B ang sagot.", "B"), ("Hindi B ang sagot.", None), ("Kung ang langit ay nasa itaas, B ang sagot.", None),
])
def test_twelfth_session_rankings_and_questions(text, want):
    ex = classify_response(text, "missing_piece_selection_easy_3x3_k6")
    assert (ex.answer if ex.status == PARSED else None) == want, ex


@pytest.mark.parametrize("text, want", [
    # more confidence notes, either way, and chat-app residue
    ("C, though I'm not highly confident.", "C"), ("I'd lean C, but I wouldn't bet on it.", "C"),
    ("D. The images were small, so take this with a grain of salt.", "D"), ("B. I'm pretty confident about this one.", "B"),
    ("D\n\nThe railing in candidate 4 runs at the same angle. I'm confident in D.", "D"), ("B\n\nAsk anything", "B"),
    ("B\n— Sent from my assistant app", "B"),
    ("D\n\nI'm confident in C.", None), ("D. Take this with a grain of salt, C may be better.", None),
    ("B. I'm pretty confident about C.", None),
])
def test_twelfth_session_confidence_notes(text, want):
    ex = classify_response(text, "missing_piece_selection_easy")
    assert (ex.answer if ex.status == PARSED else None) == want, ex


def test_a_sentence_describing_the_picture_is_read_and_any_word_that_can_turn_it_is_not():
    """An explanation in words of the ``describe`` kind ("O recorte tem o mesmo padrão ...") is read in every language
    that has them; one negation, hedge, condition, contrast, doubt or confidence note of its language
    put anywhere in it leaves the answer unread (the short Latin hedges "o"/"of" are articles too, and are skipped)."""
    rng, read, turned = random.Random(17), 0, 0
    langs = sorted(table()["describe"])
    for lang in langs:
        support = set(forms("support"))  # a word of fit is read by the rule for English too ("the sky or the roof fits")
        fit = re.compile("|".join(map(re.escape, sorted(support, key=len, reverse=True))))  # "但是" holds "是"
        words = [w for w in table()["describe"][lang] if " " not in w and w not in support]
        base = None
        for _ in range(6):  # a sentence that names the answer and three words of description
            ws = rng.sample(words, 3)
            text = f"Answer: C. {ws[0]} {ws[1]} C {ws[2]}."
            if classify_response(text, PLH).answer == "C":
                base = ws
                break
        if base is None:
            continue
        read += 1
        turns = [f for k in ("negation", "hedge", "condition", "contrast", "doubt", "unsure")
                 for f in table()[k].get(lang, ())
                 if not (k == "hedge" and len(f) <= 2 and f.isascii()) and f != "no" and not fit.search(f)]
        for turn in rng.sample(turns, min(12, len(turns))):
            at = rng.randrange(4)
            ws = list(base[:2]) + ["C"] + [base[2]]
            ws.insert(at, turn)
            text = "Answer: C. " + " ".join(ws) + "."
            assert classify_response(text, PLH).answer is None, (lang, text)
            turned += 1
    assert read >= 20 and turned >= 200, (read, turned)


def test_no_word_of_fit_or_description_is_a_word_that_turns_an_answer_in_any_language():
    """Indonesian "pas" (fits) is French "pas" (not): such a form is left out of ``support`` and ``describe``."""
    turns = {f for k in ("negation", "hedge", "condition", "doubt", "unsure", "withdraw", "contrast", "convention")
             for f in forms(k)}
    assert not (set(forms("support")) | set(forms("describe"))) & turns

