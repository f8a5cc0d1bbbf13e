"""Answer plans compared: letter balance on ``test`` and ``lite``, Lite size, and how many other items one photo
changes (``jigsaw_puzzles.generation.plan``; issue #22). Synthetic folders: n source ids ``stable_hash("photo", i)[:16]``,
every photo yielding an item (what the builder's plan sees after its probe).

* balance: over ``--seeds`` seeds, the worst letter's deviation from 1/k (points) on test and on Lite, for
  4 letters (Order Restoration), 3 (Connection Verification), 2 (Piece Localization easy) and Anomaly
  Detection's three fields (unaltered share; position among altered items; type among altered items);
* Lite size: the share of the folder in Lite;
* growth: for ``--ops`` photos each added, removed or replaced (seed 0), the number of *other* items whose
  answer slot changed or which moved between the splits (a Lite change): max and mean.

    python benchmarks/answer_plan.py [--sizes 57 220 1100] [--seeds 100] [--ops 100] [--plot docs/answer_plan.png]
    python benchmarks/answer_plan.py --no-table --seeds 30 --plot docs/answer_plan.png   # the figure only
"""
from __future__ import annotations

import argparse
import statistics
from collections import Counter

from jigsaw_puzzles.generation.plan import lite_ids, plan_slots
from jigsaw_puzzles.rng import stable_hash
from jigsaw_puzzles.generation.tasks import get_task
from jigsaw_puzzles.generation.tasks.anomaly_detection import slot_meaning

PLANS = {"balanced": "1.x (balanced)", "stable": "2.0 (stable)", "quota": "3.0 (quota, default)"}
CASES = {"4 letters": "order_restoration", "3 letters": "connection_verification",
         "2 letters": "piece_localization_easy", "anomaly": "anomaly_detection"}


def photo_ids(n: int, salt: str = "photo") -> list[str]:
    return [stable_hash(salt, i)[:16] for i in range(n)]


def make_plan(ids, seed: int, config: str, plan: str):
    task = get_task(config)
    lite = lite_ids(ids, seed, plan=plan)
    return set(lite), plan_slots(ids, lite, seed, task.family, task.num_slots, plan, task.slot_cycle)


def fields(config: str, slot: int) -> dict[str, str | None]:
    """What a slot shows the model: its letter, or Anomaly Detection's judgment, position and type."""
    if config.startswith("anomaly_detection"):
        position, kind = slot_meaning(slot)
        return {"judgment": "A" if position is None else "B", "position": position, "type": kind}
    return {"letter": "ABCDEFGH"[slot]}


def shares(slots: dict, ids, config: str) -> dict[str, dict[str, float]]:
    """Per field, each value's share (%) among the items where the field applies."""
    out: dict[str, dict[str, float]] = {}
    values = [fields(config, slots[i]) for i in ids]
    for name in values[0] if values else ():
        seen = Counter(v[name] for v in values if v[name] is not None)
        total = sum(seen.values())
        out[name] = {k: 100.0 * c / total for k, c in sorted(seen.items())} if total else {}
    return out


