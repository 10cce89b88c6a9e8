"""Dead-lettered phase timeouts: armed schedules name the dead-letter queue, and
`python -m ops.timers list|replay` (ops/timers.py) lists them from SQS (moto) and replays them
through the real timer handler, which applies a timeout once (by its phase seq)."""

from __future__ import annotations

import io
import json

import boto3
import pytest
from fnkit import CTX

from handlers import timer
from ops import timers as ops_timers
from service.infra import timers

DLQ_NAME = "mafia-test-timer-dlq"
pytestmark = pytest.mark.fresh_aws  # the queue by its name: empty for each test


@pytest.fixture
def dlq(aws) -> str:
    return boto3.client("sqs").create_queue(QueueName=DLQ_NAME)["QueueUrl"]


def dead_letter(url: str, room: str, phase: int, at: int, body: str | None = None) -> None:
    """What Scheduler puts in the queue after its last retry: the target's Input as the body,
    why it gave up in the message attributes."""
    arn = f"arn:aws:scheduler:us-east-1:123456789012:schedule/mafia-test-phases/{timers.schedule_name(room, phase, at)}"
    boto3.client("sqs").send_message(
        QueueUrl=url,
        MessageBody=body if body is not None else json.dumps({"room": room, "phase": phase, "at": at}),
        MessageAttributes={
            "ERROR_CODE": {"DataType": "String", "StringValue": "Lambda.TooManyRequestsException"},
            "RETRY_ATTEMPTS": {"DataType": "String", "StringValue": "3"},
            "SCHEDULE_ARN": {"DataType": "String", "StringValue": arn},
        },
    )


def in_queue(url: str) -> int:
    attrs = boto3.client("sqs").get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return int(attrs["ApproximateNumberOfMessages"]) + int(attrs["ApproximateNumberOfMessagesNotVisible"])


def run(*argv: str, fire=None) -> tuple[int, str]:
    out = io.StringIO()
    code = ops_timers.main(list(argv), out=out, sqs=boto3.client("sqs"), fire=fire)
    return code, out.getvalue()


def fire_handler(timeout: dict) -> dict:
    """The timer function itself, as `lambda invoke` runs it on AWS."""
    return timer.handler(timeout, CTX)


def ended_phase(api) -> tuple[int, int]:
    """A running game whose phase deadline has passed with nobody connected to nudge it."""
    api.start(4)
    state = api.state()
    seq, at = state["seq"], timers.fire_minute(state["phase"]["endsAt"])
    api.clock.advance(at - api.clock.t + 5)
    return seq, at


def test_armed_schedules_name_the_dead_letter_queue_and_a_retry_policy(aws):
    client = boto3.client("scheduler")
    dlq_arn = "arn:aws:sqs:us-east-1:123456789012:" + DLQ_NAME
    t = timers.Timers(client, "mafia-test-phases", "arn:aws:iam::123456789012:role/s", "arn:aws:lambda:fn", dlq_arn)
    at = t.arm("ABCDE", 3, 1_800_000_000.0)
    target = client.get_schedule(Name=timers.schedule_name("ABCDE", 3, at), GroupName="mafia-test-phases")["Target"]
    assert target["DeadLetterConfig"] == {"Arn": dlq_arn}
    assert target["RetryPolicy"] == {"MaximumRetryAttempts": 3, "MaximumEventAgeInSeconds": 3600}
    assert json.loads(target["Input"]) == {"room": "ABCDE", "phase": 3, "at": at}


def test_the_service_arms_with_the_queue_of_its_environment(monkeypatch):
    from service import config

    monkeypatch.setenv("TIMER_DEAD_LETTER_ARN", "arn:aws:sqs:us-east-1:123456789012:q")
    assert config.Settings.from_env().timer_dead_letter_arn == "arn:aws:sqs:us-east-1:123456789012:q"


def test_list_shows_a_stuck_room_and_leaves_the_message_in_the_queue(api, dlq):
    seq, at = ended_phase(api)
    dead_letter(dlq, api.code, seq, at)
    code, out = run("--queue-url", dlq, "list")
    assert code == 0
    assert f"room {api.code}" in out and f"phase {seq}" in out and "Lambda.TooManyRequestsException after 3" in out
    assert in_queue(dlq) == 1
    # listed messages are visible again at once: a second list sees the same
    assert f"room {api.code}" in run("--queue-url", dlq, "list")[1]


def test_replay_ends_the_stuck_phase_and_empties_the_queue(api, dlq):
    seq, at = ended_phase(api)
    dead_letter(dlq, api.code, seq, at)
    code, out = run("--queue-url", dlq, "replay", fire=fire_handler)
    assert code == 0, out
    assert f"room {api.code} phase {seq}: applied" in out and "replayed 1, kept 0" in out
    assert api.state()["seq"] == seq + 1
    assert in_queue(dlq) == 0
    assert run("--queue-url", dlq, "list")[1] == "no dead-lettered timeouts\n"


