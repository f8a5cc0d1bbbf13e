"""What the package keeps on disk, and freeing it: ``jigsaw-puzzles cache [prune | clear KIND ...]``.

Four kinds of entries, by default below ``$HF_DATASETS_CACHE/jigsaw_puzzles/`` (:mod:`.cachefiles`): *builds*
(datasets' Arrow files of each config built: one entry per config, source folder, seed and options, and version of
the generator's code), *clip* (CLIP embeddings of cells), *curation* (what each file's bytes decided) and *guard*
(the contamination guard's features and verdicts). The module that writes a kind declares it (:class:`Kind`): where
its entries are, the names of the files it writes, and whether the code running now reads an entry.

An entry is *stale* when nothing the running code does can read it again: its key holds generator code, a format,
library versions or guard code that no longer run (the cache finds entries by key, so it never serves a stale one;
it only takes space). ``prune`` deletes the stale entries not used for ``--older-than`` days (30 by default), and
says what it keeps; ``clear`` every entry of the kinds named. Both delete only files whose names this package (or
datasets, for builds) writes there, and folders left empty; any other file stays, and is reported.

Another installed version sharing the cache (two venvs, one ``HF_HOME``) has its own entries, which are stale to
this one: this version cannot tell them from an old version's. An entry's last use is the newest modification or
access time of its files (reading a file updates its access time at least once a day under Linux's default
``relatime``), so a version still in use keeps its entries from a prune run by another; ``--older-than 0`` deletes
every stale entry (on a mount with ``noatime``, only writes count as use).
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..errors import UsageError

ACTIONS = ("list", "prune", "clear")
DAY = 86400.0
DEFAULT_OLDER_THAN = 30.0  # days a stale entry must be unused before prune deletes it


@dataclass(frozen=True)
class Kind:
    """One kind of entry, as the module that writes it declares it."""

    name: str
    folder: Path | None  # where its entries are; None: nothing kept (JIGSAW_PUZZLES_CACHE=off)
    glob: str  # the entries below ``folder``, as ``Path.glob`` finds them
    entry: str  # the regular expression an entry's path relative to ``folder`` matches (posix)
    files: str  # the regular expression a file's path relative to its entry matches when this package writes it
    current: Callable[[Path], bool]  # whether the running code reads the entry
    beside: Callable[[Path], list] = field(default=lambda entry: [])  # files next to an entry that belong to it


@dataclass
class Entry:
    kind: str
    path: Path
    current: bool
    files: int = 0  # files this package writes there
    bytes: int = 0
    foreign: list = field(default_factory=list)  # other files there (never deleted)
    newest: float = 0.0  # the newest file's modification time
    used: float = 0.0  # the newest file's modification or access time: its last use by any version


def meta(entry: Path) -> dict:
    """The entry's ``meta.json`` (:func:`.cachefiles.record_key`), or ``{}``: an entry without one is stale to a
    kind that needs it."""
    try:
        data = json.loads((entry / "meta.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def inventory(kinds: Iterable[Kind]) -> list[Entry]:
    """Every entry of ``kinds``, in each kind's folder, with its files counted and whether it is current."""
    out = []
    for kind in kinds:
        if kind.folder is None or not kind.folder.is_dir():
            continue
        pattern, files = re.compile(kind.entry), re.compile(kind.files)
        for path in sorted(kind.folder.glob(kind.glob)):
            if not path.is_dir() or path.is_symlink() or not pattern.fullmatch(path.relative_to(kind.folder).as_posix()):
                continue
            entry = Entry(kind.name, path, bool(kind.current(path)))
            for file in _files(path):
                try:
                    stat = file.stat()
                except OSError:  # gone meanwhile (another process's temp file)
                    continue
                if files.fullmatch(file.relative_to(path).as_posix()):
                    entry.files += 1
                    entry.bytes += stat.st_size
                    entry.newest = max(entry.newest, stat.st_mtime)
                    read = stat.st_atime if file.name != "meta.json" else 0.0  # (this listing reads meta.json)
                    entry.used = max(entry.used, stat.st_mtime, read)
                else:
                    entry.foreign.append(file)
            out.append(entry)
    return out


def _files(folder: Path) -> list[Path]:
    out = []
    for parent, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(parent, d))]
        out.extend(Path(parent) / n for n in names)
    return out


def remove(entries: Iterable[Entry], kinds: Iterable[Kind]) -> tuple[int, int, list[Path]]:
    """Delete the entries' files this package writes (and the files beside them that belong to them), then the
    folders left empty, up to the kind's folder (itself too when empty): ``(files deleted, bytes, files left)``
    (the files left: another's, or one the system refused to delete)."""
    by_name = {k.name: k for k in kinds}
    deleted = size = 0
    left: list[Path] = []
    for entry in entries:
        kind = by_name[entry.kind]
        files = re.compile(kind.files)
        for file in _files(entry.path) + [p for p in kind.beside(entry.path) if p.is_file()]:
            inside = entry.path in file.parents
            if inside and not files.fullmatch(file.relative_to(entry.path).as_posix()):
                left.append(file)
                continue
            try:
                n = file.stat().st_size
                file.unlink()
            except FileNotFoundError:
                continue
            except OSError:  # not ours to delete after all (permissions, a read-only disk): left, and said
                left.append(file)
                continue
            deleted, size = deleted + 1, size + n
        for parent, dirs, _ in sorted(os.walk(entry.path), key=lambda t: -len(t[0])):
            _rmdir(Path(parent))
        for parent in entry.path.parents:
            if kind.folder not in parent.parents and parent != kind.folder:
                break
            _rmdir(parent)  # up to the kind's folder, when empty
    return deleted, size, left


