"""Throughput of Jigsaw-Puzzles scoring: predictions scored per second.

Runs, in one process on the same synthetic but realistic responses (bare letters, "Answer: X",
\\boxed{}, reasoning traces with <think> blocks, three-line anomaly answers, order lists):
  * naive     - plain exact match, ``text.strip() == answer`` (what a metric without extraction does)
  * extract   - ``classify_response`` for every response
  * score     - ``jigsaw_puzzles.scoring.score.score`` end to end (extraction + statistics)
and prints predictions/s and the slowdown against the naive baseline measured in the same run.

Each figure is the best of ``--repeat`` wall-clock runs (``time.perf_counter``), garbage collection on, as
in real use. On a shared machine other processes slow single runs down: compare figures from one run, or
repeat it. The response mix is unchanged since the extraction rewrite, so figures before and after it
compare directly (2-core container: score() about 30,000/s before, about 110,000/s after).

    python benchmarks/scoring.py [--n 20000] [--repeat 3]
"""
import argparse
import random
import time

from jigsaw_puzzles.scoring.extraction import classify_response
from jigsaw_puzzles.spec import CONFIGS as TASKS
from jigsaw_puzzles.scoring.score import score

TRACE = ("Let me compare the pieces carefully. The left edge of the second image continues the roofline, "
         "while the colours of the third image do not match the sky. ")


def make_items(n, seed=0):
    rng = random.Random(seed)
    items = []
    cfgs = list(TASKS)
    for i in range(n):
        cfg = cfgs[i % len(cfgs)]
        spec = TASKS[cfg]
        if spec.kind == "choice":
            ref = rng.choice(spec.letters)
            guess = rng.choice(spec.letters)
            styles = [guess, f"{guess}.", f"**{guess}**", f"The answer is {guess}.", f"\\boxed{{{guess}}}",
                      f"<think>{TRACE * 3}Maybe A.</think>\n{guess}", f"{TRACE * 2}\nFinal answer: ({guess})",
                      "I cannot tell."]
        elif spec.kind == "order":
            perm = rng.sample([1, 2, 3, 4], 4)
            ref = "[" + ", ".join(map(str, perm)) + "]"
            g = rng.sample([1, 2, 3, 4], 4)
            styles = ["[" + ", ".join(map(str, g)) + "]", " ".join(map(str, g)),
                      f"{TRACE * 2}The order is [{', '.join(map(str, g))}].", "[1, 2, 2, 4]"]
        else:
            ref = rng.choice(["Judgment: A\nError Position:\nError Type:",
                              "Judgment: B\nError Position: C\nError Type: A"])
            styles = [ref, ref.replace("\n", " "), f"{TRACE}\n{ref}", "B\nD\nB", "Judgment: B"]
        items.append((rng.choice(styles), ref, cfg))
    return items


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    items = make_items(args.n)
    preds, refs, cfgs = map(list, zip(*items))

    t_naive = best_of(lambda: sum(p.strip() == r for p, r in zip(preds, refs)), args.repeat)
    t_extract = best_of(lambda: [classify_response(p, c) for p, c in zip(preds, cfgs)], args.repeat)
    t_score = best_of(lambda: score(preds, refs, cfgs), args.repeat)

    n = args.n
    print(f"predictions: {n} (all 8 configs, mixed answer styles), best of {args.repeat}")
    print(f"naive exact match : {n / t_naive:12,.0f} predictions/s")
    print(f"classify_response : {n / t_extract:12,.0f} predictions/s  ({t_extract / t_naive:,.0f}x slower than naive)")
    print(f"score() end to end: {n / t_score:12,.0f} predictions/s  ({t_score / t_naive:,.0f}x slower than naive)")
    print(f"per prediction    : {1e6 * t_score / n:.1f} us with score(), {1e6 * t_naive / n:.3f} us naive")


if __name__ == "__main__":
    main()
