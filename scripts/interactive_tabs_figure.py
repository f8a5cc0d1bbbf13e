"""Render docs/interactive_tabs.png: the interactive jigsaw's board of interlocking pieces (#34, section 3).

    python scripts/interactive_tabs_figure.py [--out docs/interactive_tabs.png]

Three boards of one embedded photo, as a model sees them (``Game.render``): the shuffled start of
``order_generation_3x3_tabs`` (a piece in the wrong place does not fit: white paper where a blank is not filled,
a darker overlap where a tab lies on a neighbour), the same puzzle solved (the photograph itself, numbered), and
the start of its silhouette control (``order_generation_3x3_tabs_silhouette``: shape only). Training-stream rows of
seed 0 (no hold-out: a picture, not training).
"""

from __future__ import annotations

import argparse
import warnings

from PIL import Image, ImageDraw, ImageFont

import jigsaw_puzzles as jp
from jigsaw_puzzles.interactive import Game, Puzzle
from jigsaw_puzzles.interactive.policy import Plan, moves

WIDTH, GAP, TITLE = 1800, 16, 30


def row(config: str) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the embedded photos, for a picture: the stream's smoke-test warning
        return next(iter(jp.training_stream("embedded", mixture={config: 1.0}, seed=0, eval_fraction=0.0)))


def boards() -> list[tuple[str, Image.Image]]:
    game = Game(Puzzle.from_row(row("order_generation_3x3_tabs")))
    start = game.render()
    p = game.puzzle
    for name, *args in moves(Plan(list(p.order), [0] * p.n))[:-1]:
        getattr(game, name)(*args)
    silhouette = Game(Puzzle.from_row(row("order_generation_3x3_tabs_silhouette")))
    return [("order_generation_3x3_tabs: the start", start), ("... solved", game.render()),
            ("order_generation_3x3_tabs_silhouette: the start", silhouette.render())]


def figure(panels: list[tuple[str, Image.Image]]) -> Image.Image:
    scale = (WIDTH - GAP * (len(panels) + 1)) / sum(image.width for _, image in panels)
    shown = [(title, image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS))
             for title, image in panels]
    height = max(image.height for _, image in shown) + TITLE + 2 * GAP
    out = Image.new("RGB", (WIDTH, height), (255, 255, 255))
    draw, font, x = ImageDraw.Draw(out), ImageFont.load_default(size=18), GAP
    for title, image in shown:
        draw.text((x, GAP), title, fill=(20, 20, 20), font=font)
        out.paste(image, (x, GAP + TITLE))
        draw.rectangle((x - 1, GAP + TITLE - 1, x + image.width, GAP + TITLE + image.height), outline=(200, 200, 200))
        x += image.width + GAP
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs/interactive_tabs.png")
    args = parser.parse_args(argv)
    figure(boards()).save(args.out, optimize=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
