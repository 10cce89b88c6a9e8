"""What no emulator can run, read from a template: template semantics that only a real account
would otherwise show (docs/operations.md, "Going to production"). Each check takes the template as
data (`local.template.load`, short tags as `{"Ref": ...}`) and returns its problems, one line
each, so a test asserts none on template.yaml and some on a copy broken on purpose.

- `topic_key_problems`: an SNS topic must not be encrypted with an AWS managed key (`alias/aws/...`):
  such a key's policy cannot let CloudWatch (or any service) publish, so every alarm action
  fails with KMS AccessDenied. A topic that alarms notify must name a customer managed key in the
  template, with rotation, whose policy lets `cloudwatch.amazonaws.com` use it.
- `alarm_metric_problems`: every alarm's namespace and dimensions must be a set AWS publishes for
  that resource type, naming a resource of the right type: an alarm on a dimension AWS never
  publishes stays in INSUFFICIENT_DATA (TreatMissingData: notBreaching hides it) for ever. An
  index's throttles are published by the table and the index's name (`GlobalSecondaryIndexName`,
  an index of that table); a web ACL's by its own and its rule's metric names (VisibilityConfig),
  with `Region` for a REGIONAL ACL only, and the alarm exists only when the ACL does (its Condition).
- `unwatched_problems` (part of `alarm_metric_problems`): every limit a player meets has an alarm
  (docs/operations.md, "Capacity"): each WebSocket API's refused frames (ClientError: a throttled
  frame never reaches a function), each REST API's 4XX (its throttles' 429s and the budgets'),
  each table index's read and write throttles, each web ACL's blocks.
"""

from __future__ import annotations

from typing import Any

CLOUDWATCH = "cloudwatch.amazonaws.com"
KEY_ACTIONS = {"kms:GenerateDataKey*", "kms:Decrypt"}

FUNCTION_TYPES = {"AWS::Serverless::Function", "AWS::Lambda::Function"}
REST_TYPES = {"AWS::Serverless::Api", "AWS::ApiGateway::RestApi"}

# The dimension sets AWS publishes, per namespace (the services' "CloudWatch metrics" pages):
# Lambda by FunctionName; API Gateway REST APIs by ApiName (+ Stage), WebSocket and HTTP APIs
# (v2) by ApiId (+ Stage); DynamoDB by TableName; SQS by QueueName; SNS by TopicName;
# EventBridge Scheduler by ScheduleGroup (or account-wide, no dimension).
PUBLISHED: dict[str, list[frozenset[str]]] = {
    "AWS/Lambda": [frozenset({"FunctionName"}), frozenset({"FunctionName", "Resource"})],
    "AWS/ApiGateway": [
        frozenset({"ApiName"}), frozenset({"ApiName", "Stage"}),
        frozenset({"ApiId"}), frozenset({"ApiId", "Stage"}), frozenset({"ApiId", "Stage", "Route"}),
    ],  # fmt: skip
    "AWS/DynamoDB": [
        frozenset({"TableName"}), frozenset({"TableName", "Operation"}),
        frozenset({"TableName", "GlobalSecondaryIndexName"}),
    ],  # fmt: skip
    "AWS/SQS": [frozenset({"QueueName"})],
    "AWS/SNS": [frozenset({"TopicName"})],
    "AWS/Scheduler": [frozenset(), frozenset({"ScheduleGroup"})],
    # AWS WAF: the web ACL's and the rule's metric names, and the Region of a REGIONAL web ACL
    "AWS/WAFV2": [frozenset({"WebACL", "Rule", "Region"}), frozenset({"WebACL", "Rule"})],
}
WEB_ACL = "AWS::WAFv2::WebACL"


def _resources(tpl: dict) -> dict[str, dict]:
    return tpl.get("Resources") or {}


def _ref(value: Any) -> str | None:
    return value["Ref"] if isinstance(value, dict) and set(value) == {"Ref"} else None


def _getatt(value: Any) -> tuple[str, str] | None:
    if isinstance(value, dict) and set(value) == {"Fn::GetAtt"}:
        att = value["Fn::GetAtt"]
        parts = att.split(".", 1) if isinstance(att, str) else att
        return parts[0], parts[1]
    return None


