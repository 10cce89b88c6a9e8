"""Short quotes of user input in the messages clients get back (never the whole input: a
hostile frame must not come back to its sender, or reach a log, unbounded).

Our own messages quote input with `errors.quote` (a short prefix). Messages made elsewhere
(the engine's refusals, validation libraries' locations) may still carry a whole input, so
`tidy` is applied where every error leaves the server (`views.error_frame` for WebSocket,
`handlers/rest.py`'s `error_answer` for REST): each quoted literal, and each run of text without
a space, longer than QUOTE_CHARS is cut to its first QUOTE_CHARS characters and "…".
Messages the server writes itself have no such runs, so they pass unchanged.
"""

from __future__ import annotations

import re

from ..infra.errors import QUOTE_CHARS

ELLIPSIS = "…"

# A repr-style literal ('...' or "...", backslash escapes inside) not glued to a word (so the
# apostrophe of "can't" opens nothing), or a run of non-space characters.
_ECHO = re.compile(r"""(?<!\w)(['"])((?:\\.|(?!\1)[^\\])*)\1(?!\w)|\S+""", re.DOTALL)


def prefix(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` cut to its first `limit` characters (with "…" when cut)."""
    return text if len(text) <= limit else text[:limit] + ELLIPSIS


def tidy(message: str, limit: int = QUOTE_CHARS) -> str:
    """`message` with every quoted literal and space-free run over `limit` characters cut to a prefix."""

    def one(m: re.Match[str]) -> str:
        if m.group(1):
            body = m.group(2)
            return m.group(0) if len(body) <= limit else f"{m.group(1)}{body[:limit]}{ELLIPSIS}{m.group(1)}"
        return prefix(m.group(0), limit)

    return _ECHO.sub(one, message)
