"""Permissions proven before deploy (ops/permissions.py; docs/operations.md, "Permissions proven
before deploy"). Every function's real paths run once on moto (`run`, shared by every check):
create, join, quick play, the public list, connect (player, spectator, display), game actions,
a voice signal and credential, chat, a report, the timers to the game's end, the chat log after it, leaving and
disconnecting, and the site deployer's Create, forwarded Update and Delete. Each AWS call they
make is recorded as IAM sees it (harness/iam.py) and must be allowed by the policies of that
function's own role in the template as CloudFormation receives it (aws-sam-translator, translated
once per session with the nine broken copies below). Then the resource policies the services
use, the key policies KMS would accept, the runtime the build fits and WAF's bounds. Each of the
nine breaks an operations review made of a copy of the template must fail a check."""

from __future__ import annotations

import copy
import importlib
import itertools
import json
import os
import re
from pathlib import Path

import boto3
import pytest

import mafia_engine as me
from harness import wiring
from harness.clock import Clock
from harness.emulator import with_fixes
from harness.gateways import FakeGateway
from harness.iam import Recorder, RecordingGateway
from local import events
from local.lambda_runtime import LambdaContext
from ops import permissions as perms
from service import config
from service.features import turn
from service.identity import sessions
from service.infra import clock, storage
from sitedeploy import handler as site
from tests.functions.passkeykit import SoftPasskey

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = (ROOT / "template.yaml").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()
REGION = os.environ["AWS_DEFAULT_REGION"]
# The stack as the harness names it (harness/env.py): its table, its schedule group
# (<stack>-phases) and its timer function (<stack>-timer) are the ones the template makes.
STACK = "mafia-test"
NAMES = {"RoomsTable": os.environ["TABLE_NAME"]}
# callers' addresses (a loopback one spends no budget): each REST call its own, as the people
# joining one public room are (it seats one person per address)
CLIENT_IPS = (f"203.0.113.{n}" for n in itertools.count(7))

# The nine breaks an operations review found (docs/operations.md, "Permissions proven before deploy"): each a copy of template.yaml with one
# defect a real deploy or a real request would hit, and the words of the check that must find it.
BREAKS = {
    "public-index-query-removed": (
        "        - Statement:\n            - Effect: Allow\n              Action: dynamodb:Query  # the public rooms'",
        "        - Statement:\n            - Effect: Allow\n              Action: dynamodb:GetItem  # the public rooms'",
        "RestFunction: dynamodb:Query on arn:aws:dynamodb:us-east-1:123456789012:table/mafia-test/index/Public",
    ),
    "default-without-manage-connections": (
        "        LogGroup: !Ref WsDefaultFunctionLogs\n      Policies:\n        - !Ref PushToConnectionsPolicy\n",
        "        LogGroup: !Ref WsDefaultFunctionLogs\n      Policies:\n",
        "WsDefaultFunction: execute-api:ManageConnections on arn:aws:execute-api:",
    ),
    "scheduler-role-aims-at-another-function": (
        "                Resource: !Sub \"arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:${AWS::StackName}-timer\"",
        "                Resource: !Sub \"arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:${AWS::StackName}-rest\"",
        "lambda:InvokeFunction on arn:aws:lambda:us-east-1:123456789012:function:mafia-test-timer",
    ),
    "budget-leading-keys-on-another-prefix": (
        'dynamodb:LeadingKeys: ["LIMIT#*"]',
        'dynamodb:LeadingKeys: ["LIMITS#*"]',
        "RestFunction: dynamodb:UpdateItem on arn:aws:dynamodb:us-east-1:123456789012:table/mafia-test "
        "(dynamodb:EnclosingOperation=TransactWriteItems, dynamodb:LeadingKeys=('LIMIT#",
    ),
    "kms-key-policy-kms-refuses": (
        "          - Sid: TheAccountAdministersTheKey\n            Effect: Allow\n            Principal:\n"
        "              AWS: !Sub \"arn:${AWS::Partition}:iam::${AWS::AccountId}:root\"\n",
        "          - Sid: TheAccountAdministersTheKey\n            Effect: Allow\n            Principal:\n"
        "              Service: cloudwatch.amazonaws.com\n",
        "AlarmTopicKey: the key policy would lock the account out (kms:PutKeyPolicy",
    ),
    "cloudwatch-key-grant-for-another-account": (
        '            Action: ["kms:GenerateDataKey*", "kms:Decrypt"]\n            Resource: "*"\n',
        '            Action: ["kms:GenerateDataKey*", "kms:Decrypt"]\n            Resource: "*"\n'
        '            Condition:\n              StringEquals:\n                aws:SourceAccount: "111122223333"\n',
        "AlarmTopicKey: CloudWatch may not kms:GenerateDataKey",
    ),
    "topic-policy-for-another-service": (
        "              Service: cloudwatch.amazonaws.com\n            Action: sns:Publish\n",
        "              Service: events.amazonaws.com\n            Action: sns:Publish\n",
        "AlarmTopic: CloudWatch may not publish",
    ),
    "runtime-the-build-does-not-fit": (
        "    Runtime: python3.11\n",
        "    Runtime: python3.12\n",
        "Runtime python3.12, the build makes python3.11",
    ),
    "waf-limit-below-its-minimum": (
        "              Limit: !Ref WafRateLimit\n",
        "              Limit: 5\n",
        "RestWebAcl: rate limit 5 is outside WAF's bounds",
    ),
}


