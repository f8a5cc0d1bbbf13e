"""Answers given as structure, read by parsers (never executed): JSON (and JSON inside a JSON string), tool calls
(OpenAI ``tool_calls`` and ``{"name", "arguments"}``, Hermes ``<tool_call>``, Qwen ``<function=...>``, Python call
syntax read with :mod:`ast`), YAML and TOML blocks, answer tags (``<final_answer>B</final_answer>``), code
assignments (``order = [3, 1, 4, 2]``), markdown tables with one row marked, and verdict lists ("A: no / B: yes").

Each yields a :class:`Claim`: where it stands and the answer it gives, or why it gives none the reader can trust:
an answer under a name the reader does not know beside it (``{"answer": "B", "alternative": "C"}``), two answer
fields that disagree, several rows marked. A call that is not a submission (``zoom(label="B")``) claims nothing.
A text value (``{"answer": "not B"}``, ``<answer>C, because ...</answer>``) is read by the whole rule.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ...spec import ANOMALY, CHOICE, LETTERS, ORDER, ORIENTED, ROTATIONS, format_anomaly, format_order, format_oriented
from .positions import cells_named

_SUBMIT = frozenset("""submit submit_answer answer final_answer finalanswer provide_answer give_answer return_answer
    respond select select_option select_answer select_candidate choose choose_option pick pick_option set_answer
    output_answer final finish submit_order submit_solution solve answer_question record_answer print commit report_answer
    submit_choice choose_answer submitanswer""".split())
_ANSWER_KEYS = frozenset("""answer final_answer finalanswer final choice final_choice option selected selected_option
    selection selected_answer letter answer_letter prediction predicted pred result output response verdict pick
    chosen chosen_option correct_option correct_answer best_match best_option order final_order sequence permutation
    arrangement solution placement grid rows judgment judgement error_position position error_type answer_option
    relationship selected_candidate candidate_index chosen_candidate best_candidate final_selection answer_choice""".split())
_ANOMALY_KEYS = {"judgment": "j", "judgement": "j", "error_position": "p", "position": "p", "error_type": "t",
                 "type": "t"}
#: Keys that hold the answer's carrier (read inside), and keys that say nothing about it (skipped).
_CARRIER = frozenset("""arguments args parameters params input kwargs function tool_calls content text message
    choices candidates parts tool_call function_call action_input data item items output_text delta generated_text
    completion outputs result results""".split())
_NEUTRAL = frozenset("""reason reasoning explanation rationale justification confidence thoughts thought analysis
    description evidence observations observation steps id type name role index finish_reason logprobs model object
    created usage system_fingerprint stop_reason stop_sequence usage_metadata prompt_feedback safety_ratings refusal
    annotations tool_call_id call_id action method jsonrpc certainty probability score_of_answer
    model_version response_id avg_logprobs citation_metadata token_count stop rejected eliminated excluded ruled_out
    discarded distractors thinking signature redacted_thinking draft initial initial_answer first_guess previous_answer
    previous created_at done total_duration load_duration prompt_eval_count prompt_eval_duration eval_count
    eval_duration context done_reason finishreason usagemetadata modelversion responseid avglogprobs safetyratings
    promptfeedback citationmetadata tokencount service_tier message_id logprobs_content system_fingerprint
    prompt_tokens completion_tokens total_tokens stop_sequence_id""".split())


@dataclass(slots=True)
class Claim:
    start: int
    end: int
    answer: Optional[str]
    why: str = ""
    form: str = "structure"
    parts: Optional[dict] = None


def _key(k: Any) -> str:
    return re.sub(r"[\s\-]+", "_", str(k).strip().lower())


class _Reader:
    """Reads a parsed value into (answer or None, why) for one config; ``text(s)`` reads a text value."""

    def __init__(self, spec, options, text: Callable[[str], tuple[Optional[str], str]]):
        self.spec, self.options, self.text = spec, options, text

    def value(self, v: Any, key: str = "") -> tuple[Optional[str], str]:
        kind, spec = self.spec.kind, self.spec
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, bool) or v is None:
            return None, f"the value of {key!r} is {v!r}"
        if isinstance(v, int) and not isinstance(v, bool) and "candidate" in key and kind == CHOICE and \
                1 <= v <= len(spec.letters):
            return spec.letters[v - 1], ""  # "selected_candidate": 3 is Candidate 3
        if isinstance(v, (int, float)):
            if kind == ORDER or kind == ANOMALY:
                return None, f"a number where {kind} is asked"
            return None, f"a number ({v}) where a letter is asked"
        if isinstance(v, dict):
            if kind == ANOMALY:
                return self.anomaly(v)
            return None, f"an object under {key!r}"
        if isinstance(v, (list, tuple)):
            if kind == ORIENTED and v and all(isinstance(p, dict) for p in v):  # [{"image": 2, "rotation": 90}, ...]
                v = [[p.get(a) for a in ("image", "rotation")] if set(map(_key, p)) <= {"image", "rotation", "region",
                                                                                       "position", "cell"} else None
                     for p in v]
            if kind == ORIENTED and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in v):
                order, rots = [p[0] for p in v], [p[1] for p in v]
                if all(isinstance(x, int) for x in order + rots) and sorted(order) == list(
                        range(1, spec.order_length + 1)) and set(rots) <= set(ROTATIONS):
                    return format_oriented(order, rots), ""
                return None, "the pairs are not a permutation with turns of 0/90/180/270"
            flat = [x for r in v for x in r] if v and all(isinstance(r, (list, tuple)) for r in v) else list(v)
            if all(isinstance(x, int) and not isinstance(x, bool) for x in flat):
                if kind == ORDER:
                    ok = sorted(flat) == list(range(1, spec.order_length + 1))
                    return (format_order(flat), "") if ok else (None, f"{flat[:20]} is not a permutation")
                if kind == CHOICE and self.options:
                    want = [str(o) for o in self.options]
                    if format_order(flat) in want:
                        return spec.letters[want.index(format_order(flat))], ""
                    return None, f"the order {flat} is none of the options"
            if len(v) == 1:
                return self.value(v[0], key)
            return None, f"a list under {key!r}"
        return None, f"a {type(v).__name__} under {key!r}"

    def anomaly(self, d: dict) -> tuple[Optional[str], str]:
        vals = {}
        for k, v in d.items():
            f = _ANOMALY_KEYS.get(_key(k))
            if f is None:
                if _key(k) in _NEUTRAL:
                    continue
                return None, f"an unknown key {str(k)[:30]!r}"
            vals[f] = None if v in (None, "", [], "none", "None", "N/A", "n/a", "-") else str(v).strip()
        j, p, t = vals.get("j"), vals.get("p"), vals.get("t")
        j = {"correct": "A", "incorrect": "B"}.get(str(j).lower(), j) if j else j
        if j == "A" and not p and not t:
            return format_anomaly(), ""
        if j == "B" and p is not None and len(p) == 1 and p in LETTERS[:self.spec.num_options] and t in ("A", "B"):
            return format_anomaly(p, t), ""
        return None, "the anomaly fields do not make one answer"

    def obj(self, d: Any, depth: int = 0) -> tuple[list[tuple[Optional[str], str]], list[str]]:
        """(answers found with their why, unknown keys) in a parsed object, calls and carriers followed."""
        found: list[tuple[Optional[str], str]] = []
        unknown: list[str] = []
        if depth > 6:
            return found, unknown
        if isinstance(d, list):
            if self.spec.kind == ORIENTED and d and all(isinstance(x, dict) and "image" in x for x in d):
                return [self.value(d, "placement")], unknown
            for x in d:
                f, u = self.obj(x, depth + 1)
                found, unknown = found + f, unknown + u
            return found, unknown
        if not isinstance(d, dict):
            return found, unknown
        keys = {_key(k): v for k, v in d.items()}
        name = keys.get("name") if isinstance(keys.get("name"), str) else None
        if name is None and isinstance(keys.get("action"), str) and "action_input" in keys:
            name = keys["action"]
        if name is not None and any(k in keys for k in ("arguments", "args", "parameters", "input", "action_input")):
            if _key(name) not in _SUBMIT:
                return found, unknown  # an action, not a submission
            args = next(keys[k] for k in ("arguments", "args", "parameters", "input", "action_input") if k in keys)
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    return [self.text(args)], unknown
            if not isinstance(args, dict):
                return [self.value(args)], unknown
            d, keys = args, {_key(k): v for k, v in args.items()}
        if self.spec.kind == ANOMALY and ({"judgment", "judgement"} & set(keys)):
            return [self.anomaly(d)], unknown
        for k, v in keys.items():
            if k in _ANSWER_KEYS and isinstance(v, dict) and not (self.spec.kind == ANOMALY and
                                                                   {"judgment", "judgement"} & {_key(x) for x in v}):
                f, u = self.obj(v, depth + 1)  # {"result": {"selected_option": "D"}}
                found += f
                unknown += u
            elif k in _ANSWER_KEYS:
                found.append(self.value(v, k))
            elif k in _CARRIER:
                if isinstance(v, str) and k in ("arguments", "args"):
                    try:
                        v = json.loads(v)
                    except ValueError:
                        pass
                if isinstance(v, str):
                    found.append(self.text(v))
                else:
                    f, u = self.obj(v, depth + 1)
                    found += f
                    unknown += u
            elif k not in _NEUTRAL:
                unknown.append(k)
        return found, unknown


def _decide(found, unknown) -> tuple[Optional[str], str, bool]:
    """(answer, why, claims anything)."""
    if not found:
        return None, "", False
    answers = {a for a, _ in found if a is not None}
    whys = [w for a, w in found if a is None and w]
    if unknown:
        return None, f"an answer beside a name the reader does not know ({unknown[0][:30]!r})", True
    if len(answers) > 1:
        return None, "answer fields that disagree: " + " / ".join(sorted(answers)), True
    if whys or not answers:
        return None, (whys[0] if whys else "no answer in the answer field"), True
    return next(iter(answers)), "", True


# ------------------------------------------------------------------------------------------------ finders
_FENCE = re.compile(r"```[ \t]*(yaml|yml|toml)[ \t]*\n(.*?)(?:```|\Z)", re.S | re.I)
_TAG = re.compile(r"<(answer|final_answer|final|output|result|choice|option|selected|solution|response|order|judgment"
                  r"|prediction|final_order|answer_letter)(?:\s[^<>]*)?>(.*?)(?:</\1\s*>|\Z)", re.S | re.I)
_QWEN = re.compile(r"<function=([\w.\-]+)>(.*?)(?:</function>|\Z)", re.S)
_QWEN_PARAM = re.compile(r"<parameter=([\w.\-]+)>\s*(.*?)\s*(?:</parameter>|(?=<parameter=)|\Z)", re.S)
_CALL = re.compile(r"(?<![\w.#])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)[ \t]*\(")
_ASSIGN = re.compile(r"^[ \t]*(?:let |const |var )?([A-Za-z_]\w*)[ \t]*(?::[ \t]*\w+[ \t]*)?=[ \t]*([^\n=][^\n]*?)[ \t]*;?"
                     r"[ \t]*(?=#|//|$)", re.M)
_TABLE = re.compile(r"(?:^[ \t]*\|[^\n]*\|[ \t]*(?:\n|$)){3,}", re.M)
_POS = {"\u2705", "\u2713", "\u2714", "\u2714\ufe0f", "\u2611", "\u2611\ufe0f", "yes", "y", "selected", "chosen",
        "correct", "answer", "<- answer", "\u2190 answer", "best", "x", "true", "match", "picked", "\u2b50",
        "\u2705 selected", "\u2713 selected", "selected \u2705", "yes \u2705", "\u2705 yes", "\u2190"}
_NEG = {"\u274c", "\u2717", "\u2718", "\u2716", "no", "n", "incorrect", "wrong", "-", "\u2014", "", "false", "no match",
        "\u2716\ufe0f", "\u274c no", "no \u274c"}
_MARK = r"\u2713|\u2717|\u2705|\u274c|\u2714\ufe0f?|\u2718|\u2611\ufe0f?|\u2b1c|\u2b1b|\U0001f7e2|\U0001f534|\u2716\ufe0f?"
_VERDICT_WORD = (r"yes|no|correct|incorrect|wrong|right|true|false|matches|match|no match|does not match|doesn't match|"
                 r"fits|does not fit|doesn't fit|ok|okay|对|不对|正确|错误|是|否|o|x|" + _MARK)
_VERDICT = re.compile(r"(?:^|(?<=[\n;,.\s]))[ \t]*(?:[-*\u2022][ \t]*)?(?:option[ \t]+|candidate[ \t]*(?=\d))?[(\[]?((?-i:[A-Z1-9]))[)\]]?[ \t]*"
                      r"(?:\[[\d,\s]+\][ \t]*)?(?:[:=\-\u2013\u2014]|->|\u2192)?[ \t]*(" + _VERDICT_WORD + r")"
                      r"(?=[ \t]*(?:[,.;:!\n(\u2014\-]|\s+[A-Z(\[]|\s+(?:" + _MARK + r")|$))"
                      r"|(?:^|(?<=\s))(" + _MARK + r")[ \t]*(?:option[ \t]+)?[(\[]?((?-i:[A-Z]))[)\]]?(?![A-Za-z0-9])", re.I | re.M)
_VERDICT_POS = {"yes", "correct", "right", "true", "\u2713", "\u2705", "\u2714", "\u2714\ufe0f", "match", "matches",
                "fits", "ok", "okay", "对", "正确", "是", "o", "\u2611", "\u2611\ufe0f", "\U0001f7e2"}


def _literal(node: ast.AST) -> Any:
    """A Python literal from its syntax tree, never evaluated ("never eval model text")."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    raise ValueError("not a literal")


