"""Source images: discovery, normalisation, automated curation, stable ids.

The paper's curation (Section 3.2, Appendix B "Rules Pool") is partly human
judgement; the rules that can be automated are here, each with a threshold in
:class:`CurationRules`.  Every file found is either accepted or rejected with a
reason: nothing is dropped silently and one bad file never stops a build.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import math
import os
import re
import stat
import threading
import warnings
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Iterable

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from .. import geometry
from ..errors import SourceFolderError, UserError
from . import neardup
from .imagestats import difference_hash, sharpness, structure  # noqa: F401  (part of this module's face)
from .remote import is_url, listing, read_url, resolve_url, url_fingerprint

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
GRID_MULTIPLE = 6  # least common multiple of the 2x2 and 3x3 grids
MAX_ASPECT = 8  # a source longer than this many times its width (or height) cannot be cut into cells
MAX_FILE_BYTES = 1 << 30  # a larger file is rejected before it is read (no photograph is 1 GiB)


@dataclass(frozen=True)
class CurationRules:
    """Thresholds of the automated curation rules (all documented in the README)."""

    min_side: int = 256  # shorter side of the file as stored, in pixels
    max_side: int = 768  # size cap: longer side after normalisation
    min_aspect: float = 0.5  # width / height
    max_aspect: float = 2.0
    max_pixels: int = 64_000_000  # decompression-bomb guard, checked before decoding
    min_sharpness: float = 20.0  # variance of the Laplacian of the grey image (blur)
    min_texture: float = 12.0  # grey-level std of the whole image (near-uniform)
    min_cell_texture: float = 4.0  # grey-level std of every 2x2 and 3x3 grid cell
    #: neighbour-pixel correlation of the grey image, the lower of across and down (:func:`structure`): i.i.d.
    #: noise, whose puzzles nobody can solve, scores 0 to 0.12; the embedded photos 0.80 or more
    min_structure: float = 0.3
    #: near duplicates: max Hamming distance of 64-bit pHashes, a photo's against its crops' (:mod:`.neardup`)
    near_duplicate_bits: int = neardup.DEFAULT_BITS

    def key(self) -> str:
        return ",".join(f"{k}={v}" for k, v in sorted(dataclasses.asdict(self).items()))


DEFAULT_RULES = CurationRules()


class SourceError(ValueError):
    """A source file that cannot be used; the message is the recorded reason."""


class SourceChanged(UserError):
    """A source file's bytes are no longer those it was curated with (it was overwritten during a build)."""


@dataclass(frozen=True)
class Source:
    source_id: str  # 16 hex chars of the SHA-256 of the file's bytes
    path: str  # absolute path
    relpath: str  # path relative to the source folder (for reports only)
    width: int
    height: int


@dataclass
class CurationRecord:
    path: str
    status: str  # "accepted" or "rejected"
    reason: str = ""
    source_id: str | None = None
    stats: dict = field(default_factory=dict)
    phash: list[str] | None = None  # the near-duplicate fingerprint (:func:`.neardup.to_hex`) of a decoded photo


@dataclass
class Curation:
    folder: str
    rules: CurationRules
    accepted: list[Source]
    records: list[CurationRecord]

    @property
    def rejected(self) -> list[CurationRecord]:
        return [r for r in self.records if r.status != "accepted"]

    def to_dict(self) -> dict:
        return {
            "folder": self.folder,
            "rules": dataclasses.asdict(self.rules),
            "accepted": len(self.accepted),
            "rejected": len(self.rejected),
            "records": [dataclasses.asdict(r) for r in self.records],
        }


def embedded_folder() -> Path:
    """The sample photographs shipped inside the package (see data/CREDITS.md)."""
    return Path(str(resources.files("jigsaw_puzzles") / "data" / "images"))


def resolve_folder(source: str | os.PathLike | None) -> Path | str:
    """The source folder, resolved; :class:`SourceFolderError` (a one-line user error) when it is missing, a
    file, unreachable or unreadable. A URL (``s3://bucket/photos``, :mod:`.remote`) stays a URL (a ``str``)."""
    if is_url(source):
        return resolve_url(source)
    folder = embedded_folder() if source is None else Path(source).expanduser()
    try:
        st = folder.stat()
    except FileNotFoundError:
        raise SourceFolderError(f"source folder not found: {folder} (give a folder of photographs)") from None
    except OSError as err:  # a parent folder that may not be entered, a symlink loop, ...
        raise SourceFolderError(f"cannot reach the source folder {folder}: {err.strerror or err} "
                                f"(check the permissions of it and of its parent folders)") from None
    if not stat.S_ISDIR(st.st_mode):
        raise SourceFolderError(f"the source must be a folder of photographs, not a file: {folder}")
    if not os.access(folder, os.R_OK | os.X_OK):
        raise SourceFolderError(f"source folder is not readable: {folder} (check its permissions)")
    return folder.resolve()


