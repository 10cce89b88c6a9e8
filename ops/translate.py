"""template.yaml as CloudFormation receives it after `sam package`, for the deploy rehearsal
(ops/rehearsal.py): the AWS::LanguageExtensions transform resolved for one set of parameter
values (a samconfig environment), every code location an S3 URI (what `sam package` writes),
then the AWS::Serverless-2016-10-31 transform run by aws-sam-translator.

It runs in the SAM CLI's venv (.venv-sam, requirements-sam.lock), whose aws-sam-translator is
the one `sam` uses: aws-sam-translator pins pydantic to a minor version the game's venv does
not have (docs/operations.md, "The deploy rehearsal").

    .venv-sam/bin/python -m ops.translate TEMPLATE PARAMS_JSON BUCKET REGION > translated.json

The language extensions are resolved only where this template uses them (DeletionPolicy and
UpdateReplacePolicy as `Fn::If` on a condition, or a `Ref` to a parameter); any other use
(Fn::ForEach, Fn::Length, Fn::ToJsonString, Fn::FindInMap defaults) stops with an error naming
it, so a template that starts using one is not rehearsed wrongly.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

UNSUPPORTED = ("Fn::ForEach", "Fn::Length", "Fn::ToJsonString")
POLICIES = ("DeletionPolicy", "UpdateReplacePolicy")
PSEUDO = {"AWS::Region": "us-east-1", "AWS::AccountId": "123456789012", "AWS::Partition": "aws"}


class Unsupported(ValueError):
    """A language extension this resolver does not implement."""


def parameter_values(tpl: dict, overrides: dict[str, str]) -> dict[str, Any]:
    """Every parameter's value: the override, else its default (a parameter with neither fails)."""
    values = {}
    for name, spec in (tpl.get("Parameters") or {}).items():
        if name in overrides:
            values[name] = overrides[name]
        elif "Default" in spec:
            values[name] = spec["Default"]
        else:
            raise ValueError(f"parameter {name} has no default and no value")
    unknown = set(overrides) - set(values)
    if unknown:
        raise ValueError(f"values for parameters the template does not have: {sorted(unknown)}")
    return values


def _value(node: Any, params: dict[str, Any], conditions: dict[str, Any]) -> Any:
    if isinstance(node, dict) and len(node) == 1:
        (fn, arg), = node.items()
        if fn == "Ref":
            if arg in params:
                return str(params[arg])
            if arg in PSEUDO:
                return PSEUDO[arg]
            raise Unsupported(f"Ref {arg}: not a parameter (a condition may compare parameters only)")
        if fn == "Fn::Equals":
            a, b = (_value(x, params, conditions) for x in arg)
            return str(a) == str(b)
        if fn == "Fn::Not":
            return not _value(arg[0], params, conditions)
        if fn == "Fn::And":
            return all(_value(x, params, conditions) for x in arg)
        if fn == "Fn::Or":
            return any(_value(x, params, conditions) for x in arg)
        if fn == "Condition":
            return condition(arg, params, conditions)
        if fn == "Fn::If":
            name, yes, no = arg
            return _value(yes if condition(name, params, conditions) else no, params, conditions)
        raise Unsupported(f"{fn} in a condition or a resource policy")
    return node


def condition(name: str, params: dict[str, Any], conditions: dict[str, Any]) -> bool:
    return bool(_value(conditions[name], params, conditions))


def _uses(node: Any, fn: str) -> bool:
    if isinstance(node, dict):
        return any(k.startswith(fn) or _uses(v, fn) for k, v in node.items())
    if isinstance(node, list):
        return any(_uses(v, fn) for v in node)
    return False


def resolve_language_extensions(tpl: dict, params: dict[str, Any]) -> dict:
    """The template as the AWS::LanguageExtensions transform hands it on (see the module's doc)."""
    transforms = tpl.get("Transform") or []
    transforms = [transforms] if isinstance(transforms, str) else list(transforms)
    if "AWS::LanguageExtensions" not in transforms:
        return tpl
    for fn in UNSUPPORTED:
        if _uses(tpl, fn):
            raise Unsupported(f"the template uses {fn}: resolve it in ops/translate.py before rehearsing")
    conditions = tpl.get("Conditions") or {}
    out = json.loads(json.dumps(tpl))
    for name, res in out.get("Resources", {}).items():
        for policy in POLICIES:
            if isinstance(res.get(policy), dict):
                res[policy] = _value(res[policy], params, conditions)
                if res[policy] not in ("Delete", "Retain", "Snapshot", "RetainExceptOnCreate"):
                    raise ValueError(f"{name}: {policy} resolves to {res[policy]!r}")
    transforms.remove("AWS::LanguageExtensions")
    out["Transform"] = transforms[0] if len(transforms) == 1 else transforms
    return out


def package(tpl: dict, bucket: str) -> dict:
    """Every function's and layer's code as an S3 URI `s3://BUCKET/<LogicalId>.zip`, as `sam package`
    writes them (after uploading what `sam build` made)."""
    out = json.loads(json.dumps(tpl))
    for name, res in out.get("Resources", {}).items():
        if res.get("Type") == "AWS::Serverless::Function":
            res.setdefault("Properties", {})["CodeUri"] = f"s3://{bucket}/{name}.zip"
        elif res.get("Type") == "AWS::Serverless::LayerVersion":
            res.setdefault("Properties", {})["ContentUri"] = f"s3://{bucket}/{name}.zip"
    out.get("Globals", {}).get("Function", {}).pop("CodeUri", None)
    return out


class _NoManagedPolicies:
    """SAM looks a policy name up among AWS managed policies only for a bare name; this
    template names its policies by Ref or statement, so nothing is looked up (no IAM call)."""

    def load(self) -> dict[str, str]:
        return {}


def translate(text: str, overrides: dict[str, str], bucket: str, region: str) -> dict:
    os.environ["AWS_DEFAULT_REGION"] = PSEUDO["AWS::Region"] = region  # the translator reads it
    from samtranslator.translator.transform import transform
    from samtranslator.yaml_helper import yaml_parse

    tpl = yaml_parse(text)
    params = parameter_values(tpl, overrides)
    resolved = package(resolve_language_extensions(tpl, params), bucket)
    return transform(resolved, {**params, **PSEUDO}, _NoManagedPolicies())


def main(argv: list[str]) -> int:
    path, overrides, bucket, region = argv
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        out = translate(text, json.loads(overrides), bucket, region)
    except Exception as exc:  # noqa: BLE001 - the translator's errors are the rehearsal's finding
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
