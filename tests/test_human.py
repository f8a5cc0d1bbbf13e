"""The human baseline without a browser: seeded orders, answers as run directories, resume, the report's rows."""
from __future__ import annotations

import json

import pytest

import jigsaw_puzzles as jp
from jigsaw_puzzles.cli import main
from jigsaw_puzzles.errors import UserError
from jigsaw_puzzles.human import HumanTest, answer_text, participant_order
from jigsaw_puzzles.human.pool import agreement, fleiss_kappa, pairwise_agreement, pooled_metrics
from jigsaw_puzzles.inference.rundir import RunLocked
from jigsaw_puzzles.reporting.report import make_report

CONFIGS = ("piece_localization_easy", "anomaly_detection", "order_generation")


@pytest.fixture(scope="module")
def data():
    return {c: jp.load_dataset(c, split="lite").select(range(4)) for c in CONFIGS}


def _right(row):
    """The reference as the answer a participant enters through the controls."""
    config = row["id"].split("/")[0]
    if config == "anomaly_detection":
        lines = [line.split(":", 1)[1].strip() for line in row["answer"].splitlines()]
        return tuple(v or None for v in lines)
    if config == "order_generation":
        return json.loads(row["answer"])
    return row["answer"]


def _wrong(row):
    config = row["id"].split("/")[0]
    if config == "anomaly_detection":
        return ("A",) if "Judgment: B" in row["answer"] else ("B", "A", "A")
    if config == "order_generation":
        order = json.loads(row["answer"])
        return order[1:] + order[:1]
    return "B" if row["answer"] == "A" else "A"


def test_order_is_seeded_by_participant_and_independent_of_listing():
    ids = [f"c/{i:02d}" for i in range(30)]
    a = participant_order(ids, 0, "p01")
    assert a == participant_order(list(reversed(ids)), 0, "p01")  # not the datasets' order
    assert sorted(a) == sorted(ids) and a != sorted(ids)
    assert a != participant_order(ids, 0, "p02") and a != participant_order(ids, 1, "p01")


def test_no_participant_sees_two_items_that_reveal_each_other(tmp_path):
    """Order Restoration and Order Generation of one photo share its shuffle: solving one gives the other away
    (#21.16). Each participant gets one of the pair, the run records the other as withheld, and over a few
    participants every item is still answered by someone."""
    data = {c: jp.load_dataset(c, split="lite").select(range(4)) for c in ("order_restoration", "order_generation")}
    test = HumanTest(tmp_path / "h", data, "lite", 0)
    assert len(test.item_ids) == 8
    seen = set()
    for pid in ("p01", "p02", "p03", "p04", "p05", "p06"):
        p = test.participant(pid)
        sources = [test.row(i)["source_id"] for i in p.order]
        assert len(sources) == len(set(sources)) == 4  # one item of each photo
        run = json.loads((p.rundir.path / "run.json").read_text())
        assert sorted(run["withheld"]) == sorted(set(test.item_ids) - set(p.order))
        seen |= set(p.order)
    test.close()
    assert seen == set(test.item_ids)
    unrelated = [f"c/{i:02d}" for i in range(6)]
    assert sorted(participant_order(unrelated, 0, "p01", {i: i for i in unrelated})) == unrelated


def test_circular_rotations_travel_with_their_item(tmp_path):
    """Under --circular a participant who gets a photo's Order Restoration item sees all its rotations (that is
    circular evaluation), and then not that photo's Order Generation item."""
    from jigsaw_puzzles.generation.circular import parse_rotation

    data = {c: jp.load_dataset(c, split="lite").select(range(3)) for c in ("order_restoration", "order_generation")}
    test = HumanTest(tmp_path / "h", data, "lite", 0, circular=True)
    p = test.participant("p01")
    by_source: dict[str, set] = {}
    for item in p.order:
        by_source.setdefault(test.row(item)["source_id"], set()).add(parse_rotation(item)[0])
    assert len(by_source) == 3 and all(len(units) == 1 for units in by_source.values())
    for units in by_source.values():
        unit = next(iter(units))
        shown = [i for i in p.order if parse_rotation(i)[0] == unit]
        assert len(shown) == (4 if unit.startswith("order_restoration/") else 1)
    test.close()


