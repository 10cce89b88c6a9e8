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

The update path (`rehearse_update`): the previous release (`PREVIOUS`: its template.yaml,
samconfig.toml and site deployer from git, its code other objects) created on moto, its client
published and a game in flight per preset stored as its handlers stored them
(tests/functions/golden/), then updated to this release as CloudFormation runs an update: the
table's change checked against what one UpdateTable may do (ops/table_update.py) and applied
so, the site published after every function, route and stage (ops/release_order.py, statically
and in the order the update ran), each added or changed resource after what it depends on, the
site deployer's Update answered and the new client alone published; the rooms read by this
release's code (their versions migrated); then the rollback's Update (the old properties),
handed to the old version, which publishes the old client again.

    python -m ops.rehearsal [dev|prod ...]      # create, then update; prints each step; exit 1 on the first failure
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import io
import json
import logging
import os
import queue
import re
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
    "AWS::CloudFront::OriginRequestPolicy": "what /api/rooms forwards (the viewer address, the content type)",
    "AWS::CloudFront::ResponseHeadersPolicy": "the security headers",
    "AWS::CloudWatch::Alarm": "the alarms (their metrics: ops/checks.py)",
    "AWS::Lambda::Alias": "the site deployer's alias",
    "AWS::S3::BucketPolicy": "the bucket policy (OAC, TLS only)",
    "AWS::SNS::Subscription": "the alarm e-mail subscription",
    "AWS::SNS::TopicPolicy": "CloudWatch publishing to the alarm topic",
    "AWS::Scheduler::ScheduleGroup": "the phase timers' schedule group",
    "AWS::SecretsManager::Secret": "the origin secret CloudFront adds to REST requests (its dynamic references)",
    "AWS::WAFv2::WebACL": "the web ACLs: on CloudFront (created in us-east-1) and on the REST stage (WafRateLimit > 0)",
    "AWS::WAFv2::WebACLAssociation": "the REST stage's web ACL (only requests through the distribution)",
}
# Modelled by moto, but not as AWS answers: corrected here, each with its reason.
CORRECTED = {
    "AWS::CloudFormation::CustomResource": "moto models only Custom::<Name>; the same model serves",
    "AWS::Lambda::Version": "moto's Ref is the logical id; AWS returns the version's ARN",
    "AWS::Lambda::Function (update)": "moto's Ref of a layer is its model (an update's Layers fail); AWS gives its ARN",
    "AWS::DynamoDB::Table": "moto cannot update a table; the update makes one UpdateTable as DynamoDB allows",
    "AWS::CloudFormation::CustomResource (update)": "moto sends a Create only; an update sends Update with the old properties",
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


def translate(env: Environment, template: Path = TEMPLATE, bucket: str = ARTIFACTS) -> dict:
    """The template as CloudFormation would run it for `env` (ops/translate.py), its code in
    `bucket` (another release's artifacts are other objects: another bucket here)."""
    if not SAM_PYTHON.exists():
        raise RehearsalFailed(f"no {SAM_PYTHON}: `make install-sam` installs the SAM CLI's venv")
    done = subprocess.run(
        [str(SAM_PYTHON), "-m", "ops.translate", str(template), json.dumps(env.overrides), bucket, env.region],
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

        @classmethod
        def update_from_cloudformation_json(cls, original_resource, new_resource_name, cloudformation_json,  # type: ignore[override]
                                            account_id, region_name):  # fmt: skip
            return original_resource  # nothing to change: its Ref and attributes stay

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


def _table_model() -> type:
    from moto.dynamodb.models import dynamodb_backends
    from moto.dynamodb.models.table import Table

    class UpdatedTable(Table):
        """AWS::DynamoDB::Table updated as CloudFormation does it, in one UpdateTable: at most one
        global secondary index created or deleted (DynamoDB refuses more; moto would apply them
        all), the key schema never (that is a replacement: every room lost). moto has no update
        for a table (CORRECTED)."""

        __module__ = "ops.rehearsal"

        @classmethod
        def update_from_cloudformation_json(cls, original_resource, new_resource_name, cloudformation_json,  # type: ignore[override]
                                            account_id, region_name):  # fmt: skip
            props = cloudformation_json["Properties"]
            table = original_resource
            if props["KeySchema"] != table.schema:
                raise RehearsalFailed(f"the update replaces table {table.name}: its key schema changes")
            old = {ix.name for ix in table.global_indexes}
            new = {ix["IndexName"]: ix for ix in props.get("GlobalSecondaryIndexes") or []}
            changes = [{"Create": new[n]} for n in sorted(set(new) - old)]
            changes += [{"Delete": {"IndexName": n}} for n in sorted(old - set(new))]
            if len(changes) > 1:
                raise RehearsalFailed(f"UpdateTable of {table.name} refused: {len(changes)} global secondary "
                                      "index changes in one update (DynamoDB takes one)")  # fmt: skip
            dynamodb_backends[account_id][region_name].update_table(
                name=table.name, attr_definitions=props.get("AttributeDefinitions"), global_index=changes,
                throughput=None, billing_mode=None, stream_spec=None,
                deletion_protection_enabled=props.get("DeletionProtectionEnabled") in (True, "true"),
                warm_throughput=None,
            )  # fmt: skip
            return table

    return UpdatedTable


def _custom_model(moto: Moto) -> type:
    from moto.cloudformation import custom_model

    class Custom(custom_model.CustomModel):
        """A custom resource that keeps its properties, for an update's request: moto sends a
        Create only (CORRECTED). An update sends `Update` with the new properties, the old ones
        (`OldResourceProperties`) and the physical id the resource answered, as CloudFormation does."""

        __module__ = "ops.rehearsal"

        @classmethod
        def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):  # type: ignore[override]  # noqa: E501
            made = super().create_from_cloudformation_json(resource_name, cloudformation_json, account_id,
                                                           region_name, **kwargs)  # fmt: skip
            made.properties = cloudformation_json["Properties"]
            made.stack_id = kwargs["StackId"]
            return made

        @classmethod
        def update_from_cloudformation_json(cls, original_resource, new_resource_name, cloudformation_json,  # type: ignore[override]
                                            account_id, region_name):  # fmt: skip
            from moto.awslambda.utils import get_backend

            props = cloudformation_json["Properties"]
            res = original_resource
            answered = [a for a in moto.answers if a.get("LogicalResourceId") == res.logical_id]
            event = {
                "RequestType": "Update", "ServiceToken": props["ServiceToken"],
                "ResponseURL": f"{moto.endpoint}/cloudformation_{region_name}/cfnresponse?stack={res.stack_id}",
                "StackId": res.stack_id, "RequestId": f"rehearsal-update-{len(moto.answers)}",
                "LogicalResourceId": res.logical_id, "ResourceType": cloudformation_json["Type"],
                "PhysicalResourceId": answered[-1]["PhysicalResourceId"] if answered else res.physical_resource_id,
                "ResourceProperties": props, "OldResourceProperties": res.properties,
            }  # fmt: skip
            get_backend(account_id, region_name).get_function(props["ServiceToken"]).invoke(json.dumps(event), {}, {})
            res.properties = props
            return res

    return Custom


@dataclass
class Moto:
    """A moto server on 127.0.0.1 and the custom-resource requests its CloudFormation made."""

    endpoint: str
    requests: queue.Queue = field(default_factory=queue.Queue)
    unmodelled: list[str] = field(default_factory=list)  # types moto met that are not in STUBBED
    answers: list[dict] = field(default_factory=list)  # the custom resources' answers (ResponseURL)
    updated: list[str] = field(default_factory=list)  # the resources an update changed, in order

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
    from moto.cloudformation import parsing
    from moto.server import ThreadedMotoServer

    for service in ("apigateway", "apigatewayv2", "awslambda", "cloudfront", "cloudwatch", "dynamodb", "iam",
                    "kms", "logs", "s3", "scheduler", "sns", "sqs"):  # fmt: skip
        importlib.import_module(f"moto.{service}.models")  # every model moto has, before it lists them
    for cached in (parsing.get_model_list, parsing.get_model_map, parsing.get_name_type_map):
        cached.cache_clear()  # a list made before those imports would miss their models
    from moto.cloudformation.responses import CloudFormationResponse

    stub, version, table = _stub_model(), _version_model(), _table_model()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    moto = Moto(f"http://{host}:{port}")
    moto.reset()  # moto's backends live in this process: nothing of an earlier rehearsal stays
    custom = _custom_model(moto)

    known = parsing.resource_class_from_type

    def resource_class(resource_type: str) -> Any:
        if resource_type in STUBBED:
            return stub
        if resource_type == "AWS::CloudFormation::CustomResource" or resource_type.startswith("Custom::"):
            return custom
        if resource_type == "AWS::DynamoDB::Table":
            return table
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

    def answer(self: Any) -> Any:
        """A custom resource's answer on its ResponseURL: noted, then moto's own handling."""
        moto.answers.append({k: self._get_param(k) for k in ("Status", "Reason", "PhysicalResourceId",
                                                               "LogicalResourceId", "RequestId", "Data")})  # fmt: skip
        return answered(self)

    answered = CloudFormationResponse.process_cfn_response
    diff = parsing.ResourceMap.build_resource_diff
    update_one = parsing.parse_and_update_resource

    def update_in_order(self: Any, template: dict, parameters: Any = None) -> None:
        """A stack update as CloudFormation runs it: each added or changed resource after what
        it depends on (ops/release_order.py), then the removed ones (its cleanup). moto's own
        removes first, then adds everything, then changes in the template's order: a new
        function version before its function's new code, the site before the functions."""
        from ops import release_order

        plan = diff(self, template, parameters)
        old = self._resource_json_map
        self._template = template
        if parameters:
            self.input_parameters = parameters
        self.load_mapping()
        self.load_parameters()
        self.load_conditions()
        self._resource_json_map = template["Resources"]
        for logical_id in release_order.order(template):
            if logical_id in plan["Add"]:
                if self[logical_id] is not None:
                    moto.updated.append(logical_id)
            elif logical_id in plan["Modify"]:
                changed = parsing.parse_and_update_resource(logical_id, template["Resources"][logical_id], self,
                                                            account_id=self._account_id, region_name=self._region_name)  # fmt: skip
                if changed is not None:
                    self._parsed_resources[logical_id] = changed
        for logical_id in plan["Remove"]:
            gone = self._parsed_resources.pop(logical_id, None)
            if gone is not None:
                self._delete_resource(gone, old[logical_id])

    def update_resource(logical_id: str, resource_json: dict, resources_map: Any, **kwargs: Any) -> Any:
        condition = resource_json.get("Condition")
        if condition and not resources_map.lazy_condition_map[condition]:
            return None  # not in the stack (its condition is false): nothing to update
        try:
            done = update_one(logical_id, resource_json, resources_map, **kwargs)
        except AttributeError as exc:  # a model whose update answers nothing
            raise RehearsalFailed(f"moto cannot update {logical_id}: {exc}") from exc
        moto.updated.append(logical_id)
        return done

    patch(parsing, "resource_class_from_type", resource_class)
    function_update = lambda_models.LambdaFunction.update_from_cloudformation_json

    def update_function(cls: Any, original_resource: Any, new_resource_name: str, cloudformation_json: dict,
                        account_id: str, region_name: str) -> Any:  # fmt: skip
        props = cloudformation_json["Properties"]
        props["Layers"] = [getattr(layer, "arn", layer) for layer in props.get("Layers") or []]
        return function_update(original_resource, new_resource_name, cloudformation_json, account_id, region_name)

    patch(lambda_models.LambdaFunction, "update_from_cloudformation_json", classmethod(update_function))
    patch(CloudFormationResponse, "process_cfn_response", answer)
    patch(parsing.ResourceMap, "update", update_in_order)
    patch(parsing, "parse_and_update_resource", update_resource)
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


_translated: dict[tuple[str, str, str, str], dict] = {}
_linted: dict[str, list[str]] = {}


def translated_for(env: Environment, template: Path, bucket: str = ARTIFACTS) -> dict:
    """translate(), once per template text, environment and bucket (the deliberate-break tests
    rehearse the same template again with another handler)."""
    key = (env.name, json.dumps(env.overrides, sort_keys=True), template.read_text(), bucket)
    if key not in _translated:
        _translated[key] = translate(env, template, bucket)
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


# ---- the update path: the previous release deployed, then updated to this one
PREVIOUS = "b208b0a"  # the release a deploy of this one updates (its golden rooms: tests/functions/golden/)
PREVIOUS_ARTIFACTS = "rehearsal-artifacts-previous"  # its code: other objects than this release's
GOLDEN = ROOT / "tests" / "functions" / "golden"
GOLDEN_PHASE = "night"
_RELEASE = re.compile(r'src="/v/([0-9a-f]+)/')


def git_show(rev: str, path: str) -> str:
    """A file as the release `rev` had it (the git history: a full clone)."""
    done = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    if done.returncode:
        raise RehearsalFailed(f"no {path} of release {rev} in the git history (a shallow clone?): {done.stderr.strip()}")
    return done.stdout


def previous_site(artifact: Path, rev: str, workdir: Path) -> Path:
    """The previous release's site deployer: its handler (from git), beside a client that is
    another release (its index.html marked), in the layout `sam build` makes."""
    old = workdir / "previous" / ".aws-sam" / "build" / "SiteDeployFunction"
    shutil.copytree(artifact, old, ignore=shutil.ignore_patterns("__pycache__"))
    (old / "sitedeploy" / "handler.py").write_text(git_show(rev, "functions/sitedeploy/handler.py"))
    index = old / "web" / "index.html"
    index.write_text(index.read_text() + f"<!-- release {rev} -->\n")
    return old


def published_release(s3: Any, bucket: str) -> str:
    """The release the site's index.html loads (its v/<release>/ entry script)."""
    html = s3.get_object(Bucket=bucket, Key="index.html")["Body"].read().decode()
    found = _RELEASE.search(html)
    return found.group(1) if found else ""


def _upload_placeholders(s3: Any, bucket: str, translated: dict) -> None:
    s3.create_bucket(Bucket=bucket)
    for key in {res["Properties"].get("Code", res["Properties"].get("Content", {})).get("S3Key")
                for res in translated["Resources"].values()
                if res["Type"] in ("AWS::Lambda::Function", "AWS::Lambda::LayerVersion")} - {None}:  # fmt: skip
        s3.put_object(Bucket=bucket, Key=key, Body=_placeholder_zip())


def read_rooms(moto: Moto, region: str, table: str, docs: list[dict]) -> list[dict]:
    """This release's read path (service/infra/migrations.py) on each stored room, in a process
    of its own with this release's functions and engine on the path: each room's versions and
    phase as read."""
    code = (
        "import json, sys, boto3\n"
        "from service.infra import migrations, storage\n"
        "args = json.load(sys.stdin)\n"
        "db = boto3.client('dynamodb', endpoint_url=args['endpoint'], region_name=args['region'],"
        " aws_access_key_id='testing', aws_secret_access_key='testing')\n"
        "out = []\n"
        "for key in args['keys']:\n"
        "    item = db.get_item(TableName=args['table'], Key=key, ConsistentRead=True)['Item']\n"
        "    doc = migrations.upgrade(storage.decode(item['data']['B']))\n"
        "    state = doc.get('state')\n"
        "    out.append({'room': doc['room'].get('v'), 'state': state and state.get('v'),"
        " 'phase': state and state['phase']['kind'], 'current': [migrations.ROOM_VERSION, migrations.me.STATE_VERSION]})\n"
        "print(json.dumps(out))\n"
    )
    keys = [{k: doc["item"][k] for k in ("pk", "sk")} for doc in docs]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "functions"), str(ROOT / "layers" / "engine")])
    args = {"endpoint": moto.endpoint, "region": region, "table": table, "keys": keys}
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(args), env=env, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip
    if done.returncode:
        raise RehearsalFailed(f"this release could not read the previous release's rooms: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def rehearse_update(name: str, patch: Callable[[Any, str, Any], None], template: Path = TEMPLATE,
                    previous: str = PREVIOUS, site: Path | None = None,
                    say: Callable[[str], None] = lambda line: None) -> dict:  # fmt: skip
    """The update path for one environment: the previous release (`previous`: its template,
    samconfig.toml and site deployer from git) created on moto with its client published and
    its golden rooms stored, then updated to this release as CloudFormation would (each
    resource after what it depends on; the table by at most one index; the site deployer's
    Update, its answer and what it published), the rooms read by this release's code, the
    rollback's Update (the old properties: the old client again). Returns what it saw: the
    resources the update changed in the order it changed them (`updated`), the two clients
    (`releases`), the rooms as read (`rooms`)."""
    from local import template as tpl
    from ops import release_order, table_update

    env = environment(name)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "template.yaml").write_text(git_show(previous, "template.yaml"))
        (work / "samconfig.toml").write_text(git_show(previous, "samconfig.toml"))
        old_env = environment(name, work / "samconfig.toml")
        before = translated_for(old_env, work / "template.yaml", PREVIOUS_ARTIFACTS)
        after = translated_for(env, template)
        say(f"{name}: {previous} and this release translated")
        found = table_update.problems(*(
            {k: v for k, v in tpl.table_definition(t).items() if k != "_ttl"} for t in (before, after)))  # fmt: skip
        if found:
            raise RehearsalFailed(f"{name}: the table's update from {previous} (ops/table_update.py): " + "; ".join(found))
        found = release_order.site_order_problems(after)
        if found:
            raise RehearsalFailed(f"{name}: the site's order (ops/release_order.py): " + "; ".join(found))
        say(f"{name}: the table changes as one update may; the site publishes after the functions")
        with moto_server(patch) as moto:
            new_site, which = (site, "given") if site else site_artifact(work)
            old_site = previous_site(new_site, previous, work)
            seen = update_on_moto(env, before, after, moto, old_site, new_site, previous, say)
    say(f"{name}: updated from {previous} and rolled back (the site deployer {which})")
    return seen


