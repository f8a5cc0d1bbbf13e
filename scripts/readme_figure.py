"""Render docs/configs.png: one item of every config (images in prompt order, and the answer), 4 rows x 2, and
below them one item cut into interlocking pieces (``TABS``; transparent pixels on the checkerboard of ``show``).

    python scripts/readme_figure.py [--out docs/configs.png]

Items come from the embedded photos (seed 0, Lite split, one row per config). The hard config's distractors are
mined with a seeded random-init ViT-S-32 here (no CLIP weights are downloaded), which the panel says: an untrained
CLIP does not pick look-alikes, so that panel shows the layout of the task, not the difficulty of its distractors.
"""

from __future__ import annotations

import argparse
import json

from PIL import Image, ImageDraw, ImageFont

import jigsaw_puzzles as jp
from jigsaw_puzzles.generation.sheet import on_checker

# Drawn at twice the width GitHub shows a README image (~880 px), so every text is >= 12 px there.
PANEL_W, PANEL_H, GAP, LABEL = 880, 410, 8, 24
FONT = ImageFont.load_default
#: The last row (the whole width, this high): the first panel's puzzle cut into interlocking pieces, the same photo,
#: hole and candidates (a config and its ``_tabs`` share their randomness).
TABS, TABS_H = "missing_piece_selection_easy_tabs", 330


def strip(images, width: int, height: int = 240) -> Image.Image:
    """The row's images side by side, at most ``height`` high and ``width`` wide in all, each captioned
    ``<image k>`` as the prompt numbers them (captions drawn after scaling: readable whatever the image count)."""
    total = sum(im.width * height / im.height for im in images) + GAP * (len(images) - 1)
    h = max(1, round(height * min(1.0, width / total)))
    scaled = [on_checker(im).convert("RGB").resize((max(1, round(im.width * h / im.height)), h)) for im in images]
    out = Image.new("RGB", (sum(im.width for im in scaled) + GAP * (len(scaled) - 1), h + LABEL + 4), "white")
    draw, x = ImageDraw.Draw(out), 0
    for k, im in enumerate(scaled):
        out.paste(im, (x, LABEL + 4))
        draw.text((x + 2, 0), f"<image {k + 1}>", fill="black", font=FONT(20))
        x += im.width + GAP
    return out


def panel(config: str, row: dict, note: str = "", size: tuple[int, int] = (PANEL_W, PANEL_H),
          wide: bool = False) -> Image.Image:
    """One config's panel: title, config name, an optional note, the images, the answer. ``wide``: the config name
    beside the title and the note under it (a row of the whole width: room for the images)."""
    width, height = size
    out = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(out)
    title = jp.spec.get(config).title
    draw.text((16, 10), title, fill="black", font=FONT(34))
    at = (16 + round(draw.textlength(title, font=FONT(34))) + 20, 20) if wide else (16, 52)
    draw.text(at, config, fill=(80, 80, 80), font=FONT(22))
    top = 52 if wide else 84
    if note:
        draw.text((16, top), note, fill=(170, 40, 0), font=FONT(22))
        top += 30
    answer = "answer: " + row["answer"].replace("\n", " | ")
    if wide:  # the answer at the title's right end
        draw.text((width - 16 - round(draw.textlength(answer, font=FONT(28))), 14), answer, fill=(0, 100, 0),
                  font=FONT(28))
    picture = strip(row["images"], width - 32, height - top - (12 if wide else 60) - LABEL - 4)
    out.paste(picture, ((width - picture.width) // 2, top + 4))
    if not wide:
        draw.text((16, top + picture.height + 12), answer, fill=(0, 100, 0), font=FONT(28))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="docs/configs.png", help="where to write the PNG")
    args = parser.parse_args()
    panels, rows = [], {}
    for k, config in enumerate(jp.CONFIGS):
        kwargs, note = {}, ""
        if jp.spec.CONFIGS[config].name == "missing_piece_selection_hard":
            kwargs = {"clip_model": "ViT-S-32", "clip_pretrained": None}
            note = "distractors picked by an UNTRAINED CLIP here (no weights offline): not look-alikes"
        ds = jp.load_dataset(config, split="lite", **kwargs)
        row = rows[config] = ds[(2 * k) % len(ds)]  # a different photo in every panel
        panels.append(panel(config, row, note))
    straight = rows[TABS.removesuffix("_tabs")]
    tab = next(r for r in jp.load_dataset(TABS, split="lite") if r["source_id"] == straight["source_id"])
    same = [(m["region"], [d["source_id"] for d in m["distractors"]]) for m in
            (json.loads(r["metadata"]) for r in (straight, tab))]
    assert same[0] == same[1] and tab["answer"] == straight["answer"], same  # the caption says so
    note = ("interlocking pieces: every config also as <config>_tabs and its shape-only control _tabs_silhouette; "
            "transparent pixels on a checkerboard")
    sheet = Image.new("RGB", (PANEL_W * 2, PANEL_H * 4 + TABS_H), "white")
    for k, p in enumerate(panels):
        sheet.paste(p, ((k % 2) * PANEL_W, (k // 2) * PANEL_H))
    sheet.paste(panel(TABS, tab, note, (2 * PANEL_W, TABS_H), wide=True), (0, PANEL_H * 4))
    sheet.save(args.out, optimize=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