def _listed(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def topic_key_problems(tpl: dict) -> list[str]:
    res = _resources(tpl)
    problems = []
    notified = set()
    for alarm in (r for r in res.values() if r.get("Type") == "AWS::CloudWatch::Alarm"):
        props = alarm.get("Properties", {})
        for action in [*props.get("AlarmActions", []), *props.get("OKActions", [])]:
            if _ref(action):
                notified.add(_ref(action))
    for name, topic in res.items():
        if topic.get("Type") != "AWS::SNS::Topic":
            continue
        key = topic.get("Properties", {}).get("KmsMasterKeyId")
        if isinstance(key, str) and "alias/aws/" in key:  # the name or an alias ARN
            problems.append(f"{name}: encrypted with the AWS managed key {key}; no service may use it")
            continue
        if name not in notified or key is None:
            continue
        key_name = _ref(key) or (_getatt(key) or (None,))[0]
        target = res.get(key_name or "")
        if not target or target.get("Type") != "AWS::KMS::Key":
            problems.append(f"{name}: alarms notify it, so its key must be a customer managed key of this template")
            continue
        kp = target.get("Properties", {})
        if kp.get("EnableKeyRotation") is not True:
            problems.append(f"{key_name}: key rotation is off")
        granted = set()
        for st in _listed(kp.get("KeyPolicy", {}).get("Statement", [])):
            principal = st.get("Principal", {})
            services = _listed(principal.get("Service", [])) if isinstance(principal, dict) else []
            if st.get("Effect") == "Allow" and CLOUDWATCH in services:
                granted |= set(_listed(st.get("Action", [])))
        if not (KEY_ACTIONS <= granted or "kms:*" in granted):
            problems.append(f"{key_name}: the key policy does not let {CLOUDWATCH} use it ({sorted(KEY_ACTIONS)})")
    return problems


def _metrics(alarm: dict) -> list[dict]:
    """The metrics an alarm reads: its own, or each MetricStat of its metric math."""
    props = alarm.get("Properties", {})
    if "MetricName" in props:
        return [props]
    return [m["MetricStat"]["Metric"] for m in props.get("Metrics", []) if "MetricStat" in m]


def _rest_api(res: dict, name: Any) -> tuple[str, dict] | None:
    for logical, r in res.items():
        if r.get("Type") in REST_TYPES and r.get("Properties", {}).get("Name") == name:
            return logical, r
    return None


def _dimension_problem(res: dict, namespace: str, dims: dict[str, Any]) -> str | None:
    def typed(value: Any, types: set[str]) -> bool:
        target = _ref(value)
        return bool(target) and res.get(target, {}).get("Type") in types

    if namespace == "AWS/Lambda" and not typed(dims["FunctionName"], FUNCTION_TYPES):
        return f"FunctionName {dims['FunctionName']} is not a Ref to a function of the template"
    if namespace == "AWS/DynamoDB" and not typed(dims["TableName"], {"AWS::DynamoDB::Table"}):
        return f"TableName {dims['TableName']} is not a Ref to a table"
    if namespace == "AWS/DynamoDB" and "GlobalSecondaryIndexName" in dims:
        indexes = _indexes(res[_ref(dims["TableName"])])
        if dims["GlobalSecondaryIndexName"] not in indexes:
            return f"GlobalSecondaryIndexName {dims['GlobalSecondaryIndexName']} is no index of {_ref(dims['TableName'])}"
    if namespace == "AWS/WAFV2":
        return _waf_problem(res, dims)
    if namespace == "AWS/SNS" and not (_getatt(dims["TopicName"]) or ("", ""))[1] == "TopicName":
        return "TopicName is not a topic's TopicName"
    if namespace == "AWS/Scheduler" and "ScheduleGroup" in dims:
        if not typed(dims["ScheduleGroup"], {"AWS::Scheduler::ScheduleGroup"}):
            return f"ScheduleGroup {dims['ScheduleGroup']} is not a Ref to a schedule group"
    if namespace == "AWS/SQS":
        att = _getatt(dims["QueueName"])
        if not att or att[1] != "QueueName" or res.get(att[0], {}).get("Type") != "AWS::SQS::Queue":
            return f"QueueName {dims['QueueName']} is not a queue's QueueName"
    if namespace == "AWS/ApiGateway" and "ApiName" in dims:
        found = _rest_api(res, dims["ApiName"])
        if not found:
            return f"ApiName {dims['ApiName']} is the Name of no REST API (REST APIs publish by ApiName)"
        stages = [found[1]["Properties"].get("StageName")] + [
            r["Properties"].get("StageName") for r in res.values()
            if r.get("Type") == "AWS::ApiGateway::Stage" and _ref(r["Properties"].get("RestApiId")) == found[0]
        ]  # SAM's own StageName, or (translated) the stages of the REST API  # fmt: skip
        if "Stage" in dims and dims["Stage"] not in stages:
            return f"Stage {dims['Stage']} is not {found[0]}'s stage"
    if namespace == "AWS/ApiGateway" and "ApiId" in dims:
        api = _ref(dims["ApiId"])
        kind = res.get(api or "", {})
        if kind.get("Type") != "AWS::ApiGatewayV2::Api":
            return f"ApiId {dims['ApiId']} is not a Ref to a WebSocket/HTTP API (REST APIs publish by ApiName)"
        if "Stage" in dims:
            stages = [r["Properties"].get("StageName") for r in res.values()
                      if r.get("Type") == "AWS::ApiGatewayV2::Stage" and _ref(r["Properties"].get("ApiId")) == api]  # fmt: skip
            if dims["Stage"] not in stages:
                return f"Stage {dims['Stage']} is no stage of {api}"
    return None


def _indexes(table: dict) -> list[str]:
    return [i.get("IndexName") for i in table.get("Properties", {}).get("GlobalSecondaryIndexes", [])]


def _web_acl(res: dict, metric_name: Any) -> tuple[str, dict] | None:
    """The web ACL whose VisibilityConfig publishes under `metric_name`."""
    for logical, r in res.items():
        if r.get("Type") == WEB_ACL and r.get("Properties", {}).get("VisibilityConfig", {}).get("MetricName") == metric_name:
            return logical, r
    return None


def _waf_problem(res: dict, dims: dict[str, Any]) -> str | None:
    found = _web_acl(res, dims["WebACL"])
    if not found:
        return f"WebACL {dims['WebACL']} is the metric name of no web ACL (VisibilityConfig.MetricName)"
    logical, acl = found
    rules = [r.get("VisibilityConfig", {}).get("MetricName") for r in acl["Properties"].get("Rules", [])]
    if dims["Rule"] != "ALL" and dims["Rule"] not in rules:
        return f"Rule {dims['Rule']} is the metric name of none of {logical}'s rules (nor ALL)"
    regional = acl["Properties"].get("Scope") == "REGIONAL"
    if regional != ("Region" in dims):
        return f"{logical} is {acl['Properties'].get('Scope')}: Region is a dimension of REGIONAL web ACLs only"
    if regional and dims["Region"] != {"Ref": "AWS::Region"}:
        return f"Region {dims['Region']} is not the stack's Region (Ref AWS::Region)"
    return None


def _watched(res: dict) -> list[tuple[str, dict, dict]]:
    """(namespace, metric, dimensions) of every metric every alarm reads."""
    out = []
    for alarm in (r for r in res.values() if r.get("Type") == "AWS::CloudWatch::Alarm"):
        for metric in _metrics(alarm):
            dims = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
            out.append((metric.get("Namespace", ""), metric.get("MetricName", ""), dims))
    return out


def unwatched_problems(tpl: dict) -> list[str]:
    res = _resources(tpl)
    watched = _watched(res)

    def seen(namespace: str, metric: str, **want: Any) -> bool:
        return any(ns == namespace and name == metric and all(dims.get(k) == v for k, v in want.items())
                   for ns, name, dims in watched)  # fmt: skip

    problems = []
    for name, r in res.items():
        props = r.get("Properties", {})
        kind = r.get("Type")
        if kind == "AWS::ApiGatewayV2::Api" and props.get("ProtocolType") == "WEBSOCKET":
            if not seen("AWS/ApiGateway", "ClientError", ApiId={"Ref": name}):
                problems.append(f"{name}: no alarm on ClientError (throttled frames never reach a function)")
        elif kind in REST_TYPES:
            if not seen("AWS/ApiGateway", "4XXError", ApiName=props.get("Name")):
                problems.append(f"{name}: no alarm on 4XXError (its throttles' and the budgets' 429s)")
        elif kind == "AWS::DynamoDB::Table":
            for index in _indexes(r):
                for metric in ("ReadThrottleEvents", "WriteThrottleEvents"):
                    if not seen("AWS/DynamoDB", metric, TableName={"Ref": name}, GlobalSecondaryIndexName=index):
                        problems.append(f"{name}: no alarm on index {index}'s {metric}")
        elif kind == WEB_ACL:
            metric_name = props.get("VisibilityConfig", {}).get("MetricName")
            if not seen("AWS/WAFV2", "BlockedRequests", WebACL=metric_name):
                problems.append(f"{name}: no alarm on BlockedRequests")
    return problems


def alarm_metric_problems(tpl: dict) -> list[str]:
    res = _resources(tpl)
    problems = []
    for name, alarm in res.items():
        if alarm.get("Type") != "AWS::CloudWatch::Alarm":
            continue
        for metric in _metrics(alarm):
            namespace = metric.get("Namespace", "")
            if not namespace.startswith("AWS/"):
                continue  # the application's own metrics (Powertools): tested against the code
            dims = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
            if namespace not in PUBLISHED:
                problems.append(f"{name}: namespace {namespace} is not one these checks know")
            elif frozenset(dims) not in PUBLISHED[namespace]:
                problems.append(f"{name}: AWS publishes no {namespace} metric by {sorted(dims)}")
            elif problem := _dimension_problem(res, namespace, dims):
                problems.append(f"{name}: {problem}")
            elif namespace == "AWS/WAFV2":
                acl_name, acl = _web_acl(res, dims["WebACL"])
                if acl.get("Condition") and alarm.get("Condition") != acl["Condition"]:
                    problems.append(f"{name}: {acl_name} exists only under {acl['Condition']}; so must its alarm")
    return problems + unwatched_problems(tpl)
