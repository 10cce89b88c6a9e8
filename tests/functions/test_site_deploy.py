"""The site deployer (functions/sitedeploy, template.yaml SiteDeployment) against moto's S3:
Create publishes web/ with its cache headers and config.json (the service worker and the
manifest at the root), Update replaces the release, Delete empties the bucket (its physical id
is all it needs); a request for another version's client goes to that version (a rollback);
every request is answered on CloudFormation's ResponseURL, before the function's time runs out,
and an answer that cannot be delivered does not raise."""

from __future__ import annotations

import json
import re
import shutil
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import urljoin

import boto3
import pytest

from local import webbuild
from local.lambda_runtime import LambdaContext
from sitedeploy import handler as site

ROOT = Path(__file__).resolve().parents[2]
WEB = webbuild.built()  # the built client (build/web), as build-SiteDeployFunction ships it
BUCKET = "mafia-test-web"
pytestmark = pytest.mark.fresh_aws  # its own bucket, nothing left by another test
CONFIG = {"apiUrl": "/api", "wsUrl": "wss://abc.execute-api.us-east-1.amazonaws.com/prod"}
FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:mafia-test-site-deploy"
ROOT_FILES = {"index.html", "sw.js", "manifest.webmanifest"}


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


def ctx() -> LambdaContext:
    """A fresh invocation's context: the function's whole Timeout (template.yaml) ahead."""
    return LambdaContext(function_name="mafia-test-site-deploy", memory_limit_in_mb=256, timeout_ms=120_000)


@pytest.fixture(autouse=True)
def version(monkeypatch):
    """The function version that runs (Lambda's AWS_LAMBDA_FUNCTION_VERSION): the one the
    events' Release names, unless a test says otherwise."""
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_VERSION", "7")


@pytest.fixture
def web(tmp_path) -> Path:
    """A copy of the real client (so a test may change it)."""
    return Path(shutil.copytree(WEB, tmp_path / "web"))


def event(kind: str, answers: Answers, physical: str | None = None, bucket: str = BUCKET, version: str = "7") -> dict:
    e = {
        "RequestType": kind,
        "ResponseURL": answers.url,
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/mafia-test/1",
        "RequestId": f"req-{kind}",
        "LogicalResourceId": "SiteDeployment",
        "ResourceType": "AWS::CloudFormation::CustomResource",
        "ResourceProperties": {"ServiceToken": FUNCTION_ARN, "BucketName": bucket,
                               "Release": f"{FUNCTION_ARN}:{version}", "Config": CONFIG},
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
    site.handler(event("Create", answers), ctx())
    (answer,) = answers.bodies
    assert answer["Status"] == "SUCCESS" and answer["PhysicalResourceId"] == BUCKET
    assert (answer["RequestId"], answer["LogicalResourceId"]) == ("req-Create", "SiteDeployment")
    release = answer["Data"]["Release"]
    prefix = f"v/{release}/"
    files = shipped(web)
    assert keys(s3) == ROOT_FILES | {"config.json"} | {prefix + f for f in files - ROOT_FILES}

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
    # the bundle's boot named by the page (modulepreload, scripts/build_web.mjs), its source maps beside it
    assert f'<link rel="modulepreload" href="/{prefix}js/player.js">' in html
    source_map = s3.get_object(Bucket=BUCKET, Key=prefix + "js/app.js.map")
    assert source_map["ContentType"] == "application/json" and json.loads(source_map["Body"].read())["sources"]


def test_update_with_a_changed_client_is_a_new_release_and_the_old_one_is_deleted(s3, answers, web, monkeypatch):
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), ctx())
    first = answers.bodies[-1]["Data"]["Release"]
    site.handler(event("Update", answers, physical=BUCKET), ctx())  # same client: same release
    assert answers.bodies[-1]["Data"]["Release"] == first
    (web / "js" / "app.js").write_text((web / "js" / "app.js").read_text() + "\n// changed\n")
    site.handler(event("Update", answers, physical=BUCKET), ctx())
    answer = answers.bodies[-1]
    assert answer["Status"] == "SUCCESS" and answer["PhysicalResourceId"] == BUCKET
    second = answer["Data"]["Release"]
    assert second != first
    assert not any(k.startswith(f"v/{first}/") for k in keys(s3))
    assert f"/v/{second}/js/app.js" in s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()


