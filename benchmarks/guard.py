"""The contamination guard (``training.copies``): which copies of an evaluation photo it catches, how often it
takes a distinct photo for a copy, and what it costs per training photo.

Evaluation photos: the 57 embedded photos and 60 synthetic test photos (``tests/fixtures/photos.py``, seeds 1000+),
117 in all, each known by its pixels and its pHash fingerprint (as a folder of photos passed to ``exclude=``).

* Copies: each evaluation photo copied once per kind (``tests/fixtures/copies.py``, random parameters: flips;
  crops of 10-25% of each axis from any side or corner; turns of 2-15 degrees on a uniform canvas or cropped;
  borders and letterboxes of a random uniform colour; screenshots, pages and 2x2 collages in which the photo covers
  at least a quarter; text watermarks and corner logos; and the kinds the pHash rule covered, a JPEG re-encode, a
  resize, a crop of up to 10% and a re-tone at once), saved as JPEG or PNG, read back and normalised as curation
  does; caught when ``copy_of`` names its photo. Collage fillers are photos outside the evaluation set.
* False positives, all pairs: every evaluation photo and the photographs pip packages ship (as in
  ``benchmarks/neardup.py``) against all the others (a photo against itself is skipped, its own features left out
  of the lookup, as if it were not in the set): a pair counts when either
  one is taken for a copy of the other.
* False positives, framed pairs: two different photos of the set in the same frame (a screenshot with the same
  chrome, a page of the same template, a 2x2 collage of the same layout and gutter): the first as the evaluation
  set, the second as a training photo. And ``--apps`` pairs of one app's screenshots with two different photos
  reaching its top, bottom, left or right edge (26-45% of it): they part only at an edge, as a cropped copy does.
* Cost: milliseconds per training photo for ``copy_of`` (decoding excluded), with the 117-photo evaluation set.
  ``--stages``: only the cost, stage by stage (grey, ORB, the lookup, the rest: votes, RANSAC, pixels), of 100
  training photos that are no copies (the 57 embedded photos and 43 other synthetic ones) against 6 synthetic
  evaluation photos (as ``benchmarks/stream.py --guard``) and against 69 (the 60 synthetic and the 9 package ones);
  ``--cpu``: in this process's CPU time instead of wall time (a shared machine inflates it far less).

* ``--export``: only the same copies (every kind, those of ``--kinds more`` too) and 357 distinct photos against
  one evaluation set (the 60 synthetic test photos and the 9 package ones, as files) passed to ``exclude=`` as its
  folder and as its export (``build --out``: the guard index it ships, #44.3); per kind, what each catches and
  whether the verdicts are the same.
* ``--kinds more``: the kinds the docs did not list before #44 (a keystone warp, a 1.3x stretch, a colour negative,
  a 20% sticker, one cell of a 4x4 collage, meme text, a nearly opaque watermark: ``fixtures.copies.MORE_KINDS``).

* ``--index``: only the cost of indexing an evaluation set as a stream's guard does (files of synthetic photos,
  each loaded and normalised): without a disk cache, filling it, and in a new process's way, from it (no photo
  decoded); 30, 120 and 480 photos, ms per evaluation photo, best of 3, and whether the three indexes are equal.

Rates come with their n and a Wilson 95% interval. Deterministic (seeded); ``--quick`` runs a tenth.

    python benchmarks/guard.py [--quick] [--framed N] [--apps N] [--kinds rotate ... | more] [--stages [--cpu]]
                               [--index] [--export]
"""
from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixtures.copies import KINDS, MORE_KINDS, app_screenshot, framed_pair, make_copy, saved  # noqa: E402
from fixtures.photos import make_photo  # noqa: E402
from neardup import PACKAGE_IMAGES, SITE  # noqa: E402

