"""The role catalogue: each preset declares its roles once, and every reader takes them from
the view's ``rules`` (roles, tasks, phase order), never from a list of its own."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import mafia_engine as me
from mafia_engine.presets import PRESETS, register, unregister
from mafia_engine.roles import CORE, TOWN, Role
from mafia_engine.tasks import TASKS
from mafia_engine.testing import random_game

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "layers" / "engine" / "mafia_engine"
ROLE_KEYS = {"id", "team", "night", "duties", "channel", "checkReads", "power", "voteWeight", "armor"}
TASK_KEYS = {"action", "targeted", "nullTarget", "night", "learns", "team", "aim", "channel"}


def _game(name: str, options: dict | None = None) -> tuple[dict, list[str]]:
    n = PRESETS[name].min_players
    ids = [f"p{i}" for i in range(1, n + 1)]
    return me.new_game(ids, {"preset": name, **(options or {})}, seed=5), ids


def test_every_view_carries_the_catalogue_the_same_for_every_viewer() -> None:
    for name in list(PRESETS):
        state, ids = _game(name)
        rules = [me.view(state, v)["rules"] for v in [None, *ids]]
        lobby = [me.lobby_view(ids, {"preset": name}, v)["rules"] for v in [None, *ids]]
        assert all(r == rules[0] for r in rules + lobby), name
        r = rules[0]
        assert r["roles"] and all(set(x) == ROLE_KEYS for x in r["roles"])
        assert set(r["tasks"]) == set(PRESETS[name].tasks)
        assert all(set(t) == TASK_KEYS for t in r["tasks"].values())
        assert r["order"] and all(isinstance(step["kind"], str) for step in r["order"])
        dealt = {p["role"] for p in me.dump(state)["players"]}
        assert dealt <= {x["id"] for x in r["roles"]}, name  # every dealt role is declared
        for x in r["roles"]:  # a role's night task is one the preset hands out
            assert all(t in r["tasks"] for t in x["duties"]), (name, x["id"])


def test_the_phase_order_follows_the_public_options() -> None:
    day, _ = _game("classic", {"firstPhase": "day"})
    night, _ = _game("classic", {"firstPhase": "night"})
    kinds = lambda s: [step["kind"] for step in me.view(s, None)["rules"]["order"]]  # noqa: E731
    assert kinds(day)[:3] == ["roleReveal", "greeting", "night"]
    assert "greeting" not in kinds(night)


def test_the_lobby_view_has_the_game_views_top_level_keys() -> None:
    state, ids = _game("classic")
    lobby = me.lobby_view(ids, {"preset": "classic"}, ids[0])
    assert set(lobby) == set(me.view(state, ids[0]))
    assert lobby["phase"]["kind"] == "lobby" and lobby["paused"] is False and lobby["review"] is None


def test_a_test_only_role_in_an_existing_preset_needs_only_its_declaration() -> None:
    """A baker (town, no night) added to classic by this test alone: dealt, shown in the
    catalogue, known to team_of, and games with bots and the random player still end."""
    classic = PRESETS["classic"]
    baker = Role("baker", TOWN, check_reads="notMafia", power="roledesc.citizen")

    def deal(opts: dict, n: int) -> list[str]:
        roles = classic.deal(opts, n)
        roles[roles.index("citizen")] = "baker"
        return roles

    variant = replace(classic, name="bakery", roles=(*classic.roles, baker), deal=deal)
    register(variant)
    try:
        state, ids = _game("bakery")
        assert "baker" in [x["id"] for x in me.view(state, None)["rules"]["roles"]]
        assert me.team_of("baker") == TOWN
        for _ in random_game(n=6, seed=3, options={"preset": "bakery"}):
            pass
    finally:
        unregister("bakery")


# Role ids and preset-owned night tasks: the files that read the catalogue must not name one
# (team words such as "mafia" and "yakuza" are teams and chats, not roles).
READERS = [
    *sorted((ENGINE / "bots").glob("*.py")),
    ENGINE / "testing.py",
    ROOT / "local" / "client.py",
    ROOT / "tests" / "hostile_frames.py",
    ROOT / "web" / "js" / "game" / "rules.js",
    ROOT / "web" / "js" / "game" / "tiles.js",
    ROOT / "web" / "js" / "game" / "notes.js",
    ROOT / "web" / "js" / "screens" / "game.js",
]


def test_no_role_or_night_task_literal_outside_the_preset_that_owns_it() -> None:
    me.ROLES  # noqa: B018 -- every preset imported, every role declared
    teams = {r.team for r in me.ROLES.values()}
    night = {
        n
        for name in PRESETS
        for n in PRESETS[name].tasks
        if me.view(_game(name)[0], None)["rules"]["tasks"][n]["night"]
    }
    words = (set(me.ROLES) - teams) | night
    pattern = re.compile("[\"'](" + "|".join(sorted(words)) + ")[\"']")
    found = []
    for path in READERS:
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0] if path.suffix == ".py" else line.split("//", 1)[0]
            if pattern.search(code):
                found.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    assert not found, "\n".join(found)


# The engine's shared modules: every rule system reads them, so they name no role and no night
# task a preset owns; the core roles and tasks (mafia, police, doctor, citizen; mafiaTarget,
# investigate, heal) are named only where they are declared.
SHARED = [
    *sorted(ENGINE.glob("*.py")),
    *(ENGINE / "presets" / name for name in ("__init__.py", "base.py", "shared.py")),
]
CORE_OWNERS = ("roles.py", "tasks.py", "actions.py")  # the core roles, tasks and action models


def test_no_preset_owned_role_or_task_literal_in_the_engines_shared_modules() -> None:
    me.ROLES  # noqa: B018 -- every preset imported, every role and task declared
    teams = {r.team for r in me.ROLES.values()}
    night = {n for n, t in TASKS.items() if t.night}
    owned = (set(me.ROLES) - set(CORE) - teams) | (night - _CORE_NIGHT)
    core = (set(CORE) - teams) | (night & _CORE_NIGHT)
    assert "soldier" in owned and "mediumPeek" in owned and "police" in core  # the scan sees them
    found = []
    for path in SHARED:
        words = owned if path.name in CORE_OWNERS and path.parent == ENGINE else owned | core
        pattern = re.compile("[\"'](" + "|".join(sorted(words)) + ")[\"']")
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line.split("#", 1)[0]):
                found.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    assert not found, "\n".join(found)


_CORE_NIGHT = frozenset({r.night for r in CORE.values() if r.night})


def test_the_engine_has_no_import_cycle() -> None:
    """Each engine module imports alone (the engine unloaded before each), and no module's top-level
    imports (TYPE_CHECKING ones included) lead back to it."""
    modules = sorted(
        "mafia_engine." + ".".join(p.relative_to(ENGINE).with_suffix("").parts).replace(".__init__", "")
        for p in ENGINE.rglob("*.py")
    )
    modules = [m.removesuffix(".__init__") for m in modules]
    # One interpreter, the engine forgotten before each module: each imports as if alone
    # (an interpreter per module took minutes on a busy machine).
    code = (
        "import importlib, sys\n"
        "for m in sys.argv[1:]:\n"
        "    for k in [k for k in sys.modules if k == 'mafia_engine' or k.startswith('mafia_engine.')]:\n"
        "        del sys.modules[k]\n"
        "    importlib.import_module(m)\n"
    )
    subprocess.run(
        [sys.executable, "-c", code, *modules], check=True, cwd=ROOT, env={"PYTHONPATH": str(ENGINE.parent)}
    )
    graph = {m: _imports(m) for m in modules}
    for start in modules:
        seen, todo = set(), list(graph[start])
        while todo:
            m = todo.pop()
            assert m != start, f"{start} imports itself through {sorted(seen)}"
            if m not in seen and m in graph:
                seen.add(m)
                todo.extend(graph[m])


def test_no_engine_module_imports_inside_a_function() -> None:
    """An import inside a function is how a cycle hides; type-only imports sit under
    ``if TYPE_CHECKING:`` at the top of a module (and count in the cycle check above)."""
    found = []
    for path in ENGINE.rglob("*.py"):
        lines = path.read_text(encoding="utf-8").splitlines()
        for no, line in enumerate(lines, 1):
            if re.match(r"\s+(from \.|from mafia_engine|import mafia_engine)", line):
                if not any(lines[i].startswith("if TYPE_CHECKING") for i in range(max(0, no - 4), no - 1)):
                    found.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    assert not found, "\n".join(found)


def _imports(module: str) -> set[str]:
    """The engine modules ``module`` names in ``from``/``import`` lines outside functions."""
    parts = module.split(".")
    path = ENGINE.joinpath(*parts[1:])
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    package = parts if path.name == "__init__.py" else parts[:-1]
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith((" " * 8, "\t\t")) or not line.strip().startswith(("from ", "import ")):
            continue  # imports inside functions: refused by the test below
        m = re.match(r"\s*from (\.+)([\w.]*) import ([\w, ]+)", line)
        if m:
            base = package[: len(package) - (len(m.group(1)) - 1)]
            names = [n.split(" as ")[0].strip() for n in m.group(3).split(",")]
            if m.group(2):  # from .x import y: module x (and y, when y is a module of x)
                target = ".".join([*base, m.group(2)])
                out.add(target)
                out.update(f"{target}.{n}" for n in names)
            else:  # from . import y: the sibling module y, not the package's own code
                out.update(".".join([*base, n]) for n in names)
        elif line.strip().startswith("import mafia_engine") or line.strip().startswith("from mafia_engine"):
            out.add(line.split()[1])
    return {o for o in out if o != module and o in _MODULES}


_MODULES = {
    ("mafia_engine." + ".".join(p.relative_to(ENGINE).with_suffix("").parts)).removesuffix(".__init__")
    for p in ENGINE.rglob("*.py")
}
