"""The cost of ``eval --restate`` and ``eval --judge`` per unread output, against the first pass, measured with stub
endpoints on 127.0.0.1 (tests/fixtures/stubs.py: they answer at once, so the times are this package's own work per
request, not a model's; the bytes and characters sent are what a real endpoint would receive).

    python benchmarks/resolve.py                 # 48 Piece Localization (hard) items, every output unread
    python benchmarks/resolve.py --items 96 --size 384x288 --json

Three timed passes over the same run directory, each a separate ``evaluate_model`` call, as a user runs them: the
first pass (every item answered, all unread), then ``--restate`` alone (the run complete: only the restate pass
works), then ``--judge`` alone. Per pass: wall seconds per output, requests, request bytes per output (JSON, images as
PNG data URLs) and the characters of text sent per output (what a model tokenizes besides the images).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

HEDGE = "Either A or C; I cannot tell."


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def text_chars(body: dict) -> int:
    out = 0
    for m in body["messages"]:
        content = m["content"]
        out += len(content) if isinstance(content, str) else sum(len(p.get("text", "")) for p in content)
    return out


def main() -> None:
    from fixtures.rows import make_dataset
    from fixtures.stubs import chat_handler, local_server

    from jigsaw_puzzles.inference import evaluate_model

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=48)
    ap.add_argument("--size", default="384x288", help="photo size WxH of the synthetic items")
    ap.add_argument("--config", default="piece_localization_hard")
    ap.add_argument("--repeat", type=int, default=5, help="runs of the three passes; the median time is shown")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    w, h = map(int, args.size.split("x"))
    data = {args.config: make_dataset(args.config, args.items, size=(w, h))}
    model = chat_handler(lambda body: HEDGE if len(body["messages"]) == 1 else "B")
    judge = chat_handler(lambda body: "<quote></quote>\nNONE")
    trials = []
    with tempfile.TemporaryDirectory() as tmp, local_server(model) as url, local_server(judge) as jurl:
        for trial in range(args.repeat):
            passes = {}
            common = dict(api_base=url, data=data, out=Path(tmp) / f"run{trial}", progress=False, batch_size=8)
            for name, extra, handler in (("first pass", {}, model), ("nothing left", {}, model),
                                         ("--restate", {"restate": True}, model),
                                         ("--judge", {"judge": "j", "judge_kwargs": {"api_base": jurl}}, judge)):
                before = len(handler.bodies)
                t0 = time.perf_counter()
                res = evaluate_model("m", **common, **extra)
                dt = time.perf_counter() - t0
                bodies = handler.bodies[before:]
                n = len(bodies) or args.items
                passes[name] = {"seconds": dt, "requests": len(bodies), "s_per_output": dt / n,
                                "bytes_per_output": sum(len(json.dumps(b)) for b in bodies) / max(n, 1),
                                "text_chars_per_output": sum(text_chars(b) for b in bodies) / max(n, 1)}
            assert res["resolved"]["judge"][args.config]["unread"] == args.items
            trials.append(passes)
    passes = {name: {**trials[0][name], "seconds": statistics.median(t[name]["seconds"] for t in trials)}
              for name in trials[0]}
    floor = passes.pop("nothing left")["seconds"]  # the same call with nothing to do: a run's fixed cost
    for v in passes.values():
        v["s_per_output_net"] = max(0.0, v["seconds"] - floor) / args.items
    first = passes["first pass"]
    rows = {k: {**v, "time_vs_first": v["s_per_output_net"] / first["s_per_output_net"],
                "bytes_vs_first": v["bytes_per_output"] / first["bytes_per_output"]} for k, v in passes.items()}
    machine = {"cpu": cpu_name(), "cores": os.cpu_count(), "python": platform.python_version(),
               "fixed_cost_s": round(floor, 3)}
    if args.json:
        print(json.dumps({"items": args.items, "size": args.size, "config": args.config, "passes": rows,
                          "machine": machine}, indent=2))
        return
    print(f"{args.items} items of {args.config} ({args.size} photos), every output unread; stub endpoints "
          f"(no model time); {machine}")
    print(f"s/output: the call's wall time (median of {args.repeat}) less the same call with nothing to do "
          f"({floor:.2f} s), per output")
    print(f"{'pass':12s} {'requests':>8s} {'s/output':>9s} {'x first':>8s} {'bytes/output':>13s} {'x first':>8s} "
          f"{'text chars/output':>18s}")
    for name, r in rows.items():
        print(f"{name:12s} {r['requests']:8d} {r['s_per_output_net']:9.4f} {r['time_vs_first']:8.2f} "
              f"{r['bytes_per_output']:13.0f} {r['bytes_vs_first']:8.2f} {r['text_chars_per_output']:18.0f}")


if __name__ == "__main__":
    main()
