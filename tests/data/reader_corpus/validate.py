"""Checks a corpus JSONL file's shape (not its verdicts' truth): python validate.py FILE.jsonl"""
import json, re, sys
from collections import Counter

CONFIGS = {  # config -> (kind, option letters or grid size)
    "missing_piece_selection_easy": ("choice", "ABCD"), "missing_piece_selection_hard": ("choice", "ABCD"),
    "piece_localization_easy": ("choice", "AB"), "piece_localization_hard": ("choice", "ABCD"),
    "connection_verification": ("choice", "ABC"), "order_restoration": ("choice", "ABCD"),
    "anomaly_detection": ("anomaly", "ABCD"), "order_generation": ("order", 4),
    "order_generation_3x3": ("order", 9), "anomaly_detection_3x3": ("anomaly", "ABCDEFGHI"),
    "connection_verification_3x3_8dir": ("choice", "ABCDEFGH"),
    "missing_piece_selection_easy_3x3_k6": ("choice", "ABCDEF"), "order_generation_2x2_rot": ("oriented", 4),
    "order_generation_tabs": ("order", 4), "order_restoration_tabs": ("choice", "ABCD"),
    "connection_verification_tabs": ("choice", "ABC"), "anomaly_detection_tabs": ("anomaly", "ABCD"),
    "piece_localization_hard_tabs": ("choice", "ABCD"), "missing_piece_selection_easy_tabs": ("choice", "ABCD"),
}
KEYS = {"id", "family", "config", "options", "output", "verdict", "borderline", "note"}


def check(rec):
    if set(rec) != KEYS:
        return f"keys {sorted(set(rec) ^ KEYS)}"
    if rec["config"] not in CONFIGS:
        return f"unknown config {rec['config']!r}"
    kind, space = CONFIGS[rec["config"]]
    if not isinstance(rec["output"], str) or not isinstance(rec["borderline"], bool):
        return "output must be a string, borderline a bool"
    if rec["config"].startswith("order_restoration"):
        o = rec["options"]
        if not (isinstance(o, list) and len(o) == 4 and all(re.fullmatch(r"\[\d, \d, \d, \d\]", x) for x in o)):
            return "order_restoration needs options: four lists like '[2, 3, 1, 4]'"
    elif rec["options"] is not None:
        return "options must be null except for order_restoration configs"
    v = rec["verdict"]
    if v is None:
        return None
    if kind == "choice":
        return None if isinstance(v, str) and len(v) == 1 and v in space else f"verdict must be one of {space}"
    if kind == "order":
        m = re.fullmatch(r"\[(\d(?:, \d)*)\]", v or "")
        ok = m and sorted(map(int, m.group(1).split(", "))) == list(range(1, space + 1))
        return None if ok else f"verdict must be a permutation list like [2, 3, 1, 4] of 1..{space}"
    if kind == "oriented":
        pairs = re.findall(r"\((\d), (\d+)\)", v)
        ok = re.fullmatch(r"\[\(\d, \d+\)(?:, \(\d, \d+\))*\]", v) and sorted(int(i) for i, _ in pairs) == [1, 2, 3, 4] \
            and all(int(r) in (0, 90, 180, 270) for _, r in pairs)
        return None if ok else "verdict must look like [(2, 90), (3, 0), (1, 270), (4, 180)]"
    ok = v == "Judgment: A\nError Position:\nError Type:" or re.fullmatch(
        r"Judgment: B\nError Position: ([A-I])\nError Type: [AB]", v) and v.split("\n")[1][-1] in space
    return None if ok else "anomaly verdict must be 'Judgment: A\\nError Position:\\nError Type:' or 'Judgment: B\\nError Position: C\\nError Type: A'"


def main(path):
    bad, n, fam, nulls, ids = 0, 0, Counter(), 0, set()
    for i, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            print(f"line {i}: not JSON: {e}"); bad += 1; continue
        why = check(rec)
        if rec.get("id") in ids:
            why = f"duplicate id {rec.get('id')}"
        ids.add(rec.get("id"))
        if why:
            print(f"line {i} ({rec.get('id')}): {why}"); bad += 1
        n += 1; fam[rec.get("family")] += 1; nulls += rec.get("verdict") is None
    print(f"{n} records, {bad} bad, {len(fam)} families, {nulls} with no answer ({100 * nulls / max(n, 1):.0f}%)")
    for f, c in sorted(fam.items()):
        print(f"  {f}: {c}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
