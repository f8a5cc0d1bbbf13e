"""A generator of composed responses, each with the verdict a careful grader gives it (issue #27 section 2).

A composition is reasoning before, an answer statement in one of many surface forms, and a suffix (none, the same
answer restated, a hedge, an alternative, a withdrawal with a new answer, a withdrawal alone, a negation of another
answer or of itself, a confidence note). The surface forms are written here by hand, from how people and models
phrase answers, independently of the extractor's regular expressions and tables (nothing here imports them): a
form the extractor does not know lowers the recall, never the verdict.

Verdicts: an answer string (the only answer the text gives) or ``None`` (no single answer: ambiguous, withdrawn,
or none). A *misread* is a parsed reading that differs from the verdict (any parsed reading of a ``None``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from hypothesis import strategies as st

from jigsaw_puzzles.spec import (ANOMALY, CHOICE, DIRECTIONS, ORDER, ORIENTED, LETTERS, format_anomaly, format_order, format_oriented, get,
                                 grid_config)


@dataclass(frozen=True)
class Composition:
    config: str
    text: str
    verdict: Optional[str]  # the one answer, or None
    statement: str  # the clean stated answer alone (what the reward of this composition may not exceed)
    suffix: str  # the suffix kind
    prose: bool = False  # the statement is in prose (rotated orders region by region, an anomaly sentence)
    lead: str = ""  # the lead-in joined to the statement in its sentence ("Looking at the edges, ", "..., so ")


# ----------------------------------------------------------------------------------------------- families
def _letter_configs():
    out = ["piece_localization_easy", "connection_verification", "piece_localization_hard"]
    out += [grid_config("missing_piece_selection_easy", 3, 3, k) for k in range(2, 9)]
    return out


FAMILIES = {
    "letters": _letter_configs(),
    "eight": ["connection_verification_2x2_8dir", "connection_verification_3x3_8dir"],
    "orders": [grid_config("order_generation", r, c) for r, c in ((2, 2), (1, 3), (2, 3), (3, 3), (3, 2))],
    "turns": [grid_config("order_generation", r, c, rotated=True) for r, c in ((2, 2), (1, 3), (2, 3))],
    "anomaly": [grid_config("anomaly_detection", r, c) for r, c in ((2, 2), (1, 3), (2, 3), (3, 3))],
}


# ----------------------------------------------------------------------------------------------- answers
@st.composite
def answers(draw, config):
    """(canonical answer, rendering dict) pairs: two different answers of ``config``."""
    spec = get(config)
    kind = spec.kind
    if kind == CHOICE:
        a, b = draw(st.permutations(list(spec.letters)))[:2]
        return a, b
    if kind == ORDER:
        n = spec.order_length
        a = draw(st.permutations(list(range(1, n + 1))))
        b = draw(st.permutations(list(range(1, n + 1))).filter(lambda p: p != a))
        return tuple(a), tuple(b)
    if kind == ORIENTED:
        n = spec.order_length
        out = []
        for _ in range(2):
            order = draw(st.permutations(list(range(1, n + 1))))
            turns = draw(st.lists(st.sampled_from([0, 90, 180, 270]), min_size=n, max_size=n))
            out.append(tuple(zip(order, turns)))
        if out[0] == out[1]:
            out[1] = tuple((i, (r + 90) % 360) for i, r in out[1])
        return out[0], out[1]
    cells = spec.num_options
    choices = [("A", None, None)] + [("B", LETTERS[p], t) for p in range(cells) for t in "AB"]
    a, b = draw(st.permutations(choices))[:2]
    return a, b


def canonical(config, ans) -> str:
    kind = get(config).kind
    if kind == CHOICE:
        return ans
    if kind == ORDER:
        return format_order(ans)
    if kind == ORIENTED:
        return format_oriented([i for i, _ in ans], [r for _, r in ans])
    return format_anomaly() if ans[0] == "A" else format_anomaly(ans[1], ans[2])


# ----------------------------------------------------------------------------------------------- surface forms
_TYPE_WORD = {"A": "rotated", "B": "mirrored"}


def render(draw, config, ans) -> str:
    """One surface form of the bare answer value (how it is written inside a statement)."""
    kind = get(config).kind
    if kind == CHOICE:
        return draw(st.sampled_from([ans, f"({ans})", f"**{ans}**", f"option {ans}", f"[{ans}]"]))
    if kind == ORDER:
        sep = draw(st.sampled_from([", ", ",", " "]))
        body = sep.join(map(str, ans))
        return draw(st.sampled_from([f"[{body}]", f"[{body}]", body if len(ans) <= 9 else f"[{body}]"]))
    if kind == ORIENTED:
        return "[" + ", ".join(draw(st.sampled_from([f"({i}, {r})", f"({i},{r})", f"({i}, {r}°)"]))
                               for i, r in ans) + "]"
    if ans[0] == "A":
        return draw(st.sampled_from(["Judgment: A\nError Position:\nError Type:", "Judgment: A",
                                     "Judgment: A\nError Position: none\nError Type: none"]))
    j, p, t = ans
    return draw(st.sampled_from([f"Judgment: B\nError Position: {p}\nError Type: {t}",
                                 f"Judgment: B, Error Position: {p}, Error Type: {t}",
                                 f"Judgment: B\nError Position: ({p})\nError Type: {t}"]))


def cell_words(draw, rows, cols, k) -> str:
    """A cell (0-based, row by row) in words, the way people name it on an R x C grid."""
    r, c = divmod(k, cols)
    vert = {1: [""], 2: ["top", "bottom"], 3: ["top", "middle", "bottom"]}[rows][r]
    horiz = {1: [""], 2: ["left", "right"], 3: ["left", "middle", "right"]}[cols][c]
    named = "center" if vert == horiz == "middle" else "-".join(w for w in (vert, horiz) if w)
    return draw(st.sampled_from([named, named, f"row {r + 1}, column {c + 1}",
                                 f"{['first', 'second', 'third'][r]} row, {['first', 'second', 'third'][c]} column"]))


def _turn(draw, r, trap=False) -> str:
    """How the clockwise turn of one piece is said (``trap``: a way that does not say it)."""
    if trap:
        return draw(st.sampled_from([f"rotated {r or 90} degrees counterclockwise", f"which is rotated {r}°",
                                     f"turn it {r} or {(r + 90) % 360} degrees", f"rotated {r}° anticlockwise"]))
    if r == 0:
        return draw(st.sampled_from(["no rotation", "upright", "not rotated", "rotation 0", "0°"]))
    return draw(st.sampled_from([f"rotate {r}° clockwise", f"turn it {r} degrees", f"rotation {r}",
                                 f"rotated {r}°", f"turned {r} degrees clockwise", f"rotate it by {r} degrees"]))


def pieces_in_prose(draw, config, ans, trap=False) -> str:
    """A rotated order written region by region in prose; ``trap``: one piece said in a way that gives no
    single answer (the other way round, a state, a hedge, a region left out or given twice)."""
    rows, cols = get(config).grid
    bad = draw(st.integers(0, len(ans) - 1)) if trap else -1
    how = draw(st.sampled_from(["turn", "missing", "twice", "or"])) if trap else ""
    form = draw(st.sampled_from(["lines", "sentences", "clauses", "pairs", "numbered"]))
    parts = []
    for k, (i, r) in enumerate(ans):
        if k == bad and how == "missing":
            continue
        where = f"Region {k + 1}" if form == "numbered" else cell_words(draw, rows, cols, k)
        img = f"image {i}" if not (k == bad and how == "or") else f"image {i} or {ans[(k + 1) % len(ans)][0]}"
        turn = _turn(draw, r, trap=k == bad and how == "turn")
        if form == "pairs" and not (k == bad and how in ("turn", "or")):
            parts.append(f"{where}: ({i}, {r})")
        elif form == "sentences":
            parts.append(f"Image {img[6:]} goes in the {where}, {turn}.")
        elif form == "clauses":
            parts.append(f"{where} is {img} with {turn}" if turn.startswith(("no ", "0")) else f"{where} is {img}, {turn}")
        else:
            parts.append(f"{where}: {img}, {turn}")
        if k == bad and how == "twice":
            parts.append(f"{where}: image {ans[(k + 1) % len(ans)][0]}, {_turn(draw, r)}")
    if form == "clauses":
        return (", ".join(parts[:-1]) + " and " + parts[-1] + ".") if len(parts) > 1 else parts[0] + "."
    return draw(st.sampled_from(["\n", " "])).join(parts) if form == "sentences" else "\n".join(parts)


_ANOMALY_TYPE = {"A": ["rotated", "rotated 90 degrees", "upside down", "turned sideways"],
                 "B": ["mirrored", "flipped horizontally", "mirrored horizontally", "reflected"]}


def anomaly_in_prose(draw, config, ans, trap=False) -> str:
    """An anomaly verdict as one last sentence; ``trap``: one that names no single answer."""
    rows, cols = get(config).grid
    if ans[0] == "A" and not trap:
        return draw(st.sampled_from(["Everything looks normal.", "All sub-images are correct.", "There is no anomaly.",
                                     "No errors were found.", "None of the sub-images is rotated or mirrored.",
                                     "The whole image looks fine."]))
    k = LETTERS.index(ans[1]) if ans[0] == "B" else 0
    where = cell_words(draw, rows, cols, k)
    what = draw(st.sampled_from(_ANOMALY_TYPE[ans[2] or "A"]))
    if trap:
        other = cell_words(draw, rows, cols, (k + 1) % (rows * cols)) if rows * cols > 1 else where
        return draw(st.sampled_from([f"The {where} piece is not {what}.", f"Is the {where} piece {what}?",
                                     f"Let me check whether the {where} piece is {what}.",
                                     f"The {where} or the {other} piece is {what}.",
                                     f"The {where} piece is rotated and mirrored.",
                                     f"Everything looks normal except maybe the {where} piece.",
                                     f"The {where} piece might be {what}.",
                                     f"Nothing in the {where} is {what}."]))
    return draw(st.sampled_from([f"The {where} sub-image is {what}.", f"Sub-image {ans[1]} has been {what}.",
                                 f"There is an anomaly: the piece in the {where} is {what}.",
                                 f"The {where} piece appears to be {what}.",
                                 f"So the {where} piece is {what}."]))


def statement(draw, config, ans, prose=None) -> str:
    """A full answer statement giving ``ans`` (in prose, where the config has a prose form: ``prose`` or one time
    in four)."""
    spec = get(config)
    if spec.kind in (ORIENTED, ANOMALY) and (prose if prose is not None else draw(st.integers(0, 3)) == 0):
        return (pieces_in_prose if spec.kind == ORIENTED else anomaly_in_prose)(draw, config, ans)
    v = render(draw, config, ans)
    if spec.kind == ANOMALY:
        return draw(st.sampled_from([v, f"Final answer:\n{v}", f"**Answer**\n{v}", v.replace("Judgment", "Judgement")]))
    forms = ["Answer: {v}", "The answer is {v}.", "Final answer: {v}", "So the final answer is {v}.",
             "{v}", "\\boxed{{{v}}}", "My answer: {v}", "Therefore the answer is {v}", "**Final Answer:** {v}",
             "I'd go with {v}.", "Verdict: {v}", "Result = {v}", "答案是{v}", '{{"answer": "{v}"}}', "=> {v}",
             "Conclusion - {v}.", "It has to be {v}.", "<final_answer>{v}</final_answer>", 'submit(answer="{v}")',
             '{{"name": "submit_answer", "arguments": "{{\\"answer\\": \\"{v}\\"}}"}}', "```yaml\nanswer: {v}\n```",
             "Resposta: {v}", "Ответ: {v}", "La respuesta es {v}.", "Die Antwort ist {v}.", "Cevap: {v}"]
    if spec.kind == CHOICE:
        forms += ["I choose {v}.", "The correct option is {v}.", "{v} is correct.", "The best match is {v}.",
                  "Option {a}", "{a}", "{a}.", "Selected: {a}"]
    if spec.kind in (ORDER, ORIENTED):
        forms += ["The order is {v}.", "Order: {v}", "The correct arrangement is {v}", "Solution:\n{v}"]
    if spec.kind == ORDER:  # row by row: a nested list, a markdown grid, "Row k:" lines
        rows, cols = spec.grid
        grid = [ans[r * cols:(r + 1) * cols] for r in range(rows)]
        forms += ["[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in grid) + "]",
                  "\n".join("| " + " | ".join(map(str, g)) + " |" for g in grid),
                  "\n".join(f"Row {i + 1}: " + " ".join(map(str, g)) for i, g in enumerate(grid))]
    return draw(st.sampled_from(forms)).format(v=v, a=ans if spec.kind == CHOICE else v)


def wording(draw, config, ans) -> Optional[str]:
    """An option's own words alone, where the config has words per option (the verdict is that option)."""
    if config.endswith("_8dir"):
        d = DIRECTIONS[LETTERS.index(ans)]
        return draw(st.sampled_from([f"<image 2> lies {d} of <image 1>.", f"Direction: {d}", f"{ans} ({d})"]))
    if config.startswith("missing_piece"):
        return draw(st.sampled_from([f"Candidate {LETTERS.index(ans) + 1}", f"{ans}: Candidate {LETTERS.index(ans) + 1}"]))
    return None


