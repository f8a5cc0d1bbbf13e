"""Near-duplicate detection (``generation.neardup``): detection per transform and false positives on distinct images.

Detection: every embedded photo (57) is copied under each transform below, the copy saved as a file (JPEG at
the stated quality, else PNG), read back and normalised as curation does, and compared with the original's
normalised image. A copy counts as detected when its distance is <= the threshold. Three rules side by side:
  * dhash4     - the rule before: 64-bit difference hash, distance <= 4;
  * phash      - one pHash of the whole photo (imagehash), distance <= BITS;
  * phash+crop - the rule now: the whole photo's pHash against the pHashes of 35 crops of the other (and back).
Distances are printed too (median and max per transform), so the margin to the threshold shows.

False positives: every pair of DISTINCT images of a set assembled offline (no internet): the 57 embedded photos,
the photographs shipped by pip packages installed here (scikit-image's data folder, gradio's media assets,
scikit-learn's sample images, matplotlib's sample data; ``--extra DIR`` adds more), each whole and as its four
non-overlapping quadrants (a different picture, far outside the 10% crop range). Pairs known to be the same
photograph (listed in RELATED) are left out of the count and reported as detections instead.

Scale (``--scale``): the build's duplicate rule alone (``neardup.keep_originals``) on 1k, 4k, 16k and 100k
synthetic fingerprints (a random whole-photo hash per photo, its 35 crop hashes 0-6 bits from it as a photo's
are, and one photo in 20 a copy 0-8 bits from an earlier one): seconds and milliseconds per photo, the index
against comparing each photo with every kept one (the rule before; up to 16k: it is quadratic), measured in the
same run, and the decisions compared.

    python benchmarks/neardup.py [--bits 8] [--extra DIR ...] [--json FILE]
    python benchmarks/neardup.py --scale [1000 4000 16000 100000]
"""
from __future__ import annotations

import argparse
import io
import itertools
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageEnhance
from tqdm import tqdm

from jigsaw_puzzles.generation import neardup
from jigsaw_puzzles.generation.imagestats import difference_hash
from jigsaw_puzzles.generation.sources import embedded_folder, list_files, normalise

SITE = Path(np.__file__).parent.parent
PACKAGE_IMAGES = [  # photographs (and a few pictures) shipped by pip packages; logos, icons and tiny files left out
    *(f"skimage/data/{n}" for n in (
        "astronaut.png", "brick.png", "camera.png", "cell.png", "chelsea.png", "clock_motion.png", "coffee.png",
        "coins.png", "color.png", "grass.png", "gravel.png", "horse.png", "hubble_deep_field.jpg", "ihc.png",
        "moon.png", "motorcycle_left.png", "motorcycle_right.png", "page.png", "retina.jpg", "rocket.jpg",
        "text.png")),
    *(f"gradio/media_assets/images/{n}" for n in ("cheetah.jpg", "cheetah1.jpg", "groot.jpeg", "lion.jpg",
                                                  "tower.jpg")),
    "gradio/test_data/cheetah2.jpg",
    "sklearn/datasets/images/china.jpg", "sklearn/datasets/images/flower.jpg",
    "matplotlib/mpl-data/sample_data/grace_hopper.jpg",
]
#: pairs that are the same photograph (a stereo pair, one photo at two sizes): not distinct, so not counted
RELATED = {frozenset({"motorcycle_left.png", "motorcycle_right.png"})}


def transforms():
    """(family, strength, function of a PIL image -> (image, JPEG quality or None))."""
    rng = np.random.default_rng(0)
    for q in (50, 65, 80, 95):
        yield "jpeg", f"q{q}", lambda im, q=q: (im, q)
    for s in (0.25, 0.5, 0.75, 1.5, 2.0):
        yield "resize", f"{s}x", lambda im, s=s: (im.resize((round(im.width * s), round(im.height * s)),
                                                          Image.Resampling.LANCZOS), None)
    for f in (0.025, 0.05, 0.075, 0.10):
        for where in ("centre", "random", "corner"):
            def crop(im, f=f, where=where):
                u, v = ((0.5, 0.5) if where == "centre" else (0.0, 0.0) if where == "corner"
                        else tuple(rng.uniform(0, 1, 2)))
                dx, dy = f * im.width, f * im.height
                return im.crop((round(u * dx), round(v * dy), im.width - round((1 - u) * dx),
                                im.height - round((1 - v) * dy))), None
            yield "crop", f"{f:.1%} {where}", crop
    for b in (0.8, 0.9, 1.1, 1.2):
        yield "brightness", f"x{b}", lambda im, b=b: (ImageEnhance.Brightness(im).enhance(b), None)
    for c in (0.8, 0.9, 1.1, 1.2):
        yield "contrast", f"x{c}", lambda im, c=c: (ImageEnhance.Contrast(im).enhance(c), None)

    def combo(im):
        im = im.resize((round(im.width * 0.75), round(im.height * 0.75)), Image.Resampling.LANCZOS)
        dx, dy = round(0.05 * im.width), round(0.05 * im.height)
        im = ImageEnhance.Brightness(im.crop((dx, 0, im.width, im.height - dy))).enhance(1.1)
        return im, 80
    yield "combined", "0.75x, crop 5% corner, brightness x1.1, q80", combo


