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
  ``self.name``, an import, a submodule, or a name a module ``__getattr__`` answers);
- a backticked dotted name from one of our packages' roots (``service.room.rooms.X``,
  ``mafia_engine.views.Y``): the modules it walks exist and the name after them is defined;
- a backticked ``module.name`` whose ``module`` was one of our modules and is no longer (a file
  the history deleted and nothing took its name): the reference outlived its module;
- a path to a file followed by a name in code's own spelling (``service/room/rooms.py
  ROOM_CODE_LENGTH``, ``bot-lines.js localBotNames``: a constant, a snake_case or camelCase
  name, or ``name()``): the file defines it.

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
# a dotted name outside backticks (`service.room.rooms.X`, `viewdiff.diff`)
BARE_DOTTED = re.compile(r"(?<![\w./`-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?(?![\w`/-])")
DATA = frozenset({"room", "state", "fairness", "chat", "scheduler"})
PRODUCTION = ("layers/", "functions/", "local/", "harness/", "scripts/", "ops/", "bench/")
# a command line's script and its arguments (``python scripts/bytecode.py DIR``), not a citation
COMMAND = re.compile(r"\bpython3?(?: -m)?\s+$")
# where the roots of our Python packages live (`service.room.rooms` is functions/service/room/rooms.py)
PACKAGE_ROOTS = {"service": "functions/", "handlers": "functions/", "mafia_engine": "layers/engine/"} | {
    top: "" for top in ("harness", "local", "ops", "bench", "scripts", "tests")
}
# a name in code's own spelling right after a path: CONSTANT, snake_case, camelCase, name()
CODE_NAME = re.compile(
    r"\s+`?([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{2}[A-Z0-9]+|[a-z]\w*_\w+|[a-z]+[A-Z]\w*|\w+(?=\(\)))`?(?![\w.(/-])"
)


