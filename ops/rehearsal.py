"""The deploy rehearsal: what `sam deploy` would do with template.yaml, for one samconfig
environment, without an AWS account (tests/functions/test_rehearsal.py; docs/operations.md,
"The deploy rehearsal").

1. Resolve the AWS::LanguageExtensions transform with the environment's parameter values and
   run the SAM transform with aws-sam-translator (ops/translate.py, in the SAM CLI's venv).
2. The template checks of ops/checks.py on the translated template.
3. Create the stack on a moto server on 127.0.0.1. The types moto's CloudFormation cannot model
   are listed by name in `STUBBED` and stand in as stubs; any other unmodelled type fails the
   rehearsal until it is listed (so nothing is skipped silently).
4. Run the *built* site deployer (`.aws-sam/build/SiteDeployFunction`, what `sam build` made)
   on the request moto's CloudFormation makes for the custom resource, answering on its
   ResponseURL; check what it published (/sw.js and the manifest at the root, index.html
   no-cache, the versioned assets immutable) and that the stack completed.
5. Send the custom resource's Delete, delete the stack, and check that prod keeps its table.
6. cfn-lint the *translated* template (last: the slowest step): with no transform left, it sees
   inside the SAM resources (a bad Runtime, a Ref to an API that does not exist).

    python -m ops.rehearsal [dev|prod ...]      # prints each step; exit 1 on the first failure
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import logging
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "template.yaml"
SAM_PYTHON = ROOT / ".venv-sam" / "bin" / "python"
BUILT_SITE = ROOT / ".aws-sam" / "build" / "SiteDeployFunction"
ENVIRONMENTS = {"dev": "default", "prod": "prod"}  # rehearsal name -> samconfig.toml environment
ARTIFACTS = "rehearsal-artifacts"  # the bucket `sam package` would upload to (resolve_s3)
ACCOUNT = "123456789012"
IMMUTABLE = "public, max-age=31536000, immutable"

# Types moto 5's CloudFormation cannot create (moto.cloudformation.parsing has no model for
# them): each stands in as a stub whose Ref and attributes are placeholder strings. A type not
# listed here that moto cannot model fails the rehearsal: list it with what a real account
# must show for it (docs/operations.md, "Going to production").
STUBBED = {
    "AWS::ApiGateway::Account": "the account's CloudWatch role: a fresh account's first deploy",
    "AWS::ApiGateway::Stage": "the REST stage, its access logs and throttling",
    # moto models these two but does not import the OpenAPI Body SAM writes into the REST API,
    # so its Deployment fails ("The REST API doesn't contain any methods")
    "AWS::ApiGateway::RestApi": "the REST API's routes (SAM's OpenAPI Body)",
    "AWS::ApiGateway::Deployment": "the REST API's deployment",
    "AWS::ApiGatewayV2::Api": "the WebSocket API",
    "AWS::ApiGatewayV2::Integration": "the WebSocket routes' Lambda integrations",
    "AWS::ApiGatewayV2::Route": "the WebSocket routes",
    "AWS::ApiGatewayV2::Stage": "the WebSocket stage and its access logs",
    "AWS::CloudFront::CachePolicy": "the site's caching",
    "AWS::CloudFront::Distribution": "the site (OAC, /api behaviour, headers)",
    "AWS::CloudFront::Function": "the viewer-request function in CloudFront's runtime",
    "AWS::CloudFront::OriginAccessControl": "CloudFront reading the private bucket",
    "AWS::CloudFront::ResponseHeadersPolicy": "the security headers",
    "AWS::CloudWatch::Alarm": "the alarms (their metrics: ops/checks.py)",
    "AWS::Lambda::Alias": "the site deployer's alias",
    "AWS::S3::BucketPolicy": "the bucket policy (OAC, TLS only)",
    "AWS::SNS::Subscription": "the alarm e-mail subscription",
    "AWS::SNS::TopicPolicy": "CloudWatch publishing to the alarm topic",
    "AWS::Scheduler::ScheduleGroup": "the phase timers' schedule group",
    "AWS::SecretsManager::Secret": "the origin secret CloudFront adds to REST requests (its dynamic references)",
    "AWS::WAFv2::WebACL": "the web ACL on CloudFront (WafRateLimit > 0; created in us-east-1)",
}
# Modelled by moto, but not as AWS answers: corrected here, each with its reason.
CORRECTED = {
    "AWS::CloudFormation::CustomResource": "moto models only Custom::<Name>; the same model serves",
    "AWS::Lambda::Version": "moto's Ref is the logical id; AWS returns the version's ARN",
}


class RehearsalFailed(AssertionError):
    """A step of the rehearsal found what a real deploy would hit."""


@dataclass
class Environment:
    name: str
    stack_name: str
    region: str
    overrides: dict[str, str]


def environment(name: str, samconfig: Path = ROOT / "samconfig.toml") -> Environment:
    """A samconfig.toml environment: its stack name, region and parameter_overrides."""
    import re

    conf = tomllib.loads(samconfig.read_text())
    section = conf[ENVIRONMENTS[name]]
    glob = section.get("global", {}).get("parameters", {})
    deploy = section.get("deploy", {}).get("parameters", {})
    overrides = dict(re.findall(r'(\w+)="([^"]*)"', deploy.get("parameter_overrides", "")))
    return Environment(name, glob["stack_name"], glob["region"], overrides)


def translate(env: Environment, template: Path = TEMPLATE) -> dict:
    """The template as CloudFormation would run it for `env` (ops/translate.py)."""
    if not SAM_PYTHON.exists():
        raise RehearsalFailed(f"no {SAM_PYTHON}: `make install-sam` installs the SAM CLI's venv")
    done = subprocess.run(
        [str(SAM_PYTHON), "-m", "ops.translate", str(template), json.dumps(env.overrides), ARTIFACTS, env.region],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if done.returncode:
        raise RehearsalFailed(f"{env.name}: the SAM transform failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def lint(translated: dict, region: str) -> list[str]:
    """cfn-lint's findings on a translated template (errors and warnings)."""
    from cfnlint.api import ManualArgs
    from cfnlint.api import lint as cfn_lint

    found = cfn_lint(json.dumps(translated), config=ManualArgs(regions=[region]))
    return [f"{m.rule.id} {m.message} ({'/'.join(map(str, m.path)) if getattr(m, 'path', None) else ''})"
            for m in found if m.rule.id[0] in "EW"]  # fmt: skip


