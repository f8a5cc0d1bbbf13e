"""Item resizes are the same on every Pillow the package allows (#33.2): ``geometry.resize`` is two one-axis passes,
horizontal first, which is what Pillow 10 to 12 compute for a whole resize; Pillow 13 orders its passes otherwise.
``benchmarks/pillow_versions.py`` runs this file's pinned digest and tests/test_golden.py under each Pillow."""

from __future__ import annotations

import hashlib
import random

import PIL
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from fixtures.photos import make_photo
from jigsaw_puzzles import geometry

FILTERS = ("BOX", "BILINEAR", "HAMMING", "BICUBIC", "LANCZOS")
#: sha256 of 300 resizes below; the same under Pillow 10.1.0, 11.3.0, 12.3.0 and 13.0.0
PINNED = "0c38697e2d25a71181167ecf988bbf2a31c6c4d66e437ec3610376b17c1c457f"
PHOTO = make_photo(7, (320, 320))


def _cases(count: int):
    rnd = random.Random(5)
    for _ in range(count):
        w, h, width, height = rnd.randint(8, 320), rnd.randint(8, 320), rnd.randint(4, 400), rnd.randint(4, 400)
        box = None
        if rnd.random() < 0.5:
            x0, y0 = rnd.uniform(0, w / 3), rnd.uniform(0, h / 3)
            box = (x0, y0, rnd.uniform(x0 + 1, w), rnd.uniform(y0 + 1, h))
        yield (PHOTO.crop((0, 0, w, h)).convert(rnd.choice(("L", "RGB"))), (width, height),
               getattr(Image.Resampling, rnd.choice(FILTERS)), box)


def test_resizes_give_the_pinned_pixels_on_this_pillow():
    digest = hashlib.sha256()
    for image, size, resample, box in _cases(300):
        out = geometry.resize(image, size, resample, box=box)
        assert out.size == size and out.mode == image.mode
        digest.update(out.tobytes())
    assert digest.hexdigest() == PINNED, f"Pillow {PIL.__version__} resizes items otherwise"


@pytest.mark.skipif(int(PIL.__version__.split(".")[0]) >= 13, reason="Pillow 13 orders its own two passes otherwise")
@settings(max_examples=150, deadline=None)
@given(w=st.integers(2, 200), h=st.integers(1, 200), width=st.integers(1, 260), height=st.integers(1, 260),
       mode=st.sampled_from(["L", "RGB"]), name=st.sampled_from(FILTERS), crop=st.booleans(),
       fractions=st.tuples(*[st.floats(0, 0.45)] * 4))
def test_it_is_what_pillow_12_computes_for_the_whole_resize(w, h, width, height, mode, name, crop, fractions):
    """(w >= 2: Pillow 12.3 shrinks an image over 100 times taller than wide vertically first.)"""
    image = PHOTO.crop((0, 0, w, h)).convert(mode)
    box = (fractions[0] * w, fractions[1] * h, w - fractions[2] * w, h - fractions[3] * h) if crop else None
    resample = getattr(Image.Resampling, name)
    assert geometry.resize(image, (width, height), resample, box=box).tobytes() == \
        image.resize((width, height), resample, box=box).tobytes()


def test_modes_with_alpha_are_refused():
    with pytest.raises(ValueError, match="L or RGB"):
        geometry.resize(PHOTO.convert("RGBA"), (10, 10))
    image = PHOTO.convert("L")
    same = geometry.resize(image, image.size)
    assert same is not image and same.tobytes() == image.tobytes()
