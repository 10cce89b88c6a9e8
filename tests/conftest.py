"""What more than one tier shares in one pytest session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def account():
    """One moto account for the session (harness/emulator.py `Account`: one `mock_aws`, the
    table and the schedule group), shared by the functions and contract tiers' fixtures, so
    `pytest tests/functions tests/contract` starts moto once. Imported here, not at the top:
    a tier applies its environment (harness/env.py) before boto3 is imported."""
    from harness.emulator import Account

    acc = Account()
    acc.start()
    yield acc
    acc.stop()