def reasoning(draw, config, ans, other) -> str:
    """Sentences before the statement: observations, and other answers tried or ruled out."""
    o = render(draw, config, other)
    if get(config).kind == ANOMALY:
        o = "the cell " + (other[1] or "A")
    picks = draw(st.lists(st.sampled_from([
        "Let me look at the seams carefully.",
        "The colours along the edges continue smoothly.",
        "I compare every piece with its neighbours.",
        f"I first tried {o}, but the seam does not match.",
        f"{o} is wrong because the horizon breaks.",
        f"It cannot be {o}.",
        "The sky should be at the top.",
        "Some textures repeat, which makes this harder.",
    ]), max_size=3))
    return " ".join(picks)


# ----------------------------------------------------------------------------------------------- suffixes
SUFFIXES = ("none", "restated", "hedge", "alternative", "withdrawn_new", "withdrawn_alone", "negate_other",
            "negate_self", "confident", "confident_other", "explained", "disclaimed", "convention")
#: Lead-ins joined to the statement in its sentence: known links (the reasoning before them is not read word by
#: word), and links that make the answer depend on something (never read).
LEADS = ["Looking at the edges, ", "After comparing all the candidates carefully, ", "Based on the texture, ",
         "The roof line continues across the seam, so ", "Given the horizon, ", "Therefore, ", "So ",
         "Judging by the colours, ", "Wait, re-checking the seams, ", "Unless I misread the seams, "]
