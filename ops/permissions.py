"""Permissions proven before deploy (docs/operations.md, "Permissions proven before deploy").

The AWS calls the handlers make (recorded by harness/iam.py while tests/functions/test_permissions.py
runs every path on moto) are each checked against the policies of the calling function's own
execution role in the *translated* template (aws-sam-translator, ops/translate.py): the action,
the exact resource ARN (a table's index included) and the condition keys the call carries
(`dynamodb:LeadingKeys`, `iam:PassedToService`). moto's own IAM check cannot do it: it checks
DynamoDB calls against the resource `*` only.

Besides the roles, the resource policies the services use are checked by the same evaluator, as
the services' own calls: CloudWatch publishing an alarm to the alarm topic (the topic policy) with
the topic's key (the key policy), Scheduler's role invoking the target a schedule names, CloudFront
reading the site bucket, API Gateway invoking each route's function (its Lambda permissions), and the deployer's right to manage every KMS key (KMS refuses a key
policy that would lock it out). Then two template facts no call shows: every function's
`Runtime` and architecture are what the Makefile builds wheels and bytecode for, and every WAF
rate limit is within WAF's bounds for every value its parameter permits.

The evaluator implements what this template uses: Allow and Deny, `NotAction`/`NotResource`,
wildcards (`*`, `?`) in actions and resources, principals (`*`, `Service`, `AWS` by account or
ARN), and the condition operators String*, Arn*, Null and Bool with the `ForAllValues:` /
`ForAnyValue:` prefixes and `IfExists`. An operator it does not know raises, so a template that
starts using one is not judged wrongly.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ops import translate as tr

ROOT = Path(__file__).resolve().parents[1]
SAM_PYTHON = ROOT / ".venv-sam" / "bin" / "python"
ACCOUNT = "123456789012"
PARTITION = "aws"
DEPLOYER = f"arn:{PARTITION}:iam::{ACCOUNT}:role/deployer"  # who runs `sam deploy` (an admin of the account)
WAF_RATE_MIN, WAF_RATE_MAX = 10, 2_000_000_000  # AWS WAF RateBasedStatement.Limit
# the CloudFormation resources that are the execution role's policies, besides its own
POLICY_TYPES = ("AWS::IAM::ManagedPolicy", "AWS::IAM::Policy")


class Unsupported(ValueError):
    """Something this evaluator does not implement (an operator, an intrinsic function)."""


# ---------------------------------------------------------------- the translated template
def translate_all(texts: Iterable[str], region: str = "us-east-1", overrides: dict | None = None) -> list[dict]:
    """Each template text as CloudFormation receives it (ops/translate.py), in one process of the
    SAM CLI's venv (its aws-sam-translator, which the game's venv cannot hold)."""
    texts = list(texts)
    if not SAM_PYTHON.exists():
        raise FileNotFoundError(f"no {SAM_PYTHON}: `make install-sam` installs the SAM CLI's venv")
    script = (
        "import json, sys\nfrom ops.translate import translate\n"
        "req = json.load(sys.stdin)\n"
        "json.dump([translate(t, req['overrides'], 'artifacts', req['region']) for t in req['texts']], sys.stdout)\n"
    )
    done = subprocess.run(
        [str(SAM_PYTHON), "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        input=json.dumps({"texts": texts, "region": region, "overrides": overrides or {}}),
    )  # fmt: skip
    if done.returncode:
        raise RuntimeError(f"the SAM transform failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


class Resolver:
    """Intrinsic functions of a translated template resolved for one stack: its parameters'
    defaults (or `params`), `stack` as the stack's name, `region`, and each resource's physical
    name: `names[logical]`, else the name its properties give, else one made of `stack` and
    the logical id (CloudFormation's own names differ; only consistency matters here)."""

    def __init__(self, tpl: dict, stack: str, region: str, names: dict[str, str] | None = None,
                 params: dict[str, str] | None = None) -> None:  # fmt: skip
        self.tpl = tpl
        self.res = tpl.get("Resources") or {}
        self.stack = stack
        self.region = region
        self.names = names or {}
        self.params = tr.parameter_values(tpl, params or {})
        self.pseudo = {
            "AWS::Region": region, "AWS::AccountId": ACCOUNT, "AWS::Partition": PARTITION,
            "AWS::StackName": stack, "AWS::URLSuffix": "amazonaws.com",
            "AWS::StackId": f"arn:{PARTITION}:cloudformation:{region}:{ACCOUNT}:stack/{stack}/0",
        }  # fmt: skip
        self.conditions = tpl.get("Conditions") or {}

    # names and attributes of resources
    def _prop(self, logical: str, key: str) -> str | None:
        value = self.res[logical].get("Properties", {}).get(key)
        return None if value is None else self.value(value)

    def name(self, logical: str) -> str:
        if logical in self.names:
            return self.names[logical]
        kind = self.res[logical]["Type"]
        own = {
            "AWS::DynamoDB::Table": "TableName", "AWS::Lambda::Function": "FunctionName",
            "AWS::SQS::Queue": "QueueName", "AWS::IAM::Role": "RoleName", "AWS::S3::Bucket": "BucketName",
            "AWS::Scheduler::ScheduleGroup": "Name", "AWS::SNS::Topic": "TopicName",
        }.get(kind)  # fmt: skip
        named = self._prop(logical, own) if own else None
        if named:
            return named
        made = f"{self.stack}-{logical}"
        return made.lower() if kind == "AWS::S3::Bucket" else made

    def ref(self, logical: str) -> str:
        if logical in self.params:
            return str(self.params[logical])
        if logical in self.pseudo:
            return self.pseudo[logical]
        kind = self.res[logical]["Type"]
        if kind in ("AWS::ApiGatewayV2::Api", "AWS::ApiGateway::RestApi"):
            return re.sub(r"[^a-z0-9]", "", logical.lower())[:10]
        if kind == "AWS::Lambda::Version":
            fn = self.res[logical]["Properties"]["FunctionName"]
            arn = self.getatt(fn["Ref"], "Arn") if isinstance(fn, dict) and "Ref" in fn else self.value(fn)
            return f"{arn}:7"  # a version's Ref is its ARN
        if kind in ("AWS::SQS::Queue",):
            return f"https://sqs.{self.region}.amazonaws.com/{ACCOUNT}/{self.name(logical)}"
        if kind in ("AWS::SNS::Topic", "AWS::IAM::ManagedPolicy", "AWS::KMS::Key"):
            return self.getatt(logical, "Arn")
        if kind == "AWS::SecretsManager::Secret":  # its ARN (without the random suffix: moto's lookup takes it)
            return f"arn:{PARTITION}:secretsmanager:{self.region}:{ACCOUNT}:secret:{self.name(logical)}"
        return self.name(logical)

    def getatt(self, logical: str, att: str) -> str:
        kind = self.res[logical]["Type"]
        n, r, a, p = self.name(logical), self.region, ACCOUNT, PARTITION
        arns = {
            "AWS::DynamoDB::Table": f"arn:{p}:dynamodb:{r}:{a}:table/{n}",
            "AWS::Lambda::Function": f"arn:{p}:lambda:{r}:{a}:function:{n}",
            "AWS::SQS::Queue": f"arn:{p}:sqs:{r}:{a}:{n}",
            "AWS::IAM::Role": f"arn:{p}:iam::{a}:role/{n}",
            "AWS::IAM::ManagedPolicy": f"arn:{p}:iam::{a}:policy/{n}",
            "AWS::S3::Bucket": f"arn:{p}:s3:::{n}",
            "AWS::SNS::Topic": f"arn:{p}:sns:{r}:{a}:{n}",
            "AWS::KMS::Key": f"arn:{p}:kms:{r}:{a}:key/{n}",
            "AWS::Logs::LogGroup": f"arn:{p}:logs:{r}:{a}:log-group:{n}:*",
            "AWS::WAFv2::WebACL": f"arn:{p}:wafv2:{r}:{a}:regional/webacl/{n}/0",
        }  # fmt: skip
        if att == "Arn" and kind in arns:
            return arns[kind]
        if kind == "AWS::SQS::Queue" and att == "QueueName":
            return n
        if kind == "AWS::S3::Bucket" and att in ("RegionalDomainName", "DomainName"):
            return f"{n}.s3.{r}.amazonaws.com"
        if kind == "AWS::CloudFront::Distribution" and att == "DomainName":
            return f"{n.lower()}.cloudfront.net"
        return f"{n}.{att}"  # an attribute no check reads: a stable placeholder

    # values
    def condition(self, name: str) -> bool:
        return tr.condition(name, {**self.params, **self.pseudo}, self.conditions)

    def value(self, node: Any) -> Any:
        if isinstance(node, list):
            return [v for v in (self.value(x) for x in node) if v is not _NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            (fn, arg), = node.items()
            if fn == "Ref":
                return _NO_VALUE if arg == "AWS::NoValue" else self.ref(arg)
            if fn == "Fn::GetAtt":
                logical, att = arg.split(".", 1) if isinstance(arg, str) else arg
                return self.getatt(logical, att)
            if fn == "Fn::Sub":
                text, extra = (arg, {}) if isinstance(arg, str) else (arg[0], arg[1])
                extra = {k: self.value(v) for k, v in extra.items()}
                return re.sub(r"\$\{([^}!]+)\}", lambda m: self._sub(m.group(1), extra), text)
            if fn == "Fn::Join":
                sep, parts = arg
                return sep.join(str(x) for x in self.value(parts))
            if fn == "Fn::If":
                name, yes, no = arg
                return self.value(yes if self.condition(name) else no)
            if fn == "Fn::Select":
                return self.value(arg[1])[int(self.value(arg[0]))]
            if fn.startswith("Fn::"):
                raise Unsupported(f"{fn} in a value the permission checks read")
        out = {k: self.value(v) for k, v in node.items()}
        return {k: v for k, v in out.items() if v is not _NO_VALUE}

    def _sub(self, name: str, extra: dict) -> str:
        if name in extra:
            return str(extra[name])
        if "." in name:
            logical, att = name.split(".", 1)
            return self.getatt(logical, att)
        return str(self.ref(name))

    # what the checks read
    def functions(self) -> dict[str, dict]:
        return {n: r for n, r in self.res.items() if r["Type"] == "AWS::Lambda::Function"}

    def env(self, function: str) -> dict[str, str]:
        props = self.res[function]["Properties"]
        return {k: str(v) for k, v in self.value(props.get("Environment", {}).get("Variables", {})).items()}

    def role_of(self, function: str) -> str:
        role = self.res[function]["Properties"]["Role"]
        target = role.get("Fn::GetAtt") if isinstance(role, dict) else None
        if not target:
            raise Unsupported(f"{function}: its Role is not a role of the template ({role})")
        return target[0] if isinstance(target, list) else target.split(".", 1)[0]

    def role_by_arn(self, arn: str) -> str | None:
        for logical, r in self.res.items():
            if r["Type"] == "AWS::IAM::Role" and self.getatt(logical, "Arn") == arn:
                return logical
        return None

    def role_statements(self, role: str) -> list[dict]:
        """Every statement of `role`'s policies: its inline ones, the template's managed policies
        it names, and the template's policies that name it (AWS managed policies, e.g. the basic
        execution role, grant none of the calls recorded: logs and traces are not checked)."""
        props = self.res[role]["Properties"]
        docs = [p["PolicyDocument"] for p in props.get("Policies", [])]
        for arn in props.get("ManagedPolicyArns", []):
            target = arn.get("Ref") if isinstance(arn, dict) else None
            if target in self.res:
                docs.append(self.res[target]["Properties"]["PolicyDocument"])
        for r in self.res.values():
            if r["Type"] in POLICY_TYPES and {"Ref": role} in r["Properties"].get("Roles", []):
                docs.append(r["Properties"]["PolicyDocument"])
        return [st for doc in docs for st in _listed(self.value(doc).get("Statement", []))]


_NO_VALUE = object()


def _listed(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


# ---------------------------------------------------------------- the evaluator
def _pattern(glob: str, case: bool) -> re.Pattern[str]:
    out = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)
    return re.compile(f"^{out}$", 0 if case else re.IGNORECASE)


def _like(glob: str, value: str, case: bool = True) -> bool:
    return bool(_pattern(glob, case).match(value))


def _arn_like(glob: str, value: str) -> bool:
    """ArnLike: the six colon-separated parts matched one by one (wildcards within a part)."""
    g, v = glob.split(":", 5), value.split(":", 5)
    return len(g) == len(v) == 6 and all(_like(a, b) for a, b in zip(g, v, strict=True))


_OPS = {
    "StringEquals": lambda p, v: p == v,
    "StringNotEquals": lambda p, v: p == v,  # negated below
    "StringEqualsIgnoreCase": lambda p, v: p.lower() == v.lower(),
    "StringLike": lambda p, v: _like(p, v),
    "StringNotLike": lambda p, v: _like(p, v),
    "ArnEquals": lambda p, v: p == v,
    "ArnLike": _arn_like,
    "ArnNotEquals": lambda p, v: p == v,
    "ArnNotLike": _arn_like,
    "Bool": lambda p, v: p.lower() == v.lower(),
}
_NEGATED = {"StringNotEquals", "StringNotLike", "ArnNotEquals", "ArnNotLike"}


def _condition_holds(op: str, key: str, wanted: Any, context: dict[str, Any]) -> bool:
    present = {k.lower(): v for k, v in context.items()}
    value = present.get(key.lower())
    values = [] if value is None else [str(v) for v in _listed(value)]
    wanted = [str(w).lower() if isinstance(w, bool) else str(w) for w in _listed(wanted)]
    qualifier, _, base = op.rpartition(":")
    if_exists = base.endswith("IfExists")
    base = base.removesuffix("IfExists")
    if base == "Null":
        return (not values) == (wanted[0].lower() == "true")
    if base not in _OPS or qualifier not in ("", "ForAllValues", "ForAnyValue"):
        raise Unsupported(f"condition operator {op}")
    test = _OPS[base]
    negated = base in _NEGATED

    def one(v: str) -> bool:
        hit = any(test(w, v) for w in wanted)
        return not hit if negated else hit

    if qualifier == "ForAllValues":
        return all(one(v) for v in values)  # true for a key absent or empty (why the Null checks)
    if not values:
        return if_exists or negated
    return any(one(v) for v in values)


def _principal_matches(principal: Any, who: tuple[str, str] | None) -> bool:
    if who is None:
        return principal is None  # an identity policy has none
    if principal is None:
        return False
    if principal == "*":
        return True
    kind, name = who
    for value in _listed(principal.get("Service" if kind == "service" else "AWS", [])):
        if value == "*" or value == name:
            return True
        if kind == "aws":  # the account (its id or root): its own IAM policies then decide
            account = name.split(":")[4] if name.startswith("arn:") else name
            if value in (account, f"arn:{PARTITION}:iam::{account}:root"):
                return True
    return False


def _statement_matches(st: dict, action: str, resource: str, context: dict, who) -> bool:
    if not _principal_matches(st.get("Principal"), who):
        return False
    if "Action" in st:
        if not any(_like(a, action, case=False) for a in _listed(st["Action"])):
            return False
    elif any(_like(a, action, case=False) for a in _listed(st.get("NotAction", []))):
        return False
    if "Resource" in st:
        if not any(_like(r, resource) for r in _listed(st["Resource"])):
            return False
    elif "NotResource" in st and any(_like(r, resource) for r in _listed(st["NotResource"])):
        return False
    for op, keys in (st.get("Condition") or {}).items():
        for key, wanted in keys.items():
            if not _condition_holds(op, key, wanted, context):
                return False
    return True


def decide(statements: list[dict], action: str, resource: str, context: dict | None = None,
           who: tuple[str, str] | None = None) -> str:  # fmt: skip
    """'allowed', 'denied' (an explicit Deny) or 'not allowed' (no Allow matches) - one policy
    set's answer; `who` is the caller (("service", name) or ("aws", arn)) for a resource policy."""
    context = context or {}
    matching = [st for st in statements if _statement_matches(st, action, resource, context, who)]
    if any(st.get("Effect") == "Deny" for st in matching):
        return "denied"
    return "allowed" if any(st.get("Effect") == "Allow" for st in matching) else "not allowed"


# ---------------------------------------------------------------- calls and their checks
@dataclass(frozen=True)
class Call:
    """One request an AWS service authorizes: who makes it (a function's logical id, or a role's
    ARN for a role a service assumes), the IAM action, the resource's ARN, the condition keys the
    request carries, and what made it (the path and the API operation)."""

    caller: str
    action: str
    resource: str
    context: tuple[tuple[str, Any], ...] = ()
    path: str = ""
    operation: str = ""

    def line(self) -> str:
        ctx = ", ".join(f"{k}={v}" for k, v in self.context)
        return f"{self.caller}: {self.action} on {self.resource}{f' ({ctx})' if ctx else ''} [{self.path}: {self.operation}]"


@dataclass
class Calls:
    """The calls a run of the handlers made (harness/iam.py records them), once each."""

    seen: dict[tuple, Call] = field(default_factory=dict)

    def add(self, call: Call) -> None:
        key = (call.caller, call.action, call.resource, call.context)
        self.seen.setdefault(key, call)

    def __iter__(self):
        return iter(self.seen.values())

    def __len__(self) -> int:
        return len(self.seen)


def role_problems(r: Resolver, calls: Iterable[Call]) -> list[str]:
    """Each call its caller's role would not allow. The caller is a function (its own execution
    role) or an assumed role by ARN (Scheduler's); a role must trust the service that assumes it."""
    problems = []
    statements: dict[str, list[dict]] = {}
    for call in calls:
        if call.caller in r.res:
            role = r.role_of(call.caller)
        else:
            role = r.role_by_arn(call.caller)
            if role is None:
                problems.append(f"{call.line()}: no role of the template has the ARN {call.caller}")
                continue
        if role not in statements:
            statements[role] = r.role_statements(role)
        answer = decide(statements[role], call.action, call.resource, dict(call.context))
        if answer != "allowed":
            problems.append(f"{call.line()}: {answer} by {role}'s policies")
    return problems


def trust_problems(r: Resolver, role: str, service: str) -> list[str]:
    doc = r.value(r.res[role]["Properties"]["AssumeRolePolicyDocument"])
    context = {"aws:SourceAccount": ACCOUNT}
    if decide(_listed(doc["Statement"]), "sts:AssumeRole", r.getatt(role, "Arn"), context, ("service", service)) != "allowed":
        return [f"{role}: {service} may not assume it (its trust policy)"]
    return []


def _resource_policies(r: Resolver, kind: str, prop: str, target_prop: str, target: str) -> list[dict]:
    """The statements of every `kind` resource (a topic or bucket policy) that names `target`."""
    out = []
    for res in r.res.values():
        if res["Type"] != kind:
            continue
        named = _listed(res["Properties"].get(target_prop))
        if {"Ref": target} in named or target in [r.value(n) for n in named]:
            out += _listed(r.value(res["Properties"][prop])["Statement"])
    return out


def service_problems(r: Resolver) -> list[str]:
    """The services' own calls, each against the resource policy that must allow it."""
    problems = []
    alarms = {n: res for n, res in r.res.items() if res["Type"] == "AWS::CloudWatch::Alarm"}
    for topic, t in ((n, res) for n, res in r.res.items() if res["Type"] == "AWS::SNS::Topic"):
        notifying = [a for a, res in alarms.items()
                     if {"Ref": topic} in res["Properties"].get("AlarmActions", []) + res["Properties"].get("OKActions", [])]  # fmt: skip
        if not notifying:
            continue
        policy = _resource_policies(r, "AWS::SNS::TopicPolicy", "PolicyDocument", "Topics", topic)
        key = t["Properties"].get("KmsMasterKeyId")
        key_logical = key.get("Ref") if isinstance(key, dict) else None
        key_policy = (_listed(r.value(r.res[key_logical]["Properties"]["KeyPolicy"])["Statement"])
                      if key_logical in r.res else None)  # fmt: skip
        for alarm in notifying[:1] + notifying[-1:]:
            name = r.value(alarms[alarm]["Properties"].get("AlarmName")) or f"{r.stack}-{alarm}"
            context = {"aws:SourceAccount": ACCOUNT,
                       "aws:SourceArn": f"arn:{PARTITION}:cloudwatch:{r.region}:{ACCOUNT}:alarm:{name}"}  # fmt: skip
            who = ("service", "cloudwatch.amazonaws.com")
            answer = decide(policy, "sns:Publish", r.getatt(topic, "Arn"), context, who)
            if answer != "allowed":
                problems.append(f"{topic}: CloudWatch may not publish {alarm}'s notification (topic policy: {answer})")
            if key_policy is not None:
                for action in ("kms:GenerateDataKey", "kms:Decrypt"):
                    answer = decide(key_policy, action, r.getatt(key_logical, "Arn"), context, who)
                    if answer != "allowed":
                        problems.append(f"{key_logical}: CloudWatch may not {action} for {alarm}'s notification (key policy: {answer})")  # fmt: skip
    for bucket in (n for n, res in r.res.items() if res["Type"] == "AWS::S3::Bucket"):
        policy = _resource_policies(r, "AWS::S3::BucketPolicy", "PolicyDocument", "Bucket", bucket)
        for dist in (n for n, res in r.res.items() if res["Type"] == "AWS::CloudFront::Distribution"):
            origins = r.value(r.res[dist]["Properties"]["DistributionConfig"]).get("Origins", [])
            if not any(o.get("DomainName", "").startswith(f"{r.name(bucket)}.s3.") for o in origins):
                continue
            context = {"aws:SourceArn": f"arn:{PARTITION}:cloudfront::{ACCOUNT}:distribution/{r.name(dist)}",
                       "aws:SecureTransport": "true", "aws:SourceAccount": ACCOUNT}  # fmt: skip
            answer = decide(policy, "s3:GetObject", f"{r.getatt(bucket, 'Arn')}/index.html", context,
                            ("service", "cloudfront.amazonaws.com"))  # fmt: skip
            if answer != "allowed":
                problems.append(f"{bucket}: {dist} may not read it (bucket policy: {answer})")
    return problems


def _function_in(uri: str, r: Resolver) -> str | None:
    """The function an integration URI (`.../functions/<arn>/invocations`) invokes."""
    m = re.search(r"/functions/(arn:[^/]+)/invocations", uri)
    return next((f for f in r.functions() if m and r.getatt(f, "Arn") == m.group(1)), None)


def invoke_problems(r: Resolver) -> list[str]:
    """API Gateway invoking each route's function: every WebSocket route and every REST method
    (SAM's OpenAPI body), as `apigateway.amazonaws.com` with the request's `aws:SourceArn`
    (`<api>/<stage>/<route key>`, `<api>/<stage>/<METHOD>/<path>`), against the function's
    resource policy (its `AWS::Lambda::Permission`s)."""
    grants: dict[str, list[dict]] = {}
    for res in r.res.values():
        if res["Type"] != "AWS::Lambda::Permission":
            continue
        props = r.value(res["Properties"])
        fn = res["Properties"]["FunctionName"]
        target = fn.get("Ref") if isinstance(fn, dict) else None
        st = {"Effect": "Allow", "Principal": {"Service": props["Principal"]}, "Action": props["Action"],
              "Resource": r.getatt(target, "Arn") if target in r.res else props["FunctionName"]}  # fmt: skip
        if "SourceArn" in props:
            st["Condition"] = {"ArnLike": {"aws:SourceArn": props["SourceArn"]}}
        grants.setdefault(st["Resource"], []).append(st)
    calls: list[tuple[str, str, str]] = []  # (what, function, source ARN)
    execute = f"arn:{PARTITION}:execute-api:{r.region}:{ACCOUNT}"
    for name, res in r.res.items():
        props = res.get("Properties", {})
        if res["Type"] == "AWS::ApiGatewayV2::Route":
            api = r.value(props["ApiId"])
            stages = [r.value(s["Properties"]["StageName"]) for s in r.res.values()
                      if s["Type"] == "AWS::ApiGatewayV2::Stage" and r.value(s["Properties"]["ApiId"]) == api]  # fmt: skip
            integration = r.value(props.get("Target", "")).removeprefix("integrations/")
            uri = next((r.value(i["Properties"]["IntegrationUri"]) for n, i in r.res.items()
                        if i["Type"] == "AWS::ApiGatewayV2::Integration" and r.ref(n) == integration), "")  # fmt: skip
            for stage in stages:
                calls.append((f"route {props['RouteKey']}", uri, f"{execute}:{api}/{stage}/{props['RouteKey']}"))
        if res["Type"] == "AWS::ApiGateway::RestApi" and "Body" in props:
            api = r.ref(name)
            stages = [r.value(s["Properties"]["StageName"]) for s in r.res.values()
                      if s["Type"] == "AWS::ApiGateway::Stage" and s["Properties"].get("RestApiId") == {"Ref": name}]  # fmt: skip
            for path, methods in props["Body"].get("paths", {}).items():
                filled = re.sub(r"\{[^}]+\}", "ABCDE", path)
                for method, op in methods.items():
                    uri = r.value((op.get("x-amazon-apigateway-integration") or {}).get("uri", ""))
                    verbs = ["GET", "POST", "DELETE"] if method == "x-amazon-apigateway-any-method" else [method.upper()]
                    for verb, stage in ((v, s) for v in verbs for s in stages):
                        calls.append((f"{verb} {path}", uri, f"{execute}:{api}/{stage}/{verb}{filled}"))
    problems = []
    for what, uri, source in calls:
        fn = _function_in(str(uri), r)
        if fn is None:
            problems.append(f"{what}: its integration invokes no function of the template ({uri})")
            continue
        context = {"aws:SourceArn": source, "aws:SourceAccount": ACCOUNT}
        answer = decide(grants.get(r.getatt(fn, "Arn"), []), "lambda:InvokeFunction", r.getatt(fn, "Arn"), context,
                        ("service", "apigateway.amazonaws.com"))  # fmt: skip
        if answer != "allowed":
            problems.append(f"{what}: API Gateway may not invoke {fn} ({source}: {answer} by its Lambda permissions)")
    if not calls:
        problems.append("no API Gateway route found to check")
    return problems


def key_policy_problems(r: Resolver) -> list[str]:
    """KMS refuses a key policy that would lock the key out (its policy lockout safety check,
    CreateKey's and PutKeyPolicy's `Policy`): the principal that creates the key - the deployer,
    an administrator of this account - must keep kms:PutKeyPolicy; and every statement must
    name a principal. With the account's root as a principal, the account's IAM policies
    decide, as they do for every other resource; the default key policy does exactly that."""
    problems = []
    for key, res in r.res.items():
        if res["Type"] != "AWS::KMS::Key":
            continue
        policy = r.value(res["Properties"].get("KeyPolicy") or {})
        if policy.get("Version") != "2012-10-17":
            problems.append(f"{key}: its key policy's Version is not 2012-10-17")
        statements = _listed(policy.get("Statement", []))
        for i, st in enumerate(statements):
            if not st.get("Principal"):
                problems.append(f"{key}: key policy statement {st.get('Sid', i)} names no principal; KMS refuses it")
        for action in ("kms:PutKeyPolicy", "kms:ScheduleKeyDeletion", "kms:DescribeKey"):
            answer = decide(statements, action, r.getatt(key, "Arn"), {}, ("aws", DEPLOYER))
            if answer != "allowed":
                problems.append(f"{key}: the key policy would lock the account out ({action}: {answer}); "
                                "KMS refuses it (the statement giving the account's root kms:*)")  # fmt: skip
    return problems


def runtime_problems(r: Resolver, makefile: str, sources: dict[str, str] | None = None) -> list[str]:
    """Every function's Runtime and architecture, and the layer's, against what the build makes:
    the Makefile's wheels (`--python-version`, `--platform`) and bytecode (the Python it
    compiles with), scripts/bytecode.py's and scripts/check_build.py's interpreter."""
    problems = []
    version = re.search(r"--python-version (\d+)\.(\d+)", makefile)
    platform = re.search(r"--platform manylinux\w*?_(aarch64|x86_64)", makefile)
    bytecode = re.search(r"command -v python(\d+)\.(\d+)", makefile)
    if not (version and platform and bytecode):
        return ["the Makefile no longer names the wheels' Python (--python-version), platform or bytecode Python"]
    runtime = f"python{version.group(1)}.{version.group(2)}"
    arch = {"aarch64": "arm64", "x86_64": "x86_64"}[platform.group(1)]
    if bytecode.groups() != version.groups():
        problems.append(f"the Makefile compiles bytecode with python{'.'.join(bytecode.groups())}, wheels for {runtime}")
    for path, text in (sources or {}).items():
        tag = version.group(1) + version.group(2)
        if f"({version.group(1)}, {version.group(2)})" not in text and f"cpython-{tag}" not in text:
            problems.append(f"{path} does not build for {runtime}")
    for name, res in r.res.items():
        props = res.get("Properties", {})
        if res["Type"] == "AWS::Lambda::Function":
            if props.get("Runtime") != runtime:
                problems.append(f"{name}: Runtime {props.get('Runtime')}, the build makes {runtime}")
            if props.get("Architectures", ["x86_64"]) != [arch]:
                problems.append(f"{name}: Architectures {props.get('Architectures', ['x86_64'])}, the build makes {arch}")
        if res["Type"] == "AWS::Lambda::LayerVersion":
            if props.get("CompatibleRuntimes") != [runtime] or props.get("CompatibleArchitectures") != [arch]:
                problems.append(f"{name}: compatible with {props.get('CompatibleRuntimes')} "
                                f"{props.get('CompatibleArchitectures')}, the build makes {runtime} {arch}")  # fmt: skip
    return problems


def _permitted_numbers(spec: dict) -> tuple[float, float, list[float] | None]:
    """A Number parameter's permitted range (and its AllowedValues, if any)."""
    allowed = [float(v) for v in spec["AllowedValues"]] if "AllowedValues" in spec else None
    return float(spec.get("MinValue", float("-inf"))), float(spec.get("MaxValue", float("inf"))), allowed


def waf_problems(tpl: dict) -> list[str]:
    """Every rate rule's Limit within WAF's bounds, for every value a deploy may give it: a
    literal, or a parameter whose permitted values (when the web ACL's condition holds) must all
    be in bounds (AWS WAF refuses the web ACL at deploy time otherwise)."""
    problems = []
    params = tpl.get("Parameters") or {}

    def rules(node: Any) -> Iterable[Any]:
        if isinstance(node, dict):
            if "RateBasedStatement" in node:
                yield node["RateBasedStatement"].get("Limit")
            for v in node.values():
                yield from rules(v)
        elif isinstance(node, list):
            for v in node:
                yield from rules(v)

    for name, res in (tpl.get("Resources") or {}).items():
        if res.get("Type") != "AWS::WAFv2::WebACL":
            continue
        for limit in rules(res.get("Properties", {})):
            if isinstance(limit, dict) and "Ref" in limit and limit["Ref"] in params:
                spec = params[limit["Ref"]]
                if spec.get("Type") not in ("Number", "String"):
                    problems.append(f"{name}: Limit comes from {limit['Ref']}, a {spec.get('Type')}")
                    continue
                low, high, allowed = _permitted_numbers(spec)
                pattern = spec.get("AllowedPattern")
                excluded = _excluded_by_condition(tpl, res.get("Condition"), limit["Ref"])
                # the values just outside WAF's bounds (and the parameter's own ends) that a deploy may give
                edges = {-1, *range(0, WAF_RATE_MIN), WAF_RATE_MAX + 1, *(v for v in (low, high) if abs(v) != float("inf"))}
                candidates = allowed if allowed is not None else [
                    v for v in edges if low <= v <= high and (pattern is None or re.fullmatch(pattern, str(int(v))))
                ]  # fmt: skip
                bad = sorted({int(v) for v in candidates if v not in excluded and not WAF_RATE_MIN <= v <= WAF_RATE_MAX})
                if bad:
                    problems.append(f"{name}: {limit['Ref']} permits {bad[:3]}{'...' if len(bad) > 3 else ''}, "
                                    f"outside WAF's rate limit bounds ({WAF_RATE_MIN}-{WAF_RATE_MAX})")  # fmt: skip
            elif isinstance(limit, (int, float, str)) and str(limit).isdigit():
                if not WAF_RATE_MIN <= int(limit) <= WAF_RATE_MAX:
                    problems.append(f"{name}: rate limit {limit} is outside WAF's bounds ({WAF_RATE_MIN}-{WAF_RATE_MAX})")
            else:
                problems.append(f"{name}: a rate limit these checks cannot read ({limit})")
    return problems


def _excluded_by_condition(tpl: dict, condition: str | None, param: str) -> set[float]:
    """The values of `param` for which the resource's `condition` is false, when it is of the
    form `!Not [!Equals [!Ref param, X]]` (the web ACL exists only when the limit is not X)."""
    node = (tpl.get("Conditions") or {}).get(condition or "")
    try:
        (inner,) = node["Fn::Not"]
        a, b = inner["Fn::Equals"]
        if a == {"Ref": param}:
            return {float(b)}
    except (KeyError, TypeError, ValueError):
        pass
    return set()
