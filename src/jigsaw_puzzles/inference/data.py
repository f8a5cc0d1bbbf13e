"""The datasets a run answers: which configs, built how, what shapes their items, and their fingerprints.

A config that cannot be built here raises :class:`~jigsaw_puzzles.errors.ConfigUnavailable` in the builder
(``JigsawPuzzles.preparation()`` or its plan).  Asked for by name, that stops the run (as ``build`` does); as
part of "all configs" it is skipped and recorded with its reason and how to enable it.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
from typing import Collection, Mapping, Sequence

from .. import geometry
from ..errors import ConfigUnavailable, UsageError
from ..spec import CONFIGS, SPLITS, canonical, is_config
from ..generation.tasks import TASKS

_FP_COLUMNS = ("id", "source_id", "question", "options", "answer", "metadata")


def select_configs(configs: Sequence[str] | None, data: Mapping | None) -> tuple[list[str], bool]:
    """(configs to run, whether they were asked for by name).  Default: every config (or those in ``data``)."""
    known = list(CONFIGS)
    explicit = bool(configs)
    configs = list(configs) if configs else ([c for c in known if c in data] if data else known)
    unknown = [c for c in configs if not is_config(c) and not (data and c in data)]
    if unknown:
        raise UsageError(f"unknown config(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    # an alias (order_generation_2x2) is its paper config: one run, one name
    configs = list(dict.fromkeys(c if data and c in data else canonical(c) for c in configs))
    return configs, explicit


def dataset_options(configs: Sequence[str], dataset_kwargs: Mapping | None) -> dict[str, dict]:
    """Per config, the options that shape its items: its task's ``Task.options`` with their defaults filled in
    and normalised by the task (``Task.configure``), as the builder does.  Runtime settings (``Task.settings``,
    e.g. ``clip_cache_dir``) are not among them.  What run.json records and a resume must match."""
    given = dict(dataset_kwargs or {})
    out = {}
    for c in configs:
        task = TASKS.get(c)
        if task is None or not task.options:
            continue
        options = {k: given.get(k, default) for k, default in task.options.items()}
        out[c] = dict(task.configure(options)) if task.configure is not None else options
    return out


def enable_hint(reason: str, in_run: bool = True) -> str:
    """How to enable a skipped config, from its ``ConfigUnavailable`` reason (whose first sentence says what is
    missing and the rest what to do)."""
    head = first_sentence(reason)
    todo = reason.strip()[len(head):].strip() or head
    then = "the run resumes and adds this config" if in_run else "the export then holds this config too"
    return f"{todo.rstrip('. ')}; then re-run the same command: {then}"


def build_dataset(config: str, split: str, source, seed: int, num_proc: int | None,
                  dataset_kwargs: Mapping | None = None):
    """``config``'s ``split`` through the package's builder (cached); ``ConfigUnavailable`` before any work when
    the config's preparation cannot run here, or from the plan when too few sources qualify."""
    from ..generation.builder import make_builder

    # only the split asked for: a Lite run cuts the Lite items (the same bytes as a full build), not the test split
    builder = make_builder(config, source, seed, **{"splits": (split,), **dict(dataset_kwargs or {})})
    builder.preparation()
    builder.download_and_prepare(num_proc=num_proc)
    return builder.as_dataset(split=split)


def load_datasets(configs: Sequence[str], explicit: bool | Collection[str], split: str, source, seed: int,
                  num_proc: int | None, data: Mapping | None = None, dataset_kwargs: Mapping | None = None,
                  announce: bool = True, in_run: bool = True) -> tuple[dict, dict]:
    """``({config: dataset}, {config: {"reason", "enable"}})``; ``data`` gives datasets instead of building them.
    ``explicit``: whether the configs were asked for by name (one that cannot be built then raises), or which.
    Each skip is announced on stderr with how to enable it: where a run records it (``in_run``: its results.json),
    or, for a command that writes no run (an export), in the line itself."""
    if data is None and split not in SPLITS:
        raise UsageError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    datasets_, skipped = {}, {}
    for c in configs:
        if data is not None and c in data:
            datasets_[c] = data[c]
            continue
        try:
            datasets_[c] = build_dataset(c, split, source, seed, num_proc, dataset_kwargs)
        except ConfigUnavailable as err:
            if explicit is True or (not isinstance(explicit, bool) and c in explicit):
                raise
            skipped[c] = {"reason": err.reason, "enable": enable_hint(err.reason, in_run)}
    if not datasets_ and skipped:
        raise UsageError(nothing_buildable(skipped))
    for c, why in skipped.items() if announce else ():
        how = "`skipped` in the run's results.json" if in_run else why["enable"]
        print(f"[jigsaw-puzzles] skipping {c}: {first_sentence(why['reason'])} (how to enable it: {how})",
              file=sys.stderr)
    return datasets_, skipped


def nothing_buildable(skipped: Mapping[str, Mapping]) -> str:
    """One line for "no config can be built here": the commonest reason in full, the others' first sentence."""
    by_reason: dict[str, list[str]] = {}
    for c, why in skipped.items():
        by_reason.setdefault(why["reason"], []).append(c)
    ranked = sorted(by_reason.items(), key=lambda kv: -len(kv[1]))
    (reason, configs), rest = ranked[0], ranked[1:]
    head = f"no config can be built here: {reason} ({', '.join(configs)})"
    return "; ".join([head] + [f"{', '.join(cs)}: {first_sentence(r)}" for r, cs in rest])


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


def dataset_fingerprint(ds) -> str:
    """sha256 (16 hex) of every row's id, source_id, question, options, answer and metadata (no image decoding;
    source_id is the hash of the source image bytes)."""
    cols = [c for c in _FP_COLUMNS if c in ds.column_names]
    h = hashlib.sha256()
    table = ds.select_columns(cols).to_dict()
    for i in range(len(ds)):
        h.update(json.dumps([table[c][i] for c in cols], ensure_ascii=False, sort_keys=True).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()[:16]


def read_rows(ds, indices: Sequence[int]) -> list[dict]:
    """``[ds[i] for i in indices]`` with each image decoded once: ``datasets`` decodes the first image of a list
    twice (once to see whether the list needs decoding), a third more PNG decoding for a row of three images. A
    dataset whose ``images`` are not a list of decodable images, or that has a format set, is read as ``ds[i]``."""
    import datasets

    image = getattr(ds.features.get("images"), "feature", None)
    if ds.format["type"] is not None or not isinstance(image, datasets.Image) or not image.decode:
        return [ds[i] for i in indices]
    # every other column decoded as ds[i] decodes it; the images after, one decode each
    plain = datasets.Features({**ds.features, "images": datasets.List(datasets.Image(decode=False))})
    table = ds.with_format("arrow")
    rows = []
    for i in indices:
        row = plain.decode_example(table[i].to_pylist()[0])
        if row["images"] is not None:
            row["images"] = [None if v is None else _decode(image, v) for v in row["images"]]
        rows.append(row)
    return rows


def _decode(feature, value: dict):
    """``feature.decode_example(value)``; an image this process encoded within ``geometry.keep_encoded`` (an eval
    that built its items) is given back instead of decoded again."""
    if feature.mode is None and value.get("bytes") is not None:
        held = geometry.decoded_png(value["bytes"])
        if held is not None:
            return held
    return feature.decode_example(value)


def images_per_item(ds) -> int:
    """How many images the first row of ``ds`` holds, read without decoding them (0 for an empty dataset)."""
    if not len(ds):
        return 0
    images = ds.with_format("arrow")[0].column("images")[0].as_py() if "images" in ds.column_names else None
    return len(images or ())