TRAP_LEADS = ["If the sky is on top, ", "Unless the patch is rotated, ", "Assuming the pieces are upright, ",
              "Worst match: ", "Incorrect: ", "Wrong answer: "]  # ("Unless I misread the seams, D" is D to every grader)


def suffix(draw, config, kind, ans, other) -> tuple[str, Optional[str], str]:
    """(text, verdict, statement of the verdict when it changed or "") for a suffix kind."""
    a, o = render(draw, config, ans), render(draw, config, other)
    anomaly = get(config).kind == ANOMALY
    if kind == "none":
        return "", canonical(config, ans), ""
    if kind == "restated":
        return draw(st.sampled_from([f"So: {a}.", f"Again, {a}.", f"(answer: {a})"])) if not anomaly \
            else "That is my answer.", canonical(config, ans), ""
    if kind == "hedge":
        return draw(st.sampled_from([f"Or maybe {o}.", f"But {o} is also possible.", f"It could also be {o}.",
                                     f"Or possibly {o}, hard to say.", f"Though perhaps {o}.", f"and {o}",
                                     f"& {o}", f"+ {o}"])), None, ""
    if kind == "alternative":
        return draw(st.sampled_from([f"Alternative answer: {o}", f"Backup: {o}", f"Second guess: {o}",
                                     f"If not, then {o}.", f"Otherwise {o}."])), None, ""
    if kind == "withdrawn_new":
        st_ = statement(draw, config, other)
        lead = draw(st.sampled_from(["Wait, that's wrong.", "Actually, no.", "On second thought,",
                                     "Hmm, let me reconsider.", "Correction:"]))
        return f"{lead}\n{st_}", canonical(config, other), st_
    if kind == "withdrawn_alone":
        return draw(st.sampled_from(["Wait, that's wrong.", "Actually, I take that back.",
                                     "Hmm, no, that was a mistake."])), None, ""
    if kind == "negate_other":
        return draw(st.sampled_from([f"Definitely not {o}.", f"{o} is wrong.", f"It is not {o}."])) if not anomaly \
            else "The other cells look fine.", canonical(config, ans), ""
    if kind == "negate_self":
        return draw(st.sampled_from([f"Hmm, {a} is wrong though.", "No, that is wrong.",
                                     f"Actually it is not {a}."])), None, ""
    if kind == "explained":
        return draw(st.sampled_from(["\n\nExplanation: the sky and the roof line continue across the seam.",
                                     "\nThe colours on both sides of the seam match.",
                                     "\nReasoning: the texture continues and the edges line up."])), \
            canonical(config, ans), ""
    if kind == "disclaimed":
        return draw(st.sampled_from(["\nJust kidding, I have no idea.", "\nI picked this at random.",
                                     "\n(This is a guess: the images did not load.)",
                                     "\nPlease disregard that, I cannot see the images."])), None, ""
    if kind == "convention":
        if get(config).kind in (ORDER, ORIENTED):
            return draw(st.sampled_from(["\nI numbered the regions column by column.", "\nNote: indices are 0-based.",
                                         "\nThe list gives, for each image, the region it belongs to."])), None, ""
        return "\nThe letters refer to the masks from right to left.", None, ""
    if kind == "confident":
        return draw(st.sampled_from(["I am fairly confident.", "Confidence: 90%.", "I'm sure about this."])), \
            canonical(config, ans), ""
    return draw(st.sampled_from([f"Confidence: 60% ({o} is close).", f"I am 70% sure; otherwise {o}.",
                                 f"Not fully sure, {o} is my second choice."])), None, ""