def test_delete_empties_the_bucket(s3, answers, web, monkeypatch):
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), ctx())
    s3.put_object(Bucket=BUCKET, Key="left/by/hand.txt", Body=b"x")
    site.handler(event("Delete", answers, physical=BUCKET), ctx())
    assert answers.bodies[-1]["Status"] == "SUCCESS" and answers.bodies[-1]["PhysicalResourceId"] == BUCKET
    assert keys(s3) == set()
    s3.delete_bucket(Bucket=BUCKET)  # what CloudFormation does next: it succeeds on an empty bucket


def test_delete_of_a_bucket_that_is_gone_succeeds(s3, answers):
    site.handler(event("Delete", answers, physical="never-created", bucket="never-created"), ctx())
    assert answers.bodies[-1]["Status"] == "SUCCESS"


def test_a_failure_is_answered_so_the_stack_does_not_wait(s3, answers, web, monkeypatch, caplog):
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers, bucket="no-such-bucket"), ctx())
    answer = answers.bodies[-1]
    assert answer["Status"] == "FAILED" and "NoSuchBucket" in answer["Reason"]
    assert answer["PhysicalResourceId"] == "no-such-bucket"
    # the presigned answer URL is a credential: neither the answer nor the logs carry it
    assert "site deployment failed" in caplog.text
    assert "secret" not in json.dumps(answer) + caplog.text


def test_the_published_config_never_turns_the_test_hooks_on(s3, answers, web, monkeypatch):
    """The offline stack's `testHooks` (web/js/testhooks.js) never reaches a deployed site's
    config.json, whatever the stack's Config says."""
    monkeypatch.setattr(site, "SOURCE", web)
    e = event("Create", answers)
    e["ResourceProperties"]["Config"] = {**CONFIG, "testHooks": True}
    site.handler(e, ctx())
    cfg = json.loads(s3.get_object(Bucket=BUCKET, Key="config.json")["Body"].read())
    assert cfg == CONFIG and "testHooks" not in cfg


def test_the_shipped_dev_config_is_never_published(s3, answers, web, monkeypatch):
    """web/config.json (the offline stack's) is replaced by the stack's own, not copied."""
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), ctx())
    assert not any(k.endswith("config.json") and k != "config.json" for k in keys(s3))


def test_the_service_worker_and_the_manifest_are_served_from_the_root(s3, answers, web, monkeypatch):
    """A worker's scope is the folder it is served from: /sw.js covers the site. The manifest's id,
    start_url and scope resolve to the site's root whatever the release (one app identity); both
    are never cached, and what they name exists in this release."""
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), ctx())
    release = answers.bodies[-1]["Data"]["Release"]
    published = keys(s3)
    worker = s3.get_object(Bucket=BUCKET, Key="sw.js")
    assert worker["CacheControl"] == "no-cache" and worker["ContentType"].startswith("text/javascript")
    code = worker["Body"].read().decode()
    precache = json.loads(re.search(r"const PRECACHE = (\[[^\]]*\]);", code)[1])
    assert f"/v/{release}/js/app.js" in precache and f"/v/{release}/style.css" in precache
    for entry in precache:  # each resolves, against /sw.js, to an object of this deploy
        path = urljoin("https://site.example/sw.js", entry).removeprefix("https://site.example/")
        assert (path or "index.html") in published, entry
    # a new release is a new cache (the worker's activate deletes the old release's)
    assert re.search(rf'const CACHE = "[^"]+-{release}";', code)

    got = s3.get_object(Bucket=BUCKET, Key="manifest.webmanifest")
    assert got["CacheControl"] == "no-cache" and got["ContentType"] == "application/manifest+json"
    manifest = json.loads(got["Body"].read())
    at = "https://site.example/manifest.webmanifest"
    assert {urljoin(at, manifest[k]) for k in ("id", "start_url", "scope")} == {"https://site.example/"}
    assert manifest["icons"] and all(urljoin(at, i["src"]).removeprefix("https://site.example/") in published
                                     for i in manifest["icons"])  # fmt: skip
    html = s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    assert 'href="/manifest.webmanifest"' in html
    assert "/sw.js" in (ROOT / "web" / "js" / "install.js").read_text()  # the page registers the root's worker