def display_path(path: str) -> str:
    """``path`` as printable text: a name that is not valid UTF-8 (``caf\\xe9.jpg``) keeps its bytes visible."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def walk(folder: Path) -> tuple[list[Path], list[tuple[str, str]]]:
    """Every file below ``folder`` (hidden ones excluded; symlinked folders followed once, loop-safe),
    sorted by relative path, and the folders left out with the reason: ``[(relative path, reason)]``."""
    files, skipped = [], []
    seen = {os.path.realpath(folder)}

    def unreadable(err: OSError):
        rel = display_path(Path(err.filename).relative_to(folder).as_posix()) if err.filename else "?"
        skipped.append((rel + "/", f"unreadable folder: {err.strerror or err}"))

    for root, dirs, names in os.walk(folder, onerror=unreadable, followlinks=True):
        keep = []
        for d in sorted(d for d in dirs if not d.startswith(".")):
            real = os.path.realpath(os.path.join(root, d))
            rel = display_path(Path(root, d).relative_to(folder).as_posix()) + "/"
            if real in seen:
                skipped.append((rel, "symlinked folder already walked (a loop or a second link to it)"))
            elif not os.access(real, os.R_OK | os.X_OK):
                skipped.append((rel, "unreadable folder: permission denied"))
            else:
                seen.add(real)
                keep.append(d)
        dirs[:] = keep
        files.extend(Path(root) / n for n in names if not n.startswith("."))
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix()), sorted(skipped)


def list_files(folder: Path) -> list[Path]:
    """Every file below ``folder`` (see :func:`walk`)."""
    return walk(folder)[0]


def source_files(folder: Path | str) -> tuple[list[Path] | list[str], list[tuple[str, str]]]:
    """:func:`walk` (of a URL: its files' URLs, :func:`.remote.listing`), or :class:`SourceFolderError` when
    nothing in ``folder`` can be read at all."""
    files, skipped = ([url for _, url, _ in listing(folder)], []) if is_url(folder) else walk(folder)
    if not files:
        why = (f"it has no readable files ({'; '.join(f'{rel} {reason}' for rel, reason in skipped)})" if skipped
               else "it is empty (hidden files are ignored)")
        raise SourceFolderError(
            f"source folder {folder}: {why}; the benchmark needs at least 1 usable source image (4 for Missing "
            f"Piece Selection): put JPEG, PNG or WebP photographs in it, or give another folder")
    return files, skipped


def _stat_key(path: Path) -> str:
    """Size, modification and change times of a file, or why it cannot be stat'ed (a broken symlink, a symlink
    loop). The change time (which no tool can set back) catches a file overwritten with its size and mtime kept."""
    try:
        st = path.stat()
    except OSError as err:
        return f"unreadable:{err.errno}"
    return f"{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}"


def folder_fingerprint(source: str | os.PathLike | None) -> str:
    """Cheap cache key of a folder: names, sizes, modification and change times of its files (of a URL: names,
    sizes and change stamps, :func:`.remote.url_fingerprint`)."""
    folder = resolve_folder(source)
    if is_url(folder):
        return url_fingerprint(folder)
    h = hashlib.sha256()
    files, skipped = source_files(folder)
    for path in files:  # fsencode: a name that is not valid UTF-8 is hashed by its bytes
        h.update(os.fsencode(path.relative_to(folder).as_posix()) + f"\0{_stat_key(path)}\n".encode())
    for rel, reason in skipped:
        h.update(f"skipped\0{rel}\0{reason}\n".encode())
    return h.hexdigest()[:16]


def photos_fingerprint(source_ids: Iterable[str]) -> str:
    """The photos a curation accepted, by content: the first 16 hex digits of the SHA-256 of their sorted source
    ids. What an export records as its ``fingerprint`` (what a training stream over the same photos is refused
    with): unlike :func:`folder_fingerprint` (a cache key of names, sizes and times) it is the same for every copy
    of the folder on every machine, so ``verify`` re-derives it."""
    return hashlib.sha256("".join(f"{i}\n" for i in sorted(set(source_ids))).encode()).hexdigest()[:16]


def accepted_ids(curation: "Curation | dict") -> list[str]:
    """The source ids a :class:`Curation` (or its record in a curation report) accepted."""
    if isinstance(curation, Curation):
        return [s.source_id for s in curation.accepted]
    return [r["source_id"] for r in curation.get("records") or []
            if isinstance(r, dict) and r.get("status") == "accepted" and isinstance(r.get("source_id"), str)]


def content_id(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _too_many_pixels(pixels: int | None, rules: CurationRules, size: str = "") -> str:
    """The one reason for an oversized image, whether our rule or Pillow's (larger) bomb limit caught it."""
    count = f"{pixels} pixels" if pixels is not None else "more pixels than Pillow opens"
    return f"decompression bomb guard: {count}{size} > max_pixels {rules.max_pixels}, checked before decoding"


