"""The Unicode TR39 confusable skeleton (UTS #39 section 4, "Confusable Detection").

`skeleton(s)`: NFD, every character replaced by its prototype from `data/confusables.txt`
(the Unicode data file, unmodified; its licence is `data/LICENSE-Unicode.txt`), NFD again.
Two strings with one skeleton look alike. The table is read on first use (REST joins and
`addBot` compare names; no other path imports this module).

No registry package fitted: confusable-homoglyphs ships the table both ways without the
prototype direction and has no skeleton; disarm is a 4.6 MB native beta build per platform.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

DATA = Path(__file__).with_name("data") / "confusables.txt"


@cache
def prototypes() -> dict[str, str]:
    """Source character -> its prototype string (the `MA` table of confusables.txt)."""
    table: dict[str, str] = {}
    with DATA.open(encoding="utf-8-sig") as f:
        for line in f:
            if not line or line[0] in "#\n":
                continue
            source, target, _rest = line.split(";", 2)
            table[chr(int(source, 16))] = "".join(chr(int(h, 16)) for h in target.split())
    return table


def skeleton(s: str) -> str:
    """The TR39 skeleton of `s` (`internalSkeleton`: NFD, map, NFD)."""
    table = prototypes()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", s))
    return unicodedata.normalize("NFD", mapped)