def test_hidden_files_are_left_out_relative_to_the_web_root(s3, answers, tmp_path, monkeypatch):
    """`sam build` puts the package under .aws-sam/build/...: a hidden folder *above* the web
    root hides nothing; a hidden file or folder inside it is never published."""
    web = Path(shutil.copytree(WEB, tmp_path / ".aws-sam" / "build" / "SiteDeployFunction" / "web"))
    (web / ".DS_Store").write_bytes(b"x")
    (web / "js" / ".cache").mkdir()
    (web / "js" / ".cache" / "x.js").write_text("x")
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), ctx())
    assert answers.bodies[-1]["Status"] == "SUCCESS", answers.bodies[-1]
    published = keys(s3)
    assert "index.html" in published and not any("/." in "/" + k for k in published)


def test_delete_needs_nothing_but_its_physical_id(s3, answers, web, monkeypatch):
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), ctx())
    bare = {k: v for k, v in event("Delete", answers, physical=BUCKET).items() if k != "ResourceProperties"}
    site.handler(bare, ctx())
    assert answers.bodies[-1]["Status"] == "SUCCESS" and keys(s3) == set()


def test_a_failed_create_with_no_bucket_gets_an_id_whose_delete_touches_nothing(s3, answers, web, monkeypatch):
    monkeypatch.setattr(site, "SOURCE", web)
    s3.put_object(Bucket=BUCKET, Key="keep", Body=b"x")
    broken = event("Create", answers)
    del broken["ResourceProperties"]["BucketName"]
    site.handler(broken, ctx())
    failed = answers.bodies[-1]
    assert failed["Status"] == "FAILED" and failed["PhysicalResourceId"].startswith("failed:")
    site.handler(event("Delete", answers, physical=failed["PhysicalResourceId"]), ctx())
    assert answers.bodies[-1]["Status"] == "SUCCESS" and keys(s3) == {"keep"}


def test_an_unreachable_response_url_is_logged_not_raised(s3, answers, web, monkeypatch, caplog):
    monkeypatch.setattr(site, "SOURCE", web)
    gone = event("Create", answers)
    answers.close()  # nobody listens there any more
    site.handler(gone, ctx())  # returns: a raise would only make Lambda retry the whole request
    assert "could not answer CloudFormation" in caplog.text and "secret" not in caplog.text


class Running:
    """A Lambda context whose remaining time falls by `step_ms` at each look."""

    def __init__(self, left_ms: int, step_ms: int) -> None:
        self.left, self.step = left_ms, step_ms
        self.function_name, self.memory_limit_in_mb, self.aws_request_id = "mafia-test-site-deploy", 256, "r"
        self.invoked_function_arn = FUNCTION_ARN

    def get_remaining_time_in_millis(self) -> int:
        self.left -= self.step
        return self.left


def test_the_time_guard_answers_failed_before_lambdas_own_timeout(s3, answers, web, monkeypatch):
    """Each write looks at the time left; below the margin it stops and answers FAILED, so the
    stack hears of it now (not after ServiceTimeout), and the entry points of a half-written
    release are never published (they are written last)."""
    monkeypatch.setattr(site, "SOURCE", web)
    site.handler(event("Create", answers), Running(left_ms=40_000, step_ms=2_000))
    answer = answers.bodies[-1]
    assert answer["Status"] == "FAILED" and "OutOfTime" in answer["Reason"]
    assert answer["PhysicalResourceId"] == BUCKET  # the rollback's Delete empties what was written
    assert not keys(s3) & (ROOT_FILES | {"config.json"})


class Invokes:
    """The Lambda client's invoke, recorded (moto cannot run a function without Docker)."""

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def invoke(self, **kwargs):
        self.calls.append(kwargs)
        return {"StatusCode": 202}


def test_a_rollback_publishes_the_client_its_properties_name(s3, answers, tmp_path, monkeypatch):
    """Version 7 holds the new client, version 6 the old one. The update publishes 7's; its
    rollback carries the old properties (Release = version 6), reaches the function unqualified,
    and is handed to version 6, which publishes the old client and answers."""
    old = Path(shutil.copytree(WEB, tmp_path / "v6" / "web"))
    new = Path(shutil.copytree(WEB, tmp_path / "v7" / "web"))
    (new / "js" / "app.js").write_text((new / "js" / "app.js").read_text() + "\n// new\n")
    invokes = Invokes()
    monkeypatch.setattr(site, "lambda_client", invokes)
    monkeypatch.setattr(site, "SOURCE", new)
    site.handler(event("Update", answers, physical=BUCKET, version="7"), ctx())
    new_release = answers.bodies[-1]["Data"]["Release"]
    assert not invokes.calls

    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")  # CloudFormation calls it unqualified
    rollback = event("Update", answers, physical=BUCKET, version="6")
    rollback["RequestId"] = "req-rollback"
    site.handler(rollback, ctx())
    (call,) = invokes.calls
    assert call["FunctionName"] == f"{FUNCTION_ARN}:6" and call["InvocationType"] == "Event"
    assert len(answers.bodies) == 1  # the version that publishes answers, not this one

    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_VERSION", "6")
    monkeypatch.setattr(site, "SOURCE", old)
    site.handler(json.loads(call["Payload"]), ctx())
    answer = answers.bodies[-1]
    assert (answer["Status"], answer["RequestId"]) == ("SUCCESS", "req-rollback")
    old_release = answer["Data"]["Release"]
    assert old_release != new_release
    html = s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    assert f"/v/{old_release}/js/app.js" in html and not any(k.startswith(f"v/{new_release}/") for k in keys(s3))


