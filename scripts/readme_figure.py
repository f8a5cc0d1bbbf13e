"""Render docs/configs.png: one item of every config (images in prompt order, and the answer), 4 rows x 2.

    python scripts/readme_figure.py [--out docs/configs.png]

Items come from the embedded photos (seed 0, Lite split, one row per config). The hard config's distractors are
mined with a seeded random-init ViT-S-32 here (no CLIP weights are downloaded), which the panel says: an untrained
CLIP does not pick look-alikes, so that panel shows the layout of the task, not the difficulty of its distractors.
"""

from __future__ import annotations

import argparse

from PIL import Image, ImageDraw, ImageFont

import jigsaw_puzzles as jp

# Drawn at twice the width GitHub shows a README image (~880 px), so every text is >= 12 px there.
PANEL_W, PANEL_H, GAP, LABEL = 880, 440, 8, 24
FONT = ImageFont.load_default


def strip(images, width: int, height: int = 240) -> Image.Image:
    """The row's images side by side, at most ``height`` high and ``width`` wide in all, each captioned
    ``<image k>`` as the prompt numbers them (captions drawn after scaling: readable whatever the image count)."""
    total = sum(im.width * height / im.height for im in images) + GAP * (len(images) - 1)
    h = max(1, round(height * min(1.0, width / total)))
    scaled = [im.convert("RGB").resize((max(1, round(im.width * h / im.height)), h)) for im in images]
    out = Image.new("RGB", (sum(im.width for im in scaled) + GAP * (len(scaled) - 1), h + LABEL + 4), "white")
    draw, x = ImageDraw.Draw(out), 0
    for k, im in enumerate(scaled):
        out.paste(im, (x, LABEL + 4))
        draw.text((x + 2, 0), f"<image {k + 1}>", fill="black", font=FONT(20))
        x += im.width + GAP
    return out


def panel(config: str, row: dict, note: str = "") -> Image.Image:
    out = Image.new("RGB", (PANEL_W, PANEL_H), "white")
    draw = ImageDraw.Draw(out)
    draw.text((16, 10), jp.spec.CONFIGS[config].title, fill="black", font=FONT(34))
    draw.text((16, 52), config, fill=(80, 80, 80), font=FONT(22))
    top = 84
    if note:
        draw.text((16, top), note, fill=(170, 40, 0), font=FONT(22))
        top += 30
    picture = strip(row["images"], PANEL_W - 32, PANEL_H - top - 60 - LABEL - 4)
    out.paste(picture, ((PANEL_W - picture.width) // 2, top + 4))
    answer = row["answer"].replace("\n", " | ")
    draw.text((16, top + picture.height + 12), f"answer: {answer}", fill=(0, 100, 0), font=FONT(28))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="docs/configs.png", help="where to write the PNG")
    args = parser.parse_args()
    panels = []
    for k, config in enumerate(jp.CONFIGS):
        kwargs, note = {}, ""
        if jp.spec.CONFIGS[config].name == "missing_piece_selection_hard":
            kwargs = {"clip_model": "ViT-S-32", "clip_pretrained": None}
            note = "distractors picked by an UNTRAINED CLIP here (no weights offline): not look-alikes"
        ds = jp.load_dataset(config, split="lite", **kwargs)
        row = ds[(2 * k) % len(ds)]  # a different photo in every panel
        panels.append(panel(config, row, note))
    sheet = Image.new("RGB", (PANEL_W * 2, PANEL_H * 4), "white")
    for k, p in enumerate(panels):
        sheet.paste(p, ((k % 2) * PANEL_W, (k // 2) * PANEL_H))
    sheet.save(args.out, optimize=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
