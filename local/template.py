"""What the offline stack and the tests read from ``template.yaml``: the REST resources API
Gateway routes to the REST function, the WebSocket route keys, and the table (created in
moto from the template's own definition), so neither can drift from what ``sam deploy``
creates. Not part of the Lambda package: only ``local/``, ``tests/`` and ``bench/`` use it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

# PyYAML's LibYAML-based loader where it is built in (the wheels are): the same documents, parsed
# ~9x faster (the tests load the template many times: ~0.1 CPU-s a load in pure Python)
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CfnLoader(_SafeLoader):
    """A YAML loader that keeps CloudFormation short-form tags (``!Ref``, ``!Sub``...) as data."""


def _tag(loader: yaml.Loader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    return {name: value}


_CfnLoader.add_multi_constructor("!", _tag)


TEMPLATE = Path(__file__).resolve().parents[1] / "template.yaml"


def load(path: Path | str = TEMPLATE) -> dict:
    """The template as plain data (short-form tags become ``{"Ref": ...}`` / ``{"Fn::Sub": ...}``)."""
    with Path(path).open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_CfnLoader) or {}


@dataclass(frozen=True)
class RestResource:
    """One REST API resource + method, e.g. ``POST /rooms/{roomCode}/players``."""

    method: str  # upper case, or "ANY"
    path: str

    @property
    def pattern(self) -> re.Pattern[str]:
        out = ""
        for part in re.split(r"(\{[^}]+\})", self.path):
            if part.startswith("{") and part.endswith("+}"):
                out += f"(?P<{_group(part[1:-2])}>.+)"
            elif part.startswith("{"):
                out += f"(?P<{_group(part[1:-1])}>[^/]+)"
            else:
                out += re.escape(part)
        return re.compile(f"^{out}/?$")

    def match(self, path: str) -> dict[str, str] | None:
        m = self.pattern.match(path)
        if m is None:
            return None
        names = re.findall(r"\{([^}+]+)\+?\}", self.path)
        return {name: m.group(_group(name)) for name in names}


def _group(name: str) -> str:
    return re.sub(r"\W", "_", name)


def _resources(template: dict) -> dict[str, Any]:
    return template.get("Resources") or {}


def rest_resources(template: dict) -> tuple[RestResource, ...]:
    """The ``Type: Api`` events of every serverless function (the REST API's routes)."""
    found = []
    for resource in _resources(template).values():
        if not isinstance(resource, dict) or resource.get("Type") != "AWS::Serverless::Function":
            continue
        events = (resource.get("Properties") or {}).get("Events") or {}
        for event in events.values():
            if isinstance(event, dict) and event.get("Type") == "Api":
                props = event.get("Properties") or {}
                method = str(props.get("Method", "ANY")).upper()
                found.append(
                    RestResource(
                        "ANY" if method in ("ANY", "X-AMAZON-APIGATEWAY-ANY-METHOD") else method,
                        str(props.get("Path", "/")),
                    )
                )
    # Literal paths before parameterised ones, as API Gateway prefers the most specific.
    found.sort(key=lambda r: (r.path.count("+}"), r.path.count("{"), -len(r.path)))
    return tuple(found)


def ws_route_keys(template: dict) -> set[str]:
    """The WebSocket route keys declared in the template (``AWS::ApiGatewayV2::Route``)."""
    keys = set()
    for resource in _resources(template).values():
        if isinstance(resource, dict) and resource.get("Type") == "AWS::ApiGatewayV2::Route":
            key = (resource.get("Properties") or {}).get("RouteKey")
            if isinstance(key, str):
                keys.add(key)
    return keys


def parameter_defaults(template: dict) -> dict[str, Any]:
    """Each template parameter's ``Default`` (parameters without one are left out)."""
    params = template.get("Parameters") or {}
    return {name: p["Default"] for name, p in params.items() if isinstance(p, dict) and "Default" in p}


def parameter_environment(template: dict, overrides: dict[str, Any] | None = None) -> dict[str, str]:
    """The variables functions take from a parameter in their own ``Environment`` (``VAR:
    !Ref Param``, e.g. ``MAFIA_MAX_SPECTATORS: !Ref MaxSpectators``), valued as a deploy with
    ``overrides`` (parameter -> value; None keeps the default) would value them. The offline
    stack runs every handler in one environment, so the union over the functions is used."""
    values = {**parameter_defaults(template), **{k: v for k, v in (overrides or {}).items() if v is not None}}
    env: dict[str, str] = {}
    for resource in _resources(template).values():
        if not isinstance(resource, dict) or resource.get("Type") != "AWS::Serverless::Function":
            continue
        variables = ((resource.get("Properties") or {}).get("Environment") or {}).get("Variables") or {}
        for var, value in variables.items():
            if isinstance(value, dict) and set(value) == {"Ref"} and value["Ref"] in values:
                env[var] = str(values[value["Ref"]])
    return env


def table_properties(template: dict) -> dict:
    """The ``Properties`` of the template's one DynamoDB table."""
    tables = [
        r
        for r in _resources(template).values()
        if isinstance(r, dict) and r.get("Type") in ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable")
    ]
    if len(tables) != 1:
        raise ValueError(f"expected one DynamoDB table in template.yaml, found {len(tables)}")
    return tables[0].get("Properties") or {}


def table_definition(template: dict) -> dict:
    """``create_table`` arguments for the template's table, plus the TTL attribute name under
    ``"_ttl"`` (None when TTL is off)."""
    props = table_properties(template)
    args: dict[str, Any] = {
        "KeySchema": props["KeySchema"],
        "AttributeDefinitions": props["AttributeDefinitions"],
        "BillingMode": props.get("BillingMode", "PAY_PER_REQUEST"),
    }
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        indexes = [
            {k: ix[k] for k in ("IndexName", "KeySchema", "Projection") if k in ix}
            for ix in props.get(kind) or []
        ]
        if indexes:
            args[kind] = indexes
    ttl = props.get("TimeToLiveSpecification") or {}
    args["_ttl"] = ttl.get("AttributeName") if ttl.get("Enabled") not in (False, "false") else None
    return args


def create_table(client: Any, table_name: str, template: dict | None = None) -> str | None:
    """Create the room table exactly as the template defines it (keys, billing, TTL) through
    ``client`` (a boto3 DynamoDB client: moto in tests and the offline stack). Returns the
    TTL attribute name (or None)."""
    definition = table_definition(template if template is not None else load())
    client.create_table(
        TableName=table_name, **{k: v for k, v in definition.items() if not k.startswith("_")}
    )
    client.get_waiter("table_exists").wait(
        TableName=table_name, WaiterConfig={"Delay": 0.1, "MaxAttempts": 50}
    )
    if definition["_ttl"]:
        client.update_time_to_live(
            TableName=table_name,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": definition["_ttl"]},
        )
    return definition["_ttl"]
