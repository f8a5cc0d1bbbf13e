"""The generated composition suite (issue #27 section 2): reasoning, an answer statement in many surface forms and
a suffix, per config family, each with the verdict a careful grader gives it (tests/_compositions.py). No reading
may be a misread - an answer read as a different one, or read where the text keeps two open - for the flexible
reading rule, the strict reader or the rewards; the flexible rule's recall is printed (docs/scoring.md)."""
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from _compositions import FAMILIES, compositions
from jigsaw_puzzles.scoring.extraction import PARSED, classify_response
from jigsaw_puzzles.spec import ANOMALY, ORIENTED, get


def _check(n: int, family=None):
    tally = Counter()

    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(compositions(family))
    def run(c):
        ex = classify_response(c.text, c.config)
        read = ex.answer if ex.status == PARSED else None
        assert read is None or read == c.verdict, ("misread", c, ex)
        assert ex.strict is None or ex.strict == c.verdict, ("strict misread", c, ex)
        if c.verdict is not None:
            tally["answerable"] += 1
            tally["read"] += read == c.verdict
            tally["strict"] += ex.strict == c.verdict
            if c.prose:
                tally["prose " + get(c.config).kind] += 1
                tally["prose read " + get(c.config).kind] += read == c.verdict
        tally["all"] += 1

    run()
    return tally


def _report(tally, what):
    recall = 100.0 * tally["read"] / max(1, tally["answerable"])
    strict = 100.0 * tally["strict"] / max(1, tally["answerable"])
    print(f"\n{what}: {tally['all']} compositions, {tally['answerable']} with one answer; 0 misreads; "
          f"recall flexible {recall:.1f}%, strict {strict:.1f}%")
    for kind, what in ((ORIENTED, "rotated orders"), (ANOMALY, "anomaly sentences")):
        if tally["prose " + kind]:
            print(f"  {what} in prose: {tally['prose ' + kind]} with one answer, read "
                  f"{100.0 * tally['prose read ' + kind] / tally['prose ' + kind]:.1f}%")
    return recall


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_no_misread_fast(family):
    tally = _check(60, family)
    _report(tally, family)
    assert tally["read"] > 0  # the suite reads answers at all: a reader that reads nothing would pass vacuously


@pytest.mark.slow
def test_no_misread_in_ten_thousand_compositions():
    tally = _check(10_000)
    recall = _report(tally, "all families")
    assert tally["all"] >= 10_000 and recall > 50.0
