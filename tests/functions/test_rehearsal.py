"""The deploy rehearsal (ops/rehearsal.py): dev and prod as samconfig.toml deploys them, through
the SAM transform, cfn-lint on the translated template, a stack on a moto server, the site
deployer on its custom resource, and the stack's deletion; then the update path (the previous
release deployed and updated to this one, the site after the functions, the rollback) and the
public list's cache on the translated template. Each deliberate break below is a defect a real
deploy would hit, and the rehearsal must fail on it."""

from __future__ import annotations

import copy
import fnmatch
import inspect
import re
import shutil
from pathlib import Path

import pytest

from local import webbuild
from ops import rehearsal, release_order

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", autouse=True)
def _the_sessions_account_back():
    """The rehearsal's moto server runs in this process, and its reset empties every backend
    of it (ops/rehearsal.py): an account an earlier file of the session started
    (harness/emulator.py) is made again after, table and schedule group, as later files expect."""
    yield
    from harness.emulator import Account

    for acc in list(Account.running):
        acc.restart()


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_each_samconfig_environment_deploys_publishes_the_site_and_deletes(env, monkeypatch):
    said: list[str] = []
    rehearsal.rehearse(env, monkeypatch.setattr, say=said.append)
    assert any("cfn-lint clean" in line for line in said)
    assert any("/sw.js, the manifest" in line for line in said)
    assert said[-2].endswith("the table kept" if env == "prod" else "the table deleted with it")


def _template(tmp_path: Path, old: str, new: str) -> Path:
    text = (ROOT / "template.yaml").read_text()
    assert old in text, old
    broken = tmp_path / "template.yaml"
    broken.write_text(text.replace(old, new, 1))
    return broken


@pytest.mark.deliberate_break
@pytest.mark.parametrize(("old", "new", "finding"), [
    ("    Runtime: python3.11\n", "    Runtime: python9.99\n", "cfn-lint"),
    ("            RestApiId: !Ref RestApi\n            Path: /rooms\n",
     "            RestApiId: !Ref NoSuchApi\n            Path: /rooms\n", "SAM transform"),
    ("      KmsMasterKeyId: !Ref AlarmTopicKey\n", "      KmsMasterKeyId: alias/aws/sns\n", "AWS managed key"),
    ("    DeletionPolicy: !If [ProtectTable, Retain, Delete]\n", "    DeletionPolicy: Delete\n", "table is gone"),
], ids=["bad-runtime", "ref-to-a-missing-api", "aws-managed-key-topic", "prod-loses-its-table"])  # fmt: skip
def test_the_rehearsal_fails_on_a_broken_template(old, new, finding, tmp_path, monkeypatch):
    broken = _template(tmp_path, old, new)
    with pytest.raises(rehearsal.RehearsalFailed, match=finding):
        rehearsal.rehearse("prod", monkeypatch.setattr, template=broken)


def _site(tmp_path: Path, old: str, new: str) -> Path:
    """The site deployer's artifact (its layout as built), its handler changed; under a hidden
    folder, as `sam build` puts it (.aws-sam/build/...)."""
    art = tmp_path / ".aws-sam" / "build" / "SiteDeployFunction"
    shutil.copytree(ROOT / "functions" / "sitedeploy", art / "sitedeploy")
    shutil.copytree(webbuild.built(), art / "web")
    handler = art / "sitedeploy" / "handler.py"
    text = handler.read_text()
    assert old in text, old
    handler.write_text(text.replace(old, new, 1))
    return art


