"""moto with the offline stack's emulator fixes (local/moto_fixes.py), for one test: the same
moto `make dev` runs on, about twice as fast; the handlers are untouched."""

from __future__ import annotations

from typing import Any


def with_fixes(monkeypatch: Any) -> None:
    """Install every fix of `local.moto_fixes.PATCHES` through pytest's `monkeypatch`, which
    puts moto as released back after the test."""
    from local import moto_fixes  # moto: imported only by the tiers that run it

    for owner, name, replacement in moto_fixes.PATCHES:
        monkeypatch.setattr(owner, name, replacement)
