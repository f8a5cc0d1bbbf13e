"""The dataset card of an export: YAML made with ``huggingface_hub``'s card data, a body like the best benchmark
cards (link bar, one example sheet per config, configs table, usage, results measured on this very export,
curation, licences, citation), and the files it links to (``assets/``, ``CREDITS.md``).

Everything it writes refers only to files inside the export and names no path of the build machine.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .._version import __version__
from ..spec import CITATION, CONFIGS, GENERATOR_VERSION, HOMEPAGE, LITE_FRACTION, SPLITS, features, get as get_spec

ASSETS = "assets"
LICENSE_FILE = "CREDITS.md"


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` bucket of ``n`` rows."""
    for bound, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < bound:
            return name
    return "n>1M"


def card_data(configs: list[str], counts: dict, sizes: dict):
    """``huggingface_hub.DatasetCardData`` of the export: licence, tasks, configs, ``dataset_info``."""
    import datasets
    from huggingface_hub import DatasetCardData

    info = []
    for config in configs:
        splits = datasets.SplitDict()
        for split in SPLITS:
            if counts[config][split]:
                splits.add(datasets.SplitInfo(name=split, num_bytes=sizes[config][split],
                                              num_examples=counts[config][split]))
        entry = datasets.DatasetInfo(features=features(), splits=splits)._to_yaml_dict()
        entry["download_size"] = entry["dataset_size"] = sum(sizes[config].values())
        info.append({"config_name": config, **entry})
    yaml_configs = [{"config_name": c, "data_files": [{"split": s, "path": f"{c}/{s}-*.parquet"}
                                                      for s in SPLITS if counts[c][s]]} for c in configs]
    total = sum(counts[c]["test"] for c in configs)
    return DatasetCardData(
        license="other", license_name="mixed", license_link=LICENSE_FILE, pretty_name="Jigsaw-Puzzles",
        language=["en"], size_categories=[size_category(total)],
        task_categories=["visual-question-answering", "image-text-to-text"],
        task_ids=["visual-question-answering"],
        tags=["spatial-reasoning", "jigsaw-puzzles", "benchmark", "vision-language-models"],
        configs=yaml_configs, dataset_info=info)


def credits_text(embedded: bool) -> str:
    path = resources.files("jigsaw_puzzles") / "data" / "CREDITS.md"
    if embedded and path.is_file():
        return path.read_text("utf-8")
    return ("# Credits\n\nThe source images of this export come from the builder's own folder; their licences and "
            "attributions are the publisher's to state here. Puzzles cut from an image are derived works of it.\n")


def write_assets(out: Path, datasets_: dict, firsts: dict | None = None) -> dict[str, str]:
    """One example sheet per config (its first test item: ``firsts[config]`` when given, else the dataset's first
    row), answer shown: ``assets/<config>.png``; returns ``{config: relative path}``."""
    from ..generation.sheet import draw_item

    (out / ASSETS).mkdir(exist_ok=True)
    written = {}
    for config, ds in datasets_.items():
        if not len(ds):
            continue
        rel = f"{ASSETS}/{config}.png"
        draw_item(firsts[config] if firsts is not None else ds[0], str(out / rel), show_answer=True)
        written[config] = rel
    return written


def _solved(job: tuple) -> list[tuple[str, str]]:
    """The classical solver's and the shape baseline's answers to rows ``start:stop`` of one config's dataset (a
    worker's chunk)."""
    from ..baselines import shape_answer, solve

    config, ds, start, stop = job
    return [(solve(row, config).text, shape_answer(row, config, 0).text) for row in ds.select(range(start, stop))]


#: The card's baseline rows, in order.
BASELINE_ROWS = ("Random (seed 0)", "Classical solver (no weights)", "Shape only (alpha and masks, no colour)")


def baseline_results(datasets_: dict, num_proc: int | None = None, solved: dict | None = None) -> dict:
    """The built-in baselines scored on the export's test items: ``{name: score() result}``; the solver and the
    shape baseline read the images, in ``num_proc`` worker processes (the same answers), the random baseline only
    ids and options. ``solved``: ``{config: [(the solver's answer, the shape baseline's), ...] in row order}`` when
    they were found where the items were cut (a Ray build's workers); the datasets then need only ``id``,
    ``options`` and ``answer``."""
    from ..baselines import random_answer
    from ..generation.workers import chunks, ordered_map
    from ..scoring.score import score

    refs, cfgs, opts, random, jobs = [], [], [], [], []
    for config, ds in datasets_.items():
        for row in ds.select_columns(["id", "options", "answer"]):  # no image decoded
            random.append(random_answer(row, config, 0))
            refs.append(row["answer"])
            cfgs.append(config)
            opts.append(row["options"] or None)
        jobs += [(config, ds, part.start, part.stop) for part in chunks(range(len(ds)), num_proc)]
    if solved is not None:
        both = [tuple(pair) for config in datasets_ for pair in solved[config]]
    else:
        both = [pair for part in ordered_map(_solved, jobs, num_proc, what="the card's baselines") for pair in part]
    answers = (random, [s for s, _ in both], [h for _, h in both])
    return {name: score(preds, refs, cfgs, opts) if preds else {} for name, preds in zip(BASELINE_ROWS, answers)}


