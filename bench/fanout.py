"""The fan-out's client CPU: what one `PostToConnection` costs the handler's process, through the
real path (`service.config.build_service`'s `apigatewaymanagementapi` client, `fanout.ApiGateway`,
`fanout.push_all`) against a management API on a loopback port (a server in another process,
so its work is not counted; HTTP/1.1 with keep-alive, 200 and an empty body as API Gateway
answers a post).

    .venv/bin/python bench/fanout.py            # --quick: a few rounds (tests/bench)

Prints ONE JSON object:
  cpu_us_per_push          the process's CPU per push of a 12-frame fan-out (`push_all`, its pool
                           of threads), median of the rounds
  cpu_us_per_push_serial   the same frames posted one after the other on the calling thread
  wall_ms_per_fanout       wall time of a 12-frame fan-out, pooled and serial (loopback: the
                           server answers at once, so this is CPU and scheduling, not the wire)
  split_us_per_push        where a serial push's CPU goes (cProfile on process time, each
                           part's own functions): botocore's parameter validation and
                           serialising, SigV4 signing, the HTTP exchange (urllib3, http.client,
                           sockets), parsing the answer, the event hooks and retry handlers,
                           and the rest (botocore's client, endpoint and models; profiled, so
                           the parts add up to more than `cpu_us_per_push_serial`)
  new_client_cpu_us_per_push  one push through a client made for it (what one client per
                           process saves)
  connections_opened       TCP connections the service's client opened in the whole run, every
                           fan-out and serial post (keep-alive: its pool reuses them; one per
                           pool thread at most, never one per push)
Figures are this machine's, one full core; a Lambda at 1,024 MB gets 0.58 of a vCPU.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engine"), str(ROOT / "functions")]

METHOD = (
    "the handler's own client (service.config.build_service: one apigatewaymanagementapi client, "
    "botocore Config of the service) posting 600-byte frames through fanout.push_all and "
    "ApiGateway.post to a keep-alive HTTP/1.1 server in another process on a loopback port; "
    "process CPU (time.process_time) per push, median of rounds; split by cProfile on process time"
)
FRAMES = 12  # a 12-viewer action's fan-out
FRAME = b'{"type":"patch","version":7,"ops":[{"op":"add","path":"/chat/40","value":' + b'{"id":"d:1","text":"' + b"x" * 480 + b'"}}],"serverNow":1.0,"clockRate":1.0}'

_SERVER = textwrap.dedent(
    """
    import sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as API Gateway
        opened = 0

        def setup(self):
            super().setup()
            H.opened += 1

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self):  # the bench asks how many connections were opened
            body = str(H.opened).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    s = ThreadingHTTPServer(("127.0.0.1", 0), H)
    print(s.server_address[1], flush=True)
    s.serve_forever()
    """
)

# cProfile's functions, by file, into the parts a push spends its CPU on (first match wins)
PARTS = (
    ("signing", ("botocore/auth.py", "botocore/signers.py")),
    ("validate_and_serialize", ("botocore/validate.py", "botocore/serialize.py")),
    ("http", ("urllib3/", "botocore/httpsession.py", "botocore/awsrequest.py", "http/client.py", "socket.py")),
    ("parse_answer", ("botocore/parsers.py",)),
    ("retries_and_hooks", ("botocore/hooks.py", "botocore/retries/", "botocore/retryhandler.py")),
)


def start_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-c", _SERVER], stdout=subprocess.PIPE, text=True)
    port = proc.stdout.readline().strip()
    return proc, f"http://127.0.0.1:{port}"


def opened(url: str) -> int:
    import urllib.request

    with urllib.request.urlopen(url) as r:  # noqa: S310 - our own loopback server
        return int(r.read())


def split(gateway, conns: list[str]) -> dict:
    """cProfile (process time) of serial posts: each part's own time (its files' functions,
    exclusive), per push; `other` is the rest of `ApiGateway.post`."""
    prof = cProfile.Profile(time.process_time)
    prof.enable()
    for c in conns:
        gateway.post(c, FRAME)
    prof.disable()
    stats = pstats.Stats(prof).stats
    total = 0.0
    out = {part: 0.0 for part, _ in PARTS}
    for (file, _, name), (_, _, tt, ct, _) in stats.items():
        if name == "post" and file.endswith("infra/fanout.py"):
            total = ct
        part = next((part for part, files in PARTS if any(f in file for f in files)), None)
        if part is not None:
            out[part] += tt
    out["other"] = max(0.0, total - sum(out.values()))
    n = len(conns)
    return {k: round(v / n * 1e6) for k, v in out.items()} | {"total": round(total / n * 1e6)}


def run(rounds: int) -> dict:
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    proc, url = start_server()
    try:
        os.environ["WS_MANAGEMENT_ENDPOINT"] = url
        from service import config
        from service.infra import fanout

        svc = config.build_service()
        gw = svc.gateway
        conns = [f"conn{i}=" for i in range(FRAMES)]
        frames = {c: FRAME for c in conns}
        for _ in range(3):  # warm: the client's first call loads its models
            fanout.push_all(gw, frames)
        pooled, serial, wall_pooled, wall_serial = [], [], [], []
        for _ in range(rounds):
            w0, t0 = time.perf_counter(), time.process_time()
            fanout.push_all(gw, frames)
            pooled.append((time.process_time() - t0) / FRAMES)
            wall_pooled.append(time.perf_counter() - w0)
            w0, t0 = time.perf_counter(), time.process_time()
            for c in conns:
                gw.post(c, FRAME)
            serial.append((time.process_time() - t0) / FRAMES)
            wall_serial.append(time.perf_counter() - w0)
        parts = split(gw, conns * max(1, rounds // 4))
        connections = opened(url) - 1  # not the question's own
        fresh = []
        for _ in range(max(2, rounds // 10)):
            t0 = time.process_time()
            fanout.ApiGateway(config.boto3.client("apigatewaymanagementapi", endpoint_url=url)).post("x=", FRAME)
            fresh.append(time.process_time() - t0)
    finally:
        proc.terminate()
        proc.wait()
    return {
        "method": METHOD,
        "frames_per_fanout": FRAMES,
        "frame_bytes": len(FRAME),
        "rounds": rounds,
        "cpu_us_per_push": round(statistics.median(pooled) * 1e6),
        "cpu_us_per_push_serial": round(statistics.median(serial) * 1e6),
        "wall_ms_per_fanout": {
            "pooled": round(statistics.median(wall_pooled) * 1e3, 2),
            "serial": round(statistics.median(wall_serial) * 1e3, 2),
        },
        "split_us_per_push": parts,
        "new_client_cpu_us_per_push": round(statistics.median(fresh) * 1e6),
        "connections_opened": connections,
    }


def main() -> int:
    quick = "--quick" in sys.argv[1:]
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # Powertools may print EMF metrics (push_all counts); stdout carries only the result
    try:
        out = run(8 if quick else 200)
    finally:
        sys.stdout = real_stdout
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
