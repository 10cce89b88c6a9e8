"""Custom resource `SiteDeployment` (template.yaml): publish the web client into the site bucket.

The client ships inside this function's package (`web/` beside this package, copied there by
the Makefile's `build-SiteDeployFunction`), as CDK's BucketDeployment ships its assets:

- Create / Update: every file of `web/` except `index.html` goes under `v/<release>/`, where
  `<release>` is a hash of the whole client, with `Cache-Control: public, max-age=31536000,
  immutable`; `index.html` (its `src`/`href` pointing at that release) and a `config.json` made
  from the resource's `Config` property (the stack's own URLs) are written at the root with
  `Cache-Control: no-cache`. A new client is therefore a new set of URLs (nothing stale is
  served, no invalidation needed), while pages stay one `index.html` fetch away from it.
  Objects of earlier releases are then deleted.
- Delete: empty the bucket, so CloudFormation can delete it (`sam delete`).

The physical id is the bucket name: an update keeps it (no Delete follows an Update), and a
new bucket gets a Delete of the old id, which empties the old bucket before it is deleted.

The answer goes to CloudFormation's presigned `ResponseURL`, for failures too (a custom
resource that never answers holds the stack for an hour). The event is never logged whole:
that URL is a credential for the answer.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
import re
import urllib.request
from pathlib import Path
from typing import Any

import boto3
from aws_lambda_powertools import Logger

logger = Logger(service=os.environ.get("POWERTOOLS_SERVICE_NAME", "mafia") + "-site-deploy")

SOURCE = Path(os.environ.get("LAMBDA_TASK_ROOT", Path(__file__).resolve().parents[1])) / "web"
ENTRY = "index.html"
CONFIG = "config.json"
RELEASES = "v/"
IMMUTABLE = "public, max-age=31536000, immutable"
NO_CACHE = "no-cache"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
}
# src="..." / href="..." attributes of index.html; only those naming a shipped file change
_ATTR = re.compile(r'(?P<attr>\b(?:src|href))="(?P<path>[^"#?:]+)"')


def _files(source: Path) -> dict[str, bytes]:
    """The client's files by their path in the bucket's root (config.json left out: it is made)."""
    out = {}
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source).as_posix()
        if path.is_file() and rel != CONFIG and not any(part.startswith(".") for part in path.parts):
            out[rel] = path.read_bytes()
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
    if ENTRY not in files:
        raise ValueError(f"no {ENTRY} in {source}")
    release = release_id(files)
    prefix = f"{RELEASES}{release}/"
    objects: dict[str, tuple[bytes, str]] = {}
    for rel, data in files.items():
        if rel != ENTRY:
            objects[prefix + rel] = (data, IMMUTABLE)

    def point(m: re.Match) -> str:
        path = m["path"].removeprefix("./")
        # absolute: the SPA fallback serves index.html at any depth (/ABCDE, /r/x)
        return f'{m["attr"]}="/{prefix}{path}"' if path in files and path != ENTRY else m[0]

    index = _ATTR.sub(point, files[ENTRY].decode("utf-8"))
    objects[ENTRY] = (index.encode("utf-8"), NO_CACHE)
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


def deploy(s3: Any, bucket: str, source: Path, config: dict) -> str:
    """Write the client and config.json; delete what earlier releases left. Returns the release."""
    release, objects = plan(source, config)
    # the release's assets first, the entry points last: a page never names a missing asset
    for key in sorted(objects, key=lambda k: k in (ENTRY, CONFIG)):
        body, cache = objects[key]
        s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType=_content_type(key), CacheControl=cache)
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


def respond(event: dict, status: str, physical_id: str, data: dict | None = None, reason: str = "") -> None:
    """PUT the custom resource's answer to CloudFormation's presigned ResponseURL."""
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
    with urllib.request.urlopen(req, timeout=30) as answer:  # noqa: S310
        answer.read()


def handle(event: dict, s3: Any, source: Path | None = None) -> tuple[str, dict]:
    """Do what the request asks; returns the physical id and the answer's Data."""
    props = event.get("ResourceProperties") or {}
    bucket = props["BucketName"]
    kind = event["RequestType"]
    if kind == "Delete":
        empty(s3, event.get("PhysicalResourceId") or bucket)
        return event.get("PhysicalResourceId") or bucket, {}
    release = deploy(s3, bucket, source or SOURCE, props.get("Config") or {})
    return bucket, {"Release": release}


s3_client = None


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict, context: Any) -> None:
    global s3_client
    logger.append_keys(request=event.get("RequestType"), resource=event.get("LogicalResourceId"))
    physical = event.get("PhysicalResourceId") or (event.get("ResourceProperties") or {}).get(
        "BucketName", "site"
    )
    try:
        if s3_client is None:
            s3_client = boto3.client("s3")
        physical, data = handle(event, s3_client)
    except Exception as exc:  # noqa: BLE001 - CloudFormation must hear of every failure
        logger.exception("site deployment failed")
        respond(event, "FAILED", physical, reason=f"{type(exc).__name__}: {exc}")
        return
    respond(event, "SUCCESS", physical, data)
