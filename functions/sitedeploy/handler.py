"""Custom resource `SiteDeployment` (template.yaml): publish the web client into the site bucket.

The client ships inside this function's package (`web/` beside this package: the built client,
build/web, copied there by the Makefile's `build-SiteDeployFunction`; scripts/build_web.mjs),
as CDK's BucketDeployment ships its assets:

- Create / Update: every file of `web/` but the entry points goes under `v/<release>/`, where
  `<release>` is a hash of the whole client, with `Cache-Control: public, max-age=31536000,
  immutable`: the bundles, their source maps, the stylesheets and icons. The entry points are
  written at the root with `Cache-Control: no-cache`: `index.html` (its `src`/`href`, the
  entry script and the boot's modulepreload links, pointing at that release), `sw.js` (the service worker, whose
  scope is the folder it is served from, so it must be `/sw.js` to cover the site; its precache
  list pointing at the release and its cache named after it), `manifest.webmanifest` (the app's
  id, start_url and scope resolve to `/` whatever the release; its icons point at the release),
  and a `config.json` made from the resource's `Config` property (the stack's own URLs). A new
  client is therefore a new set of URLs (nothing stale is served, no invalidation needed), while
  pages stay one `index.html` fetch away from it. Objects of earlier releases are then deleted.
- Delete: empty the bucket named by the physical id (nothing else is read), so CloudFormation
  can delete it (`sam delete`).

Which client: the `Release` property names the function version whose package holds it
(`!Ref SiteDeployFunction.Version`). CloudFormation invokes the unqualified function; a version
that is not the named one hands the request to the named version (an asynchronous invoke), which
publishes its own `web/` and answers. So an update's rollback, whose request carries the old
properties, publishes the old client, as CDK's BucketDeployment takes its content from the
properties and not from the code that runs.

The physical id is the bucket name: an update keeps it (no Delete follows an Update), and a
new bucket gets a Delete of the old id, which empties the old bucket before it is deleted. A
Create whose properties name no bucket fails with an id that is no bucket name (`failed:...`),
whose Delete has nothing to empty.

The answer goes to CloudFormation's presigned `ResponseURL`, for failures too (a custom
resource that never answers holds the stack until the resource's ServiceTimeout). A guard
answers FAILED while some of the function's time is left (`MARGIN_S`), before Lambda's own
timeout would end it silently; an answer that cannot be delivered is logged, never raised. The
event is never logged whole: that URL is a credential for the answer.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
from aws_lambda_powertools import Logger
from botocore.config import Config as BotoConfig

logger = Logger(service=os.environ.get("POWERTOOLS_SERVICE_NAME", "mafia") + "-site-deploy")

SOURCE = Path(os.environ.get("LAMBDA_TASK_ROOT", Path(__file__).resolve().parents[1])) / "web"
ENTRY = "index.html"
WORKER = "sw.js"
MANIFEST = "manifest.webmanifest"
CONFIG = "config.json"
TEST_HOOKS = "testHooks"  # the offline stack's config.json key for the client's test hooks
ROOT_FILES = (ENTRY, WORKER, MANIFEST)  # served from the site's root, never cached
RELEASES = "v/"
IMMUTABLE = "public, max-age=31536000, immutable"
NO_CACHE = "no-cache"
FAILED_ID = "failed:"  # a physical id that is no bucket name (S3 names have no colon)
MARGIN_S = 20.0  # answer FAILED while this much of the function's time is left
# every S3 call ends well inside the margin (connect + read timeouts, few retries)
BOTO = BotoConfig(connect_timeout=5, read_timeout=10, retries={"max_attempts": 2, "mode": "standard"})
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".map": "application/json",  # a bundle's source map (scripts/build_web.mjs)
}
# src="..." / href="..." attributes of index.html; only those naming a shipped file change
_ATTR = re.compile(r'(?P<attr>\b(?:src|href))="(?P<path>[^"#?:]+)"')
# a string literal of sw.js (its precache list names shipped files)
_LITERAL = re.compile(r'"(?P<path>[^"\s]+)"')
_CACHE_NAME = re.compile(r'(?P<head>\bconst CACHE = ")(?P<name>[^"]+)"')


class OutOfTime(RuntimeError):
    """Too little of the function's time is left to go on and still answer."""


def _files(source: Path) -> dict[str, bytes]:
    """The client's files by their path in the bucket's root (config.json left out: it is made;
    hidden files and folders under the web root left out, wherever the root itself lies)."""
    out = {}
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if path.is_file() and rel.as_posix() != CONFIG and not any(p.startswith(".") for p in rel.parts):
            out[rel.as_posix()] = path.read_bytes()
    return out


