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
