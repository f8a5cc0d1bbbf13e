"""``eval --restate`` and ``eval --judge MODEL``: after the first pass, each unread output asked about once more.

Both passes run in the session that ``eval`` runs, after every item has its first answer (under data parallel,
on rank 0 after the shards are merged), over the outputs the reader leaves unread (``status != "parsed"``) that the
way has not resolved yet for that very output: re-running the command resumes them, as it resumes the first pass
(an output whose resolution ended in an error is asked again; one resolved is never asked twice). A circular run's
rotations are not asked about (its figures are rotation 0's), nor is an empty output: it states nothing to restate
or read, and asking the model again would be asking for a first answer (it stays unread, counted ``not_asked``).

* ``--restate`` sends, on the run's own backend and decoding settings, the item's conversation (its images and
  question as first sent), the output as the assistant's turn, and :data:`~.resolve_prompts.RESTATE_PROMPT` as a
  new user turn; the reply is read by the strict reader alone. The item's images must be at hand: a config that
  this session did not build is named and left for a session that names it (``--configs``).
* ``--judge MODEL`` sends the judge (:mod:`.judge`) :func:`~.resolve_prompts.judge_prompt`: the output (its last
  16,384 characters, what the reader reads), the answer format and the options, no image.

Each reply is one line of ``resolutions.jsonl`` (:mod:`.resolutions`), with the output's sha256, the raw text,
the prompt and its version, the model and the token counts. No answer is ever filled in: a reply that cannot be
read leaves the output unread, with the reason.
"""
from __future__ import annotations

import sys
from typing import Callable, Mapping

from ..generation.circular import is_rotation
from ..generation.variants import Variant
from ..scoring.extraction import PARSED
from .backends import Request
from .data import read_rows
from .judge import JudgeSettings, make_judge
from .rederive import read_records, rederive
from .resolutions import current, output_digest, writer
from .resolve_prompts import (JUDGE_VERSION, RESTATE_VERSION, judge_prompt, read_judge_reply, read_restatement,
                              restate_prompt)
from .rundir import now

TAIL = 16_384  # the judge reads what the reader reads: the last characters of an output


def pending(path, entries: Mapping[str, Mapping], way: str, circular: bool = False) -> list[tuple]:
    """``(id, config, output, options)`` of every unread output (rotation 0) that ``way`` has not resolved."""
    records = read_records(path)
    rd = rederive(entries, records, circular)
    outputs = [records.answered[i].get("output") for i in rd.ids]
    options = [entries[i].get("options") for i in rd.ids]
    standing, _ = current(rd.ids, rd.configs, outputs, options, records.resolutions)
    mine = standing.get(way, {})
    return [(i, rd.configs[k], outputs[k], options[k]) for k, i in enumerate(rd.ids)
            if not is_rotation(i) and rd.items[k][0].status != PARSED and mine.get(i, ("error",))[0] == "error"
            and isinstance(outputs[k], str) and outputs[k].strip()]  # an empty output states nothing to restate


def _bar(total: int, desc: str, progress: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="output", disable=not progress, dynamic_ncols=True)


def _base(rid: str, config: str, output, way: str) -> dict:
    return {"id": rid, "config": config, "way": way, "output_sha256": output_digest(output), "time": now()}


