"""Speed of the interactive jigsaw's step (apply an action, render the board) against its floor, straight pieces
and interlocking pieces (``_tabs``) of the same photo in one run.

Measured in one process, on puzzles cut from the embedded photos, in the same run:
  * floor - what any step that shows the board must do: a new image of the board's size and one paste per piece
            (straight: the cell; interlocking: the piece's RGBA canvas, pasted through its alpha by Pillow);
  * step  - ``Game.swap`` (the action, then the board: template copy and one paste per cell; interlocking: the
            canvases of the two moved positions and their neighbours summed again, :mod:`.render`), alternating
            over random pairs of positions; ``rotate`` on the rotated configs too;
  * gym   - ``JigsawEnv.step`` with a text action (parse, step, the fixed-size observation array) when gymnasium
            is installed.
Each straight config is measured with its ``_tabs`` twin, cut from the same photo (the first photo the tab config
takes), so ``tabs / straight`` is the cost of the shaped board. The default grids grow the pieces 1x, 4x, 16x
(2x2, 4x4, 8x8). Prints steps/s and each one's cost as a multiple of the floor.

    python benchmarks/interactive.py [--steps 2000] [--configs order_generation order_generation_4x4 ...]
"""
import argparse
import time

from PIL import Image

import jigsaw_puzzles as jp
from jigsaw_puzzles.interactive import Game, Puzzle, board_size
from jigsaw_puzzles.rng import ItemRNG


def floor_rate(puzzle, n):
    if puzzle.shaped:
        w, h = puzzle.pieces[0].size
        m = jp.geometry.tab_cell((w, h))[2]
        cw, ch = w - 2 * m, h - 2 * m
        boxes = [(c * cw, r * ch) for r in range(puzzle.rows) for c in range(puzzle.cols)]
    else:
        boxes = [box[:2] for box in jp.interactive.cell_boxes(board_size(puzzle), puzzle.rows, puzzle.cols)]
    t = time.perf_counter()
    for _ in range(n):
        image = Image.new("RGB", board_size(puzzle), (255, 255, 255))
        for piece, box in zip(puzzle.pieces, boxes):
            image.paste(piece, box, piece if puzzle.shaped else None)
    return n / (time.perf_counter() - t)


def step_rate(puzzle, n, rotate):
    game = Game(puzzle, jp.interactive.Rules(max_turns=n + 1))
    rng = ItemRNG("benchmark", puzzle.row_id)
    draws = [(1 + rng.randbelow(puzzle.n), 1 + rng.randbelow(puzzle.n)) for _ in range(n)]
    game.render()  # the first drawing (the opening observation) is not a step
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


def first_row(config, source_id=None):
    stream = jp.training_stream("embedded", mixture={config: 1.0}, seed=0, eval_fraction=0.0)
    return next(r for r in stream if source_id is None or r["source_id"] == source_id)


def measure(config, row, steps):
    puzzle = Puzzle.from_row(row)
    floor = max(floor_rate(puzzle, steps) for _ in range(3))
    step = max(step_rate(puzzle, steps, puzzle.rotated) for _ in range(3))
    return puzzle, floor, step, gym_rate(config, row, steps // 4)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--configs", nargs="+", default=["order_generation", "order_generation_4x4",
                                                      "order_generation_8x8", "order_generation_3x3_rot"],
                    help="straight configs; each is measured with its _tabs twin")
    args = ap.parse_args()
    print("| config | board px | floor steps/s | step steps/s | step / floor cost | gym steps/s | gym / floor cost "
          "| tabs / straight step cost |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for straight in args.configs:
        tab_row = first_row(straight + "_tabs")
        runs = [(straight, first_row(straight, tab_row["source_id"])), (straight + "_tabs", tab_row)]
        base = None
        for config, row in runs:
            puzzle, floor, step, gym = measure(config, row, args.steps)
            w, h = board_size(puzzle)
            gym_cells = f"{gym:,.0f} | {floor / gym:.2f}x" if gym else "- | -"
            versus = f"{base / step:.2f}x" if base else "-"
            base = base or step
            print(f"| {config} | {w}x{h} | {floor:,.0f} | {step:,.0f} | {floor / step:.2f}x | {gym_cells} | {versus} |")


if __name__ == "__main__":
    main()
