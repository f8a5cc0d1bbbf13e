"""What re-deriving every number from the raw outputs costs the report (issues #27 section 4, #32 section 3).

Writes a run directory (8 configs x ``--n`` records, each with the reader's verdict, as ``eval`` writes them, and
its item manifest; optionally circular: every multiple-choice item once per rotation of its options) for each size
of ``--scale`` (1x, 4x, 16x ``--n`` by default) and times, best of ``--repeat`` in one process:
  * read     - reading ``results.json`` alone (the floor of any report)
  * stored   - the report's derivation before #32.3, reproduced here: every record parsed, its *stored* verdict
               aggregated with its own reference (what re-reading replaces)
  * derive   - :func:`jigsaw_puzzles.reporting.derive.derive`: the manifest checked against its digest, every raw
               output read again against it (:func:`jigsaw_puzzles.inference.rederive.rederive`), every figure
  * load_run - the report's reading of the run: derive + the check against results.json
  * report   - ``make_report`` without plots (the Markdown tables)
and prints derive / stored (what re-reading costs over the stored verdicts).

    python benchmarks/report.py [--n 1100] [--scale 1 4 16] [--repeat 3] [--circular]
"""
import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fixtures.runs import write_records_run  # noqa: E402  (the tests' run writer: records judged by the reader)
from jigsaw_puzzles.generation.circular import num_rotations, rotation_id  # noqa: E402
from jigsaw_puzzles.inference.rundir import read_predictions  # noqa: E402
from jigsaw_puzzles.inference.runner import stored_verdict  # noqa: E402
from jigsaw_puzzles.reporting.derive import derive  # noqa: E402
from jigsaw_puzzles.scoring.score import aggregate  # noqa: E402
from jigsaw_puzzles.reporting.report import load_run, make_report  # noqa: E402
from jigsaw_puzzles.spec import CONFIGS, LETTERS  # noqa: E402
from scoring import best_of as best  # noqa: E402  (benchmarks/scoring.py: best of N wall times)

REF = {"anomaly_detection": "Judgment: A\nError Position:\nError Type:", "order_generation": "[2, 3, 1, 4]"}


def records(n: int, circular: bool, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for c, spec in CONFIGS.items():
        k = num_rotations(c) if circular else 1
        for i in range(n):
            for r in range(k):
                ref = REF.get(c) or rng.choice(spec.letters)
                guess = ref if rng.random() < 0.4 else (rng.choice(LETTERS[:spec.num_options]) if spec.num_options
                                                        else "no idea")
                out.append({"id": rotation_id(f"{c}/{i:016x}", r), "config": c, "answer": ref,
                            "output": f"Let me look at the seams.\nAnswer: {guess}"})
    return out


def stored(path):
    """The derivation before #32.3: every line parsed on its own (``read_predictions``), the records' stored
    verdicts and their own references aggregated."""
    recs = {}
    for rec in read_predictions(path / "predictions.jsonl"):
        if not rec.get("error"):
            recs.setdefault(rec["id"], rec)
    recs = list(recs.values())
    return aggregate([stored_verdict(r) for r in recs], [r["answer"] for r in recs], [r["config"] for r in recs])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1100)
    ap.add_argument("--scale", type=int, nargs="+", default=[1, 4, 16])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--circular", action="store_true")
    args = ap.parse_args()
    for k in args.scale:
        n = max(1, args.n * k // max(args.scale))
        with tempfile.TemporaryDirectory() as tmp:
            recs = records(n, args.circular)
            path = write_records_run(Path(tmp) / "run", "bench", recs, circular=args.circular)
            figures = {
                "read": best(lambda: json.loads((path / "results.json").read_text()), args.repeat),
                "stored": best(lambda: stored(path), args.repeat),
                "derive": best(lambda: derive(path), args.repeat),
                "load_run": best(lambda: load_run(path), args.repeat),
                "report": best(lambda: make_report([path], out=None, stream=None, plots=False), args.repeat),
            }
        print(f"{len(recs)} records ({len(CONFIGS)} configs x {n} items"
              + (", every rotation" if args.circular else "") + f"), best of {args.repeat}:")
        for name, s in figures.items():
            print(f"  {name:9s} {s * 1000:9.1f} ms")
        print(f"  derive / stored = {figures['derive'] / figures['stored']:.2f}x; "
              f"{len(recs) / figures['derive']:,.0f} records/s re-read")


if __name__ == "__main__":
    main()
