"""What template.yaml gives operations, read from the template itself: an alarm per function,
the alarms the runbook names, the timers' dead-letter queue, logs that expire, access logs that
cannot hold a token, the site behind CloudFront, folded least-privilege policies, and a prod
environment in samconfig.toml that deploys as it is (docs/operations.md)."""

from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path

import pytest

from local import template
from ops import checks

ROOT = Path(__file__).resolve().parents[2]


def _long_getatt(node):
    """`!GetAtt A.B` (kept as "A.B" by local.template) in its long form ["A", "B"]."""
    if isinstance(node, dict):
        if set(node) == {"Fn::GetAtt"} and isinstance(node["Fn::GetAtt"], str):
            return {"Fn::GetAtt": node["Fn::GetAtt"].split(".", 1)}
        return {k: _long_getatt(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_long_getatt(v) for v in node]
    return node


TPL = _long_getatt(template.load())
RES = TPL["Resources"]
GLOBAL_ENV = TPL["Globals"]["Function"]["Environment"]["Variables"]


def of_type(kind: str) -> dict[str, dict]:
    return {name: r for name, r in RES.items() if r["Type"] == kind}


FUNCTIONS = of_type("AWS::Serverless::Function")
ALARMS = of_type("AWS::CloudWatch::Alarm")


def alarms_on(namespace: str, metric: str) -> list[dict]:
    return [a["Properties"] for a in ALARMS.values()
            if (a["Properties"].get("Namespace"), a["Properties"].get("MetricName")) == (namespace, metric)]  # fmt: skip


def dims(alarm: dict) -> dict:
    return {d["Name"]: d["Value"] for d in alarm.get("Dimensions", [])}


def test_every_alarm_notifies_the_alarm_topic_and_the_email_is_optional():
    assert ALARMS
    for name, alarm in ALARMS.items():
        assert {"Ref": "AlarmTopic"} in alarm["Properties"]["AlarmActions"], name
        assert alarm["Properties"]["TreatMissingData"] == "notBreaching", name
    assert TPL["Parameters"]["AlarmEmail"]["Default"] == ""
    sub = RES["AlarmEmailSubscription"]
    assert sub["Condition"] == "HasAlarmEmail" and sub["Properties"]["Endpoint"] == {"Ref": "AlarmEmail"}


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_every_function_has_an_errors_and_a_throttles_alarm(metric):
    watched = {dims(a)["FunctionName"]["Ref"] for a in alarms_on("AWS/Lambda", metric)}
    assert watched == set(FUNCTIONS)


def test_the_internal_errors_alarm_watches_the_metric_the_code_counts():
    """Namespace and `service` dimension as Powertools Metrics publishes them
    (functions/service/infra/telemetry.py: POWERTOOLS_METRICS_NAMESPACE, POWERTOOLS_SERVICE_NAME)."""
    (alarm,) = alarms_on(GLOBAL_ENV["POWERTOOLS_METRICS_NAMESPACE"], "InternalErrors")
    assert dims(alarm) == {"service": GLOBAL_ENV["POWERTOOLS_SERVICE_NAME"]}
    assert alarm["Threshold"] == 1
    counted = "".join(p.read_text() for p in (ROOT / "functions").rglob("*.py"))
    assert 'count("InternalErrors")' in counted


def test_api_table_and_dead_letter_alarms():
    (rest,) = alarms_on("AWS/ApiGateway", "5XXError")
    assert dims(rest)["ApiName"] == RES["RestApi"]["Properties"]["Name"]
    (ws,) = alarms_on("AWS/ApiGateway", "IntegrationError")
    assert dims(ws)["ApiId"] == {"Ref": "WebSocketApi"}
    table = ALARMS["TableThrottlesAlarm"]["Properties"]["Metrics"]
    watched = {m["MetricStat"]["Metric"]["MetricName"] for m in table if "MetricStat" in m}
    assert watched == {"ReadThrottleEvents", "WriteThrottleEvents"}
    assert all(m["MetricStat"]["Metric"]["Dimensions"] == [{"Name": "TableName", "Value": {"Ref": "RoomsTable"}}]
               for m in table if "MetricStat" in m)  # fmt: skip
    (dlq,) = alarms_on("AWS/SQS", "ApproximateNumberOfMessagesVisible")
    assert dims(dlq)["QueueName"] == {"Fn::GetAtt": ["TimerDeadLetterQueue", "QueueName"]}
    assert dlq["Threshold"] == 1


def test_the_dashboard_shows_games_actions_pushes_latency_and_errors():
    body = RES["OpsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"][0]
    for metric in ("GamesStarted", "Actions", "Pushes", "Duration", "Latency", "InternalErrors", "Errors", "5XXError"):
        assert f'"{metric}"' in body, metric
    counted = "".join(p.read_text() for p in (ROOT / "functions").rglob("*.py"))
    for metric in ("GamesStarted", "Actions", "Pushes", "Timeouts", "InternalErrors", "Rejected", "Conflicts"):
        assert f'count("{metric}"' in counted, metric  # a name the code really publishes


def test_timers_dead_letter_into_a_queue_the_scheduler_role_may_send_to():
    queue = RES["TimerDeadLetterQueue"]
    assert queue["Type"] == "AWS::SQS::Queue" and queue["Properties"]["SqsManagedSseEnabled"] is True
    assert GLOBAL_ENV["TIMER_DEAD_LETTER_ARN"] == {"Fn::GetAtt": ["TimerDeadLetterQueue", "Arn"]}
    statements = RES["SchedulerInvokeRole"]["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    assert {"Effect": "Allow", "Action": "sqs:SendMessage",
            "Resource": {"Fn::GetAtt": ["TimerDeadLetterQueue", "Arn"]}} in statements  # fmt: skip
    outputs = TPL["Outputs"]
    assert outputs["TimerDeadLetterQueueUrl"]["Value"] == {"Ref": "TimerDeadLetterQueue"}
    assert outputs["TimerFunctionName"]["Value"] == {"Ref": "TimerFunction"}


def test_every_function_logs_to_its_own_group_that_expires():
    param = TPL["Parameters"]["LogRetentionDays"]
    assert param["Default"] == 30 and 30 in param["AllowedValues"]
    groups = []
    for name, fn in FUNCTIONS.items():
        group = fn["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        assert RES[group]["Type"] == "AWS::Logs::LogGroup", name
        groups.append(group)
    assert len(set(groups)) == len(FUNCTIONS)
    for group in of_type("AWS::Logs::LogGroup").values():
        assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}


# $context variables that hold neither a header nor the query string (where the WebSocket
# token travels) nor a body
SAFE_CONTEXT = {
    "requestId", "requestTimeEpoch", "identity.sourceIp", "httpMethod", "resourcePath", "status",
    "responseLength", "responseLatency", "integrationLatency", "error.messageString", "connectionId",
    "eventType", "routeKey", "integration.status", "integration.latency",
}  # fmt: skip


@pytest.mark.parametrize(("api", "setting", "group"), [
    ("RestApi", "AccessLogSetting", "RestAccessLogs"),
    ("WebSocketStage", "AccessLogSettings", "WebSocketAccessLogs"),
])  # fmt: skip
def test_both_api_stages_keep_access_logs_that_cannot_hold_a_token(api, setting, group):
    logs = RES[api]["Properties"][setting]
    assert logs["DestinationArn"] == {"Fn::GetAtt": [group, "Arn"]}
    fmt = logs["Format"]
    json.loads(fmt)  # one JSON object per line
    variables = re.findall(r"\$([A-Za-z][\w.]*)", fmt)
    assert variables and all(v.startswith("context.") for v in variables), variables
    assert {v.removeprefix("context.") for v in variables} <= SAFE_CONTEXT
    assert "querystring" not in fmt.lower() and "header" not in fmt.lower()
    # access logs need the account's CloudWatch role first, when this stack sets it (a tag
    # refers to it: DependsOn cannot name a resource a condition leaves out)
    tags = RES[api]["Properties"]["Tags"]
    assert tags["apigateway-account"] == {"Fn::If": ["CreatesApiGatewayAccount", {"Ref": "ApiGatewayAccount"}, "reused"]}
    assert "DependsOn" not in RES[api]


def test_the_default_deploy_sets_the_api_gateway_account_role():
    """Every stack of samconfig.toml sets the account's role (the first `sam deploy`, without
    --config-env, works in a fresh account: no stack has to come first) and keeps it on delete,
    so deleting either leaves the setting pointing at a role that exists."""
    for name in ("ApiGatewayLogsRole", "ApiGatewayAccount"):
        assert RES[name]["Condition"] == "CreatesApiGatewayAccount"
        assert RES[name]["DeletionPolicy"] == RES[name]["UpdateReplacePolicy"] == "Retain"
    assert TPL["Parameters"]["CreateApiGatewayAccount"]["Default"] == "true"  # a lone stack works
    assert _overrides("prod")["CreateApiGatewayAccount"] == "true"
    assert _overrides("default")["CreateApiGatewayAccount"] == "true"
    conf = tomllib.loads((ROOT / "samconfig.toml").read_text())
    assert conf["default"]["global"]["parameters"]["region"] == conf["prod"]["global"]["parameters"]["region"]
    assert conf["default"]["global"]["parameters"]["stack_name"] != conf["prod"]["global"]["parameters"]["stack_name"]


def _statements() -> list[dict]:
    out = []
    for r in RES.values():
        props = r.get("Properties") or {}
        for policy in props.get("Policies") or []:
            if isinstance(policy, dict) and "Statement" in policy:
                out.extend(policy["Statement"])
            elif isinstance(policy, dict) and "PolicyDocument" in policy:
                out.extend(policy["PolicyDocument"]["Statement"])
        if r["Type"] == "AWS::IAM::ManagedPolicy":
            out.extend(props["PolicyDocument"]["Statement"])
    return out


def test_pass_role_is_limited_to_the_scheduler():
    passes = [st for st in _statements() if st["Action"] == "iam:PassRole"]
    assert passes
    for st in passes:
        assert st["Resource"] == {"Fn::GetAtt": ["SchedulerInvokeRole", "Arn"]}
        assert st["Condition"] == {"StringEquals": {"iam:PassedToService": "scheduler.amazonaws.com"}}


def test_no_policy_statement_is_repeated():
    seen = [json.dumps(st, sort_keys=True) for st in _statements()]
    assert len(seen) == len(set(seen)), [s for s in seen if seen.count(s) > 1]


def test_reserved_concurrency_parameters_are_unset_by_default():
    for param, fn in [("RestReservedConcurrency", "RestFunction"), ("FrameReservedConcurrency", "WsDefaultFunction"),
                      ("TimerReservedConcurrency", "TimerFunction")]:  # fmt: skip
        assert TPL["Parameters"][param]["Default"] == ""
        value = FUNCTIONS[fn]["Properties"]["ReservedConcurrentExecutions"]["Fn::If"]
        assert value[1] == {"Ref": param} and value[2] == {"Ref": "AWS::NoValue"}


def test_the_table_is_retained_and_protected_when_asked():
    table = RES["RoomsTable"]
    assert table["DeletionPolicy"] == {"Fn::If": ["ProtectTable", "Retain", "Delete"]}
    assert table["UpdateReplacePolicy"] == {"Fn::If": ["ProtectTable", "Retain", "Delete"]}
    assert table["Properties"]["DeletionProtectionEnabled"] == {"Fn::If": ["ProtectTable", True, False]}
    assert TPL["Parameters"]["TableProtection"]["Default"] == "false"
    # DeletionPolicy may hold Fn::If only under the language extensions, applied before SAM
    assert TPL["Transform"] == ["AWS::LanguageExtensions", "AWS::Serverless-2016-10-31"]


def test_the_site_is_a_private_bucket_read_by_cloudfront_only():
    bucket = RES["WebBucket"]["Properties"]
    assert "WebsiteConfiguration" not in bucket
    assert set(bucket["PublicAccessBlockConfiguration"].values()) == {True}
    (read, tls) = RES["WebBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert read["Principal"] == {"Service": "cloudfront.amazonaws.com"} and read["Action"] == "s3:GetObject"
    assert "AWS:SourceArn" in read["Condition"]["StringEquals"]
    assert tls["Effect"] == "Deny" and tls["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    dist = RES["WebDistribution"]["Properties"]["DistributionConfig"]
    web = next(o for o in dist["Origins"] if o["Id"] == "web")
    assert web["OriginAccessControlId"] == {"Fn::GetAtt": ["WebOriginAccessControl", "Id"]}
    behaviours = [dist["DefaultCacheBehavior"], *dist["CacheBehaviors"]]
    assert all(b["Compress"] is True and b["ViewerProtocolPolicy"] in ("redirect-to-https", "https-only")
               for b in behaviours)  # fmt: skip


def test_the_rest_api_is_served_under_api_of_the_same_site():
    """CloudFront sends /api/* to the REST stage (origin path = the stage) and its viewer-request
    function strips /api, so the REST function sees the paths of its routes unchanged."""
    dist = RES["WebDistribution"]["Properties"]["DistributionConfig"]
    (api,) = [b for b in dist["CacheBehaviors"] if b["PathPattern"] == "/api/*"]
    rest = next(o for o in dist["Origins"] if o["Id"] == api["TargetOriginId"])
    assert rest["DomainName"] == {"Fn::Sub": "${RestApi}.execute-api.${AWS::Region}.amazonaws.com"}
    assert rest["OriginPath"] == {"Fn::Sub": "/${Stage}"}
    assert "POST" in api["AllowedMethods"]
    code = RES["ViewerRequestFunction"]["Properties"]["FunctionCode"]
    assert "uri.substring(4)" in code  # len("/api")
    assert api["FunctionAssociations"][0]["FunctionARN"] == {"Fn::GetAtt": ["ViewerRequestFunction", "FunctionARN"]}
    # the site's config.json points the client there, and its sockets at the WebSocket stage
    config = RES["SiteDeployment"]["Properties"]["Config"]
    assert config["apiUrl"] == "/api"
    assert config["wsUrl"] == TPL["Outputs"]["WebSocketUrl"]["Value"]


def test_the_socket_origin_check_allows_the_site_without_anyone_typing_it():
    origins = FUNCTIONS["WsConnectFunction"]["Properties"]["Environment"]["Variables"]["ALLOWED_ORIGINS"]["Fn::Sub"]
    assert origins[0].startswith("https://${WebDistribution.DomainName},")
    assert "${AllowedOrigins}" in origins[0] and "CustomOrigin" in origins[1]
    assert TPL["Parameters"]["AllowedOrigins"]["Default"] == ""


def test_the_site_deployment_reruns_whenever_its_package_changes():
    props = RES["SiteDeployment"]["Properties"]
    assert props["ServiceToken"] == {"Fn::GetAtt": ["SiteDeployFunction", "Arn"]}
    assert props["Release"] == {"Ref": "SiteDeployFunction.Version"}  # a new version per new package
    assert FUNCTIONS["SiteDeployFunction"]["Properties"]["AutoPublishAlias"]
    assert props["BucketName"] == {"Ref": "WebBucket"}


def test_the_site_deployment_never_holds_a_deploy_for_an_hour():
    """The deployer answers FAILED MARGIN_S before its own timeout; a request nobody answers (a
    crash) fails after ServiceTimeout, not CloudFormation's default hour; its policy may hand a
    request to its own versions (the rollback's client) and nothing else."""
    from sitedeploy import handler as site

    timeout = FUNCTIONS["SiteDeployFunction"]["Properties"]["Timeout"]
    service_timeout = RES["SiteDeployment"]["Properties"]["ServiceTimeout"]
    assert site.MARGIN_S < timeout < service_timeout <= 600
    (invoke,) = [st for st in FUNCTIONS["SiteDeployFunction"]["Properties"]["Policies"][0]["Statement"]
                 if st["Action"] == "lambda:InvokeFunction"]  # fmt: skip
    assert invoke["Resource"]["Fn::Sub"].endswith(":function:${AWS::StackName}-site-deploy:*")
    assert FUNCTIONS["SiteDeployFunction"]["Properties"]["FunctionName"] == {"Fn::Sub": "${AWS::StackName}-site-deploy"}


def _overrides(env: str) -> dict[str, str]:
    conf = tomllib.loads((ROOT / "samconfig.toml").read_text())
    text = conf[env]["deploy"]["parameters"]["parameter_overrides"]
    return dict(re.findall(r'(\w+)="([^"]*)"', text))


@pytest.mark.parametrize("env", ["default", "prod"])
def test_samconfig_environments_deploy_as_they_are(env):
    overrides = _overrides(env)
    assert overrides and set(overrides) <= set(TPL["Parameters"])
    assert not any("example." in v for v in overrides.values())
    conf = tomllib.loads((ROOT / "samconfig.toml").read_text())[env]["deploy"]["parameters"]
    # the language extensions transform needs CAPABILITY_AUTO_EXPAND
    assert set(conf["capabilities"].split()) == {"CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"}


def test_prod_keeps_its_table():
    assert _overrides("prod")["TableProtection"] == "true"
    assert _overrides("default").get("TableProtection", "false") == "false"


# ---- what only a real account would show, read from the template (ops/checks.py)
def test_no_topic_uses_an_aws_managed_key_and_cloudwatch_may_use_the_alarm_topics_key():
    assert checks.topic_key_problems(TPL) == []
    key = RES[RES["AlarmTopic"]["Properties"]["KmsMasterKeyId"]["Ref"]]
    assert key["Type"] == "AWS::KMS::Key" and key["Properties"]["EnableKeyRotation"] is True


def test_every_alarm_watches_a_metric_aws_publishes_for_that_resource():
    assert checks.alarm_metric_problems(TPL) == []


def _broken(edit) -> dict:
    tpl = copy.deepcopy(TPL)
    edit(tpl["Resources"])
    return tpl


@pytest.mark.parametrize("edit", [
    lambda r: r["AlarmTopic"]["Properties"].update(KmsMasterKeyId="alias/aws/sns"),
    lambda r: r["AlarmTopicKey"]["Properties"].update(EnableKeyRotation=False),
    lambda r: r["AlarmTopicKey"]["Properties"]["KeyPolicy"]["Statement"].pop(),
], ids=["aws-managed-key", "no-rotation", "no-cloudwatch-grant"])  # fmt: skip
def test_the_topic_key_check_finds_a_key_cloudwatch_cannot_use(edit):
    assert checks.topic_key_problems(_broken(edit))


@pytest.mark.parametrize("edit", [
    # the WebSocket API by name (only REST APIs publish by ApiName)
    lambda r: r["WebSocketIntegrationErrorsAlarm"]["Properties"]["Dimensions"].__setitem__(
        0, {"Name": "ApiName", "Value": {"Fn::Sub": "${AWS::StackName}-ws"}}),
    # the REST API by id (REST APIs publish by ApiName)
    lambda r: r["RestApi5xxAlarm"]["Properties"]["Dimensions"].__setitem__(0, {"Name": "ApiId", "Value": {"Ref": "RestApi"}}),
    lambda r: r["RestApi5xxAlarm"]["Properties"]["Dimensions"][1].update(Value="prod"),
    lambda r: r["TimerFunctionErrorsAlarm"]["Properties"].update(Dimensions=[{"Name": "FunctionName", "Value": {"Ref": "RoomsTable"}}]),
    lambda r: r["TimerFunctionErrorsAlarm"]["Properties"].update(Dimensions=[{"Name": "Function", "Value": {"Ref": "TimerFunction"}}]),
    lambda r: r["TableThrottlesAlarm"]["Properties"]["Metrics"][0]["MetricStat"]["Metric"].update(
        Dimensions=[{"Name": "TableName", "Value": {"Ref": "TimerDeadLetterQueue"}}]),
    lambda r: r["TimerDeadLettersAlarm"]["Properties"].update(Dimensions=[{"Name": "QueueName", "Value": {"Ref": "TimerDeadLetterQueue"}}]),
], ids=["ws-by-name", "rest-by-id", "rest-other-stage", "function-is-a-table", "no-such-dimension", "table-is-a-queue", "queue-url-not-name"])  # fmt: skip
def test_the_alarm_check_finds_a_metric_aws_never_publishes(edit):
    assert checks.alarm_metric_problems(_broken(edit))


def test_cloudfront_adds_the_origin_secret_the_rest_function_expects():
    """The REST origin's custom header and the REST function's MAFIA_ORIGIN_SECRET are one
    Secrets Manager value (dynamic references, resolved at deploy: no literal anywhere), under
    the header name the handler and the offline stack use; the /api/* behaviour forwards
    CloudFront's own headers (CloudFront-Viewer-Address) with AllViewerExceptHostHeader."""
    from handlers import rest as rest_handler
    from local import events

    secret = RES["OriginSecret"]
    assert secret["Type"] == "AWS::SecretsManager::Secret"
    assert secret["Properties"]["GenerateSecretString"]["PasswordLength"] >= 32
    ref = {"Fn::Sub": "{{resolve:secretsmanager:${OriginSecret}:SecretString}}"}
    env = RES["RestFunction"]["Properties"]["Environment"]["Variables"]
    assert env["MAFIA_ORIGIN_SECRET"] == ref
    dist = RES["WebDistribution"]["Properties"]["DistributionConfig"]
    (api,) = [b for b in dist["CacheBehaviors"] if b["PathPattern"] == "/api/*"]
    origin = next(o for o in dist["Origins"] if o["Id"] == api["TargetOriginId"])
    (header,) = origin["OriginCustomHeaders"]
    assert header["HeaderValue"] == ref
    assert header["HeaderName"].lower() == rest_handler.ORIGIN_HEADER == events.ORIGIN_HEADER.lower()
    assert api["OriginRequestPolicyId"] == "b689b0a8-53d0-40ab-baf2-68738e2966ac"  # AllViewerExceptHostHeader
    # no other function reads the secret, and the site's config.json never names it
    readers = [n for n, r in RES.items() if "MAFIA_ORIGIN_SECRET" in json.dumps(r)]
    assert readers == ["RestFunction"]


def test_the_web_acl_is_on_the_distribution_per_viewer_for_the_api_only():
    """On by default (one abuser cannot empty the stage's shared buckets): per viewer address,
    every /api/ request over 5 minutes, and the POSTs among them over one minute, at most as
    many as the stage's POST bucket refills in a fifth of that minute."""
    acl = RES["RestWebAcl"]["Properties"]
    assert acl["Scope"] == "CLOUDFRONT"
    rules = {r["Name"]: r for r in acl["Rules"]}
    assert set(rules) == {"per-address-rate", "per-address-writes"}
    rate = rules["per-address-rate"]["Statement"]["RateBasedStatement"]
    assert rate["AggregateKeyType"] == "IP" and rate["Limit"] == {"Ref": "WafRateLimit"}
    scope = rate["ScopeDownStatement"]["ByteMatchStatement"]
    assert (scope["SearchString"], scope["PositionalConstraint"]) == ("/api/", "STARTS_WITH")
    writes = rules["per-address-writes"]["Statement"]["RateBasedStatement"]
    assert writes["AggregateKeyType"] == "IP" and writes["Limit"] == {"Ref": "WafWriteLimit"}
    assert writes["EvaluationWindowSec"] == 60  # WAF's shortest window: 60, 120, 300 or 600
    parts = [s["ByteMatchStatement"] for s in writes["ScopeDownStatement"]["AndStatement"]["Statements"]]
    assert {(p["SearchString"], p["PositionalConstraint"], next(iter(p["FieldToMatch"]))) for p in parts} == {
        ("/api/", "STARTS_WITH", "UriPath"),
        ("POST", "EXACTLY", "Method"),
    }
    params = TPL["Parameters"]
    assert 10 <= int(params["WafRateLimit"]["Default"]) and 10 <= int(params["WafWriteLimit"]["Default"])
    # one address within the write rule takes at most a fifth of the POST bucket's refill
    assert int(params["WafWriteLimit"]["Default"]) <= 60 * params["CreateRoomRate"]["Default"] / 5
    dist = RES["WebDistribution"]["Properties"]["DistributionConfig"]
    assert dist["WebACLId"] == {"Fn::If": ["HasWaf", {"Fn::GetAtt": ["RestWebAcl", "Arn"]}, {"Ref": "AWS::NoValue"}]}
    assert TPL["Rules"]["WafNeedsUsEast1"]["Assertions"][0]["Assert"] == {
        "Fn::Equals": [{"Ref": "AWS::Region"}, "us-east-1"]
    }
    pattern = re.compile(TPL["Parameters"]["WafRateLimit"]["AllowedPattern"])
    assert [v for v in ("0", "10", "100", "999999999") if not pattern.fullmatch(v)] == []
    assert [v for v in ("1", "9", "09", "-5", "1e3", "2000000001", "9999999999") if pattern.fullmatch(v)] == []


def test_the_stage_answers_only_requests_that_came_through_the_distribution():
    """With WAF on (the default), a regional web ACL on the REST stage blocks, before the stage's
    buckets and the function, every request without the origin secret CloudFront adds (the
    `execute-api` URL called directly), with the function's own 403 answer; the function's check
    (handlers/rest.py `through_cloudfront`) stays behind it."""
    from handlers import rest as rest_handler

    acl = RES["StageWebAcl"]
    assert acl["Condition"] == "HasWaf" and acl["Properties"]["Scope"] == "REGIONAL"
    props = acl["Properties"]
    block = props["DefaultAction"]["Block"]["CustomResponse"]
    assert block["ResponseCode"] == 403
    body = json.loads(props["CustomResponseBodies"][block["CustomResponseBodyKey"]]["Content"])
    assert body["error"] == rest_handler.FORBIDDEN.as_dict()
    (rule,) = props["Rules"]
    assert rule["Action"] == {"Allow": {}}
    match = rule["Statement"]["ByteMatchStatement"]
    assert match["FieldToMatch"] == {"SingleHeader": {"Name": rest_handler.ORIGIN_HEADER}}
    assert match["PositionalConstraint"] == "EXACTLY"
    assert [t["Type"] for t in match["TextTransformations"]] == ["NONE"]
    # the very value CloudFront's origin header and the function read (one secret, at deploy)
    ref = {"Fn::Sub": "{{resolve:secretsmanager:${OriginSecret}:SecretString}}"}
    assert match["SearchString"] == ref
    (assoc,) = [r for r in RES.values() if r["Type"] == "AWS::WAFv2::WebACLAssociation"]
    assert assoc["Condition"] == "HasWaf"
    assert assoc["Properties"]["WebACLArn"] == {"Fn::GetAtt": ["StageWebAcl", "Arn"]}
    arn = assoc["Properties"]["ResourceArn"]["Fn::Sub"]
    assert arn.endswith("::/restapis/${RestApi}/stages/${RestApi.Stage}") and ":apigateway:${AWS::Region}" in arn
