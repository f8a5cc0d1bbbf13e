"""Issue #20 items 3-6 on every config family and grid: position words per grid, hedges, stated orders and
per-option descriptions. A table of realistic responses plus property tests: a hedge between two candidates
is never parsed as either; an answer wrapped in prose with other numbers or letters reads as the stated one."""
import re
import pytest
from hypothesis import assume, HealthCheck, given, settings
from hypothesis import strategies as st

from jigsaw_puzzles.scoring.extraction import AMBIGUOUS, PARSED, classify_response
from jigsaw_puzzles.scoring.extraction.forms import pattern
from jigsaw_puzzles.spec import LETTERS, format_anomaly, format_order, format_oriented, get

AD, AD23, AD3 = "anomaly_detection", "anomaly_detection_2x3", "anomaly_detection_3x3"
MPS6, MPSH8 = "missing_piece_selection_easy_2x2_k6", "missing_piece_selection_hard_3x3_k8"
PL6, CV8 = "piece_localization_3x3_k6", "connection_verification_3x3_8dir"
OG, OG3, OR3 = "order_generation", "order_generation_3x3", "order_restoration_3x3"
ROT, ROT3 = "order_generation_2x2_rot", "order_generation_3x3_rot"


def block(p, t):
    return format_anomaly(p, t)


