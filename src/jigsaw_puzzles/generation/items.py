"""One item's row, as the builder writes it: the same function in one process, in ``datasets``' worker processes and
in a Ray worker (:mod:`jigsaw_puzzles.publishing.ray_build`), so every engine writes the same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Sequence

from ..geometry import encode_png
from ..rng import item_rng
from ..spec import GENERATOR_VERSION
from .tasks import Context, Task, TaskError


def item_row(task: Task, config: str, seed: int, source_id: str, path: str, slot: int, prepared: str, terms: str,
             load: Callable, pool_ids: Sequence[str]) -> dict:
    """The row of ``config``'s item of the photo ``source_id`` (at ``path``) with answer ``slot``: its images as PNG
    bytes, question, options, answer, metadata and the photo's terms. ``prepared`` and ``terms`` are JSON text (the
    task's prepared payload, ``""`` without one; the licence); ``load``: normalised images by source id."""
    image = load(source_id)
    rng = item_rng(seed, task.family, source_id)
    context = Context(source_id=source_id, pool_ids=pool_ids, load=load,
                      prepared=json.loads(prepared) if prepared else None)
    try:
        item = task.build(image, rng, slot, context)
    except TaskError as err:  # the plan built this item once already: a failure here is a bug
        raise RuntimeError(f"{config}: {source_id} ({Path(path).name}) passed the plan's probe but failed with slot "
                           f"{slot}: {err} (a task's failures must not depend on the slot; please report this)") \
            from err
    metadata = {"config": config, "seed": seed, "slot": slot, "generator_version": GENERATOR_VERSION,
                "source_size": list(image.size), **item.metadata,
                **(task.annotate(item) if task.annotate is not None else {})}
    key = f"{config}/{source_id}"
    return {
        "id": key,
        "source_id": source_id,
        "images": [{"bytes": encode_png(im), "path": None} for im in item.images],
        "question": item.question,
        "options": item.options,
        "answer": item.answer,
        "metadata": json.dumps(metadata, sort_keys=True),
        **{f"source_{k}": v for k, v in json.loads(terms).items()},
    }
