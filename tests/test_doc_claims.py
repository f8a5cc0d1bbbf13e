"""The numbers the docs give about constant answers and blind runs (issue #28 item 5)."""
from __future__ import annotations

import numpy as np
import pytest

import jigsaw_puzzles as jp
from jigsaw_puzzles.scoring.stats import critical_count, null_distribution, _upper_tail

NO_ANOMALY = "Judgment: A\nError Position:\nError Type:"


def test_constant_answers_per_task(photo_dir, cache_dir):
    """docs/tasks.md, README: one letter scores chance on each multiple-choice config; Anomaly Detection's
    always-"no anomaly" scores 50% against 28.12% chance, one constant altered answer 1 in 16."""
    for config in ("order_restoration", "piece_localization_easy", "connection_verification"):
        refs = jp.load_dataset(config, source=photo_dir, cache_dir=cache_dir)["answer"]
        k = len(jp.spec.CONFIGS[config].options) if hasattr(jp.spec.CONFIGS[config], "options") else None
        letters = sorted(set(refs))
        for letter in letters:
            share = refs.count(letter) / len(refs)
            assert abs(share - 1 / len(letters)) <= 1 / len(refs), (config, letter, share)
        assert k is None or len(letters) == k
    refs = jp.load_dataset("anomaly_detection", source=photo_dir, cache_dir=cache_dir)["answer"]
    assert len(refs) == 16  # one full slot cycle
    res = jp.score(predictions=[NO_ANOMALY] * 16, references=refs, configs=["anomaly_detection"] * 16)
    assert res["anomaly_detection"]["accuracy"] == 50.0
    assert res["anomaly_detection"]["chance"] == pytest.approx(28.125)
    altered = [r for r in refs if r != NO_ANOMALY]
    assert len(set(altered)) == 8 and all(altered.count(r) == 1 for r in altered)  # each 1 in 16


def family_rate(n: int) -> float:
    """How often a pure guesser clears p < 0.05 in at least one of the seven Table-2 cells of n items each."""
    def size(chances):
        pmf = null_distribution(chances)
        k = critical_count(pmf)
        return float(_upper_tail(pmf)[k]) if k < len(pmf) else 0.0
    half = n // 2  # Anomaly Detection's per-item null: 1/2 on unchanged items, 1/2 x 1/8 on altered ones
    cells = [[0.25] * n] * 4 + [[0.5] * n, [1 / 3] * n, [0.5] * (n - half) + [1 / 16] * half]
    return 1 - float(np.prod([1 - size(c) for c in cells]))


def test_blind_runs_clear_one_cell_by_chance_as_often_as_evaluation_md_says():
    assert round(1 - 0.95 ** 7, 2) == 0.30
    assert round(family_rate(11), 2) == 0.20   # the embedded photos' Lite: 11 items a cell
    assert round(family_rate(220), 2) == 0.26  # the paper's Lite
    # the blind solver's PL-hard cell on the embedded Lite: 6 of 11 at chance 1/4
    assert float(_upper_tail(null_distribution([0.25] * 11))[6]) == pytest.approx(0.034, abs=5e-4)


@pytest.mark.slow
def test_the_embedded_photos_give_anomaly_detection_its_paper_chance_on_lite_and_test(cache_dir):
    """docs/evaluation.md (#44 4): it said the embedded photos give AD a chance of 42.71 on lite (stale); they give
    the paper's 28.12 on both splits (half the items unaltered), so the report adds no note for them."""
    for split in ("lite", "test"):
        refs = jp.load_dataset("anomaly_detection", split=split, cache_dir=cache_dir)["answer"]
        res = jp.score(["?"] * len(refs), refs, ["anomaly_detection"] * len(refs))["anomaly_detection"]
        assert res["chance"] == pytest.approx(28.125), (split, res["chance"])
        assert 2 * res["n_altered"] == len(refs)
