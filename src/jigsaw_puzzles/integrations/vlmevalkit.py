"""Jigsaw-Puzzles as VLMEvalKit datasets: one TSV per config, and a dataset class that scores with this package.

VLMEvalKit (github.com/open-compass/VLMEvalKit, not on PyPI) reads a custom dataset from
``$LMUData/<name>.tsv``. Its ``ImageMCQDataset.build_prompt`` (vlmeval/dataset/image_mcq.py) writes
``Question: <question>``, then ``Options:`` with one ``<letter>. <text>`` line per option column ``A``, ``B``, ...
and a closing instruction; ``ImageBaseDataset`` (vlmeval/dataset/image_base.py) takes several images per row as
a list literal in ``image`` (base64) with the file names in ``image_path``.

The TSV therefore carries, per row: ``index``, ``image``, ``image_path``, ``question`` (the paper's prompt
*without* its option lines, so a stock multiple-choice reader does not print the options twice), the option
columns (multiple-choice configs only; Anomaly Detection and Order Generation are not plain multiple choice and
get none), ``answer``, ``category`` (the config), ``id`` and ``prompt`` (the paper's full prompt, exactly as
``jigsaw-puzzles eval`` sends it). :data:`DATASET_CLASS_FILE` is a class to drop into VLMEvalKit that prompts
with ``prompt`` and scores with :mod:`jigsaw_puzzles.scoring.score` (docs/integrations.md says how).

Circular variants (``export vlmevalkit --circular``) follow VLMEvalKit's own convention for circular
multiple-choice data (``vlmeval/tools.py``'s ``circular`` command, read by ``ImageMCQDataset.evaluate``): a
``<name>_circular.tsv`` per multiple-choice config in which rotation ``r`` of the item at ``index`` i has
``index = i + r * OFFSET`` (``OFFSET`` = 1e6, times 10 until it exceeds every index) and ``g_index = i``, rotation 0
keeping ``index = g_index``. The rotations are this package's generated items (:mod:`jigsaw_puzzles.generation.circular`:
reordered candidates, relabelled masks, rotated option texts), each row with its own images, and the dataset class
scores a file with ``g_index`` per group: right iff every rotation is.
"""

from __future__ import annotations

import ast
import base64
import csv
import io
from pathlib import Path
from typing import Iterable

from ..generation.circular import is_circular, rotations
from ..prompts import option_lines
from ..spec import CHOICE, CONFIGS, get as get_spec

#: The file users copy into ``vlmeval/dataset/`` (see docs/integrations.md).
DATASET_CLASS_FILE = Path(__file__).with_name("vlmevalkit_dataset.py")
PREFIX = "JigsawPuzzles"


def stem(question: str, options: list[str]) -> str:
    """The question without its option lines (VLMEvalKit appends the options itself)."""
    block = option_lines(options) + "\n"
    if not options or block not in question:
        return question
    return question.replace(block, "", 1)


def _b64(image) -> str:
    buf = io.BytesIO()
    image.convert("RGB").save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def circular_offset(n: int) -> int:
    """VLMEvalKit's index offset between rotations: 1e6, times 10 until it exceeds every index (0..n-1)."""
    offset = 10 ** 6
    while n - 1 >= offset:
        offset *= 10
    return offset


def rows(dataset, config: str, circular: bool = False) -> Iterable[dict]:
    """The TSV rows of one config's dataset; ``circular``: every rotation of every item, with ``g_index``."""
    letters = get_spec(config).letters if get_spec(config).kind == CHOICE else ()
    offset = circular_offset(len(dataset))
    for index, item in enumerate(dataset):
        for r, row in enumerate(rotations(item, config) if circular else [item]):
            names = [f"{row['id'].replace('/', '_').replace('#', '_')}_{k + 1}.png" for k in range(len(row["images"]))]
            record = {"index": index + r * offset, "image": str([_b64(im) for im in row["images"]]),
                      "image_path": str(names),
                      "question": stem(row["question"], row["options"]) if letters else row["question"]}
            for letter, text in zip(letters, row["options"]):
                record[letter] = text
            record.update(answer=row["answer"], category=config, id=row["id"], prompt=row["question"])
            if circular:
                record["g_index"] = index
            yield record


def write_tsv(dataset, config: str, path: Path, circular: bool = False, progress: bool = False) -> int:
    """Write one config's TSV (``circular``: its rotations, VLMEvalKit's circular layout); returns the number of
    rows. ``progress``: a bar labelled with the file (each image is re-encoded as base64 PNG: seconds per config)."""
    from tqdm.auto import tqdm

    if circular and not is_circular(config):
        raise ValueError(f"{config} is not multiple choice: it has no circular variant")
    letters = list(get_spec(config).letters) if get_spec(config).kind == CHOICE else []
    fields = ["index", "image", "image_path", "question", *letters, "answer", "category", "id", "prompt"] + \
        (["g_index"] if circular else [])
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        total = len(dataset) * (get_spec(config).num_options if circular else 1)  # a row per rotation
        with tqdm(total=total, desc=f"VLMEvalKit {path.name}", unit="row", disable=not progress) as bar:
            for record in rows(dataset, config, circular):
                writer.writerow(record)
                n += 1
                bar.update(1)
    return n


def read_tsv(path: Path) -> list[dict]:
    """The rows of a TSV written by :func:`write_tsv` (list columns parsed as literals, never evaluated)."""
    limit = csv.field_size_limit()
    csv.field_size_limit(1 << 30)  # a row holds its images as base64
    try:
        with open(path, newline="", encoding="utf-8") as f:
            out = list(csv.DictReader(f, delimiter="\t"))
    finally:
        csv.field_size_limit(limit)
    for row in out:
        row["image"] = ast.literal_eval(row["image"])
        row["image_path"] = ast.literal_eval(row["image_path"])
    return out


def export(datasets_: dict, out: str | Path, circular: bool = False, progress: bool = False) -> dict[str, Path]:
    """``{config: dataset}`` -> ``{config: <out>/JigsawPuzzles_<config>.tsv}``, and the dataset class file;
    ``circular``: also ``{config + "_circular": <out>/JigsawPuzzles_<config>_circular.tsv}`` per multiple-choice
    config. ``progress``: one labelled bar per file."""
    out = Path(out)
    written = {}
    for config, ds in datasets_.items():
        if config not in CONFIGS:
            continue
        path = out / f"{PREFIX}_{config}.tsv"
        write_tsv(ds, config, path, progress=progress)
        written[config] = path
        if circular and is_circular(config):
            path = out / f"{PREFIX}_{config}_circular.tsv"
            write_tsv(ds, config, path, circular=True, progress=progress)
            written[f"{config}_circular"] = path
    (out / DATASET_CLASS_FILE.name).write_text(DATASET_CLASS_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    return written