def _close(t: str, i: int, opener: str, closer: str, limit: int = 2000) -> int:
    """Index after the bracket matching ``t[i]`` (quotes respected), or -1."""
    depth, quote, j = 0, "", i
    while j < len(t) and j - i < limit:
        c = t[j]
        if quote:
            if c == "\\":
                j += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return -1


def claims(t: str, spec, options, text: Callable[[str], tuple[Optional[str], str]]) -> list[Claim]:
    """Every structured claim in ``t`` (the raw region), by position; ``text`` reads a text value."""
    rd = _Reader(spec, options, text)
    out: list[Claim] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, found, unknown, form: str) -> None:
        answer, why, any_ = _decide(found, unknown)
        if any_:
            out.append(Claim(start, end, answer, why, form))
        taken.append((start, end))

    def free(i: int) -> bool:
        return not any(a <= i < b for a, b in taken)

    for m in _TAG.finditer(t) if "<" in t else ():
        body = m.group(2)
        if body.strip():
            add(m.start(), m.end(), [text(body)], [], "tag")
    for m in _QWEN.finditer(t) if "<function=" in t else ():
        if free(m.start()):
            if _key(m.group(1)) in _SUBMIT:
                params = {k: v for k, v in _QWEN_PARAM.findall(m.group(2))}
                vals = {}
                for k, v in params.items():
                    try:
                        vals[k] = json.loads(v) if v[:1] in "[{" else v
                    except ValueError:
                        vals[k] = v
                add(m.start(), m.end(), *rd.obj({"name": m.group(1), "arguments": vals}), "call")
            else:
                taken.append(m.span())
    for m in _FENCE.finditer(t) if "```" in t else ():
        try:
            if m.group(1).lower() == "toml":
                import tomllib
                data = tomllib.loads(m.group(2))
            else:
                import yaml
                data = yaml.safe_load(m.group(2))
        except Exception:  # a malformed block is prose, read by the rule  # noqa: BLE001
            continue
        if isinstance(data, dict):
            add(m.start(), m.end(), *rd.obj(data), "yaml")
    attempts = 0
    i = t.find("{")
    while i >= 0 and attempts < 64:
        attempts += 1
        if free(i):
            end = _close(t, i, "{", "}")
            data = None
            if end > 0:
                try:
                    data = json.loads(t[i:end])
                except ValueError:
                    try:
                        data = _literal(ast.parse(t[i:end], mode="eval").body)
                    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
                        data = None
            if isinstance(data, (dict, list)):
                add(i, end, *rd.obj(data), "json")
                i = t.find("{", end)
                continue
        i = t.find("{", i + 1)
    for m in _CALL.finditer(t) if "(" in t else ():
        name = m.group(1).rsplit(".", 1)[-1]
        if not free(m.start()) or _key(name) not in _SUBMIT:
            continue
        line_start = t.rfind("\n", 0, m.start()) + 1
        if "#" in t[line_start:m.start()] or "//" in t[line_start:m.start()]:
            continue  # commented out
        end = _close(t, m.end() - 1, "(", ")", 600)
        if end < 0:
            continue
        try:
            call = ast.parse(t[m.start():end].replace("\n", " "), mode="eval").body
            args = [_literal(a) for a in call.args] if isinstance(call, ast.Call) else None
            kw = {k.arg: _literal(k.value) for k in call.keywords if k.arg} if isinstance(call, ast.Call) else None
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            continue
        if args is None:
            continue
        found = [rd.value(a) for a in args[:1]]
        found += [rd.value(v, k) for k, v in kw.items() if _key(k) in _ANSWER_KEYS or spec.kind == ANOMALY]
        unknown = [k for k in kw if _key(k) not in _ANSWER_KEYS and _key(k) not in _NEUTRAL and spec.kind != ANOMALY]
        if spec.kind == ANOMALY and kw:
            found = [rd.anomaly(kw)]
        if len(args) > 1:
            unknown.append("a second argument")
        add(m.start(), end, found, unknown, "call")
    for m in _ASSIGN.finditer(t) if "=" in t else ():
        if not free(m.start()) or _key(m.group(1)) not in _ANSWER_KEYS - {"value", "mask"}:
            continue
        try:
            v = _literal(ast.parse(m.group(2), mode="eval").body)
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            continue
        add(m.start(), m.end(2), [rd.value(v, m.group(1))], [], "code")
    for m in _TABLE.finditer(t) if "|" in t else ():
        if free(m.start()):
            c = _table(t, m, spec, text)
            if c is not None:
                out.append(c)
                taken.append((c.start, c.end))
    if spec.kind == CHOICE:
        c = _verdicts(t, spec, free)
        if c is not None:
            out.append(c)
    return sorted(out, key=lambda c: c.end)