@pytest.fixture(scope="session")
def translated() -> dict[str, dict]:
    """template.yaml and each break, translated in one run of aws-sam-translator."""
    texts = {"template.yaml": TEMPLATE}
    for name, (old, new, _) in BREAKS.items():
        assert TEMPLATE.count(old) == 1, f"{name}: the text it breaks is no longer in template.yaml once"
        texts[name] = TEMPLATE.replace(old, new)
    return dict(zip(texts, perms.translate_all(texts.values(), REGION), strict=True))


def resolver(tpl: dict) -> perms.Resolver:
    return perms.Resolver(tpl, STACK, REGION, NAMES)


# ---------------------------------------------------------------- the recorded run
class Paths:
    """Invokes each handler as its own function of the template (its Handler), with a service
    of its own built from that function's environment in the template, while the recorder notes
    the calls as that function's."""

    def __init__(self, r: perms.Resolver, rec: Recorder, clk: Clock) -> None:
        self.r, self.rec, self.clock = r, rec, clk
        self.gw = FakeGateway()
        self.by_handler = {r.res[f]["Properties"]["Handler"]: f for f in r.functions()}
        self.services = {}
        for fn in r.functions():
            if not r.res[fn]["Properties"]["Handler"].startswith("handlers."):  # the site deployer: site()
                continue
            env = r.env(fn)
            settings = config.Settings(
                table_name=env["TABLE_NAME"], ws_url=env["WS_URL"],
                ws_management_endpoint=env["WS_MANAGEMENT_ENDPOINT"], schedule_group=env["SCHEDULE_GROUP"],
                scheduler_role_arn=env["SCHEDULER_ROLE_ARN"], timer_function_arn=env["TIMER_FUNCTION_ARN"],
                allowed_origins=("*",), timer_dead_letter_arn=env["TIMER_DEAD_LETTER_ARN"],
            )  # fmt: skip  (any origin: the Origin check calls nothing, test_connect.py tests it)
            svc = config.build_service(settings, gateway=RecordingGateway(self.gw, rec))
            rec.watch(svc.store.client)
            rec.watch(svc.timers.client)
            rec.endpoints[fn] = env["WS_MANAGEMENT_ENDPOINT"]
            self.services[fn] = svc
        # the frames function's TURN servers as its environment in the template names them (the
        # secret made in moto under the template's name; its reads recorded as that function's)
        env = r.env("WsDefaultFunction")
        boto3.client("secretsmanager").create_secret(Name=r.name("TurnSecret"), SecretString="turn-secret")
        secrets = rec.watch(boto3.client("secretsmanager"))
        turn.configure(turn.Servers(urls=("turn:turn.example.org:3478",), secret_id=env["TURN_SECRET_ARN"],
                                    fetch=lambda sid: secrets.get_secret_value(SecretId=sid)["SecretString"]))  # fmt: skip
        # passkey sign-in's session key, as the REST function's environment names it
        boto3.client("secretsmanager").create_secret(Name=r.name("SessionSecret"), SecretString="session-key")
        self.services["RestFunction"].sessions = sessions.SessionKey(
            secret_id=r.env("RestFunction")["SESSION_SECRET_ARN"],
            fetch=lambda sid: secrets.get_secret_value(SecretId=sid)["SecretString"],
        )
        self.tokens: dict[tuple[str, str], str] = {}  # (room, seat) -> token
        self.answers: list[tuple[str, str, str]] = []  # the site deployer's answers to CloudFormation
        self.peek = storage.Store(boto3.client("dynamodb"), NAMES["RoomsTable"])

    def invoke(self, handler: str, event: dict, path: str) -> dict:
        fn = self.by_handler[handler]
        module, name = handler.rsplit(".", 1)
        undo = wiring.inject(self.services[fn])
        try:
            with self.rec.runs(fn, path):
                return getattr(importlib.import_module(module), name)(event, LambdaContext(function_name=fn))
        finally:
            undo()

    # REST
    def rest(self, method: str, path: str, body=None, query=None, label: str = "", session: str | None = None
             ) -> tuple[int, dict]:  # fmt: skip
        auth = {"Authorization": f"Session {session}"} if session else {}
        event = events.rest_event(method=method, path=path, query=query, source_ip=next(CLIENT_IPS),
                                  headers={"Content-Type": "application/json", "Origin": "https://example.org", **auth},
                                  body=None if body is None else json.dumps(body))  # fmt: skip
        out = self.invoke("handlers.rest.handler", event, label or f"{method} {path}")
        return out["statusCode"], json.loads(out["body"]) if out.get("body") else {}

    def seat(self, status_body: tuple[int, dict], code: str | None = None) -> dict:
        status, body = status_body
        assert status == 201, body
        self.tokens[(body.get("roomCode") or code, body["playerId"])] = body["token"]
        return body

    # WebSocket
    def connect(self, conn: str, code: str, label: str, **query) -> int:
        event = events.ws_connect_event(connection=conn, query={"room": code, **query})
        return self.invoke("handlers.ws_connect.handler", event, label)["statusCode"]

    def send(self, conn: str, frame: dict, label: str = "") -> None:
        event = events.ws_message_event(connection=conn, body=json.dumps(frame), route_key="$default")
        self.invoke("handlers.ws_default.handler", event, label or frame["action"])

    def report(self, conn: str, frame: dict) -> None:
        event = events.ws_message_event(connection=conn, body=json.dumps(frame), route_key="report")
        self.invoke("handlers.ws_report.handler", event, "report")

    def disconnect(self, conn: str, label: str) -> None:
        self.invoke("handlers.ws_disconnect.handler", events.ws_disconnect_event(connection=conn), label)

    def state(self, code: str):
        """The room as stored (a test's peek, not a function's call: a client of its own)."""
        return self.peek.load(code)

    def play(self) -> None:
        """Every handler's paths, as players, spectators, a display and the timers make them."""
        # REST: a private room, a public one joined by code and by quick play, the public list
        private = self.seat(self.rest("POST", "/rooms", {"name": "Ann", "device": "d" * 32}, label="create"))
        assert self.rest("GET", f"/rooms/{private['roomCode']}", label="summary")[0] == 200
        self.seat(self.rest("POST", f"/rooms/{private['roomCode']}/players", {"name": "Bo"}, label="join"), private["roomCode"])
        # passkey sign-in (service/identity/): make one, sign in, join signed in, the account, out, delete me
        key = SoftPasskey()
        _, opts = self.rest("POST", "/account/passkeys/options", label="passkey options")
        made = self.rest("POST", "/account/passkeys", {"challengeId": opts["challengeId"],
                         "credential": key.create(opts["options"], "https://example.org")}, label="passkey")[1]  # fmt: skip
        _, opts = self.rest("POST", "/account/session/options", label="sign-in options")
        status, signed = self.rest("POST", "/account/session", {"challengeId": opts["challengeId"],
                                   "credential": key.get(opts["options"], "https://example.org")}, label="sign in")  # fmt: skip
        assert status == 201, signed
        self.seat(self.rest("POST", f"/rooms/{private['roomCode']}/players", {"name": "Cy"}, label="join signed in",
                            session=signed["session"]), private["roomCode"])  # fmt: skip
        assert self.rest("GET", "/account", label="account", session=signed["session"])[0] == 200
        assert self.rest("DELETE", "/account/session", label="sign out", session=signed["session"])[0] == 200
        assert self.rest("DELETE", "/account", label="delete me", session=made["session"])[0] == 200
        host = self.seat(self.rest("POST", "/rooms", {"name": "P1", "lang": "en", "preset": "classic",
                                                      "options": {"public": True}, "device": "a" * 32},
                                   label="create public"))  # fmt: skip
        code = host["roomCode"]
        for i in range(2, 7):
            self.seat(self.rest("POST", f"/rooms/{code}/players", {"name": f"P{i}", "device": f"{i}" * 32}, label="join"), code)
        assert self.rest("GET", "/rooms", query={"public": "1", "lang": "en"}, label="public list")[0] == 200
        assert self.rest("GET", "/rooms", query={"public": "1", "lang": "en", "preset": "classic"},
                         label="public list by preset")[0] == 200  # fmt: skip
        seated = self.seat(self.rest("POST", "/quickplay", {"name": "Q", "lang": "en", "device": "q" * 32},
                                     label="quick play into a lobby"))  # fmt: skip
        assert seated["roomCode"] == code, seated
        self.seat(self.rest("POST", "/quickplay", {"name": "K", "lang": "ko", "device": "k" * 32},
                            label="quick play into a new room"))  # fmt: skip
        assert self.rest("OPTIONS", "/rooms", label="preflight")[0] in (200, 204)

        # sockets: every seat, a spectator, a display
        room_pids = [p["id"] for p in self.state(code).room["players"]]
        for pid in room_pids:
            assert self.connect(f"c{pid}", code, "connect a player", token=self.tokens[(code, pid)]) == 200
        assert self.connect("s1", code, "connect a spectator") == 200
        self.send("cp1", {"action": "display", "id": "d1"}, "display key")
        key = [f for f in self.gw.to("cp1") if f["type"] == "display"][-1]["key"]
        assert self.connect("tv1", code, "connect a display", display=key) == 200
        self.send("cp2", {"action": "ping"})
        for pid in room_pids[1:]:
            self.send(f"c{pid}", {"action": "ready"})
        self.send("cp1", {"action": "start", "id": "go"})
        assert self.state(code).room["status"] == "running", self.gw.last("cp1", "error")

        # the game: to a day where two seats may talk, a voice signal, a report (a public room is
        # anonymous: the game renames its seats, the connections say which is whose)
        for _ in range(30):
            snap = self.state(code)
            seats = {pid: conn for conn, pid in snap.conns.items() if pid}
            pair = [(a, b) for a in seats for b in seats if a != b and me.voice_pair(snap.state, a, b)]
            if pair:
                break
            self.timeout(code)
        a, b = pair[0]
        self.send(seats[a], {"action": "signal", "to": b, "kind": "offer", "sdp": "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"}, "voice signal")
        assert any(f["type"] == "signal" for f in self.gw.to(seats[b])), "the signal was not relayed"
        self.send(seats[a], {"action": "iceServers"}, "voice credential")
        assert self.gw.last(seats[a], "iceServers")["iceServers"], self.gw.last(seats[a], "error")
        self.send(seats[a], {"action": "nudge"})
        errors = len([f for f in self.gw.to(seats[a]) if f["type"] == "error"])
        self.send(seats[a], {"action": "chat", "channel": "day", "text": "hello", "id": "say"}, "a chat line")
        assert len([f for f in self.gw.to(seats[a]) if f["type"] == "error"]) == errors, self.gw.last(seats[a], "error")
        self.report(seats[a], {"action": "report", "id": "r1", "target": b, "reason": "abuse", "lines": []})
        assert self.gw.last(seats[a], "reported"), self.gw.last(seats[a], "error")
        self.disconnect(seats[b], "disconnect a player")
        # a seat leaves the public game (the leaver's cool-down), then the timers end the game
        self.send("cp3", {"action": "leave"}, "leave a public game")
        for _ in range(80):
            if self.state(code).room["status"] != "running":
                break
            self.timeout(code)
        assert self.state(code).room["status"] != "running", "the game never ended"
        # (the idle seats were handed to bots and their sockets closed; the spectator stays)
        self.send("s1", {"action": "chatLog"}, "chat log after the end")
        assert self.gw.last("s1", "chatLog"), self.gw.last("s1", "error")
        self.disconnect("s1", "disconnect a spectator")
        # (the private lobby) a seat's fifth socket: its older ones looked up (GetConnection), the oldest closed
        for n in range(5):
            self.clock.advance(10)
            assert self.connect(f"cp1-{n}", private["roomCode"], "connect a seat again",
                                token=self.tokens[(private["roomCode"], "p1")]) == 200  # fmt: skip


    def timeout(self, code: str) -> None:
        """The phase's deadline passes and its schedule fires (the timer function)."""
        state = self.state(code).state
        assert me.deadline(state) is not None, (state["phase"], state.get("paused"), self.state(code).room["status"])
        self.clock.advance(max(0.0, me.deadline(state) - self.clock.t) + 1)
        out = self.invoke("handlers.timer.handler", {"room": code, "phase": state["seq"], "at": None}, "phase timeout")
        assert out is None or isinstance(out, dict)

    def site(self) -> None:
        """The site deployer as CloudFormation invokes it: Create, an Update whose Release names
        another version (handed to it), Delete; its properties from the template."""
        fn = self.by_handler["sitedeploy.handler.handler"]
        self.rec.watch(site.s3_client)
        self.rec.watch(site.lambda_client)
        props = self.r.value(self.r.res["SiteDeployment"]["Properties"])
        base = {"ResponseURL": "http://127.0.0.1:9/answer", "StackId": self.r.pseudo["AWS::StackId"],
                "LogicalResourceId": "SiteDeployment", "ResourceType": "AWS::CloudFormation::CustomResource",
                "ResourceProperties": props}  # fmt: skip
        release = props["Release"].rsplit(":", 1)[1]
        ctx = LambdaContext(function_name=fn, memory_limit_in_mb=256, timeout_ms=120_000)
        try:
            for kind, version in (("Create", release), ("Update", "6"), ("Delete", release)):
                os.environ["AWS_LAMBDA_FUNCTION_VERSION"] = version  # the version that runs
                event = {**base, "RequestType": kind, "RequestId": kind, "PhysicalResourceId": props["BucketName"]}
                with self.rec.runs(fn, f"site {kind}"):
                    site.handler(event, ctx)
        finally:
            os.environ.pop("AWS_LAMBDA_FUNCTION_VERSION", None)
        # Create and Delete answered SUCCESS; the Update was handed to the version it names
        assert [a[:2] for a in self.answers] == [("Create", "SUCCESS"), ("Delete", "SUCCESS")], self.answers