def test_replaying_a_duplicate_changes_nothing_the_second_time(api, dlq):
    """Scheduler delivers at least once, and a replay may race a late delivery: the timeout
    names its phase seq, so the second one is stale and leaves the room as it was."""
    seq, at = ended_phase(api)
    dead_letter(dlq, api.code, seq, at)
    dead_letter(dlq, api.code, seq, at)
    code, out = run("--queue-url", dlq, "replay", fire=fire_handler)
    assert code == 0 and out.count(": applied") == 1 and out.count(": stale_timeout") == 1, out
    assert api.state()["seq"] == seq + 1
    assert in_queue(dlq) == 0


def test_a_failed_replay_keeps_the_message_and_fails_the_command(api, dlq):
    seq, at = ended_phase(api)
    dead_letter(dlq, api.code, seq, at)

    def throttled(timeout):
        raise RuntimeError("Rate exceeded")

    code, out = run("--queue-url", dlq, "replay", fire=throttled)
    assert code == 1 and "kept, Rate exceeded" in out and "(1 failed)" in out
    assert in_queue(dlq) == 1 and f"room {api.code}" in run("--queue-url", dlq, "list")[1]
    assert api.state()["seq"] == seq  # nothing changed


def test_replay_of_one_room_leaves_the_others(api, dlq):
    seq, at = ended_phase(api)
    dead_letter(dlq, api.code, seq, at)
    dead_letter(dlq, "ZZZZZ", 4, at)
    code, out = run("--queue-url", dlq, "replay", "--room", api.code.lower(), fire=fire_handler)
    assert code == 0 and "replayed 1, kept 1" in out
    assert "room ZZZZZ" in run("--queue-url", dlq, "list")[1]


def test_the_timeout_is_read_from_the_schedule_name_when_the_body_is_not_one(api, dlq):
    seq, at = ended_phase(api)
    dead_letter(dlq, api.code, seq, at, body="{}")
    dead_letter(dlq, "ZZZZZ", 1, at, body="not json")
    boto3.client("sqs").send_message(QueueUrl=dlq, MessageBody="\x1b[2Jgarbage")  # no attributes at all
    code, out = run("--queue-url", dlq, "replay", fire=fire_handler)
    assert f"room {api.code} phase {seq}: applied" in out
    assert "room ZZZZZ phase 1: room_not_found" in out
    assert "kept: unreadable body" in out and "replayed 2, kept 1" in out
    listed = run("--queue-url", dlq, "list")[1]
    assert "unreadable body" in listed and "\x1b" not in listed  # escaped, as ops.reports does


def test_list_as_json(api, dlq):
    seq, at = ended_phase(api)
    dead_letter(dlq, api.code, seq, at)
    code, out = run("--queue-url", dlq, "--json", "list")
    (row,) = json.loads(out)
    assert row["timeout"] == {"room": api.code, "phase": seq, "at": at}
    assert row["attributes"]["RETRY_ATTEMPTS"] == "3"


def test_the_stack_outputs_name_the_queue_and_the_function(api, dlq, monkeypatch):
    """`--stack mafia-prod` reads TimerDeadLetterQueueUrl and TimerFunctionName from the stack
    (template.yaml Outputs) and replays through a synchronous invoke of that function."""
    from botocore.stub import Stubber

    seq, at = ended_phase(api)
    dead_letter(dlq, api.code, seq, at)
    cfn = boto3.client("cloudformation")
    outputs = [{"OutputKey": "TimerDeadLetterQueueUrl", "OutputValue": dlq},
               {"OutputKey": "TimerFunctionName", "OutputValue": "mafia-prod-timer"}]  # fmt: skip
    stack = {"StackName": "mafia-prod", "CreationTime": "2026-12-01T00:00:00Z", "StackStatus": "UPDATE_COMPLETE",
             "Outputs": outputs}  # fmt: skip
    invoked = []

    class Lambda:
        """moto's Lambda runs functions in Docker (none here): this runs the timer handler."""

        def invoke(self, FunctionName, InvocationType, Payload):  # noqa: N803 - boto3's names
            invoked.append((FunctionName, InvocationType))
            answer = json.dumps(fire_handler(json.loads(Payload))).encode()
            return {"StatusCode": 200, "Payload": io.BytesIO(answer)}

    real_client = boto3.client
    monkeypatch.setattr(boto3, "client", lambda name, *a, **k: Lambda() if name == "lambda" else real_client(name, *a, **k))
    out = io.StringIO()
    with Stubber(cfn) as stub:
        stub.add_response("describe_stacks", {"Stacks": [stack]}, {"StackName": "mafia-prod"})
        code = ops_timers.main(["--stack", "mafia-prod", "replay"], out=out, sqs=real_client("sqs"), cfn=cfn)
    assert code == 0 and f"room {api.code} phase {seq}: applied" in out.getvalue()
    assert invoked == [("mafia-prod-timer", "RequestResponse")]
    assert in_queue(dlq) == 0
