"""Reports (docs/rulebooks/000-classic.txt §9): stored apart from the room for 7 days, once per seat
and game, built from the reporter's own view, seen by nobody else."""

from __future__ import annotations

import json

import boto3
import pytest
from fnkit import CTX, ws_event

from handlers import ws_report
from mafia_engine.testing import legal_actions
from service.features import reports

DAY = 24 * 3600

# reports of every room share a day partition (REPORTS#<day>), and one test scans the table
# (those on moto; the tests of room rules run on the in-memory store, `memstore`)
pytestmark = pytest.mark.fresh_aws


def report(api, conn_id: str, frame: dict) -> dict:
    """Send a report frame through the `report` route; the sender's answer frame."""
    before = len(api.gw.to(conn_id))
    body = json.dumps({"action": "report", "id": "r1", **frame})
    assert ws_report.handler(ws_event("report", conn_id, body=body), CTX)["statusCode"] == 200
    answers = api.gw.to(conn_id)[before:]
    assert len(answers) == 1, answers
    return answers[0]


def until(api, predicate, limit: int = 40) -> dict:
    """End phases (as the Scheduler would) until `predicate(state)` holds."""
    for _ in range(limit):
        state = api.state()
        if predicate(state):
            return state
        api.clock.advance(max(0.0, state["phase"]["endsAt"] - api.clock.t) + 1)
        api.fire(state["seq"])
    raise AssertionError("the game never got there")


def can_chat(channel: str, pid: str | None = None):
    def check(state: dict) -> bool:
        return any(
            a["type"] == "chat" and a["channel"] == channel and (pid is None or a["player"] == pid)
            for a in legal_actions(state)
        )

    return check


def say(api, pid: str, text: str, channel: str = "day") -> str:
    api.clock.advance(1.0)
    api.send(f"c{pid}", {"action": "chat", "channel": channel, "text": text})
    return max(m["id"] for m in api.state()["chat"] if m["from"] == pid and m.get("text") == text)


@pytest.fixture
def day_chat(api):
    """A running classic game of 6 in a phase where everyone may talk in the day channel."""
    api.start(6)
    until(api, can_chat("day", "p2"))
    return api


def test_report_is_its_own_item_with_a_seven_day_ttl_and_the_reporter_gets_a_confirmation(day_chat):
    """docs/rulebooks/000-classic.txt §9: 「채팅 로그 보관: 신고 처리용으로 짧게(예: 7일) 보관하고 이후 삭제」."""
    api = day_chat
    line = say(api, "p2", "you are all idiots")
    api.gw.clear()
    answer = report(api, "cp1", {"target": "p2", "reason": "abuse", "lines": [line]})
    assert answer["type"] == "reported" and answer["id"] == "r1"
    assert answer["report"]["target"] == "p2" and answer["report"]["reason"] == "abuse"
    filed = reports.Reports(api.svc.store).get(answer["report"]["id"])
    assert filed is not None
    assert (filed.room, filed.reporter, filed.reported, filed.reason) == (api.code, "p1", "p2", "abuse")
    assert filed.expiresAt == int(api.clock.t + 7 * DAY)
    assert [ln.text for ln in filed.transcript if ln.reported] == ["you are all idiots"]
    # the room's 24-hour TTL does not touch it: a day later the room may be gone, the report is not
    api.clock.advance(2 * DAY)
    assert api.snapshot() is None
    assert reports.Reports(api.svc.store).get(filed.id) is not None
    assert [r.id for r in reports.Reports(api.svc.store).recent()] == [filed.id]
    # ... and after 7 days it reads as gone even before DynamoDB's TTL deletes it
    api.clock.advance(5 * DAY + 1)
    assert reports.Reports(api.svc.store).get(filed.id) is None
    assert reports.Reports(api.svc.store).recent() == []


