"""No import cycles in the packages listed in `PACKAGES`.

Every `import` counts wherever it stands: at module level, under `if TYPE_CHECKING:`, and
inside a function. An import moved into a function hides a loop from Python's start-up but
not from the reader, who still has to hold both modules in mind at once; so the check reads
the source (`ast`), never runs it, and reports each cycle as the chain of modules that
closes it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The packages checked, each a directory whose parent is on sys.path (pyproject.toml's
# `pythonpath`): the module name is the path from that parent.
PACKAGES = ("layers/engine/mafia_engine", "functions/service", "functions/handlers", "functions/sitedeploy", "local")


def modules(package_dir: Path) -> dict[str, Path]:
    """{dotted module name: file} for every module of the package at `package_dir`."""
    base = package_dir.parent
    out = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that module `name` imports, anywhere in its source."""
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = here.split(".")
                anchor = ".".join(parts[: len(parts) - node.level + 1])
                source = f"{anchor}.{node.module}" if node.module else anchor
            else:
                source = node.module or ""
            # `from pkg import mod` imports the module pkg.mod; `from pkg import name`, pkg itself
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in known else source for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import a.b.c` of a module `a.b`
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def graph(package_dirs: list[Path]) -> dict[str, set[str]]:
    """Import edges between the modules of the given packages."""
    known: dict[str, Path] = {}
    for d in package_dirs:
        known.update(modules(d))
    return {name: _imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module, each as one closing chain
    (`a -> b -> ... -> a`), found by Tarjan's algorithm without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(_chain(sorted(group), edges))
    return groups


def _chain(group: list[str], edges: dict[str, set[str]]) -> list[str]:
    """One cycle through the group's first module: a shortest path back to it."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(edges[node] & members):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    return group


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycles(package):
    found = cycles(graph([ROOT / p for p in PACKAGES]))
    mine = [c for c in found if any(m.split(".")[0] == Path(package).name for m in c)]
    assert not mine, "import cycles:\n" + "\n".join(" -> ".join(c) for c in mine)


def test_the_check_finds_a_cycle_through_an_import_inside_a_function(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .sub.c import g\n    return g\n")
    (pkg / "sub" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n"
    )
    (pkg / "d.py").write_text("from .a import x\n")  # imports into the loop, not part of it
    assert cycles(graph([pkg])) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]


def test_the_check_sees_the_modules_of_every_listed_package():
    edges = graph([ROOT / p for p in PACKAGES])
    assert {"service.room.pipeline", "service.room.rooms", "handlers.ws_default", "local.gateway"} <= set(edges)
    assert "service.room.change" in edges["service.room.pipeline"]  # a relative `from .x import y`
    assert "service.protocol.frames" in edges["service.room.rooms"]  # `from ..protocol import frames`
