"""Answers given only in prose (issue #27 section 1): rotated orders region by region, and an anomaly verdict as a
last sentence. Each row is the verdict a careful grader gives; ``None`` is "no single answer" (never read)."""
import pytest

from jigsaw_puzzles.scoring.extraction import PARSED, classify_response
from jigsaw_puzzles.spec import format_anomaly

ROT = "order_generation_2x2_rot"
GOLD = "[(2, 90), (3, 0), (1, 270), (4, 180)]"
LINES = ("Top-left: image 2, rotated 90 degrees clockwise\nTop-right: image 3, no rotation\n"
         "Bottom-left: image 1, rotate 270°\nBottom-right: image 4, turn 180°")

ORIENTED_ROWS = [
    (LINES, GOLD),
    ("Let me look at the seams.\n" + LINES + "\nHope this helps.", GOLD),
    ("Top-left is image 2 rotated 90°, top-right is image 3 with no rotation, bottom-left is image 1 rotated 270°, "
     "and bottom-right is image 4 rotated 180°.", GOLD),
    ("Region 1: <image 2>, rotation 90. Region 2: <image 3>, rotation 0. Region 3: <image 1>, rotation 270. "
     "Region 4: <image 4>, rotation 180.", GOLD),
    ("row 1, column 1: image 2, rotated 90°\nrow 1, column 2: image 3, upright\nrow 2, column 1: image 1, rotated 270°"
     "\nrow 2, column 2: image 4, rotated 180°", GOLD),
    ("Top-left: (2, 90)\nTop-right: (3, 0)\nBottom-left: (1, 270)\nBottom-right: (4, 180)", GOLD),
    ("Image 2 goes in the top-left, turned 90 degrees clockwise to make it upright. Image 3 goes top-right, upright. "
     "Image 1 goes bottom-left, rotated by 270. Image 4 bottom-right, 180°.", GOLD),
    ("I first tried [(1, 0), (2, 0), (3, 0), (4, 0)], but the seams do not match.\n" + LINES, GOLD),
    ("It cannot be [(1, 0), (2, 0), (3, 0), (4, 0)].\n" + LINES, GOLD),
    ("Answer: " + GOLD + "\n" + LINES, GOLD),  # the list and the prose agree
    (LINES + "\nDefinitely not [(1, 0), (2, 0), (3, 0), (4, 0)].", GOLD),
    (LINES + "\n" + GOLD, GOLD),
    # no single answer
    (LINES.replace("Top-left: image 2,", "Top-left: image 2 is"), None),  # a state, not the turn that fixes it
    (LINES.replace("clockwise", "counterclockwise"), None),  # counted the other way
    (LINES.replace("image 2,", "image 2 or 3,"), None),
    (LINES.replace("turn 180°", "turn 180° or 90°"), None),
    (LINES.rsplit("\n", 1)[0], None),  # a region left out
    (LINES + "\nTop-left: image 4, rotated 90°", None),  # a region given twice
    ("[(1, 0), (2, 0), (3, 0), (4, 0)]\n" + LINES, None),  # a list and different prose, neither withdrawn
    ("Answer: [(1, 0), (2, 0), (3, 0), (4, 0)]\n" + LINES, None),
    (LINES + "\n[(1, 0), (2, 0), (3, 0), (4, 0)]", None),  # prose, then another list: two answers
    ("[(1, 0), (2, 0), (3, 0), (4, 0)] is my answer. There is no doubt.\n" + LINES, None),  # neither withdrawn
    (LINES + "\nSo: [(1, 0), (2, 0), (3, 0), (4, 0)].", None),
    ("Alternatively:\n" + LINES, None),
    ("I first tried:\n" + LINES, None),
    ("Let me check whether top-left is image 2, rotated 90°, top-right image 3, no rotation, bottom-left image 1, "
     "rotate 270°, bottom-right image 4, turn 180°.", None),
    (LINES + "\nWait, that's wrong.", None),
    (LINES + "\nMaybe.", None),
    (LINES + "\n" + GOLD + " is wrong.", None),  # the text rules its own answer out
    (LINES + "\nHmm, [(1, 0), (2, 0), (3, 0), (4, 0)] is wrong though.", None),
]


