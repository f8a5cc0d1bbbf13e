"""The paper's prompt templates (Appendix B, Figures 12-18), verbatim.

``<image k>`` marks where the k-th image of the row's ``images`` belongs; the
images are given to the model in that order.  Line breaks separate the option
lines the paper typesets on their own lines.
"""

from __future__ import annotations

from .spec import LETTERS

MISSING_PIECE_SELECTION = (
    "Question: You will be provided with <image 1>, <image 2>, <image 3>, <image 4>, <image 5>: "
    "The first image is a large image with a missing region, represented by a white blank area. "
    "The second to fifth images are four candidate patches. Among these four candidate images, "
    "exactly one can accurately fill the white blank area in the first image, seamlessly restoring "
    "its visual appearance. Your task is: Carefully observe the large image with the missing region; "
    "Compare the contents of the four candidate images and select the one that best visually "
    "completes the missing area of the first image.\n"
    "The option mapping is as follows:\n"
    "{options}\n"
    "Please select the option you believe is correct and output only the corresponding letter "
    "(A, B, C, or D), without providing any explanation or analysis."
)
MISSING_PIECE_OPTIONS = [
    "Candidate 1 (the second input image)",
    "Candidate 2 (the third input image)",
    "Candidate 3 (the fourth input image)",
    "Candidate 4 (the fifth input image)",
]

PIECE_LOCALIZATION_EASY = (
    "Question: <image 1> has two masked areas labeled A and B. <image 2> shows the content from one "
    'masked area. Determine if it corresponds to A or B. Answer only "A" or "B".'
)
PIECE_LOCALIZATION_HARD = (
    "Question: <image 1> has four masked areas labeled A, B, C, and D. <image 2> shows the content "
    'from one masked area. Determine if it corresponds to A, B, C, or D. Answer only "A", "B", "C", or "D".'
)

CONNECTION_VERIFICATION = (
    "Question: You are given <image 1>, <image 2>, each cropped from an original full image. The full "
    "image was divided into four regions: top-left, top-right, bottom-left, and bottom-right by "
    "splitting it through the center. Two regions are randomly selected. Based on the spatial "
    "relationship of these two regions in the original image, choose the most appropriate option and "
    "respond only with the corresponding letter (A, B, or C):\n"
    "{options}\n"
    'Please respond with only "A", "B", or "C" and no additional text.'
)
CONNECTION_OPTIONS = [
    "The two images are adjacent horizontally (left-right relationship)",
    "The two images are adjacent vertically (top-bottom relationship)",
    "The two images are not adjacent in the original image",
]

ANOMALY_DETECTION = (
    "Question: You are given an image that is created by cutting a full image into 4 sub-images and "
    "stitching them back together. The positions of the <image 1>, <image 2>, <image 3>, <image 4> in "
    "the stitched image are defined as follows:\n"
    "A. Top-left (the sub-image in the top-left corner)\n"
    "B. Top-right (the sub-image in the top-right corner)\n"
    "C. Bottom-left (the sub-image in the bottom-left corner)\n"
    "D. Bottom-right (the sub-image in the bottom-right corner)\n"
    "Note: These positions refer to the current stitched image you are looking at. Exactly one of the "
    "4 sub-images may have been rotated or mirrored, or all sub-images may be completely normal. There "
    "is at most one abnormal sub-image in each stitched image.\n"
    "Your tasks:\n"
    "1. Decide whether the stitched image is correct. Options: A. Correct B. Incorrect\n"
    "2. If incorrect, answer: Which sub-image is abnormal? Options: A/B/C/D What kind of change has "
    "occurred? Options: A. Rotation, B. Mirroring\n"
    "Output format (exactly 3 lines):\n"
    "Judgment: A or B\n"
    "Error Position: A/B/C/D (or leave blank)\n"
    "Error Type: A/B (or leave blank)\n"
    "Do not add any explanations or extra text.\n"
    "Example if incorrect (error in bottom-left, rotated):\n"
    "Judgment: B\nError Position: C\nError Type: A\n"
    "Example if correct:\n"
    "Judgment: A\nError Position:\nError Type:"
)

