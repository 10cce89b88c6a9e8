"""Check what `sam build` produced: every function and the engine layer ship our modules with
current bytecode (the Makefile's `build-<LogicalId>` targets, scripts/bytecode.py).

For each of our modules (handlers/, service/, mafia_engine/) in each artifact, the
`__pycache__/<name>.cpython-311.pyc` must exist, be hash-based without source checking
(unchecked-hash), and hold the hash of the source next to it (not a stale copy). An artifact
without any bytecode of ours was built without a Python 3.11 (scripts/bytecode.py skipped):
it runs, slower to start, and this says so without failing.

The site deployer's web/ is the built client byte for byte (build/web, scripts/build_web.mjs:
deterministic, so the release is the one the browser tests loaded).

Each artifact also holds exactly the packages its `requirements.txt` pins (`make lock`:
functions/, layers/engine/), at those versions: what the tests ran.

    python scripts/check_build.py .aws-sam/build
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TAG = "cpython-311"
OURS = {"functions": ("handlers", "service"), "layer": ("python/mafia_engine",), "site": ("sitedeploy",)}
SITE = "SiteDeployFunction"  # ships the web client it publishes (functions/sitedeploy/handler.py)
UNCHECKED_HASH = 0b01  # PEP 552 flags: hash-based, check_source off
ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = {
    "functions": ROOT / "functions/requirements.txt",
    "layer": ROOT / "layers/engine/requirements.txt",
}


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def pinned(requirements: Path) -> set[tuple[str, str]]:
    lines = (line.split("#", 1)[0].strip() for line in requirements.read_text().splitlines())
    return {(_canonical(n), v) for n, v in (line.split("==", 1) for line in lines if "==" in line)}


def shipped(site: Path) -> set[tuple[str, str]]:
    """(name, version) of every distribution installed in `site` (its `*.dist-info` folders)."""
    out = set()
    for info in site.glob("*.dist-info"):
        name, version = info.name[: -len(".dist-info")].rsplit("-", 1)
        out.add((_canonical(name), version))
    return out


def package_problems(artifact: Path, kind: str) -> list[str]:
    site = artifact / "python" if kind == "layer" else artifact
    want, have = pinned(REQUIREMENTS[kind]), shipped(site)
    return [f"{artifact.name}: ships {n}=={v}, not pinned" for n, v in sorted(have - want)] + [
        f"{artifact.name}: lacks {n}=={v}" for n, v in sorted(want - have)
    ]


def compiled(artifact: Path, packages: tuple[str, ...]) -> bool:
    """Whether the artifact holds any bytecode of ours."""
    return any(any((artifact / p).rglob(f"*.{TAG}.pyc")) for p in packages)


def problems(artifact: Path, packages: tuple[str, ...]) -> tuple[int, list[str]]:
    found, bad = 0, []
    for package in packages:
        sources = sorted((artifact / package).rglob("*.py"))
        if not sources:
            bad.append(f"{artifact.name}: no {package}/*.py")
        for source in sources:
            found += 1
            pyc = source.parent / "__pycache__" / f"{source.stem}.{TAG}.pyc"
            if not pyc.exists():
                bad.append(f"{artifact.name}: no bytecode for {source.relative_to(artifact)}")
                continue
            header = pyc.read_bytes()[:16]
            flags = int.from_bytes(header[4:8], "little")
            if flags != UNCHECKED_HASH:
                bad.append(f"{artifact.name}: {pyc.name} is not unchecked-hash (flags {flags})")
            elif header[8:16] != importlib.util.source_hash(source.read_bytes()):
                bad.append(f"{artifact.name}: {pyc.name} is stale")
    return found, bad


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def main(build_dir: str) -> int:
    root = Path(build_dir)
    def kind(d: Path) -> str:
        return "layer" if d.name.endswith("Layer") else "site" if d.name == SITE else "functions"

    artifacts = [(d, OURS[kind(d)]) for d in sorted(root.iterdir()) if d.is_dir()]
    total, bad, source = 0, [], []
    for artifact, _ in artifacts:
        if artifact.name == SITE and not (artifact / "web" / "index.html").is_file():
            bad.append(f"{artifact.name}: no web/index.html (the client it publishes)")
        elif artifact.name == SITE and _files(artifact / "web") != _files(ROOT / "build" / "web"):
            bad.append(f"{artifact.name}: web/ is not the built client the tests ran (build/web: `make web`)")
    for artifact, packages in artifacts:
        bad += package_problems(artifact, "layer" if packages == OURS["layer"] else "functions")
        if not compiled(artifact, packages):
            source.append(artifact.name)
            continue
        n, issues = problems(artifact, packages)
        total, bad = total + n, bad + issues
    if source:
        print(f"check_build: shipped as source, no Python 3.11 to compile with: {', '.join(source)}")
    if not artifacts:
        bad.append(f"nothing built in {root}")
    for line in bad:
        print(f"check_build: {line}", file=sys.stderr)
    if not bad:
        print(f"sam build: ok ({len(artifacts)} artifacts, {total} modules of ours precompiled)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ".aws-sam/build"))