def prose(path: str, text: str | None = None) -> list[tuple[int, str]]:
    """(line number, text) of the prose of a file (or of ``text`` as if it were that file): a
    .md whole, comments and docstrings else."""
    text = (ROOT / path).read_text(encoding="utf-8") if text is None else text
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
def gone_modules() -> frozenset[str]:
    """Names of our modules the history deleted and no file of today took (``viewdiff``)."""
    deleted = subprocess.run(
        ["git", "log", "--no-renames", "--diff-filter=D", "--name-only", "--format=", "--", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return frozenset(_stem(f) for f in deleted) - set(MODULES)


def module_file(dotted: list[str]) -> tuple[str | None, int]:
    """The file of the longest run of ``dotted`` that is one of our modules (or folders), and
    how many parts it took: ``service.room.rooms.X`` is (functions/service/room/rooms.py, 4)."""
    base = PACKAGE_ROOTS[dotted[0]]
    for n in range(len(dotted), 0, -1):
        path = base + "/".join(dotted[:n])
        for f in (path + ".py", path + "/__init__.py"):
            if f in TRACKED:
                return f, n
        if path in FOLDERS:
            return None, n
    return None, 0


def dotted_stale(name: str) -> str | None:
    """What is wrong with a backticked dotted name (``head.attr…``), or None."""
    d = DOTTED.match(name.strip())
    if d is None or re.search(rf"\.(?:{EXT})$", name) or d.group(1) in DATA:
        return None
    head, parts = d.group(1), d.group(2)[1:].split(".")
    if head in PACKAGE_ROOTS:
        dotted = [head, *parts]
        f, n = module_file(dotted)
        if n == len(dotted):
            return None
        if f is None:  # a folder, or nothing: the next part is no module of it
            return f"no module {'.'.join(dotted[: n + 1])} ({name})"
        return None if dotted[n] in defined(f) else f"{'.'.join(dotted[:n])} has no {dotted[n]} ({name})"
    where = MODULES.get(head) or classes().get(head)
    if where:
        return None if any(parts[0] in defined(f) for f in where) else f"{head} has no {parts[0]} ({name})"
    if head in gone_modules():
        return f"no module {head} any more ({name})"
    return None


@cache
def names_in(path: str) -> str:
    """The words of a tracked file, to find a name a path cites in it."""
    return (ROOT / path).read_text(encoding="utf-8")


def file_of(name: str, named_in: str) -> str | None:
    """The tracked file a cited path means (as `path_exists` reads it), or None."""
    here = os.path.normpath(os.path.join(os.path.dirname(named_in), name))
    if here in TRACKED:
        return here
    if "/" not in name:
        hits = [f for f in FILES if Path(f).name == name]
        return hits[0] if len(hits) == 1 else None
    return next((os.path.normpath(b + name) for b in BASES if os.path.normpath(b + name) in TRACKED), None)


def cited_name_stale(name: str, after: str, named_in: str) -> str | None:
    """What is wrong with the code name right after a cited file (``rooms.py ROOM_CODE_LENGTH``)."""
    if not name.endswith((".py", ".js", ".mjs")):
        return None
    m = CODE_NAME.match(after)
    f = file_of(name, named_in) if m else None
    if f is None:
        return None
    word = m.group(1)
    if f.endswith(".py"):
        ok = word in defined(f)
    else:
        ok = re.search(rf"\b{re.escape(word)}\b", names_in(f)) is not None
    return None if ok else f"{name} has no {word}"


@cache
def classes() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in FILES:
        if f.endswith(".py") and f.startswith(PRODUCTION):
            for name in re.findall(r"^\s*class\s+(\w+)", (ROOT / f).read_text(encoding="utf-8"), re.M):
                out.setdefault(name, []).append(f)
    return out


def stale_names(path: str, text: str | None = None) -> list[str]:
    found = []
    for no, line in prose(path, text):
        for m in PATH.finditer(line):
            name = m.group(1)
            if "://" in line[max(0, m.start() - 8) : m.start() + 1] or "<" in name or "*" in name:
                continue
            if not path_exists(name, path):
                found.append(f"{path}:{no}: no file {name}")
            elif not COMMAND.search(line[: m.start()]) and (
                why := cited_name_stale(name, line[m.end() :], path)
            ):
                found.append(f"{path}:{no}: {why}")
        for m in TICKED.finditer(line):
            if why := dotted_stale(m.group(1)):
                found.append(f"{path}:{no}: {why}")
        for m in BARE_DOTTED.finditer(line):  # bare: only heads no variable is named after
            head = m.group(1).split(".")[0]
            if (head in PACKAGE_ROOTS or head in gone_modules()) and (why := dotted_stale(m.group(1))):
                found.append(f"{path}:{no}: {why}")
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


def test_the_check_sees_a_name_that_outlived_its_module() -> None:
    """A dotted name whose module is gone, and a constant that moved out of the file cited."""
    assert "viewdiff" in gone_modules() and "views" not in gone_modules()
    assert "no module viewdiff" in dotted_stale("viewdiff.diff")
    assert "service.room has no nothing" in dotted_stale("service.room.nothing.X")
    assert "has no ROOM_CODE_LENGTH" in dotted_stale("service.room.rooms.ROOM_CODE_LENGTH")
    assert dotted_stale("service.protocol.roomcode.ROOM_CODE_LENGTH") is None
    assert dotted_stale("mafia_engine.views") is None
    home = "web/js/screens/home.js"
    moved = "// Room codes are 5 letters and digits (functions/service/room/rooms.py ROOM_CODE_LENGTH).\n"
    assert stale_names(home, moved) == [f"{home}:1: functions/service/room/rooms.py has no ROOM_CODE_LENGTH"]
    assert stale_names(home, moved.replace("room/rooms.py", "protocol/roomcode.py")) == []
    gone = '"""Views go out as patches (viewdiff.diff), see `unitofwork.Unit`."""\n'
    assert len(stale_names("functions/service/x.py", gone)) == 2
    assert stale_names("web/js/game/x.js", "// as bot-lines.js localBotNames does\n") == []
    assert stale_names("web/js/game/x.js", "// as bot-lines.js localBotNamez does\n") != []
    assert stale_names("scripts/x.py", '"""python scripts/bytecode.py DIR"""\n') == []
