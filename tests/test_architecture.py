"""The package's shape: no import cycles, no module importing its own package's face, small modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "src" / "jigsaw_puzzles"
PACKAGE = "jigsaw_puzzles"


def module_name(path: Path) -> str:
    parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def is_package(name: str) -> bool:
    return MODULES.get(name) is not None and MODULES[name].name == "__init__.py"


def imports_of(name: str) -> set[str]:
    """Every intra-package module ``name`` imports, at any depth of the file (lazy imports too)."""
    path = MODULES[name]
    base = name if is_package(name) else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                mod = ".".join(anchor + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in MODULES and target != name:
                out.add(target)
    return out


GRAPH = {name: imports_of(name) for name in MODULES}


def test_no_module_imports_its_own_package_face():
    upward = sorted((m, t) for m, targets in GRAPH.items() for t in targets
                    if is_package(t) and m.startswith(t + ".") and not is_package(m))
    assert not upward, f"modules importing from their package's __init__ (import the module instead): {upward}"


def test_no_import_cycles():
    # Package faces (__init__) re-export their submodules by design; cycles through them are not
    # real dependencies, so they are left out of the walk.
    graph = {m: {t for t in ts if not is_package(t)} for m, ts in GRAPH.items() if not is_package(m)}
    state: dict[str, int] = {}
    cycles = []

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, f"import cycles: {cycles}"


def test_the_contract_module_depends_on_nothing_in_the_package():
    assert GRAPH[f"{PACKAGE}.spec"] == set()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_stay_small(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= 460, f"{name} has {lines} lines: split it by concern"


def test_readme_configs_table_follows_the_spec():
    from jigsaw_puzzles.spec import CONFIGS

    readme = (ROOT.parents[1] / "README.md").read_text(encoding="utf-8")
    for name, spec in CONFIGS.items():
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{name}` |"))
        assert spec.title in row and f"{100 * spec.chance:.2f}%" in row, row
    assert readme.count("\n") <= 250
