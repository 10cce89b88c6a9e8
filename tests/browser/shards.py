"""The browser tier as several processes (`make test`: BROWSER_SHARD=1/2 and 2/2, each beside the
other parts, so a page's waits for a push leave the core to them): whole files per shard (their
module fixtures stay in one process), balanced by the seconds each file took.

SECONDS: each file's CPU seconds, Chromium's processes and the stack's included (a cgroup's
cpuacct around each test, the two shards run side by side, 2026-12-06): the tier is CPU-bound,
so CPU, not a loaded run's wall seconds, is what the two halves share; a file not listed
counts DEFAULT_PER_TEST seconds a test. A stale figure only unbalances the shards: every file
still runs in exactly one of them (tests/unit/test_browser_shards.py).
"""

from __future__ import annotations

from tests import shards as _shards

SECONDS = {
    "test_voice": 118, "test_strangers": 47, "test_presets": 46, "test_a11y": 38, "test_seats": 27,
    "test_ranked_game": 24, "test_public_home": 24, "test_game": 22, "test_table_round2": 20,
    "test_device": 19, "test_substitutes": 15, "test_display": 13, "test_fair_deal": 12,
    "test_anonymous": 12, "test_removed_seat": 11, "test_role_card": 11, "test_city_night": 10,
    "test_display_story": 10, "test_voice_turn": 9, "test_connection": 9, "test_afk": 8,
    "test_table_round3": 7, "test_notes": 7, "test_away": 7, "test_layout": 6, "test_chat_drafts": 6,
    "test_i18n": 5, "test_chat_log": 5, "test_deployed_site": 5, "test_leave_taken": 4,
    "test_watch_now": 4, "test_feedback": 4, "test_ranked": 3, "test_inroom": 3, "test_socket_cap": 3,
    "test_private_link": 3, "test_passkeys": 3, "test_seat_request_card": 2, "test_install": 2,
    "test_page_pool": 1, "test_kept_panels": 1, "test_options": 1,
}
DEFAULT_PER_TEST = 1.5


def parse(spec: str) -> tuple[int, int]:
    """"k/n" -> (k, n), 1 <= k <= n."""
    return _shards.parse(spec, "BROWSER_SHARD")


def assign(tests_per_file: dict[str, int], count: int) -> dict[str, int]:
    """Each file's shard (1..count): the heaviest file first, each to the lightest shard."""
    return _shards.assign(tests_per_file, count, SECONDS, DEFAULT_PER_TEST)
