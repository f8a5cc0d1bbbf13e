"""Shared fixtures: synthetic photo-like source folders and an isolated datasets cache."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")


def make_photo(seed: int, size: tuple[int, int] = (480, 360)) -> Image.Image:
    """A photo-like, asymmetric, textured image: smooth random fields, shapes and grain."""
    rng = np.random.default_rng(seed)
    w, h = size
    y, x = np.mgrid[0:h, 0:w] / 90.0
    img = np.zeros((h, w, 3))
    for c in range(3):
        for _ in range(4):
            a, b, p = rng.normal(size=3)
            img[..., c] += np.sin(a * x + b * y + 3 * p) * 35
        img[..., c] += rng.uniform(70, 180) + x * rng.normal() * 15 + y * rng.normal() * 15
    img += rng.normal(0, 5, size=img.shape)
    image = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    for _ in range(12):
        x0, y0 = int(rng.integers(0, w - 40)), int(rng.integers(0, h - 40))
        x1, y1 = x0 + int(rng.integers(15, w // 3)), y0 + int(rng.integers(15, h // 3))
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        (draw.ellipse if rng.integers(2) else draw.rectangle)((x0, y0, x1, y1), fill=colour)
    return image


def write_photos(folder: Path, count: int, start: int = 0, size=(480, 360)) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(start, start + count):
        path = folder / f"photo_{k:03d}.jpg"
        make_photo(k, size).save(path, quality=92)
        paths.append(path)
    return paths


@pytest.fixture(scope="session")
def photo_dir(tmp_path_factory) -> Path:
    """16 clean photo-like sources: one full 16-slot anomaly-detection cycle."""
    folder = tmp_path_factory.mktemp("photos")
    write_photos(folder, 16)
    return folder


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("hf_cache"))