ROT_A = "[(2, 90), (3, 0), (1, 270), (4, 180)]"
ROT_B = "[(2, 0), (3, 0), (1, 270), (4, 180)]"
GRID_CASES = [
    # -- anomaly: position words per grid (the 2x2 table read "bottom-right" on 3x3 as D; it is I)
    ("Judgment: B\nError Position: bottom-right\nError Type: A", AD3, block("I", "A"), PARSED),
    ("Judgment: B\nError Position: Bottom-right\nError Type: Rotation", AD23, block("F", "A"), PARSED),
    ("**Judgment:** B\n**Error Position:** top-right corner\n**Error Type:** Mirroring", AD3, block("C", "B"), PARSED),
    ("Judgment: B\nError Position: Middle\nError Type: Mirroring", AD3, block("E", "B"), PARSED),
    ("Judgment: B\nError Position: the centre tile\nError Type: B", AD3, block("E", "B"), PARSED),
    ("Judgment: B\nError Position: center-left\nError Type: A", AD3, block("D", "A"), PARSED),
    ("Judgment: B\nError Position: top-middle\nError Type: A", AD23, block("B", "A"), PARSED),
    ("Judgment: B\nError Position: row 2, column 3\nError Type: A", AD3, block("F", "A"), PARSED),
    ("Judgment: B\nError Position: Row 1, Column 2\nError Type: B", AD23, block("B", "B"), PARSED),
    ("Judgment: B\nError Position: second row, third column\nError Type: B", AD23, block("F", "B"), PARSED),
    ("Judgment: B\nError Position: 3rd row, last column\nError Type: A", AD3, block("I", "A"), PARSED),
    ("Judgment: B\nError Position: column 1, row 3\nError Type: A", AD3, block("G", "A"), PARSED),
    ("Judgment: B\nError Position: middle row, rightmost column\nError Type: A", AD3, block("F", "A"), PARSED),
    ("Judgment: B\nError Position: centre-left\nError Type: B", AD3, block("D", "B"), PARSED),
    ("Judgment: B\nError Position: G (bottom-left)\nError Type: A", AD3, block("G", "A"), PARSED),
    ("Let me inspect each tile. The top-right one looks fine, the seams of the middle row are clean, but the "
     "bottom-right tile is upside down.\n\nFinal answer:\nJudgment: B\nError Position: bottom-right\nError Type: "
     "Rotation", AD3, block("I", "A"), PARSED),
    ("Judgment: B\nError Position: C (bottom-left)\nError Type: A", AD3, None, AMBIGUOUS),  # C is top-right on 3x3
    ("Judgment: B\nError Position: bottom\nError Type: A", AD3, None, AMBIGUOUS),  # three bottom cells
    ("Judgment: B\nError Position: middle\nError Type: A", AD23, None, AMBIGUOUS),  # no middle row on 2x3
    ("Judgment: B\nError Position: row 4, column 1\nError Type: A", AD3, None, AMBIGUOUS),  # past the grid
    ("Judgment: B\nError Position: second from the left in the top row\nError Type: A", AD3, None, AMBIGUOUS),
    ("Judgment: B\nError Position: the middle of the top row\nError Type: A", AD3, block("B", "A"), PARSED),
    ("Judgment: B\nError Position: Z\nError Type: A", AD3, None, "invalid"),
    # -- anomaly hedges on any grid
    ("Judgment: B Error Position: E or F Error Type: A", AD3, None, AMBIGUOUS),
    ("Judgment: B\nError Position: bottom-left or bottom-right\nError Type: A", AD23, None, AMBIGUOUS),
    ("Judgment: B\nError Position: E\nError Type: Rotation (or possibly mirroring)", AD3, None, AMBIGUOUS),
    ("Judgment: B\nError Position: row 2, column 2 or row 2, column 3\nError Type: A", AD3, None, AMBIGUOUS),
    ("Judgment: B (or possibly A)\nError Position: E\nError Type: A", AD3, None, AMBIGUOUS),
    ("Judgment: B, maybe A\nError Position: B\nError Type: A", AD23, None, AMBIGUOUS),
    # -- choices with more than 4 candidates
    ("F", MPS6, "F", PARSED),
    ("Final answer: E or maybe F", MPS6, None, AMBIGUOUS),
    ("Answer: F. Or possibly E.", MPSH8, None, AMBIGUOUS),
    ("E\nF\nG", MPSH8, None, AMBIGUOUS),
    ("A: sky. B: sand. C: grass. D: a wall. E: the dog -> E", MPS6, "E", PARSED),  # #43: the arrow picks E
    ("A: sky. B: sand. C: grass. D: a wall. E: the dog.\n=> E", MPS6, "E", PARSED),
    ("A) sky\nB) sand\nC) grass\nD) a wall\nE) the dog, which matches\nF) water", MPS6, None, AMBIGUOUS),
    ("E: the dog's ear <- this one", MPSH8, None, AMBIGUOUS),  # #32: description words
    ("F; A, B, C, D and E do not fit", PL6, "F", PARSED),
    ("The answer is G, or perhaps H.", CV8, None, AMBIGUOUS),
    ("Neither G nor H.", CV8, None, AMBIGUOUS),
    ("Answer: C or maybe D", OR3, None, AMBIGUOUS),
    # -- orders on 3x3 and the _rot oriented orders
    ("[9, 1, 4, 2, 3, 5, 6, 7, 8]\nImages 1, 2, 3, 4, 5, 6, 7, 8, 9 were given shuffled.", OG3,
     "[9, 1, 4, 2, 3, 5, 6, 7, 8]", PARSED),
    ("[9, 1, 4, 2, 3, 5, 6, 7, 8] or [9, 1, 4, 2, 3, 5, 6, 8, 7]", OG3, None, AMBIGUOUS),
    ("Final answer: [9, 1, 4, 2, 3, 5, 6, 7, 8] (or possibly [1, 9, 4, 2, 3, 5, 6, 7, 8])", OG3, None, AMBIGUOUS),
    (ROT_A + " or " + ROT_B, ROT, None, AMBIGUOUS),
    ("Final answer: " + ROT_A + ", or maybe " + ROT_B, ROT, None, AMBIGUOUS),
    (ROT_A + "\nHere (1, 0) would mean image 1 upright; images 1, 2, 3, 4 were rotated.", ROT, ROT_A,
     PARSED),
    ("**" + ROT_A + "**\nFor comparison, [(1, 0), (2, 0), (3, 0), (4, 0)] would be the unturned identity.", ROT,
     None, AMBIGUOUS),  # a later, different list: which one is stated is unclear
    (ROT_A + "\nImage 2 needs 90 degrees, images 1 and 4 more.", ROT, ROT_A, PARSED),
]


@pytest.mark.parametrize("text,config,answer,status", GRID_CASES)
def test_grid_and_hedge_responses(text, config, answer, status):
    ex = classify_response(text, config)
    assert (ex.answer, ex.status) == (answer, status), (text, ex)


