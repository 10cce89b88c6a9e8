"""Dead-lettered phase timeouts: `python -m ops.timers list | replay`.

EventBridge Scheduler retries a phase timeout it cannot deliver to the timer function
(`RetryPolicy` in functions/service/infra/timers.py), then puts it in the stack's dead-letter queue
(the target's `DeadLetterConfig`, template.yaml `TimerDeadLetterQueue`). A room whose players
are all offline then waits in an ended phase: nobody nudges it. `list` shows those timeouts;
`replay` hands each to the timer function again, exactly as Scheduler would have, and deletes
it from the queue once the function has answered. A replay is safe however late or often: the
timeout names the phase seq it ends, so the engine applies it once and answers
`stale_timeout` for a phase already over (docs/operations.md, "A stuck room").

    python -m ops.timers --stack mafia-prod list               # reads the stack's outputs
    python -m ops.timers --stack mafia-prod replay [--room CODE]
    python -m ops.timers --queue-url URL --function NAME list  # or name them (env
        # TIMER_DEAD_LETTER_URL, TIMER_FUNCTION_NAME: outputs TimerDeadLetterQueueUrl, TimerFunctionName)

The operator needs `sqs:ReceiveMessage`, `sqs:ChangeMessageVisibility`, `sqs:DeleteMessage`
on the queue, `lambda:InvokeFunction` on the timer function, and with `--stack`
`cloudformation:DescribeStacks`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from ops.reports import _safe

# Scheduler's names for our schedules: service/infra/timers.py schedule_name (mafia-CODE-SEQ-AT)
SCHEDULE_NAME = re.compile(r"/mafia-(?P<room>[A-Za-z0-9]{4,8})-(?P<phase>\d+)-(?P<at>\d+)$")
# A receive hides the messages for this long; `list` gives them back at once, `replay` as it goes.
HOLD_SECONDS = 120


@dataclass
class DeadTimer:
    """One dead-lettered message: the timeout it carries (None when unreadable) and why
    Scheduler gave up (its message attributes)."""

    message_id: str
    receipt: str
    sent_at: float
    timeout: dict[str, Any] | None
    attributes: dict[str, str] = field(default_factory=dict)
    body: str = ""

    @property
    def room(self) -> str | None:
        return self.timeout["room"] if self.timeout else None


def _timeout(body: str, schedule_arn: str) -> dict[str, Any] | None:
    """The `{"room", "phase", "at"}` a message carries: its body (the target's Input), or the
    schedule's name when the body is not one."""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if (
        isinstance(data, dict)
        and isinstance(data.get("room"), str)
        and isinstance(data.get("phase"), int)
        and isinstance(data.get("at"), int | None)
    ):
        return {"room": data["room"].upper(), "phase": data["phase"], "at": data.get("at")}
    m = SCHEDULE_NAME.search(schedule_arn or "")
    if m:
        return {"room": m["room"].upper(), "phase": int(m["phase"]), "at": int(m["at"])}
    return None


def receive(sqs: Any, queue_url: str, limit: int = 1000) -> list[DeadTimer]:
    """Every message in the queue (up to `limit`), each hidden for HOLD_SECONDS from other
    readers; give back what is not deleted with `release`."""
    found: dict[str, DeadTimer] = {}
    while len(found) < limit:
        answer = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=10,
            VisibilityTimeout=HOLD_SECONDS,
            WaitTimeSeconds=0,
            MessageAttributeNames=["All"],
            MessageSystemAttributeNames=["SentTimestamp"],
        )
        messages = answer.get("Messages") or []
        if not messages:
            break
        for m in messages:
            attrs = {k: str(v.get("StringValue", "")) for k, v in (m.get("MessageAttributes") or {}).items()}
            found[m["MessageId"]] = DeadTimer(
                message_id=m["MessageId"],
                receipt=m["ReceiptHandle"],
                sent_at=int((m.get("Attributes") or {}).get("SentTimestamp", "0")) / 1000,
                timeout=_timeout(m.get("Body", ""), attrs.get("SCHEDULE_ARN", "")),
                attributes=attrs,
                body=m.get("Body", ""),
            )
    return sorted(found.values(), key=lambda d: (d.sent_at, d.message_id))


def release(sqs: Any, queue_url: str, timers: Iterable[DeadTimer]) -> None:
    """Make messages visible again at once (they stay in the queue)."""
    batch = [{"Id": str(i), "ReceiptHandle": t.receipt, "VisibilityTimeout": 0} for i, t in enumerate(timers)]
    for i in range(0, len(batch), 10):
        sqs.change_message_visibility_batch(QueueUrl=queue_url, Entries=batch[i : i + 10])


def lambda_invoker(client: Any, function_name: str) -> Callable[[dict], dict]:
    """Call the timer function synchronously with a timeout, as Scheduler does (but waiting
    for its answer); raises when the function failed."""

    def fire(timeout: dict) -> dict:
        res = client.invoke(FunctionName=function_name, InvocationType="RequestResponse", Payload=json.dumps(timeout))
        payload = json.loads(res["Payload"].read() or b"null")
        if res.get("FunctionError"):
            raise RuntimeError(f"the timer function failed: {payload}")
        return payload if isinstance(payload, dict) else {"outcome": str(payload)}

    return fire


