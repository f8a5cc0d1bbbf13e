"""``jigsaw-puzzles adjudicate RUN_DIR``: a person decides what each unread output of a run answers.

The run's unread outputs (the reader gives them no answer; rotation 0 of a circular run) are shown one at a time,
each beside its item as the model received it (the question and the images as sent, rebuilt from ``run.json``:
split, seed, source, each config's options and answer plan; the fingerprint checked against the run's) and the
options; the person picks the one answer the output gives, or "no answer given". Each decision is one line of the
run's ``resolutions.jsonl`` (``way: "person"``, the person's name, the time, the sha256 of the output it was made
for: :mod:`jigsaw_puzzles.inference.resolutions`), written and flushed at once, and ``results.json`` is rewritten
with it (unless an ``eval`` holds the run; it rewrites it when it ends). A person sees only the outputs they have
not decided: entering the same name later resumes; another name decides them all again (their agreement is counted,
a disagreement leaves the output undecided, "disputed"). Nothing here imports Gradio (:mod:`.adjudicate_app`).
"""
from __future__ import annotations

import threading
from pathlib import Path

from ..errors import UsageError, UserError
from ..generation.circular import is_rotation
from ..generation.plan import DEFAULT_ANSWER_PLAN
from ..generation.variants import Variant
from ..inference.data import build_dataset, dataset_fingerprint
from ..inference.manifest import read_manifest, recorded
from ..inference.rederive import read_records, rederive
from ..inference.resolutions import current, output_digest, writer
from ..inference.rundir import RunDir, RunLocked, now
from ..scoring.extraction import PARSED
from ..spec import CHOICE, get as get_spec, is_answer
from .session import answer_text

NO_ANSWER = "no answer given"


def check_name(name) -> str:
    """A person's name as recorded: 1-64 printable characters on one line, stripped."""
    text = " ".join(str(name or "").split())
    if not text or len(text) > 64 or not text.isprintable():
        raise UserError("enter your name (1-64 characters on one line): it is recorded with every decision")
    return text


