"""Render docs/tabs_conditions.png: one puzzle in the three interlocking conditions (#45).

    python scripts/tabs_conditions_figure.py [--out docs/tabs_conditions.png] [--source-index 3]

Row 1: one ``order_generation_3x3`` item (one embedded photo, seed 0, the same shuffle) as ``_tabs`` (shape and
content: flat border sides and tabs that fit only their neighbour place every piece), ``_tabs_silhouette`` (shape
only) and ``_tabs_content`` (content only: every piece one outline), its pieces laid in their places and pulled
apart. Row 2: one ``anomaly_detection`` item (the same photo, the same altered slot) in the three conditions: with
tabs the turned piece leaves a gap, in the content condition (checkerboard cut) it fills its place exactly. Each
panel's title says what the shape baseline (alpha channels and mask geometry only) answers. Transparent pixels are
drawn on the checkerboard of ``show`` and the human app.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tabs_figure import FONT, GAP, TITLE, WIDTH, exploded  # noqa: E402  (the same look as docs/tabs.png)

from jigsaw_puzzles.baselines import shape_answer  # noqa: E402
from jigsaw_puzzles.generation.sheet import on_checker  # noqa: E402
from jigsaw_puzzles.generation.curation import curate  # noqa: E402
from jigsaw_puzzles.generation.sources import load_normalised  # noqa: E402
from jigsaw_puzzles.generation.tasks import Context, get_task  # noqa: E402
from jigsaw_puzzles.rng import item_rng  # noqa: E402

CONDITIONS = (("_tabs", "shape + content"), ("_tabs_silhouette", "shape only"), ("_tabs_content", "content only"))


def panels(title: str, images, captions, height: int) -> Image.Image:
    """A title line, then the images side by side at one height, each under its own caption (two lines)."""
    width = (WIDTH - GAP * (len(images) - 1)) // len(images)
    scaled = []
    for im in images:
        h = min(height, round(im.height * width / im.width))
        scaled.append(im.resize((round(im.width * h / im.height), h), Image.Resampling.LANCZOS))
    out = Image.new("RGB", (WIDTH, TITLE + 2 * TITLE + max(im.height for im in scaled) + GAP), "white")
    draw = ImageDraw.Draw(out)
    draw.text((0, 2), title, fill="black", font=FONT(22))
    for j, (im, caption) in enumerate(zip(scaled, captions)):
        x = j * (width + GAP)
        draw.multiline_text((x, TITLE + 2), caption, fill="black", font=FONT(18), spacing=4)
        out.paste(on_checker(im), (x, 3 * TITLE))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="docs/tabs_conditions.png")
    parser.add_argument("--source-index", type=int, default=3)
    args = parser.parse_args()
    paths = {s.source_id: s.path for s in curate(None).accepted}
    ids = sorted(paths)
    load = lambda sid: load_normalised(paths[sid])  # noqa: E731
    sid = ids[args.source_index]

    def item(config: str, slot: int = 0):
        task = get_task(config)
        return task.build(load(sid), item_rng(0, task.family, sid), slot, Context(sid, pool_ids=tuple(ids), load=load))

    def shape_says(config: str, it) -> str:
        answer = shape_answer({"id": f"{config}/{sid}", "images": it.images, "options": it.options}, config)
        if answer.scores.get("tied") == "all":
            return "outlines leave every answer: shape baseline guesses"
        return f"outlines decide: shape baseline {'right' if answer.text == it.answer else 'wrong'}"

    orders = [(suffix, words, item("order_generation_3x3" + suffix)) for suffix, words in CONDITIONS]
    anomalies = [(suffix, words, item("anomaly_detection" + suffix, 5)) for suffix, words in CONDITIONS]
    meta = anomalies[0][2].metadata
    sheet_panels = [
        panels("order_generation_3x3, one item (the same shuffle), pieces laid in place and pulled apart",
               [exploded(x.images, x.metadata["order"], 3, 3) for _, _, x in orders],
               [f"{s}: {w}\n{shape_says('order_generation_3x3' + s, x)}" for s, w, x in orders], 420),
        panels(f"anomaly_detection, one item: piece {meta['position']} turned ({meta['transform']})",
               [x.images[0] for _, _, x in anomalies],
               [f"{s}: {w}\n{shape_says('anomaly_detection' + s, x)}" for s, w, x in anomalies], 420),
    ]
    sheet = Image.new("RGB", (WIDTH, sum(p.height for p in sheet_panels) + GAP), "white")
    y = 0
    for p in sheet_panels:
        sheet.paste(p, (0, y))
        y += p.height
    sheet.save(args.out, optimize=True)
    print(json.dumps({"source": sid, "out": args.out, "size": sheet.size}))


if __name__ == "__main__":
    main()
