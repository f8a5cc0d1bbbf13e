"""Photo folders named by an fsspec URL (``s3://bucket/photos``, ``gs://...``, ``hf://datasets/...``, ``file:///...``).

A source folder may be a URL wherever a path is taken (``build --source``, ``jp.curate``, ``jp.training_stream``):
it is listed with fsspec (the filesystem library ``datasets`` and Ray Data read object stores with), every file
below it in the order of its relative path, hidden ones (a name starting with ``.`` anywhere on the way) left out
as in a local folder; each photo is read whole with ``cat_file`` (at most :data:`~.sources.MAX_FILE_BYTES`). A photo
keeps its URL as its path, so a worker of a cluster reads it where the driver listed it. The protocol's own
package must be installed (``s3fs`` for ``s3://``, ``gcsfs`` for ``gs://``; ``hf://`` and ``file://`` come with
``huggingface_hub`` and fsspec) and its credentials set where the build runs (for a cluster: in every worker's
environment). What a URL cannot give is one line (:class:`~..errors.SourceFolderError`), never a traceback.
"""

from __future__ import annotations

import hashlib
import re

from ..errors import SourceFolderError

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
#: the fields of a listing entry that change when the object is replaced, the first one a filesystem gives
_STAMPS = ("mtime", "LastModified", "last_modified", "updated", "ETag", "etag", "md5Hash", "blob_id", "oid")


def is_url(source) -> bool:
    """Whether ``source`` names a folder by URL (``scheme://...``) rather than a local path."""
    return isinstance(source, str) and _URL.match(source) is not None


def filesystem(url: str):
    """``(fsspec filesystem, path in it)`` of ``url``, or :class:`SourceFolderError` (an unknown protocol, a
    package missing for it)."""
    try:
        import fsspec
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as err:
        raise SourceFolderError(f"cannot open {url}: {err} (the URL's protocol needs its fsspec package: s3fs for "
                                f"s3://, gcsfs for gs://)") from None


def resolve_url(url: str) -> str:
    """``url`` as the one spelling a folder gets (``protocol://path``, no trailing ``/``), or
    :class:`SourceFolderError` when it is not a folder that can be listed."""
    fs, path = filesystem(url)
    try:
        if not fs.isdir(path):
            raise SourceFolderError(f"source folder not found: {url} (give a folder of photographs)")
    except SourceFolderError:
        raise
    except Exception as err:  # no credentials, no network, a bucket that refuses: the filesystem's own words
        raise SourceFolderError(f"cannot reach the source folder {url}: {type(err).__name__}: {err}") from None
    return fs.unstrip_protocol(path.rstrip("/"))


def listing(url: str) -> list[tuple[str, str, dict]]:
    """``[(relative path, URL, listing entry)]`` of every file below the folder ``url`` (already resolved), sorted by
    relative path, hidden files left out."""
    fs, root = filesystem(url)
    root = root.rstrip("/")
    try:
        found = fs.find(root, detail=True, withdirs=False)
    except Exception as err:
        raise SourceFolderError(f"cannot list the source folder {url}: {type(err).__name__}: {err}") from None
    out = []
    for path, info in found.items():
        rel = path[len(root):].lstrip("/")
        if rel and not any(part.startswith(".") for part in rel.split("/")):
            out.append((rel, fs.unstrip_protocol(path), info))
    return sorted(out, key=lambda entry: entry[0])


def url_fingerprint(url: str) -> str:
    """The cache key of a folder by URL: names, sizes and the first change stamp its filesystem lists
    (modification time, ETag, generation)."""
    h = hashlib.sha256(b"url\0")
    for rel, _, info in listing(url):
        stamp = next((str(info[k]) for k in _STAMPS if info.get(k) is not None), "")
        h.update(rel.encode("utf-8", "surrogateescape") + f"\0{info.get('size')}\0{stamp}\n".encode())
    return h.hexdigest()[:16]


def read_url(url: str, limit: int) -> bytes:
    """The bytes of the object at ``url``; ``OSError`` when it cannot be read, ``ValueError`` when it holds more
    than ``limit`` bytes."""
    fs, path = filesystem(url)
    try:
        size = fs.size(path)
    except FileNotFoundError:
        raise
    except Exception as err:
        raise OSError(f"{type(err).__name__}: {err}") from None
    if size is not None and size > limit:
        raise ValueError(f"file too large: {size} bytes > {limit} (no photograph is that big)")
    try:
        data = fs.cat_file(path)
    except Exception as err:
        raise OSError(f"{type(err).__name__}: {err}") from None
    if len(data) > limit:
        raise ValueError(f"file too large: over {limit} bytes (no photograph is that big)")
    return data


def read_text(url: str) -> str | None:
    """The text of a small file at ``url`` (a folder's ``CREDITS.csv``), or ``None`` when there is none."""
    fs, path = filesystem(url)
    try:
        return fs.cat_file(path).decode("utf-8") if fs.isfile(path) else None
    except FileNotFoundError:
        return None
