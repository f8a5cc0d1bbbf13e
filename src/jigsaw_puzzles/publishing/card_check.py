"""An export's card and report claims re-derived from the rebuild ``verify`` made: nothing they say is believed.

The card (``README.md``) is written by :func:`.card.render_card` from the items (counts, file sizes, chance), the
curation, the built-in baselines' results on the test items and the package's template; ``verify`` renders it again
from what it rebuilt (:func:`card_problems`) and names every line that is not that card's: a results figure, a
licence, a count, a config's row whose config is gone, each is a problem. The name the card gives the dataset (the
``repo`` of :func:`.export.build`: ``jigsaw-puzzles build`` leaves a placeholder) is the one thing taken from the
card itself. The report's ``fingerprint`` (the photos' contents, :func:`~..generation.sources.photos_fingerprint`)
is re-derived from the rebuilt curation (:func:`fingerprint_problems`).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from .._version import __version__
from ..generation.sources import accepted_ids, photos_fingerprint
from . import card as cardlib

CARD = "README.md"
REPO = re.compile(r"human --browse --dataset (.+?)` \|")
NAME = re.compile(r"^- config_name: (\S+)$", re.M)
SHOWN = 3  # differing lines named


def _line(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 100 else text[:97] + "...")


def card_problems(folder: Path, report: dict, configs: list[str], counts: dict, sizes: dict, tests: dict) -> list[str]:
    """The lines of ``folder``'s card that are not the card of this rebuild (``configs`` rebuilt, ``counts`` /
    ``sizes`` per config and split, ``tests``: each config's rebuilt test split). The configs are rendered in the
    card's order (the build's, which the report does not keep), then any the card does not name."""
    try:
        text = (folder / CARD).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return []  # a missing or unreadable card is named where the export is read (.audit)
    named = [c for c in dict.fromkeys(NAME.findall(text)) if c in configs]
    configs = named + [c for c in configs if c not in named]
    found = REPO.search(text)
    repo = found.group(1) if found else cardlib.DEFAULT_REPO
    assets = {c: f"{cardlib.ASSETS}/{c}.png" for c in configs if counts[c]["test"]}
    results = cardlib.baseline_results(tests)
    try:
        mine = cardlib.render_card(configs, counts, sizes, report, report["seed"], repo, assets, results)
    except (KeyError, TypeError, ValueError) as err:  # a report the card cannot be written from (named elsewhere)
        return [f"{CARD}: no card can be written from curation_report.json here ({type(err).__name__}: {err})"]
    if mine == text:
        return []
    theirs, ours = text.splitlines(), mine.splitlines()
    changed = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, theirs, ours, autojunk=False).get_opcodes():
        if tag != "equal":
            changed.append((i1 + 1, " / ".join(map(_line, theirs[i1:i2])) or "nothing",
                            " / ".join(map(_line, ours[j1:j2])) or "nothing"))
    by = report.get("version")
    other = f" (the export was written by jigsaw-puzzles {by}, this is {__version__}: its wording may differ)" \
        if by != __version__ else ""
    named = "; ".join(f"line {n} says {a}, the rebuild's card {b}" for n, a, b in changed[:SHOWN])
    more = f"; and {len(changed) - SHOWN} more" if len(changed) > SHOWN else ""
    return [f"{CARD} (the card) is not the card of the items rebuilt here{other}: {len(changed)} passage(s) differ: "
            f"{named}{more}"]


def fingerprint_problems(report: dict, curation: dict) -> list[str]:
    """The report's ``fingerprint`` against the photos the rebuild's curation accepted."""
    mine = photos_fingerprint(accepted_ids(curation))
    if report.get("fingerprint") == mine:
        return []
    return [f"curation_report.json: the fingerprint {report.get('fingerprint')!r} is not the accepted photos' "
            f"({mine}): a training stream over these photos would not be refused"]