def worst_deviation(slots: dict, ids, config: str) -> float:
    """The largest deviation (points) of any value of any field from its fair share."""
    task = get_task(config)
    worst = 0.0
    for name, share in shares(slots, ids, config).items():
        k = {"judgment": 2, "type": 2, "position": task.num_slots // 4}.get(name, task.num_slots)
        worst = max([worst] + [abs(s - 100.0 / k) for s in share.values()]
                    + [100.0 / k for _ in range(k - len(share))])  # a value never used: -1/k
    return worst


def balance(n: int, seeds: int, config: str, plan: str) -> dict[str, list[float]]:
    ids = photo_ids(n)
    out = {"test": [], "lite": [], "lite_share": []}
    for seed in range(seeds):
        lite, slots = make_plan(ids, seed, config, plan)
        out["test"].append(worst_deviation(slots, ids, config))
        out["lite"].append(worst_deviation(slots, sorted(lite), config))
        out["lite_share"].append(100.0 * len(lite) / n)
    return out


def changed_others(before, after, keep) -> int:
    """Items in both folders (other than the photo added, removed or replaced) whose slot or split changed."""
    (lite0, slots0), (lite1, slots1) = before, after
    return sum(slots0[i] != slots1[i] or (i in lite0) != (i in lite1) for i in keep)


def growth(n: int, ops: int, config: str, plan: str, seed: int = 0) -> dict[str, list[int]]:
    ids = photo_ids(n)
    base = make_plan(ids, seed, config, plan)
    new = photo_ids(ops, "new photo")
    step = max(1, n // ops)
    out = {"add": [], "remove": [], "replace": []}
    for j in range(min(ops, n)):
        gone = ids[(j * step) % n]
        rest = [i for i in ids if i != gone]
        out["add"].append(changed_others(base, make_plan(ids + [new[j]], seed, config, plan), ids))
        out["remove"].append(changed_others(base, make_plan(rest, seed, config, plan), rest))
        out["replace"].append(changed_others(base, make_plan(rest + [new[j]], seed, config, plan), rest))
    return out


def plot(path: str, sizes, seeds: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    config = CASES["4 letters"]
    fig, axes = plt.subplots(2, len(sizes), figsize=(4.2 * len(sizes), 6.4), sharey=True)
    colours = ["#4c72b0", "#dd8452", "#55a868", "#c44e52"]
    for col, n in enumerate(sizes):
        ids = photo_ids(n)
        for row, split in enumerate(("test", "lite")):
            ax = axes[row][col]
            tol = 1.0 if split == "test" else 1.5
            ax.axhspan(25 - tol, 25 + tol, color="#dddddd", zorder=0)
            ax.axhline(25, color="black", lw=0.8)
            for p, plan in enumerate(PLANS):
                per_seed = []
                for seed in range(seeds):
                    lite, slots = make_plan(ids, seed, config, plan)
                    share = shares(slots, ids if split == "test" else sorted(lite), config)["letter"]
                    per_seed.append([share.get(letter, 0.0) for letter in "ABCD"])
                for li, letter in enumerate("ABCD"):
                    values = [s[li] for s in per_seed]
                    x = p * 5 + li
                    ax.bar(x, per_seed[0][li], color=colours[li], label=letter if p == 0 else None)
                    ax.plot([x, x], [min(values), max(values)], color="black", lw=1)
            ax.set_xticks([1.5, 6.5, 11.5], ["1.x balanced", "2.0 stable", "3.0 quota"])
            ax.set_ylim(0, 50)
            ax.set_title(f"{split}, {n} photos" + (f" (Lite ~{round(0.2 * n)})" if split == "lite" else ""),
                         fontsize=10)
            if col == 0:
                ax.set_ylabel("share of items with this answer (%)")
    axes[0][0].legend(ncol=4, fontsize=8, loc="upper left")
    fig.suptitle(f"Order Restoration answer letters by plan: bars seed 0, lines the range over {seeds} seeds; "
                 "grey: +-1 (test) / +-1.5 (lite) points", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[57, 220, 1100])
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--ops", type=int, default=100)
    ap.add_argument("--plans", nargs="+", default=list(PLANS), choices=list(PLANS))
    ap.add_argument("--plot", default=None, metavar="PNG")
    ap.add_argument("--no-table", action="store_true", help="only the plot")
    args = ap.parse_args()
    print("| case | photos | plan | worst dev. test: median / max (pt) | worst dev. lite: median / max (pt) "
          "| Lite share: min-max (%) | others changed: add / remove / replace, max (mean) |")
    print("|---|---:|---|---|---|---|---|")
    for case, config in ({} if args.no_table else CASES).items():
        for n in args.sizes:
            for plan in args.plans:
                b = balance(n, args.seeds, config, plan)
                g = growth(n, args.ops, config, plan)
                moved = " / ".join(f"{max(v)} ({statistics.mean(v):.1f})" for v in g.values())
                print(f"| {case} | {n} | {plan} | {statistics.median(b['test']):.2f} / {max(b['test']):.2f} "
                      f"| {statistics.median(b['lite']):.2f} / {max(b['lite']):.2f} "
                      f"| {min(b['lite_share']):.1f}-{max(b['lite_share']):.1f} | {moved} |", flush=True)
    if args.plot:
        plot(args.plot, args.sizes, min(args.seeds, 30))
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
