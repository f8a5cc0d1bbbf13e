"""Speed of the interactive jigsaw's step (apply an action, render the board) against its floor.

Measured in one process, on puzzles cut from the embedded photos, in the same run:
  * floor - what any step that shows the board must do: a new image of the board's size and one paste per cell;
  * step  - ``Game.swap`` (the action, then the full render: template copy, one paste per cell, the
            observation), alternating over random pairs of positions; ``rotate`` on the rotated configs too;
  * gym   - ``JigsawEnv.step`` with a text action (parse, step, the fixed-size observation array) when gymnasium
            is installed.
Prints steps/s and each one's cost as a multiple of the floor.

    python benchmarks/interactive.py [--steps 2000] [--configs order_generation_3x3 order_generation_6x6 ...]
"""
import argparse
import time

from PIL import Image

import jigsaw_puzzles as jp
from jigsaw_puzzles.interactive import Game, Puzzle, board_size
from jigsaw_puzzles.rng import ItemRNG


def floor_rate(puzzle, n):
    boxes = jp.interactive.cell_boxes(board_size(puzzle), puzzle.rows, puzzle.cols)
    t = time.perf_counter()
    for _ in range(n):
        image = Image.new("RGB", board_size(puzzle))
        for piece, box in zip(puzzle.pieces, boxes):
            image.paste(piece, box[:2])
    return n / (time.perf_counter() - t)


def step_rate(puzzle, n, rotate):
    game = Game(puzzle, jp.interactive.Rules(max_turns=n + 1))
    rng = ItemRNG("benchmark", puzzle.row_id)
    draws = [(1 + rng.randbelow(puzzle.n), 1 + rng.randbelow(puzzle.n)) for _ in range(n)]
    t = time.perf_counter()
    for i, (a, b) in enumerate(draws):
        if rotate and i % 2:
            game.rotate(a, 90)
        else:
            game.swap(a, b if a != b else a % puzzle.n + 1)
    return n / (time.perf_counter() - t)


def gym_rate(config, row, n):
    try:
        from jigsaw_puzzles.interactive.gym_env import JigsawEnv
    except ImportError:
        return None
    env = JigsawEnv(config, rules=jp.interactive.Rules(max_turns=n + 1))
    env.reset(options={"row": row})
    t = time.perf_counter()
    for i in range(n):
        env.step(f"swap({1 + i % 2}, {3 - i % 2})")
    return n / (time.perf_counter() - t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--configs", nargs="+", default=["order_generation_3x3", "order_generation_6x6",
                                                      "order_generation_3x3_rot"])
    args = ap.parse_args()
    print("| config | board px | floor steps/s | step steps/s | step / floor cost | gym steps/s | gym / floor cost |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for config in args.configs:
        row = next(iter(jp.training_stream("embedded", mixture={config: 1.0}, seed=0)))
        puzzle = Puzzle.from_row(row)
        floor = max(floor_rate(puzzle, args.steps) for _ in range(3))
        step = max(step_rate(puzzle, args.steps, puzzle.rotated) for _ in range(3))
        gym = gym_rate(config, row, args.steps // 4)
        w, h = board_size(puzzle)
        gym_cells = f"{gym:,.0f} | {floor / gym:.2f}x" if gym else "- | -"
        print(f"| {config} | {w}x{h} | {floor:,.0f} | {step:,.0f} | {floor / step:.2f}x | {gym_cells} |")


if __name__ == "__main__":
    main()
