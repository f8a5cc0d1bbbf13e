"""The library versions that shape items: an export and a run record them, ``verify`` names a difference.

Items are pure functions of (photo, seed, config), computed by these libraries: Pillow (resampling, the PNG
encoder), the JPEG decoder and the deflate library Pillow was built with, numpy (the RNG and the pixel rule);
for the hard configs torch, torchvision and open_clip (the CLIP embeddings that choose the distractors). The
package makes its items identical across the versions it allows (docs/tasks.md#determinism); a recorded
difference says where to look first when an item is not.
"""

from __future__ import annotations

from importlib import metadata

#: distributions whose versions shape the hard configs' distractors only
CLIP_DISTRIBUTIONS = {"torch": "torch", "torchvision": "torchvision", "open_clip": "open_clip_torch"}


def _distribution(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def item_versions() -> dict[str, str]:
    """``{library: version}`` of everything that shapes items here (no import of torch or open_clip)."""
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
    versions.update({key: _distribution(dist) for key, dist in CLIP_DISTRIBUTIONS.items()})
    return versions