# ---- moto, as CloudFormation's stand-in
def _stub_model() -> type:
    from moto.core.common_models import CloudFormationModel

    class Stub(CloudFormationModel):
        """An unmodelled type (STUBBED): created and deleted as nothing, with placeholder values."""

        __module__ = "ops.rehearsal"  # moto's model registry reads a service name from it

        def __init__(self, name: str, kind: str) -> None:
            self.name, self.kind = name, kind

        @staticmethod
        def cloudformation_type() -> str:
            return "Stub"  # never looked up by this name: `_resource_class` hands it out

        @classmethod
        def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[override]  # noqa: E501
            return cls(resource_name, kwargs["ResourceType"])

        @property
        def physical_resource_id(self) -> str:
            return f"stub-{self.name}".lower()

        @classmethod
        def has_cfn_attr(cls, attr: str) -> bool:
            return True

        def get_cfn_attribute(self, attribute_name: str) -> str:
            return f"stub-{self.name}-{attribute_name}".lower()

        def delete(self, account_id: str, region_name: str) -> None:
            pass

    return Stub


def _version_model() -> type:
    from moto.awslambda.models import LambdaVersion, get_backend

    class Version(LambdaVersion):
        """AWS::Lambda::Version whose Ref is the version's ARN, as AWS answers (CORRECTED)."""

        __module__ = "ops.rehearsal"

        @classmethod
        def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[override]  # noqa: E501
            fn = cloudformation_json["Properties"]["FunctionName"]
            published = get_backend(account_id, region_name).publish_version(fn)
            made = cls({"Version": published.version})
            made.arn = f"arn:aws:lambda:{region_name}:{account_id}:function:{published.function_name}:{published.version}"
            return made

        @property
        def physical_resource_id(self) -> str:
            return self.arn

        @classmethod
        def has_cfn_attr(cls, attr: str) -> bool:
            return attr in ("Version", "FunctionArn")

        def get_cfn_attribute(self, attribute_name: str) -> str:
            return self.version if attribute_name == "Version" else self.arn.rsplit(":", 1)[0]

        def delete(self, account_id: str, region_name: str) -> None:
            pass  # SAM's versions are retained

    return Version


@dataclass
class Moto:
    """A moto server on 127.0.0.1 and the custom-resource requests its CloudFormation made."""

    endpoint: str
    requests: queue.Queue = field(default_factory=queue.Queue)
    unmodelled: list[str] = field(default_factory=list)  # types moto met that are not in STUBBED

    def reset(self) -> None:
        import urllib.request

        urllib.request.urlopen(urllib.request.Request(f"{self.endpoint}/moto-api/reset", method="POST"), timeout=30)

    def client(self, service: str, region: str) -> Any:
        import boto3

        return boto3.client(service, region_name=region, endpoint_url=self.endpoint,
                            aws_access_key_id="testing", aws_secret_access_key="testing")  # fmt: skip


