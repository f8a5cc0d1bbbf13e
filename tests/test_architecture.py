"""The package's shape: a small root, area packages that import only downward, no import cycle, small modules."""

from __future__ import annotations

import ast
import re
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


def bound_twice(source: str) -> set[str]:
    """The names a module binds more than once at its top level (an assignment, a def, a class, an import)."""
    seen: dict[str, int] = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            names = [t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            # "import urllib.error" and "import urllib.request" bind one package: not counted
            names = [a.asname or a.name for a in node.names if a.asname or "." not in a.name]
        else:
            continue
        for n in names:
            seen[n] = seen.get(n, 0) + 1
    return {n for n, k in seen.items() if k > 1 and n != "__all__"}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_binds_a_name_twice(name):
    """A second top-level binding silently replaces the first for every function that reads the name: the reader's
    ``_CLAUSE_END`` was defined twice, and the first definition was dead code for ten sessions."""
    assert bound_twice(MODULES[name].read_text(encoding="utf-8")) == set()


def test_the_twice_bound_check_sees_a_second_binding():
    assert bound_twice("import re\nX = re.compile('a')\ndef f():\n    return X\nX = re.compile('b')\n") == {"X"}
    assert bound_twice("X = 1\nY: int = 2\ndef f():\n    X = 3\n") == set()


def test_readme_configs_table_follows_the_spec():
    from jigsaw_puzzles.spec import CONFIGS

    readme = (ROOT.parents[1] / "README.md").read_text(encoding="utf-8")
    for name, spec in CONFIGS.items():
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{name}` |"))
        assert spec.title in row and f"{100 * spec.chance:.2f}%" in row, row
    assert readme.count("\n") <= 250


#: The root: the face (``__init__``, the CLI) and the foundations every area may use.
FOUNDATIONS = {"_version", "spec", "prompts", "errors", "rng", "geometry", "cli_tools"}
FACE = {"__init__", "cli"}
#: The areas, lowest first: each may import the foundations and the areas before it, never one after it.
AREAS = ["baselines", "scoring", "generation", "inference", "publishing", "human", "training", "interactive",
         "reporting", "analysis", "integrations"]


def area_of(name: str) -> str:
    """``foundation``, ``face`` or the area package a module belongs to."""
    head = name.split(".")[1] if "." in name else "__init__"
    if head in FOUNDATIONS:
        return "foundation"
    if head in FACE:
        return "face"
    assert head in AREAS, f"{name} lies in no declared area (add its package to AREAS in its place)"
    return head


def test_the_root_holds_at_most_ten_modules_and_only_areas_besides():
    modules = sorted(p.stem for p in ROOT.glob("*.py"))
    assert len(modules) <= 10, f"{len(modules)} modules at the package root: {modules}"
    assert set(modules) == FOUNDATIONS | FACE, f"root modules not declared as face or foundation: {modules}"
    packages = sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file())
    assert packages == sorted(AREAS), f"packages at the root that are not declared areas: {packages}"


@pytest.mark.parametrize("area", AREAS)
def test_each_area_says_what_it_owns_and_what_it_may_import(area):
    doc = ast.get_docstring(ast.parse((ROOT / area / "__init__.py").read_text(encoding="utf-8"))) or ""
    assert "May import:" in doc.splitlines()[1], f"{area}'s docstring: line 2 must say what it may import"


def upward_imports(graph) -> list[str]:
    rank = {a: i for i, a in enumerate(AREAS)}
    wrong = []
    for mod, targets in graph.items():
        src = area_of(mod)
        for target in targets:
            dst = area_of(target)
            if src == "face" or src == dst:
                continue
            if dst == "face" or (src == "foundation" and dst != "foundation") or \
                    (dst != "foundation" and src != "foundation" and rank[dst] > rank[src]):
                wrong.append(f"{mod} ({src}) imports {target} ({dst})")
    return sorted(wrong)


def test_areas_import_only_downward():
    wrong = upward_imports(GRAPH)
    assert not wrong, "upward imports:\n" + "\n".join(wrong)


def test_the_order_test_sees_an_upward_import():
    """The order check is not vacuous: the graph has cross-area edges, and planted upward ones are caught."""
    cross = [(m, t) for m, ts in GRAPH.items() for t in ts if area_of(m) not in ("face", area_of(t))]
    assert len(cross) > 50
    planted = {"jigsaw_puzzles.scoring.score": {"jigsaw_puzzles.generation.builder"},
               "jigsaw_puzzles.spec": {"jigsaw_puzzles.scoring.score"},
               "jigsaw_puzzles.training.stream": {"jigsaw_puzzles.cli"},
               "jigsaw_puzzles.reporting.report": {"jigsaw_puzzles.human.pool"}}
    assert len(upward_imports(planted)) == 3


#: ``jp.__all__`` as it stood before the areas moved (0.3.0): a name may join the face, none may leave it.
FACE_0_3 = ["METRIC_PATH", "CONFIGS", "SPLITS", "JigsawPuzzles", "JigsawPuzzlesConfig", "load_dataset", "make_builder",
            "CurationRules", "curate", "spec", "ConfigUnavailable", "UserError", "Extraction", "classify_response",
            "config_from_id", "extract_answer", "PAPER_TABLE2", "chance_table", "score", "score_items",
            "jigsaw_reward", "make_compute_metrics", "make_jigsaw_reward", "evaluate_model", "rewards",
            "training_stream", "to_messages", "with_prompt", "Curriculum", "holdout", "__version__"]
#: The area imports the docs may show (the package docstring lists them); everything else goes through ``jp.*``.
DOCUMENTED_AREAS = {"jigsaw_puzzles.interactive", "jigsaw_puzzles.interactive.gym_env", "jigsaw_puzzles.baselines",
                    "jigsaw_puzzles.analysis", "jigsaw_puzzles.human"}


def test_the_face_keeps_every_name_and_each_resolves():
    import jigsaw_puzzles as jp

    assert set(FACE_0_3) <= set(jp.__all__), sorted(set(FACE_0_3) - set(jp.__all__))
    for name in jp.__all__:
        assert getattr(jp, name) is not None, name
        assert f"``jp.{name}``" in jp.__doc__ or name in ("__version__",), f"jp.{name} is not listed in the face"
    for module in DOCUMENTED_AREAS:
        assert module in jp.__doc__, module


def test_readme_docs_and_examples_import_only_the_face():
    repo = ROOT.parents[1]
    texts = [repo / "README.md", *sorted((repo / "docs").glob("*.md")), *sorted((repo / "examples").glob("*.py"))]
    seen, wrong = 0, []
    for path in texts:
        for module in re.findall(r"(?:from|import)\s+(jigsaw_puzzles(?:\.\w+)+)", path.read_text("utf-8")):
            seen += 1
            if module not in DOCUMENTED_AREAS:
                wrong.append(f"{path.name}: {module}")
    assert seen >= 5 and not wrong, wrong
