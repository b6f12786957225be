"""The shape of the code, measured from its imports (issue 17): no cycle, one direction, declarations only in tasks/.

The graph is built from every ``import`` / ``from ... import`` of the package's modules (at module
level and inside functions), not from a hand list of modules; only the order of the rooms
(:data:`ROOMS`, the one written in ``docs/architecture.md``) is declared here.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = "mteb_contrastive"
SRC = REPO / "src" / PACKAGE

#: the rooms of the package from the bottom up: a module may import its own room and the rooms below
ROOMS = (
    "config",
    "process_exit",
    "identity",
    "layout",
    "families",
    "compat",
    "data",
    "metrics",
    "encoding",
    "baselines",
    "search",
    "report",
    "training",
    "protocols",
    "sources",
    "tasks",
    "catalog",
    "models",
    "benchmarks",
    "plugin",
    "cli",
)


def modules() -> dict[str, Path]:
    """Module name -> file, for the package and the top-level ``tasks/`` (shipped as ``mteb_contrastive.tasks``)."""
    out = {}
    for p in sorted(SRC.rglob("*.py")):
        parts = list(p.relative_to(SRC.parent).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    for p in sorted((REPO / "tasks").glob("*.py")):  # rglob does not enter the tasks/ symlink
        out[f"{PACKAGE}.tasks" + ("" if p.stem == "__init__" else f".{p.stem}")] = p
    return out


def imports(mods: dict[str, Path]) -> dict[str, set[tuple[str, int, bool]]]:
    """Module -> {(imported module of the package, line, inside a function)}."""
    graph: dict[str, set[tuple[str, int, bool]]] = {m: set() for m in mods}
    for m, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_function = {
            id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolve against the module's package
                    base = m.split(".") if path.name == "__init__.py" else m.split(".")[:-1]
                    mod = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != m:
                    graph[m].add((t, node.lineno, id(node) in in_function))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_cycle_finder_finds_a_cycle_and_accepts_a_chain():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycle_among_the_modules():
    graph = {m: {t for t, _, _ in edges} for m, edges in imports(modules()).items()}
    assert len(graph) > 90  # the whole package was read
    assert cycles(graph) == []


def test_every_import_runs_down_the_rooms():
    mods = modules()
    unknown = sorted({room(m) for m in mods} - set(ROOMS) - {"__init__"})
    assert not unknown, f"rooms missing from ROOMS (and from docs/architecture.md): {unknown}"
    up = []
    for m, edges in imports(mods).items():
        for t, line, _ in edges:
            if room(m) == "__init__" or room(t) == room(m):
                continue  # the package face registers the plugin; a room's own modules
            if room(t) == "__init__" or ROOMS.index(room(t)) > ROOMS.index(room(m)):
                up.append(f"{mods[m].relative_to(REPO)}:{line} imports {t}")
    assert not up, "imports running up the rooms:\n" + "\n".join(up)


def test_tasks_import_only_protocols_and_sources():
    mods = modules()
    bad = [
        f"{mods[m].relative_to(REPO)}:{line} imports {t}"
        for m, edges in imports(mods).items()
        if room(m) == "tasks"
        for t, line, _ in edges
        if room(t) not in ("tasks", "protocols", "sources")
    ]
    assert not bad, "\n".join(bad)


def test_the_package_imports_its_own_modules_at_the_top_outside_the_cli():
    """In-function imports of the package hide which way dependencies run; only cli/ defers them (start-up time)."""
    mods = modules()
    inside = [
        f"{mods[m].relative_to(REPO)}:{line} imports {t}"
        for m, edges in imports(mods).items()
        if room(m) != "cli"
        for t, line, in_function in edges
        if in_function
    ]
    assert not inside, "\n".join(inside)


def test_the_rooms_of_the_docs_are_the_rooms_here():
    """docs/architecture.md's tree (the first code block under "## Rooms") lists the rooms from the top down."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    tree = text.split("## Rooms", 1)[1].split("```", 2)[1]
    listed = [
        line.split()[0].rstrip("/").removesuffix(".py")
        for line in tree.splitlines()
        if line.startswith("  ") and line.split()
    ]
    assert [r for r in listed if r in ROOMS] == list(reversed(ROOMS))
