"""The room layer's code (`functions/service/`) stands in five sub-packages, each importing only
those below it: room/ (RoomService, the pipeline, the commands) → identity/ (persons, passkeys,
sessions) → features/ → protocol/ (the wire) → infra/ (docs/architecture.md, "Room layer: where each concept lives"). The package's
own modules, config.py (the wiring) and schemas.py (the published contract), stand above them all.

Imports are read from the source as `test_import_cycles.py` reads them (an import inside a
function or under `if TYPE_CHECKING:` counts too).
"""

from __future__ import annotations

from test_import_cycles import ROOT, graph

LAYERS = ("room", "identity", "features", "ranked", "protocol", "infra")  # top to bottom (ranked: ranked play's rules, pure or over infra)
TOP = {"service", "service.config", "service.schemas"}  # the package and its own modules


def layer(module: str) -> int:
    """A service module's floor: 0 for the package's own modules, then 1 + its index in LAYERS."""
    if module in TOP:
        return 0
    return 1 + LAYERS.index(module.split(".")[1])


def test_every_service_module_stands_in_a_layer():
    modules = [m for m in graph([ROOT / "functions/service"]) if m not in TOP]
    assert modules and all(m.split(".")[1] in LAYERS and m.count(".") <= 2 for m in modules), modules


def runs_up(edges: dict[str, set[str]]) -> list[str]:
    """The imports of a service module from a layer above its own, as "a -> b"."""
    return sorted(f"{a} -> {b}" for a, bs in edges.items() for b in bs if layer(b) < layer(a))


def test_every_import_between_the_layers_runs_down():
    edges = graph([ROOT / "functions/service"])
    assert "service.infra.storage" in edges["service.room.change"]  # the check reads the imports
    assert not runs_up(edges), "\n".join(runs_up(edges))


def test_the_check_finds_an_import_that_runs_up_inside_a_function(tmp_path):
    pkg = tmp_path / "service"
    for sub in ("room", "infra"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "room" / "pipeline.py").write_text("from ..infra import clock\n")
    (pkg / "infra" / "clock.py").write_text(
        "def now():\n    from ..room.pipeline import run\n    return run\n"
    )
    assert runs_up(graph([pkg])) == ["service.infra.clock -> service.room.pipeline"]
