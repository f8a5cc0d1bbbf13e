"""Cost per photo as the folder grows (#35 section 1): every whole-folder step of a build, at 1k, 4k and 16k photos.

The folders: distinct synthetic photos that pass curation (``tests/fixtures/photos.make_photo``, one seed each;
a seed whose photo fails a curation rule, or whose fingerprint the duplicate rule would take for a copy of an
earlier one, is left out), made once into a library under ``--cache`` and hard-linked into one folder per
size (the first N photos of the library, so every size is a prefix of the next). ``--folder DIR`` takes the
photos of a real folder instead (its first N accepted photos by source id; sizes beyond it are left out).

For each size, in one process with cold caches (``--num-proc N``: curation, the checks and generation in N
worker processes), the steps of a build of ``--config`` (``order_restoration``), each timed alone:

  listing      the folder walk and its fingerprint (the cache key)
  curation     every file read, decoded, checked and fingerprinted, and the duplicate rule (no disk cache)
  kept curation  the same in a new process once the folder was curated: every file read and hashed, what its
               bytes decided read from the disk (``generation.curation``), and the duplicate rule
  dup rule     the duplicate rule alone (``neardup.keep_originals`` on the recorded fingerprints; in curation)
  plan         the task's checks, the probe build of each item, the answer plan and the Lite subset
  answer plan  ``lite_ids`` and ``plan_slots`` alone (in plan)
  generation   cutting, encoding and writing every test and Lite item (``datasets``)
  build        listing + curation + plan + generation: what ``load_dataset`` costs on a cold cache
  stream       the training stream's first pass over the folder (``training_stream(..., passes=1)``, the same
               config; curation is cached in-process, so this is the stream's own work)
  guard        the contamination guard's first pass over the folder, as every stream makes it now (#44.2: the
               embedded photos, its evaluation set without ``exclude=``): each photo decoded, its local features
               computed and kept (an empty guard cache in a temporary folder) and checked, in the default threads;
               the embedded photos' curation and index, a fixed cost, are timed apart (``guard set``; read back from
               the cache in the step)
  distractors  Missing Piece Selection's (easy) candidates for one item: the pool's hash ring, made once
               (``rng.hash_ring``), and a walk taking the first four, on 200 items, scaled to one item per photo
  clip search  CLIP mining's pool step on random unit embeddings (9 cells of 512 dims per photo, one query per
               photo): the duplicate-source groups and the nearest-neighbour search; the embedding itself is a
               fixed cost per photo (``--clip-embed``: a random-init ``ViT-S-32`` on 32 photos, for scale)

and the cost per photo of each against the smallest size's. Then the duplicate rule alone on synthetic
fingerprints up to 100k (``--dup-sizes``; ``benchmarks/neardup.py --scale`` has its brute-force comparison).

    python benchmarks/scale.py [--sizes 1000 4000 16000] [--config order_restoration] [--num-proc N]
                               [--folder DIR] [--cache DIR] [--steps ...] [--dup-sizes ...] [--clip-embed]
                               [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the photo synthesizer of the tests
sys.path.insert(0, str(HERE))  # benchmarks/neardup.py's synthetic fingerprints

STEPS = ("listing", "curation", "kept curation", "dup rule", "plan", "answer plan", "generation", "build", "stream", "distractors",
         "clip search", "guard")
LIBRARY_VERSION = "1"  # bump when the synthesizer or the acceptance rule of the library changes


# ------------------------------------------------------------------------------------------------------ the photos
def _synthesize(job: tuple[int, str, tuple[int, int]]):
    """Write photo ``seed`` into ``folder``; its fingerprint when curation accepts it, else ``None`` (file gone)."""
    from fixtures.photos import make_photo
    from jigsaw_puzzles.generation import neardup
    from jigsaw_puzzles.generation.sources import DEFAULT_RULES, SourceError, quality_checks, read_source

    seed, folder, size = job
    path = Path(folder) / f"photo_{seed:06d}.jpg"
    make_photo(seed, size).save(path, quality=90)
    try:
        _, image = read_source(path, DEFAULT_RULES)
        quality_checks(image, DEFAULT_RULES)
    except SourceError:
        path.unlink()
        return seed, None
    return seed, neardup.fingerprint(image)


def photo_library(cache: Path, count: int, size: tuple[int, int], workers: int) -> list[Path]:
    """``count`` distinct synthetic photos that pass curation (made once, kept in ``cache``), in seed order."""
    from tqdm.auto import tqdm

    from jigsaw_puzzles.generation import neardup
    from jigsaw_puzzles.generation.sources import DEFAULT_RULES

    folder = cache / f"library-{size[0]}x{size[1]}-v{LIBRARY_VERSION}"
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "manifest.json"
    state = json.loads(manifest.read_text()) if manifest.is_file() else {"next": 0, "seeds": [], "fingerprints": []}
    fps = np.array([[int(h, 16) for h in fp] for fp in state["fingerprints"]], dtype=np.uint64).reshape(
        -1, len(neardup.CROPS))
    bits = DEFAULT_RULES.near_duplicate_bits
    bar = tqdm(total=count, initial=min(count, len(state["seeds"])), desc="synthesizing photos", unit="img")
    with ProcessPoolExecutor(workers) as pool:
        while len(state["seeds"]) < count:
            batch = range(state["next"], state["next"] + min(1024, max(64, (count - len(state["seeds"])) * 11 // 10)))
            made = [(s, fp) for s, fp in pool.map(_synthesize, [(s, str(folder), size) for s in batch], chunksize=8)
                    if fp is not None]
            new = np.array([fp for _, fp in made], dtype=np.uint64).reshape(-1, len(neardup.CROPS))
            copies = set(neardup.near_between(new, fps, bits)[0].tolist()) if len(fps) else set()
            i, j, _ = neardup.near_pairs(new, bits)
            copies |= set(j.tolist())  # of two new near duplicates the later seed goes
            for k, (seed, fp) in enumerate(made):
                if k in copies:
                    (folder / f"photo_{seed:06d}.jpg").unlink()
                else:
                    state["seeds"].append(seed)
                    state["fingerprints"].append(neardup.to_hex(fp))
                    bar.update(1)
            fps = np.concatenate([fps, new[[k for k in range(len(made)) if k not in copies]]])
            state["next"] = batch.stop
            manifest.write_text(json.dumps(state))
    bar.close()
    return [folder / f"photo_{s:06d}.jpg" for s in state["seeds"][:count]]


def sized_folder(cache: Path, paths: list[Path], n: int, tag: str) -> Path:
    """A folder of the first ``n`` of ``paths`` (hard links, symlinks across file systems), made once."""
    folder = cache / f"{tag}-n{n}"
    if folder.is_dir() and sum(1 for _ in folder.iterdir()) == n:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for path in paths[:n]:
        link = folder / path.name
        if not link.exists():
            try:
                os.link(path, link)
            except OSError:
                link.symlink_to(path)
    return folder


def real_photos(folder: str, num_proc: int | None) -> list[Path]:
    """The accepted photos of a real folder, by source id (a stable order that no listing order enters)."""
    from jigsaw_puzzles.generation.curation import curate

    return [Path(s.path) for s in curate(folder, num_proc=num_proc).accepted]


# ------------------------------------------------------------------------------------------------------- the steps
def _cold() -> None:
    from jigsaw_puzzles.generation.sources import load_normalised
    from jigsaw_puzzles.generation.curation import _curate_cached

    _curate_cached.cache_clear()
    load_normalised.cache_clear()


def clip_search(n: int, cells: int = 9, dim: int = 512) -> float:
    """CLIP mining's pool step on ``n`` photos of random unit embeddings: seconds."""
    from jigsaw_puzzles.generation.clip.embed import EmbedStats, PatchBank
    from jigsaw_puzzles.generation.clip.search import duplicate_source_groups, nearest_neighbours

    rng = np.random.default_rng(n)
    emb = rng.standard_normal((n * cells, dim)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    sids = [f"{k:016x}" for k in range(n)]
    rc = [divmod(c, 3) for c in range(cells)]
    bank = PatchBank([s for s in sids for _ in rc], rc * n, [f"{s}/r{r}c{c}" for s in sids for r, c in rc],
                     [f"{k:064x}" for k in range(n * cells)], [(100, 100)] * (n * cells), emb,
                     EmbedStats(sources=n), None, "fp32", {})
    q = np.arange(n) * cells + rng.integers(0, cells, n)
    start = time.perf_counter()
    groups = duplicate_source_groups(bank)
    nearest_neighbours(emb[q], emb, bank.region_ids, 6, query_groups=groups[q], pool_groups=groups,
                       query_pixel_keys=bank.pixel_keys[q], pool_pixel_keys=bank.pixel_keys)
    return time.perf_counter() - start


def clip_embed_per_photo(folder: Path, photos: int = 32) -> float:
    """Seconds per photo to embed the 9 cells with a random-init ViT-S-32 (no download)."""
    from jigsaw_puzzles.generation.clip import ClipMiner
    from jigsaw_puzzles.generation.sources import load_normalised

    with tempfile.TemporaryDirectory() as cache:
        miner = ClipMiner("ViT-S-32", None, allow_random_init=True, cache_dir=cache, progress=False, device="cpu")
        images = {p.name: load_normalised(str(p)) for p in sorted(folder.iterdir())[:photos]}
        miner.embed_sources(dict(list(images.items())[:2]))  # the model built once, outside the timing
        start = time.perf_counter()
        miner.embed_sources(dict(list(images.items())[2:]))
        return (time.perf_counter() - start) / (len(images) - 2)


def time_steps(folder: Path, config: str, num_proc: int | None, steps: set[str]) -> dict[str, float]:
    """Seconds of each step of ``steps`` on ``folder`` (see the module doc)."""
    import jigsaw_puzzles as jp
    from jigsaw_puzzles.generation import cachefiles, neardup, plan as answer_plan
    from jigsaw_puzzles.generation.curation import curate
    from jigsaw_puzzles.generation.sources import DEFAULT_RULES, CurationRecord, Source, folder_fingerprint, source_files

    out: dict[str, float] = {}
    _cold()
    start = time.perf_counter()
    source_files(folder)
    folder_fingerprint(folder)
    out["listing"] = time.perf_counter() - start
    start = time.perf_counter()
    curation = curate(folder, num_proc=num_proc)
    out["curation"] = time.perf_counter() - start
    if "kept curation" in steps:
        with tempfile.TemporaryDirectory() as kept:
            os.environ[cachefiles.ENV] = kept
            _cold()
            curate(folder, num_proc=num_proc)  # the decisions kept
            _cold()
            start = time.perf_counter()
            curate(folder, num_proc=num_proc)
            out["kept curation"] = time.perf_counter() - start
            os.environ[cachefiles.ENV] = "off"
    candidates = [(Source(r.source_id, "", r.path, 0, 0), neardup.from_hex(r.phash),
                   CurationRecord(r.path, "rejected", source_id=r.source_id))
                  for r in curation.records if r.phash is not None]
    start = time.perf_counter()
    neardup.keep_originals(candidates, frozenset(), DEFAULT_RULES.near_duplicate_bits)
    out["dup rule"] = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as cache:
        builder = jp.make_builder(config, folder, 0, cache)
        start = time.perf_counter()
        plan = builder.plan(num_proc=num_proc)
        out["plan"] = time.perf_counter() - start
        ids, task = [s.source_id for s in curation.accepted], builder.task
        item_ids = [s.source_id for s in plan["feasible"]]
        start = time.perf_counter()
        lite = answer_plan.lite_ids(ids, 0)
        answer_plan.plan_slots(item_ids, sorted(set(lite) & set(item_ids)), 0, task.family, task.num_slots,
                               cycle=task.slot_cycle)
        out["answer plan"] = time.perf_counter() - start
        if "generation" in steps or "build" in steps:
            start = time.perf_counter()
            builder.download_and_prepare(num_proc=num_proc)
            out["generation"] = time.perf_counter() - start
            out["build"] = out["listing"] + out["curation"] + out["plan"] + out["generation"]
    if "stream" in steps:
        _cold()
        curate(folder, num_proc=num_proc)  # the stream's curation, cached: the pass is timed alone
        start = time.perf_counter()
        served = sum(1 for _ in jp.training_stream(folder, {config: 1.0}, seed=0, passes=1))
        out["stream"] = time.perf_counter() - start
        out["stream items"] = served
    if "guard" in steps:
        from jigsaw_puzzles.training import copies, exclusion

        with tempfile.TemporaryDirectory() as kept:
            os.environ[cachefiles.ENV] = kept  # an empty guard cache: the first pass computes and keeps features
            exclusion._CHECKED.clear()
            _cold()
            start = time.perf_counter()
            package = exclusion.package_photos()  # the embedded photos' curation (their index is built below)
            copies.Evaluation([(sid, exclusion._pixels(k, sid), k.fp) for sid, k in sorted(package.items())])
            out["guard set"] = time.perf_counter() - start
            _cold()
            curation = curate(folder, num_proc=num_proc)  # the folder's curation: its own step above
            start, cpu = time.perf_counter(), time.process_time()
            found = exclusion.copies_among(curation.accepted, curation, package, num_proc)
            out["guard"] = time.perf_counter() - start  # (the embedded photos' index read back from the kept one)
            out["guard cpu"] = time.process_time() - cpu  # every thread of this process: what a shared machine's
            # load does not inflate (workers' time is not in it: num_proc None, threads)
            out["guard flagged"] = len(found)
            os.environ[cachefiles.ENV] = "off"
    if "distractors" in steps:
        ids = tuple(s.source_id for s in curation.accepted)
        made, per_item = ring_walks(ids, min(200, len(ids)))
        out["distractors"] = made + per_item * len(ids)
    if "clip search" in steps:
        out["clip search"] = clip_search(len(curation.accepted))
    return out


def duplicate_rule_curve(sizes: list[int]) -> None:
    """The duplicate rule alone on synthetic fingerprints (``benchmarks/neardup.py``'s, shaped like photos')."""
    from neardup import synthetic

    from jigsaw_puzzles.generation import neardup
    from jigsaw_puzzles.generation.sources import CurationRecord, Source

    print("\nthe duplicate rule alone, synthetic fingerprints (one photo in 20 a copy of an earlier one):")
    print("| photos | s | ms/photo | x the first |\n|---:|---:|---:|---:|")
    first = None
    for n in sizes:
        fps = synthetic(n)
        candidates = [(Source(f"{k:016x}", "", f"p{k}.jpg", 0, 0), fps[k],
                       CurationRecord(f"p{k}.jpg", "rejected", source_id=f"{k:016x}")) for k in range(n)]
        start = time.perf_counter()
        neardup.keep_originals(candidates, frozenset(), neardup.DEFAULT_BITS)
        seconds = time.perf_counter() - start
        first = first or seconds / n
        print(f"| {n:,} | {seconds:.2f} | {seconds / n * 1000:.3f} | {seconds / n / first:.2f} |", flush=True)


def ring_walks(ids: tuple, items: int) -> tuple[float, float]:
    """Seconds to make the hash ring of ``ids``, and per item to walk it to 4 candidates (the first ``items``)."""
    from jigsaw_puzzles.rng import hash_ring, item_rng

    start = time.perf_counter()
    ring = hash_ring(ids)
    made = time.perf_counter() - start
    start = time.perf_counter()
    for sid in ids[:items]:
        walk = ring.walk(item_rng(0, "missing_piece", sid).child("random distractors"), "point", exclude=(sid,))
        [next(walk) for _ in range(4)]
    return made, (time.perf_counter() - start) / items


def distractor_curve(sizes: list[int], items: int = 200) -> None:
    """Easy Missing Piece Selection's candidates alone on synthetic ids: the hash ring of generator 4.1.0 (made
    once, then a walk of four per item) against 4.0.0's rendezvous order (a hash of every other id per item)."""
    from jigsaw_puzzles.rng import item_rng, stable_hash

    print("\neasy Missing Piece Selection's candidates alone, synthetic ids, 4 per item on "
          f"{items} items (ms per item; the ring's making spread over one item per photo):")
    print("| photos | ring made, s | ring, ms/item | x the first | rendezvous (4.0.0), ms/item | x the first |")
    print("|---:|---:|---:|---:|---:|---:|")
    first = None
    for n in sizes:
        ids = tuple(stable_hash("photo", k)[:16] for k in range(n))
        made, per_item = ring_walks(ids, items)
        walk_ms = per_item * 1000 + made / n * 1000
        start = time.perf_counter()
        for sid in ids[:items]:
            others = [s for s in ids if s != sid]
            order = item_rng(0, "missing_piece", sid).child("random distractors").rendezvous("rank", others)
            [next(order) for _ in range(4)]
        old_ms = (time.perf_counter() - start) / items * 1000
        first = first or (walk_ms, old_ms)
        print(f"| {n:,} | {made:.2f} | {walk_ms:.3f} | {walk_ms / first[0]:.2f} | {old_ms:.2f} | "
              f"{old_ms / first[1]:.2f} |", flush=True)


def folder_curve(args, cache: Path, sizes: list[int]) -> dict:
    """The folder-level steps at each size (the photos made once under ``cache``), printed as a table."""
    if args.folder:
        paths, tag = real_photos(args.folder, args.num_proc), f"real-{Path(args.folder).name}"
        sizes = [n for n in sizes if n <= len(paths)] or [len(paths)]
    else:
        size = tuple(args.photo_size)
        paths, tag = photo_library(cache, max(sizes), size, args.num_proc or os.cpu_count() or 1), \
            f"synthetic-{size[0]}x{size[1]}"
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}; load average "
          f"{load[0]:.1f} at the start; config {args.config}; num_proc {args.num_proc or 1}; photos: {tag}")
    time_steps(sized_folder(cache, paths, min(20, len(paths)), tag), args.config, args.num_proc, set(args.steps))
    figures = {}  # (the run above warms imports and first calls up)
    for n in sizes:
        runs = [time_steps(sized_folder(cache, paths, n, tag), args.config, args.num_proc, set(args.steps))
                for _ in range(args.repeat)]
        figures[n] = {k: min(run[k] for run in runs) for k in runs[0]}
        shown = {k: round(v, 3) for k, v in figures[n].items()}
        print(f"{n:>7,} photos: {shown} (load {os.getloadavg()[0]:.1f})", flush=True)
    first = sizes[0]
    print("\n| step | " + " | ".join(f"{n:,} photos: s (ms/photo)" for n in sizes) + f" | x the {first:,} cost per "
          f"photo at {sizes[-1]:,} |")
    print("|---|" + "---:|" * (len(sizes) + 1))
    for step in STEPS:
        if step not in figures[first]:
            continue
        cells = [f"{figures[n][step]:.2f} ({figures[n][step] / n * 1000:.2f})" for n in sizes]
        growth = (figures[sizes[-1]][step] / sizes[-1]) / max(figures[first][step] / first, 1e-12)
        print(f"| {step} | " + " | ".join(cells) + f" | {growth:.2f} |")
    if args.clip_embed:
        per = clip_embed_per_photo(sized_folder(cache, paths, sizes[0], tag))
        print(f"\nCLIP embedding (random-init ViT-S-32, 9 cells, CPU): {per * 1000:.0f} ms per photo")
    return figures


