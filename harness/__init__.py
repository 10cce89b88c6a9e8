"""The test and bench harness, one copy for every tier (docs/architecture.md, "Harness"):

- `harness.env`: the environment the handlers read, for in-process runs on moto
  (tests/functions/conftest.py, bench/backend.py);
- `harness.gateways`: `CountingGateway` (sizes of what was pushed) and `FakeGateway` (also
  records every frame, and answers 410 for connections marked gone);
- `harness.clock`: `Clock`, a settable server clock that replaces `service.infra.clock.now`;
- `harness.emulator`: `with_fixes(monkeypatch)`, moto with the offline stack's emulator fixes for
  one test (the functions tier's `aws`, the contract tier's stack, tests/functions/test_moto_fixes.py);
  `Account`, one moto account (table, schedule group) a test session shares (the functions and
  contract tiers' fixtures);
- `harness.iam`: `Recorder`, the AWS requests the handlers make as IAM authorizes them, for the
  permission checks (ops/permissions.py, tests/functions/test_permissions.py);
- `harness.stack`: the one launcher of the offline stack (`local.process`), re-exported, with
  its manual clock (`start_stack(manual_clock=True).step(...)`).

Nothing here is imported by a Lambda handler.
"""
