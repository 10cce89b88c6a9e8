"""The site deployer (functions/sitedeploy, template.yaml SiteDeployment) against moto's S3:
Create publishes web/ with its cache headers and config.json, Update replaces the release,
Delete empties the bucket; every request is answered on CloudFormation's ResponseURL."""

from __future__ import annotations

import json
import re
import shutil
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import boto3
import pytest
from fnkit import CTX

from sitedeploy import handler as site

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
BUCKET = "mafia-test-web"
pytestmark = pytest.mark.fresh_aws  # its own bucket, nothing left by another test
CONFIG = {"apiUrl": "/api", "wsUrl": "wss://abc.execute-api.us-east-1.amazonaws.com/prod"}


class Answers:
    """A stand-in for CloudFormation's presigned ResponseURL: records each PUT body."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        answers = self

        class Handler(BaseHTTPRequestHandler):
            def do_PUT(self):  # noqa: N802 - http.server's name
                length = int(self.headers["Content-Length"])
                answers.bodies.append(json.loads(self.rfile.read(length)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/answer?X-Amz-Signature=secret"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def answers():
    a = Answers()
    yield a
    a.close()


@pytest.fixture
def s3(aws, monkeypatch):
    client = boto3.client("s3")
    client.create_bucket(Bucket=BUCKET)
    monkeypatch.setattr(site, "s3_client", client)
    return client


@pytest.fixture
def web(tmp_path) -> Path:
    """A copy of the real client (so a test may change it)."""
    return Path(shutil.copytree(WEB, tmp_path / "web"))


def event(kind: str, answers: Answers, physical: str | None = None, bucket: str = BUCKET) -> dict:
    e = {
        "RequestType": kind,
        "ResponseURL": answers.url,
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/mafia-test/1",
        "RequestId": f"req-{kind}",
        "LogicalResourceId": "SiteDeployment",
        "ResourceType": "AWS::CloudFormation::CustomResource",
        "ResourceProperties": {"ServiceToken": "arn:fn", "BucketName": bucket, "Release": "1", "Config": CONFIG},
    }
    if physical:
        e["PhysicalResourceId"] = physical
    return e


def keys(s3) -> set[str]:
    return {o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])}


def shipped(web: Path) -> set[str]:
    return {p.relative_to(web).as_posix() for p in web.rglob("*") if p.is_file()} - {"config.json"}


def test_create_publishes_the_client_with_long_lived_assets_and_uncached_entry_points(s3, answers, web, monkeypatch):
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), CTX)
    (answer,) = answers.bodies
    assert answer["Status"] == "SUCCESS" and answer["PhysicalResourceId"] == BUCKET
    assert (answer["RequestId"], answer["LogicalResourceId"]) == ("req-Create", "SiteDeployment")
    release = answer["Data"]["Release"]
    prefix = f"v/{release}/"
    files = shipped(web)
    assert keys(s3) == {"index.html", "config.json"} | {prefix + f for f in files - {"index.html"}}

    cfg = s3.get_object(Bucket=BUCKET, Key="config.json")
    assert json.loads(cfg["Body"].read()) == CONFIG
    assert (cfg["ContentType"], cfg["CacheControl"]) == ("application/json", "no-cache")

    index = s3.get_object(Bucket=BUCKET, Key="index.html")
    assert index["CacheControl"] == "no-cache" and index["ContentType"].startswith("text/html")
    html = index["Body"].read().decode()
    # index.html names this release's stylesheet and script, absolutely (the SPA fallback
    # serves it at any path), and every file it names exists
    assert f'href="/{prefix}style.css"' in html and f'src="/{prefix}js/app.js"' in html
    named = re.findall(r'(?:src|href)="/(v/[^"]+)"', html)
    assert named and set(named) <= keys(s3)

    app = s3.get_object(Bucket=BUCKET, Key=prefix + "js/app.js")
    assert app["CacheControl"] == "public, max-age=31536000, immutable"
    assert app["ContentType"].startswith("text/javascript")
    assert app["Body"].read() == (web / "js" / "app.js").read_bytes()


def test_update_with_a_changed_client_is_a_new_release_and_the_old_one_is_deleted(s3, answers, web, monkeypatch):
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), CTX)
    first = answers.bodies[-1]["Data"]["Release"]
    site.handler(event("Update", answers, physical=BUCKET), CTX)  # same client: same release
    assert answers.bodies[-1]["Data"]["Release"] == first
    (web / "js" / "app.js").write_text((web / "js" / "app.js").read_text() + "\n// changed\n")
    site.handler(event("Update", answers, physical=BUCKET), CTX)
    answer = answers.bodies[-1]
    assert answer["Status"] == "SUCCESS" and answer["PhysicalResourceId"] == BUCKET
    second = answer["Data"]["Release"]
    assert second != first
    assert not any(k.startswith(f"v/{first}/") for k in keys(s3))
    assert f"/v/{second}/js/app.js" in s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()


def test_delete_empties_the_bucket(s3, answers, web, monkeypatch):
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), CTX)
    s3.put_object(Bucket=BUCKET, Key="left/by/hand.txt", Body=b"x")
    site.handler(event("Delete", answers, physical=BUCKET), CTX)
    assert answers.bodies[-1]["Status"] == "SUCCESS" and answers.bodies[-1]["PhysicalResourceId"] == BUCKET
    assert keys(s3) == set()
    s3.delete_bucket(Bucket=BUCKET)  # what CloudFormation does next: it succeeds on an empty bucket


def test_delete_of_a_bucket_that_is_gone_succeeds(s3, answers):
    site.handler(event("Delete", answers, physical="never-created", bucket="never-created"), CTX)
    assert answers.bodies[-1]["Status"] == "SUCCESS"


def test_a_failure_is_answered_so_the_stack_does_not_wait(s3, answers, web, monkeypatch, caplog):
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers, bucket="no-such-bucket"), CTX)
    answer = answers.bodies[-1]
    assert answer["Status"] == "FAILED" and "NoSuchBucket" in answer["Reason"]
    assert answer["PhysicalResourceId"] == "no-such-bucket"
    # the presigned answer URL is a credential: neither the answer nor the logs carry it
    assert "site deployment failed" in caplog.text
    assert "secret" not in json.dumps(answer) + caplog.text


def test_the_shipped_dev_config_is_never_published(s3, answers, web, monkeypatch):
    """web/config.json (the offline stack's) is replaced by the stack's own, not copied."""
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), CTX)
    assert not any(k.endswith("config.json") and k != "config.json" for k in keys(s3))