@pytest.fixture(scope="module")
def run(account, translated):
    """One recorded run of every path, against the template's own names, in an account of its
    own (no other test's public lobby to quick-play into; none of its rooms left for the next)."""
    account.restart()
    r = resolver(translated["template.yaml"])
    table = r.res["RoomsTable"]["Properties"]
    schemas = {"": next(k["AttributeName"] for k in table["KeySchema"] if k["KeyType"] == "HASH")}
    for index in table.get("GlobalSecondaryIndexes", []):
        schemas[index["IndexName"]] = next(k["AttributeName"] for k in index["KeySchema"] if k["KeyType"] == "HASH")
    rec = Recorder(REGION, schemas)
    with pytest.MonkeyPatch.context() as mp:
        with_fixes(mp)
        clk = Clock()
        mp.setattr(clock, "now", clk)
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket=r.name("WebBucket"))
        mp.setattr(site, "s3_client", s3)
        mp.setattr(site, "lambda_client", _AcceptingLambda(boto3.client("lambda")))
        mp.setattr(site, "SOURCE", ROOT / "web")  # where the build puts the client beside the package
        paths = Paths(r, rec, clk)
        mp.setattr(site, "respond", lambda event, status, physical, data=None, reason="":
                   paths.answers.append((event["RequestType"], status, reason)) or True)  # fmt: skip
        try:
            paths.play()
        finally:
            turn.configure(None)
        paths.site()
    account.restart()
    return rec