_ORDER_INTRO = (
    "Question: You are given <image 1>, <image 2>, <image 3>, <image 4> that are cropped from an "
    "original full image. The full image was divided into four regions by splitting it through the "
    "center: top-left, top-right, bottom-left, and bottom-right. The four cropped images have been "
    "shuffled. Based on the visual content of each cropped image, determine the correct order that "
    "reconstructs the original full image. The order corresponds to the regions in the following "
    "sequence: top-left, top-right, bottom-left, bottom-right. "
)
ORDER_RESTORATION = (
    _ORDER_INTRO
    + "Choose the most appropriate option based on the mapping below:\n"
    "{options}\n"
    "Each number corresponds to the index of the shuffled images you received. Please respond only "
    'with "A", "B", "C", or "D", without any additional explanation or description.'
)
ORDER_GENERATION = (
    _ORDER_INTRO
    + "Please respond only with a Python-style list of four integers indicating the correct order of "
    "the shuffled images, like [2, 3, 1, 4]. Each number corresponds to the index of the shuffled "
    "images you received. Please Do not provide any explanation or description."
)


def option_lines(options: list[str]) -> str:
    """``A. first\\nB. second ...`` as the templates lay options out."""
    return "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(options))



# ----------------------------------------------------------------------------------- grids beyond the paper
# The order templates for an R x C grid (configs such as ``order_generation_3x3``): the paper's wording with
# the grid said in words and the regions numbered row by row. The paper's own 2x2 configs keep the templates
# above, verbatim.
_GRID_INTRO = (
    "Question: You are given {images} that are cropped from an original full image. The full image was "
    "divided into {grid_words} of equal size ({n} regions). The {n} cropped images have been "
    "shuffled. Based on the visual content of each cropped image, determine the correct order that "
    "reconstructs the original full image. The order lists the regions row by row: from left to right within "
    "a row, and the rows from top to bottom (the first region is the top-left one, the last the bottom-right "
    "one). "
)
ORDER_RESTORATION_GRID = (
    _GRID_INTRO
    + "Choose the most appropriate option based on the mapping below:\n"
    "{options}\n"
    "Each number corresponds to the index of the shuffled images you received. Please respond only "
    "with {letters}, without any additional explanation or description."
)
ORDER_GENERATION_GRID = (
    _GRID_INTRO
    + "Please respond only with a Python-style list of {n} integers indicating the correct order of "
    "the shuffled images, like {example}. Each number corresponds to the index of the shuffled "
    "images you received. Please Do not provide any explanation or description."
)


# Unknown orientation (``_rot``): the grid wording plus the rotations, and the answer as (image, degrees) pairs.
_ROT_INTRO = (
    _GRID_INTRO
    + "Each cropped image has also been rotated by 0, 90, 180 or 270 degrees, so you must also find how much "
    "each one has to be turned clockwise to be upright. An answer is a Python-style list of {n} pairs "
    "(image, rotation), one per region in that order: image is the index of the shuffled image that belongs in "
    "the region, and rotation is how many degrees (0, 90, 180 or 270) it must be turned clockwise. "
)
ORDER_RESTORATION_ROT = (
    _ROT_INTRO
    + "Choose the most appropriate option based on the mapping below:\n"
    "{options}\n"
    "Please respond only with {letters}, without any additional explanation or description."
)
ORDER_GENERATION_ROT = (
    _ROT_INTRO
    + "Please respond only with that list, like {example}. Please do not provide any explanation or description."
)


def image_list(n: int) -> str:
    """``<image 1>, <image 2>, ..., <image n>`` as the templates name the images."""
    return ", ".join(f"<image {k}>" for k in range(1, n + 1))


def letter_list(k: int) -> str:
    """``"A", "B", "C", or "D"`` (``"A" or "B"`` for two)."""
    quoted = [f'"{LETTERS[i]}"' for i in range(k)]
    return " or ".join(quoted) if k == 2 else ", ".join(quoted[:-1]) + ", or " + quoted[-1]

CONNECTION_VERIFICATION_GRID = (
    "Question: You are given <image 1>, <image 2>, each cropped from an original full image. The full "
    "image was divided into {grid_words} of equal size ({n} regions). Two regions are "
    "randomly selected. Based on the spatial relationship of these two regions in the original image, choose "
    "the most appropriate option and respond only with the corresponding letter (A, B, or C):\n"
    "{options}\n"
    'Please respond with only "A", "B", or "C" and no additional text.'
)

PIECE_LOCALIZATION_GRID = (
    "Question: <image 1> is divided into {grid_words} of equal size and has {k} masked "
    "areas labeled {labels}. <image 2> shows the content from one masked area. Determine if it corresponds "
    "to {choices}. Answer only {quoted}."
)