def saved(image: Image.Image, quality: int | None) -> Image.Image:
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=quality) if quality else image.save(buf, "PNG", compress_level=1)
    return normalise(Image.open(io.BytesIO(buf.getvalue())))


def rules(a: Image.Image, b: Image.Image, fa, fb) -> dict[str, int]:
    return {"dhash": bin(difference_hash(a) ^ difference_hash(b)).count("1"),
            "phash": int(neardup.popcount(np.array([fa[0] ^ fb[0]], dtype=np.uint64))[0]),
            "phash+crop": int(neardup.distances(fa, fb)[0, 0])}


def detection(originals, bits):
    rows = []
    cases = list(transforms())
    for family, strength, fn in tqdm(cases, desc="transforms x 57 photos", unit="transform"):
        d = {"dhash": [], "phash": [], "phash+crop": []}
        for name, image, fp in originals:
            copy = saved(*fn(image))
            for k, v in rules(image, copy, fp, neardup.fingerprint(copy)).items():
                d[k].append(v)
        limit = {"dhash": 4, "phash": bits, "phash+crop": bits}
        rows.append((family, strength, {k: (sum(x <= limit[k] for x in v) / len(v), statistics.median(v), max(v))
                                        for k, v in d.items()}, d))
    return rows


def distinct_set(extra):
    images = []
    for path in list_files(embedded_folder()):
        images.append((path.name, Image.open(path)))
    for rel in PACKAGE_IMAGES:
        path = SITE / rel
        if path.is_file():
            images.append((path.name, Image.open(path)))
        else:
            print(f"(not installed here: {rel})", file=sys.stderr)
    for folder in extra:
        images.extend((p.name, Image.open(p)) for p in list_files(Path(folder)))
    out = []
    for name, image in images:
        image = normalise(image)
        out.append((name, name, image))
        w, h = image.width // 2, image.height // 2
        for i, (x, y) in enumerate(itertools.product((0, w), (0, h))):
            out.append((f"{name}#q{i}", name, normalise(image.crop((x, y, x + w, y + h)))))
    return out


def false_positives(items, bits):
    t = time.perf_counter()
    fps = np.stack([neardup.fingerprint(im) for _, _, im in tqdm(items, desc="fingerprints", unit="img")])
    hashing = (time.perf_counter() - t) / len(items)
    t = time.perf_counter()
    d = neardup.distances(fps, fps)
    compare = time.perf_counter() - t
    names = [n for n, _, _ in items]
    photo = [p for _, p, _ in items]
    pairs, hits, related, mins = 0, [], [], []
    for i, j in itertools.combinations(range(len(items)), 2):
        if frozenset({photo[i], photo[j]}) in RELATED:
            related.append((names[i], names[j], int(d[i, j])))
            continue
        pairs += 1
        if d[i, j] <= bits:
            hits.append((names[i], names[j], int(d[i, j])))
    for i in range(len(items)):
        others = [d[i, j] for j in range(len(items)) if j != i and frozenset({photo[i], photo[j]}) not in RELATED]
        mins.append(min(others))
    return {"items": items, "images": len(items), "whole": len(set(photo)), "pairs": pairs, "hits": hits, "related": related,
            "nearest": np.array(mins), "distances": d, "hashing_ms": hashing * 1000,
            "compare_s": compare}


def synthetic(n: int, seed: int = 0) -> np.ndarray:
    """``n`` fingerprints shaped like photos' (see the module doc)."""
    rng = np.random.default_rng(seed)
    whole = rng.integers(0, 1 << 63, size=n, dtype=np.int64).astype(np.uint64) * np.uint64(2) \
        + rng.integers(0, 2, size=n).astype(np.uint64)
    copies = np.flatnonzero(rng.random(n) < 0.05)[1:]
    bit = np.uint64(1) << np.arange(64, dtype=np.uint64)

    def flip(h: np.ndarray, most: int) -> np.ndarray:  # each hash with 0..most random bits flipped
        h = h.copy()
        for k in range(most):
            on = rng.random(h.shape) < 0.5
            h[on] ^= bit[rng.integers(0, 64, size=int(on.sum()))]
        return h
    whole[copies] = flip(whole[rng.integers(0, copies)], 8)
    return np.concatenate([whole[:, None], flip(np.repeat(whole[:, None], len(neardup.CROPS) - 1, 1), 6)], 1)


