"""Input and prompt variants of an evaluation (``eval --prompt-style/--input-format/--blind``), one place.

A :class:`Variant` turns an item (its ``question`` and ``images``) into what a model is sent; the item, its
answer and the metric never change, so every variant is scored exactly like the paper's setting.

* ``prompt_style="paper"``: the Appendix-B templates verbatim (the default). ``"cot"``: the same question with
  its "answer only, no explanation" clauses removed and a closing instruction to reason step by step, then end
  with ``Final answer:`` and the answer in the format the question asks for (VisReason and SRBench compare the
  two). The extraction takes the last marked answer, so the reasoning before it is not read as the answer.
* ``input_format="pieces"``: the images as separate inputs, in the question's numbering (the paper).
  ``"composite"``: the images of a multi-image item drawn on one sheet, each panel labelled ``Image k``, and the
  question prefixed with one sentence saying that ``<image k>`` is the panel labelled ``Image k`` (11Plus-Bench
  compares composite and separate inputs; many models take one image only). Single-image items are unchanged.
* ``blind=True``: the question without any image (a language-prior baseline): a model above chance blind has
  found a leak in the items' text.
* ``circular=True`` (``eval --circular``): every multiple-choice item is also asked with its options rotated
  (:mod:`jigsaw_puzzles.generation.circular`); rotation 0 is the item itself, scored as in a plain run, and the run adds a
  ``circular`` figure per multiple-choice config. Unlike the others it adds items, so it is part of the run's
  identity like them: a plain run and a circular run never mix.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from ..errors import UsageError

PROMPT_STYLES = ("paper", "cot")
INPUT_FORMATS = ("pieces", "composite")

#: The "answer only" clauses of the Appendix-B templates and what the chain-of-thought style puts instead.
_ANSWER_ONLY = [
    (re.compile(r",? without (?:providing )?any (?:additional )?explanation(?: or (?:analysis|description))?\."), "."),
    (re.compile(r"(?:Please )?Do not (?:add|provide) any explanations?(?: or (?:extra text|description))?\.\n?",
                re.IGNORECASE), ""),
    (re.compile(r" and no additional text\."), "."),
    (re.compile(r"\b(respond|output|Answer) only\b"), r"\1"),
    (re.compile(r"\brespond with only\b"), "respond with"),
]
COT_INSTRUCTION = ("\nThink step by step first: look at the content and the borders of the images and reason "
                   "about how they fit together. Then end your response with a line \"Final answer:\" followed by "
                   "the answer in exactly the format requested above.")
COMPOSITE_NOTE = ("The input is a single image showing {n} labelled panels, \"Image 1\" to \"Image {n}\"; "
                  "<image k> below is the panel labelled \"Image k\".\n")


def cot_question(question: str) -> str:
    """The chain-of-thought form of a paper question (see the module docstring)."""
    for pattern, repl in _ANSWER_ONLY:
        question = pattern.sub(repl, question)
    return question.rstrip() + "\n" + COT_INSTRUCTION.lstrip("\n")


def composite(images, label_height: int = 28, margin: int = 16, per_row: int = 3):
    """``(sheet, boxes)``: the images on one white sheet, row-major, ``per_row`` to a row, each under a label
    ``Image k``; ``boxes[k]`` is where image ``k + 1`` lies (left, top, right, bottom), pixel for pixel."""
    from PIL import Image, ImageDraw, ImageFont

    images = list(images)
    rows = [images[i:i + per_row] for i in range(0, len(images), per_row)]
    width = max(sum(im.width for im in row) + margin * (len(row) + 1) for row in rows)
    height = sum(max(im.height for im in row) + label_height + margin for row in rows) + margin
    sheet = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(sheet)
    try:
        font = ImageFont.load_default(size=max(12, label_height - 8))
    except (TypeError, OSError):  # Pillow without FreeType: the bitmap font
        font = ImageFont.load_default()
    boxes, y, k = [], margin, 0
    for row in rows:
        x = margin
        for im in row:
            k += 1
            draw.text((x, y), f"Image {k}", fill="black", font=font)
            sheet.paste(im.convert("RGB"), (x, y + label_height))
            boxes.append((x, y + label_height, x + im.width, y + label_height + im.height))
            x += im.width + margin
        y += max(im.height for im in row) + label_height + margin
    return sheet, boxes


@dataclass(frozen=True)
class Variant:
    """How items are presented to a model. The default is the paper's setting."""

    prompt_style: str = "paper"
    input_format: str = "pieces"
    blind: bool = False
    circular: bool = False

    def __post_init__(self):
        if self.prompt_style not in PROMPT_STYLES:
            raise UsageError(f"unknown prompt style {self.prompt_style!r}; choose from {', '.join(PROMPT_STYLES)}")
        if self.input_format not in INPUT_FORMATS:
            raise UsageError(f"unknown input format {self.input_format!r}; choose from {', '.join(INPUT_FORMATS)}")
        if self.blind and self.input_format != "pieces":
            raise UsageError("--blind sends no image: it cannot be combined with --input-format composite")
        object.__setattr__(self, "blind", bool(self.blind))
        object.__setattr__(self, "circular", bool(self.circular))

    @property
    def is_default(self) -> bool:
        return self == Variant()

    @property
    def labels(self) -> list[str]:
        """What differs from the paper's setting, e.g. ``["cot", "blind"]``."""
        return [v for v, on in ((self.prompt_style, self.prompt_style != "paper"),
                                (self.input_format, self.input_format != "pieces"), ("blind", self.blind),
                                ("circular", self.circular)) if on]

    @property
    def tag(self) -> str:
        """`` [cot, composite]`` for a report row name ("" for the paper's setting)."""
        return f" [{', '.join(self.labels)}]" if self.labels else ""

    def to_dict(self) -> dict:
        d = asdict(self)
        if not self.circular:  # as run.json recorded variants before circular existed: they still resume
            del d["circular"]
        return d

    @classmethod
    def from_dict(cls, d) -> "Variant":
        d = d if isinstance(d, dict) else {}
        return cls(**{k: d[k] for k in ("prompt_style", "input_format", "blind", "circular") if k in d})

    def images_sent(self, count: int) -> int:
        """How many images :meth:`apply` sends for an item of ``count`` images."""
        if self.blind:
            return 0
        return 1 if self.input_format == "composite" and count > 1 else count

    def apply(self, question: str, images) -> tuple[str, list, list | None]:
        """``(question, images, boxes)`` to send: ``boxes`` locate each original image on a composite sheet."""
        images, boxes = list(images), None
        if self.prompt_style == "cot":
            question = cot_question(question)
        if self.blind:
            return question, [], None
        if self.input_format == "composite" and len(images) > 1:
            sheet, boxes = composite(images)
            question = COMPOSITE_NOTE.format(n=len(images)) + question
            images = [sheet]
        return question, images, boxes