def test_a_reported_phrase_line_keeps_its_phrase_in_the_transcript(day_chat):
    """A phrase line (docs/protocol.md, "Chat messages") has no text: the report keeps its id,
    arguments and variant, for the operators to draw."""
    api = day_chat
    api.clock.advance(1.0)
    frame = {"action": "chat", "channel": "day", "phrase": "suspect", "args": {"target": "p1"}, "variant": 4}
    api.send("cp2", frame)
    line = max(m["id"] for m in api.state()["chat"] if m["from"] == "p2" and m.get("phrase") == "suspect")
    answer = report(api, "cp1", {"target": "p2", "reason": "spam", "lines": [line]})
    filed = reports.Reports(api.svc.store).get(answer["report"]["id"])
    (kept,) = [ln for ln in filed.transcript if ln.reported]
    assert (kept.text, kept.phrase, kept.args, kept.variant) == ("", "suspect", {"target": "p1"}, 4)
    import io

    from ops import reports as ops_reports

    out = io.StringIO()
    assert ops_reports.main(["show", answer["report"]["id"]], out=out) == 0
    assert f"> #{line} [day] P2: (phrase) p1 looks suspicious to me." in out.getvalue()  # wording 4 % 3


@pytest.mark.memstore  # who may report what, and what a report holds: room rules (harness/memory.py)
def test_nobody_else_learns_of_a_report(day_chat):
    """docs/rulebooks/000-classic.txt §9 (report button); docs/rules.md, "Seats, leaving, reports
    and mute": nobody else learns who reported whom."""
    api = day_chat
    line = say(api, "p2", "spam spam spam")
    version = api.snapshot().version
    api.gw.clear()
    report(api, "cp1", {"target": "p2", "reason": "spam", "lines": [line]})
    assert {conn for conn, _ in api.gw.sent} == {"cp1"}  # only the sender hears back
    assert api.snapshot().version == version  # the room is not even written


@pytest.mark.memstore  # who may report what, and what a report holds: room rules (harness/memory.py)
def test_a_seat_is_reported_once_per_game(day_chat):
    """docs/rules.md, "Seats, leaving, reports and mute": a player can report each seat once per
    game."""
    api = day_chat
    assert report(api, "cp1", {"target": "p2", "reason": "spam"})["type"] == "reported"
    again = report(api, "cp1", {"target": "p2", "reason": "abuse"})
    assert again["type"] == "error" and again["code"] == "already_reported"
    # another seat, or another reporter, is a new report
    assert report(api, "cp1", {"target": "p3", "reason": "other"})["type"] == "reported"
    assert report(api, "cp3", {"target": "p2", "reason": "spam"})["type"] == "reported"
    assert len(reports.Reports(api.svc.store).recent()) == 3


@pytest.mark.memstore  # who may report what, and what a report holds: room rules (harness/memory.py)
def test_the_next_game_in_the_room_allows_a_new_report(day_chat):
    api = day_chat
    assert report(api, "cp1", {"target": "p2", "reason": "spam"})["type"] == "reported"
    api.send("cp1", {"action": "endGame"})
    api.send("cp1", {"action": "newGame"})
    for pid in ("p2", "p3", "p4", "p5", "p6"):
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running"
    assert report(api, "cp1", {"target": "p2", "reason": "spam"})["type"] == "reported"


@pytest.mark.memstore  # who may report what, and what a report holds: room rules (harness/memory.py)
def test_report_transcript_is_twenty_lines_around_the_reported_one(day_chat):
    api = day_chat
    ids = []
    for i in range(30):
        pid = ("p3", "p4", "p5")[i % 3]
        ids.append(say(api, pid, f"line {i}"))
    bad = say(api, "p2", "the bad line")
    for i in range(4):
        say(api, "p3", f"after {i}")
    answer = report(api, "cp1", {"target": "p2", "reason": "abuse", "lines": [bad]})
    filed = reports.Reports(api.svc.store).get(answer["report"]["id"])
    texts = [ln.text for ln in filed.transcript]
    # 4 lines after it exist, so the other 16 come from before
    assert len(texts) == 21 and texts[-5] == "the bad line" and texts[-4:] == [f"after {i}" for i in range(4)]
    assert texts[:16] == [f"line {i}" for i in range(14, 30)]
    assert [ln.name for ln in filed.transcript if ln.reported] == ["P2"]


