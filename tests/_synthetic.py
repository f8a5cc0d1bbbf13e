"""Synthetic rows for the baseline tests, rendered exactly as the builder renders them (README, "Task rules").

Nothing here depends on the builder (jigsaw_puzzles.builder): the tests must run even
before it exists.  Images are "natural-ish": a sum of random low-frequency sinusoids,
a linear colour gradient, a few filled shapes with soft edges, a mid-frequency texture
and a little sensor noise.  ``make_row(config, sources, rng)`` works with any list of
RGB sources (PIL images) whose sides are multiples of 6, so the same code can also be
pointed at real photos for calibration.
"""
from __future__ import annotations

import hashlib
import io
import itertools
import json

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

CONFIGS = [
    "missing_piece_selection_easy",
    "missing_piece_selection_hard",
    "piece_localization_easy",
    "piece_localization_hard",
    "connection_verification",
    "anomaly_detection",
    "order_restoration",
    "order_generation",
]
LETTERS = "ABCDEFGHI"
WHITE = (255, 255, 255)
GREY = (160, 160, 160)

CV_OPTIONS = [
    "The two images are adjacent horizontally (left-right relationship)",
    "The two images are adjacent vertically (top-bottom relationship)",
    "The two images are not adjacent in the original image",
]
MPS_OPTIONS = [
    "Candidate 1 (the second input image)",
    "Candidate 2 (the third input image)",
    "Candidate 3 (the fourth input image)",
    "Candidate 4 (the fifth input image)",
]
AD_UNCHANGED = "Judgment: A\nError Position:\nError Type:"


def ad_answer(position: int | None, kind: str | None) -> str:
    if position is None:
        return AD_UNCHANGED
    return f"Judgment: B\nError Position: {LETTERS[position]}\nError Type: {'A' if kind == 'rotation' else 'B'}"


AD_OPTIONS = [AD_UNCHANGED] + [ad_answer(p, k) for p in range(4) for k in ("rotation", "mirroring")]


def fmt_order(order) -> str:
    return "[" + ", ".join(str(int(x)) for x in order) + "]"