# ---------------------------------------------------------------- property-based

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GRIDS = [(AD, 2, 2), (AD23, 2, 3), (AD3, 3, 3), ("anomaly_detection_3x4", 3, 4), ("anomaly_detection_1x3", 1, 3)]
ORDINAL = ["first", "second", "third", "fourth", "fifth"]
# reasoning before the answer: a finished sentence (the line above a bare answer or block is read, #43)
PROSE = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Zs")), max_size=50).map(str.strip).map(
    lambda p: p + "." if p else p)


def cell_phrases(r, c, rows, cols):
    """Every way of naming cell (r, c) (1-based) of a rows x cols grid that names exactly that cell."""
    out = [LETTERS[(r - 1) * cols + c - 1], f"row {r}, column {c}", f"Row {r}, Column {c}", f"column {c}, row {r}",
           f"{ORDINAL[r - 1]} row, {ORDINAL[c - 1]} column", f"the sub-image in row {r} and column {c}"]
    vert = {1: "top", rows: "bottom"}.get(r) if rows > 1 else "top"
    horiz = {1: "left", cols: "right"}.get(c) if cols > 1 else None
    mid_r = rows % 2 == 1 and r == (rows + 1) // 2
    mid_c = cols % 2 == 1 and c == (cols + 1) // 2
    if vert and horiz:
        out += [f"{vert}-{horiz}", f"{vert.capitalize()} {horiz} corner"]
    if vert and mid_c:
        out.append(f"{vert}-middle")
    if mid_r and horiz and rows > 1:
        out.append(f"middle-{horiz}")
    if mid_r and mid_c and rows > 1:
        out += ["middle", "the centre"]
    return out


@st.composite
def grid_cells(draw, distinct=False):
    config, rows, cols = draw(st.sampled_from(GRIDS))
    cells = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
    a = draw(st.sampled_from(cells))
    b = draw(st.sampled_from([x for x in cells if x != a])) if distinct else None
    return config, rows, cols, a, b


@SETTINGS
@given(cell=grid_cells(), typ=st.sampled_from([("A", "A"), ("A", "Rotation"), ("B", "Mirroring"), ("B", "B")]),
       data=st.data(), prose=PROSE)
def test_position_words_read_per_grid(cell, typ, data, prose):
    config, rows, cols, (r, c), _ = cell
    phrase = data.draw(st.sampled_from(cell_phrases(r, c, rows, cols)))
    # reasoning drawn as random words may judge the image itself ("correct."): then the block is contradicted, not read
    assume(not any(pattern(k).search(prose) for k in ("correct", "incorrect")))
    text = f"{prose}\nJudgment: B\nError Position: {phrase}\nError Type: {typ[1]}"
    assert classify_response(text, config).answer == block(LETTERS[(r - 1) * cols + c - 1], typ[0]), text


_HEDGES = ["{a} or {b}", "{a} (or possibly {b})", "{a}, or maybe {b}", "{a}/{b}", "either {a} or {b}",
           "{a} or perhaps {b}"]


@SETTINGS
@given(cell=grid_cells(distinct=True), data=st.data(), hedge=st.sampled_from(_HEDGES), prose=PROSE)
def test_hedged_position_or_type_is_never_parsed(cell, data, hedge, prose):
    config, rows, cols, (r, c), (r2, c2) = cell
    a = data.draw(st.sampled_from(cell_phrases(r, c, rows, cols)))
    b = data.draw(st.sampled_from(cell_phrases(r2, c2, rows, cols)))
    text = f"{prose}\nJudgment: B\nError Position: {hedge.format(a=a, b=b)}\nError Type: A"
    ex = classify_response(text, config)
    assert ex.status != PARSED, text
    assert ex.parts.get("position") not in (None, *LETTERS), ex  # no diagnostic/partial credit for either cell
    t1, t2 = data.draw(st.permutations([("A", "Rotation"), ("B", "Mirroring")]))
    typ = hedge.format(a=data.draw(st.sampled_from(t1)), b=data.draw(st.sampled_from(t2)))
    text = f"{prose}\nJudgment: B\nError Position: {a}\nError Type: {typ}"
    assert classify_response(text, config).status != PARSED, text