def main(argv=None) -> None:
    from jigsaw_puzzles.generation import cachefiles

    os.environ[cachefiles.ENV] = "off"  # cold steps: nothing kept on disk between sizes (a prefix of each other)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", type=int, default=[1000, 4000, 16000],
                    help="folder sizes to build (none: only the synthetic curves below)")
    ap.add_argument("--config", default="order_restoration")
    ap.add_argument("--num-proc", type=int, default=None)
    ap.add_argument("--folder", default=None, help="a folder of real photos instead of synthetic ones")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "jp-scale"),
                    help="where the synthetic library and the sized folders are kept between runs")
    ap.add_argument("--photo-size", nargs=2, type=int, default=[480, 360], metavar=("W", "H"))
    ap.add_argument("--steps", nargs="+", default=list(STEPS), choices=STEPS)
    ap.add_argument("--dup-sizes", nargs="*", type=int, default=[1000, 4000, 16000, 100_000])
    ap.add_argument("--distractor-sizes", nargs="*", type=int, default=[1000, 4000, 16000, 100_000])
    ap.add_argument("--clip-embed", action="store_true", help="also time CLIP's embedding per photo (ViT-S-32)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each size; each step's best is kept")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args(argv)
    import datasets

    datasets.disable_progress_bars()
    cache = Path(args.cache)
    sizes = sorted(set(args.sizes))
    figures = folder_curve(args, cache, sizes) if sizes else {}
    if args.dup_sizes:
        duplicate_rule_curve(args.dup_sizes)
    if args.distractor_sizes:
        distractor_curve(args.distractor_sizes)
    if args.json:
        Path(args.json).write_text(json.dumps({str(k): v for k, v in figures.items()}, indent=2))


if __name__ == "__main__":
    main()
