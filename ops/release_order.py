"""The order CloudFormation creates and updates a translated template's resources in, and the
rule the site's publication must keep in it (docs/operations.md, "Upgrades with games in
flight").

CloudFormation starts a resource's create or update only after every resource it depends on
is done: those it names by `Ref`, `Fn::GetAtt` or a `${...}` of `Fn::Sub`, and those it lists in
`DependsOn`; resources with no path between them run in parallel, in any order. So "the site
publishes after the functions" holds only if the site's custom resource depends, directly or
through others, on every function, route, integration and stage whose frames the new client
uses: else CloudFormation may publish the new client (and phones load it) before the handlers
whose strict frame models accept its new fields.

- `dependencies(translated)`: each resource's direct dependencies.
- `order(translated)`: an order CloudFormation could run (a topological order; ties by name).
- `site_order_problems(translated)`: each game function, route, integration, stage and
  deployment the site deployment does not wait for.
"""

from __future__ import annotations

import re
from typing import Any

SITE = "SiteDeployment"  # the custom resource that publishes the client (template.yaml)
SITE_FUNCTION = "SiteDeployFunction"
# what serves the frames a client sends: the site must publish after each
SERVING = (
    "AWS::Lambda::Function",
    "AWS::ApiGateway::Deployment",
    "AWS::ApiGateway::Stage",
    "AWS::ApiGatewayV2::Route",
    "AWS::ApiGatewayV2::Integration",
    "AWS::ApiGatewayV2::Stage",
)
_SUB = re.compile(r"\$\{([A-Za-z0-9]+)(?:\.[A-Za-z0-9.]+)?\}")


def _refs(node: Any, names: set[str], out: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "Ref" and isinstance(value, str) and value in names:
                out.add(value)
            elif key == "Fn::GetAtt":
                target = value[0] if isinstance(value, list) else str(value).split(".", 1)[0]
                if target in names:
                    out.add(target)
            elif key == "Fn::Sub":
                text = value[0] if isinstance(value, list) else value
                out.update(n for n in _SUB.findall(text) if n in names)
                if isinstance(value, list) and len(value) > 1:
                    _refs(value[1], names, out)
            else:
                _refs(value, names, out)
    elif isinstance(node, list):
        for value in node:
            _refs(value, names, out)


def dependencies(translated: dict) -> dict[str, set[str]]:
    """Each resource's direct dependencies (Ref, GetAtt, Sub, DependsOn)."""
    resources = translated["Resources"]
    names = set(resources)
    out: dict[str, set[str]] = {}
    for name, res in resources.items():
        found: set[str] = set()
        _refs(res.get("Properties") or {}, names, found)
        depends = res.get("DependsOn") or []
        found.update([depends] if isinstance(depends, str) else depends)
        found.discard(name)
        out[name] = found
    return out


def ancestors(graph: dict[str, set[str]], name: str) -> set[str]:
    """Every resource `name` waits for, directly or through others."""
    seen: set[str] = set()
    todo = list(graph.get(name, ()))
    while todo:
        dep = todo.pop()
        if dep not in seen:
            seen.add(dep)
            todo.extend(graph.get(dep, ()))
    return seen


def order(translated: dict) -> list[str]:
    """The resources in an order CloudFormation could create or update them (every resource
    after what it depends on; among those free to go, by name)."""
    graph = dependencies(translated)
    done: list[str] = []
    placed: set[str] = set()
    while len(done) < len(graph):
        ready = sorted(n for n in graph if n not in placed and graph[n] <= placed)
        if not ready:
            raise ValueError(f"a dependency cycle among {sorted(set(graph) - placed)}")
        done.extend(ready)
        placed.update(ready)
    return done


def site_order_problems(translated: dict) -> list[str]:
    """What the site's publication does not wait for: a new client could reach phones first."""
    resources = translated["Resources"]
    if SITE not in resources:
        return [f"no {SITE} in the template"]
    waits = ancestors(dependencies(translated), SITE)
    return [
        f"{SITE} does not wait for {name} ({res['Type']}): the new client may publish before it"
        for name, res in sorted(resources.items())
        if res["Type"] in SERVING and name not in waits and not name.startswith(SITE_FUNCTION)
    ]