@pytest.mark.deliberate_break
@pytest.mark.parametrize(("old", "new", "finding"), [
    # the hidden-file filter testing absolute path parts: under .aws-sam it finds no index.html
    ("for p in rel.parts)", "for p in path.parts)", "CREATE_IN_PROGRESS"),
    # the service worker under the release: its scope could not cover the site
    ('objects[WORKER] = (worker.encode("utf-8"), NO_CACHE)', 'objects[prefix + WORKER] = (worker.encode("utf-8"), IMMUTABLE)',
     "/sw.js is not at the site's root"),
    # versioned assets that may be cached for a day only
    ('IMMUTABLE = "public, max-age=31536000, immutable"', 'IMMUTABLE = "public, max-age=86400"', "not immutable"),
    # a Delete that reads its properties (CloudFormation may send none)
    ('        physical = event.get("PhysicalResourceId") or ""\n',
     '        physical = event["ResourceProperties"]["BucketName"]\n', "Delete left"),
], ids=["hidden-filter-absolute", "worker-under-the-release", "assets-not-immutable", "delete-reads-properties"])  # fmt: skip
def test_the_rehearsal_fails_on_a_broken_site_deployer(old, new, finding, tmp_path, monkeypatch):
    site = _site(tmp_path, old, new)
    with pytest.raises(rehearsal.RehearsalFailed, match=re.escape(finding)):
        rehearsal.rehearse("dev", monkeypatch.setattr, site=site)


@pytest.mark.deliberate_break
def test_a_type_moto_cannot_model_fails_until_it_is_listed(tmp_path, monkeypatch):
    broken = _template(tmp_path, "  # ------------------------------------------------------------------ data\n",
                       "  Unlisted:\n    Type: AWS::CodeStarConnections::Connection\n"
                       "    Properties: {ConnectionName: x, ProviderType: GitHub}\n")  # fmt: skip
    with pytest.raises(rehearsal.RehearsalFailed, match="AWS::CodeStarConnections::Connection"):
        rehearsal.rehearse("dev", monkeypatch.setattr, template=broken)


def test_the_web_acl_on_cloudfront_is_rehearsed(monkeypatch):
    """prod with WafRateLimit above 0 (as `--parameter-overrides` adds it): the web ACL on the
    distribution (CLOUDFRONT scope, the /api/ scope-down) created, translated and linted."""
    said: list[str] = []
    rehearsal.rehearse("prod", monkeypatch.setattr, say=said.append, overrides={"WafRateLimit": "100"})
    assert any("cfn-lint clean" in line for line in said)
    translated = rehearsal.translated_for(rehearsal.environment("prod"), rehearsal.TEMPLATE)
    acl = translated["Resources"]["RestWebAcl"]
    assert acl["Properties"]["Scope"] == "CLOUDFRONT"
    dist = translated["Resources"]["WebDistribution"]["Properties"]["DistributionConfig"]
    assert dist["WebACLId"] == {"Fn::If": ["HasWaf", {"Fn::GetAtt": ["RestWebAcl", "Arn"]}, {"Ref": "AWS::NoValue"}]}


@pytest.mark.parametrize("limit", ["5", "9", "-1", "1e3", "100000000000"])
def test_a_waf_limit_outside_waf_s_range_fails_the_rehearsal(limit, monkeypatch):
    """A rate limit WAF would refuse after everything else was created (below its minimum of 10)
    is refused with the parameters, before anything is made."""
    with pytest.raises(rehearsal.RehearsalFailed, match="refuses the parameters: WafRateLimit"):
        rehearsal.rehearse("prod", monkeypatch.setattr, overrides={"WafRateLimit": limit})
    assert rehearsal.parameter_problems(rehearsal.TEMPLATE, {"WafRateLimit": "10"}) == []