def _decode(data: bytes, rules: CurationRules) -> tuple[Image.Image, tuple[int, int]]:
    """Decode with every failure turned into a :class:`SourceError` reason.

    Returns the image and its stored size.  A JPEG far larger than the size cap is
    decoded with libjpeg's DCT scaling (``Image.draft``) to no less than twice the
    capped size, then resampled as usual: about 5x faster on camera-sized photos,
    within half a grey level of a full decode, and just as deterministic.
    """
    if not data:
        raise SourceError("empty file")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # corrupt EXIF/TIFF tags: the verdict is the decode's
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our rule below says it, in our words
            image = Image.open(io.BytesIO(data))
            size = width, height = image.size
            if width * height > rules.max_pixels:
                raise SourceError(_too_many_pixels(width * height, rules, f" ({width}x{height})"))
            scale = 2 * rules.max_side / max(width, height)
            if image.format == "JPEG" and scale < 1:
                image.draft(None, (math.ceil(width * scale), math.ceil(height * scale)))
            image.load()
    except SourceError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:  # past Pillow's own limit
        found = re.search(r"(\d+) pixels", str(err))  # "Image size (N pixels) exceeds limit of ..."
        raise SourceError(_too_many_pixels(int(found.group(1)) if found else None, rules)) from None
    except UnidentifiedImageError:
        raise SourceError("not an image (unidentified format)") from None
    except (OSError, SyntaxError, ValueError) as err:  # truncated / corrupt streams
        raise SourceError(f"corrupt or truncated image: {err}") from None
    except Exception as err:  # an untrusted file may trip any decoder path: a reason, never a crash
        raise SourceError(f"undecodable image ({type(err).__name__}: {err})") from None
    return image, size


