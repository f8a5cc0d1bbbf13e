"""Are items the same under every Pillow the package allows? (#33.2)

    python benchmarks/pillow_versions.py                     # Pillow 10.1.0, 11.3.0, 12.3.0, 13.0.0
    python benchmarks/pillow_versions.py --versions 13.0.0 --skip-golden
    python benchmarks/pillow_versions.py --src /tmp/old/src  # another source tree (e.g. before the fix)

Each Pillow is installed once into a folder of its own under ``--dir`` (for 13.0.0:
``pip install --no-deps --target DIR/pillow-13.0.0 pillow==13.0.0``) and put in
front of ``PYTHONPATH`` for the child processes, so everything else (numpy, torch, open_clip, imagehash) is this
environment's. Under each Pillow, in a fresh process:

* ``golden``: ``python -m pytest tests/test_golden.py tests/test_resize.py tests/test_golden_tabs.py``: every
  config's items on the embedded photos (the hard configs with the tests' random-init CLIP) and one item of every
  tab config and control (slow: run with ``-m slow`` too) against the one set of pinned digests, and 300
  pinned resizes of ``geometry.resize`` (with, below Pillow 13, its equality with ``Image.resize``);
* ``probe``: a folder of 12 large photos made from embedded ones (2,400 px landscape, 2,000 px portrait of aspect
  0.52 to 0.75, square; JPEG and PNG), which normalisation resizes (and decodes with libjpeg's DCT scaling):
  the digest of ``missing_piece_selection_easy`` and ``order_restoration`` built from it, of the curation
  report's near-duplicate fingerprints, and of 600 random resizes (sizes, boxes, filters, L and RGB) through
  :func:`jigsaw_puzzles.geometry.resize` and through Pillow's own ``Image.resize`` (which Pillow 13 changed: the
  control that shows the probe can see a difference);
* ``cost``: ``geometry.resize`` against ``Image.resize`` (best of 5) for a distractor cell (256x192 to 250x150)
  and a photo's normalisation (1x, 4x and 16x the pixels of 1,200x900 to 768 px), as ratios.

Prints one table; every row of ours must be the same in every column.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the oldest allowed (setup.cfg: pillow>=10.1) and the newest of every allowed major
VERSIONS = ("10.1.0", "11.3.0", "12.3.0", "13.0.0")
FILTERS = ("BOX", "BILINEAR", "HAMMING", "BICUBIC", "LANCZOS")
BIG = [((2400, 1800), "JPEG"), ((2400, 1500), "PNG"), ((1040, 2000), "JPEG"), ((1100, 2000), "PNG"),
       ((1300, 2000), "JPEG"), ((1500, 2000), "JPEG"), ((2000, 2000), "PNG"), ((1999, 1333), "JPEG"),
       ((1034, 1990), "JPEG"), ((2500, 1700), "JPEG"), ((1250, 1700), "PNG"), ((1800, 2400), "JPEG")]


def _digest(items) -> str:
    h = hashlib.sha256()
    for item in items:
        h.update(item if isinstance(item, bytes) else repr(item).encode())
    return h.hexdigest()[:16]


def probe() -> dict:
    """(child) Digests of items built from large photos, of their fingerprints, and of random resizes."""
    import PIL
    from PIL import Image

    from jigsaw_puzzles import geometry
    from jigsaw_puzzles.generation.sources import embedded_folder, list_files
    from jigsaw_puzzles.publishing.export import build

    out = {"pillow": PIL.__version__}
    photos = sorted(list_files(embedded_folder()))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "big"
        folder.mkdir()
        for k, (size, fmt) in enumerate(BIG):  # made with NEAREST (no resampling filter involved) and saved
            image = Image.open(photos[k * 4]).convert("RGB").resize(size, Image.Resampling.NEAREST)
            image.save(folder / f"big{k:02d}.{'jpg' if fmt == 'JPEG' else 'png'}", format=fmt, quality=92)
        report = build(Path(tmp) / "export", source=str(folder), configs=["missing_piece_selection_easy",
                       "order_restoration"], cache_dir=str(Path(tmp) / "cache"))
        import pyarrow.parquet as pq

        for path in sorted((Path(tmp) / "export").rglob("*.parquet")):
            rows = pq.read_table(path).to_pylist()
            out[f"items {path.parent.name}/{path.name.split('-')[0]}"] = _digest(
                [(r["id"], r["answer"], r["metadata"], [i["bytes"] for i in r["images"]]) for r in rows])
        records = report["curation"]["records"]
        out["fingerprints"] = _digest(sorted((r.get("source_id"), r.get("phash")) for r in records))
        out["accepted"] = report["curation"]["accepted"]
    rnd, image = random.Random(1), Image.open(photos[3]).convert("RGB")
    ours, pillows = [], []
    for _ in range(600):
        w, h, width, height = rnd.randint(20, 300), rnd.randint(20, 300), rnd.randint(10, 400), rnd.randint(10, 400)
        resample = getattr(Image.Resampling, rnd.choice(FILTERS))
        crop = image.crop((0, 0, w, h)).convert(rnd.choice(("L", "RGB")))
        box = None
        if rnd.random() < 0.5:
            x0, y0 = rnd.uniform(0, w / 3), rnd.uniform(0, h / 3)
            box = (x0, y0, rnd.uniform(x0 + 1, w), rnd.uniform(y0 + 1, h))
        if hasattr(geometry, "resize"):  # not in a source tree from before it (--src)
            ours.append(geometry.resize(crop, (width, height), resample, box=box).tobytes())
        pillows.append(crop.resize((width, height), resample, box=box).tobytes())
    out["geometry.resize, 600 random"] = _digest(ours) if ours else "n/a"
    out["control: Image.resize, 600 random"] = _digest(pillows)
    return out


def cost() -> dict:
    """(child) geometry.resize / Image.resize, best of 5 each, interleaved."""
    from PIL import Image

    from jigsaw_puzzles import geometry
    from jigsaw_puzzles.generation.sources import embedded_folder, list_files

    if not hasattr(geometry, "resize"):
        return {}
    photo = Image.open(sorted(list_files(embedded_folder()))[0]).convert("RGB")
    cases = {"cell 256x192 -> 250x150": (photo.resize((256, 192)), (250, 150), 200)}
    for mult in (1, 4, 16):
        w, h = int(1200 * mult ** 0.5), int(900 * mult ** 0.5)
        cases[f"photo {w}x{h} -> 768 px ({mult}x)"] = (photo.resize((w, h)), (768, round(768 * h / w)), 3)
    out = {}
    for name, (image, size, reps) in cases.items():
        best = {"ours": float("inf"), "pillow": float("inf")}
        for _ in range(5):
            for key, fn in (("pillow", lambda: image.resize(size, Image.Resampling.LANCZOS)),
                            ("ours", lambda: geometry.resize(image, size, Image.Resampling.LANCZOS))):
                start = time.perf_counter()
                for _ in range(reps):
                    fn()
                best[key] = min(best[key], (time.perf_counter() - start) / reps)
        out[name] = {"pillow_ms": round(best["pillow"] * 1e3, 2), "ours_ms": round(best["ours"] * 1e3, 2),
                     "ratio": round(best["ours"] / best["pillow"], 2)}
    return out


def install(version: str, root: Path) -> Path:
    target = root / f"pillow-{version}"
    if not (target / "PIL").is_dir():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                        f"pillow=={version}"], check=True)
    return target


def child(target: Path, src: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(src)])}
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, cwd=ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--versions", nargs="+", default=list(VERSIONS))
    parser.add_argument("--dir", default=str(Path.home() / ".cache" / "jigsaw-puzzles" / "pillow"),
                        help="where the Pillow versions are installed (once)")
    parser.add_argument("--src", default=str(ROOT / "src"), help="the package's source tree to measure")
    parser.add_argument("--skip-golden", action="store_true",
                        help="leave out tests/test_golden.py and tests/test_resize.py (~3 min each)")
    parser.add_argument("--_child", choices=("probe", "cost"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._child:
        print(json.dumps(probe() if args._child == "probe" else cost()))
        return
    from tqdm import tqdm

    results = {}
    for version in tqdm(args.versions, desc="Pillow versions", unit="version"):
        target = install(version, Path(args.dir))
        row = {}
        done = child(target, Path(args.src), __file__, "--_child", "probe")
        if done.returncode:
            sys.exit(f"probe under Pillow {version} failed:\n{done.stderr[-3000:]}")
        row.update(json.loads(done.stdout.strip().splitlines()[-1]))
        if not args.skip_golden:
            start = time.perf_counter()
            done = child(target, Path(args.src), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_golden.py",
                         "tests/test_resize.py", "tests/test_golden_tabs.py", "-m", "slow or not slow")
            summary = (done.stdout.strip().splitlines() or ["?"])[-1].split(" in ")[0]
            row["tests/test_golden.py tests/test_resize.py tests/test_golden_tabs.py"] = f"{summary} ({time.perf_counter() - start:.0f} s)"
        done = child(target, Path(args.src), __file__, "--_child", "cost")
        row["cost"] = json.loads(done.stdout.strip().splitlines()[-1]) if not done.returncode else done.stderr[-500:]
        results[version] = row
    keys = [k for k in next(iter(results.values())) if k != "cost"]
    print("| | " + " | ".join(f"Pillow {v}" for v in results) + " | same in all |")
    print("|---|" + "---|" * (len(results) + 1))
    for key in keys:
        values = [str(results[v].get(key)) for v in results]
        same = "yes" if len(set(values)) == 1 else "**no**"
        if key.startswith("tests/"):
            same = "-"
        print(f"| {key} | " + " | ".join(values) + f" | {same} |")
    print("\ncost of geometry.resize against Image.resize (LANCZOS, best of 5):")
    for version, row in results.items():
        print(f"  Pillow {version}: {json.dumps(row['cost'])}")
    print(f"\nload: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
