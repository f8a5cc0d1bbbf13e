"""Draw one item as a sheet: its images in prompt order, the question, the options and the answer.

An image with transparency (the interlocking pieces of the ``_tabs`` configs) is drawn on a light checkerboard, as
image editors show it: its transparent area reads as such, not as the white its pixels store or a black.
"""

from __future__ import annotations

import json
import textwrap

#: The checkerboard under a transparent pixel: its two grey tones and its square's side in pixels. The human app's
#: CSS (``human/app.py``) draws the same one.
CHECKER = (204, 238, 12)
#: At most this many images side by side; more (an order item's 9 to 64 pieces) wrap into balanced rows.
PER_ROW = 8


def has_alpha(image) -> bool:
    """Whether ``image`` can hold transparent pixels (an alpha band or a transparency key)."""
    return image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in image.info


def on_checker(image):
    """``image`` as a person should see it: one with transparency composited over the :data:`CHECKER` board
    (RGB out), any other returned as it is."""
    if not has_alpha(image):
        return image
    import numpy as np
    from PIL import Image

    dark, light, side = CHECKER
    y, x = np.mgrid[0:image.height, 0:image.width]
    tone = np.where((x // side + y // side) % 2 == 0, dark, light).astype(np.uint8)
    board = Image.fromarray(np.dstack([tone] * 3), "RGB").convert("RGBA")
    board.alpha_composite(image.convert("RGBA"))
    return board.convert("RGB")


def draw_item(row: dict, path: str, show_answer: bool = True) -> None:
    """The sheet of ``row`` as a PNG at ``path``: the images in rows of at most :data:`PER_ROW` (balanced), each
    titled ``<image k>`` as the question numbers it, then the question and, unless ``show_answer`` is false, the
    answer and the metadata."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    images = row["images"]
    n = len(images)
    lines = -(-n // PER_ROW)
    per_row = -(-n // lines)
    paragraphs = [textwrap.fill(p, 120) for p in row["question"].split("\n")]
    body = "\n".join(paragraphs)
    if show_answer:
        answer = row["answer"].replace("\n", " | ")
        body += f"\n\nANSWER: {answer}\n\nmetadata: " + textwrap.fill(
            json.dumps(json.loads(row["metadata"]), sort_keys=True), 120)
    text_height = 0.14 * (body.count("\n") + 2)  # inches at 7.5 pt monospace
    width = max(8, 2.2 * per_row + 2)
    # one row: each image as wide as its pixels say (a board beside its pieces); several: equal columns
    ratios = [im.width for im in images] if lines == 1 else [1] * per_row
    panel = [0.85 * width * r / sum(ratios) for r in ratios]
    image_height = min(3.2, max(panel[k % per_row] * im.height / im.width for k, im in enumerate(images))) + 0.35
    fig = plt.figure(figsize=(width, image_height * lines + text_height), dpi=110)
    grid = fig.add_gridspec(lines + 1, per_row, height_ratios=[image_height] * lines + [text_height],
                            width_ratios=ratios)
    for k, image in enumerate(images):
        ax = fig.add_subplot(grid[k // per_row, k % per_row])
        ax.imshow(on_checker(image))
        ax.set_title(f"<image {k + 1}>  {image.width}x{image.height}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    text = fig.add_subplot(grid[lines, :])
    text.axis("off")
    text.text(0, 1, body, va="top", ha="left", family="monospace", fontsize=7.5)
    note = "   (transparent pixels on a checkerboard)" if any(has_alpha(im) for im in images) else ""
    fig.suptitle(row["id"] + note, fontsize=11)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
