"""Render docs/configs.png: one item of every config (images in prompt order, and the answer), 2 x 4.

    python scripts/readme_figure.py [--out docs/configs.png]

Items come from the embedded photos (seed 0, Lite split, one row per config). The hard config's distractors are
mined with a seeded random-init ViT-S-32 here (no CLIP weights are downloaded), which the panel says.
"""

from __future__ import annotations

import argparse

from PIL import Image, ImageDraw, ImageFont

import jigsaw_puzzles as jp

HEIGHT, GAP, PANEL_W = 150, 6, 560


def strip(images) -> Image.Image:
    """The row's images side by side, each ``HEIGHT`` high, numbered as the prompt numbers them."""
    scaled = [im.convert("RGB").resize((max(1, round(im.width * HEIGHT / im.height)), HEIGHT)) for im in images]
    width = sum(im.width for im in scaled) + GAP * (len(scaled) - 1)
    out = Image.new("RGB", (width, HEIGHT + 18), "white")
    draw, x = ImageDraw.Draw(out), 0
    for k, im in enumerate(scaled):
        out.paste(im, (x, 18))
        draw.text((x + 2, 2), f"<image {k + 1}>", fill="black", font=ImageFont.load_default(12))
        x += im.width + GAP
    return out


def panel(config: str, row: dict, note: str = "") -> Image.Image:
    picture = strip(row["images"])
    scale = min(1.0, (PANEL_W - 20) / picture.width)
    picture = picture.resize((round(picture.width * scale), round(picture.height * scale)))
    out = Image.new("RGB", (PANEL_W, 250), "white")
    draw = ImageDraw.Draw(out)
    draw.text((10, 6), jp.spec.CONFIGS[config].title, fill="black", font=ImageFont.load_default(18))
    draw.text((10, 30), f"{config}{note}", fill=(90, 90, 90), font=ImageFont.load_default(12))
    out.paste(picture, ((PANEL_W - picture.width) // 2, 50))
    answer = row["answer"].replace("\n", " | ")
    draw.text((10, 50 + picture.height + 8), f"answer: {answer}", fill=(0, 90, 0), font=ImageFont.load_default(14))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="docs/configs.png", help="where to write the PNG")
    args = parser.parse_args()
    panels = []
    for k, config in enumerate(jp.CONFIGS):
        kwargs, note = {}, ""
        if jp.spec.CONFIGS[config].name == "missing_piece_selection_hard":
            kwargs, note = {"clip_model": "ViT-S-32", "clip_pretrained": None}, "  (random-init CLIP here)"
        ds = jp.load_dataset(config, split="lite", **kwargs)
        row = ds[(2 * k) % len(ds)]  # a different photo in every panel
        panels.append(panel(config, row, note))
    sheet = Image.new("RGB", (PANEL_W * 4, 250 * 2), "white")
    for k, p in enumerate(panels):
        sheet.paste(p, ((k % 4) * PANEL_W, (k // 4) * 250))
    sheet.save(args.out, optimize=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