def scale(sizes, bits: int) -> None:
    from jigsaw_puzzles.generation.sources import CurationRecord, Source

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_neardup import brute_force_keep_originals

    def run(rule, fps):
        records = [CurationRecord(path=f"p{k}.jpg", status="rejected", source_id=f"{k:016x}") for k in range(len(fps))]
        candidates = [(Source(f"{k:016x}", f"/p{k}.jpg", f"p{k}.jpg", 600, 400), fps[k], records[k])
                      for k in range(len(fps))]
        t = time.perf_counter()
        rule(candidates, frozenset(), bits)
        return time.perf_counter() - t, [(r.status, r.reason) for r in records]

    print(f"| photos | index s | index ms/photo | x the 1k cost per photo | comparing every pair s | ms/photo | "
          f"same decisions | dropped |")
    print("|---:|---:|---:|---:|---:|---:|---|---:|")
    first = None
    for n in sizes:
        fps = synthetic(n)
        run(neardup.keep_originals, fps[:200])  # warm (imports, the probe masks)
        seconds, decided = run(neardup.keep_originals, fps)
        first = first or seconds / n
        if n <= 16_000:
            brute, oracle = run(brute_force_keep_originals, fps)
            same = "yes" if oracle == decided else "NO"
            old = f"{brute:.2f} | {brute / n * 1000:.3f}"
        else:
            same, old = "-", "- | -"
        dropped = sum(s != "accepted" for s, _ in decided)
        print(f"| {n:,} | {seconds:.2f} | {seconds / n * 1000:.3f} | {seconds / n / first:.2f} | {old} | {same} | "
              f"{dropped:,} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bits", type=int, default=neardup.DEFAULT_BITS)
    ap.add_argument("--scale", nargs="*", type=int, default=None, metavar="N",
                    help="time the duplicate rule alone on N synthetic fingerprints (default 1000 4000 16000 100000)")
    ap.add_argument("--json", default=None, metavar="FILE", help="write every distance measured to FILE")
    ap.add_argument("--extra", nargs="*", default=[], help="more folders of distinct photos")
    args = ap.parse_args(argv)
    if args.scale is not None:
        return scale(args.scale or [1000, 4000, 16000, 100_000], args.bits)
    originals = []
    for path in list_files(embedded_folder()):
        image = normalise(Image.open(path))
        originals.append((path.name, image, neardup.fingerprint(image)))
    print(f"threshold: distance <= {args.bits} (pHash rules), <= 4 (dHash)\n")
    print(f"| family | strength | copies | dHash <= 4 (rule before) | one pHash <= {args.bits} | "
          f"pHash + crops <= {args.bits} (rule now) | median / max distance |")
    print("|---|---|---:|---:|---:|---:|---:|")
    raw = {"detection": {}, "bits": args.bits}
    for family, strength, r, d in detection(originals, args.bits):
        raw["detection"][f"{family} {strength}"] = d
        print(f"| {family} | {strength} | {len(d['dhash'])} | {r['dhash'][0]:.0%} | {r['phash'][0]:.0%} | "
              f"**{r['phash+crop'][0]:.0%}** | {r['phash+crop'][1]:g} / {r['phash+crop'][2]} |")
    sys.stdout.flush()
    fp = false_positives(distinct_set(args.extra), args.bits)
    if args.json:
        iu = np.triu_indices(len(fp["distances"]), 1)
        raw.update(pairs=np.bincount(fp["distances"][iu], minlength=65).tolist(), nearest=fp["nearest"].tolist())
        Path(args.json).write_text(json.dumps(raw))
    print(f"\ndistinct set: {fp['images']} images ({fp['whole']} whole images, each also as 4 quadrants), "
          f"{fp['pairs']} distinct pairs")
    print(f"false positives at <= {args.bits}: {len(fp['hits'])} pairs ({len(fp['hits']) / fp['pairs']:.4%})")
    for hit in fp["hits"]:
        print("   ", *hit)
    print("related pairs (same photograph):", fp["related"][:10], f"({len(fp['related'])})")
    nearest = fp["nearest"]
    print("each image's nearest distinct image: min", nearest.min(), "1st pct", np.percentile(nearest, 1),
          "median", np.median(nearest))
    iu = np.triu_indices(len(fp["distances"]), 1)
    hist = np.bincount(fp["distances"][iu], minlength=65)
    print("pair distances 0..20:", hist[:21].tolist())
    whole = [i for i, (n, p, _) in enumerate(fp["items"]) if n == p]
    sub = fp["distances"][np.ix_(whole, whole)]
    iw = np.triu_indices(len(whole), 1)
    print(f"whole images only: {len(whole)} images, {len(iw[0])} pairs (1 related), distances 0..20:",
          np.bincount(sub[iw], minlength=65)[:21].tolist())
    embedded = whole[:len(originals)]
    print("embedded photos only: nearest pair", int((sub[:len(embedded), :len(embedded)] + 64 * np.eye(len(embedded),
                                                     dtype=np.uint8)).min()))
    print(f"fingerprint: {fp['hashing_ms']:.1f} ms per image; all {fp['images']}x{fp['images']} distances "
          f"{fp['compare_s']:.2f} s")


if __name__ == "__main__":
    main()