class _AcceptingLambda:
    """moto's Lambda without the function: the request is recorded (before its parameters are
    built), the invocation itself answered as Lambda does for an Event invoke."""

    def __init__(self, client) -> None:
        self.meta = client.meta
        self.client = client

    def invoke(self, **kw):
        try:
            return self.client.invoke(**kw)
        except self.client.exceptions.ResourceNotFoundException:
            return {"StatusCode": 202}


# ---------------------------------------------------------------- the checks on template.yaml
def every_problem(tpl: dict, rec: Recorder) -> list[str]:
    r = resolver(tpl)
    return [
        *perms.role_problems(r, rec.calls),
        *perms.service_problems(r),
        *perms.invoke_problems(r),
        *perms.key_policy_problems(r),
        *perms.runtime_problems(r, MAKEFILE, build_sources()),
        *perms.waf_problems(tpl),
    ]


def build_sources() -> dict[str, str]:
    return {p: (ROOT / p).read_text() for p in ("scripts/bytecode.py", "scripts/check_build.py")}


def test_every_call_of_every_path_is_allowed_by_its_functions_own_role(run, translated):
    calls = list(run.calls)
    problems = perms.role_problems(resolver(translated["template.yaml"]), calls)
    assert not problems, "\n".join(problems)
    # every function ran, and every kind of call the template grants was made
    callers = {c.caller for c in calls}
    assert set(resolver(translated["template.yaml"]).functions()) <= callers
    made = {(c.caller, c.action) for c in calls}
    for expected in [
        ("RestFunction", "dynamodb:Query"), ("RestFunction", "dynamodb:UpdateItem"), ("RestFunction", "dynamodb:PutItem"),
        ("RestFunction", "dynamodb:GetItem"), ("RestFunction", "dynamodb:DeleteItem"),
        ("RestFunction", "secretsmanager:GetSecretValue"),
        ("WsConnectFunction", "execute-api:ManageConnections"), ("WsConnectFunction", "dynamodb:PutItem"),
        ("WsDefaultFunction", "dynamodb:GetItem"), ("WsDefaultFunction", "dynamodb:UpdateItem"),
        ("WsDefaultFunction", "scheduler:CreateSchedule"), ("WsDefaultFunction", "iam:PassRole"),
        ("WsReportFunction", "dynamodb:PutItem"), ("WsReportFunction", "dynamodb:GetItem"),
        ("TimerFunction", "scheduler:CreateSchedule"), ("WsDisconnectFunction", "dynamodb:DeleteItem"),
        ("SiteDeployFunction", "s3:PutObject"), ("SiteDeployFunction", "s3:ListBucket"),
        ("SiteDeployFunction", "s3:DeleteObject"), ("SiteDeployFunction", "lambda:InvokeFunction"),
    ]:  # fmt: skip
        assert expected in made, expected
    indexes = {c.resource.rsplit("/", 1)[1] for c in calls if "/index/" in c.resource}
    assert indexes == {"PublicByLang", "PublicByPreset"}