from jigsaw_puzzles.generation import neardup  # noqa: E402
from jigsaw_puzzles.generation.sources import embedded_folder, list_files, normalise  # noqa: E402
from jigsaw_puzzles.training.copies import Evaluation  # noqa: E402


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre, half = p + z * z / (2 * n), z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (centre - half) / (1 + z * z / n)), min(1.0, (centre + half) / (1 + z * z / n))


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k}/{n} ({k / max(1, n):.1%}; 95% CI {lo:.1%}-{hi:.1%})"


def read_back(image: Image.Image, rng) -> tuple[Image.Image, np.ndarray]:
    copy = normalise(Image.open(io.BytesIO(saved(image, rng))))
    return copy, neardup.fingerprint(copy)


def reencoded(photo: Image.Image, rng) -> Image.Image:
    """What the pHash rule promised: a crop of up to 10%, a resize of 0.5-1.5x, a re-tone (JPEG on saving)."""
    from PIL import ImageEnhance

    w, h = photo.size
    f = rng.uniform(0, 0.10, 2)
    u = rng.random(2)
    box = (round(u[0] * f[0] * w), round(u[1] * f[1] * h), w - round((1 - u[0]) * f[0] * w),
           h - round((1 - u[1]) * f[1] * h))
    s = rng.uniform(0.5, 1.5)
    out = photo.crop(box)
    out = out.resize((max(1, round(out.width * s)), max(1, round(out.height * s))), Image.Resampling.LANCZOS)
    return ImageEnhance.Brightness(out).enhance(rng.uniform(0.85, 1.15))


