"""An eval that builds its items reads them back without decoding their PNGs again (``geometry.keep_encoded``):
what it gives back is what the bytes decode to (pixels, size, mode, info), as often as the bytes were encoded, and
the run's records are those of a run that decodes every image."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from PIL import Image

from jigsaw_puzzles import geometry


def _decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["RGB", "RGBA", "L"]), st.integers(1, 40), st.integers(1, 40), st.integers(0, 2 ** 32 - 1),
       st.integers(1, 3))
def test_what_is_given_back_is_what_the_bytes_decode_to(mode, width, height, seed, times):
    pixels = np.random.default_rng(seed).integers(0, 256, size=(height, width, len(mode)), dtype=np.uint8)
    image = Image.fromarray(pixels[:, :, 0] if mode == "L" else pixels, mode)
    image.info["jfif"] = 1  # what a source photo's info carries: not in the PNG
    with geometry.keep_encoded():
        data = [geometry.encode_png(image) for _ in range(times)][0]
        image.paste(0, (0, 0, 1, 1))  # the caller changes its image after encoding it: what was encoded is kept
        given_back = [geometry.decoded_png(data) for _ in range(times)]
        assert geometry.decoded_png(data) is None  # as often as encoded, then the bytes are decoded
    want = _decoded(data)
    for got in given_back:
        assert (got.mode, got.size, got.info, got.tobytes()) == (want.mode, want.size, want.info, want.tobytes())
    assert len({id(g) for g in given_back}) == times  # copies: one caller's change never reaches another


def test_outside_it_or_past_its_budget_or_where_a_png_differs_nothing_is_kept():
    rgb = Image.new("RGB", (20, 10), (1, 2, 3))
    data = geometry.encode_png(rgb)
    assert geometry.decoded_png(data) is None  # not within keep_encoded
    with geometry.keep_encoded(budget=20 * 10 * 3):
        first = geometry.encode_png(rgb)
        other = geometry.encode_png(Image.new("RGB", (20, 10), (9, 9, 9)))  # past the budget: decoded
        profiled = Image.new("RGB", (8, 8))
        profiled.info["icc_profile"] = b"x" * 16  # the PNG carries it: decoded, never given back without it
        palette = Image.new("P", (8, 8))
        kept_out = [geometry.encode_png(profiled), geometry.encode_png(palette)]
        assert geometry.decoded_png(other) is None and all(geometry.decoded_png(d) is None for d in kept_out)
        assert geometry.decoded_png(first).tobytes() == rgb.tobytes()
    with geometry.keep_encoded():
        geometry.encode_png(rgb)
    assert geometry._HELD["images"] == {} and geometry.decoded_png(data) is None  # gone when it ends


@pytest.mark.slow
def test_an_eval_reads_its_built_items_without_decoding_them_and_records_the_same(tmp_path, monkeypatch):
    import datasets

    from jigsaw_puzzles.inference import evaluate_model
    from jigsaw_puzzles.inference import data as data_mod

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf"))  # built here, not read back
    configs = ["order_restoration", "connection_verification"]
    given_back = []
    real = geometry.decoded_png

    def counted(data):
        image = real(data)
        given_back.append(image is not None)
        return image
    monkeypatch.setattr(geometry, "decoded_png", counted)
    held = evaluate_model("solver", configs=configs, split="lite", out=tmp_path / "held", progress=False)
    assert given_back and all(given_back)  # every image read was given back: none decoded
    monkeypatch.setattr(data_mod.geometry, "decoded_png", lambda data: None)  # read from the cache, decoded
    decoded = evaluate_model("solver", configs=configs, split="lite", out=tmp_path / "decoded", progress=False)
    assert held["metrics"] == decoded["metrics"]

    def records(run):
        return [{k: v for k, v in json.loads(line).items() if k != "latency_s"}
                for line in (tmp_path / run / "predictions.jsonl").read_text().splitlines()]
    assert records("held") == records("decoded")