def test_the_calls_carry_the_keys_and_resources_the_policies_condition_on(run, translated):
    """The recorded requests are as IAM sees them: the budget's UpdateItem on LIMIT# keys, the
    reports' PutItem on REPORTS#/REPORTED# keys, the timers' role passed to Scheduler only."""
    calls = list(run.calls)
    budgets = [dict(c.context)["dynamodb:LeadingKeys"] for c in calls
               if (c.caller, c.action) == ("RestFunction", "dynamodb:UpdateItem")]  # fmt: skip
    assert budgets and all(k[0].startswith("LIMIT#") for k in budgets)
    reports = {dict(c.context)["dynamodb:LeadingKeys"][0].split("#")[0] for c in calls
               if (c.caller, c.action) == ("WsReportFunction", "dynamodb:PutItem")}  # fmt: skip
    assert reports == {"REPORTS", "REPORTED"}
    passed = {dict(c.context)["iam:PassedToService"] for c in calls if c.action == "iam:PassRole"}
    assert passed == {"scheduler.amazonaws.com"}
    api = resolver(translated["template.yaml"]).ref("WebSocketApi")
    posts = [c.resource for c in calls if c.action == "execute-api:ManageConnections"]
    stage = rf"arn:aws:execute-api:us-east-1:123456789012:{api}/dev"
    assert posts and all(re.fullmatch(rf"{stage}/(POST|DELETE|GET)/@connections/.+", p) for p in posts), posts[:3]
    assert {p.split("/")[2] for p in posts} == {"POST", "DELETE", "GET"}  # push, close (a kick), look up


