"""Throughput of Jigsaw-Puzzles scoring: predictions scored per second.

Runs, in one process on the same synthetic but realistic responses (bare letters, "Answer: X",
\\boxed{}, reasoning traces with <think> blocks, three-line anomaly answers, order lists):
  * naive     - plain exact match, ``text.strip() == answer`` (what a metric without extraction does)
  * extract   - ``classify_response`` for every response
  * score     - ``jigsaw_puzzles.scoring.score.score`` end to end (extraction + statistics)
and prints predictions/s and the slowdown against the naive baseline measured in the same run.

Each figure is the best of ``--repeat`` runs timed by this process's CPU time (``time.process_time``; the work is
single-threaded, so on an idle machine it is the wall-clock time), garbage collection on, as in real use. CPU time
does not count the time other processes hold the core, so figures taken on a shared machine stay comparable; they
still suffer from shared caches: compare figures from one run, or repeat it. The response mix is unchanged since
the extraction rewrite, so figures before and after it compare directly (2-core container: score() about 30,000/s
before, about 110,000/s after).

    python benchmarks/scoring.py [--n 20000] [--repeat 3] [--baseline REV]

``--baseline REV`` (default ``defc58e``, the Trust III reader of issue #27, the last commit before the fail-closed
reader of issue #32; ``a8cf507`` is the last before #27) also measures the package as it was at that commit, in
the same run: ``git archive REV src`` is unpacked into a temporary folder and the same timing runs in a child
process on it, alternating with a child on the current ``src/`` (``--baseline ''`` skips it). Each child warms up
with one untimed pass, then reports the best of ``--repeat`` runs; the parent alternates ``--repeat`` children per
side and prints each side's best and the cost of the current reader against the old one.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


REPO = Path(__file__).resolve().parent.parent
# A composed trace: reasoning, a statement, a suffix (what the reading rule judges beyond the short forms).
LONG = ("I first tried B, but the seam does not match. Region A shows sky.\nAnswer: {g}\nI am fairly confident.")


def _child(src: str, n: int, repeat: int) -> dict:
    """predictions/s of classify_response and score() with the package under ``src``, in a fresh process."""
    argv = ["scoring.py", "--n", str(n), "--repeat", str(repeat), "--json"]
    code = (f"import runpy, sys; sys.argv = {argv!r}; "
            f"runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=src), capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def compare(rev: str, n: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], capture_output=True)
        if archive.returncode:
            sys.exit(f"--baseline {rev}: not a commit of this repository ({archive.stderr.decode().strip()})")
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        runs = {"old": [], "new": []}
        for _ in range(repeat):  # alternate, so both see the same machine load; each child: best of its repeats,
            runs["old"].append(_child(str(Path(tmp) / "src"), n, repeat))  # after a first run that warms it
            runs["new"].append(_child(str(REPO / "src"), n, repeat))
    best = {k: {m: max(r[m] for r in v) for m in v[0]} for k, v in runs.items()}
    print(f"\nold reader ({rev}) against the current one, {n} predictions, best of {repeat} alternating runs "
          f"(load average now {os.getloadavg()[0]:.1f}):")
    for m in best["new"]:
        print(f"{m:18}: old {best['old'][m]:10,.0f}/s   new {best['new'][m]:10,.0f}/s   "
              f"cost {best['old'][m] / best['new'][m]:.2f}x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", default="defc58e")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    items = make_items(args.n)
    preds, refs, cfgs = map(list, zip(*items))
    [classify_response(p, c) for p, c in zip(preds, cfgs)]  # warm up (regex compilation, memo tables), untimed

    t_naive = best_of(lambda: sum(p.strip() == r for p, r in zip(preds, refs)), args.repeat)
    t_extract = best_of(lambda: [classify_response(p, c) for p, c in zip(preds, cfgs)], args.repeat)
    t_score = best_of(lambda: score(preds, refs, cfgs), args.repeat)
    long_preds = [LONG.format(g=r if TASKS[c].kind == "choice" else r) for r, c in zip(refs, cfgs)]
    t_long = best_of(lambda: [classify_response(p, c) for p, c in zip(long_preds, cfgs)], args.repeat)

    n = args.n
    if args.json:
        print(json.dumps({"classify_response": n / t_extract, "score()": n / t_score, "composed traces": n / t_long}))
        return
    print(f"predictions: {n} (all 8 configs, mixed answer styles), best of {args.repeat}, CPU time; load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"naive exact match : {n / t_naive:12,.0f} predictions/s")
    print(f"classify_response : {n / t_extract:12,.0f} predictions/s  ({t_extract / t_naive:,.0f}x slower than naive)")
    print(f"score() end to end: {n / t_score:12,.0f} predictions/s  ({t_score / t_naive:,.0f}x slower than naive)")
    print(f"composed traces   : {n / t_long:12,.0f} predictions/s  (reasoning, 'Answer: X', a confidence note)")
    print(f"per prediction    : {1e6 * t_score / n:.1f} us with score(), {1e6 * t_naive / n:.3f} us naive")
    if args.baseline:
        compare(args.baseline, n, args.repeat)


if __name__ == "__main__":
    main()