def test_a_request_handed_to_the_wrong_version_fails_instead_of_looping(s3, answers, web, monkeypatch):
    monkeypatch.setattr(site, "lambda_client", Invokes())
    handed = {**event("Update", answers, physical=BUCKET, version="6"), "ForwardedFrom": FUNCTION_ARN}
    site.handler(handed, ctx())  # this is version 7
    assert answers.bodies[-1]["Status"] == "FAILED" and site.lambda_client.calls == []


def test_the_release_must_name_a_version(s3, answers, web, monkeypatch):
    monkeypatch.setattr(site, "SOURCE", web)
    unnamed = event("Create", answers)
    unnamed["ResourceProperties"]["Release"] = FUNCTION_ARN  # unqualified: which client?
    site.handler(unnamed, ctx())
    assert answers.bodies[-1]["Status"] == "FAILED" and "Release" in answers.bodies[-1]["Reason"]


def _build_client(checkout: Path) -> dict[str, bytes]:
    """scripts/build_web.mjs run in a copy of the repository's client at `checkout`."""
    import subprocess

    (checkout / "scripts").mkdir(parents=True)
    shutil.copytree(ROOT / "web", checkout / "web")
    shutil.copy(ROOT / "scripts" / "build_web.mjs", checkout / "scripts")
    (checkout / "node_modules").symlink_to(ROOT / "node_modules")
    subprocess.run(["node", "scripts/build_web.mjs"], cwd=checkout, check=True)
    out = checkout / "build" / "web"
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_two_builds_of_the_client_in_different_folders_are_the_same_bytes(tmp_path):
    """The bundle is deterministic (scripts/build_web.mjs): another checkout builds the same
    files, so its deploy is the same release, and the build in use is that one too."""
    one = _build_client(tmp_path / "checkout-one")
    two = _build_client(tmp_path / "else" / "where")
    assert one.keys() == two.keys() and [k for k in one if one[k] != two[k]] == []
    assert one == {k: (WEB / k).read_bytes() for k in one} and set(one) == shipped(WEB)


def test_the_built_client_is_split_as_the_architecture_says():
    """docs/architecture.md, "Client build": the entries, one chunk per language, the QR drawing
    and the testing map apart, a source map beside every script, and index.html naming the
    player's boot (player.js and every chunk it imports statically) as modulepreload links."""
    scripts = sorted(p.name for p in (WEB / "js").glob("*.js"))
    assert {"app.js", "player.js", "display.js", "device.js"} <= set(scripts)
    for prefix in ("en-", "ko-", "ru-", "qrcode-", "testing-"):
        assert len([s for s in scripts if s.startswith(prefix)]) == 1, (prefix, scripts)
    assert all((WEB / "js" / f"{s}.map").is_file() for s in scripts)
    assert not (WEB / "js" / "i18n").exists() and not list(WEB.glob("vendor/**/*.*js"))  # bundled
    assert sorted(p.parent.name for p in WEB.glob("vendor/*/LICEN*")) == ["fast-json-patch", "qrcode-generator"]
    html = (WEB / "index.html").read_text()
    preloaded = re.findall(r'<link rel="modulepreload" href="js/([^"]+)">', html)
    boot, todo = set(), ["player.js"]
    while todo:
        name = todo.pop()
        if name not in boot:
            boot.add(name)
            todo += re.findall(r'(?:^|;)import(?:[^;"]*from)?"\./([^"]+)"', (WEB / "js" / name).read_text())
    assert set(preloaded) == boot and not any(s.startswith(("en-", "ko-", "ru-", "qrcode-", "display", "device")) for s in boot)