def test_scheduler_invokes_the_timer_function_of_the_template_with_its_own_role(run, translated):
    r = resolver(translated["template.yaml"])
    targets = {c.resource for c in run.calls if c.action == "lambda:InvokeFunction" and c.caller.startswith("arn:")}
    assert targets == {r.getatt("TimerFunction", "Arn")}
    roles = {c.caller for c in run.calls if c.action == "lambda:InvokeFunction" and c.caller.startswith("arn:")}
    assert roles == {r.getatt("SchedulerInvokeRole", "Arn")}
    assert perms.trust_problems(r, "SchedulerInvokeRole", "scheduler.amazonaws.com") == []
    for fn in r.functions():
        assert perms.trust_problems(r, r.role_of(fn), "lambda.amazonaws.com") == []


def test_the_services_own_calls_are_allowed_by_the_resource_policies(translated):
    """CloudWatch publishes an alarm to the encrypted topic (topic and key policy), CloudFront
    reads the site bucket, API Gateway invokes every route's function."""
    r = resolver(translated["template.yaml"])
    assert perms.service_problems(r) == []
    assert perms.invoke_problems(r) == []


def test_a_route_whose_function_does_not_let_api_gateway_invoke_it_fails(translated):
    """The $default route's permission scoped to $connect: every frame would be refused (500)."""
    broken = copy.deepcopy(translated["template.yaml"])
    grant = broken["Resources"]["DefaultPermission"]["Properties"]
    assert grant["SourceArn"]["Fn::Sub"].endswith("/*/$default")
    grant["SourceArn"]["Fn::Sub"] = grant["SourceArn"]["Fn::Sub"].replace("$default", "$connect")
    (problem,) = perms.invoke_problems(resolver(broken))
    assert problem.startswith("route $default: API Gateway may not invoke WsDefaultFunction")


