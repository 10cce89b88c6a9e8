"""template.yaml, the sample events and the OpenAPI document stay in step with the code."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

from fnkit import CTX

from local import template

ROOT = Path(__file__).resolve().parents[2]
ROOT_PATHS = [str(ROOT / "functions"), str(ROOT / "layers" / "engine"), str(ROOT)]


def resources():
    return template.load()["Resources"]


def test_the_table_is_on_demand_with_ttl_and_pitr():
    props = template.table_properties(template.load())
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    assert [k["AttributeName"] for k in props["KeySchema"]] == ["pk", "sk"]


def test_the_test_table_is_the_template_table(aws):
    desc = aws.describe_table(TableName=os.environ["TABLE_NAME"])["Table"]
    assert desc["KeySchema"] == template.table_properties(template.load())["KeySchema"]
    ttl = aws.describe_time_to_live(TableName=os.environ["TABLE_NAME"])["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expiresAt"


def test_every_function_handler_exists_and_uses_the_engine_layer():
    res = resources()
    functions = {k: v for k, v in res.items() if v["Type"] == "AWS::Serverless::Function"}
    handlers = sorted(v["Properties"]["Handler"] for v in functions.values())
    assert handlers == [
        "handlers.rest.handler",
        "handlers.timer.handler",
        "handlers.ws_connect.handler",
        "handlers.ws_default.handler",
        "handlers.ws_disconnect.handler",
        "handlers.ws_report.handler",
        "sitedeploy.handler.handler",  # the site deployer (custom resource), no engine
    ]
    for h in handlers:
        module, attr = h.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), attr))
    layer = res["EngineLayer"]
    assert layer["Properties"]["ContentUri"] == "layers/engine"
    for name, resource in functions.items():
        uses_engine = resource["Properties"]["Handler"].startswith("handlers.")
        assert (resource["Properties"].get("Layers") == [{"Ref": "EngineLayer"}]) is uses_engine, name
    for name, resource in [*functions.items(), ("EngineLayer", layer)]:
        # built by the root Makefile's build-<LogicalId> (precompiled bytecode): the target exists
        build = {k: resource["Metadata"].get(k) for k in ("BuildMethod", "ContextPath")}
        assert build == {"BuildMethod": "makefile", "ContextPath": "."}, name
        dry = subprocess.run(
            ["make", "-n", "-f", str(ROOT / "Makefile"), f"build-{name}", "ARTIFACTS_DIR=/nowhere"],
            capture_output=True, text=True, cwd=ROOT,
        )  # fmt: skip
        assert dry.returncode == 0 and "scripts/bytecode.py" in dry.stdout, (name, dry.stderr)
    ws = res["WebSocketApi"]["Properties"]
    assert ws["ProtocolType"] == "WEBSOCKET" and ws["RouteSelectionExpression"] == "$request.body.action"
    routes = sorted(
        v["Properties"]["RouteKey"] for v in res.values() if v["Type"] == "AWS::ApiGatewayV2::Route"
    )
    assert routes == ["$connect", "$default", "$disconnect", "report"]


def test_no_function_may_scan():
    text = (ROOT / "template.yaml").read_text()
    assert "dynamodb:Scan" not in text and "dynamodb:*" not in text
    for path in (ROOT / "functions").rglob("*.py"):
        assert ".scan(" not in path.read_text(), path


def test_sample_events_run_through_their_handlers(api):
    from handlers import rest, timer, ws_connect, ws_default, ws_disconnect, ws_report

    code = api.create("Host")
    for name in ("P2", "P3"):
        api.join(name)
    events = ROOT / "events"

    def load(name: str) -> dict:
        text = (events / name).read_text().replace("ABCDE", code)
        text = text.replace("replace-with-the-origin-secret", os.environ["MAFIA_ORIGIN_SECRET"])
        return json.loads(text.replace("replace-with-a-token-from-POST-rooms", api.tokens["p1"]))

    assert rest.handler(load("rest_create_room.json"), CTX)["statusCode"] == 201
    assert rest.handler(load("rest_join_room.json"), CTX)["statusCode"] == 201
    assert rest.handler(load("rest_get_room.json"), CTX)["statusCode"] == 200
    assert ws_connect.handler(load("ws_connect.json"), CTX)["statusCode"] == 200
    assert ws_default.handler(load("ws_default.json"), CTX)["statusCode"] == 200
    assert api.gw.last("SampleConn1=", "error")["code"] == "not_started"
    assert ws_report.handler(load("ws_report.json"), CTX)["statusCode"] == 200
    assert api.gw.last("SampleConn1=", "error")["code"] == "not_started"
    assert timer.handler(load("timer.json"), CTX) == {"outcome": "not_running"}
    assert ws_disconnect.handler(load("ws_disconnect.json"), CTX)["statusCode"] == 200
    assert api.snapshot().conns == {}


def test_openapi_document_is_current():
    """docs/openapi.json is what the REST resolver writes (scripts/openapi.py)."""
    from scripts import openapi

    path = ROOT / "docs" / "openapi.json"
    generated = openapi.openapi_json()
    if os.environ.get("UPDATE_OPENAPI") or not path.exists():
        path.write_text(generated + "\n")
    assert json.loads(path.read_text()) == json.loads(generated), (
        "run: .venv/bin/python scripts/openapi.py > docs/openapi.json"
    )
    spec = json.loads(generated)
    assert {"/rooms", "/rooms/{roomCode}", "/rooms/{roomCode}/players"} <= set(spec["paths"])
    for item in spec["paths"].values():
        for op in item.values():  # our error statuses, never the resolver's default 422
            assert "422" not in op["responses"] and {"405", "500"} <= set(op["responses"]), op


def _statements(resource: dict) -> list[dict]:
    """A function's policy statements: inline ones and those of the template's managed
    policies it references (`- !Ref PushToConnectionsPolicy`)."""
    res = resources()
    out = []
    for policy in resource["Properties"].get("Policies", []):
        if set(policy) == {"Ref"}:
            managed = res[policy["Ref"]]
            assert managed["Type"] == "AWS::IAM::ManagedPolicy", policy
            policy = managed["Properties"]["PolicyDocument"]
        out.extend(policy.get("Statement", []))
    return out


def _policy_actions(resource: dict) -> set[str]:
    actions: set[str] = set()
    for statement in _statements(resource):
        acts = statement["Action"]
        actions.update([acts] if isinstance(acts, str) else acts)
    return actions


def _report(conn_id: str, frame: dict) -> None:
    from fnkit import ws_event

    from handlers import ws_report

    ws_report.handler(ws_event("report", conn_id, body=json.dumps(frame)), CTX)


def test_the_report_function_may_write_report_items_only():
    """Its only write permission is conditioned on keys starting REPORTS# / REPORTED#."""
    res = resources()["WsReportFunction"]
    writes = [
        st
        for st in _statements(res)
        if any(
            a.startswith("dynamodb:") and a not in ("dynamodb:GetItem", "dynamodb:Query")
            for a in ([st["Action"]] if isinstance(st["Action"], str) else st["Action"])
        )
    ]
    assert len(writes) == 1 and writes[0]["Action"] == "dynamodb:PutItem"
    cond = writes[0]["Condition"]
    assert cond["ForAllValues:StringLike"]["dynamodb:LeadingKeys"] == ["REPORTS#*", "REPORTED#*"]
    assert cond["Null"]["dynamodb:LeadingKeys"] == "false"


