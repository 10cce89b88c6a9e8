"""The deploy rehearsal (ops/rehearsal.py): dev and prod as samconfig.toml deploys them, through
the SAM transform, cfn-lint on the translated template, a stack on a moto server, the site
deployer on its custom resource, and the stack's deletion. Each deliberate break below is a
defect a real first deploy would hit, and the rehearsal must fail on it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from local import webbuild
from ops import rehearsal

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_each_samconfig_environment_deploys_publishes_the_site_and_deletes(env, monkeypatch):
    said: list[str] = []
    rehearsal.rehearse(env, monkeypatch.setattr, say=said.append)
    assert any("cfn-lint clean" in line for line in said)
    assert any("/sw.js, the manifest" in line for line in said)
    assert said[-2].endswith("the table kept" if env == "prod" else "the table deleted with it")


def _template(tmp_path: Path, old: str, new: str) -> Path:
    text = (ROOT / "template.yaml").read_text()
    assert old in text, old
    broken = tmp_path / "template.yaml"
    broken.write_text(text.replace(old, new, 1))
    return broken


@pytest.mark.parametrize(("old", "new", "finding"), [
    ("    Runtime: python3.11\n", "    Runtime: python9.99\n", "cfn-lint"),
    ("            RestApiId: !Ref RestApi\n            Path: /rooms\n",
     "            RestApiId: !Ref NoSuchApi\n            Path: /rooms\n", "SAM transform"),
    ("      KmsMasterKeyId: !Ref AlarmTopicKey\n", "      KmsMasterKeyId: alias/aws/sns\n", "AWS managed key"),
    ("    DeletionPolicy: !If [ProtectTable, Retain, Delete]\n", "    DeletionPolicy: Delete\n", "table is gone"),
], ids=["bad-runtime", "ref-to-a-missing-api", "aws-managed-key-topic", "prod-loses-its-table"])  # fmt: skip
def test_the_rehearsal_fails_on_a_broken_template(old, new, finding, tmp_path, monkeypatch):
    broken = _template(tmp_path, old, new)
    with pytest.raises(rehearsal.RehearsalFailed, match=finding):
        rehearsal.rehearse("prod", monkeypatch.setattr, template=broken)


def _site(tmp_path: Path, old: str, new: str) -> Path:
    """The site deployer's artifact (its layout as built), its handler changed; under a hidden
    folder, as `sam build` puts it (.aws-sam/build/...)."""
    art = tmp_path / ".aws-sam" / "build" / "SiteDeployFunction"
    shutil.copytree(ROOT / "functions" / "sitedeploy", art / "sitedeploy")
    shutil.copytree(webbuild.built(), art / "web")
    handler = art / "sitedeploy" / "handler.py"
    text = handler.read_text()
    assert old in text, old
    handler.write_text(text.replace(old, new, 1))
    return art


@pytest.mark.parametrize(("old", "new", "finding"), [
    # the hidden-file filter testing absolute path parts: under .aws-sam it finds no index.html
    ("for p in rel.parts)", "for p in path.parts)", "CREATE_IN_PROGRESS"),
    # the service worker under the release: its scope could not cover the site
    ('objects[WORKER] = (worker.encode("utf-8"), NO_CACHE)', 'objects[prefix + WORKER] = (worker.encode("utf-8"), IMMUTABLE)',
     "/sw.js is not at the site's root"),
    # versioned assets that may be cached for a day only
    ('IMMUTABLE = "public, max-age=31536000, immutable"', 'IMMUTABLE = "public, max-age=86400"', "not immutable"),
    # a Delete that reads its properties (CloudFormation may send none)
    ('        physical = event.get("PhysicalResourceId") or ""\n',
     '        physical = event["ResourceProperties"]["BucketName"]\n', "Delete left"),
], ids=["hidden-filter-absolute", "worker-under-the-release", "assets-not-immutable", "delete-reads-properties"])  # fmt: skip
def test_the_rehearsal_fails_on_a_broken_site_deployer(old, new, finding, tmp_path, monkeypatch):
    site = _site(tmp_path, old, new)
    with pytest.raises(rehearsal.RehearsalFailed, match=re.escape(finding)):
        rehearsal.rehearse("dev", monkeypatch.setattr, site=site)


def test_a_type_moto_cannot_model_fails_until_it_is_listed(tmp_path, monkeypatch):
    broken = _template(tmp_path, "  # ------------------------------------------------------------------ data\n",
                       "  Unlisted:\n    Type: AWS::CodeStarConnections::Connection\n"
                       "    Properties: {ConnectionName: x, ProviderType: GitHub}\n")  # fmt: skip
    with pytest.raises(rehearsal.RehearsalFailed, match="AWS::CodeStarConnections::Connection"):
        rehearsal.rehearse("dev", monkeypatch.setattr, template=broken)


def test_the_web_acl_on_cloudfront_is_rehearsed(monkeypatch):
    """prod with WafRateLimit above 0 (as `--parameter-overrides` adds it): the web ACL on the
    distribution (CLOUDFRONT scope, the /api/ scope-down) created, translated and linted."""
    said: list[str] = []
    rehearsal.rehearse("prod", monkeypatch.setattr, say=said.append, overrides={"WafRateLimit": "100"})
    assert any("cfn-lint clean" in line for line in said)
    translated = rehearsal.translated_for(rehearsal.environment("prod"), rehearsal.TEMPLATE)
    acl = translated["Resources"]["RestWebAcl"]
    assert acl["Properties"]["Scope"] == "CLOUDFRONT"
    dist = translated["Resources"]["WebDistribution"]["Properties"]["DistributionConfig"]
    assert dist["WebACLId"] == {"Fn::If": ["HasWaf", {"Fn::GetAtt": ["RestWebAcl", "Arn"]}, {"Ref": "AWS::NoValue"}]}


@pytest.mark.parametrize("limit", ["5", "9", "-1", "1e3", "100000000000"])
def test_a_waf_limit_outside_waf_s_range_fails_the_rehearsal(limit, monkeypatch):
    """A rate limit WAF would refuse after everything else was created (below its minimum of 10)
    is refused with the parameters, before anything is made."""
    with pytest.raises(rehearsal.RehearsalFailed, match="refuses the parameters: WafRateLimit"):
        rehearsal.rehearse("prod", monkeypatch.setattr, overrides={"WafRateLimit": limit})
    assert rehearsal.parameter_problems(rehearsal.TEMPLATE, {"WafRateLimit": "10"}) == []