def test_every_kms_key_policy_keeps_the_account_in_charge(translated):
    assert perms.key_policy_problems(resolver(translated["template.yaml"])) == []


def test_every_function_runs_on_the_runtime_and_architecture_the_build_makes(translated):
    assert perms.runtime_problems(resolver(translated["template.yaml"]), MAKEFILE, build_sources()) == []
    # the runtime is said once in the template (Globals), the build's other declarations checked against it
    assert TEMPLATE.count("Runtime: python") == 1


def test_every_waf_rate_limit_a_deploy_may_give_is_within_wafs_bounds(translated):
    assert perms.waf_problems(translated["template.yaml"]) == []


def test_a_waf_limit_parameter_that_permits_values_below_wafs_minimum_fails():
    """The parameter's own bounds count: a Number from 0 (0 meaning no WAF) lets a deploy give
    1 to 9, which WAF refuses only when the stack is created (the check found it in template.yaml)."""
    from local import template

    old = '    Type: String\n    Default: "3000"\n    AllowedPattern: "^(0|[1-9][0-9]{1,8})$"\n'
    assert TEMPLATE.count(old) == 1
    broken = template._CfnLoader(TEMPLATE.replace(old, "    Type: Number\n    Default: 0\n    MinValue: 0\n"))
    try:
        tpl = broken.get_single_data()
    finally:
        broken.dispose()
    (problem,) = perms.waf_problems(tpl)
    assert "WafRateLimit permits [1, 2, 3]..." in problem


