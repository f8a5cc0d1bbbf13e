"""The export's dataset card (issue #10 part 4): YAML valid for huggingface_hub offline, every relative link
resolves inside the export, stock datasets loads it (streaming too), results measured on the export, no path
of the build machine anywhere in it."""
from __future__ import annotations

import json
import re
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard, DatasetCardData

from jigsaw_puzzles.publishing.export import build

CONFIGS = ["order_restoration", "anomaly_detection", "order_restoration_tabs", "order_restoration_tabs_silhouette",
           "order_restoration_tabs_content"]
#: The puzzle the export holds four ways (#34.4, #45): content only (straight), shape and content, shape only,
#: content only under a jigsaw cut.
FOUR_WAYS = CONFIGS[0], CONFIGS[2], CONFIGS[3], CONFIGS[4]


@pytest.fixture(scope="module")
def export(tmp_path_factory, photo_dir):
    out = tmp_path_factory.mktemp("card") / "export"
    build(out, source=photo_dir, configs=CONFIGS, cache_dir=str(tmp_path_factory.mktemp("cache")))
    return out


def test_yaml_is_valid_card_data_with_dataset_info(export):
    card = DatasetCard((export / "README.md").read_text())
    data = card.data.to_dict()
    rebuilt = DatasetCardData(**data)  # the hub's own class accepts every key
    assert rebuilt.to_dict() == data
    assert data["license"] == "other" and data["license_link"] == "CREDITS.md" and data["license_name"]
    assert data["size_categories"] == ["n<1K"] and data["pretty_name"] == "Jigsaw-Puzzles"
    assert {"task_categories", "task_ids", "tags", "configs"} <= set(data)
    info = {entry["config_name"]: entry for entry in data["dataset_info"]}
    assert set(info) == set(CONFIGS)
    report = json.loads((export / "curation_report.json").read_text())
    for config in CONFIGS:
        splits = {s["name"]: s for s in info[config]["splits"]}
        assert splits["test"]["num_examples"] == report["configs"][config]["test"]
        assert splits["test"]["num_bytes"] == (export / config / "test-00000-of-00001.parquet").stat().st_size
        assert [f["name"] for f in info[config]["features"]][:3] == ["id", "source_id", "images"]