def _cells(row: str) -> list[str]:
    return [" ".join(c.replace("*", " ").split()) for c in row.strip().strip("|").split("|")]


_POS_MARK = re.compile(r"^(?:\u2705|\u2713|\u2714\ufe0f?|\u2611\ufe0f?|\U0001f7e2)|(?:<-+|\u2190|\u2b05\ufe0f?)\s*(?:answer|"
                       r"selected|chosen|pick|this)?$|^(?:yes|selected|chosen|correct|picked|answer|best|x)$|\b(?:selected|"
                       r"chosen)\b", re.I)
_NEG_MARK = re.compile(r"^(?:\u274c|\u2717|\u2718|\u2716\ufe0f?|\u2b1c|\U0001f534)|^(?:no|incorrect|wrong|-|\u2014)?$", re.I)


def _table(t: str, m: re.Match, spec, text) -> Optional[Claim]:
    """A markdown table: options with one row marked (✅, "selected", "← answer" in a cell), an anomaly's fields or
    each cell's status, or an order's regions."""
    rows = [_cells(r) for r in m.group(0).strip().split("\n")]
    rows = [r for r in rows if not all(re.fullmatch(r"[\s:\-]*", c) for c in r)]
    if len(rows) < 2:
        return None
    body = rows[1:] if not any(text(c)[0] for c in rows[0]) else rows
    if spec.kind == ANOMALY:
        fields = {_key(r[0]): r[1] for r in body if len(r) >= 2}
        if {"judgment", "judgement"} & set(fields):
            a, why = _Reader(spec, None, text).anomaly(fields)
            return Claim(m.start(), m.end(), a, why, "table")
        return None
    if spec.kind == ORDER:  # | top-left | 3 |: the image each region holds
        cells: dict[str, int] = {}
        for r in body:
            if len(r) >= 2 and r[-1].isdigit():
                named, why = cells_named(r[0], *spec.grid)
                if len(named) == 1 and not why:
                    cells[next(iter(named))] = int(r[-1])
        n = spec.order_length
        if len(cells) == n:
            order = [cells.get(LETTERS[i]) for i in range(n)]
            ok = None not in order and sorted(order) == list(range(1, n + 1))
            return Claim(m.start(), m.end(), format_order(order) if ok else None, "" if ok else
                         "the table's regions do not make one order", "table", {"order": tuple(order)})
        return None
    if spec.kind == ORIENTED:
        return None
    if any(re.search(r"(?i)exclud|eliminat|reject|wrong|ruled|discard|not\b|no\b|worst|least", c) for c in rows[0]) and \
            body is not rows:
        return None  # the marks say what is ruled out
    marked, seen = [], 0
    for r in body:
        opt = next((c for c in r if len(c) <= 40 and text(c)[0] is not None), None)
        if opt is None:
            continue
        seen += 1
        others = [c for c in r if c is not opt]
        if any(_POS_MARK.search(c) for c in others) and not any(_NEG_MARK.search(c) and c for c in others
                                                               if not _POS_MARK.search(c)):
            marked.append(text(opt)[0])
    if seen < 2 or not marked:
        return None
    if len(set(marked)) > 1:
        return Claim(m.start(), m.end(), None, "several rows of the table are marked: " + "/".join(sorted(set(marked))),
                     "table")
    return Claim(m.start(), m.end(), marked[0], "", "table")


def _verdicts(t: str, spec, free) -> Optional[Claim]:
    """Per-option verdicts ("A: no\\nB: yes\\nC: no", "A ✗ B ✓ C ✗"): exactly one positive is the answer."""
    last: dict[str, bool] = {}
    spans = []
    for m in _VERDICT.finditer(t):
        letter, word = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if letter.isdigit():  # "Candidate 4: ✓" on Missing Piece Selection
            if not re.match(r"[ \t\-*\u2022]*candidate", t[m.start():], re.I) or int(letter) > len(spec.letters):
                continue
            letter = spec.letters[int(letter) - 1]
        if letter in spec.letters and free(m.start()):
            last[letter] = word.lower() in _VERDICT_POS
            spans.append(m.span())
    if len(last) < 2:
        return None
    pos = sorted(k for k, v in last.items() if v)
    start, end = spans[0][0], spans[-1][1]
    if len(pos) == 1:
        return Claim(start, end, pos[0], "", "verdicts")
    if pos:
        return Claim(start, end, None, "several options judged correct: " + "/".join(pos), "verdicts")
    return None


__all__ = ["Claim", "claims"]