# ---------------------------------------------------------------- the nine breaks
@pytest.mark.parametrize("name", list(BREAKS))
def test_each_break_of_the_template_fails_a_check(name, run, translated):
    problems = every_problem(translated[name], run)
    finding = BREAKS[name][2]
    assert any(finding in p for p in problems), f"{name}: no check found it:\n" + "\n".join(problems)


def test_the_evaluator_follows_iams_rules_for_sets_and_absent_keys():
    """ForAllValues holds for a request without the key (why a LeadingKeys policy adds Null),
    an explicit Deny wins, wildcards in actions ignore case and in resources do not."""
    allow = {"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": "arn:aws:dynamodb:*:*:table/t",
             "Condition": {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["R#*"]}}}  # fmt: skip
    table = "arn:aws:dynamodb:us-east-1:1:table/t"
    assert perms.decide([allow], "dynamodb:PutItem", table, {"dynamodb:LeadingKeys": ["R#1"]}) == "allowed"
    assert perms.decide([allow], "dynamodb:PutItem", table, {"dynamodb:LeadingKeys": ["X#1"]}) == "not allowed"
    assert perms.decide([allow], "dynamodb:PutItem", table, {}) == "allowed"
    guarded = {**allow, "Condition": {**allow["Condition"], "Null": {"dynamodb:LeadingKeys": "false"}}}
    assert perms.decide([guarded], "dynamodb:PutItem", table, {}) == "not allowed"
    assert perms.decide([allow], "DynamoDB:putitem", table, {"dynamodb:LeadingKeys": ["R#1"]}) == "allowed"
    assert perms.decide([allow], "dynamodb:PutItem", table + "/index/i", {}) == "not allowed"
    deny = {"Effect": "Deny", "Action": "dynamodb:*", "Resource": "*"}
    assert perms.decide([allow, deny], "dynamodb:PutItem", table, {}) == "denied"
    with pytest.raises(perms.Unsupported):
        perms.decide([{**allow, "Condition": {"NumericLessThan": {"x": "1"}}}], "dynamodb:PutItem", table, {})
