"""Copies the docs did not list before #44.4: a colour negative, a 1.3x stretch, a keystone (perspective) warp, the
photo as one cell of a 4x4 collage; and where the guard stops (a 20% sticker). Made with random parameters
(tests/fixtures/copies.py, ``MORE_KINDS``) from photos the tests did not pick; the rates on 117 photos:
docs/performance.md#copies-of-evaluation-photos (``python benchmarks/guard.py --kinds more``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from fixtures.copies import framed_pair, make_copy
from test_guard import EVAL, FILLERS, evaluation, photo, read_back, slow_examples

from jigsaw_puzzles.training.copies import Evaluation
from jigsaw_puzzles.training.pixel_check import plausible


@pytest.mark.slow
@slow_examples(16)
@given(k=st.sampled_from(EVAL), kind=st.sampled_from(["invert", "stretch"]), seed=st.integers(0, 2**32 - 1))
def test_a_negative_and_a_stretched_copy_are_caught(k, kind, seed):
    rng = np.random.default_rng(seed)
    image, fp = read_back(make_copy(photo(k), kind, rng, [photo(f) for f in FILLERS]), rng)
    found = evaluation().copy_of(image, fp)
    assert found is not None and found[0] == f"{k:016x}", (kind, found)


@pytest.mark.slow
@pytest.mark.parametrize("kind, floor", [("keystone", 11), ("collage4x4", 10)])
def test_most_keystoned_copies_and_4x4_collage_cells_are_caught(kind, floor):
    """Not every 4x4 cell (benchmarks/guard.py: 105 of 117; keystones 117 of 117): of one copy of each of the 13
    photos, with seeded random parameters, at least the measured share less a margin."""
    rng = np.random.default_rng(4404)
    fillers = [photo(f) for f in FILLERS] + [photo(300 + j) for j in range(10)]
    caught = 0
    for k in EVAL:
        image, fp = read_back(make_copy(photo(k), kind, rng, fillers), rng)
        found = evaluation().copy_of(image, fp)
        caught += found is not None and found[0] == f"{k:016x}"
    assert caught >= floor, caught


@pytest.mark.slow
@slow_examples(10)
@given(a=st.sampled_from(EVAL), b=st.integers(300, 10_000), seed=st.integers(0, 2**32 - 1))
def test_framed_pairs_stay_apart_with_the_homography_and_the_negatives(a, b, seed):
    """The new paths (a homography where a similarity's pixels disagree; negative views) take no frame for a copy."""
    rng = np.random.default_rng(seed)
    first, second, kind = framed_pair(photo(a), photo(b), rng, [photo(f) for f in FILLERS])
    image_a, fp_a = read_back(first, rng)
    image_b, fp_b = read_back(second, rng)
    assert Evaluation([("a" * 16, lambda: image_a, fp_a)]).copy_of(image_b, fp_b) is None, kind


def test_a_homography_must_lay_the_photo_down_as_a_photograph_could():
    """No twisted, mirrored or collapsed fit reaches the pixel check; a keystone or a stretch does."""
    import cv2

    src = np.float32([[0, 0], [256, 0], [256, 192], [0, 192]])
    for dst, ok in (([[0, 0], [256, 0], [256, 192], [0, 192]], True),  # the same
                    ([[30, 0], [226, 0], [256, 192], [0, 192]], True),  # a keystone
                    ([[0, 0], [333, 0], [333, 192], [0, 192]], True),  # a stretch
                    ([[120, 0], [136, 0], [256, 192], [0, 192]], False),  # one side collapsed
                    ([[256, 0], [0, 0], [0, 192], [256, 192]], False),  # mirrored
                    ([[0, 0], [256, 0], [0, 192], [256, 192]], False)):  # twisted
        assert plausible(cv2.getPerspectiveTransform(src, np.float32(dst)).astype(np.float64), (192, 256)) is ok, dst