def _results_table(configs: list[str], results: dict) -> str:
    head = "| | " + " | ".join(f"`{c}`" for c in configs) + " |"
    rule = "|---|" + "---:|" * len(configs)
    first = next(iter(results.values()), {})
    lines = [head, rule,
             "| n (test items) | " + " | ".join(str(first.get(c, {}).get("n", "-")) for c in configs) + " |",
             "| chance | " + " | ".join(f"{first[c]['chance']:.2f}" if c in first else "-" for c in configs) + " |",
             "| ↑ chance, p < 0.05 | " + " | ".join(
                 f"{first[c]['critical_value']:.2f}" if c in first and first[c]["critical_value"] ==
                 first[c]["critical_value"] else "-" for c in configs) + " |",
             "| constant answer (best) | " + " | ".join(
                 f"{first[c]['constant_baseline']['accuracy']:.2f}" if "constant_baseline" in first.get(c, {})
                 else "-" for c in configs) + " |"]
    for name, res in results.items():  # flexible (the headline), then strict: only the exact answer format
        lines.append(f"| {name} | " + " | ".join(f"{res[c]['accuracy']:.2f}" if c in res else "-"
                                                  for c in configs) + " |")
        if any("strict_accuracy" in res.get(c, {}) for c in configs):
            lines.append(f"| {name}, strict | " + " | ".join(
                f"{res[c]['strict_accuracy']:.2f}" if "strict_accuracy" in res.get(c, {}) else "-"
                for c in configs) + " |")
        lines += _resolved_rows(name, configs, res.get("resolved") or {})
    return "\n".join(lines)


def _resolved_rows(name: str, configs: list[str], resolved: dict) -> list[str]:
    """Beside a result, one row per way that resolved its unread outputs (never merged into its accuracy): the
    accuracy after it, and per cell how many unread outputs it read and how many stayed unread."""
    from ..inference.resolutions import WAY_LABELS

    rows = []
    for way, label in WAY_LABELS.items():
        figures = resolved.get(way)
        if not isinstance(figures, dict):
            continue
        o = figures.get("overall") or {}
        cells = [f"{figures[c]['accuracy']:.2f} ({figures[c]['read']} read, {figures[c]['still_unread']} unread)"
                 if isinstance(figures.get(c), dict) else "-" for c in configs]
        rows.append(f"| {name}, {label} ({o.get('read', 0)} of {o.get('unread', 0)} unread read) | "
                    + " | ".join(cells) + " |")
    return rows


