"""The library versions that shape items: an export and a run record them, ``verify`` and the report name a difference.

Items are pure functions of (photo, seed, config), computed by these libraries: Pillow (resampling, the PNG
encoder), the JPEG decoder and the deflate library Pillow was built with, numpy (the RNG and the pixel rule);
for the hard configs torch, torchvision and open_clip (the CLIP embeddings that choose the distractors). The
package makes its items identical across the versions it allows (docs/tasks.md#determinism); a recorded
difference says where to look first when an item is not. Versions are read without importing torch
(``importlib.metadata``): recording them costs nothing.
"""

from __future__ import annotations

from importlib import metadata
from typing import Iterable, Mapping, Optional

#: distributions whose versions shape the hard configs' distractors only
CLIP_DISTRIBUTIONS = {"torch": "torch", "torchvision": "torchvision", "open_clip": "open_clip_torch"}


def _distribution(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def uses_clip(config: str) -> bool:
    """Whether ``config``'s items depend on CLIP embeddings (its task takes a ``clip_model`` option)."""
    from .tasks import TASKS

    task = TASKS.get(config)
    return task is not None and "clip_model" in (task.options or {})


def item_versions(configs: Optional[Iterable[str]] = None) -> dict[str, str]:
    """``{library: version}`` of everything that shapes items here: Pillow, libjpeg, zlib, numpy, and torch,
    torchvision, open_clip when ``configs`` is ``None`` (everything: an export records them all) or one of
    ``configs`` uses CLIP (a run records its configs')."""
    import numpy
    import PIL
    from PIL import features

    def built_with(feature: str) -> str | None:
        known = feature in features.features or feature in features.codecs  # older Pillows lack zlib_ng
        return features.version(feature) if known and features.check(feature) else None

    turbo, ng = built_with("libjpeg_turbo"), built_with("zlib_ng")
    versions = {
        "pillow": PIL.__version__,
        "libjpeg": f"libjpeg-turbo {turbo}" if turbo else f"libjpeg {built_with('jpg') or 'not built in'}",
        "zlib": f"zlib-ng {ng}" if ng else f"zlib {built_with('zlib') or 'not built in'}",
        "numpy": numpy.__version__,
    }
    if configs is None or any(uses_clip(c) for c in configs):
        versions.update({key: _distribution(dist) for key, dist in CLIP_DISTRIBUTIONS.items()})
    return versions


def version_differences(recorded: Mapping | None, here: Mapping) -> list[str]:
    """One phrase per library whose recorded version is not this machine's (``"pillow 12.3.0 there, 13.0.0
    here"``); a library the record does not name is not compared."""
    if not isinstance(recorded, Mapping):
        return []
    return [f"{name} {recorded[name]} there, {here.get(name)} here" for name in recorded
            if name in here and recorded[name] != here.get(name)]