def release_id(files: dict[str, bytes]) -> str:
    """A hash of every file's path and bytes: another client, another release."""
    h = hashlib.sha256()
    for rel, data in sorted(files.items()):
        h.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:16]


def _content_type(key: str) -> str:
    ext = os.path.splitext(key)[1].lower()
    return TYPES.get(ext) or mimetypes.guess_type(key)[0] or "application/octet-stream"


def plan(source: Path, config: dict) -> tuple[str, dict[str, tuple[bytes, str]]]:
    """The release id and the objects to write: key -> (body, Cache-Control)."""
    files = _files(source)
    missing = [f for f in ROOT_FILES if f not in files]
    if missing:
        raise ValueError(f"no {', '.join(missing)} in {source}")
    release = release_id(files)
    prefix = f"{RELEASES}{release}/"
    objects: dict[str, tuple[bytes, str]] = {}
    for rel, data in files.items():
        if rel not in ROOT_FILES:
            objects[prefix + rel] = (data, IMMUTABLE)

    def located(path: str) -> str | None:
        """Where a page finds a shipped file: the root files at the root, the rest in the release
        (absolute: the SPA fallback serves index.html at any depth, /ABCDE, /r/x)."""
        path = path.removeprefix("./")
        if path not in files:
            return None
        return f"/{path}" if path in ROOT_FILES else f"/{prefix}{path}"

    def attr(m: re.Match) -> str:
        where = located(m["path"])
        return f'{m["attr"]}="{where}"' if where and m["path"] != ENTRY else m[0]

    def literal(m: re.Match) -> str:
        where = located(m["path"])
        return f'"{where}"' if where and where.startswith(f"/{RELEASES}") else m[0]

    index = _ATTR.sub(attr, files[ENTRY].decode("utf-8"))
    worker = _LITERAL.sub(literal, files[WORKER].decode("utf-8"))
    worker, named = _CACHE_NAME.subn(lambda m: f'{m["head"]}{m["name"]}-{release}"', worker)
    if named != 1:
        raise ValueError(f'{WORKER} names its cache in no `const CACHE = "..."`')
    manifest = json.loads(files[MANIFEST])
    for icon in manifest.get("icons", []):
        icon["src"] = located(icon["src"]) or icon["src"]
    objects[ENTRY] = (index.encode("utf-8"), NO_CACHE)
    objects[WORKER] = (worker.encode("utf-8"), NO_CACHE)
    objects[MANIFEST] = ((json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode(), NO_CACHE)
    # never the client's test hooks on a deployed site (web/js/testhooks.js)
    config = {k: v for k, v in config.items() if k != TEST_HOOKS}
    objects[CONFIG] = ((json.dumps(config, sort_keys=True) + "\n").encode(), NO_CACHE)
    return release, objects


def _keys(s3: Any, bucket: str) -> list[str]:
    keys = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        keys.extend(o["Key"] for o in page.get("Contents") or [])
    return keys


def _delete(s3: Any, bucket: str, keys: list[str]) -> None:
    for i in range(0, len(keys), 1000):
        chunk = [{"Key": k} for k in keys[i : i + 1000]]
        answer = s3.delete_objects(Bucket=bucket, Delete={"Objects": chunk, "Quiet": True})
        if answer.get("Errors"):
            raise RuntimeError(
                f"could not delete {len(answer['Errors'])} objects, e.g. {answer['Errors'][0]}"
            )


def _never() -> None:
    pass


def deploy(s3: Any, bucket: str, source: Path, config: dict, check: Callable[[], None] = _never) -> str:
    """Write the client and config.json; delete what earlier releases left. Returns the release.
    `check` raises OutOfTime when the function must stop to answer."""
    release, objects = plan(source, config)
    # the release's assets first, the entry points last: a page never names a missing asset
    for key in sorted(objects, key=lambda k: k in (*ROOT_FILES, CONFIG)):
        check()
        body, cache = objects[key]
        s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType=_content_type(key), CacheControl=cache)
    check()
    stale = [k for k in _keys(s3, bucket) if k not in objects]
    _delete(s3, bucket, stale)
    logger.info("site published", extra={"bucket": bucket, "release": release, "objects": len(objects),
                                          "deleted": len(stale)})  # fmt: skip
    return release


