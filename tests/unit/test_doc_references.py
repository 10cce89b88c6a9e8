"""A comment or a doc names only files, modules and functions that exist.

The prose is every Markdown file (docs/*.md, the READMEs), and the comments and docstrings of
our Python and JavaScript (vendored code and the rulebooks, which are quoted sources, aside).
What it names and this test checks:

- a path (``functions/service/protocol/frames.py``, ``docs/rules.md``, ``web/js/``): a tracked file or
  folder, from the repository's root, from the folder of the file that names it, or from one
  of the roots the prose abbreviates (``service/x.py`` for functions/service/x.py,
  ``mafia_engine/x.py``, ``js/x.js``, ``tests/x``);
- a bare file name with an extension (``catalogue.py``): some tracked file has that name;
- a backticked ``module.name`` whose ``module`` is one of our Python modules (or a class of
  our production code): ``name`` is defined there (a function, class, assignment,
  ``self.name``, an import, a submodule, or a name a module ``__getattr__`` answers).

Words the docs use for stored data that happen to share a module's name (``room.wakeAt``,
``state.log``) are not module references (``DATA``).
"""

from __future__ import annotations

import ast
import io
import os
import re
import subprocess
import tokenize
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILES = subprocess.run(
    ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
).stdout.splitlines()
TRACKED = set(FILES)
FOLDERS = {str(p) for f in FILES for p in Path(f).parents if str(p) != "."}
NAMES = {Path(f).name for f in FILES}
PROSE = [
    f
    for f in FILES
    if f.endswith((".py", ".md", ".js"))
    and not f.startswith(("web/vendor/", "docs/rulebooks/", "docs/schemas/"))
    and (ROOT / f).exists()
    and f != "tests/unit/test_doc_references.py"  # quotes stale names on purpose
]
# the roots prose abbreviates (service/x.py is functions/service/x.py)
BASES = (
    "",
    "functions/",
    "functions/service/",
    "layers/engine/",
    "layers/engine/mafia_engine/",
    "web/",
    "web/js/",
    "docs/",
)
# files of other projects the prose names, and whose they are
ELSEWHERE = {
    "botocore/handlers.py": "botocore",
    "dynamo_type.py": "moto",
    "DerivedCoreProperties.txt": "the Unicode Character Database",
    # made by a build, never in the repository
    ".aws-sam/": "sam build's output folder",
    "build/web/": "the built client (`make web`, scripts/build_web.mjs)",
    "build/web/js/": "the built client's scripts",
    "translated.json": "ops/translate.py's output",
    "python/": "the layer's folder inside a built artifact (/opt/python)",
    "bin/": "pip --target's scripts folder inside a built artifact",
    "jp.py": "jmespath's script, which pip --target writes into bin/",
}
EXT = r"py|md|js|mjs|json|txt|yaml|yml|toml|sh|css|html|lock|png|svg|webmanifest"
PATH = re.compile(
    rf"(?<![\w/.:*<>}}-])((?:[\w.-]+/)+(?:[\w.-]+\.(?:{EXT})\b|(?=[`\s)]))|[\w-]+\.(?:{EXT})\b)"
)
TICKED = re.compile(r"``?([^`\s][^`]*?)``?")
DOTTED = re.compile(r"^([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)(?:\(\))?$")
DATA = frozenset({"room", "state", "fairness", "chat", "scheduler"})
PRODUCTION = ("layers/", "functions/", "local/", "harness/", "scripts/", "ops/", "bench/")


def prose(path: str) -> list[tuple[int, str]]:
    """(line number, text) of the prose of a file: a .md whole, comments and docstrings else."""
    text = (ROOT / path).read_text(encoding="utf-8")
    if path.endswith(".md"):
        return list(enumerate(text.splitlines(), 1))
    out: list[tuple[int, str]] = []
    if path.endswith(".py"):
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.string))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = node.body[0] if node.body else None
                if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant):
                    if isinstance(doc.value.value, str):
                        out.extend((doc.lineno + i, s) for i, s in enumerate(doc.value.value.splitlines()))
    else:  # JavaScript comments
        for m in re.finditer(r"(?<!:)//[^\n]*|/\*.*?\*/", text, re.S):
            first = text.count("\n", 0, m.start()) + 1
            out.extend((first + i, s) for i, s in enumerate(m.group(0).splitlines()))
    return out