@pytest.mark.memstore  # who may report what, and what a report holds: room rules (harness/memory.py)
def test_report_lines_come_from_the_reporters_own_view(api):
    """A citizen cannot put the mafia's night chat into a report: it is not in their view."""
    api.start(6)
    state = until(api, can_chat("mafia"))
    mafioso = next(
        a["player"] for a in legal_actions(state) if a["type"] == "chat" and a["channel"] == "mafia"
    )
    citizen = next(p["id"] for p in state["players"] if p["role"] not in ("mafia", "godfather"))
    secret = say(api, mafioso, "kill the doctor", channel="mafia")
    answer = report(api, f"c{citizen}", {"target": mafioso, "reason": "cheating", "lines": [secret]})
    assert answer["type"] == "error" and answer["code"] == "line_not_visible"
    # a report on the player (no line) holds no mafia line either
    answer = report(api, f"c{citizen}", {"target": mafioso, "reason": "cheating"})
    filed = reports.Reports(api.svc.store).get(answer["report"]["id"])
    assert all(ln.channel != "mafia" for ln in filed.transcript)


@pytest.mark.memstore  # who may report what, and what a report holds: room rules (harness/memory.py)
@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"target": "p1", "reason": "spam"}, "bad_target"),
        ({"target": "p9", "reason": "spam"}, "bad_target"),
        ({"target": "p2", "reason": "boring"}, "bad_frame"),
        ({"target": "p2", "reason": "spam", "lines": [1, 2, 3, 4, 5, 6]}, "bad_frame"),
        ({"target": "p2", "reason": "spam", "lines": [41]}, "bad_frame"),  # ids are "day:41"
        ({"target": "p2", "reason": "spam", "player": "p3", "extra": 1}, "bad_frame"),
    ],
)
def test_bad_reports_are_refused_with_a_code_and_store_nothing(day_chat, frame, code):
    api = day_chat
    answer = report(api, "cp1", frame)
    assert answer["type"] == "error" and answer["code"] == code and answer["message"]
    assert reports.Reports(api.svc.store).recent() == []


@pytest.mark.memstore  # who may report what, and what a report holds: room rules (harness/memory.py)
def test_a_line_of_someone_else_is_refused(day_chat):
    api = day_chat
    line = say(api, "p3", "hello")
    answer = report(api, "cp1", {"target": "p2", "reason": "abuse", "lines": [line]})
    assert answer["code"] == "bad_line"


@pytest.mark.memstore  # who may report what, and what a report holds: room rules (harness/memory.py)
def test_spectators_and_lobbies_cannot_report(api):
    api.lobby(4)
    assert report(api, "cp1", {"target": "p2", "reason": "spam"})["code"] == "not_started"
    api.connect("s1")
    assert report(api, "s1", {"target": "p2", "reason": "spam"})["code"] == "spectator"
    assert report(api, "nobody", {"target": "p2", "reason": "spam"})["code"] == "not_connected"


def test_report_keys_all_start_with_report(day_chat):
    """The IAM policy of the report function allows writes to REPORTS#*/REPORTED#* keys only."""
    api = day_chat
    report(api, "cp1", {"target": "p2", "reason": "spam"})
    items = boto3.client("dynamodb").scan(TableName=api.svc.store.table)["Items"]  # test only
    written = [it["pk"]["S"] for it in items if not it["pk"]["S"].startswith(("ROOM#", "CONN#"))]
    assert sorted(p.split("#")[0] for p in written) == ["REPORTED", "REPORTS"]