def and_list(items, last: str = "and") -> str:
    """``A, B, and C`` (``A and B`` for two)."""
    items = list(items)
    return f" {last} ".join(items) if len(items) == 2 else ", ".join(items[:-1]) + f", {last} " + items[-1]


def grid_words(rows: int, cols: int) -> str:
    """``3 rows and 3 columns``, ``1 row and 3 columns``."""
    return f"{rows} row{'s' * (rows != 1)} and {cols} column{'s' * (cols != 1)}"

ANOMALY_DETECTION_GRID = (
    "Question: You are given an image that is created by cutting a full image into {grid_words} of equal "
    "size ({n} sub-images) and stitching them back together. The sub-images are labelled row by row, from left "
    "to right and from the top row to the bottom row:\n"
    "{positions}\n"
    "Note: These positions refer to the current stitched image you are looking at. Exactly one of the "
    "{n} sub-images may have been rotated or mirrored, or all sub-images may be completely normal. There "
    "is at most one abnormal sub-image in each stitched image.\n"
    "Your tasks:\n"
    "1. Decide whether the stitched image is correct. Options: A. Correct B. Incorrect\n"
    "2. If incorrect, answer: Which sub-image is abnormal? Options: {letters} What kind of change has "
    "occurred? Options: A. Rotation, B. Mirroring\n"
    "Output format (exactly 3 lines):\n"
    "Judgment: A or B\n"
    "Error Position: {letters} (or leave blank)\n"
    "Error Type: A/B (or leave blank)\n"
    "Do not add any explanations or extra text.\n"
    "Example if incorrect (error in sub-image B, rotated):\n"
    "Judgment: B\nError Position: B\nError Type: A\n"
    "Example if correct:\n"
    "Judgment: A\nError Position:\nError Type:"
)


def position_lines(rows: int, cols: int) -> str:
    """``A. Row 1, column 1`` ... one line per sub-image, row by row."""
    return "\n".join(f"{LETTERS[r * cols + c]}. Row {r + 1}, column {c + 1}" for r in range(rows) for c in range(cols))

CONNECTION_VERIFICATION_8DIR = (
    "Question: You are given <image 1>, <image 2>, each cropped from an original full image. The full "
    "image was divided into {grid_words} of equal size ({n} regions). The two regions are neighbours: they "
    "share an edge or a corner. Where is <image 2> relative to <image 1> in the original image? Choose the "
    "most appropriate option and respond only with the corresponding letter:\n"
    "{options}\n"
    "Please respond with only one letter ({letters}) and no additional text."
)


def direction_options(directions) -> list[str]:
    """``<image 2> is to the right of <image 1>``, ... for Connection Verification's 8 directions."""
    words = {"right": "directly to the right of", "left": "directly to the left of", "above": "directly above",
             "below": "directly below"}
    return [f"<image 2> is {words.get(d, 'diagonally to the ' + d + ' of')} <image 1>" for d in directions]

MISSING_PIECE_SELECTION_GRID = (
    "Question: You are given {images}: The first image is a large image with a missing region, represented by "
    "a white blank area; the image is divided into {grid_words} of equal size and the missing region is one of "
    "them. The other {k} images are candidate patches. Among these {k} candidate images, exactly one can "
    "accurately fill the white blank area in the first image, seamlessly restoring its visual appearance. Your "
    "task is: Carefully observe the large image with the missing region; Compare the contents of the {k} "
    "candidate images and select the one that best visually completes the missing area of the first image.\n"
    "The option mapping is as follows:\n"
    "{options}\n"
    "Please select the option you believe is correct and output only the corresponding letter "
    "({letters}), without providing any explanation or analysis."
)


# ----------------------------------------------------------------------------------- interlocking pieces (``_tabs``)
# A tab config's question is its straight config's, word for word, with one sentence more after "Question:".
TABS_NOTE = ("The pieces are cut with tabs and blanks like real jigsaw pieces, and the transparent area of an image "
             "is not part of the picture.")
SILHOUETTE_NOTE = ("The pieces are cut with tabs and blanks like real jigsaw pieces and shown as flat grey shapes, and "
                   "the transparent area of an image is not part of the picture.")


def with_tabs(question: str, silhouette: bool = False) -> str:
    """``question`` with :data:`TABS_NOTE` (:data:`SILHOUETTE_NOTE`) after its ``Question:`` label."""
    note = SILHOUETTE_NOTE if silhouette else TABS_NOTE
    head, sep, rest = question.partition("Question: ")
    return f"{head}{sep}{note} {rest}" if sep and not head else f"{note} {question}"
