"""The functions tier as two processes in `make test` and `make check` (HANDLERS_SHARD=1/2 and
2/2, tests/shards.py): whole files per shard, balanced by the CPU seconds each file took
(`time.process_time` around each test, the tier alone, 2026-12-06); a file not listed counts
DEFAULT_PER_TEST seconds a test. `make check` leaves the `whole_game` tests out, which changes
the weights: its shards are balanced by QUICK_SECONDS (the same measure, `make check`'s tests
only, the larger of its CPU and half its wall seconds: a few files wait on subprocesses,
2026-12-06; by the full figures the two halves had run 46 and 101 CPU-s)."""

from __future__ import annotations

SECONDS = {
    "test_room_upgrades": 24, "test_chat_archive": 22, "test_fuzz": 20, "test_side_channels": 19,
    "test_public_rooms": 12, "test_reports": 9, "test_site_deploy": 9, "test_view_patches": 9,
    "test_room_ops": 4, "test_bot_clock": 4, "test_moto_fixes": 4, "test_schemas": 4, "test_voice_relay": 3,
    "test_dead_timers": 3, "test_ranked": 3, "test_frames": 3, "test_admission_burst": 3,
    "test_local_rooms": 3, "test_hygiene": 3, "test_game": 3, "test_consistency": 3, "test_watch_now": 3,
    "test_limits": 2, "test_anonymous": 2, "test_afk": 2,
}
QUICK_SECONDS = {
    "test_voice_relay": 3, "test_public_rooms": 11.2, "test_chat_archive": 10.4, "test_site_deploy": 7.2,
    "test_reports": 6.9, "test_view_patches": 5.5, "test_side_channels": 5.0, "test_admission_burst": 3.0,
    "test_moto_fixes": 2.9, "test_dead_timers": 2.8, "test_consistency": 2.7, "test_deploy_artifacts": 2.6,
    "test_schemas": 2.6, "test_room_ops": 2.5, "test_hygiene": 2.4, "test_frames": 2.1, "test_cold_imports": 2.1,
    "test_ranked": 1.8, "test_afk": 1.8, "test_watch_now": 1.6, "test_bot_clock": 1.4, "test_limits": 1.4,
    "test_local_rooms": 1.3, "test_voice_turn": 0.9, "test_store_contract": 0.8, "test_timers": 0.8,
    "test_display": 0.7, "test_connect": 0.6, "test_anonymous": 0.6,
}
DEFAULT_PER_TEST = 0.3
# every file of `make check` that took 0.6 s or more is listed above; the others took ~0.02 s a test
QUICK_DEFAULT_PER_TEST = 0.02
