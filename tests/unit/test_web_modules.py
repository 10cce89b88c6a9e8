"""The static client's modules (web/js, plain ES modules, no build step) form a graph a
reader can follow one way: no import cycle, and every name a module imports from another
is one that module exports. Read statically, so a split that loses an export or closes a
loop fails here, before a browser meets a module that will not load."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web" / "js"

# `import {a, b as c} from "./x.js"`, `import * as m from "./x.js"`, `import "./x.js"`,
# `export {a} from "./x.js"`, over several lines.
IMPORT = re.compile(r'^\s*(?:import|export)\s+(?:([^;"]*?)\s+from\s+)?"(\.{1,2}/[^"]+)"', re.M)
EXPORT = re.compile(
    r"^\s*export\s+(?:async\s+)?(?:function\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)", re.M
)
EXPORT_LIST = re.compile(r"^\s*export\s*\{([^}]*)\}", re.M)


def imports(path: Path) -> list[tuple[Path, set[str]]]:
    """What `path` imports: each local module with the names taken from it by name."""
    out = []
    for m in IMPORT.finditer(path.read_text(encoding="utf-8")):
        clause, spec = m.group(1) or "", m.group(2)
        names = set()
        braces = re.search(r"\{([^}]*)\}", clause)
        if braces:
            names = {n.split(" as ")[0].strip() for n in braces.group(1).split(",") if n.strip()}
        out.append(((path.parent / spec).resolve(), names))
    return out


def exports(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    names = set(EXPORT.findall(text))
    for block in EXPORT_LIST.findall(text):
        names |= {n.split(" as ")[-1].strip() for n in block.split(",") if n.strip()}
    return names


def graph(root: Path) -> dict[Path, set[Path]]:
    return {f.resolve(): {dep for dep, _ in imports(f)} for f in sorted(root.rglob("*.js"))}


def cycles(edges: dict[Path, set[Path]]) -> list[list[Path]]:
    """Every loop a depth-first walk meets (empty when the graph has none)."""
    found: list[list[Path]] = []
    state: dict[Path, int] = {}  # 1: on the walk's path, 2: done

    def walk(node: Path, path: list[Path]) -> None:
        state[node] = 1
        path.append(node)
        for dep in sorted(edges.get(node, ())):
            if state.get(dep) == 1:
                found.append(path[path.index(dep) :] + [dep])
            elif dep not in state:
                walk(dep, path)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            walk(node, [])
    return found


def test_web_client_modules_import_no_cycle():
    loops = [" -> ".join(str(p.relative_to(WEB)) for p in c) for c in cycles(graph(WEB))]
    assert not loops, loops


def test_every_imported_name_is_exported():
    missing = []
    for f in sorted(WEB.rglob("*.js")):
        for dep, names in imports(f):
            if not dep.is_file():
                missing.append(f"{f.relative_to(WEB)}: {dep.name} does not exist")
                continue
            for name in sorted(names - exports(dep)):
                missing.append(f"{f.relative_to(WEB)}: {dep.relative_to(WEB)} exports no {name}")
    assert not missing, missing


def test_the_checks_see_a_loop_and_a_lost_export(tmp_path):
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\nexport const a = 1;\n')
    (tmp_path / "b.js").write_text('import {\n  a,\n  gone as g,\n} from "./a.js";\nexport function b() {}\n')
    (tmp_path / "c.js").write_text('import "./a.js";\n')
    loops = cycles(graph(tmp_path))
    assert [[p.name for p in c] for c in loops] == [["a.js", "b.js", "a.js"]]
    assert imports(tmp_path / "b.js") == [((tmp_path / "a.js").resolve(), {"a", "gone"})]
    assert exports(tmp_path / "a.js") == {"a"}


def test_the_client_entry_is_the_page_script():
    # index.html and the service worker (web/sw.js) load js/app.js: the entry keeps its name.
    page = (WEB.parent / "index.html").read_text(encoding="utf-8")
    assert 'src="js/app.js"' in page
    assert (WEB / "app.js").is_file()


STORAGE = WEB / "storage.js"
# `name: "mafia.x",` inside storage.js's KEYS (a trailing "." marks a prefix: + a room code)
STORAGE_KEY = re.compile(r'^\s*(\w+):\s*"(mafia\.[\w.]*)"', re.M)
DIRECT_STORAGE = re.compile(r"\b(?:localStorage|sessionStorage)\b")


def storage_keys() -> dict[str, str]:
    return dict(STORAGE_KEY.findall(STORAGE.read_text(encoding="utf-8")))


def test_no_two_modules_keep_their_data_under_one_storage_key() -> None:
    """Everything the client keeps on the device sits under a `mafia.` key named once, in
    web/js/storage.js's KEYS. Two names for the same key, or a prefix key (a room's seat,
    `mafia.seat.` + code) that another key starts with, overwrite each other's data (the device
    key of one person, one seat once took single-device play's saved table, `mafia.device`)."""
    keys = storage_keys()
    assert keys, "storage.js declares the client's storage keys in KEYS"
    by_value: dict[str, list[str]] = {}
    for name, key in keys.items():
        by_value.setdefault(key, []).append(name)
    clashes = {k: v for k, v in by_value.items() if len(v) > 1}
    clashes |= {p: [k for k in by_value if k != p and k.startswith(p)] for p in by_value if p.endswith(".")}
    clashes = {k: v for k, v in clashes.items() if v}
    assert not clashes, clashes


def test_the_storage_keys_keep_their_names() -> None:
    """A seat, a setting or a note saved by an earlier client is found after an update: the
    key names are the ones players' browsers already hold (docs/rules.md, "in this browser")."""
    assert set(storage_keys().values()) == {
        "mafia.lang", "mafia.kid", "mafia.sound", "mafia.deviceKey", "mafia.seat.", "mafia.seen.",
        "mafia.session", "mafia.name", "mafia.former.", "mafia.mute.", "mafia.notes.", "mafia.away.",
        "mafia.inroom", "mafia.dealCommitments", "mafia.dealValue.", "mafia.device", "mafia.device.voice", "mafia.voiceVolume.", "mafia.signIn",
    }  # fmt: skip


def code_only(text: str) -> str:
    """The text without its comments (none of these modules has "//" inside a string)."""
    return re.sub(r"(?m)//.*$", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def test_only_the_storage_module_reads_the_browsers_storage() -> None:
    """One module keeps everything on the device (storage.js: named keys, JSON, storage that is
    off or full in a private window); every other module goes through it."""
    direct = {
        str(f.relative_to(WEB)): n
        for f in sorted(WEB.rglob("*.js"))
        if f != STORAGE and (n := len(DIRECT_STORAGE.findall(code_only(f.read_text(encoding="utf-8")))))
    }
    assert not direct, direct
