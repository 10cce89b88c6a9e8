"""`python -m ops.smoke --base URL` against the offline stack (the scaled clock): every check
passes but the two an http://127.0.0.1 base cannot have (HTTPS, CloudFront's headers) and the
alarm topic's (needs --stack), and the table says why each was skipped."""

from __future__ import annotations

from ops import smoke

from .stackproc import run


def test_the_smoke_passes_against_the_offline_stack(game_stack):
    s = run(smoke.run(smoke.Smoke(game_stack.url, game_timeout=300)), timeout=330)
    rows = {check: (status, detail) for check, status, detail in s.rows}
    print(smoke.table(s))  # pytest -s shows the table
    assert not s.failed, smoke.table(s)
    skipped = {check for check, (status, _) in rows.items() if status == "skip"}
    assert skipped == {"https", "security headers", "alarm topic subscribed", "dead-letter queue"}, smoke.table(s)
    assert "127.0.0.1" in rows["https"][1] and "needs --stack" in rows["alarm topic subscribed"][1]
    for check in ("/sw.js", "manifest at the root", "quick play", "public list", "room via /api",
                  "sockets with the site's Origin", "display", "a bot-filled game to its end",
                  "voice signal between two seats", "voice relay (TURN)", "report route", "report read back", "cleanup"):  # fmt: skip
        assert rows[check][0] == "ok", check
    assert "won after" in rows["a bot-filled game to its end"][1]
    assert "relay 127.0.0.1:" in rows["voice relay (TURN)"][1]  # the stack's own coturn allocated one