@contextlib.contextmanager
def moto_server(patch: Callable[[Any, str, Any], None]) -> Iterator[Moto]:
    """Start moto on 127.0.0.1 (a free port) with the rehearsal's changes installed by `patch`
    (pytest's monkeypatch.setattr, or a plain setattr that this puts back)."""
    from moto import settings
    from moto.awslambda import models as lambda_models
    from moto.cloudformation import custom_model, parsing
    from moto.server import ThreadedMotoServer

    for service in ("apigateway", "apigatewayv2", "awslambda", "cloudfront", "cloudwatch", "dynamodb", "iam",
                    "kms", "logs", "s3", "scheduler", "sns", "sqs"):  # fmt: skip
        importlib.import_module(f"moto.{service}.models")  # every model moto has, before it lists them
    for cached in (parsing.get_model_list, parsing.get_model_map, parsing.get_name_type_map):
        cached.cache_clear()  # a list made before those imports would miss their models
    stub, version = _stub_model(), _version_model()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    moto = Moto(f"http://{host}:{port}")
    moto.reset()  # moto's backends live in this process: nothing of an earlier rehearsal stays

    known = parsing.resource_class_from_type

    def resource_class(resource_type: str) -> Any:
        if resource_type in STUBBED:
            return stub
        if resource_type == "AWS::CloudFormation::CustomResource":
            return custom_model.CustomModel
        if resource_type == "AWS::Lambda::Version":
            return version
        found = known(resource_type)
        if found is None and resource_type not in parsing.NULL_MODELS:
            moto.unmodelled.append(resource_type)
            raise RehearsalFailed(
                f"moto cannot model {resource_type}: list it in ops/rehearsal.py STUBBED with what a real "
                "account must show for it"
            )
        return found

    def invoke(fn: Any, body: str, request_headers: Any, response_headers: Any) -> str:
        """A Lambda invoke moto would run in Docker: recorded, for the rehearsal to run."""
        moto.requests.put((fn.function_arn, json.loads(body)))
        return ""

    patch(parsing, "resource_class_from_type", resource_class)
    patch(lambda_models.LambdaFunction, "invoke", invoke)
    # the custom resource's ResponseURL: this server, not the Docker host moto assumes
    patch(settings, "moto_server_host", lambda: f"http://{host}")
    patch(settings, "moto_server_port", lambda: str(port))
    try:
        yield moto
    finally:
        moto.reset()
        server.stop()


def _placeholder_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("placeholder.py", "# the rehearsal never runs this code on moto\n")
    return buf.getvalue()


def site_artifact(workdir: Path) -> tuple[Path, str]:
    """The built site deployer, or (no `make build` yet) the same layout assembled as the
    Makefile's build-SiteDeployFunction does, with the venv's packages. Returns it and which."""
    if (BUILT_SITE / "sitedeploy" / "handler.py").exists():
        return BUILT_SITE, "built (.aws-sam/build/SiteDeployFunction)"
    art = workdir / ".aws-sam" / "build" / "SiteDeployFunction"  # under a hidden folder, as built
    shutil.copytree(ROOT / "functions" / "sitedeploy", art / "sitedeploy")
    from local import webbuild  # the built client (`make web`), as the Makefile ships it

    shutil.copytree(webbuild.built(), art / "web")
    return art, "assembled from functions/sitedeploy and build/web (no .aws-sam/build: run `make build`)"


