"""``tasks.base.per_image``: a per-photo check computed once per image object gives what computing it afresh gives
(Piece Localization's pairwise-distinct mask sets, reused by the stream across the items of one cached photo), and
never a value of another image (a new image at a recycled address)."""

from __future__ import annotations

import weakref

from PIL import Image

from jigsaw_puzzles.generation.sources import read_source
from jigsaw_puzzles.generation.curation import curate
from jigsaw_puzzles.generation.tasks import base
from jigsaw_puzzles.generation.tasks.piece_localization import make_item
from jigsaw_puzzles.rng import item_rng


def _item_bytes(item) -> tuple:
    return tuple(im.tobytes() for im in item.images), item.answer, repr(item.metadata)


def test_items_from_a_reused_photo_are_those_of_a_fresh_copy():
    for source in curate().accepted[:12]:
        image = read_source(source.path)[1]
        for level in ("easy", "hard"):
            for n in range(4 if level == "hard" else 2):
                rng = item_rng(0, f"pl-{level}-{n}", source.source_id)
                first = make_item(image, rng, n, level)  # computes the mask sets, or reuses them
                again = make_item(image, item_rng(0, f"pl-{level}-{n}", source.source_id), n, level)  # reuses
                fresh = make_item(image.copy(), item_rng(0, f"pl-{level}-{n}", source.source_id), n, level)
                assert _item_bytes(first) == _item_bytes(again) == _item_bytes(fresh)


def test_a_value_of_another_image_at_the_same_address_is_never_returned():
    image, other = Image.new("RGB", (8, 8)), Image.new("RGB", (8, 8), "white")
    base._PER_IMAGE[(id(image), "probe")] = (weakref.ref(other), "stale")  # as if ``other`` had lived there
    assert base.per_image(image, ("probe",), lambda: "fresh") == "fresh"
    calls = []
    assert base.per_image(image, ("probe",), lambda: calls.append(1) or "again") == "fresh" and not calls


def test_the_memo_is_bounded():
    images = [Image.new("RGB", (4, 4)) for _ in range(base._PER_IMAGE_SIZE + 10)]
    for k, image in enumerate(images):
        base.per_image(image, ("bounded",), lambda k=k: k)
    assert len(base._PER_IMAGE) <= base._PER_IMAGE_SIZE


def test_threads_share_the_memo_without_error():
    """The human app serves items from threads: concurrent lookups and evictions of one memo."""
    from concurrent.futures import ThreadPoolExecutor

    images = [Image.new("RGB", (4, 4), (k, 0, 0)) for k in range(base._PER_IMAGE_SIZE // 2)]

    def work(offset):
        return [base.per_image(images[(offset + j) % len(images)], ("threads", j % 3), lambda j=j: j % 3)
                for j in range(3 * base._PER_IMAGE_SIZE)]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(4)))
    assert all(r == [j % 3 for j in range(3 * base._PER_IMAGE_SIZE)] for r in results)