CHOICES = ["missing_piece_selection_easy", "missing_piece_selection_hard", "piece_localization_easy",
           "piece_localization_hard", "connection_verification", "order_restoration", MPS6, MPSH8, PL6, CV8, OR3]
_LETTER_HEDGES = ["{a} or {b}", "Answer: {a} or maybe {b}", "Final answer: {a} (or possibly {b})",
                  "{a}. Or possibly {b}.", "The answer is either {a} or {b}.", "**Answer:** {a}/{b}",
                  "The answer is {a}, or perhaps {b}.", "{a}\n{b}", "Neither {a} nor {b}.",
                  "<think>hmm</think>\n{a} or maybe {b}", "I choose {a} or {b}."]


@SETTINGS
@given(config=st.sampled_from(CHOICES), data=st.data(), hedge=st.sampled_from(_LETTER_HEDGES), prose=PROSE)
def test_hedged_letters_are_never_parsed(config, data, hedge, prose):
    a, b = data.draw(st.permutations(get(config).letters))[:2]
    # random prose that is itself an answer ("c." is option C, on its own line) commits before the hedge: not this test's
    assume(classify_response(prose, config).status != PARSED)
    text = (prose + "\n" if prose else "") + hedge.format(a=a, b=b)
    assert classify_response(text, config).status != PARSED, text


# A pick on the option's own line ("C: the dog <- this one") stands among the description's words: ambiguous (#32)
_DESCRIBED = ["{lines}\n-> {a}", "{lines}\nFinal answer: {a}", "{a}; {rest} do not fit",
              "{a}. {rest} do not fit the seam.", "{lines}\nSo the answer is {a}."]


@SETTINGS
@given(config=st.sampled_from(CHOICES), data=st.data(), style=st.sampled_from(_DESCRIBED),
       words=st.lists(st.sampled_from(["sky", "sand", "a dog", "grass", "roof", "water", "a wall"]), min_size=8,
                      max_size=8))
def test_described_options_read_as_the_pick(config, data, style, words):
    letters = get(config).letters
    a = data.draw(st.sampled_from(letters))
    order = list(letters)
    lines = "\n".join(f"{x}: {words[i % 8]}" for i, x in enumerate(order))
    rest = ", ".join(x for x in letters if x != a)
    text = style.format(lines=lines, a=a, rest=rest)
    assert classify_response(text, config).answer == a, text
    # without the pick, a list of descriptions is read as no option at all
    assert classify_response(lines, config).status != PARSED or len(letters) == 1, lines


def _order_cfg(n):
    return {4: OG, 9: OG3}[n]


@SETTINGS
@given(n=st.sampled_from([4, 9]), data=st.data(), prose=PROSE,
       hedge=st.sampled_from(["{a} or {b}", "The order is {a} or maybe {b}.", "Final answer: {a}, or possibly {b}",
                              "{a}\nor {b}", "{a} (or {b})"]))
def test_hedged_orders_are_never_parsed(n, data, prose, hedge):
    p = data.draw(st.permutations(range(1, n + 1)))
    q = data.draw(st.permutations(range(1, n + 1)).filter(lambda x: x != p))
    text = (prose + "\n" if prose else "") + hedge.format(a=format_order(p), b=format_order(q))
    assert classify_response(text, _order_cfg(n)).status != PARSED, text


@SETTINGS
@given(n=st.sampled_from([4, 9]), data=st.data(), style=st.sampled_from(["{a}", "**{a}**", "Order: {a}"]),
       note=st.sampled_from(["Here images {seq} are the pieces in the order they were given.",
                             "Explanation: image {k} is sky, so it goes first; {seq} would break the seam.",
                             "Note: the input indices {seq} were shuffled, image {k} is the corner."]))