def restate(path, entries: Mapping[str, Mapping], datasets_: Mapping, variant: Variant, model: str,
            backend: Callable, present: Callable, progress: bool = True) -> dict:
    """The restate pass over the run in ``path``; ``backend(pending)`` gives the run's backend (loaded when first
    needed, ``pending``: config -> dataset indices), ``present`` the request of an item as first sent. Returns
    what the session records of it."""
    todo = pending(path, entries, "restate", variant.circular)
    absent = sorted({c for _, c, _, _ in todo if c not in datasets_})
    if absent:
        print(f"[jigsaw-puzzles] --restate: {sum(c in absent for _, c, _, _ in todo)} unread outputs of "
              f"{', '.join(absent)} are left for a session that builds them (name them with --configs)",
              file=sys.stderr)
    todo = [t for t in todo if t[1] in datasets_]
    if not todo:
        return {"asked": 0, "left": len(absent)}
    index = {c: {item: k for k, item in enumerate(datasets_[c].select_columns(["id"])["id"])}
             for c in {t[1] for t in todo}}
    by_config: dict[str, list] = {}
    for t in todo:
        by_config.setdefault(t[1], []).append(t)
    engine = backend({c: [index[c][t[0]] for t in ts] for c, ts in by_config.items()})
    bar, read = _bar(len(todo), f"restate {model.rstrip('/').split('/')[-1]}", progress), 0
    with writer(path) as out:
        for config, items in by_config.items():
            rows = read_rows(datasets_[config], [index[config][t[0]] for t in items])
            asked = {}
            reqs = []
            for (rid, c, output, options), row in zip(items, rows):
                turn = restate_prompt(c)
                req = present(rid, c, row, variant)
                req.turns = (("assistant", output or ""), ("user", turn))
                asked[rid] = (output, options, turn)
                reqs.append(req)
            for g in engine.generate(reqs):
                output, options, turn = asked[g.id]
                rec = {**_base(g.id, config, output, "restate"), "model": model, "prompt": turn,
                       "prompt_version": RESTATE_VERSION, "restatement": g.text, "prompt_tokens": g.prompt_tokens,
                       "completion_tokens": g.completion_tokens,
                       "latency_s": None if g.latency_s is None else round(g.latency_s, 4)}
                if g.error:
                    rec.update(status="error", answer=None, reason="the request failed", error=g.error)
                else:
                    status, answer, reason = read_restatement(g.text, config, options)
                    rec.update(status=status, answer=answer, reason=reason)
                    read += status == "read"
                if g.finish:
                    rec["finish"] = g.finish
                out.write(rec)
                bar.update(1)
            out.sync()
    bar.close()
    return {"asked": len(todo), "read": read, "left": len(absent), "prompt_version": RESTATE_VERSION}


def judge(path, entries: Mapping[str, Mapping], settings: JudgeSettings, circular: bool = False,
          progress: bool = True) -> dict:
    """The judge pass over the run in ``path``; returns what the session records of it."""
    todo = pending(path, entries, "judge", circular)
    if not todo:
        return {"asked": 0, "judge": settings.record()}
    engine = make_judge(settings)
    asked, reqs, read = {}, [], 0
    for rid, config, output, options in todo:
        text = output if isinstance(output, str) else ""
        prompt = judge_prompt(text[-TAIL:], config, options)
        asked[rid] = (config, output, options, prompt)
        reqs.append(Request(rid, config, prompt, []))
    bar = _bar(len(todo), f"judge {settings.model.rstrip('/').split('/')[-1]}", progress)
    try:
        with writer(path) as out:
            for g in engine.ask(reqs):
                config, output, options, prompt = asked[g.id]
                rec = {**_base(g.id, config, output, "judge"), "judge": settings.model,
                       "judge_backend": settings.kind, "api_base": settings.endpoint(), "prompt": prompt,
                       "prompt_version": JUDGE_VERSION, "reply": g.text, "prompt_tokens": g.prompt_tokens,
                       "completion_tokens": g.completion_tokens,
                       "latency_s": None if g.latency_s is None else round(g.latency_s, 4)}
                if g.error:
                    rec.update(status="error", answer=None, span=None, reason="the judge gave no reply", error=g.error)
                else:
                    status, answer, span, reason = read_judge_reply(g.text, output, config, options)
                    rec.update(status=status, answer=answer, span=span, reason=reason)
                    read += status == "read"
                out.write(rec)  # flushed at once; synced to disk per 32 lines and at the end
                bar.update(1)
                if bar.n % 32 == 0:
                    out.sync()
        info = engine.info()
    finally:
        bar.close()
        engine.close()
    return {"asked": len(todo), "read": read, "prompt_version": JUDGE_VERSION, "judge": settings.record(),
            "judge_info": info}