class Adjudication:
    """The unread outputs of the run in ``path`` and their items; :meth:`record` writes a person's decision."""

    def __init__(self, path, source=None, clip_cache_dir=None, data=None, progress: bool = True):
        self.rundir = RunDir(path)
        self.run = self.rundir.read_run()
        if self.run is None:
            raise UsageError(f"{path} has no run.json: give a run directory `jigsaw-puzzles eval --out` wrote")
        self.manifest = read_manifest(self.rundir.path, self.run)
        self.variant = Variant.from_dict(self.run.get("variant"))
        self._lock = threading.Lock()
        self.unread = self._unread()
        self.rows = self._rows({c for c, _ in self.unread.values()}, source, clip_cache_dir, data, progress)

    def _unread(self) -> dict[str, tuple[str, str]]:
        """item -> (config, output) of every unread output, in the manifest's order."""
        records = read_records(self.rundir.path)
        rd = rederive(self.manifest.entries, records, self.variant.circular)
        return {i: (c, records.answered[i].get("output")) for i, c, (ex, _) in zip(rd.ids, rd.configs, rd.items)
                if ex.status != PARSED and not is_rotation(i)}

    def _rows(self, configs, source, clip_cache_dir, data, progress) -> dict[str, dict]:
        run = self.run
        made = (recorded(run) or {}).get("configs") or {}
        fingerprints = (run.get("dataset") or {}).get("fingerprints") or {}
        options = run.get("dataset_options") if isinstance(run.get("dataset_options"), dict) else {}
        if source is None and run.get("source") is not None:
            source = run["source"]
            if not Path(source).is_dir():
                raise UsageError(f"{self.rundir.path} was built from the folder {source}, which is not here: pass "
                                 "the same photos with --source DIR")
        rows = {}
        for config in sorted(configs):
            if data is not None and config in data:
                ds = data[config]
            elif (made.get(config) or {}).get("built") is False:
                raise UsageError(f"{self.rundir.path}: its {config} items were given as datasets, not built: "
                                 "pass them (Adjudication(..., data={config: dataset}))")
            else:
                kwargs = {**(options.get(config) or {}), "clip_cache_dir": clip_cache_dir, "progress": progress,
                          "answer_plan": (made.get(config) or {}).get("answer_plan") or DEFAULT_ANSWER_PLAN}
                ds = build_dataset(config, str(run.get("split")), source, int(run.get("seed") or 0), None, kwargs)
            if fingerprints.get(config) not in (None, dataset_fingerprint(ds)):
                raise UsageError(f"{config}: the items rebuilt here are not the run's (fingerprint "
                                 f"{dataset_fingerprint(ds)}, run.json records {fingerprints.get(config)}); pass the "
                                 "run's photos with --source DIR")
            wanted = {i for i, (c, _) in self.unread.items() if c == config}
            ids = ds.select_columns(["id"])["id"]
            rows.update({i: ds[k] for k, i in enumerate(ids) if i in wanted})
        lost = [i for i in self.unread if i not in rows]
        if lost:
            raise UsageError(f"{len(lost)} unread outputs answer items not rebuilt here (e.g. {lost[0]})")
        return rows

    # ---- what a person sees
    def decided_by(self, name: str) -> set[str]:
        """The unread outputs ``name`` has decided (for the output as it is now)."""
        records = read_records(self.rundir.path)
        mine = [r for r in records.resolutions if r.get("way") == "person" and r.get("name") == name]
        ids = [i for i in self.unread if i in records.answered]
        outputs = [self.unread[i][1] for i in ids]
        standing, _ = current(ids, [self.unread[i][0] for i in ids], outputs,
                              [self.manifest.entries[i].get("options") for i in ids], mine)
        return set(standing.get("person", {}))

    def next_for(self, name: str) -> str | None:
        done = self.decided_by(name)
        return next((i for i in self.unread if i not in done), None)

    def shown(self, item_id: str) -> dict:
        """The item as the model received it: ``{"config", "question", "images", "options", "output"}``."""
        config, output = self.unread[item_id]
        row = self.rows[item_id]
        question, images, _ = self.variant.apply(row["question"], row["images"])
        return {"config": config, "question": question, "images": images, "options": row.get("options"),
                "output": output}

    # ---- decisions
    def record(self, name: str, item_id: str, value) -> dict:
        """Record ``name``'s decision on ``item_id``: ``None`` for "no answer given", else the answer (a letter, the
        anomaly fields, an order in the exact format). ``UserError`` for an incomplete answer: nothing recorded."""
        name = check_name(name)
        if item_id not in self.unread:
            raise UserError(f"{str(item_id)[:80]!r} is not an unread output of this run; reload the page")
        config, output = self.unread[item_id]
        if value is None:
            status, answer = "no_answer", None
        else:
            answer = self._answer(config, value)
            status = "read"
        rec = {"id": item_id, "config": config, "way": "person", "output_sha256": output_digest(output),
               "name": name, "time": now(), "status": status, "answer": answer, "reason": ""}
        with self._lock:
            with writer(self.rundir.path) as out:
                out.write(rec)
            self._write_results()
        return rec

    @staticmethod
    def _answer(config: str, value) -> str:
        spec = get_spec(config)
        if isinstance(value, str) and spec.kind != CHOICE:  # typed in the exact format
            from ..scoring.extraction import classify_response

            answer = classify_response(value.strip(), config).strict
            if answer is None or not is_answer(answer, config):
                raise UserError("type the answer in the task's exact format (e.g. [2, 3, 1, 4])")
            return answer
        return answer_text(config, value)

    def _write_results(self) -> None:
        """results.json with the decisions counted, unless an ``eval`` holds the run (it rewrites it at its end)."""
        if not self.rundir.results_json.exists():
            return
        try:
            self.rundir.lock()
        except RunLocked:
            return
        try:
            results = self.rundir.read_results()
            numbers = rederive(self.manifest.entries, read_records(self.rundir.path), self.variant.circular).numbers()
            results.pop("resolved", None)
            self.rundir.write_results({**results, **numbers})
        finally:
            self.rundir.unlock()