# --------------------------------------------------------------------------- images
def synthetic_image(rng: np.random.Generator, width: int = 384, height: int = 288) -> Image.Image:
    """A smooth-but-structured RGB image, sides multiples of 6."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    x, y = xx / width, yy / height
    img = np.zeros((height, width, 3), np.float32)
    base = rng.uniform(60, 190, size=3)
    img += base
    # linear colour gradient
    gdir = rng.normal(size=(2, 3)) * 40
    img += x[..., None] * gdir[0] + y[..., None] * gdir[1]
    # low-frequency sinusoids
    for _ in range(rng.integers(3, 7)):
        fx, fy = rng.uniform(-3.0, 3.0, size=2)
        ph = rng.uniform(0, 2 * np.pi)
        amp = rng.normal(size=3) * 25
        img += np.sin(2 * np.pi * (fx * x + fy * y) + ph)[..., None] * amp
    # a mid-frequency texture patch over the whole image (weak)
    fx, fy = rng.uniform(6, 14, size=2) * rng.choice([-1, 1], size=2)
    img += (np.sin(2 * np.pi * (fx * x + fy * y) + rng.uniform(0, 6))[..., None] * rng.normal(size=3) * 6)
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    # a few shapes with soft edges
    layer = Image.new("RGB", (width, height))
    mask = Image.new("L", (width, height), 0)
    d_layer, d_mask = ImageDraw.Draw(layer), ImageDraw.Draw(mask)
    for _ in range(rng.integers(3, 7)):
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        rx, ry = rng.uniform(20, 110), rng.uniform(20, 110)
        col = tuple(int(v) for v in rng.integers(0, 256, size=3))
        box = [cx - rx, cy - ry, cx + rx, cy + ry]
        kind = rng.integers(0, 3)
        if kind == 0:
            d_layer.ellipse(box, fill=col)
            d_mask.ellipse(box, fill=int(rng.integers(150, 256)))
        elif kind == 1:
            d_layer.rectangle(box, fill=col)
            d_mask.rectangle(box, fill=int(rng.integers(150, 256)))
        else:
            pts = [(float(cx + rng.uniform(-rx, rx) * 1.5), float(cy + rng.uniform(-ry, ry) * 1.5)) for _ in range(3)]
            d_layer.polygon(pts, fill=col)
            d_mask.polygon(pts, fill=int(rng.integers(150, 256)))
    mask = mask.filter(ImageFilter.GaussianBlur(1.2))
    pil = Image.composite(layer, pil, mask)
    arr = np.asarray(pil).astype(np.float32) + rng.normal(0, 2.0, size=(height, width, 3))
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


def png_roundtrip(img: Image.Image) -> Image.Image:
    """Encode/decode as PNG, like the datasets Image() feature does."""
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    buf.seek(0)
    out = Image.open(buf)
    out.load()
    return out


def _cells(img: Image.Image, g: int):
    w, h = img.size[0] // g, img.size[1] // g
    return [img.crop((c * w, r * h, (c + 1) * w, (r + 1) * h)) for r in range(g) for c in range(g)], (w, h)


def _source_id(img: Image.Image) -> str:
    return hashlib.sha256(img.tobytes()).hexdigest()[:16]


def _letter_font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # pillow < 10.1
        return ImageFont.load_default()


def _mask_cell(img: Image.Image, box, letter: str) -> None:
    draw = ImageDraw.Draw(img)
    draw.rectangle([box[0], box[1], box[2] - 1, box[3] - 1], fill=GREY)
    size = int(min(box[2] - box[0], box[3] - box[1]) * 0.6)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    draw.text((cx, cy), letter, fill=(0, 0, 0), font=_letter_font(size), anchor="mm",
              stroke_width=max(2, size // 20), stroke_fill=WHITE)


# --------------------------------------------------------------------------- rows
def make_row(config: str, sources, rng: np.random.Generator, index: int = 0) -> dict:
    """Build one row of ``config`` from ``sources[0]`` (others are distractor pools)."""
    src = sources[0]
    W, H = src.size
    meta: dict = {"config": config}
    if config.startswith("missing_piece_selection"):
        cells, (cw, ch) = _cells(src, 3)
        k = int(rng.integers(9))
        img1 = src.copy()
        ImageDraw.Draw(img1).rectangle([(k % 3) * cw, (k // 3) * ch, (k % 3 + 1) * cw - 1, (k // 3 + 1) * ch - 1], fill=WHITE)
        pool = []
        for s in sources[1:]:
            oc, _ = _cells(s, 3)
            pool.extend(c.resize((cw, ch), Image.BICUBIC) for c in oc)
        if config.endswith("hard"):
            # "CLIP-like": distractors closest to the true patch in a tiny thumbnail space
            t = np.asarray(cells[k].resize((8, 6), Image.BILINEAR), np.float32).ravel()
            d = [np.abs(np.asarray(p.resize((8, 6), Image.BILINEAR), np.float32).ravel() - t).mean() for p in pool]
            picks = [pool[i] for i in np.argsort(d)[:3]]
        else:
            picks = [pool[i] for i in rng.choice(len(pool), 3, replace=False)]
        pos = int(rng.integers(4))
        cands = picks[:pos] + [cells[k]] + picks[pos:]
        images = [img1] + cands
        options, answer = list(MPS_OPTIONS), LETTERS[pos]
        meta.update(blank_cell=k)
    elif config.startswith("piece_localization"):
        g, n = (2, 2) if config.endswith("easy") else (3, 4)
        cells, (cw, ch) = _cells(src, g)
        masked = sorted(int(i) for i in rng.choice(g * g, n, replace=False))
        img1 = src.copy()
        for j, m in enumerate(masked):
            _mask_cell(img1, ((m % g) * cw, (m // g) * ch, (m % g + 1) * cw, (m // g + 1) * ch), LETTERS[j])
        t = int(rng.integers(n))
        images = [img1, cells[masked[t]]]
        options, answer = list(LETTERS[:n]), LETTERS[t]
        meta.update(masked=masked, target=masked[t])
    elif config == "connection_verification":
        cells, _ = _cells(src, 2)
        rel = int(rng.integers(3))
        pairs = [[(0, 1), (2, 3)], [(0, 2), (1, 3)], [(0, 3), (1, 2)]][rel]
        pair = list(pairs[int(rng.integers(2))])
        if rng.random() < 0.5:
            pair.reverse()
        images = [cells[pair[0]], cells[pair[1]]]
        options, answer = list(CV_OPTIONS), LETTERS[rel]
        meta.update(cells=pair)
    elif config == "anomaly_detection":
        cells, (cw, ch) = _cells(src, 2)
        u = rng.random()
        kind = None if u < 0.5 else ("rotation" if u < 0.75 else "mirroring")
        pos = None
        out = src.copy()
        if kind is not None:
            pos = int(rng.integers(4))
            c = cells[pos]
            if kind == "rotation":
                angle = int(rng.choice([90, 180, 270])) if cw == ch else 180
                c = c.rotate(angle, expand=True)
                meta["angle"] = angle
            else:
                flip = Image.Transpose.FLIP_LEFT_RIGHT if rng.random() < 0.5 else Image.Transpose.FLIP_TOP_BOTTOM
                c = c.transpose(flip)
                meta["flip"] = int(flip)
            out.paste(c, ((pos % 2) * cw, (pos // 2) * ch))
        images = [out]
        options, answer = list(AD_OPTIONS), ad_answer(pos, kind)
        meta.update(position=pos, kind=kind)
    elif config in ("order_restoration", "order_generation"):
        cells, _ = _cells(src, 2)
        perm = [int(i) for i in rng.permutation(4)]       # shuffled image k shows region perm[k]
        order = [perm.index(j) + 1 for j in range(4)]     # region j <- shuffled image order[j]
        images = [cells[p] for p in perm]
        answer_order = fmt_order(order)
        if config == "order_restoration":
            others = [fmt_order(p) for p in itertools.permutations([1, 2, 3, 4]) if list(p) != order]
            opts = [others[i] for i in rng.choice(len(others), 3, replace=False)] + [answer_order]
            rng.shuffle(opts)
            options, answer = [str(o) for o in opts], LETTERS[[str(o) for o in opts].index(answer_order)]
        else:
            options, answer = [], answer_order
        meta.update(order=order)
    else:
        raise ValueError(config)
    sid = _source_id(src)
    rid = f"{config}/{hashlib.sha256(f'{sid}:{index}'.encode()).hexdigest()[:16]}"
    return {
        "id": rid,
        "source_id": sid,
        "images": [png_roundtrip(im) for im in images],
        "question": f"[synthetic {config} prompt]",
        "options": options,
        "answer": answer,
        "metadata": json.dumps(meta),
    }


def make_rows(config: str, n: int, seed: int = 0, size=(384, 288), n_sources: int = 12):
    """``n`` rows of ``config`` from a pool of ``n_sources`` synthetic images."""
    rng = np.random.default_rng([seed, CONFIGS.index(config)])
    pool = [synthetic_image(rng, *size) for _ in range(n_sources)]
    rows = []
    for i in range(n):
        j = i % len(pool)
        rows.append(make_row(config, [pool[j]] + pool[:j] + pool[j + 1:], rng, index=i))
    return rows


def strip_labels(row: dict) -> dict:
    """Copy of ``row`` without the keys the solver must never read."""
    return {k: v for k, v in row.items() if k not in ("answer", "metadata")}