def test_stated_order_wins_over_numbers_in_the_explanation(n, data, style, note):
    p = data.draw(st.permutations(range(1, n + 1)))
    q = data.draw(st.permutations(range(1, n + 1)))
    k = data.draw(st.integers(1, n))
    sep = data.draw(st.sampled_from([", ", " "]))
    text = style.format(a=format_order(p)) + "\n" + note.format(seq=sep.join(map(str, q)), k=k)
    if p == q:  # the note names the answer again, among words the reader does not know (#32): it may abstain
        assert classify_response(text, _order_cfg(n)).answer in (format_order(p), None), text
    else:
        assert classify_response(text, _order_cfg(n)).answer == format_order(p), text


@SETTINGS
@given(n=st.sampled_from([4, 9]), data=st.data(),
       hedge=st.sampled_from(["{a} or {b}", "Final answer: {a} or maybe {b}", "{a}\nor {b}"]))
def test_hedged_oriented_orders_are_never_parsed(n, data, hedge):
    rots = st.lists(st.sampled_from([0, 90, 180, 270]), min_size=n, max_size=n)
    a = format_oriented(data.draw(st.permutations(range(1, n + 1))), data.draw(rots))
    b = data.draw(st.permutations(range(1, n + 1)).map(lambda p: format_oriented(p, [0] * n)).filter(
        lambda x: x != a))
    text = hedge.format(a=a, b=b)
    assert classify_response(text, {4: ROT, 9: ROT3}[n]).status != PARSED, text


@SETTINGS
@given(config=st.sampled_from(["missing_piece_selection_easy", "missing_piece_selection_hard"]),
       pair=st.permutations([1, 2, 3, 4]), prose=PROSE,
       style=st.sampled_from(["Candidate {i} or {j}", "It is candidate {i}, or maybe {j}.", "candidate {i}/{j}",
                              "The {oi} or {oj} image.", "Candidate {i} (or possibly candidate {j})"]))
def test_hedged_option_text_is_never_parsed(config, pair, prose, style):
    i, j = pair[:2]
    words = {1: "second", 2: "third", 3: "fourth", 4: "fifth"}
    text = (prose + "\n" if prose else "") + style.format(i=i, j=j, oi=words[i], oj=words[j])
    assert classify_response(text, config).status != PARSED, text


_EXPLAINED = ["Final answer: {a}\nExplanation: option {b} shows sky and option {c} shows sand.",
              "**{a}**\n\n{b} and {c} do not fit the seam.", "{a}. {b} and {c} are wrong: their edges break.",
              "The answer is {a}; {b} is close, but it is not correct.",
              "<think>{b} or {c}? The seam says {a}.</think>\n{a}"]


@SETTINGS
@given(config=st.sampled_from([c for c in CHOICES if len(get(c).letters) >= 3]), data=st.data(),
       style=st.sampled_from(_EXPLAINED))
def test_choice_in_prose_with_other_letters_reads_as_stated(config, data, style):
    a, b, c = data.draw(st.permutations(get(config).letters))[:3]
    text = style.format(a=a, b=b, c=c)
    assert classify_response(text, config).answer == a, text


@SETTINGS
@given(n=st.sampled_from([4, 9]), data=st.data(), style=st.sampled_from(["{a}", "**{a}**", "Final answer: {a}"]),
       note=st.sampled_from(["Image {k} needs {r} degrees; images {seq} were given shuffled.",
                             "Here ({k}, {r}) means image {k} turned by {r} degrees."]))
def test_stated_oriented_order_wins_over_numbers_in_the_explanation(n, data, style, note):
    rot = st.sampled_from([0, 90, 180, 270])
    a = format_oriented(data.draw(st.permutations(range(1, n + 1))), data.draw(st.lists(rot, min_size=n, max_size=n)))
    k, r = data.draw(st.integers(1, n)), data.draw(rot)
    seq = ", ".join(map(str, data.draw(st.permutations(range(1, n + 1)))))
    text = style.format(a=a) + "\n" + note.format(k=k, r=r, seq=seq)
    turned = dict(re.findall(r"\((\d+), (\d+)\)", a))[str(k)] == str(r)  # the note may not turn image k otherwise
    assert classify_response(text, {4: ROT, 9: ROT3}[n]).answer == (a if turned or note.startswith("Here") else None), text