def tabs_section(configs: list[str]) -> str:
    """The export's interlocking-piece configs beside their controls, one row per puzzle, in its four conditions:
    content only (the straight cut), shape and content (``_tabs``, and Missing Piece Selection's ``_tabs_own``),
    shape only (``_tabs_silhouette``) and content under a jigsaw cut (``_tabs_content``); a control not in the
    export is named as such, one that does not exist is a dash. Without tab configs, one sentence saying they
    exist."""
    from ..generation.tasks.shaped import straight
    from ..spec import is_config

    shaped = [c for c in configs if get_spec(c).cut != "straight"]
    if not shaped:
        return ("Every config also exists cut into interlocking pieces in three conditions: `<config>_tabs` (shape and "
                "content), `<config>_tabs_silhouette` (shape only) and `<config>_tabs_content` (content only, under a "
                "jigsaw cut whose outlines say nothing of the answer), e.g. `jigsaw-puzzles build --configs "
                "order_generation_3x3_tabs order_generation_3x3_tabs_content`; none is in this export.")

    def cell(*names: str) -> str:
        names = [n for n in names if is_config(n)]
        here = [f"`{n}`" for n in names if n in configs]
        return ", ".join(here) or (f"`{names[0]}` (not in this export)" if names else "-")

    puzzles = list(dict.fromkeys(straight(c) for c in shaped))
    rows = [f"| {get_spec(p).title} | {cell(p)} | {cell(p + '_tabs', p + '_tabs_own')} | "
            f"{cell(p + '_tabs_silhouette')} | {cell(p + '_tabs_content')} |" for p in puzzles]
    return ("### Interlocking pieces\n\n"
            "A tab config cuts its puzzle into pieces with tabs and blanks (RGBA images, transparent outside each "
            "piece's outline), in three conditions beside the straight cut, all the same puzzle (same photo, same "
            "answer). **Shape and content** (`_tabs`): a real die-cut jigsaw, whose outlines alone answer most "
            "tasks (flat border sides, tabs that fit only their neighbour; Anomaly Detection's turned piece leaves a "
            "gap), so a model can score there without reading the photo. **Shape only** (`_tabs_silhouette`): the "
            "same outlines, flat grey. **Content only** (`_tabs_content`): every piece cut with one outline (a "
            "congruent cut; Anomaly Detection: a checkerboard cut whose pieces are their own images turned or "
            "mirrored), so the outlines say nothing of the answer and only the photo's content decides. The row "
            "*Shape only* of the results reads only alpha channels and mask geometry: at chance on `_tabs_content`, "
            "it shows how much of each other config the outlines give away. Missing Piece Selection's `_tabs` "
            "candidates all have the hole's outline (content decides), its `_tabs_own` candidates keep their own "
            "(shape can decide).\n\n"
            "| puzzle | content only (straight) | shape and content | shape only | content only, jigsaw cut |\n"
            "|---|---|---|---|---|\n" + "\n".join(rows) +
            ("\n\n`-`: no such control (an outline cannot tell a turn of the whole picture or a diagonal neighbour, "
             "and with one tab a side no outline is one for every piece under every quarter turn, so `_rot` has "
             "neither a silhouette nor a content control, `_8dir` no silhouette)." if any("| - |" in r for r in rows)
             else ""))


DEFAULT_REPO = "<exported folder or repo>"


def render_card(configs: list[str], counts: dict, sizes: dict, report: dict, seed: int, repo: str,
                assets: dict, results: dict) -> str:
    """The card: compact, in the shape of the Hub's best benchmark cards; one chance figure per config (the exact
    per-item chance of this export's test items, as in the results table); no text of the build machine."""
    template = (resources.files("jigsaw_puzzles") / "publishing" / "cards" / "dataset_card.md").read_text("utf-8")
    curation = report["curation"]
    summary = (f"{curation['accepted']} of {curation['accepted'] + curation['rejected']} files passed the "
               f"automated curation rules; every verdict and every task's skip, with its reason, is in "
               f"[`curation_report.json`](curation_report.json).")
    measured = next(iter(results.values()), {})

    def chance(c: str) -> str:
        return f"{measured[c]['chance']:.2f}%" if c in measured else f"{get_spec(c).chance * 100:.2f}%"

    ordered = sorted(configs, key=lambda c: c not in CONFIGS)  # the paper's first
    rows = "\n".join(f"| `{c}` | {get_spec(c).title} | {'x'.join(map(str, get_spec(c).grid))} | {chance(c)} | "
                     f"{counts[c]['test']} | {counts[c]['lite']} |" for c in ordered)
    if any(c not in CONFIGS for c in configs):  # grid configs, apart from the paper's
        first_grid = next(c for c in ordered if c not in CONFIGS)
        rows = rows.replace(f"| `{first_grid}` |", "| *beyond the paper:* | | | | | |\n| `" + first_grid + "` |", 1)
    examples = "\n\n".join(f"**`{c}`**\n\n![{c}: one item, answer shown]({assets[c]})" for c in configs if c in assets)
    notes = [f"`{c}` has no `lite` split here: the task skipped every photograph of the Lite subset."
             for c in configs if not counts[c]["lite"]]
    skipped = sorted(report.get("skipped_configs", {}))
    if skipped:  # the reason stays in curation_report.json: it speaks of the machine that built the export
        notes.append(f"Not in this export: {', '.join(f'`{c}`' for c in skipped)} (it could not be built where "
                     "the export was made; see `curation_report.json`).")
    first = configs[0] if configs else "order_restoration"
    return template.format(
        yaml=card_data(configs, counts, sizes).to_yaml(), version=__version__, generator_version=GENERATOR_VERSION,
        num_sources=curation["accepted"], num_configs=len(configs), seed=seed, repo=repo, config_rows=rows,
        examples=examples, lite_percent=round(LITE_FRACTION * 100),
        not_included="".join(" " + n for n in notes), first=first, tabs=tabs_section(configs),
        results=_results_table(configs, results), homepage=HOMEPAGE,
        curation_summary=summary, license_file=LICENSE_FILE, citation=CITATION.strip())