def test_ops_command_lists_and_shows_reports(day_chat):
    """docs/operations.md: `python -m ops.reports list | show ID`."""
    import io

    from ops import reports as ops_reports

    api = day_chat
    line = say(api, "p2", "buy cheap followers")
    answer = report(api, "cp1", {"target": "p2", "reason": "spam", "lines": [line]})
    rid = answer["report"]["id"]
    out = io.StringIO()
    assert ops_reports.main(["list"], out=out) == 0
    assert rid in out.getvalue() and "P1 (p1) -> P2 (p2)" in out.getvalue()
    out = io.StringIO()
    assert ops_reports.main(["show", rid], out=out) == 0
    assert f"> #{line} [day] P2: buy cheap followers" in out.getvalue()
    api.clock.advance(7 * DAY + 1)
    out = io.StringIO()
    assert ops_reports.main(["show", rid], out=out) == 1 and "expired" in out.getvalue()


def test_ops_show_escapes_control_and_bidi_characters_in_player_text(day_chat):
    """docs/operations.md: player text reaches the operator's terminal with its control
    (C0/C1), format and bidi characters written as escapes; the rest as typed."""
    import io
    import unicodedata

    from ops import reports as ops_reports

    api = day_chat
    typed = "hi \x1b[2J\x1b]0;owned\x07 \u202eevil\u202c \x85next \\x41 \u2028 é 한 😀"
    line = say(api, "p2", typed)
    rid = report(api, "cp1", {"target": "p2", "reason": "spam", "lines": [line]})["report"]["id"]
    out = io.StringIO()
    assert ops_reports.main(["show", rid], out=out) == 0
    shown = out.getvalue()
    escaped = "hi \\x1b[2J\\x1b]0;owned\\x07 \\u202eevil\\u202c \\x85next \\\\x41 \\u2028 é 한 😀"
    assert f"> #{line} [day] P2: {escaped}\n" in shown, shown
    raw = [c for c in shown if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]
    assert raw == [], raw


def test_ranked_play_a_report_in_a_ranked_room_names_the_reported_person_for_the_operator(day_chat):
    """docs/rules.md, "Ranked play": the report carries the reported seat's person (never its
    receipt); `python -m ops.persons ban` bans that person."""
    import io

    from ops import persons as ops_persons
    from ops import reports as ops_reports
    from service.identity import persons

    api = day_chat
    person = persons.new_person(int(api.clock()))
    api.svc.store.put_person(person)
    snap = api.snapshot()
    room = {**snap.room, "ranked": True}
    room["players"] = [{**p, "person": person["id"]} if p["id"] == "p2" else p for p in room["players"]]
    api.svc.store.save(snap, room, snap.state)
    answer = report(api, "cp1", {"target": "p2", "reason": "cheating", "lines": []})
    assert person["id"] not in json.dumps(answer)  # the reporter never learns it
    rid = answer["report"]["id"]
    assert reports.Reports(api.svc.store).get(rid).reportedPerson == person["id"]
    out = io.StringIO()
    assert ops_reports.main(["show", rid], out=out) == 0 and f"person   {person['id']}" in out.getvalue()
    out = io.StringIO()
    assert ops_persons.main(["ban", person["id"]], out=out) == 0
    assert api.svc.store.person(person["id"])["banned"] is True
    assert ops_persons.main(["ban", "x" * 22], out=io.StringIO()) == 1  # no such person
    # one id in 64 begins with "-" (token_urlsafe): the tool reads it as the id, not an option
    dashed = {**persons.new_person(int(api.clock())), "id": "-hg5DT0iUDJGopqKvYZZTg"}
    api.svc.store.put_person(dashed)
    for command, banned in (("ban", True), ("unban", False)):
        out = io.StringIO()
        assert ops_persons.main([command, dashed["id"]], out=out) == 0, out.getvalue()
        assert api.svc.store.person(dashed["id"])["banned"] is banned
