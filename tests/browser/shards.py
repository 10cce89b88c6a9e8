"""The browser tier as several processes (`make test`: BROWSER_SHARD=1/2 and 2/2, each beside the
other parts, so a page's waits for a push leave the core to them): whole files per shard (their
module fixtures stay in one process), balanced by the seconds each file took.

SECONDS: each file's wall seconds (setup, call and teardown of its tests), the two shards run
side by side (2026-12-06, 22:51 UTC, after the cuts of that day). A shard's time in `make test`
is its pages' own waits (a scaled clock's game, real audio, a push) plus its CPU at its share
of two cores: balanced by CPU seconds alone (Chromium's and the stack's, by cgroup), the half
with the waits ran 642 s and the other ~450; balanced by figures scaled from single files'
runs, 625 s and 437 s; by these figures the halves sum to 348 and 349 s. A file not listed
counts DEFAULT_PER_TEST seconds a test. A stale figure only unbalances the shards: every file
still runs in exactly one of them (tests/unit/test_browser_shards.py).
"""

from __future__ import annotations

from tests import shards as _shards

SECONDS = {
    "test_voice": 95, "test_public_home": 60, "test_a11y": 59, "test_presets": 59,
    "test_strangers": 57, "test_game": 51, "test_ranked_game": 36, "test_device": 26,
    "test_table_round2": 17, "test_fair_deal": 17, "test_removed_seat": 16, "test_substitutes": 16,
    "test_display": 14, "test_anonymous": 14, "test_seats": 11, "test_away": 10,
    "test_display_story": 10, "test_voice_turn": 9, "test_notes": 9, "test_role_card": 9,
    "test_deployed_site": 8, "test_table_round3": 8, "test_city_night": 8, "test_layout": 7,
    "test_chat_drafts": 7, "test_afk": 7, "test_chat_log": 7, "test_connection": 6, "test_i18n": 6,
    "test_inroom": 5, "test_leave_taken": 5, "test_feedback": 5, "test_watch_now": 4,
    "test_ranked": 4, "test_passkeys": 3, "test_private_link": 3, "test_socket_cap": 3,
    "test_kept_panels": 3, "test_install": 2, "test_seat_request_card": 1, "test_page_pool": 1,
}
DEFAULT_PER_TEST = 1.5


def parse(spec: str) -> tuple[int, int]:
    """"k/n" -> (k, n), 1 <= k <= n."""
    return _shards.parse(spec, "BROWSER_SHARD")


def assign(tests_per_file: dict[str, int], count: int) -> dict[str, int]:
    """Each file's shard (1..count): the heaviest file first, each to the lightest shard."""
    return _shards.assign(tests_per_file, count, SECONDS, DEFAULT_PER_TEST)