def stack_outputs(cfn: Any, stack: str) -> dict[str, str]:
    """A deployed stack's outputs by key (template.yaml Outputs)."""
    (found,) = cfn.describe_stacks(StackName=stack)["Stacks"]
    return {o["OutputKey"]: o["OutputValue"] for o in found.get("Outputs") or []}


def _when(at: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(at)) if at else "-"


def _describe(t: DeadTimer) -> str:
    why = t.attributes.get("ERROR_CODE") or "?"
    tries = t.attributes.get("RETRY_ATTEMPTS")
    if t.timeout is None:
        return f"{t.message_id}  dead-lettered {_when(t.sent_at)}  unreadable body {_safe(t.body[:80])!s}"
    at = t.timeout.get("at")
    return (
        f"{t.message_id}  dead-lettered {_when(t.sent_at)}  room {t.timeout['room']}  "
        f"phase {t.timeout['phase']}  due {_when(at)}  {_safe(why)}"
        + (f" after {_safe(tries)} retries" if tries else "")
    )


def cmd_list(sqs: Any, queue_url: str, out: TextIO, as_json: bool = False) -> int:
    found = receive(sqs, queue_url)
    try:
        if as_json:
            rows = [
                {"messageId": t.message_id, "sentAt": t.sent_at, "timeout": t.timeout, "attributes": t.attributes}
                for t in found
            ]
            out.write(json.dumps(rows, ensure_ascii=False) + "\n")
        elif not found:
            out.write("no dead-lettered timeouts\n")
        else:
            for t in found:
                out.write(_describe(t) + "\n")
    finally:
        release(sqs, queue_url, found)
    return 0


def cmd_replay(sqs: Any, queue_url: str, fire: Callable[[dict], dict], out: TextIO, room: str | None = None) -> int:
    """Replay each readable timeout (of `room` only, when given) through `fire`; delete it once
    fired, keep it (visible again) when the function failed or the message is unreadable."""
    found = receive(sqs, queue_url)
    keep, failed = [], 0
    for t in found:
        if t.timeout is None or (room and t.room != room.upper()):
            if t.timeout is None:
                out.write(f"{t.message_id}  kept: unreadable body\n")
            keep.append(t)
            continue
        try:
            answer = fire(t.timeout)
        except Exception as exc:  # noqa: BLE001 - report it, keep the message, go on with the others
            failed += 1
            keep.append(t)
            out.write(f"{t.message_id}  room {t.room} phase {t.timeout['phase']}: kept, {_safe(str(exc))[:200]}\n")
            continue
        sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=t.receipt)
        outcome = answer.get("outcome", "?")
        out.write(f"{t.message_id}  room {t.room} phase {t.timeout['phase']}: {_safe(str(outcome))}\n")
    release(sqs, queue_url, keep)
    replayed = len(found) - len(keep)
    out.write(f"replayed {replayed}, kept {len(keep)}" + (f" ({failed} failed)" if failed else "") + "\n")
    return 1 if failed else 0


def main(
    argv: list[str] | None = None, out: TextIO | None = None, sqs: Any = None, fire: Any = None, cfn: Any = None
) -> int:
    out = out or sys.stdout
    p = argparse.ArgumentParser(prog="python -m ops.timers", description="List and replay dead-lettered phase timeouts.")
    p.add_argument("--stack", default=os.environ.get("STACK_NAME"),
                   help="a deployed stack (e.g. mafia-prod): its outputs name the queue and the function")
    p.add_argument("--queue-url", default=os.environ.get("TIMER_DEAD_LETTER_URL"),
                   help="the dead-letter queue (stack output TimerDeadLetterQueueUrl; env TIMER_DEAD_LETTER_URL)")
    p.add_argument("--function", default=os.environ.get("TIMER_FUNCTION_NAME"),
                   help="the timer function (stack output TimerFunctionName; env TIMER_FUNCTION_NAME)")
    p.add_argument("--json", action="store_true", help="list as JSON")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the dead-lettered timeouts, oldest first (they stay in the queue)")
    rp = sub.add_parser("replay", help="fire each through the timer function again, then delete it")
    rp.add_argument("--room", help="only this room's timeouts")
    args = p.parse_args(argv)  # fmt: skip
    if args.stack:
        if cfn is None:
            import boto3

            cfn = boto3.client("cloudformation")
        outputs = stack_outputs(cfn, args.stack)
        args.queue_url = args.queue_url or outputs.get("TimerDeadLetterQueueUrl")
        args.function = args.function or outputs.get("TimerFunctionName")
    if not args.queue_url:
        p.error("--stack, --queue-url or TIMER_DEAD_LETTER_URL is required")
    if sqs is None:
        import boto3

        sqs = boto3.client("sqs")
    if args.command == "list":
        return cmd_list(sqs, args.queue_url, out, args.json)
    if fire is None:
        if not args.function:
            p.error("--stack, --function or TIMER_FUNCTION_NAME is required to replay")
        import boto3

        fire = lambda_invoker(boto3.client("lambda"), args.function)
    return cmd_replay(sqs, args.queue_url, fire, out, args.room)


if __name__ == "__main__":
    sys.exit(main())