def _version_of(event: dict) -> str:
    return str(event["ResourceProperties"].get("Release", "")).rsplit(":", 1)[-1]


def _site_answer(moto: Moto, request: dict) -> dict:
    found = [a for a in moto.answers if a["RequestId"] == request["RequestId"]]
    if not found:
        raise RehearsalFailed(f"the site deployer never answered the {request['RequestType']}")
    return found[-1]


def update_on_moto(env: Environment, before: dict, after: dict, moto: Moto, old_site: Path, new_site: Path,
                   previous: str, say: Callable[[str], None]) -> dict:  # fmt: skip
    from ops import release_order

    name = env.name
    s3 = moto.client("s3", env.region)
    _upload_placeholders(s3, PREVIOUS_ARTIFACTS, before)
    _upload_placeholders(s3, ARTIFACTS, after)
    cf = moto.client("cloudformation", env.region)
    caps = ["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"]
    try:
        stack_id = cf.create_stack(StackName=env.stack_name, TemplateBody=json.dumps(before), Capabilities=caps)["StackId"]
    except Exception as exc:  # noqa: BLE001 - what CloudFormation (moto) refused is the finding
        raise RehearsalFailed(f"{name}: {previous}'s create_stack failed: {type(exc).__name__}: {str(exc)[:1500]}") from exc
    _, created = moto.requests.get(timeout=30)
    old_version = _version_of(created)
    log = run_site_deployer(old_site, created, moto, env.region, old_version)
    if _status(cf, stack_id) != "CREATE_COMPLETE":
        raise RehearsalFailed(f"{name}: {previous}'s stack is {_status(cf, stack_id)}:\n{log[-3000:]}")
    outputs = {o["OutputKey"]: o["OutputValue"] for o in cf.describe_stacks(StackName=stack_id)["Stacks"][0]["Outputs"]}
    bucket, table = outputs["WebBucketName"], outputs["TableName"]
    old_release = published_release(s3, bucket)
    # a game in flight per preset, as that release's handlers stored it (its other phases share
    # the room's key; tests/functions/test_room_upgrades.py plays each to its end)
    docs = [json.loads(p.read_text()) for p in sorted((GOLDEN / previous).glob(f"*-{GOLDEN_PHASE}.json"))]
    if not docs:
        raise RehearsalFailed(f"{name}: no golden rooms of {previous} in {GOLDEN / previous}")
    db = moto.client("dynamodb", env.region)
    for doc in docs:  # each room as that release's handlers stored it
        item = {k: ({"B": base64.b64decode(v["B"])} if "B" in v else v) for k, v in doc["item"].items()}
        db.put_item(TableName=table, Item=item)
    say(f"{name}: {previous} created, its client {old_release} published, {len(docs)} of its rooms stored")

    moto.updated.clear()
    try:
        cf.update_stack(StackName=stack_id, TemplateBody=json.dumps(after), Capabilities=caps)
    except Exception as exc:  # noqa: BLE001 - what the update refused is the finding
        if moto.unmodelled:
            raise RehearsalFailed(f"{name}: moto cannot model {sorted(set(moto.unmodelled))}: list each in "
                                  "ops/rehearsal.py STUBBED") from exc  # fmt: skip
        raise RehearsalFailed(f"{name}: update_stack from {previous} failed: {type(exc).__name__}: {str(exc)[:1500]}") from exc
    if _status(cf, stack_id) != "UPDATE_COMPLETE":
        raise RehearsalFailed(f"{name}: the stack is {_status(cf, stack_id)} after the update")
    try:  # asked during update_stack (the Custom model invokes at once)
        _, update = moto.requests.get(timeout=5)
    except queue.Empty:
        raise RehearsalFailed(f"{name}: the update never called the site deployer (its Release did not change?)") from None
    new_version = _version_of(update)
    if update["RequestType"] != "Update" or new_version == old_version:
        raise RehearsalFailed(f"{name}: the site deployer got {update['RequestType']} for version {new_version}")
    log = run_site_deployer(new_site, update, moto, env.region, new_version)
    answer = _site_answer(moto, update)
    if answer["Status"] != "SUCCESS" or answer["PhysicalResourceId"] != bucket:
        raise RehearsalFailed(f"{name}: the site deployer's Update answered {answer}:\n{log[-3000:]}")
    problems = _check_published(s3, bucket)
    new_release = published_release(s3, bucket)
    stale = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix=f"v/{old_release}/").get("Contents") or []]
    if new_release == old_release:
        problems.append(f"the site still loads {old_release}")
    if stale:
        problems.append(f"{len(stale)} objects of {old_release} left after the update")
    if problems:
        raise RehearsalFailed(f"{name}: the updated site: " + "; ".join(problems))
    serving = [n for n in moto.updated if after["Resources"][n]["Type"] in release_order.SERVING]
    site_at = moto.updated.index(release_order.SITE) if release_order.SITE in moto.updated else -1
    late = [n for n in serving if moto.updated.index(n) > site_at]
    if site_at < 0 or late:
        raise RehearsalFailed(f"{name}: the update published the site before {late or 'anything'} changed "
                              f"(the order: {moto.updated})")  # fmt: skip
    say(f"{name}: updated: {len(moto.updated)} resources changed, the site ({new_release}) after {len(serving)} "
        "functions, routes and stages")  # fmt: skip

    read = read_rooms(moto, env.region, table, docs)
    wrong = [f"{doc['preset']}-{doc['phase']}: {got}" for doc, got in zip(docs, read, strict=True)
             if got["room"] != got["current"][0] or (doc["phase"] != "lobby" and (
                 got["state"] != got["current"][1] or got["phase"] != doc["phase"]))]  # fmt: skip
    if wrong:
        raise RehearsalFailed(f"{name}: rooms {previous} stored, as this release reads them: " + "; ".join(wrong))
    say(f"{name}: the {len(docs)} rooms {previous} stored read by this release (room v{read[0]['current'][0]}, "
        f"state v{read[0]['current'][1]})")  # fmt: skip

    # the rollback: CloudFormation sends the custom resource an Update with the old properties
    rollback = {**update, "RequestId": "rehearsal-rollback", "PhysicalResourceId": bucket,
                "ResourceProperties": update["OldResourceProperties"], "OldResourceProperties": update["ResourceProperties"]}  # fmt: skip
    run_site_deployer(new_site, rollback, moto, env.region, new_version)
    try:  # invoked before the deployer's process ended
        target, handed = moto.requests.get(timeout=5)
    except queue.Empty:
        raise RehearsalFailed(f"{name}: the rollback's Update was not handed to version {old_version}") from None
    if _version_of(handed) != old_version or not handed.get("ForwardedFrom"):
        raise RehearsalFailed(f"{name}: the rollback was handed to {target} for version {_version_of(handed)}")
    log = run_site_deployer(old_site, handed, moto, env.region, old_version)
    answer = _site_answer(moto, rollback)
    if answer["Status"] != "SUCCESS" or published_release(s3, bucket) != old_release:
        raise RehearsalFailed(f"{name}: the rollback answered {answer} and the site loads "
                              f"{published_release(s3, bucket)}, not {old_release}:\n{log[-3000:]}")  # fmt: skip
    say(f"{name}: the rollback's Update handed to version {old_version}, which published {old_release} again")
    return {"updated": list(moto.updated), "releases": (old_release, new_release), "rooms": read}

    # the stack's Delete is the create path's (on_moto); the server's reset ends this one


def main(argv: list[str]) -> int:
    names = argv or list(ENVIRONMENTS)
    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, attr: str, value: Any) -> None:
        saved.append((owner, attr, getattr(owner, attr)))
        setattr(owner, attr, value)

    try:
        for name in names:
            for step in (rehearse, rehearse_update):
                step(name, patch, say=print)
                for owner, attr, value in reversed(saved):
                    setattr(owner, attr, value)
                saved.clear()
    except RehearsalFailed as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
