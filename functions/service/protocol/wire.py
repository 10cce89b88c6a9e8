"""Strict JSON with the standard library: what a client may send.

UTF-8, plain JSON (no `NaN`/`Infinity`, no number too big for a float such as `1e999`), no
lone UTF-16 surrogates (`"\\ud800"`) in any string or key, and at most `MAX_DEPTH` levels of
nesting, checked before anything walks the value recursively. A WebSocket frame is decoded
once by its pydantic model (`frames.decode`); only a refused one is read here again, to name
its problem with these codes. What the server sends is strict too (`server_frames.encode`).

REST bodies and WebSocket frames share this module so both refuse the same input with the
same code: `bad_unicode` for text that is not Unicode, `syntax_code` (`bad_frame` on the
socket, `bad_json` on REST) for the rest.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..infra.errors import ServiceError

MAX_DEPTH = 8  # the deepest legitimate frame is 3 levels ({"options": {"roles": [...]}})
BAD_UNICODE = "bad_unicode"


class _Refused(ValueError):
    """Raised from inside the parser's hooks; turned into a ServiceError by `loads`."""


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused("numbers must be finite")
    return value


_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_float)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _check_value(value: Any, syntax_code: str) -> None:
    """Refuse values nested deeper than MAX_DEPTH and strings holding lone surrogates.

    Iterative on purpose: a recursive walk is what a 1,000-level value would crash.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            if _has_surrogate(node):
                raise ServiceError(BAD_UNICODE, "text must be Unicode (a lone UTF-16 surrogate was sent)")
            continue
        if not isinstance(node, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise ServiceError(syntax_code, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, dict):
            stack.extend((k, depth) for k in node)
            stack.extend((v, depth + 1) for v in node.values())
        else:
            stack.extend((v, depth + 1) for v in node)


def loads(raw: str | bytes | bytearray, syntax_code: str) -> Any:
    """The value of one strict JSON document, or ServiceError (`bad_unicode` / `syntax_code`)."""
    if isinstance(raw, bytes | bytearray):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ServiceError(BAD_UNICODE, "the body is not valid UTF-8") from exc
    try:
        value = _DECODER.decode(raw)
    except _Refused as exc:
        raise ServiceError(syntax_code, f"not strict JSON: {exc}") from exc
    except RecursionError as exc:
        raise ServiceError(syntax_code, f"nested deeper than {MAX_DEPTH} levels") from exc
    except ValueError as exc:
        raise ServiceError(syntax_code, "not JSON") from exc
    _check_value(value, syntax_code)
    return value


def echo_id(frame: Any) -> Any:
    """The frame's `id` if it may be echoed in a reply (a string of at most 64 characters or an
    integer), else None: a refusal never carries the sender's garbage back."""
    fid = frame.get("id") if isinstance(frame, dict) else None
    if isinstance(fid, bool) or not isinstance(fid, str | int):
        return None
    if isinstance(fid, str) and (len(fid) > 64 or _has_surrogate(fid)):
        return None
    return fid
