"""The AWS calls the handlers make, as IAM authorizes them (ops/permissions.py checks each against
the caller's execution role in the translated template; tests/functions/test_permissions.py).

`Recorder` is told which function runs (`recorder.runs("RestFunction", "create")`), and notes
what each request that function makes would ask IAM: botocore's `before-parameter-build` event (the API parameters) on the
boto3 clients the function uses (`watch(client)`), and a gateway wrapper (`RecordingGateway`)
for the `@connections` calls the functions tier's fake gateway stands in for. Each operation
becomes its IAM action(s) and resource ARN(s) with the condition keys the request carries:

- DynamoDB: the table's ARN from the request's TableName (the caller's account and region),
  `/index/<name>` for a Query of an index; `dynamodb:LeadingKeys` from the item's key or the
  Query's partition key condition; TransactWriteItems as its items (each Put, Update, Delete and
  ConditionCheck is authorized as PutItem, UpdateItem, DeleteItem, ConditionCheckItem, with
  `dynamodb:EnclosingOperation`: the DynamoDB guide's "Using IAM with DynamoDB transactions").
- Scheduler: CreateSchedule on the schedule's ARN, iam:PassRole of the target's role (passed to
  scheduler.amazonaws.com), and what that role then does when the schedule fires: invoke the
  target, send to the dead-letter queue.
- Secrets Manager: GetSecretValue on the secret's ARN as the function passes it (the TURN secret).
- S3 and Lambda (the site deployer): ListBucket on the bucket, Put/Get/DeleteObject on each
  object (DeleteObjects: each key), InvokeFunction on the (qualified) function.
- `@connections`: execute-api:ManageConnections on
  `arn:aws:execute-api:<region>:<account>:<api>/<stage>/<POST|DELETE|GET>/@connections/<id>`,
  the API and stage from the function's WS_MANAGEMENT_ENDPOINT.

An operation this module does not know is recorded as `<service>:<Operation>` on `*`, which no
policy of this template allows: a new kind of call fails the check until it is mapped here.
"""

from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from typing import Any

from ops.permissions import ACCOUNT, PARTITION, Call, Calls

ITEM_ACTIONS = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem"}


