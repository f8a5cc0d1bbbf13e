"""The answer reader on the corpus of tests/data/reader_corpus: recall and misreads, per family and overall.

Each record is a model output and the verdict a careful person gives (one answer, or none), written by helpers who
never saw the reader's code (see that folder's README.md). The held-out half (heldout_*.jsonl) is read only for
these figures, never to tune. Borderline records (two careful graders could disagree) are left out.

- recall: answers read / answers a person reads (records with an answer);
- misreads: an answer read that the text does not give (a different answer, or one where a person reads none).

Beside the reader it measures, on the letter configs, the strict reader and two peer rules written here from their
published behaviour: VLMEvalKit's ``can_infer_option`` then ``can_infer_text`` (a letter standing alone as a token,
once; else one option's text inside the output) and a last-"answer is X" regex.

    python benchmarks/reader_corpus.py [--set dev|heldout|all] [--families] [--markdown]
"""
from __future__ import annotations

import argparse
import json
import re
import string
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from jigsaw_puzzles.scoring.extraction import classify_response
from jigsaw_puzzles.spec import CHOICE, get

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "reader_corpus"


def records(which: str) -> list[dict]:
    names = {"dev": "dev_*.jsonl", "heldout": "heldout_*.jsonl", "all": "*.jsonl"}[which]
    out = []
    for f in sorted(CORPUS.glob(names)):
        out += [dict(json.loads(line), file=f.stem) for line in f.open(encoding="utf-8") if line.strip()]
    return [r for r in out if not r["borderline"]]


def ours(r):
    ex = classify_response(r["output"], r["config"], r["options"])
    return ex.answer, ex


def strict(r):
    return classify_response(r["output"], r["config"], r["options"]).strict


def can_infer(r):
    """VLMEvalKit's rule (can_infer_option, then can_infer_text), for letter configs."""
    spec = get(r["config"])
    choices, out = spec.letters, r["output"]
    splits = [x.strip() for x in out.split()]

    def count(prefix="", suffix=""):
        return [c for c in choices if prefix + c + suffix in splits]

    found = count()
    if len(found) == 1 and not ("A" in splits and len(splits) > 3):
        return found[0]
    for pre, suf in [("", "."), ("", ","), ("", ":"), ("", ")"), ("", ")."), ("(", ")"), ("(", ")."), (":", ""),
                     (":", ","), (":", "."), (":", ")"), (":", ").")]:
        found = count(pre, suf)
        if len(found) == 1:
            return found[0]
    texts = r["options"] or []
    hits = [choices[i] for i, o in enumerate(texts[:len(choices)]) if str(o).lower() in out.lower()]
    return hits[0] if len(hits) == 1 else None


_ANSWER_IS = re.compile(r"answer\s*(?:is)?\s*[:\-]?\s*\(?\s*([A-Z])\b", re.I)


def last_answer_is(r):
    found = _ANSWER_IS.findall(r["output"])
    letter = found[-1].upper() if found else None
    return letter if letter and letter in get(r["config"]).letters else None


def score(recs, fn):
    tot, fam = Counter(), defaultdict(Counter)
    for r in recs:
        got = fn(r)
        got = got[0] if isinstance(got, tuple) else got
        v, c = r["verdict"], fam[r["family"]]
        for k in (tot, c):
            if v is not None:
                k["answerable"] += 1
                k["read"] += got == v
                k["misread"] += got is not None and got != v
            else:
                k["none"] += 1
                k["misread"] += got is not None
    return tot, fam


def line(name, t):
    rec = 100 * t["read"] / max(t["answerable"], 1)
    return f"| {name} | {t['answerable']} | {t['read']} | {rec:.1f}% | {t['misread']} | {t['none']} |"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", default="all", choices=["dev", "heldout", "all"])
    ap.add_argument("--families", action="store_true", help="a row per family")
    ap.add_argument("--reasons", type=int, default=0, help="list the N commonest reasons an answer went unread")
    args = ap.parse_args(argv)
    print("| reader | with an answer | read | recall | misreads | with no answer |\n|---|---:|---:|---:|---:|---:|")
    for which in (["dev", "heldout"] if args.set == "all" else [args.set]):
        recs = records(which)
        t0 = time.process_time()
        tot, fam = score(recs, ours)
        cpu = time.process_time() - t0
        print(line(f"ours, {which} ({len(recs)} records, {1000 * cpu / len(recs):.2f} ms CPU each)", tot))
        letters = [r for r in recs if get(r["config"]).kind == CHOICE]
        for name, fn in (("ours", ours), ("strict", strict), ("VLMEvalKit can_infer", can_infer),
                         ('last "answer is X"', last_answer_is)):
            print(line(f"{name}, {which}, letter configs", score(letters, fn)[0]))
        if args.families:
            for f, c in sorted(fam.items()):
                print(line(f"  {which}: {f}", c))
        if args.reasons:
            why = Counter()
            for r in recs:
                ex = classify_response(r["output"], r["config"], r["options"])
                if r["verdict"] is not None and ex.status != "parsed":
                    why[re.sub(r"\(.*\)|'.*'|\".*\"", "(...)", ex.detail)] += 1
            for k, n in why.most_common(args.reasons):
                print(f"  {n:4d}  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