# ---- the update path: the previous release updated to this one (ops/rehearsal.rehearse_update)
def test_the_previous_release_updates_to_this_one_with_games_in_flight(monkeypatch):
    """prod as the previous release deployed it (its template, samconfig and site deployer from
    git), its client published and a game in flight per preset stored; updated to this release
    in CloudFormation's order (the site after the functions), the rooms read by this release,
    and the rollback's Update publishing the old client again."""
    said: list[str] = []
    seen = rehearsal.rehearse_update("prod", monkeypatch.setattr, say=said.append)
    assert any(line.endswith("3 of its rooms stored") for line in said), said
    updated = seen["updated"]
    for name in ("RestFunction", "WsDefaultFunction", "WsConnectFunction", "TimerFunction", "EngineLayer"):
        assert any(n.startswith(name) for n in updated), (name, updated)
    site = updated.index("SiteDeployment")
    assert all(updated.index(n) < site for n in updated if n.startswith(("Rest", "Ws", "Timer", "EngineLayer")))
    new_version = next(n for n in updated if n.startswith("SiteDeployFunctionVersion"))
    assert updated.index("SiteDeployFunction") < updated.index(new_version) < site  # its new code, then its version
    old, new = seen["releases"]
    assert old and new and old != new
    assert [room["room"] for room in seen["rooms"]] == [seen["rooms"][0]["current"][0]] * 3
    assert any("rollback's Update handed to version 1" in line for line in said)