def test_answer_text_is_the_canonical_answer_or_a_clear_refusal():
    assert answer_text("piece_localization_hard", "c") == "C"
    assert answer_text("anomaly_detection", ("A", "C", "B")) == jp.spec.format_anomaly()
    assert answer_text("anomaly_detection", ("B", "C", "B")) == jp.spec.format_anomaly("C", "B")
    assert answer_text("order_generation", [3, 1, 4, 2]) == "[3, 1, 4, 2]"
    assert answer_text("anomaly_detection_3x3", ("B", "i", "A")) == jp.spec.format_anomaly("I", "A")  # grid configs
    assert answer_text("piece_localization_4x4_k8", "h") == "H"
    for config, bad in [("piece_localization_easy", "C"), ("anomaly_detection", (None,)),
                        ("anomaly_detection", ("B", "E", "A")),
                        ("anomaly_detection", ("B", "C", None)), ("order_generation", [1, 1, 2, 3]),
                        ("order_generation", [1, 2])]:
        with pytest.raises(UserError):
            answer_text(config, bad)


def test_answers_are_a_run_directory_that_resumes(tmp_path, data):
    test = HumanTest(tmp_path / "h", data, "lite", 0)
    p = test.participant("p01")
    assert p.total == 12 and p.done == 0
    first = p.next_item()
    assert first == p.order[0] == participant_order(test.item_ids, 0, "p01")[0]
    row = test.row(first)
    rec = p.record(first, _right(row), 2.5)
    assert rec["correct"] and rec["response_time_s"] == 2.5 and rec["participant"] == "p01"
    assert p.record(first, _wrong(row), 1.0) is None  # a double click: the first answer stands
    second = p.next_item()
    if test.config_of(second) == "anomaly_detection":
        with pytest.raises(UserError):
            p.record(second, ("B", None, None), 1.0)  # incomplete: nothing recorded
    p.record(second, _wrong(test.row(second)), "not a number")  # a response time the browser could not give
    lines = (tmp_path / "h/participants/p01/predictions.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == [first, second]
    assert json.loads(lines[1])["correct"] is False and json.loads(lines[1])["response_time_s"] is None
    res = json.loads((tmp_path / "h/participants/p01/results.json").read_text())
    assert res["n_items"] == 2 and res["n_missing"] == 10 and not res["complete"]
    run = json.loads((tmp_path / "h/participants/p01/run.json").read_text())
    assert run["order"] == p.order and run["backend"] == "human" and run["model"] == "Human (p01)"

    with pytest.raises(RunLocked):  # a second app on the same participant is refused
        HumanTest(tmp_path / "h", data, "lite", 0).participant("p01")
    test.close()

    again = HumanTest(tmp_path / "h", data, "lite", 0).participant("p01")  # restart: resume
    assert again.done == 2 and again.next_item() == again.order[2] and again.order == p.order
    with pytest.raises(UserError):
        HumanTest(tmp_path / "h", data, "lite", 1)  # another seed into the same folder
    with pytest.raises(UserError):
        again.test.participant("../evil")


def test_report_has_participants_a_pooled_human_row_and_agreement(tmp_path, data):
    test = HumanTest(tmp_path / "h", data, "lite", 0)
    ids = sorted(test.item_ids)
    wrong_for_p2 = set(ids[::3])  # p2 errs on every third item, p1 on none
    for pid in ("p1", "p2"):
        p = test.participant(pid)
        while (item := p.next_item()) is not None:
            row = test.row(item)
            p.record(item, _wrong(row) if pid == "p2" and item in wrong_for_p2 else _right(row), 3.0)
    test.close()
    rep = make_report([tmp_path / "h"], out=tmp_path / "rep", stream=None)
    rows = {r["name"]: r for r in rep["rows"] if r["kind"] == "run"}
    assert set(rows) == {"Human (p1)", "Human (p2)", "Human"}
    for c in CONFIGS:
        n_wrong = sum(1 for i in wrong_for_p2 if i.startswith(c + "/"))
        assert rows["Human (p1)"][c] == 100.0
        assert rows["Human (p2)"][c] == pytest.approx(100 * (4 - n_wrong) / 4)
        assert rows["Human"][c] == pytest.approx((100 + 100 * (4 - n_wrong) / 4) / 2)
    agree = {r["config"]: r for r in agreement(tmp_path / "h")}
    for c in CONFIGS:
        n_wrong = sum(1 for i in wrong_for_p2 if i.startswith(c + "/"))
        assert agree[c]["shared_items"] == 4 and agree[c]["participants"] == 2
        assert agree[c]["pairwise_agreement"] == pytest.approx(100 * (4 - n_wrong) / 4)
        assert agree[c]["median_response_s"] == 3.0
    md = (tmp_path / "rep/report.md").read_text()
    assert "Human agreement" in md and "| Human |" in md
    assert (tmp_path / "rep/human_agreement.csv").read_text().count("\n") == 1 + len(CONFIGS)


def test_fleiss_kappa_matches_the_textbook_example():
    # Fleiss (1971) as worked on Wikipedia: 10 items, 14 raters, 5 categories -> kappa 0.210, P-bar 0.378
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    ratings = [[str(k) for k, n in enumerate(counts) for _ in range(n)] for counts in table]
    assert fleiss_kappa(ratings) == pytest.approx(0.210, abs=5e-4)
    assert pairwise_agreement(ratings) == pytest.approx(37.8, abs=0.05)
    assert fleiss_kappa([["A", "A"], ["A", "A"]]) is None  # one category: undefined, not 1 or 0
    assert pooled_metrics([{"cv": {}}]) == {}


def test_cli_refuses_without_out_and_with_a_bad_item_cap(capsys):
    assert main(["human"]) == 2
    assert main(["human", "--out", "x", "--max-items", "0"]) == 2
    assert main(["human", "--out", "x", "--dataset", "y"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("jigsaw-puzzles: error:") for line in err)


def test_response_times_that_are_not_seconds_are_never_stored_nor_averaged(tmp_path, data):
    """#28.4: NaN, inf, -5 (and text) are no response time: the answer is kept, its time is not, and the agreement
    table's median never sees them (nor a NaN already in an older predictions.jsonl)."""
    test = HumanTest(tmp_path / "h", data, "lite", 0)
    p = test.participant("p01")
    for rt in (float("nan"), -5, float("inf"), "nan", "-inf", "1e999", [2.0], True):
        rec = p.record(p.next_item(), _right(test.row(p.next_item())), rt)
        assert rec["response_time_s"] is None and rec["latency_s"] is None
    rec = p.record(p.next_item(), _right(test.row(p.next_item())), "2.5")
    assert rec["response_time_s"] == 2.5
    text = (tmp_path / "h/participants/p01/predictions.jsonl").read_text()
    assert "NaN" not in text and "Infinity" not in text and "-5" not in text
    # an older run that stored one: left out of the medians (results.json and the agreement table)
    lines = [json.loads(x) for x in text.splitlines()]
    lines[0]["response_time_s"] = float("nan")
    lines[1]["response_time_s"] = -5.0
    (tmp_path / "h/participants/p01/predictions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    test.close()
    again = HumanTest(tmp_path / "h", data, "lite", 0)
    again.participant("p01")
    again.close()
    medians = [m.get("median_response_s") for c, m in json.loads(
        (tmp_path / "h/participants/p01/results.json").read_text())["metrics"].items() if c != "overall"]
    assert all(v is None or v == 2.5 for v in medians) and 2.5 in medians
    assert all(r["median_response_s"] in (None, 2.5) for r in agreement(tmp_path / "h"))


def test_answers_that_do_not_fit_the_item_on_screen_are_one_clear_refusal(tmp_path, data):
    """#28.4: a letter for an order item, an order for a letter, anomaly fields for an order, a 5,000-digit
    number, an item that is not on screen: a UserError (the app shows it), nothing recorded, no other exception."""
    test = HumanTest(tmp_path / "h", data, "lite", 0)
    p = test.participant("p01")
    wrong_kind = ["B", ("B", "A", "A"), [1, 2, 3, 4], [[1, 2], [0, 0]], ["9" * 5000, 1, 2, 3], [1.5, 2, 3, 4],
                  [True, 2, 3, 4], None, 7, {"a": 1}, ("x", None), ([1, 2, 3, 4], ["a", "b", "c", "d"])]
    for _ in range(3):
        item = p.next_item()
        right = _right(test.row(item))
        for value in wrong_kind:
            if value == right or (isinstance(right, str) and str(value).upper() == right):
                continue
            try:
                rec = p.record(item, value, 1.0)
            except UserError:
                continue
            assert rec is not None and rec["id"] == item  # a valid (wrong or right) answer of the item's kind
            break
        else:
            p.record(item, right, 1.0)
    later = next(i for i in p.order if i not in p.answers and i != p.next_item())
    with pytest.raises(UserError, match="not the item on screen"):
        p.record(later, _right(test.row(later)), 1.0)
    with pytest.raises(UserError, match="not the item on screen"):
        p.record("order_generation/nope", [1, 2, 3, 4], 1.0)
    assert later not in p.answers
    for config, value in [("order_generation", "B"), ("order_generation", ("B", "A", "A")),
                          ("order_generation_2x2_rot", "B"), ("order_generation_2x2_rot", [1, 2, 3, 4]),
                          ("anomaly_detection", 7), ("order_generation", ["9" * 5000, 1, 2, 3])]:
        with pytest.raises(UserError):
            answer_text(config, value)
    test.close()


def test_the_landing_page_promises_the_number_of_items_each_participant_sees(tmp_path):
    """#28.4: items that give each other away are withheld, so the landing page counts what a participant sees
    ("You will see 65 puzzles", then "Item 1 of 65"), not every item of the split."""
    pytest.importorskip("gradio")
    from jigsaw_puzzles.human.app import test_app

    data = {c: jp.load_dataset(c, split="lite").select(range(6)) for c in ("order_restoration", "order_generation")}
    test = HumanTest(tmp_path / "h", data, "lite", 0)
    assert len(test.item_ids) == 12 and test.per_participant == (6, 6) == (test.participant("p01").total,) * 2
    demo = test_app(test)
    texts = [b.value for b in demo.blocks.values() if type(b).__name__ == "Markdown" and isinstance(b.value, str)]
    assert any("You will see 6 puzzles" in t for t in texts) and not any("12 puzzles" in t for t in texts)
    test.close()


def test_tab_items_reach_a_participant_as_the_model_gets_them_on_a_checkerboard(tmp_path):
    """#34.4: a participant given tab configs sees each item's PNGs byte for byte (RGBA: the transparent area kept),
    on the checkerboard of ``show`` under every image (``img.jp-img`` and the zoom), with one line saying what the
    checkerboard is (tab items only); their answers are recorded and scored as for straight items."""
    pytest.importorskip("gradio")
    import base64
    import io
    import re

    import numpy as np
    from PIL import Image

    from jigsaw_puzzles.generation.sheet import CHECKER
    from jigsaw_puzzles.human.app import CSS, TRANSPARENT_NOTE, images_html, test_app

    configs = ("order_generation_tabs", "connection_verification_tabs_silhouette", "piece_localization_easy")
    data = {c: jp.load_dataset(c, split="lite").select(range(2)) for c in configs}
    for config in configs[:2]:
        row = data[config][0]
        shown = [Image.open(io.BytesIO(base64.b64decode(b)))
                 for b in re.findall(r'src="data:image/png;base64,([^"]+)"', images_html(row, row["id"]))]
        assert len(shown) == len(row["images"]) and all(im.mode == "RGBA" for im in shown)
        assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(shown, row["images"]))
        assert all((np.asarray(im)[..., 3] == 0).any() for im in shown)  # transparent pixels to see through
    rule = re.search(r"img\.jp-img, #jp-zoom img \{([^}]*)\}", CSS).group(1)
    dark, light, side = CHECKER
    assert f"rgb({dark}, {dark}, {dark})" in rule and f"background-color: rgb({light}, {light}, {light})" in rule
    assert "conic-gradient(" in rule and f"background-size: {2 * side}px {2 * side}px" in rule

    test = HumanTest(tmp_path / "h", data, "lite", 0)
    demo = test_app(test)
    start = next(f.fn for f in demo.fns.values() if getattr(f.fn, "__name__", "") == "on_start")
    part = test.participant("p01")
    for k in range(part.total):
        outputs = start("p01")  # the page for the participant's next item: [.., progress, images, ...]
        item = part.next_item()
        config = test.config_of(item)
        assert f'data-item="{item}"' in outputs[5] and (TRANSPARENT_NOTE in outputs[4]) is ("_tabs" in config)
        row = test.row(item)
        answer = json.loads(row["answer"]) if config == "order_generation_tabs" else row["answer"]
        assert part.record(item, answer, 1.0)["correct"]
    res = json.loads((tmp_path / "h/participants/p01/results.json").read_text())
    assert res["complete"] and all(res["metrics"][c]["accuracy"] == 100.0 for c in configs)
    test.close()
