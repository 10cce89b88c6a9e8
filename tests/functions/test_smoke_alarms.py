"""ops.smoke's alarm check (`--stack`) against moto's SNS: the alarm topic needs a confirmed
subscription, or nobody hears an alarm; without --stack it is skipped, and says why."""

from __future__ import annotations

import boto3
from moto import mock_aws

from ops import smoke


def test_the_alarm_check_needs_a_confirmed_subscription():
    with mock_aws():
        sns = boto3.client("sns", region_name="us-east-1")
        topic = sns.create_topic(Name="mafia-test-alarms")["TopicArn"]
        bare = smoke.Smoke("https://site.example/", outputs={"AlarmTopicArn": topic}, region="us-east-1")
        smoke.check_alarms(bare)
        assert bare.rows[-1][:2] == ("alarm topic subscribed", "FAIL") and bare.failed
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint="arn:aws:sqs:us-east-1:123456789012:ops")
        heard = smoke.Smoke("https://site.example/", outputs={"AlarmTopicArn": topic}, region="us-east-1")
        smoke.check_alarms(heard)
        assert heard.rows[-1][:2] == ("alarm topic subscribed", "ok") and not heard.failed
    offline = smoke.Smoke("http://127.0.0.1:8000/")
    smoke.check_alarms(offline)
    assert offline.rows[-1] == ("alarm topic subscribed", "skip", "skipped: needs --stack")
    assert offline.offline and not smoke.Smoke("http://mafia.example.org/").offline


def test_the_dead_letter_check_reads_the_queue_and_names_the_rooms_to_replay():
    """With --stack: an empty dead-letter queue passes; a phase timeout Scheduler could not
    deliver fails the row, names its room and the replay command, and stays in the queue."""
    with mock_aws():
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="mafia-test-timer-dlq")["QueueUrl"]
        outputs = {"TimerDeadLetterQueueUrl": url}
        empty = smoke.Smoke("https://site.example/", outputs=outputs, region="us-east-1")
        smoke.check_dead_letters(empty)
        assert empty.rows[-1][:2] == ("dead-letter queue", "ok") and not empty.failed
        sqs.send_message(
            QueueUrl=url,
            MessageBody='{"type": "phaseTimeout", "room": "ABCD", "seq": 3}',
            MessageAttributes={"SCHEDULE_ARN": {
                "DataType": "String",
                "StringValue": "arn:aws:scheduler:us-east-1:123456789012:schedule/g/mafia-ABCD-3-1700000000",
            }},
        )  # fmt: skip
        full = smoke.Smoke("https://site.example/", outputs=outputs, region="us-east-1")
        smoke.check_dead_letters(full)
        check, status, detail = full.rows[-1]
        assert (check, status) == ("dead-letter queue", "FAIL") and full.failed
        assert "1 undelivered" in detail and "ABCD" in detail and "ops.timers replay" in detail
        left = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
        assert left["Attributes"]["ApproximateNumberOfMessages"] == "1"  # read, never deleted
    offline = smoke.Smoke("http://127.0.0.1:8000/")
    smoke.check_dead_letters(offline)
    assert offline.rows[-1][:2] == ("dead-letter queue", "skip")


def test_a_check_that_raises_is_named_in_its_own_row_and_the_next_still_runs():
    """A failing check (the report route timing out, say) is reported under its own name,
    never as another row's failure, and the checks after it still run."""
    import asyncio

    s = smoke.Smoke("https://site.example/")

    async def checks():
        async with s.step("report route"):
            raise TimeoutError("no answer to the report frame in 10 s")
        s.row("after", True)

    asyncio.run(checks())
    assert s.rows[0] == ("report route", "FAIL", "TimeoutError: no answer to the report frame in 10 s")
    assert s.rows[1][:2] == ("after", "ok") and s.failed