def test_every_relative_link_exists_and_each_config_has_an_example_sheet(export):
    text = (export / "README.md").read_text()
    links = [link for link in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+://", link)]
    assert links
    for link in links:
        assert (export / link.split("#")[0]).exists(), link
    for config in CONFIGS:
        assert f"assets/{config}.png" in links
    assert text.count("\n# ") == 1  # one H1: the credits sit inside the card's structure


def test_results_are_measured_on_this_export(export):
    text = (export / "README.md").read_text()
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ")}
    report = json.loads((export / "curation_report.json").read_text())
    assert [int(c) for c in rows["n (test items)"].split("|")[2:-1]] == [report["configs"][c]["test"] for c in CONFIGS]
    shape = "Shape only (alpha and masks, no colour)"
    for name in ("chance", "↑ chance, p < 0.05", "constant answer (best)", "Random (seed 0)",
                 "Classical solver (no weights)", "Random (seed 0), strict", "Classical solver (no weights), strict",
                 shape):
        cells = [c.strip() for c in rows[name].split("|")[2:-1]]
        assert len(cells) == len(CONFIGS) and all(re.fullmatch(r"\d+\.\d\d", c) for c in cells), rows[name]
    solver = [float(c) for c in rows["Classical solver (no weights)"].split("|")[2:-1]]
    bound = [float(c) for c in rows["↑ chance, p < 0.05"].split("|")[2:-1]]
    assert all(s > b for s, b in zip(solver, bound))  # the weight-free solver beats chance on these items
    # the shape row: every answer the outlines give away on _tabs, nothing on the straight and content cuts, where
    # it gives the random baseline's very answers (#45)
    by_config = {name: dict(zip(CONFIGS, (float(c) for c in rows[name].split("|")[2:-1])))
                 for name in (shape, "Random (seed 0)")}
    assert by_config[shape]["order_restoration_tabs"] == by_config[shape]["order_restoration_tabs_silhouette"] == 100
    for config in ("order_restoration", "anomaly_detection", "order_restoration_tabs_content"):
        assert by_config[shape][config] == by_config["Random (seed 0)"][config]


def test_stock_datasets_loads_it_including_streaming(export):
    for config in CONFIGS:
        ds = datasets.load_dataset(str(export), config, split="test")
        streamed = next(iter(datasets.load_dataset(str(export), config, split="test", streaming=True)))
        assert streamed["id"] == ds[0]["id"] and streamed["answer"] == ds[0]["answer"]


def test_no_path_of_the_build_machine_is_exported(export, photo_dir):
    needles = {str(Path(photo_dir).resolve()), str(export.parent), str(Path.home()), "/tmp/", "/work/"}
    for path in export.rglob("*"):
        if path.is_file() and path.suffix in (".md", ".json"):
            text = path.read_text()
            assert not any(n in text for n in needles), (path.name, [n for n in needles if n in text])
    for config in CONFIGS:
        for meta in datasets.load_dataset(str(export), config, split="test")["metadata"]:
            assert not any(n in meta for n in needles)


def test_every_row_carries_its_own_licence(tmp_path, cache_dir):
    from fixtures.photos import write_photos
    from jigsaw_puzzles import load_dataset
    from jigsaw_puzzles.generation.licences import embedded_credits

    credits = embedded_credits()
    assert len(credits) == 57
    rows = load_dataset("order_restoration", split="lite", cache_dir=cache_dir)
    licences = {(r["source_license"], r["source_attribution"]) for r in rows}
    assert ("unknown", "") not in licences and all(lic for lic, _ in licences)
    assert all(r["source_url"].startswith("http") or r["source_url"] == "" for r in rows)

    folder = tmp_path / "mine"
    paths = write_photos(folder, 6)
    (folder / "CREDITS.csv").write_text("file,license,attribution,url\n"
                                        f"{paths[0].name},CC-BY-4.0,Ada Lovelace,https://example.org/a\n")
    rows = load_dataset("connection_verification", source=folder, cache_dir=str(tmp_path / "c"))
    from jigsaw_puzzles.generation.sources import content_id
    first = content_id(paths[0].read_bytes())
    for r in rows:
        if r["source_id"] == first:
            assert (r["source_license"], r["source_attribution"], r["source_url"]) == \
                   ("CC-BY-4.0", "Ada Lovelace", "https://example.org/a")
        else:
            assert (r["source_license"], r["source_attribution"], r["source_url"]) == ("unknown", "", "")
    assert first in set(rows["source_id"])


def test_card_is_compact_one_chance_per_config_no_machine_text(export):
    """#21.17: the shape of the Hub's benchmark cards, credits in CREDITS.md (not inlined), one chance figure per
    config in every table, the paper's numbers labelled as measured on the paper's items."""
    text = (export / "README.md").read_text()
    body = text.split("\n---\n", 1)[1]
    assert body.count("\n") < 150
    for heading in ("## Configs", "## One item of each config", "## Usage", "## Results on this export",
                    "## Reference results from the paper", "## Intended use and limitations", "## Citation"):
        assert heading in body, heading
    assert "the paper's own 1,100 items" in body and "not on this export" in body
    credits = (export / "CREDITS.md").read_text()
    assert credits.strip() and credits.strip().splitlines()[-1] not in body  # linked, not inlined
    rows = {line.split("|")[1].strip(): line for line in body.splitlines() if line.startswith("| ")}
    measured = [c.strip() for c in rows["chance"].split("|")[2:-1]]
    for config, chance in zip(CONFIGS, measured):
        assert rows[f"`{config}`"].split("|")[4].strip() == chance + "%", (config, chance)


def test_a_skipped_config_publishes_no_environment_text(tmp_path, photo_dir):
    from jigsaw_puzzles.publishing.card import render_card

    report = {"curation": {"accepted": 3, "rejected": 0},
              "skipped_configs": {"missing_piece_selection_hard": "CLIP weights are not available: [Errno -2] Name "
                                                                  "or service not known (huggingface.co:443)"}}
    counts = {"order_restoration": {"test": 3, "lite": 1}}
    card = render_card(["order_restoration"], counts, {"order_restoration": {"test": 1, "lite": 1}}, report, 0,
                       "user/jp", {}, {})
    assert "`missing_piece_selection_hard`" in card
    assert "Name or service" not in card and "huggingface.co" not in card and "Errno" not in card
def test_the_results_table_has_the_best_constant_answer_row():
    """A stub that always answers "B" scores exactly the constant row where "B" is the most frequent answer."""
    from jigsaw_puzzles.publishing.card import _results_table
    from jigsaw_puzzles.scoring.score import score

    refs = list("BBBACBBDBA")
    table = _results_table(["missing_piece_selection_easy"],
                           {"Always B": score(["B"] * 10, refs, "missing_piece_selection_easy")})
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in table.splitlines()[2:]}
    assert rows["constant answer (best)"] == rows["Always B"] == "60.00"


