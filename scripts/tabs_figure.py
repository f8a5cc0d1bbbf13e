"""Render docs/tabs.png: interlocking pieces (#34) on one embedded photo, as the tab configs make them.

    python scripts/tabs_figure.py [--out docs/tabs.png] [--source-index 3]

Rows: one 3x3 puzzle three ways, pieces laid out apart in place: the straight cut (content only,
``order_generation_3x3``), the interlocking cut (``order_generation_3x3_tabs``) and its silhouette (shape only);
Missing Piece Selection under its two distractor policies (``_tabs``: every candidate has the hole's outline;
``_tabs_own``: each keeps its own); Anomaly Detection with a piece turned, and Piece Localization's shaped masks.
Transparent pixels are drawn on the checkerboard of ``show`` and the human app. Items are built from the embedded
photos at seed 0.
"""

from __future__ import annotations

import argparse
import json

from PIL import Image, ImageDraw, ImageFont

from jigsaw_puzzles.geometry import tab_cell
from jigsaw_puzzles.generation.curation import curate
from jigsaw_puzzles.generation.sheet import on_checker
from jigsaw_puzzles.generation.sources import load_normalised
from jigsaw_puzzles.generation.tasks import Context, get_task
from jigsaw_puzzles.rng import item_rng

WIDTH, GAP, TITLE = 1600, 14, 30
FONT = ImageFont.load_default


def row(images, title: str, height: int) -> Image.Image:
    scaled = [im.resize((max(1, round(im.width * height / im.height)), height), Image.Resampling.LANCZOS)
              for im in images]
    total = sum(im.width for im in scaled) + GAP * (len(scaled) - 1)
    if total > WIDTH:
        return row(images, title, int(height * WIDTH / total))
    out = Image.new("RGB", (WIDTH, height + TITLE + GAP), "white")
    ImageDraw.Draw(out).text((0, 2), title, fill="black", font=FONT(22))
    x = 0
    for im in scaled:
        out.paste(on_checker(im), (x, TITLE))
        x += im.width + GAP
    return out


def exploded(pieces, order, rows: int, cols: int, spread: float = 0.3) -> Image.Image:
    """The pieces laid in their places, pulled apart so that every tab and blank shows."""
    w, h = pieces[0].size
    # a shaped piece's canvas is the cell plus a margin all round; a straight piece is its cell
    cw, ch = tab_cell((w, h))[:2] if pieces[0].mode == "RGBA" else (w, h)
    step_x, step_y = round(cw + spread * min(cw, ch)), round(ch + spread * min(cw, ch))
    out = Image.new("RGBA", (step_x * (cols - 1) + w, step_y * (rows - 1) + h), (0, 0, 0, 0))
    for region, k in enumerate(order):
        r, c = divmod(region, cols)
        out.alpha_composite(pieces[k - 1].convert("RGBA"), (c * step_x, r * step_y))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="docs/tabs.png")
    parser.add_argument("--source-index", type=int, default=3)
    args = parser.parse_args()
    paths = {s.source_id: s.path for s in curate(None).accepted}
    ids = sorted(paths)
    load = lambda sid: load_normalised(paths[sid])  # noqa: E731
    sid = ids[args.source_index]

    def item(config: str, slot: int = 0):
        task = get_task(config)
        return task.build(load(sid), item_rng(0, task.family, sid), slot, Context(sid, pool_ids=tuple(ids), load=load))

    flat = item("order_generation_3x3")
    tabs, sil = item("order_generation_3x3_tabs"), item("order_generation_3x3_tabs_silhouette")
    same, own = item("missing_piece_selection_easy_tabs", 2), item("missing_piece_selection_easy_tabs_own", 2)
    ad, pl = item("anomaly_detection_tabs", 5), item("piece_localization_hard_tabs", 1)
    panels = [
        row([exploded(x.images, x.metadata["order"], 3, 3) for x in (flat, tabs, sil)],
            "order_generation_3x3: straight (content only)  |  _tabs: the cut, pieces pulled apart  |  "
            f"_tabs_silhouette: flat grey (shape only; re-drawn {sil.metadata['cut_redraws']}x)", 380),
        row(same.images, f"missing_piece_selection_easy_tabs: 'same outline', content alone decides "
                         f"(answer {same.answer})", 210),
        row(own.images, f"missing_piece_selection_easy_tabs_own: 'own outline', shape alone can decide "
                        f"(answer {own.answer})", 210),
        row([ad.images[0], *pl.images], f"anomaly_detection_tabs: {ad.metadata['position']} turned "
            f"({ad.metadata['transform']}), a gap where it was  |  piece_localization_hard_tabs: masks of the "
            f"pieces' outlines (answer {pl.answer})", 300),
    ]
    sheet = Image.new("RGB", (WIDTH, sum(p.height for p in panels) + GAP), "white")
    y = 0
    for p in panels:
        sheet.paste(p, (0, y))
        y += p.height
    sheet.save(args.out, optimize=True)
    print(json.dumps({"source": sid, "out": args.out, "size": sheet.size}))


if __name__ == "__main__":
    main()