def path_exists(name: str, named_in: str) -> bool:
    if name in ELSEWHERE or name.startswith("./"):  # ./x.js: an example of a relative import
        return True
    folder = name.endswith("/")
    name = name.rstrip("/")
    if "/" not in name:
        return name in ({Path(d).name for d in FOLDERS} if folder else NAMES)
    here = os.path.normpath(os.path.join(os.path.dirname(named_in), name))
    return (
        here in TRACKED
        or here in FOLDERS
        or any(os.path.normpath(b + name) in TRACKED | FOLDERS for b in BASES)
    )


def _stem(path: str) -> str:
    p = Path(path)
    return p.parent.name if p.name == "__init__.py" else p.stem


MODULES: dict[str, list[str]] = {}
for _f in FILES:
    if _f.endswith(".py") and not _f.startswith("web/vendor/"):
        MODULES.setdefault(_stem(_f), []).append(_f)


@cache
def defined(path: str) -> frozenset[str]:
    """Every name ``path`` defines or imports (and, for a package, its modules)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            if node.name == "__getattr__":  # names a module answers lazily
                names.update(
                    c.value
                    for c in ast.walk(node)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                )
        elif isinstance(node, ast.Name | ast.arg) and isinstance(
            getattr(node, "ctx", ast.Store()), ast.Store
        ):
            names.add(node.id if isinstance(node, ast.Name) else node.arg)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    if path.endswith("__init__.py"):
        folder = str(Path(path).parent)
        names.update(
            _stem(f) for f in FILES if str(Path(f).parent) == folder or str(Path(f).parent.parent) == folder
        )
    return frozenset(names)


@cache
def classes() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in FILES:
        if f.endswith(".py") and f.startswith(PRODUCTION):
            for name in re.findall(r"^\s*class\s+(\w+)", (ROOT / f).read_text(encoding="utf-8"), re.M):
                out.setdefault(name, []).append(f)
    return out


def stale_names(path: str) -> list[str]:
    found = []
    for no, line in prose(path):
        for m in PATH.finditer(line):
            name = m.group(1)
            if "://" in line[max(0, m.start() - 8) : m.start() + 1] or "<" in name or "*" in name:
                continue
            if not path_exists(name, path):
                found.append(f"{path}:{no}: no file {name}")
        for m in TICKED.finditer(line):
            d = DOTTED.match(m.group(1).strip())
            if d is None or re.search(rf"\.(?:{EXT})$", m.group(1)) or d.group(1) in DATA:
                continue
            head, attr = d.group(1), d.group(2)[1:].split(".")[0]
            where = MODULES.get(head) or classes().get(head)
            if where and not any(attr in defined(f) for f in where):
                found.append(f"{path}:{no}: {head} has no {attr} ({m.group(1)})")
    return found


def test_every_file_module_and_function_the_prose_names_exists() -> None:
    found = [s for path in PROSE for s in stale_names(path)]
    assert not found, "\n".join(found)


def test_the_check_sees_a_stale_name(tmp_path) -> None:
    """The checks above fail on what they are for (the names this test found once)."""
    assert not path_exists("catalogue.py", "layers/engine/mafia_engine/roles.py")
    assert not path_exists("tests/functions/test_nothing_here.py", "docs/operations.md")
    assert path_exists("functions/service/protocol/frames.py", "docs/protocol.md")
    assert path_exists("service/protocol/frames.py", "docs/protocol.md")
    assert path_exists("../dom.js", "web/js/game/chat.js")
    assert "build" not in defined("functions/service/protocol/views.py")
    assert "game_view" in defined("functions/service/protocol/views.py")
    assert "FRAMES" in defined("functions/service/protocol/frames.py")  # a module __getattr__'s name
