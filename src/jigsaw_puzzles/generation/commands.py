"""The ``show`` and ``curate`` commands' work (their parsers are in :mod:`jigsaw_puzzles.cli`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import ConfigUnavailable, UsageError


def run_show(args, clip_kwargs: dict) -> int:
    """Draw item ``--index`` of the one config selected (a config name, or one with ``--grid``/``--rotated``)
    into ``--out``: written beside it and renamed into place, so a failed write leaves no half-written PNG."""
    from .builder import load_dataset
    from .sheet import draw_item

    if len(args.configs) != 1:
        raise UsageError(f"show draws one config's item; {', '.join(args.configs)} were selected")
    config = args.configs[0]
    ds = load_dataset(config, split=args.split, source=args.source, seed=args.seed, **clip_kwargs)
    if not 0 <= args.index < len(ds):
        raise UsageError(f"--index {args.index} is out of range: {config}/{args.split} has {len(ds)} items")
    row = ds[args.index]
    out = Path(args.out)
    staging = out.with_name(f".{out.stem}.partial-{os.getpid()}{out.suffix or '.png'}")
    try:
        draw_item(row, str(staging), show_answer=not args.hide_answer)
        os.replace(staging, out)
    finally:
        staging.unlink(missing_ok=True)
    # --hide-answer: not on the sheet and not on stdout (a participant or a model may read either)
    print(f"{row['id']} -> {args.out}" + ("" if args.hide_answer else f"\nanswer: {row['answer']!r}"))
    return 0


def task_skips(source, configs: list[str] | None, seed: int, explicit: bool) -> dict:
    """Per config, the sources its task skips (``[{path, source_id, reason}]``), or why the config cannot be
    built here (a string); a config named explicitly that cannot be built is the error itself."""
    from .builder import CONFIGS, make_builder

    out = {}
    for config in configs or [c for c in CONFIGS if c != "missing_piece_selection_hard"]:
        try:
            out[config] = make_builder(config, source, seed, progress=True).plan()["task_skips"]  # a bar per config
        except ConfigUnavailable as err:
            if explicit:
                raise
            out[config] = err.reason
    return out


def run_curate(args) -> int:
    """Every file's curation verdict and reason; with ``--skips``, each config's task skips too."""
    from .curation import curate

    curation = curate(args.dir, progress=True)
    skips = task_skips(args.dir, args.configs, args.seed, args.configs is not None) if args.skips else None
    if args.json:
        print(json.dumps({**curation.to_dict(), **({"task_skips": skips} if args.skips else {})}, indent=2))
        return 0
    for record in curation.records:
        mark = "ok " if record.status == "accepted" else "REJ"
        print(f"{mark} {record.path}" + (f"  -- {record.reason}" if record.reason else ""))
    print(f"{len(curation.accepted)} accepted, {len(curation.rejected)} rejected "
          f"of {len(curation.records)} files in {curation.folder}")
    for config, skipped in (skips or {}).items():
        if isinstance(skipped, str):
            print(f"{config}: cannot be built here: {skipped}")
            continue
        print(f"{config}: {len(skipped)} task skip{'' if len(skipped) == 1 else 's'}")
        for skip in skipped:
            print(f"  SKIP {skip['path']}  -- {skip['reason']}")
    return 0
