"""Answers given as structure, read by parsers (never executed): JSON (and JSON inside a JSON string), tool calls (OpenAI
``tool_calls``, ``{"name", "arguments"}``, Hermes ``<tool_call>``, Qwen ``<function=...>``, Anthropic ``<invoke name=...>``,
Gemini ``functionCall``, LangChain's "Invoking:" and ``{"tool", "tool_input"}``, Python calls read with :mod:`ast`), YAML and TOML blocks, answer tags
(``<final_answer>B</final_answer>``), code (``order = [3, 1, 4, 2]``), tables with one row marked, verdict lists.

Each yields a :class:`Claim`: where it stands and the answer it gives, or why it gives none the reader can trust:
an answer under a name the reader does not know beside it (``{"answer": "B", "alternative": "C"}``), two answer
fields that disagree, several rows marked. A call that is not a submission (``zoom(label="B")``) claims nothing.
A text value (``{"answer": "not B"}``, ``<answer>C, because ...</answer>``) is read by the whole rule.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Callable, Optional

from ...spec import ANOMALY, CHOICE, LETTERS, ORDER, ORIENTED, ROTATIONS, format_anomaly, format_order, format_oriented
from .common import _PLAIN_TAG, Claim, key as _key, parse_expression as _parse
from .blocks import _field_value, decide as _decide, reasoned
from .forms import alternation, forms
from .tables import RANK_LINES as _RANK_LINES, RANKING as _RANKING, ranked as _ranked, TABLE as _TABLE, statuses as _statuses, \
    table as _table, verdicts as _verdicts

_SUBMIT = forms("submit")
_ANSWER_KEYS = forms("key")
# Anomaly Detection's three fields under the labels of the table in any language ({"Urteil": "B", "Fehlerart": ...})
_ANOMALY_KEYS = {_key(f): c for c, kind in (("t", "type"), ("p", "position"), ("j", "judgment")) for f in forms(kind)}
_JUDGMENT_KEYS = {k for k, c in _ANOMALY_KEYS.items() if c == "j"}
_CARRIER = forms("carrier")
_NEUTRAL = forms("skip")
_SETTLED = {"final", "done", "complete", "completed", "submitted", "finished", "ok", "success", "succeeded"}
_KEPT_OPEN = re.compile(alternation(forms("hedge") - {"of", "óf", "か"}), re.I)  # in a note beside
# the answer, with a letter, in any language: another answer kept open ("confianza": "media, quizás C"); not the
# hedges that are other words too (Dutch "of" is English "of"; "か" ends any Japanese question)


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
            if vals[f] and f in "jpt":  # a value glossed in brackets is read with it ("B (Top-right)")
                vals[f], why = _field_value(vals[f], 0, len(vals[f]), f, self.spec.grid)
                if vals[f] == "?":
                    return None, why
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
            for x in d:  # a content block of text that gives no answer is the reasoning beside a tool call
                said = self.text(x["text"]) if isinstance(x, dict) and x.get("type") == "text" and isinstance(
                    x.get("text"), str) else None
                f, u = ([said] if said[0] is not None else [], []) if said else self.obj(x, depth + 1)
                found, unknown = found + f, unknown + u
            return found, unknown
        if not isinstance(d, dict):
            return found, unknown
        keys = {_key(k): v for k, v in d.items()}
        name = next((keys[k] for k in ("name", "tool", "tool_name", "function_name") if isinstance(keys.get(k), str)), None)
        if name is None and isinstance(keys.get("action"), str) and "action_input" in keys:
            name = keys["action"]
        elif name is None and isinstance(keys.get("action"), str) and "value" in keys:  # {"action": "submit", "value": "A"}
            name, keys = keys["action"], dict(keys, input=keys["value"])
            keys.pop("value")
        if name is not None and any(k in keys for k in ("arguments", "args", "parameters", "input", "action_input", "tool_input")):
            for k in ("tool", "tool_name", "function_name"):
                keys.pop(k, None)
            if _key(name) not in _SUBMIT:
                return found, unknown  # an action, not a submission
            args = next(keys[k] for k in ("arguments", "args", "parameters", "input", "action_input", "tool_input") if k in keys)
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    return [self.text(args)], unknown
            if not isinstance(args, dict):
                return [self.value(args)], unknown
            d, keys = args, {_key(k): v for k, v in args.items()}
        if self.spec.kind == ANOMALY and _JUDGMENT_KEYS & set(keys):
            return [self.anomaly(d)], unknown
        for k, v in keys.items():
            if k in _ANSWER_KEYS and isinstance(v, dict) and not (self.spec.kind == ANOMALY and
                                                                   _JUDGMENT_KEYS & {_key(x) for x in v}):
                f, u = self.obj(v, depth + 1)  # {"result": {"selected_option": "D"}}
                found, unknown = found + f, unknown + u
            elif k in _ANSWER_KEYS:
                found.append(self.value(v, k))
            elif k in _CARRIER:
                if isinstance(v, str) and k in ("arguments", "args"):
                    try:
                        v = json.loads(v)
                    except ValueError:
                        pass
                if isinstance(v, list) and v and all(isinstance(p, dict) and isinstance(p.get("text"), str) and
                                                     set(p) <= {"text", "type"} for p in v):
                    v = "".join(p["text"] for p in v)  # a message's text parts are one text (Gemini, Anthropic)
                if isinstance(v, str):
                    said = self.text(v)
                    if said[0] is not None or said[1] not in ("no answer found", "empty response"):
                        found.append(said)  # "content": "Submitting my answer now." beside its tool call
                else:  # a message cut off by its length limit inside a list ("[3, 4, 1, 2"): not a whole answer
                    f, u = self.obj(v, depth + 1)
                    cut = keys.get("finish_reason") == "length" and isinstance(v, dict) and re.search(r"[\[(][^\])]*\Z", str(v.get("content")))
                    found, unknown = found + ([(None, "the message is cut off inside a list (finish_reason: length)")] if cut else f), unknown + u
            elif k not in _NEUTRAL and not (k in ("status", "state") and str(v).lower() in _SETTLED):  # "status": "final"
                unknown.append(k)
            elif isinstance(v, str) and _KEPT_OPEN.search(v) and re.search(r"(?<![A-Za-z0-9'])[A-H](?![A-Za-z0-9'])", v) \
                    and not re.search(r"think|thought|reasoning|analysis|scratch", _key(k)):  # not the reasoning before
                unknown.append(f"{k} (it keeps an answer open)")  # "confidence": "low, could be C"
        return reasoned(keys, found, self.spec, self.text), unknown



# ------------------------------------------------------------------------------------------------ finders
_FENCE = re.compile(r"```[ \t]*(yaml|yml|toml)[ \t]*\n(.*?)(?:```|\Z)", re.S | re.I)
_TAG = re.compile(r"<(answer|final_answer|final|output|result|choice|option|selected|solution|response|order|judgment|submit"
                  r"|prediction|final_order|answer_letter)(?:\s[^<>]*)?>(.*?)(?:</\1\s*>|\Z)", re.S | re.I)
_ATTR = re.compile(r"\s(option|answer|choice|value|letter|selected|order)\s*=\s*[\"']([^\"'<>]{1,40})[\"']", re.I)
_NAMED_TAG = re.compile(r"<([^\W\d][\w\-]{0,30})>([^<>\n]{1,60})</\1\s*>")  # "<risposta>B</risposta>", "<foo>B</foo>"
#: XML calls: Qwen's ``<function=submit><parameter=answer>B</parameter></function>`` and Anthropic's
#: ``<invoke name="submit"><parameter name="answer">B</parameter></invoke>``.
_QWEN = re.compile(r"<(function=|invoke\s+name=)[\"']?([\w.\-]+)[\"']?\s*>(.*?)(?:</(?:function|invoke)>|\Z)", re.S)
_QWEN_PARAM = re.compile(r"<parameter(?:=|\s+name=)[\"']?([\w.\-]+)[\"']?\s*>\s*(.*?)\s*(?:</parameter>|(?=<parameter)|\Z)", re.S)
_RETURNS = re.compile(r"[ \t]*(?:->|\u2192|=>)[ \t]*\{")
#: LangChain's agent log: "Invoking: `submit_answer` with `{'answer': 'D'}`".
_INVOKING = re.compile(r"^[ \t]*Invoking:?[ \t]*`([\w.\-]+)`[ \t]+with[ \t]+`([^`\n]*)`", re.M)
_CALL = re.compile(r"(?<![\w.#])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)[ \t]*\(")
_ASSIGN = re.compile(r"^[ \t]*(?:let |const |var )?([A-Za-z_]\w*)[ \t]*(?::[ \t]*\w+[ \t]*)?=[ \t]*([^\n=][^\n]*?)[ \t]*;?"
                     r"[ \t]*(?=#|//|$)", re.M)
_REACT = re.compile(r"^[ \t]*(?:Action|Calling tool|Tool call|\u884c\u52d5|\u884c\u52a8)[ \t]*[:\uff1a][ \t]*`?([\w.\-]+(?: [\w.\-]+)?)`?[ \t]*"
                    r"(?:\(\))?[ \t]*\n[ \t]*(?:Action[ \t_]+Input|Arguments|\u884c\u52d5\u5165\u529b|\u884c\u52a8\u8f93\u5165)[ \t]*[:\uff1a][ \t]*([^\n]+)",
                    re.M | re.I)  # also "Calling tool: X / Arguments: {...}"; Japanese and Chinese ReAct ("行動入力：", "行动输入：")
#: One-line actions: "Action: submit_answer {"answer": "D"}", "Action: finish[A]" (ReAct's finish).
_REACT_LINE = re.compile(r"^[ \t]*Action[ \t]*:[ \t]*`?([\w.\-]+)`?[ \t]*(\{[^\n]*\}|\[[^\n]*\])[ \t]*$", re.M | re.I)


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


def streamed(text: str) -> Optional[str]:
    """The text a pasted server-sent-event stream carries (chat-completion chunks' ``delta.content``, Anthropic's
    ``text_delta``, ``{"delta": "..."}``), joined; None when ``text`` is not such a stream (every line an SSE field)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines or not all(ln.startswith(("data:", "event:", "id:", ":")) for ln in lines):
        return None
    out = []
    for ln in (ln[5:].strip() for ln in lines if ln.startswith("data:")):
        try:
            d = json.loads(ln) if ln != "[DONE]" else {}
        except ValueError:
            return None
        ch = d.get("choices") if isinstance(d, dict) else None
        d = (ch[0] if isinstance(ch, list) and ch and isinstance(ch[0], dict) else {}) if ch is not None else d
        delta = d.get("delta", d.get("text", "")) if isinstance(d, dict) else ""
        delta = delta.get("content", delta.get("text", "")) if isinstance(delta, dict) else delta
        out.append(delta if isinstance(delta, str) else "")
    return "".join(out)


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
        said = [text(v) for _, v in _ATTR.findall(m.group(0)[:m.start(2) - m.start()])]  # <answer option="B">: it must agree
        if body.strip() or said:
            add(m.start(), m.end(), ([text(body)] if body.strip() else []) + said, [], "tag")
    for m in _QWEN.finditer(t) if "<function=" in t or "<invoke" in t else ():
        if free(m.start()):
            if _key(m.group(2)) in _SUBMIT:
                params = {k: v for k, v in _QWEN_PARAM.findall(m.group(3))}
                vals = {}
                for k, v in params.items():
                    try:
                        vals[k] = json.loads(v) if v[:1] in "[{" else v
                    except ValueError:
                        vals[k] = v
                add(m.start(), m.end(), *rd.obj({"name": m.group(2), "arguments": vals}), "call")
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
            found, unknown = rd.obj(data)
            if re.search(r"^[ \t]*\w+[ \t]*[:=][^\n#]*[ \t]#", m.group(2), re.M):  # answer: C  # not sure, could be B
                unknown = unknown + ["a comment beside a value"]
            keys = [_key(k) for k in re.findall(r"^[ \t]*([\w-]+)[ \t]*[:=]", m.group(2), re.M)]
            if len(keys) != len(set(keys)):  # answer: B / answer: D: the parser keeps one, the text says both
                unknown = unknown + ["a key given twice"]
            add(m.start(), m.end(), found, unknown, "yaml")
    acts = [*_REACT.finditer(t), *_REACT_LINE.finditer(t)] if "ction" in t or "rguments" in t or "\u884c" in t else []
    acts += [*_INVOKING.finditer(t)] if "Invoking" in t else []
    for m in sorted(acts, key=lambda m: m.start()):  # Action: submit / Action Input: D (ReAct)
        if not free(m.start(2)):
            continue
        if _key(m.group(1)) not in _SUBMIT:
            taken.append((m.start(), m.end()))  # a tool's input is no answer
            continue
        v = m.group(2).strip()
        v = v[1:-1].strip() if m.re is _REACT_LINE and v[:1] == "[" else v  # finish[A]
        try:
            found, unknown = rd.obj(json.loads(v)) if v[:1] in "{[" else ([text(v)], [])
        except ValueError:
            try:  # LangChain logs the arguments as a Python dict: read as a literal, never evaluated
                found, unknown = rd.obj(_literal(_parse(v))) if v[:1] == "{" else ([text(v)], [])
            except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
                found, unknown = [text(v)], []
        add(m.start(), m.end(), found, unknown, "call")
    attempts = 0
    i = t.find("{")
    while i >= 0 and attempts < 64:
        attempts += 1
        if free(i):
            j = len(t[:i].rstrip()) - 1  # a list of objects ([{"image": 2, ...}, ...], content blocks) is one value
            end = _close(t, j, "[", "]") if j >= 0 and t[j] == "[" and free(j) else -1
            try:
                data = json.loads(t[j:end]) if end > 0 else None
            except ValueError:
                data = None
            if isinstance(data, list) and (spec.kind == ORIENTED or all(isinstance(x, dict) and "type" in x for x in data)):
                add(j, end, *rd.obj(data), "json")
                i = t.find("{", end)
                continue
            end = _close(t, i, "{", "}")
            data = None
            if end > 0:
                try:
                    data = json.loads(t[i:end])
                except ValueError:
                    try:
                        data = _literal(_parse(t[i:end]))
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
            call = _parse(t[m.start():end].replace("\n", " "))
            args = [_literal(a) for a in call.args] if isinstance(call, ast.Call) else None
            kw = {k.arg: _literal(k.value) for k in call.keywords if k.arg} if isinstance(call, ast.Call) else None
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            continue
        if args is None:
            continue
        found, unknown = rd.obj(args[0]) if len(args) == 1 and isinstance(args[0], dict) and not kw else ([], [])
        found += [rd.value(a) for a in args[:1] if not isinstance(a, dict) or kw]
        block = spec.kind == ANOMALY and any(_key(k) in _ANOMALY_KEYS for k in kw)  # else "submit(answer='Judgment: A')"
        found += [rd.value(v, k) for k, v in kw.items() if _key(k) in _ANSWER_KEYS or block]
        unknown += [k for k in kw if _key(k) not in _ANSWER_KEYS and _key(k) not in _NEUTRAL and not block]
        found, unknown = [rd.anomaly(kw)] if block else found, unknown + ["a second argument"] * (len(args) > 1)
        wrap = re.compile(r"print\(\s*\Z").search(t, line_start, m.start()) if t[end:].lstrip(" ").startswith(")") else None
        start, end = (wrap.start(), t.index(")", end) + 1) if wrap else (m.start(), end)  # Gemini: "print(api.submit(...))"
        ret = _RETURNS.match(t, end)  # "submit_answer(answer='B') -> {'status': 'ok'}": the tool's reply, not the model's
        reply = _close(t, ret.end() - 1, "{", "}") if ret else -1
        if reply > 0:
            taken.append((ret.end() - 1, reply))
            end = reply
        add(start, end, found, unknown, "call")
    assigned: dict[str, tuple[re.Match, Any]] = {}
    for m in _ASSIGN.finditer(t) if "=" in t else ():
        if not free(m.start()) or _key(m.group(1)) not in _ANSWER_KEYS - {"value", "mask"}:
            continue
        try:
            v = _literal(_parse(m.group(2)))
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            continue
        if _key(m.group(1)) in assigned:  # reassigned: as in the code, the last value counts
            was = assigned[_key(m.group(1))][0]
            out.append(Claim(was.start(), was.end(2), None, "", "void"))
        assigned[_key(m.group(1))] = (m, v)
    fields = {k: mv for k, mv in assigned.items() if spec.kind == ANOMALY and k in _ANOMALY_KEYS}
    if fields:  # judgment = 'B'; error_position = 'A'; error_type = 'B'
        ms = [m for m, _ in fields.values()]
        add(min(m.start() for m in ms), max(m.end(2) for m in ms), [rd.anomaly({k: v for k, (_, v) in fields.items()})],
            [], "code")
    for k, (m, v) in assigned.items():
        if k not in fields:
            add(m.start(), m.end(2), [rd.value(v, m.group(1))], [], "code")
    for m in _RANK_LINES.finditer(t) if ("1st" in t or "irst" in t or "#1" in t) else ():
        if free(m.start()):
            top = re.findall(r"^[ \t*\-]*(?:1st|#1|first)[^:.)\-\n]*[:.)\-][ \t]*[(\[]?([A-Z])", m.group(0), re.M | re.I)
            add(m.start(), m.end(), [(top[0], "") if len(top) == 1 and top[0] in spec.letters else
                                     (None, "the first rank is not one option")], [], "ranking")
    for m in _RANKING.finditer(t) if ("<" in t or ">" in t or "ank" in t) else ():
        if free(m.start()):
            add(m.start(), m.end(), [_ranked(m, spec)], [], "ranking")
    for m in _TABLE.finditer(t) if "|" in t else ():
        if free(m.start()):
            c = _table(t, m, spec, text, rd.anomaly)
            if c is not None:
                out.append(c)
                taken.append((c.start, c.end))
    c = _statuses(t, spec) if spec.kind == ANOMALY else None
    if c is not None and free(c.start):
        out.append(c)
    if spec.kind == CHOICE:
        c = _verdicts(t, spec, free)
        if c is not None:
            out.append(c)
    for m in _NAMED_TAG.finditer(t) if "</" in t else ():  # another tag holding an answer: its name known, or none
        if free(m.start()) and not _PLAIN_TAG.match(m.group(0)) and m.group(1).lower() not in ("s", "del", "strike") and \
                text(m.group(2))[0] is not None:
            add(m.start(), m.end(), [text(m.group(2))], [] if _key(m.group(1)) in _ANSWER_KEYS else [m.group(1)], "tag")
    return sorted(out, key=lambda c: c.end)


__all__ = ["Claim", "claims"]
