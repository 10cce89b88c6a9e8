"""The capacity alarms (docs/operations.md, "Capacity"): every limit a player meets has an alarm on
a metric AWS publishes for it, and ops/checks.py finds a template where one is missing or reads a
metric AWS never publishes (the same checks run on the translated template in the rehearsal)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from local import template
from ops import checks

ROOT = Path(__file__).resolve().parents[2]
TPL = template.load()
RES = TPL["Resources"]


def _alarm_metrics(name: str) -> list[dict]:
    props = RES[name]["Properties"]
    if "MetricName" in props:
        return [props]
    return [m["MetricStat"]["Metric"] for m in props["Metrics"] if "MetricStat" in m]


def _dims(metric: dict) -> dict:
    return {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}


def _broken(edit) -> dict:
    tpl = copy.deepcopy(TPL)
    edit(tpl["Resources"])
    return tpl


def test_a_throttled_websocket_frame_is_alarmed_by_the_stage_s_client_errors():
    (metric,) = _alarm_metrics("WebSocketThrottledAlarm")
    assert (metric["Namespace"], metric["MetricName"]) == ("AWS/ApiGateway", "ClientError")
    assert _dims(metric) == {"ApiId": {"Ref": "WebSocketApi"}, "Stage": {"Ref": "Stage"}}


def test_rest_throttles_and_budget_refusals_are_alarmed_by_the_stage_s_4xx():
    (metric,) = _alarm_metrics("RestApi4xxAlarm")
    assert (metric["Namespace"], metric["MetricName"]) == ("AWS/ApiGateway", "4XXError")
    assert _dims(metric) == {"ApiName": RES["RestApi"]["Properties"]["Name"], "Stage": {"Ref": "Stage"}}


def test_budget_refusals_have_no_metric_of_their_own_so_the_4xx_alarm_covers_them():
    """functions/service/features/limits.py counts nothing: if it ever does, this test asks for its alarm."""
    limits = (ROOT / "functions" / "service" / "features" / "limits.py").read_text()
    assert "count(" not in limits


def test_each_public_index_s_read_and_write_throttles_are_alarmed():
    indexes = {i["IndexName"] for i in RES["RoomsTable"]["Properties"]["GlobalSecondaryIndexes"]}
    assert indexes == {"PublicByLang", "PublicByPreset"}
    seen = {(m["MetricName"], _dims(m)["GlobalSecondaryIndexName"]) for m in _alarm_metrics("PublicIndexThrottlesAlarm")}
    assert seen == {(metric, i) for metric in ("ReadThrottleEvents", "WriteThrottleEvents") for i in indexes}
    assert all(_dims(m)["TableName"] == {"Ref": "RoomsTable"} for m in _alarm_metrics("PublicIndexThrottlesAlarm"))
    expression = [m for m in RES["PublicIndexThrottlesAlarm"]["Properties"]["Metrics"] if m.get("ReturnData")]
    assert len(expression) == 1 and expression[0]["Expression"].count("+") == 3


def test_the_waf_alarm_exists_with_the_web_acl_and_reads_its_rule_s_blocks():
    acl = RES["RestWebAcl"]
    alarm = RES["WafBlocksAlarm"]
    assert alarm["Condition"] == acl["Condition"] == "HasWaf"
    (metric,) = _alarm_metrics("WafBlocksAlarm")
    assert (metric["Namespace"], metric["MetricName"]) == ("AWS/WAFV2", "BlockedRequests")
    dims = _dims(metric)
    assert dims["WebACL"] == acl["Properties"]["VisibilityConfig"]["MetricName"]
    assert dims["Rule"] == acl["Properties"]["Rules"][0]["VisibilityConfig"]["MetricName"]
    # on CloudFront (the viewer's own address): its metrics have no Region dimension
    assert "Region" not in dims and acl["Properties"]["Scope"] == "CLOUDFRONT"


def test_the_checks_pass_the_template():
    assert checks.unwatched_problems(TPL) == []
    assert checks.alarm_metric_problems(TPL) == []


@pytest.mark.parametrize("gone", ["WebSocketThrottledAlarm", "RestApi4xxAlarm", "PublicIndexThrottlesAlarm", "WafBlocksAlarm"])
def test_the_checks_find_a_limit_without_its_alarm(gone):
    problems = checks.alarm_metric_problems(_broken(lambda r: r.pop(gone)))
    assert problems and all("no alarm" in p for p in problems), problems


def test_the_checks_find_an_index_left_unwatched():
    def one_index_only(r):
        metrics = r["PublicIndexThrottlesAlarm"]["Properties"]["Metrics"]
        for m in metrics:
            if "MetricStat" in m:
                m["MetricStat"]["Metric"]["Dimensions"][1]["Value"] = "PublicByLang"

    problems = checks.unwatched_problems(_broken(one_index_only))
    assert problems == [f"RoomsTable: no alarm on index PublicByPreset's {m}" for m in ("ReadThrottleEvents", "WriteThrottleEvents")]


def _metric(r, name):
    return r[name]["Properties"]


@pytest.mark.parametrize("edit", [
    # an index the table does not have
    lambda r: r["PublicIndexThrottlesAlarm"]["Properties"]["Metrics"][0]["MetricStat"]["Metric"]["Dimensions"][1].update(
        Value="PublicByCity"),
    # the index without its table
    lambda r: r["PublicIndexThrottlesAlarm"]["Properties"]["Metrics"][0]["MetricStat"]["Metric"]["Dimensions"].pop(0),
    # the web ACL by its name where AWS publishes its metric name
    lambda r: _metric(r, "WafBlocksAlarm")["Dimensions"][0].update(Value="some-other-acl"),
    # a rule the web ACL does not have
    lambda r: _metric(r, "WafBlocksAlarm")["Dimensions"][1].update(Value={"Fn::Sub": "${AWS::StackName}-other"}),
    # a CloudFront web ACL's metrics with a Region it does not publish
    lambda r: _metric(r, "WafBlocksAlarm")["Dimensions"].append({"Name": "Region", "Value": {"Ref": "AWS::Region"}}),
    # the same alarm on a web ACL moved to the stage (REGIONAL: its metrics have a Region)
    lambda r: r["RestWebAcl"]["Properties"].update(Scope="REGIONAL"),
    # an alarm left without the web ACL's condition: it would exist without the ACL
    lambda r: r["WafBlocksAlarm"].pop("Condition"),
    # the WebSocket API by the REST API's dimension
    lambda r: _metric(r, "WebSocketThrottledAlarm")["Dimensions"].__setitem__(
        0, {"Name": "ApiName", "Value": {"Fn::Sub": "${AWS::StackName}-ws"}}),
], ids=["no-such-index", "index-without-table", "acl-by-name", "no-such-rule", "cloudfront-with-region",
        "regional-without-region", "alarm-without-condition", "ws-by-name"])  # fmt: skip
def test_the_checks_find_a_capacity_alarm_on_a_metric_aws_never_publishes(edit):
    assert checks.alarm_metric_problems(_broken(edit))
