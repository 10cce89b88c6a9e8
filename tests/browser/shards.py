"""The browser tier as several processes (`make test`: BROWSER_SHARD=1/2 and 2/2, each beside the
other parts, so a page's waits for a push leave the core to them): whole files per shard (their
module fixtures stay in one process), balanced by the seconds each file took.

SECONDS: each file's wall seconds, the two shards run side by side (2026-12-06; test_voice,
test_strangers, test_presets and test_seats scaled by their own before/after runs, same day). A shard's time
in `make test` is its pages' own waits (a scaled clock's game, real audio, a push) plus its CPU
at its share of two cores: balanced by CPU seconds alone (Chromium's and the stack's, by
cgroup), the half with the waits ran 642 s and the other ~450; by these figures the two
halves sum to 356 and 356 s. A file not listed counts DEFAULT_PER_TEST seconds a test. A stale
figure only unbalances the shards: every file still runs in exactly one of them
(tests/unit/test_browser_shards.py).
"""

from __future__ import annotations

from tests import shards as _shards

SECONDS = {
    "test_voice": 118, "test_strangers": 60, "test_presets": 58, "test_a11y": 57, "test_game": 51,
    "test_public_home": 49, "test_seats": 25, "test_ranked_game": 41, "test_device": 26,
    "test_table_round2": 26, "test_fair_deal": 14, "test_removed_seat": 13, "test_display": 12,
    "test_anonymous": 12, "test_substitutes": 11, "test_voice_turn": 11, "test_city_night": 10,
    "test_display_story": 9, "test_notes": 9, "test_afk": 8, "test_connection": 8,
    "test_deployed_site": 8, "test_table_round3": 8, "test_away": 7, "test_layout": 7,
    "test_role_card": 7, "test_chat_drafts": 6, "test_chat_log": 5, "test_i18n": 4, "test_feedback": 4,
    "test_socket_cap": 3, "test_leave_taken": 3, "test_seat_request_card": 3, "test_watch_now": 3,
    "test_inroom": 3, "test_private_link": 3, "test_ranked": 3, "test_passkeys": 2, "test_install": 2,
    "test_kept_panels": 1, "test_page_pool": 1, "test_options": 1,
}
DEFAULT_PER_TEST = 1.5


def parse(spec: str) -> tuple[int, int]:
    """"k/n" -> (k, n), 1 <= k <= n."""
    return _shards.parse(spec, "BROWSER_SHARD")


def assign(tests_per_file: dict[str, int], count: int) -> dict[str, int]:
    """Each file's shard (1..count): the heaviest file first, each to the lightest shard."""
    return _shards.assign(tests_per_file, count, SECONDS, DEFAULT_PER_TEST)