def test_the_results_table_shows_strict_beside_flexible():
    """A model that answers in prose scores under the reading rule (flexible) and not under the strict reader."""
    from jigsaw_puzzles.publishing.card import _results_table
    from jigsaw_puzzles.scoring.score import score

    refs = list("BBBACBBDBA")
    preds = ["B", "The answer is B.", "Answer: B", "A", "I think it is C.", "B", "B.", "D", "B", "A"]
    table = _results_table(["missing_piece_selection_easy"], {"Prose": score(preds, refs, "missing_piece_selection_easy")})
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in table.splitlines()[2:]}
    assert rows["Prose"] == "100.00" and rows["Prose, strict"] == "80.00"


def test_the_card_lists_the_tab_configs_beside_their_controls(export):
    """#34.4, #45: one compact section, one row per puzzle: the export's ``order_restoration_tabs`` beside its three
    controls, which are the same puzzle (stock ``datasets`` reads all four: the same photos, the same answers)."""
    text = (export / "README.md").read_text()
    section = text.split("### Interlocking pieces\n", 1)[1].split("\n## ", 1)[0]
    assert len(section.strip().splitlines()) <= 8
    assert "Shape and content" in section and "Content only" in section and "Shape only" in section
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert rows == ["| Order Restoration | " + " | ".join(f"`{c}`" for c in FOUR_WAYS) + " |"]
    answers = [{r["source_id"]: r["answer"] for r in datasets.load_dataset(str(export), c, split="test")}
               for c in FOUR_WAYS]
    assert len(answers[0]) >= 8 and answers[0] == answers[1] == answers[2] == answers[3]
    for config in FOUR_WAYS[1:]:
        images = datasets.load_dataset(str(export), config, split="test")[0]["images"]
        assert all(im.mode == "RGBA" for im in images)


def test_the_tab_section_names_missing_and_impossible_controls():
    from jigsaw_puzzles.publishing.card import tabs_section

    assert "none is in this export" in tabs_section(["order_restoration", "anomaly_detection"])
    text = tabs_section(["missing_piece_selection_easy_tabs", "missing_piece_selection_easy_tabs_own",
                         "connection_verification_3x3_8dir_tabs", "order_generation_3x3_tabs_silhouette"])
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]] for line in text.splitlines()
            if line.startswith("| ") and "---" not in line}
    assert rows["Missing Piece Selection (easy)"] == [
        "`missing_piece_selection_easy` (not in this export)",
        "`missing_piece_selection_easy_tabs`, `missing_piece_selection_easy_tabs_own`",
        "`missing_piece_selection_easy_tabs_silhouette` (not in this export)",
        "`missing_piece_selection_easy_tabs_content` (not in this export)"]
    assert rows["Connection Verification, 8 directions (3x3)"][1:] == [
        "`connection_verification_3x3_8dir_tabs`", "-", "`connection_verification_3x3_8dir_tabs_content` (not in this "
        "export)"]
    assert rows["Order Generation (3x3)"][1:] == ["`order_generation_3x3_tabs` (not in this export)",
                                                  "`order_generation_3x3_tabs_silhouette`",
                                                  "`order_generation_3x3_tabs_content` (not in this export)"]
    assert "`-`: no such control" in text
    rot = tabs_section(["order_generation_3x3_rot_tabs"])
    assert "| `order_generation_3x3_rot_tabs` | - | - |" in rot  # neither a silhouette nor a content control
