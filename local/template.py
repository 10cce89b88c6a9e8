"""What the offline stack reads from ``template.yaml``: the REST resources API Gateway
routes to the REST function, the WebSocket route keys, and the table's schema, so the
local stack cannot drift from what ``sam deploy`` creates."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


class _CfnLoader(yaml.SafeLoader):
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


def load(path: Path) -> dict:
    """The template as plain data ({} when it does not exist yet)."""
    if not path.exists():
        return {}
    with path.open(encoding="utf-8") as fh:
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


# Used until template.yaml lists the REST events: the paths of docs/protocol.md.
FALLBACK_REST = (
    RestResource("POST", "/rooms"),
    RestResource("ANY", "/rooms/{roomCode}"),
    RestResource("POST", "/rooms/{roomCode}/players"),
    RestResource("ANY", "/{proxy+}"),
)


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
                found.append(RestResource("ANY" if method in ("ANY", "X-AMAZON-APIGATEWAY-ANY-METHOD")
                                          else method, str(props.get("Path", "/"))))
    # Literal paths before parameterised ones, as API Gateway prefers the most specific.
    found.sort(key=lambda r: (r.path.count("+}"), r.path.count("{"), -len(r.path)))
    return tuple(found) or FALLBACK_REST


def ws_route_keys(template: dict) -> set[str]:
    """The WebSocket route keys declared in the template (``AWS::ApiGatewayV2::Route``)."""
    keys = set()
    for resource in _resources(template).values():
        if isinstance(resource, dict) and resource.get("Type") == "AWS::ApiGatewayV2::Route":
            key = (resource.get("Properties") or {}).get("RouteKey")
            if isinstance(key, str):
                keys.add(key)
    return keys


def table_definition(template: dict) -> dict | None:
    """``create_table`` arguments for the first DynamoDB table in the template, plus the
    TTL attribute name under ``"_ttl"`` (None when TTL is off)."""
    for resource in _resources(template).values():
        if not isinstance(resource, dict):
            continue
        if resource.get("Type") not in ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable"):
            continue
        props = resource.get("Properties") or {}
        args: dict[str, Any] = {
            "KeySchema": props["KeySchema"],
            "AttributeDefinitions": props["AttributeDefinitions"],
            "BillingMode": "PAY_PER_REQUEST",
        }
        gsis = []
        for gsi in props.get("GlobalSecondaryIndexes") or []:
            gsis.append({k: gsi[k] for k in ("IndexName", "KeySchema", "Projection") if k in gsi})
        if gsis:
            args["GlobalSecondaryIndexes"] = gsis
        lsis = []
        for lsi in props.get("LocalSecondaryIndexes") or []:
            lsis.append({k: lsi[k] for k in ("IndexName", "KeySchema", "Projection") if k in lsi})
        if lsis:
            args["LocalSecondaryIndexes"] = lsis
        ttl = props.get("TimeToLiveSpecification") or {}
        args["_ttl"] = ttl.get("AttributeName") if ttl.get("Enabled") not in (False, "false") else None
        return args
    return None
