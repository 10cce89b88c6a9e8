"""Player reports (docs/rulebooks/000-classic.txt §9): a player flags another seat or chat lines
for the operators.

A report is kept 7 days whatever happens to the room, apart from it (`Store.put_report`: the
report under its day, `REPORTS#<yyyy-mm-dd>`, and a mark "this seat reported that one in this
game", `REPORTED#<room>#<game>`, written together, the mark on condition that there is none,
which is how "each seat once per game" is refused; every key starts with `REPORT`, so the
function that writes reports can be limited to those partitions: `dynamodb:LeadingKeys`).
Ops list a day with one Query (`Store.reports`, no Scan) and read one report with one GetItem
(`Store.report`).

The transcript comes from the reporter's own engine view (`mafia_engine.view(state, reporter)`),
never from the state: a report holds only lines its author could read. Nothing is written to
the room and nothing is pushed to anyone but the sender, so nobody else learns of it.
"""

from __future__ import annotations

import secrets
import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

import mafia_engine as me

from ..infra import clock
from ..infra.errors import ServiceError
from ..infra.storage import ReportRecord, Store
from ..infra.telemetry import count, logger
from ..protocol import frames, views
from ..protocol.server_frames import Reported, ReportReceipt, encode

TTL_SECONDS = 7 * 24 * 3600  # docs/rulebooks/000-classic.txt §9: "짧게(예: 7일) 보관하고 이후 삭제"
REASONS = ("abuse", "cheating", "spam", "other")
CONTEXT_LINES = 20  # lines around the reported ones, as many before as after when there are
MAX_REPORTED_LINES = 5
MAX_TRANSCRIPT = 60  # reported lines far apart: keep the item small
PLAYER_REPORT_LINES = 5  # a report on a player (no line picked): their newest readable lines
GAME_ID_HEX = 16  # 64 bits of the commitment: two games of one room never share them

PlayerId = Annotated[str, StringConstraints(pattern=r"^p[0-9]{1,3}$")]
LineId = Annotated[str, StringConstraints(pattern=r"^[a-z]{1,12}:[0-9]{1,9}$")]  # "day:41"
Reason = Literal["abuse", "cheating", "spam", "other"]
REFUSALS = {
    "target": ("bad_frame", "'target' must be a player id such as \"p3\""),
    "reason": ("bad_frame", f"'reason' must be one of {', '.join(REASONS)}"),
    "lines": ("bad_frame", f"'lines' must be a list of at most {MAX_REPORTED_LINES} line ids"),
}


class ReportFrame(frames.Frame):
    """`{"action": "report", "target": "p3", "reason": "abuse", "lines": ["day:41"]}` from a
    player, on the socket's own `report` route (not `$default`: template.yaml)."""

    action: Literal["report"]
    room: Annotated[str, StringConstraints(max_length=12)] | None = None
    target: PlayerId
    reason: Reason
    # a JSON list; strict mode takes a tuple only from Python, so the list is read lax
    lines: Annotated[tuple[LineId, ...], Field(max_length=MAX_REPORTED_LINES)] = ()


class _Stored(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Line(_Stored):
    """One chat line as the reporter saw it."""

    id: str | int  # "<channel>:<n>" (int in reports filed before per-channel ids)
    channel: str
    sender: str | None  # player id; None for the moderator
    name: str | None
    text: str  # "" for a phrase (each reader draws it in their language: mafia_engine.chat.PHRASES)
    at: float
    day: int
    reported: bool
    phrase: str | None = None
    args: dict[str, str] | None = None
    variant: int | None = None


class Report(_Stored):
    """The stored report (JSON in the item's `data`: `to_json`, `from_json`)."""

    id: str
    room: str
    # tells two games of one room apart: the first GAME_ID_HEX digits of the game's public
    # commitment (`game_id`); an int in reports filed when it was the game's seed
    game: str | int
    preset: str
    reporter: str
    reporterName: str  # the stored JSON keys are camelCase
    reported: str
    reportedName: str
    # a ranked room's reported seat: its person (docs/rules.md, "Ranked play"), for the operator
    # only (`python -m ops.reports`, `python -m ops.persons ban`); never sent to anyone
    reportedPerson: str | None = None
    reason: Reason
    at: float
    day: int
    phase: str
    transcript: tuple[Line, ...]
    expiresAt: int

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, data: str | bytes) -> Report:
        return cls.model_validate_json(data)

    def to_dict(self, exclude: tuple[str, ...] = ()) -> dict[str, Any]:
        """Plain JSON-able values (tuples as lists), without the `exclude`d fields."""
        return self.model_dump(mode="json", exclude=set(exclude))


