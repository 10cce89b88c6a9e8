"""The functions tier as two processes in `make test` and `make check` (HANDLERS_SHARD=1/2 and
2/2, tests/shards.py): whole files per shard, balanced by the CPU seconds each file took
(`time.process_time` around each test, the tier alone, 2026-12-06); a file not listed counts
DEFAULT_PER_TEST seconds a test."""

from __future__ import annotations

SECONDS = {
    "test_side_channels": 30, "test_room_upgrades": 32, "test_chat_archive": 29, "test_fuzz": 29,
    "test_voice_relay": 27, "test_public_rooms": 18, "test_site_deploy": 11, "test_reports": 10,
    "test_anonymous": 6, "test_view_patches": 6, "test_room_ops": 5, "test_game": 5,
    "test_admission_burst": 5, "test_hygiene": 4, "test_fair_deal": 4, "test_moto_fixes": 4,
    "test_frames": 4, "test_local_rooms": 4, "test_dead_timers": 4, "test_limits": 3,
    "test_schemas": 3, "test_consistency": 3, "test_deploy_artifacts": 2, "test_afk": 2,
    "test_identity": 3, "test_passkeys": 3,
}
DEFAULT_PER_TEST = 0.3
