"""Draw one item as a sheet: its images in prompt order, the question, the options and the answer."""

from __future__ import annotations

import json
import textwrap


def draw_item(row: dict, path: str, show_answer: bool = True) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    images = row["images"]
    n = len(images)
    paragraphs = [textwrap.fill(p, 120) for p in row["question"].split("\n")]
    body = "\n".join(paragraphs)
    if show_answer:
        answer = row["answer"].replace("\n", " | ")
        body += f"\n\nANSWER: {answer}\n\nmetadata: " + textwrap.fill(
            json.dumps(json.loads(row["metadata"]), sort_keys=True), 120)
    text_height = 0.14 * (body.count("\n") + 2)  # inches at 7.5 pt monospace
    image_height = 3.2
    fig = plt.figure(figsize=(max(8, 2.2 * n + 2), image_height + text_height), dpi=110)
    grid = fig.add_gridspec(2, n, height_ratios=[image_height, text_height],
                            width_ratios=[im.width for im in images])
    for k, image in enumerate(images):
        ax = fig.add_subplot(grid[0, k])
        ax.imshow(image)
        ax.set_title(f"<image {k + 1}>  {image.width}x{image.height}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    text = fig.add_subplot(grid[1, :])
    text.axis("off")
    text.text(0, 1, body, va="top", ha="left", family="monospace", fontsize=7.5)
    fig.suptitle(row["id"], fontsize=11)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
