"""The versions of the libraries that shape items, recorded beside every run (and compared by ``verify``).

Items are byte-reproducible for one generator version *on one set of these libraries*: Pillow's resampling and
codecs, the libjpeg that decodes the photos, the zlib that compresses the PNGs, numpy's arithmetic, and for the
hard configs torch and open_clip (the CLIP embeddings that pick the distractors). A run records them when its items
are made, so that a difference later (another machine, an upgrade) is said rather than found as differing items.
Versions are read without importing torch (``importlib.metadata``): recording them costs nothing.
"""
from __future__ import annotations

from importlib import metadata
from typing import Iterable, Mapping

#: what a hard config's items additionally depend on (CLIP embeddings), by distribution name
CLIP_DISTRIBUTIONS = ("torch", "open_clip_torch")


def _distribution(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def uses_clip(config: str) -> bool:
    """Whether ``config``'s items depend on CLIP embeddings (its task takes a ``clip_model`` option)."""
    from .tasks import TASKS

    task = TASKS.get(config)
    return task is not None and "clip_model" in (task.options or {})


def item_versions(configs: Iterable[str] = ()) -> dict[str, str | None]:
    """``{"Pillow", "libjpeg", "zlib", "numpy"}`` (and ``torch``, ``open_clip_torch`` when one of ``configs`` uses
    CLIP) as this machine has them; None for one that is absent."""
    import numpy
    import PIL
    from PIL import features

    jpeg = features.version("jpg")
    if jpeg and features.check_feature("libjpeg_turbo"):
        jpeg = f"{jpeg} (libjpeg-turbo {features.version_feature('libjpeg_turbo')})"
    out: dict[str, str | None] = {"Pillow": PIL.__version__, "libjpeg": jpeg, "zlib": features.version("zlib"),
                                  "numpy": numpy.__version__}
    if any(uses_clip(c) for c in configs):
        out.update({name: _distribution(name) for name in CLIP_DISTRIBUTIONS})
    return out


def version_differences(recorded: Mapping | None, here: Mapping) -> list[str]:
    """One phrase per library whose recorded version is not this machine's (``"Pillow 12.3.0 there, 13.0.0
    here"``); a library the record does not name is not compared."""
    if not isinstance(recorded, Mapping):
        return []
    return [f"{name} {recorded[name]} there, {here.get(name)} here" for name in recorded
            if name in here and recorded[name] != here.get(name)]
