"""No training helper takes an evaluation split without being told it is a smoke test.

The benchmark's rows are evaluation items: every split it has (``test``, ``lite``) of the embedded photos
(``jp.load_dataset(config)``), of an export (``datasets.load_dataset(folder_or_hub_id, config)``) or of any folder
cut by the builder. A model trained on them is contaminated for that evaluation, so the helpers that turn rows into
training data (:func:`.trl_helpers.with_prompt`, :func:`.trl_helpers.to_messages` with a completion,
``interactive.tool_rows``) refuse them with :class:`~jigsaw_puzzles.errors.UsageError`; ``smoke_test=True`` goes on
with a ``UserWarning`` instead. Training data comes from :func:`.stream.training_stream` (your own photos, an
evaluation set excluded), whose rows are told apart by their id: a benchmark item's is ``<config>/<source id>``, a
stream row's ``<config>/<source id>/<seed>.<pass>``.

An evaluation split is recognised by its ``split`` (``test`` or ``lite``, as ``datasets`` records it when the split
is loaded) or by an item id among its rows (a ``Dataset``'s ids are all read; an ``IterableDataset``'s rows, which
cannot be read ahead, as they are converted).
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Iterable

from ..errors import UsageError
from ..spec import SPLITS

_ITEM_ID = re.compile(r"[^/\s]+/[0-9a-f]{16}")
_ADVICE = ("a model trained on evaluation items is contaminated for that evaluation: train on "
           "jp.training_stream(your_photos, exclude=your_evaluation_set) (docs/training_stream.md)")


def item_id(row_id: Any) -> bool:
    """Whether ``row_id`` is a benchmark item's id (``<config>/<source id>``), not a training stream row's."""
    return isinstance(row_id, str) and _ITEM_ID.fullmatch(row_id) is not None


def evaluation_split(data: Any) -> str | None:
    """Why ``data`` (a ``Dataset``, ``DatasetDict``, ``IterableDataset`` or a row) holds evaluation items, or ``None``
    (an ``IterableDataset`` is judged by its split alone here: its rows by :func:`check_ids` as they come)."""
    import datasets

    if isinstance(data, (datasets.DatasetDict, datasets.IterableDatasetDict)):
        return next((f"its {name!r} split: {why}" for name, split in data.items()
                     if (why := evaluation_split(split)) is not None), None)
    if isinstance(data, dict):
        return f"the row {data.get('id')!r} is a benchmark item" if item_id(data.get("id")) else None
    split = getattr(data, "split", None)
    if split is not None and str(split) in SPLITS:
        return f"it is a {str(split)!r} split of the benchmark"
    if isinstance(data, datasets.Dataset) and "id" in data.column_names:
        found = next((i for i in data.select_columns(["id"])["id"] if item_id(i)), None)
        if found is not None:
            return f"its rows are benchmark items (id {found!r})"
    return None


def refuse_evaluation(data: Any, who: str, smoke_test: bool = False) -> None:
    """``UsageError`` when ``data`` holds evaluation items (:func:`evaluation_split`); with ``smoke_test`` a
    ``UserWarning`` instead."""
    why = evaluation_split(data)
    if why is not None:
        _say(who, why, smoke_test)


def check_ids(ids: Iterable[Any], who: str, smoke_test: bool = False) -> None:
    """:func:`refuse_evaluation` for rows as they come (an ``IterableDataset``'s, in its ``map``)."""
    found = next((i for i in ids if item_id(i)), None)
    if found is not None:
        _say(who, f"its rows are benchmark items (id {found!r})", smoke_test)


def _say(who: str, why: str, smoke_test: bool) -> None:
    if not smoke_test:
        raise UsageError(f"{who} was given an evaluation split ({why}); {_ADVICE}. For a smoke test only, "
                         "smoke_test=True goes on with a warning")
    warnings.warn(f"{who}: smoke_test=True: training data made of an evaluation split ({why}); {_ADVICE}",
                  UserWarning, stacklevel=4)
