"""The player-name rule, one place for every seat (REST joins and bot seats)."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

NAME_MAX = 24
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=NAME_MAX)]
