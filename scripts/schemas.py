"""Write docs/schemas/*.json and docs/protocol.md's frame list from the frame models
(`functions/service/schemas.py`).

Run from the repository root: `python -m scripts.schemas` (`--check`: exit 1 if a file is stale).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "schemas"
sys.path[:0] = [str(ROOT / "functions"), str(ROOT / "layers" / "engine")]

from service import schemas  # noqa: E402


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas.documents().items():
        path, text = OUT / name, schemas.render(schema)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(name)
        if not check:
            path.write_text(text, encoding="utf-8")
    protocol = ROOT / "docs" / "protocol.md"
    doc = protocol.read_text(encoding="utf-8")
    if schemas.with_frame_table(doc) != doc:
        stale.append("protocol.md")
        if not check:
            protocol.write_text(schemas.with_frame_table(doc), encoding="utf-8")
    if stale:
        print(("stale: " if check else "wrote: ") + ", ".join(stale))
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