def empty(s3: Any, bucket: str) -> int:
    """Delete every object of the bucket (none left: CloudFormation can delete it)."""
    try:
        keys = _keys(s3, bucket)
    except s3.exceptions.NoSuchBucket:
        return 0  # never created (a failed create rolling back) or already gone
    _delete(s3, bucket, keys)
    logger.info("site emptied", extra={"bucket": bucket, "deleted": len(keys)})
    return len(keys)


def respond(event: dict, status: str, physical_id: str, data: dict | None = None, reason: str = "") -> bool:
    """PUT the custom resource's answer to CloudFormation's presigned ResponseURL. An answer that
    cannot be delivered is logged (never the URL) and reported False, never raised: nothing
    else could answer it, and a raise would only make Lambda retry the whole request."""
    body = json.dumps({
        "Status": status,
        "Reason": reason[:300] or status,
        "PhysicalResourceId": physical_id,
        "StackId": event["StackId"],
        "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"],
        "Data": data or {},
    }).encode()  # fmt: skip
    req = urllib.request.Request(  # noqa: S310 - the URL is CloudFormation's own (https)
        event["ResponseURL"],
        data=body,
        method="PUT",
        headers={"Content-Type": "", "Content-Length": str(len(body))},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:  # noqa: S310
            answer.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        logger.error("could not answer CloudFormation", extra={"status": status, "error": str(reason)[:200]})
        return False
    return True


def _version(arn: str) -> str:
    """The version an ARN names (`...:function:name:7` -> "7"), "" for an unqualified one."""
    parts = arn.split(":")
    return parts[7] if len(parts) == 8 else ""


def forward_to(event: dict, own_version: str) -> str | None:
    """The function version that must publish this request's client, when it is not this one
    (the `Release` property names it); None when this version publishes."""
    if event["RequestType"] == "Delete":
        return None
    named = str((event.get("ResourceProperties") or {}).get("Release", ""))
    if not _version(named):
        raise ValueError("the Release property must name a version of the site deployer (!Ref <fn>.Version)")
    if _version(named) == own_version:
        return None
    if event.get("ForwardedFrom"):
        raise RuntimeError(f"version {own_version} was handed a request for {_version(named)}")
    return named


def handle(event: dict, s3: Any, source: Path | None = None, check: Callable[[], None] = _never) -> tuple[str, dict]:
    """Do what the request asks; returns the physical id and the answer's Data."""
    kind = event["RequestType"]
    if kind == "Delete":  # only the physical id: the properties may be anything (or gone)
        physical = event.get("PhysicalResourceId") or ""
        if physical and not physical.startswith(FAILED_ID):
            empty(s3, physical)
        return physical, {}
    props = event.get("ResourceProperties") or {}
    bucket = props["BucketName"]
    release = deploy(s3, bucket, source or SOURCE, props.get("Config") or {}, check)
    return bucket, {"Release": release}


s3_client = None
lambda_client = None


def _deadline(context: Any) -> Callable[[], None]:
    def check() -> None:
        left = context.get_remaining_time_in_millis() / 1000
        if left < MARGIN_S:
            raise OutOfTime(f"stopped with {left:.0f} s of the function's time left, to answer")

    return check


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict, context: Any) -> None:
    global s3_client, lambda_client
    logger.append_keys(request=event.get("RequestType"), resource=event.get("LogicalResourceId"))
    # a failed Create answers its bucket (the rollback's Delete empties what it wrote), or, with
    # no bucket named, an id whose Delete has nothing to do
    props = event.get("ResourceProperties") or {}
    physical = event.get("PhysicalResourceId") or props.get("BucketName") or f"{FAILED_ID}{event.get('RequestId')}"
    try:
        named = forward_to(event, os.environ.get("AWS_LAMBDA_FUNCTION_VERSION", ""))
        if named:
            if lambda_client is None:
                lambda_client = boto3.client("lambda", config=BOTO)
            lambda_client.invoke(
                FunctionName=named, InvocationType="Event",
                Payload=json.dumps({**event, "ForwardedFrom": context.invoked_function_arn}).encode(),
            )  # fmt: skip
            logger.info("handed to the version that holds the client", extra={"version": _version(named)})
            return  # that version answers
        if s3_client is None:
            s3_client = boto3.client("s3", config=BOTO)
        physical, data = handle(event, s3_client, check=_deadline(context))
    except Exception as exc:  # noqa: BLE001 - CloudFormation must hear of every failure
        logger.exception("site deployment failed")
        respond(event, "FAILED", physical, reason=f"{type(exc).__name__}: {exc}")
        return
    respond(event, "SUCCESS", physical, data)