@st.composite
def compositions(draw, family=None):
    family = family or draw(st.sampled_from(sorted(FAMILIES)))
    config = draw(st.sampled_from(FAMILIES[family]))
    ans, other = draw(answers(config))
    prose = get(config).kind in (ORIENTED, ANOMALY)
    kind = draw(st.sampled_from(SUFFIXES + (("trap",) if prose else ())))
    before = reasoning(draw, config, ans, other)
    if kind == "trap":  # an answer in prose that gives no single answer
        trap = (pieces_in_prose if get(config).kind == ORIENTED else anomaly_in_prose)(draw, config, ans, trap=True)
        return Composition(config, f"{before}\n{trap}" if before else trap, None, "", kind, True)
    words = wording(draw, config, ans) if draw(st.booleans()) else None
    prose = get(config).kind in (ORIENTED, ANOMALY) and draw(st.integers(0, 3)) == 0
    stated = words if words is not None and kind in ("none", "confident") else statement(draw, config, ans, prose)
    tail, verdict, restated = suffix(draw, config, kind, ans, other)
    sep1 = draw(st.sampled_from(["\n", "\n\n", " "])) if before else ""
    sep2 = draw(st.sampled_from(["\n", " "])) if tail else ""
    if get(config).kind == ANOMALY or "\n" in stated:
        sep1, sep2 = ("\n" if before else ""), ("\n" if tail else "")
    lead = ""
    if "\n" not in stated and not stated.startswith(("{", "<", "submit", "\\")) and draw(st.integers(0, 2)) == 0:
        trap = draw(st.integers(0, 3)) == 0
        lead = draw(st.sampled_from(TRAP_LEADS if trap else LEADS))
        if trap and kind != "withdrawn_new":  # (a withdrawal after it makes the new statement the answer)
            verdict = None
    text = f"{before}{sep1}{lead}{stated}{sep2}{tail}"
    return Composition(config, text, verdict, restated or stated, kind, prose and stated is not words, lead)