def test_an_update_takes_one_index_at_a_time_on_the_table():
    """The rehearsal's table update (moto would apply any change): one index created, then a
    second refused in the same update, as DynamoDB's UpdateTable refuses it."""
    import boto3
    from moto import mock_aws
    from moto.dynamodb.models import dynamodb_backends

    table_model = rehearsal._table_model()
    definition = rehearsal.translated_for(rehearsal.environment("dev"), rehearsal.TEMPLATE)["Resources"]["RoomsTable"]
    props = definition["Properties"]
    index = props["GlobalSecondaryIndexes"][0]
    with mock_aws():
        boto3.client("dynamodb", region_name="us-east-1").create_table(
            TableName="rooms", KeySchema=props["KeySchema"], BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": k, "AttributeType": "S"} for k in ("pk", "sk")])  # fmt: skip
        table = dynamodb_backends[rehearsal.ACCOUNT]["us-east-1"].get_table("rooms")
        one = {"Type": "AWS::DynamoDB::Table", "Properties": {**props, "GlobalSecondaryIndexes": [index]}}
        table_model.update_from_cloudformation_json(table, "rooms", one, rehearsal.ACCOUNT, "us-east-1")
        assert [ix.name for ix in table.global_indexes] == [index["IndexName"]]
        two = {"Type": "AWS::DynamoDB::Table", "Properties": {**props, "GlobalSecondaryIndexes": [
            {**index, "IndexName": "Second"}, {**index, "IndexName": "Third"}]}}  # fmt: skip
        with pytest.raises(rehearsal.RehearsalFailed, match="3 global secondary index changes in one update"):
            table_model.update_from_cloudformation_json(table, "rooms", two, rehearsal.ACCOUNT, "us-east-1")
        assert [ix.name for ix in table.global_indexes] == [index["IndexName"]]  # nothing changed


@pytest.mark.deliberate_break
def test_an_update_that_adds_two_indexes_fails_the_rehearsal(monkeypatch):
    """The release before the public rooms (928ca1b) updated to this one adds both public
    indexes in one update, which a real table refuses."""
    with pytest.raises(rehearsal.RehearsalFailed, match="2 global secondary indexes created or deleted in one update"):
        rehearsal.rehearse_update("dev", monkeypatch.setattr, previous="928ca1b")


def test_the_site_publishes_after_every_function_route_and_stage():
    """On the translated template (the dependency graph CloudFormation orders by): the site's
    custom resource waits for every game function, route, integration and stage; without its
    DependsOn a new client could reach phones before the handlers that accept it."""
    translated = rehearsal.translated_for(rehearsal.environment("dev"), rehearsal.TEMPLATE)
    assert release_order.site_order_problems(translated) == []
    order = release_order.order(translated)
    serving = [n for n, r in translated["Resources"].items()
               if r["Type"] in release_order.SERVING and not n.startswith("SiteDeployFunction")]  # fmt: skip
    assert len(serving) >= 14, serving
    assert all(order.index(n) < order.index("SiteDeployment") for n in serving)
    unordered = copy.deepcopy(translated)
    del unordered["Resources"]["SiteDeployment"]["DependsOn"]
    found = "\n".join(release_order.site_order_problems(unordered))
    assert "WsDefaultFunction" in found and "ReportRoute" in found and "WebSocketStage" in found
    del unordered["Resources"]["SiteDeployment"]["Properties"]["RestStage"]
    assert "AWS::ApiGateway::Stage" in "\n".join(release_order.site_order_problems(unordered))


def test_the_public_list_is_cached_by_its_query_strings_only():
    """On the translated template: GET /api/rooms (the list) meets the /api/rooms behaviour
    first, whose cache key holds exactly the list route's query strings (no header, cookie or
    viewer address) and keeps an answer no longer than MaxTTL, as its Cache-Control says; it
    forwards the viewer address and content type only; the room summary stays uncached."""
    from handlers import rest as rest_handler

    translated = rehearsal.translated_for(rehearsal.environment("dev"), rehearsal.TEMPLATE)
    res = translated["Resources"]
    dist = res["WebDistribution"]["Properties"]["DistributionConfig"]

    def behaviour(path: str) -> dict:  # CloudFront takes the first pattern that matches, in order
        return next((b for b in dist["CacheBehaviors"] if fnmatch.fnmatchcase(path, b["PathPattern"])),
                    dist["DefaultCacheBehavior"])  # fmt: skip

    rooms = behaviour("/api/rooms")
    assert rooms["PathPattern"] == "/api/rooms" and rooms["TargetOriginId"] == "rest"
    assert rooms["CachedMethods"] == ["GET", "HEAD"] and "POST" in rooms["AllowedMethods"]
    assert rooms["FunctionAssociations"] == behaviour("/api/rooms/ABCDE")["FunctionAssociations"]
    policy = res[rooms["CachePolicyId"]["Ref"]]["Properties"]["CachePolicyConfig"]
    key = policy["ParametersInCacheKeyAndForwardedToOrigin"]
    assert key["HeadersConfig"] == {"HeaderBehavior": "none"} and key["CookiesConfig"] == {"CookieBehavior": "none"}
    route = set(inspect.signature(rest_handler.list_public_rooms).parameters)
    assert key["QueryStringsConfig"]["QueryStringBehavior"] == "whitelist"
    assert set(key["QueryStringsConfig"]["QueryStrings"]) == route == {"public", "lang", "preset", "cursor", "limit", "watch"}
    # no error is cached: one viewer's 503 or 400 is never every phone's list for 10 s (the codes
    # CloudFront caches by default: its developer guide, "HTTP 4xx and 5xx status codes that
    # CloudFront caches"; 429 is not among them)
    kept = {e["ErrorCode"]: e["ErrorCachingMinTTL"] for e in dist["CustomErrorResponses"]}
    assert kept == dict.fromkeys((400, 403, 404, 405, 414, 500, 501, 502, 503, 504), 0), kept
    assert policy["MinTTL"] == 0 and policy["DefaultTTL"] == 0
    assert rest_handler.LIST_MAX_AGE <= policy["MaxTTL"] <= 10
    forwarded = res[rooms["OriginRequestPolicyId"]["Ref"]]["Properties"]["OriginRequestPolicyConfig"]
    assert forwarded["HeadersConfig"] == {"HeaderBehavior": "whitelist",
                                          "Headers": ["CloudFront-Viewer-Address", "Content-Type"]}  # fmt: skip
    assert forwarded["QueryStringsConfig"] == {"QueryStringBehavior": "none"}
    assert forwarded["CookiesConfig"] == {"CookieBehavior": "none"}
    # a room's summary, a join, quick play: the /api/* behaviour, never cached
    for path in ("/api/rooms/ABCDE", "/api/rooms/ABCDE/players", "/api/quickplay"):
        assert behaviour(path)["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"  # managed CachingDisabled