def run_site_deployer(artifact: Path, event: dict, moto: Moto, region: str, version: str) -> str:
    """Run the artifact's handler on `event` in its own process (its own packages first on the
    path, as /var/task is on Lambda), against moto; returns its log."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "POWERTOOLS_"))},
        "AWS_ENDPOINT_URL": moto.endpoint, "AWS_DEFAULT_REGION": region,
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_LAMBDA_FUNCTION_VERSION": version, "LAMBDA_TASK_ROOT": str(artifact),
        "POWERTOOLS_SERVICE_NAME": "rehearsal",
    }  # fmt: skip
    code = (
        "import json, sys\n"
        f"sys.path[:0] = [{str(artifact)!r}, {str(ROOT)!r}]\n"
        "from sitedeploy import handler\n"
        "from local.lambda_runtime import LambdaContext\n"
        # 15 minutes, not the template's 120 s: a loaded machine must not trip the time guard
        # here (tests/functions/test_site_deploy.py tests the guard)
        "handler.handler(json.load(sys.stdin), LambdaContext(function_name='site-deploy', memory_limit_in_mb=256,"
        " timeout_ms=900_000))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(event), env=env, capture_output=True,
                          text=True, timeout=900, check=False)  # fmt: skip
    if done.returncode:
        raise RehearsalFailed(f"the site deployer raised: {done.stderr[-2000:]}")
    return done.stdout + done.stderr


def _check_published(s3: Any, bucket: str) -> list[str]:
    keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
            for o in page.get("Contents") or []]  # fmt: skip
    problems = []
    for key in ("index.html", "sw.js", "manifest.webmanifest", "config.json"):
        if key not in keys:
            problems.append(f"/{key} is not at the site's root")
        elif s3.head_object(Bucket=bucket, Key=key).get("CacheControl") != "no-cache":
            problems.append(f"/{key} may be cached")
    versioned = [k for k in keys if k.startswith("v/")]
    if not versioned:
        problems.append("no versioned assets under v/<release>/")
    for key in versioned[:5] + [k for k in versioned if k.endswith("js/app.js")]:
        if s3.head_object(Bucket=bucket, Key=key).get("CacheControl") != IMMUTABLE:
            problems.append(f"/{key} is not immutable")
    stray = [k for k in keys if not k.startswith("v/") and k not in ("index.html", "sw.js", "manifest.webmanifest",
                                                                        "config.json")]  # fmt: skip
    if stray:
        problems.append(f"files outside v/<release>/ besides the entry points: {stray[:5]}")
    return problems


def _status(cf: Any, stack: str) -> str:
    return cf.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"]


_translated: dict[tuple[str, str], dict] = {}
_linted: dict[str, list[str]] = {}


def translated_for(env: Environment, template: Path) -> dict:
    """translate(), once per template text and environment (the deliberate-break tests rehearse
    the same template again with another handler)."""
    key = (env.name, template.read_text())
    if key not in _translated:
        _translated[key] = translate(env, template)
    return json.loads(json.dumps(_translated[key]))


def linted(translated: dict, region: str) -> list[str]:
    key = json.dumps(translated, sort_keys=True)
    if key not in _linted:
        _linted[key] = lint(translated, region)
    return _linted[key]


def parameter_problems(template: Path, overrides: dict[str, str]) -> list[str]:
    """What CloudFormation refuses before it creates anything: a parameter value outside its
    `AllowedValues`, `AllowedPattern`, `MinValue`/`MaxValue` (defaults included)."""
    import re

    from local import template as tpl

    problems = []
    for name, spec in (tpl.load(template).get("Parameters") or {}).items():
        value = str(overrides.get(name, spec.get("Default", "")))
        allowed = spec.get("AllowedValues")
        if allowed is not None and value not in [str(v) for v in allowed]:
            problems.append(f"{name}={value!r} is not one of {allowed}")
        if "AllowedPattern" in spec and not re.fullmatch(spec["AllowedPattern"], value):
            problems.append(f"{name}={value!r} does not match {spec['AllowedPattern']}")
        if spec.get("Type") == "Number":
            for key, ok in (("MinValue", lambda v, b: v >= b), ("MaxValue", lambda v, b: v <= b)):
                if key in spec and not ok(float(value), float(spec[key])):
                    problems.append(f"{name}={value} is outside its {key} {spec[key]}")
    return problems


def rehearse(name: str, patch: Callable[[Any, str, Any], None], template: Path = TEMPLATE,
             site: Path | None = None, say: Callable[[str], None] = lambda line: None,
             overrides: dict[str, str] | None = None) -> None:  # fmt: skip
    """The whole rehearsal for one environment (`overrides`: parameter values on top of its
    samconfig's, as `--parameter-overrides` adds them: `WafRateLimit` rehearses the web ACL);
    raises RehearsalFailed at the first finding. cfn-lint runs last: it is the slowest step,
    and a finding of moto's needs no lint."""
    from ops import checks

    env = environment(name)
    env.overrides.update(overrides or {})
    refused = parameter_problems(template, env.overrides)
    if refused:
        raise RehearsalFailed(f"{name}: CloudFormation refuses the parameters: " + "; ".join(refused))
    translated = translated_for(env, template)
    say(f"{name}: translated, {len(translated['Resources'])} resources")
    problems = checks.topic_key_problems(translated) + checks.alarm_metric_problems(translated)
    if problems:
        raise RehearsalFailed(f"{name}: template semantics (ops/checks.py): " + "; ".join(problems))
    say(f"{name}: alarm topic key and alarm metrics as AWS publishes them")
    with tempfile.TemporaryDirectory() as work, moto_server(patch) as moto:
        artifact, which = (site, "given") if site else site_artifact(Path(work))
        on_moto(env, translated, moto, artifact, which, say)
    found = linted(translated, env.region)
    if found:
        raise RehearsalFailed(f"{name}: cfn-lint on the translated template:\n  " + "\n  ".join(found))
    say(f"{name}: cfn-lint clean on the translated template")


def on_moto(env: Environment, translated: dict, moto: Moto, artifact: Path, which: str,
            say: Callable[[str], None]) -> None:  # fmt: skip
    """Create the stack, run the site deployer on its custom resource, check the site, delete."""
    name = env.name
    s3 = moto.client("s3", env.region)
    s3.create_bucket(Bucket=ARTIFACTS)
    for key in {res["Properties"].get("Code", res["Properties"].get("Content", {})).get("S3Key")
                for res in translated["Resources"].values()
                if res["Type"] in ("AWS::Lambda::Function", "AWS::Lambda::LayerVersion")} - {None}:  # fmt: skip
        s3.put_object(Bucket=ARTIFACTS, Key=key, Body=_placeholder_zip())
    cf = moto.client("cloudformation", env.region)
    try:
        stack_id = cf.create_stack(StackName=env.stack_name, TemplateBody=json.dumps(translated),
                                   Capabilities=["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"])["StackId"]  # fmt: skip
    except Exception as exc:  # noqa: BLE001 - what CloudFormation (moto) refused is the finding
        if moto.unmodelled:
            raise RehearsalFailed(
                f"{name}: moto cannot model {sorted(set(moto.unmodelled))}: list each in ops/rehearsal.py "
                "STUBBED with what a real account must show for it"
            ) from exc
        raise RehearsalFailed(f"{name}: create_stack failed: {type(exc).__name__}: {str(exc)[:1500]}") from exc
    try:
        _, event = moto.requests.get(timeout=30)
    except queue.Empty:
        raise RehearsalFailed(f"{name}: CloudFormation never called the site deployer") from None
    version = str(event["ResourceProperties"].get("Release", "")).rsplit(":", 1)[-1]
    log = run_site_deployer(artifact, event, moto, env.region, version)
    status = _status(cf, stack_id)
    if status != "CREATE_COMPLETE":
        raise RehearsalFailed(f"{name}: the stack is {status} after the site deployer ran ({which}):\n{log[-3000:]}")
    say(f"{name}: stack created, the site deployer ({which}) answered SUCCESS")
    outputs = {o["OutputKey"]: o["OutputValue"]
               for o in cf.describe_stacks(StackName=stack_id)["Stacks"][0].get("Outputs", [])}  # fmt: skip
    bucket, table = outputs["WebBucketName"], outputs["TableName"]
    problems = _check_published(s3, bucket)
    if problems:
        raise RehearsalFailed(f"{name}: the published site: " + "; ".join(problems))
    say(f"{name}: /sw.js, the manifest, index.html and config.json at the root (no-cache); assets immutable")

    delete = {**event, "RequestType": "Delete", "PhysicalResourceId": bucket, "RequestId": "rehearsal-delete"}
    delete.pop("ResourceProperties", None)  # a Delete needs nothing but its physical id
    run_site_deployer(artifact, delete, moto, env.region, version)
    left = s3.list_objects_v2(Bucket=bucket).get("KeyCount", 0)
    if left:
        raise RehearsalFailed(f"{name}: the site deployer's Delete left {left} objects (the bucket cannot go)")
    cf.delete_stack(StackName=stack_id)
    status = _status(cf, stack_id)
    if status != "DELETE_COMPLETE":
        raise RehearsalFailed(f"{name}: the stack is {status} after delete_stack")
    tables = moto.client("dynamodb", env.region).list_tables()["TableNames"]
    keeps = env.overrides.get("TableProtection") == "true"
    if keeps != (table in tables):
        raise RehearsalFailed(f"{name}: after delete the table is {'kept' if table in tables else 'gone'}; "
                              f"TableProtection={env.overrides.get('TableProtection')}")  # fmt: skip
    say(f"{name}: stack deleted; the table {'kept' if keeps else 'deleted with it'}")


def main(argv: list[str]) -> int:
    names = argv or list(ENVIRONMENTS)
    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, attr: str, value: Any) -> None:
        saved.append((owner, attr, getattr(owner, attr)))
        setattr(owner, attr, value)

    try:
        for name in names:
            rehearse(name, patch, say=print)
            for owner, attr, value in reversed(saved):
                setattr(owner, attr, value)
            saved.clear()
    except RehearsalFailed as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