class Recorder:
    def __init__(self, region: str, key_schemas: dict[str, str]) -> None:
        """`key_schemas`: the partition key attribute of the table ("") and of each index by name."""
        self.region = region
        self.key_schemas = key_schemas
        self.calls = Calls()
        self.caller = ""
        self.path = ""
        self.endpoints: dict[str, str] = {}  # function -> its WS_MANAGEMENT_ENDPOINT
        self._lock = threading.Lock()

    @contextmanager
    def runs(self, function: str, path: str):
        """Calls made inside are `function`'s (one handler invocation at a time)."""
        before = self.caller, self.path
        self.caller, self.path = function, path
        try:
            yield
        finally:
            self.caller, self.path = before

    def note(self, action: str, resource: str, operation: str, caller: str | None = None, **context: Any) -> None:
        if not (caller or self.caller):
            raise AssertionError(f"{action} on {resource} outside a handler invocation")
        ctx = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in context.items()))
        with self._lock:
            self.calls.add(Call(caller or self.caller, action, resource, ctx, self.path, operation))

    # ---- botocore
    def watch(self, client: Any) -> Any:
        client.meta.events.register("before-parameter-build", self._request)
        return client

    def _request(self, model: Any, params: dict, **_: Any) -> None:
        service = model.service_model.endpoint_prefix
        handler = getattr(self, f"_{service.replace('-', '_')}", None)
        if handler is None or not handler(model.name, params):
            self.note(f"{model.service_model.signing_name}:{model.name}", "*", model.name)

    def _arn(self, service: str, rest: str) -> str:
        return f"arn:{PARTITION}:{service}:{self.region}:{ACCOUNT}:{rest}"

    def _dynamodb(self, op: str, p: dict) -> bool:
        def table(name: str) -> str:
            return self._arn("dynamodb", f"table/{name}")

        def pk(key: dict) -> list[str]:
            return [next(iter(key[self.key_schemas[""]].values()))]

        if op in ("GetItem", "DeleteItem", "UpdateItem"):
            self.note(f"dynamodb:{op}", table(p["TableName"]), op, **{"dynamodb:LeadingKeys": pk(p["Key"])})
        elif op == "PutItem":
            self.note("dynamodb:PutItem", table(p["TableName"]), op, **{"dynamodb:LeadingKeys": pk(p["Item"])})
        elif op == "Query":
            index = p.get("IndexName")
            resource = table(p["TableName"]) + (f"/index/{index}" if index else "")
            self.note("dynamodb:Query", resource, op, **{"dynamodb:LeadingKeys": [self._partition(p, index or "")]})
        elif op == "TransactWriteItems":
            for item in p["TransactItems"]:
                (kind, body), = item.items()
                key = body.get("Key") or body.get("Item")
                self.note(f"dynamodb:{ITEM_ACTIONS[kind]}", table(body["TableName"]), f"{op}/{kind}",
                          **{"dynamodb:LeadingKeys": pk(key), "dynamodb:EnclosingOperation": op})  # fmt: skip
        else:
            return False
        return True

    def _partition(self, p: dict, index: str) -> str:
        """The partition key value of a Query's key condition (`<name> = :value AND ...`)."""
        attr = self.key_schemas[index]
        names = p.get("ExpressionAttributeNames", {})
        for clause in re.split(r"\s+AND\s+", p["KeyConditionExpression"], flags=re.IGNORECASE):
            m = re.fullmatch(r"\s*(#?\w+)\s*=\s*(:\w+)\s*", clause)
            if m and names.get(m.group(1), m.group(1)) == attr:
                return next(iter(p["ExpressionAttributeValues"][m.group(2)].values()))
        raise AssertionError(f"a Query without an equality on {attr}: {p['KeyConditionExpression']}")

    def _scheduler(self, op: str, p: dict) -> bool:
        if op != "CreateSchedule":
            return False
        self.note("scheduler:CreateSchedule", self._arn("scheduler", f"schedule/{p.get('GroupName', 'default')}/{p['Name']}"), op)
        target = p["Target"]
        self.note("iam:PassRole", target["RoleArn"], op, **{"iam:PassedToService": "scheduler.amazonaws.com"})
        # when it fires, Scheduler acts as the target's role
        self.note("lambda:InvokeFunction", target["Arn"], "Scheduler invokes the target", caller=target["RoleArn"])
        if target.get("DeadLetterConfig"):
            self.note("sqs:SendMessage", target["DeadLetterConfig"]["Arn"], "Scheduler dead-letters", caller=target["RoleArn"])
        return True

    def _s3(self, op: str, p: dict) -> bool:
        bucket = f"arn:{PARTITION}:s3:::{p['Bucket']}"
        if op in ("ListObjectsV2", "ListObjects"):
            self.note("s3:ListBucket", bucket, op)
        elif op in ("PutObject", "GetObject", "DeleteObject"):
            self.note(f"s3:{op}", f"{bucket}/{p['Key']}", op)
        elif op == "DeleteObjects":
            for obj in p["Delete"]["Objects"]:
                self.note("s3:DeleteObject", f"{bucket}/{obj['Key']}", op)
        else:
            return False
        return True

    def _secretsmanager(self, op: str, p: dict) -> bool:
        if op != "GetSecretValue":
            return False
        self.note("secretsmanager:GetSecretValue", p["SecretId"], op)  # the ARN the function holds
        return True

    def _lambda(self, op: str, p: dict) -> bool:
        if op != "Invoke":
            return False
        name = p["FunctionName"]
        arn = name if name.startswith("arn:") else self._arn("lambda", f"function:{name}")
        self.note("lambda:InvokeFunction", arn, op)
        return True

    # ---- @connections
    def connection(self, verb: str, conn_id: str, operation: str) -> None:
        endpoint = self.endpoints[self.caller]
        m = re.fullmatch(r"https://([a-z0-9]+)\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/([^/]+)", endpoint)
        if not m:
            raise AssertionError(f"{self.caller}: WS_MANAGEMENT_ENDPOINT {endpoint} is no API Gateway stage")
        api, region, stage = m.groups()
        resource = f"arn:{PARTITION}:execute-api:{region}:{ACCOUNT}:{api}/{stage}/{verb}/@connections/{conn_id}"
        self.note("execute-api:ManageConnections", resource, operation)


class RecordingGateway:
    """A gateway (harness.gateways) whose every call is noted as the `@connections` request it stands for."""

    def __init__(self, inner: Any, recorder: Recorder) -> None:
        self.inner = inner
        self.recorder = recorder

    def post(self, connection_id: str, data: bytes) -> bool:
        self.recorder.connection("POST", connection_id, "PostToConnection")
        return self.inner.post(connection_id, data)

    def close(self, connection_id: str) -> None:
        self.recorder.connection("DELETE", connection_id, "DeleteConnection")
        return self.inner.close(connection_id)

    def alive(self, connection_id: str) -> bool:
        self.recorder.connection("GET", connection_id, "GetConnection")
        return self.inner.alive(connection_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