def _rmdir(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # not empty (a file left, or one written meanwhile)
        pass


def human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


def run_cache(args, kinds: list[Kind]) -> int:
    """``jigsaw-puzzles cache``: list (or ``--json``), ``prune [--older-than DAYS]`` or ``clear KIND ...|--all``."""
    names = [k.name for k in kinds]
    chosen = list(dict.fromkeys(args.kinds or ()))
    unknown = [n for n in chosen if n not in names]
    if unknown and args.action != "list":
        raise UsageError(f"unknown cache kind {', '.join(unknown)}; choose from {', '.join(names)}")
    if unknown:  # `cache purge`: the word where the action goes
        raise UsageError(f"unknown cache action or kind {', '.join(unknown)}: the actions are {', '.join(ACTIONS)}, "
                         f"the kinds {', '.join(names)} (e.g. `jigsaw-puzzles cache prune guard`)")
    older = getattr(args, "older_than", None)
    if older is not None and args.action != "prune":
        raise UsageError("--older-than goes with prune (the stale entries it deletes)")
    older = DEFAULT_OLDER_THAN if older is None else older
    if isinstance(older, bool) or not isinstance(older, (int, float)) or not older >= 0 or older == float("inf"):
        raise UsageError(f"--older-than must be a number of days >= 0, got {older!r}")
    if args.action == "clear" and not chosen and not args.all:
        raise UsageError(f"name the kinds to clear ({', '.join(names)}) or pass --all")
    if args.all and chosen:
        raise UsageError("pass either kinds or --all, not both")
    selected = [k for k in kinds if not chosen or k.name in chosen]
    entries = inventory(selected)
    if args.action == "list":
        return _list(args, selected, entries)
    cutoff = time.time() - older * DAY
    doomed = [e for e in entries if args.action == "clear" or (not e.current and e.used < cutoff)]
    files, size, left = remove(doomed, selected)
    what = ("stale " if args.action == "prune" else "") + ("entry" if len(doomed) == 1 else "entries")
    print(f"{args.action}: {len(doomed)} {what} of {', '.join(k.name for k in selected)}; deleted {files:,} "
          f"file{'s' if files != 1 else ''}, {human(size)}")
    if args.action == "prune":
        current = [e for e in entries if e.current]
        recent = [e for e in entries if not e.current and e.used >= cutoff]
        print(f"kept {len(current)} current entr{'y' if len(current) == 1 else 'ies'} "
              f"({human(sum(e.bytes for e in current))}) and {len(recent)} stale entr"
              f"{'y' if len(recent) == 1 else 'ies'} used in the last {older:g} days "
              f"({human(sum(e.bytes for e in recent))}: another installed version sharing this cache may read "
              f"them; `--older-than 0` deletes them too)")
    if left:
        print(f"left {len(left)} file{'s' if len(left) != 1 else ''} (not written by this package, or that could "
              f"not be deleted) and their folders: {left[0]}" + (f" and {len(left) - 1} more" if len(left) > 1
                                                                   else ""))
    return 0


def _list(args, kinds: list[Kind], entries: list[Entry]) -> int:
    if args.json:
        print(json.dumps({"kinds": {k.name: None if k.folder is None else str(k.folder) for k in kinds},
                          "entries": [{"kind": e.kind, "path": str(e.path), "current": e.current, "files": e.files,
                                       "bytes": e.bytes, "foreign": [str(p) for p in e.foreign],
                                       "modified": e.newest, "used": e.used} for e in entries]}, indent=2))
        return 0
    print(f"{'kind':<9} {'entries':>7} {'stale':>6} {'files':>9} {'size':>9} {'stale size':>10}  folder")
    for kind in kinds:
        mine = [e for e in entries if e.kind == kind.name]
        stale = [e for e in mine if not e.current]
        folder = "off (JIGSAW_PUZZLES_CACHE)" if kind.folder is None else str(kind.folder)
        print(f"{kind.name:<9} {len(mine):>7} {len(stale):>6} {sum(e.files for e in mine):>9,} "
              f"{human(sum(e.bytes for e in mine)):>9} {human(sum(e.bytes for e in stale)):>10}  {folder}")
    stale = sum(e.bytes for e in entries if not e.current)
    foreign = sum(len(e.foreign) for e in entries)
    unused = sum(e.bytes for e in entries if not e.current and e.used < time.time() - DEFAULT_OLDER_THAN * DAY)
    print(f"stale: keyed by code, a format or libraries that do not run here (another installed version sharing "
          f"this cache may still read them); `jigsaw-puzzles cache prune` frees the {human(unused)} of them unused "
          f"for {DEFAULT_OLDER_THAN:g} days (of {human(stale)}), `jigsaw-puzzles cache clear KIND` frees a kind")
    if foreign:
        print(f"{foreign} file{'s' if foreign != 1 else ''} in these folders this package does not write (left by "
              "prune and clear)")
    return 0


def builds_kind(root: Path, code: str) -> Kind:
    """datasets' Arrow files of the configs built (``<config>-<key>/<version>/<code hash>/`` below ``root``, the
    builder's cache folder, with its two lock files beside): current when built by the generator code hashed as
    ``code`` (:func:`.builder.code_hash`, part of datasets' cache path: a build by other code is never found again)."""
    return Kind("builds", root, "*/*/*", r"[a-z0-9_]+-[0-9a-f]{16}/\d+\.\d+\.\d+/[0-9a-f]{16}",
                r"[^/]+\.arrow|dataset_info\.json|LICENSE", lambda entry: entry.name == code,
                lambda entry: [entry.parent / f"{entry.name}_builder.lock",
                               entry.parent / f"{entry.name}.incomplete_info.lock"])