def parse(raw: str | bytes | bytearray) -> ReportFrame:
    """The validated report frame from the raw text (decoded once), or ServiceError
    (`bad_frame`, `bad_unicode`) with `frame_id` set to the id to echo, when there is one."""
    try:
        return ReportFrame.model_validate_json(raw)
    except ValidationError as exc:
        raise frames.refusal(raw, exc, ReportFrame, {**frames.REFUSALS, **REFUSALS}) from None


def game_id(state: dict) -> str:
    """A public name of one game: the start of the deal's commitment, which every view has
    carried since the start (never the game's secret, which stays hidden until the end)."""
    return str((state.get("fairness") or {}).get("commitment") or "")[:GAME_ID_HEX] or "-"


def day_of(at: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(at))


def transcript(chat: list[dict], target: str, picked: tuple[str, ...], names: dict[str, str]) -> list[Line]:
    """The reported lines and the CONTEXT_LINES around them, from one viewer's chat (oldest first).

    `picked` empty: the target's newest PLAYER_REPORT_LINES lines are the reported ones (a report
    on a player). A picked id that is not in `chat` or not the target's raises ServiceError.
    """
    index = {m["id"]: i for i, m in enumerate(chat)}
    if picked:
        for line_id in picked:
            if line_id not in index:
                raise ServiceError("line_not_visible", f"line {line_id} is not in your chat any more")
            if chat[index[line_id]].get("from") != target:
                raise ServiceError("bad_line", f"line {line_id} was not written by {target}")
        marked = sorted(index[i] for i in set(picked))
    else:
        marked = [i for i, m in enumerate(chat) if m.get("from") == target][-PLAYER_REPORT_LINES:]
    if not marked:
        lo = max(0, len(chat) - CONTEXT_LINES)
        hi = len(chat)
    else:
        first, last = marked[0], marked[-1]
        after = min(len(chat) - 1 - last, CONTEXT_LINES // 2)
        # One side short: the other gives the rest, so there are 20 when the chat has them.
        before = min(first, CONTEXT_LINES - after)
        after = min(len(chat) - 1 - last, CONTEXT_LINES - before)
        lo, hi = first - before, last + after + 1
    keep = set(marked)
    rows = list(range(lo, hi))
    if len(rows) > MAX_TRANSCRIPT:  # far-apart picks: every marked line and its neighbours
        rows = [i for i in rows if any(abs(i - k) <= 3 for k in keep)]
    return [
        Line(
            id=chat[i]["id"],
            channel=chat[i]["channel"],
            sender=chat[i].get("from"),
            name=names.get(chat[i].get("from") or ""),
            text=chat[i].get("text", ""),
            phrase=chat[i].get("phrase"),
            args=chat[i].get("args"),
            variant=chat[i].get("variant"),
            at=float(chat[i].get("at", 0.0)),
            day=int(chat[i].get("day", 0)),
            reported=i in keep,
        )
        for i in rows
    ]


class Reports:
    """Filing and reading reports through a Store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ---- write -------------------------------------------------------------------------
    def file(self, conn_id: str, frame: ReportFrame) -> Report:
        """Build the report of `conn_id`'s player from their own view and store it once."""
        code = self._room_of(conn_id, frame.room)
        snap = self.store.load(code)
        if snap is None:
            raise ServiceError("room_not_found", f"no room {code!r}", 404)
        if conn_id not in snap.conns:
            raise ServiceError("not_connected", "this connection is not in the room")
        reporter = snap.conns[conn_id]
        if reporter is None:
            raise ServiceError("spectator", "spectators cannot report")
        if snap.state is None:
            raise ServiceError("not_started", "reports are for a game that has started")
        names = {p["id"]: p["name"] for p in snap.room["players"]}
        if frame.target not in names:
            raise ServiceError("bad_target", f"no player {frame.target!r} in this room")
        if frame.target == reporter:
            raise ServiceError("bad_target", "you cannot report yourself")
        view = me.view(snap.state, reporter)  # the reporter's gate: only what they could read
        lines = transcript(list(view.get("chat") or ()), frame.target, frame.lines, names)
        now = clock.now()
        report = Report(
            id=f"{day_of(now).replace('-', '')}-{secrets.token_hex(5)}",
            room=code,
            game=game_id(snap.state),
            preset=snap.room["preset"],
            reporter=reporter,
            reporterName=names[reporter],
            reported=frame.target,
            reportedName=names[frame.target],
            reportedPerson=_ranked_person(snap.room, frame.target),
            reason=frame.reason,
            at=now,
            day=int(view.get("day") or 0),
            phase=str((view.get("phase") or {}).get("kind", "")),
            transcript=tuple(lines),
            expiresAt=int(now + TTL_SECONDS),
        )
        self._put(report)
        return report

    def _put(self, report: Report) -> None:
        if not self.store.put_report(record(report)):
            raise ServiceError("already_reported", "you have already reported this player in this game", 409)

    def _room_of(self, conn_id: str, hint: str | None) -> str:
        code = self.store.lookup_connection(conn_id)
        if code is None and hint:
            code = hint.upper()  # verified by the connection item in the room's partition
        if code is None:
            raise ServiceError("not_connected", "unknown connection")
        return code

    # ---- read (ops) ----------------------------------------------------------------------
    def get(self, report_id: str) -> Report | None:
        """One report by id (its day is in the id), or None when unknown or expired."""
        if len(report_id) < 9 or not report_id[:8].isdigit():
            return None
        data = self.store.report(day_of_id(report_id), report_id)
        return None if data is None else Report.from_json(data)

    def list_day(self, day: str) -> list[Report]:
        """Every live report filed on `day` (yyyy-mm-dd, UTC), oldest first: one Query."""
        return sorted((Report.from_json(d) for d in self.store.reports(day)), key=lambda r: r.at)

    def recent(self, days: int = 8) -> list[Report]:
        """Live reports of the last `days` days (one Query per day; 7-day TTL, so 8 covers all)."""
        now = clock.now()
        out: list[Report] = []
        for back in range(days - 1, -1, -1):
            out.extend(self.list_day(day_of(now - back * 86400)))
        return out


def _ranked_person(room: dict, seat: str) -> str | None:
    """The person holding `seat` in a ranked room (`room["ranked"]`), else None."""
    if not room.get("ranked"):
        return None
    return next((p.get("person") for p in room["players"] if p["id"] == seat), None)


def day_of_id(report_id: str) -> str:
    """The day a report was filed on, from its id (`yyyymmdd-...`)."""
    return f"{report_id[:4]}-{report_id[4:6]}-{report_id[6:8]}"


def record(report: Report) -> ReportRecord:
    """What storage keeps of a report."""
    return ReportRecord(
        id=report.id,
        day=day_of(report.at),
        room=report.room,
        game=str(report.game),
        reporter=report.reporter,
        reported=report.reported,
        reason=report.reason,
        at=report.at,
        expires_at=report.expiresAt,
        data=report.to_json(),
    )


def confirmation_frame(frame_id: Any, report: Report) -> bytes:
    """What the reporter learns back (an allow-list): that it is filed, about whom, why."""
    receipt = ReportReceipt(id=report.id, target=report.reported, reason=report.reason)
    return encode(Reported(id=frame_id, report=receipt))


def submit(store: Store, gateway: Any, conn_id: str, body: str | bytes | None) -> None:
    """Entry point of the `report` route: parse (the same strict reader as `$default`), file,
    answer the sender (and no one else)."""
    frame_id = None
    try:
        frame = parse(body or b"")
        frame_id = frame.id
        report = Reports(store).file(conn_id, frame)
    except ServiceError as exc:
        count("Rejected")
        gateway.post(
            conn_id, views.error_frame(exc.frame_id if frame_id is None else frame_id, exc.code, exc.message)
        )
        return
    count("Reports")
    logger.info("report filed", extra={"room": report.room, "report": report.id})
    gateway.post(conn_id, confirmation_frame(frame_id, report))