@pytest.mark.parametrize("text,verdict", ORIENTED_ROWS)
def test_rotated_orders_in_prose(text, verdict):
    ex = classify_response(text, ROT)
    read = ex.answer if ex.status == PARSED else None
    assert read == verdict, (text, ex)


B_C_A, A_ = format_anomaly("C", "A"), format_anomaly()
ANOMALY_ROWS = [
    ("Everything looks normal.", A_),
    ("I checked every seam. There is no anomaly.", A_),
    ("None of the pieces is rotated or mirrored.", A_),
    ("All sub-images are correct.\nThat is my answer.", A_),
    ("The bottom-left piece is rotated.", B_C_A),
    ("So the bottom-left sub-image is rotated 90 degrees clockwise. Confidence: 90%", B_C_A),
    ("Sub-image C has been rotated.", B_C_A),
    ("There is an anomaly: the piece in row 2, column 1 is upside down.", B_C_A),
    ("The top-left looks fine. The top-right looks fine. The bottom-left piece appears to be rotated.", B_C_A),
    ("There is a mirrored piece in the top-right corner.", format_anomaly("B", "B")),
    # no single answer
    ("The bottom-left piece is not rotated.", None),
    ("Is the bottom-left piece rotated?", None),
    ("Let me check whether the bottom-left piece is rotated.", None),
    ("The bottom-left or the bottom-right piece is rotated.", None),
    ("The bottom piece is rotated.", None),  # no single cell of a 2x2 grid
    ("The bottom-left piece is rotated and mirrored.", None),
    ("The bottom-left piece might be rotated.", None),
    ("Everything looks normal except maybe the bottom-left piece.", None),
    ("The bottom-left piece is rotated. Everything else looks normal.", format_anomaly("C", "A")),  # the rest, said fine
    ("The bottom-left piece is rotated. Everything else might be normal.", None),
    ("The bottom-left piece is rotated; the rest are fine.", format_anomaly("C", "A")),  # #43: the rest said fine
    ("The bottom-left piece is rotated; the rest might be fine.", None),
    ("The middle piece is flipped: its shadow in the bottom-left points the other way.", None),  # no single cell
    ("The top-left piece is rotated 90° — the tree trunks run horizontally there.", format_anomaly("A", "A")),
    ("The top-left piece is rotated: or is it mirrored?", None),
    ("Everything looks right to me! The picture is put together correctly.", format_anomaly()),
    ("Everything looks correct; none is flipped or turned.", format_anomaly()),
    ("Nothing looks rotated.", None),  # says nothing of mirroring
    ("Incorrect: the top-left piece is rotated.", format_anomaly("A", "A")),
    ("Worst match: the top-left piece is rotated.", None),
    ("The top-left piece is flipped left to right.", format_anomaly("A", "B")),  # how it is flipped, not where (#43)
    ("The left piece is flipped.", None),  # "left": no single cell
    ("The bottom-left piece is rotated (type B).", None),
    ("Sub-image C (top-right) is rotated.", None),  # the letter and the words disagree
    ("The bottom-left piece is rotated.\nWait, that's wrong.", None),
    ("Judgment: A\nError Position:\nError Type:\nThe bottom-left piece is rotated.", None),
]


@pytest.mark.parametrize("text,verdict", ANOMALY_ROWS)
def test_anomaly_in_prose(text, verdict):
    ex = classify_response(text, "anomaly_detection")
    read = ex.answer if ex.status == PARSED else None
    assert read == verdict, (text, ex)


def test_prose_cells_follow_the_grid():
    ex = classify_response("The bottom-right piece is mirrored.", "anomaly_detection_3x3")
    assert ex.answer == format_anomaly("I", "B")
    ex = classify_response("The center piece is rotated.", "anomaly_detection_3x3")
    assert ex.answer == format_anomaly("E", "A")
    assert classify_response("The center piece is rotated.", "anomaly_detection").answer is None  # no centre cell
    text = ("Left: image 3, rotate 90°\nMiddle: image 1, no rotation\nRight: image 2, turn it 180 degrees")
    assert classify_response(text, "order_generation_1x3_rot").answer == "[(3, 90), (1, 0), (2, 180)]"