def stages(synthetic: list, repeat: int = 3, clock=time.perf_counter) -> None:
    """Milliseconds per training photo of each stage of ``copy_of`` (best of ``repeat``), as ``_local`` runs them;
    ``clock``: wall time, or ``time.process_time`` (``--cpu``: this process's CPU time, which a machine shared with
    other work inflates far less)."""
    import cv2

    from jigsaw_puzzles.training import copies

    train = [normalise(Image.open(p)) for p in list_files(embedded_folder())]
    train += [normalise(make_photo(2000 + s)) for s in range(100 - len(train))]
    train_fps = [neardup.fingerprint(p) for p in train]
    six = [normalise(make_photo(900 + s)) for s in range(6)]
    sixty_nine = synthetic + [normalise(Image.open(SITE / rel)) for rel in PACKAGE_IMAGES if (SITE / rel).is_file()]
    print("| evaluation photos | training photos | grey | ORB | lookup | the rest | copy_of, ms per training photo |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for evaluation in (six, sixty_nine):
        index = Evaluation([(f"{k:016x}", (lambda p=p: p), neardup.fingerprint(p)) for k, p in enumerate(evaluation)])
        best = None
        for _ in range(repeat):
            t = {"grey": 0.0, "ORB": 0.0, "lookup": 0.0}
            with copies._one_thread(cv2):
                for image in train:
                    a = clock()
                    work = copies.grey(image, copies.WORK)
                    b = clock()
                    f = copies.features(cv2, work, copies.FEATURES["train"], copies.FAST["train"],
                                        copies.SCORE["train"])
                    c = clock()
                    index.hashing.nearest(f.descriptors)
                    if getattr(index, "extra_hashing", None) is not None:  # the negatives' and TINY views' lookup
                        index.extra_hashing.nearest(f.descriptors)
                    t["lookup"] += clock() - c
                    t["grey"], t["ORB"] = t["grey"] + b - a, t["ORB"] + c - b
            a = clock()
            flagged = sum(index.copy_of(image, fp) is not None for image, fp in zip(train, train_fps))
            whole = clock() - a
            if best is None or whole < best[0]:
                best = whole, t, flagged
        whole, t, flagged = best[0] / len(train) * 1000, best[1], best[2]
        ms = {k: v / len(train) * 1000 for k, v in t.items()}
        print(f"| {len(evaluation)} | {len(train)} | {ms['grey']:.2f} | {ms['ORB']:.2f} | {ms['lookup']:.2f} | "
              f"{whole - sum(ms.values()):.2f} | {whole:.2f} ({flagged} of {len(train)} flagged) |", flush=True)


def index_cost(sizes=(30, 120, 480), repeat: int = 3) -> None:
    """See the module doc (``--index``)."""
    import tempfile

    from fixtures.photos import write_photos

    from jigsaw_puzzles.generation.sources import content_id, load_normalised
    from jigsaw_puzzles.training.guard_cache import EvaluationStore

    print("| evaluation photos | no cache, ms per photo | filling the cache | from the cache | from / no cache | "
          "equal indexes |\n|---:|---:|---:|---:|---:|---|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            paths = write_photos(Path(tmp) / "evaluation", n, start=20000)
            ids = [content_id(p.read_bytes()) for p in paths]

            def index(store):
                load_normalised.cache_clear()  # every photo decoded, as in a new process
                t = time.perf_counter()
                built = Evaluation([(sid, (lambda p=p, sid=sid: load_normalised(str(p), source_id=sid)), None)
                                    for sid, p in zip(ids, paths)], store=store)
                return (time.perf_counter() - t) / n * 1000, built

            best, built = {}, {}
            for k in range(repeat):
                for way in ("no cache", "filling", "from the cache"):
                    if way == "filling":  # an empty folder each time
                        store = EvaluationStore(Path(tmp) / f"cache{k}")
                    ms, built[way] = index(None if way == "no cache" else store)
                    best[way] = min(best.get(way, 1e9), ms)
            same = len({(b.hashing.words.tobytes(), *(v.points.tobytes() for v in b.views),
                         *(g.tobytes() for g in b.greys))
                        for b in built.values()}) == 1
            print(f"| {n} | {best['no cache']:.2f} | {best['filling']:.2f} | {best['from the cache']:.2f} | "
                  f"{best['from the cache'] / best['no cache']:.2f}x | {same} |", flush=True)


def export_vs_folder(kinds, share: float) -> None:
    """``--export`` (#44.3): the same copies and distinct photos against one evaluation set passed to ``exclude=`` as
    a folder of photos and as its export (``jigsaw-puzzles build --out``: its guard index), each indexed as the
    stream indexes it (``training.exclusion``); per kind, the copies each form catches and the verdicts they share."""
    import shutil
    import tempfile

    from jigsaw_puzzles.generation.sources import load_normalised
    from jigsaw_puzzles.publishing.export import build
    from jigsaw_puzzles.training import exclusion

    rng = np.random.default_rng(3)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "photos"
        folder.mkdir()
        for s in range(int(60 * share) or 6):
            make_photo(1000 + s, (480, 360) if s % 2 else (420, 420)).save(folder / f"synthetic_{s:03d}.png")
        for rel in PACKAGE_IMAGES[::int(round(1 / share))]:
            if (SITE / rel).is_file():
                shutil.copy(SITE / rel, folder / f"package_{Path(rel).name}")
        build(Path(tmp) / "export", source=str(folder), configs=["order_restoration"], cache_dir=str(Path(tmp) / "c"))
        forms = {"folder": exclusion.evaluation_photos(folder, ""),
                 "export": exclusion.evaluation_photos(Path(tmp) / "export", "")}
        assert set(forms["folder"]) == set(forms["export"])
        indexes = {name: Evaluation([(sid, exclusion._pixels(k, sid), k.fp) for sid, k in sorted(known.items())])
                   for name, known in forms.items()}
        ids = sorted(forms["folder"])
        photos = [load_normalised(forms["folder"][sid].path, source_id=sid) for sid in ids]
        fillers = [normalise(make_photo(5000 + s)) for s in range(24)]
        print(f"evaluation set: {len(ids)} photos, as a folder and as its export\n")
        print("| copy | caught, folder | caught, export | the same verdict |\n|---|---:|---:|---:|")
        for kind in kinds:
            named, same = {"folder": 0, "export": 0}, 0
            for sid, photo in zip(ids, tqdm(photos, desc=kind, unit="copy", leave=False, file=sys.stderr)):
                made = reencoded(photo, rng) if kind == "re-encoded" else make_copy(photo, kind, rng, fillers)
                image, fp = read_back(made, rng)
                found = {name: index.copy_of(image, fp) for name, index in indexes.items()}
                for name in named:
                    named[name] += found[name] is not None and found[name][0] == sid
                same += found["folder"] == found["export"]
            print(f"| {kind} | {rate(named['folder'], len(ids))} | {rate(named['export'], len(ids))} | "
                  f"{same}/{len(ids)} |", flush=True)
        distinct = [normalise(Image.open(p)) for p in list_files(embedded_folder())]
        distinct += [normalise(make_photo(60_000 + s)) for s in range(int(300 * share))]
        flagged = {name: sum(index.copy_of(p, neardup.fingerprint(p)) is not None for p in
                             tqdm(distinct, desc=f"distinct, {name}", leave=False, file=sys.stderr))
                   for name, index in indexes.items()}
        print(f"\nfalse positives, {len(distinct)} distinct photos (the embedded ones and synthetic ones) against the "
              f"set: folder {rate(flagged['folder'], len(distinct))}, export {rate(flagged['export'], len(distinct))}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of every measurement")
    ap.add_argument("--framed", type=int, default=300, help="framed pairs")
    ap.add_argument("--apps", type=int, default=400, help="pairs of one app's screenshots, photos at an edge")
    ap.add_argument("--kinds", nargs="*", default=None, help="only these copy kinds (and no pairs); 'more': the "
                    f"kinds the docs did not list before #44 ({', '.join(MORE_KINDS)})")
    ap.add_argument("--stages", action="store_true", help="only the cost per stage (see the module doc)")
    ap.add_argument("--cpu", action="store_true", help="--stages in this process's CPU time, not wall time")
    ap.add_argument("--index", action="store_true", help="only the cost of indexing an evaluation set (module doc)")
    ap.add_argument("--export", action="store_true", help="only the same copies against a folder and its export")
    args = ap.parse_args(argv)
    if args.index:
        return index_cost()
    if args.kinds and "more" in args.kinds:
        args.kinds = [k for k in args.kinds if k != "more"] + list(MORE_KINDS)
    if args.export:
        return export_vs_folder(args.kinds or (*KINDS, "re-encoded", *MORE_KINDS), 0.1 if args.quick else 1.0)
    share = 0.1 if args.quick else 1.0
    embedded = [normalise(Image.open(p)) for p in list_files(embedded_folder())]
    synthetic = [normalise(make_photo(1000 + s, (480, 360) if s % 2 else (420, 420))) for s in range(60)]
    if args.stages:
        return stages(synthetic, clock=time.process_time if args.cpu else time.perf_counter)
    photos = embedded + synthetic
    photos = photos[::int(round(1 / share))]
    fillers = [normalise(make_photo(5000 + s)) for s in range(24)]
    ids = [f"{k:016x}" for k in range(len(photos))]
    fps = [neardup.fingerprint(p) for p in tqdm(photos, desc="fingerprints", unit="img", file=sys.stderr)]
    t = time.perf_counter()
    evaluation = Evaluation([(sid, (lambda p=p: p), fp) for sid, p, fp in zip(ids, photos, fps)])
    print(f"evaluation set: {len(photos)} photos indexed in {time.perf_counter() - t:.1f} s "
          f"({len(evaluation.views)} views, {len(evaluation.owner):,} descriptors)\n")

    rng = np.random.default_rng(0)
    print("| copy | caught (its photo named) | 95% interval | excluded at all |")
    print("|---|---:|---:|---:|")
    seconds, queries = 0.0, 0
    for kind in args.kinds or (*KINDS, "re-encoded"):
        named = excluded = 0
        for k, photo in enumerate(tqdm(photos, desc=kind, unit="copy", leave=False, file=sys.stderr)):
            made = reencoded(photo, rng) if kind == "re-encoded" else make_copy(photo, kind, rng, fillers)
            image, fp = read_back(made, rng)
            t = time.perf_counter()
            found = evaluation.copy_of(image, fp)
            seconds += time.perf_counter() - t
            queries += 1
            excluded += found is not None
            named += found is not None and found[0] == ids[k]
        lo, hi = wilson(named, len(photos))
        print(f"| {kind} | {named}/{len(photos)} ({named / len(photos):.1%}) | {lo:.1%}-{hi:.1%} | {excluded} |",
              flush=True)
    print(f"\ncost: {seconds / queries * 1000:.1f} ms per training photo (copy_of, {queries} photos, "
          f"{len(photos)} evaluation photos)")

    if args.kinds:
        return
    package = [normalise(Image.open(SITE / rel)) for rel in PACKAGE_IMAGES if (SITE / rel).is_file()]
    distinct = photos + package[::int(round(1 / share))]
    index = Evaluation([(f"{k:016x}", (lambda p=p: p), neardup.fingerprint(p)) for k, p in enumerate(distinct)])
    flagged = set()
    for k, photo in enumerate(tqdm(distinct, desc="all pairs", unit="img", file=sys.stderr)):
        found = index.copy_of(photo, neardup.fingerprint(photo), skip=f"{k:016x}")
        if found is not None:
            flagged.add(frozenset({k, int(found[0], 16)}))
            print("   flagged:", k, found, file=sys.stderr)
    pairs = len(distinct) * (len(distinct) - 1) // 2
    print(f"\nfalse positives, all pairs of {len(distinct)} distinct photos: {rate(len(flagged), pairs)}")

    rng = np.random.default_rng(1)
    by_kind: dict[str, list[int]] = {}
    for _ in tqdm(range(int(args.framed * share)), desc="framed pairs", unit="pair", file=sys.stderr):
        a, b = rng.choice(len(photos), 2, replace=False)
        first, second, kind = framed_pair(photos[a], photos[b], rng, fillers)
        image_a, fp_a = read_back(first, rng)
        image_b, fp_b = read_back(second, rng)
        pair_index = Evaluation([("a" * 16, lambda: image_a, fp_a)])
        by_kind.setdefault(kind, []).append(pair_index.copy_of(image_b, fp_b) is not None)
    total = [x for v in by_kind.values() for x in v]
    print(f"false positives, framed pairs: {rate(sum(total), len(total))}; "
          + "; ".join(f"{kind} {rate(sum(v), len(v))}" for kind, v in sorted(by_kind.items())))

    rng = np.random.default_rng(2)
    by_edge: dict[str, list[int]] = {}
    for n in tqdm(range(int(args.apps * share)), desc="app pairs", unit="pair", file=sys.stderr):
        a, b = rng.choice(len(photos), 2, replace=False)
        where, chrome = ["top", "bottom", "left", "right"][n % 4], int(rng.integers(1 << 30))
        part = rng.uniform(.26, .45)
        image_a, fp_a = read_back(app_screenshot(photos[a], chrome, part, where), rng)
        image_b, fp_b = read_back(app_screenshot(photos[b], chrome, part, where), rng)
        by_edge.setdefault(where, []).append(Evaluation([("a" * 16, lambda: image_a, fp_a)]).copy_of(image_b, fp_b)
                                             is not None)
    total = [x for v in by_edge.values() for x in v]
    print(f"false positives, one app's screenshots, different photos at an edge (26-45% of it): "
          f"{rate(sum(total), len(total))}; " + "; ".join(f"{k} {rate(sum(v), len(v))}" for k, v in by_edge.items()))


if __name__ == "__main__":
    main()