def _to_rgb8(image: Image.Image) -> Image.Image:
    """RGB, 8 bits per channel; transparency composited on white."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(image, dtype=np.float64)
        peak = 65535.0 if image.mode.startswith("I;16") or arr.max() > 255 else 255.0
        image = Image.fromarray(np.clip(arr / peak * 255.0 + 0.5, 0, 255).astype(np.uint8), "L")
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, geometry.WHITE + (255,))
        image = Image.alpha_composite(background, rgba)
    return image.convert("RGB")


def normalise(image: Image.Image, rules: CurationRules = DEFAULT_RULES) -> Image.Image:
    """EXIF orientation, RGB 8-bit, long side capped, centre-cropped to a multiple of 6."""
    image = _to_rgb8(ImageOps.exif_transpose(image))
    width, height = image.size
    scale = rules.max_side / max(width, height)
    if scale < 1:
        width, height = max(1, round(width * scale)), max(1, round(height * scale))
        image = geometry.resize(image, (width, height), Image.Resampling.LANCZOS)  # the same on every Pillow
    new_w, new_h = width - width % GRID_MULTIPLE, height - height % GRID_MULTIPLE
    if (new_w, new_h) != (width, height):
        left, top = (width - new_w) // 2, (height - new_h) // 2
        image = image.crop((left, top, left + new_w, top + new_h))
    return image


_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def read_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of a regular file, or :class:`SourceError`: a pipe, device or socket is never opened for a
    blocking read (it could hang the build or never end), nor is a file over :data:`MAX_FILE_BYTES` read. A URL
    is read with fsspec (:func:`.remote.read_url`)."""
    if is_url(path):
        try:
            return read_url(path, MAX_FILE_BYTES)
        except ValueError as err:
            raise SourceError(str(err)) from None
        except OSError as err:
            raise SourceError(f"unreadable file: {err.strerror or err}") from None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as err:
        raise SourceError(f"unreadable file: {err.strerror or err}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
            raise SourceError(f"not a regular file: {kind}")
        if st.st_size > MAX_FILE_BYTES:
            raise SourceError(f"file too large: {st.st_size} bytes > {MAX_FILE_BYTES} (no photograph is that big)")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:  # grew while being read
            raise SourceError(f"file too large: over {MAX_FILE_BYTES} bytes (no photograph is that big)")
        return data
    except OSError as err:
        raise SourceError(f"unreadable file: {err.strerror or err}") from None
    finally:
        os.close(fd)


def read_source(path: str | os.PathLike, rules: CurationRules = DEFAULT_RULES) -> tuple[str, Image.Image]:
    """``(source_id, normalised image)`` or :class:`SourceError` with the reason. The image joins the per-process
    cache of :func:`load_normalised` (curation reads every source first, the plan and the items again)."""
    data = read_bytes(path)
    source_id = content_id(data)
    return source_id, _load_normalised(source_id, data, rules)


def _normalised(data: bytes, rules: CurationRules) -> Image.Image:
    """The normalised image of a file's bytes, or :class:`SourceError`."""
    image, (width, height) = _decode(data, rules)
    if min(width, height) < rules.min_side:
        raise SourceError(f"too small: {width}x{height}, shorter side < min_side {rules.min_side}")
    if max(width, height) > MAX_ASPECT * min(width, height):
        raise SourceError(f"extreme aspect ratio {width}x{height} (longer side > {MAX_ASPECT}x the shorter)")
    try:
        with warnings.catch_warnings():  # a corrupt EXIF block warns; the image itself may still be fine
            warnings.simplefilter("ignore", UserWarning)
            image = normalise(image, rules)
    except (OSError, ValueError) as err:
        raise SourceError(f"cannot convert to RGB: {err}") from None
    except Exception as err:  # a corrupt file that decoded lazily fails here
        raise SourceError(f"undecodable image ({type(err).__name__}: {err})") from None
    if min(image.size) < GRID_MULTIPLE:
        raise SourceError(f"nothing left after normalisation: {image.size[0]}x{image.size[1]}")
    aspect = image.width / image.height
    if not rules.min_aspect <= aspect <= rules.max_aspect:
        raise SourceError(
            f"aspect ratio {aspect:.2f} outside [{rules.min_aspect}, {rules.max_aspect}]")
    return image


def load_normalised(path: str, rules: CurationRules = DEFAULT_RULES, source_id: str | None = None) -> Image.Image:
    """The normalised image of the file at ``path`` as it is *now*: the bytes are read and hashed on every
    call and the decoded image is cached per process by content (tasks that draw distractors reopen the same
    sources), so an overwritten file is never served stale. With ``source_id`` (the id curation gave the
    file), bytes that no longer hash to it raise :class:`SourceChanged`: pixels never go out under another
    picture's id."""
    data = read_bytes(path)
    actual = content_id(data)
    if source_id is not None and actual != source_id:
        raise SourceChanged(f"{display_path(str(path))} changed during the build (curated as {source_id}, now "
                            f"{actual}); run the same command again")
    return _load_normalised(actual, data, rules)


def _load_normalised(source_id: str, data: bytes, rules: CurationRules) -> Image.Image:
    key = (source_id, rules)
    with _CACHE_LOCK:  # threads of one process share the cache (the guard checks photos in threads)
        image = _CACHE.pop(key, None)
    if image is None:
        image = _normalised(data, rules)
    with _CACHE_LOCK:
        _CACHE[key] = image  # most recent last
        while len(_CACHE) > _CACHE_SIZE:
            del _CACHE[next(iter(_CACHE))]
    return image


_CACHE: dict[tuple[str, CurationRules], Image.Image] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 64
load_normalised.cache_clear = _CACHE.clear  # type: ignore[attr-defined]  (benchmarks start cold)


def quality_checks(image: Image.Image, rules: CurationRules) -> dict:
    """Blur and texture statistics; raises :class:`SourceError` when a rule fails."""
    grey = np.asarray(image.convert("L"), dtype=np.float32)
    stats = {"width": image.width, "height": image.height,
             "sharpness": round(sharpness(grey), 2), "texture": round(float(grey.std()), 2)}
    if stats["texture"] < rules.min_texture:
        raise SourceError(f"near-uniform image: grey std {stats['texture']} < {rules.min_texture}")
    if stats["sharpness"] < rules.min_sharpness:
        raise SourceError(f"blurry: Laplacian variance {stats['sharpness']} < {rules.min_sharpness}")
    stats["structure"] = round(structure(grey.astype(np.float64)), 3)
    if stats["structure"] < rules.min_structure:
        raise SourceError(f"no structure (noise): neighbour-pixel correlation {stats['structure']} < "
                          f"{rules.min_structure}; nobody can solve puzzles cut from it")
    for n in (2, 3):  # geometry.texture of each cell, read from the grey image (the same grey levels and floats)
        for i, (left, top, right, bottom) in enumerate(geometry.grid_boxes(image.size, n, n)):
            std = float(np.ascontiguousarray(grey[top:bottom, left:right]).std())
            if std < rules.min_cell_texture:
                raise SourceError(
                    f"near-uniform cell {i} of the {n}x{n} grid: grey std {std:.2f} < {rules.min_cell_texture}")
    return stats