def test_each_function_policy_allows_exactly_what_its_handler_calls(api):
    """Least privilege, checked: every AWS action a handler uses is in its function's policy."""
    used: dict[str, set[str]] = {}
    current = {"fn": None}

    def record(params, model, **kwargs):
        service = model.service_model.endpoint_prefix
        if model.name == "TransactWriteItems":
            kinds = {next(iter(op)) for op in params["TransactItems"]}
            names = {
                "Put": "PutItem",
                "Delete": "DeleteItem",
                "ConditionCheck": "ConditionCheckItem",
                "Update": "UpdateItem",
            }
            ops = {f"dynamodb:{names[k]}" for k in kinds}
        else:
            ops = {f"{service}:{model.name}"}
        used.setdefault(current["fn"], set()).update(ops)

    for client in (api.svc.store.client, api.svc.timers.client):
        client.meta.events.register("provide-client-params.*.*", record)

    def as_fn(name, call, *args):
        current["fn"] = name
        return call(*args)

    as_fn("RestFunction", api.create, "Host")
    for name in ("B", "C", "D"):
        as_fn("RestFunction", api.join, name)
    for pid in ("p1", "p2", "p3", "p4"):
        as_fn("WsConnectFunction", api.connect, f"c{pid}", pid)
    api.svc._conn_rooms.clear()  # $default is another function: cold cache
    for pid in ("p2", "p3", "p4"):
        as_fn("WsDefaultFunction", api.send, f"c{pid}", {"action": "ready"})
    as_fn("WsDefaultFunction", api.send, "cp1", {"action": "start"})
    api.clock.advance(60)
    as_fn("TimerFunction", api.fire, api.state()["seq"])
    api.gw.gone.add("cp4")
    as_fn("WsDefaultFunction", api.send, "cp2", {"action": "chat", "channel": "day", "text": "hi"})
    as_fn("WsReportFunction", _report, "cp2", {"action": "report", "target": "p3", "reason": "spam"})
    assert api.gw.last("cp2", "reported") is not None
    api.svc._conn_rooms.clear()
    as_fn("WsDisconnectFunction", api.disconnect, "cp3")

    res = resources()
    for fn, ops in used.items():
        allowed = _policy_actions(res[fn])
        assert ops <= allowed, f"{fn} uses {sorted(ops - allowed)} which its policy does not allow"
    # the REST function reads single items only on the identity partitions (passkey sign-in)
    statement = res["PersonsPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert [st["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"] for st in statement] == [
        ["PERSON#*", "SESSION#*", "CHALLENGE#*"]
    ]
    plain = [p for p in res["RestFunction"]["Properties"]["Policies"] if p != {"Ref": "PersonsPolicy"}]
    rest_fn = {**res["RestFunction"], "Properties": {**res["RestFunction"]["Properties"], "Policies": plain}}
    assert "dynamodb:GetItem" not in _policy_actions(rest_fn)


def test_the_spectator_cap_is_a_deploy_parameter_passed_to_the_connect_function():
    """`MaxSpectators` (Number, default 20, at least 0) reaches `$connect` as MAFIA_MAX_SPECTATORS,
    and the offline stack values the variable from the same template (docs/operations.md)."""
    from service.room import connections

    tpl = template.load()
    param = tpl["Parameters"]["MaxSpectators"]
    assert (param["Type"], param["Default"], param["MinValue"]) == ("Number", 20, 0) and param["Description"]
    assert param["Default"] == connections.MAX_SPECTATORS  # the code's default is the template's
    env = tpl["Resources"]["WsConnectFunction"]["Properties"]["Environment"]["Variables"]
    assert env["MAFIA_MAX_SPECTATORS"] == {"Ref": "MaxSpectators"}
    assert template.parameter_environment(tpl)["MAFIA_MAX_SPECTATORS"] == "20"
    assert template.parameter_environment(tpl, {"MaxSpectators": 3})["MAFIA_MAX_SPECTATORS"] == "3"


def test_the_spectator_cap_is_read_from_the_environment():
    code = "from service.room import connections; print(connections.MAX_SPECTATORS)"
    env = {**os.environ, "MAFIA_MAX_SPECTATORS": "7", "PYTHONPATH": os.pathsep.join(ROOT_PATHS)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "7"


def test_the_lambda_requirements_are_pinned_from_the_lock():
    """`sam build` installs functions/requirements.txt and layers/engine/requirements.txt with
    --no-deps: each holds every package its artifact needs, pinned as requirements.lock pins it
    (what the tests ran), written by `make lock` (scripts/lambda_requirements.py)."""
    from scripts import lambda_requirements as lr

    pins = lr.lock_pins()
    texts = lr.generated()
    for path, text in texts.items():
        assert path.read_text() == text, f"{path} is stale: run make lock"
        lines = [line for line in text.splitlines() if not line.startswith("#")]
        assert lines, path
        for line in lines:
            name, version = line.split("==")
            assert pins[lr.canonicalize_name(name)][1] == version, line
    layer, functions = (
        {lr.canonicalize_name(line.split("==")[0]) for line in texts[p].splitlines() if "==" in line}
        for p in (lr.LAYER / "requirements.txt", lr.FUNCTIONS / "requirements.txt")
    )
    assert {"pydantic", "pydantic-core"} <= layer and not layer & functions  # the layer ships pydantic once
    assert {"aws-lambda-powertools", "aws-xray-sdk", "boto3", "botocore"} <= functions
    assert "--no-deps" in (ROOT / "Makefile").read_text()


def test_check_build_refuses_an_artifact_off_its_pins(tmp_path):
    """scripts/check_build.py (in `make build`) fails an artifact holding a package its
    requirements.txt does not pin, or lacking one it pins."""
    from scripts import check_build

    art = tmp_path / "RestFunction"
    pins = dict(check_build.pinned(check_build.REQUIREMENTS["functions"]))
    for name, version in sorted(pins.items()):
        (art / f"{name.replace('-', '_')}-{version}.dist-info").mkdir(parents=True)
    assert check_build.package_problems(art, "functions") == []
    (art / "leftpad-0.23.0.dist-info").mkdir()
    (art / f"boto3-{pins['boto3']}.dist-info").rename(art / "boto3-1.0.0.dist-info")
    assert set(check_build.package_problems(art, "functions")) == {
        "RestFunction: ships leftpad==0.23.0, not pinned",
        "RestFunction: ships boto3==1.0.0, not pinned",
        f"RestFunction: lacks boto3=={pins['boto3']}",
    }


def _build(tmp: Path, folder: str, runtime_dir: str | None) -> Path:
    """A small artifact (our functions' packages and the engine) copied under `folder` and
    compiled by scripts/bytecode.py in its own process, as `make build-<LogicalId>` does."""
    import shutil

    art = tmp / folder
    for src in (ROOT / "functions" / "service", ROOT / "functions" / "handlers", ROOT / "layers" / "engine" / "mafia_engine"):
        shutil.copytree(src, art / src.name, ignore=shutil.ignore_patterns("__pycache__"))
    # what `pip install --target` adds: a console script whose shebang names the build's Python
    (art / "bin").mkdir()
    (art / "bin" / "jp.py").write_text(f"#!{art}/.venv/bin/python\nimport jmespath\n")
    (art / "jmespath-1.1.0.dist-info").mkdir()
    (art / "jmespath-1.1.0.dist-info" / "RECORD").write_text(
        "../../bin/jp.py,sha256=x,1708\njmespath/__init__.py,sha256=y,1\n"
    )
    if runtime_dir:
        args = [sys.executable, str(ROOT / "scripts" / "bytecode.py"), str(art), runtime_dir]
    else:  # what bytecode.py did before it named the runtime folder
        args = [sys.executable, "-m", "compileall", "-q", "--invalidation-mode", "unchecked-hash", str(art)]
    subprocess.run(args, check=True)
    return art


def _pycs(art: Path) -> dict[str, bytes]:
    """Every file the build wrote or kept but the sources: the .pyc, the scripts, the RECORDs."""
    return {p.relative_to(art).as_posix(): p.read_bytes() for p in art.rglob("*")
            if p.is_file() and (p.suffix != ".py" or p.parent.name == "bin")}  # fmt: skip


def test_two_builds_in_different_folders_write_identical_bytecode(tmp_path):
    """The .pyc name the module's path on Lambda (ddir), not the build folder: a deploy from
    another checkout republishes nothing, and a traceback names /var/task/... (or
    /opt/python/... for the layer), where the source is."""
    import marshal

    one = _pycs(_build(tmp_path, "checkout-one/.aws-sam/build/RestFunction", "/var/task"))
    two = _pycs(_build(tmp_path, "elsewhere/x/RestFunction", "/var/task"))
    assert len(one) > 20 and one.keys() == two.keys()
    assert [k for k in one if one[k] != two[k]] == []
    assert not any(k.startswith("bin/") for k in one)  # console scripts dropped, and their RECORD lines
    assert one["jmespath-1.1.0.dist-info/RECORD"] == b"jmespath/__init__.py,sha256=y,1\n"
    code = marshal.loads(one["service/__pycache__/config.cpython-311.pyc"][16:])  # after the 16-byte header
    assert code.co_filename == "/var/task/service/config.py"
    layer = _pycs(_build(tmp_path, "layer/python", "/opt/python"))
    code = marshal.loads(layer["mafia_engine/__pycache__/__init__.cpython-311.pyc"][16:])
    assert code.co_filename == "/opt/python/mafia_engine/__init__.py"


def test_bytecode_without_the_runtime_folder_differs_between_folders(tmp_path):
    """What the test above guards against: compiled naming the build folder (compileall without
    ddir), two builds differ."""
    one = _pycs(_build(tmp_path, "a", None))
    two = _pycs(_build(tmp_path, "bb", None))
    assert [k for k in one if one[k] != two[k]]
