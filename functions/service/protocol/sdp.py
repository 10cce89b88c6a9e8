"""What a voice signal may carry (`frames.Signal`): a session description of known line
types for audio only, of bounded size, and ICE candidates as RFC 8839 writes them. A
signal is a signal: free text ("p4 is mafia") in any line, an unknown line or attribute,
a video or data section, is refused as `bad_frame`, so the relay is no private channel.

Each line is matched whole by the pattern of its type (and, for `a=`, of its attribute);
the patterns admit what Chromium, Firefox and Safari write for one audio transceiver.
"""

from __future__ import annotations

import re

MAX_SDP_CHARS = 6_000  # Chromium's audio offer is ~1,500; Firefox's ~1,100; trickled ICE
MAX_SDP_LINES = 120
MAX_CANDIDATE_CHARS = 256
MAX_MEDIA_SECTIONS = 1  # one audio transceiver per pair

_TOKEN = r"[A-Za-z0-9_.{}+/-]{1,64}"
_ICE_CHARS = r"[A-Za-z0-9+/]"
_IP4 = r"(?:\d{1,3}\.){3}\d{1,3}"
_IP6 = r"[0-9A-Fa-f:.]{2,45}"
_MDNS = r"[0-9a-fA-F-]{36}\.local"
_ADDR = rf"(?:{_IP4}|{_IP6}|{_MDNS})"
_PORT = r"\d{1,5}"
_DIR = r"(?:sendrecv|sendonly|recvonly|inactive)"
_EXT_URI = (
    r"(?:urn:ietf:params:rtp-hdrext:[A-Za-z0-9:_-]{1,64}"
    r"|http://www\.webrtc\.org/experiments/rtp-hdrext/[a-z0-9-]{1,64}"
    r"|http://www\.ietf\.org/id/draft-[a-z0-9-]{1,80})"
)

CANDIDATE = re.compile(
    rf"candidate:{_ICE_CHARS}{{1,32}} \d{{1,3}} (?:udp|tcp|UDP|TCP) \d{{1,10}} {_ADDR} {_PORT}"
    rf" typ (?:host|srflx|prflx|relay)(?: raddr {_ADDR} rport {_PORT})?"
    r"(?: tcptype (?:active|passive|so))?(?: generation \d{1,10})?"
    rf"(?: ufrag {_ICE_CHARS}{{1,256}})?(?: network-id \d{{1,5}})?(?: network-cost \d{{1,5}})?"
)
MID = re.compile(r"[A-Za-z0-9_-]{1,32}")
UFRAG = re.compile(rf"{_ICE_CHARS}{{1,256}}")

_LINES = {
    "v": re.compile(r"0"),
    "o": re.compile(rf"[A-Za-z0-9_.-]{{1,64}} \d{{1,20}} \d{{1,20}} IN IP[46] {_ADDR}"),
    "s": re.compile(r"-"),
    "t": re.compile(r"\d{1,20} \d{1,20}"),
    "c": re.compile(rf"IN IP[46] {_ADDR}"),
    "b": re.compile(r"(?:AS|TIAS|CT):\d{1,10}"),
    "m": re.compile(rf"audio {_PORT} (?:UDP/TLS/RTP/SAVPF|RTP/SAVPF|UDP/TLS/RTP/SAVP)(?: \d{{1,3}}){{1,32}}"),
}
_ATTRIBUTES = {
    "group": re.compile(r"BUNDLE(?: [A-Za-z0-9_-]{1,32}){0,4}"),
    "extmap-allow-mixed": None,
    "msid-semantic": re.compile(rf" ?WMS(?: (?:\*|{_TOKEN}))*"),
    "rtcp": re.compile(rf"{_PORT}(?: IN IP[46] {_ADDR})?"),
    "ice-ufrag": re.compile(rf"{_ICE_CHARS}{{4,256}}"),
    "ice-pwd": re.compile(rf"{_ICE_CHARS}{{22,256}}"),
    "ice-options": re.compile(r"(?:trickle|renomination|ice2)(?: (?:trickle|renomination|ice2))*"),
    "ice-lite": None,
    "fingerprint": re.compile(r"(?:sha-1|sha-224|sha-256|sha-384|sha-512) [0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){15,63}"),
    "setup": re.compile(r"actpass|active|passive|holdconn"),
    "mid": MID,
    "extmap": re.compile(rf"\d{{1,5}}(?:/{_DIR})? {_EXT_URI}"),
    "sendrecv": None,
    "sendonly": None,
    "recvonly": None,
    "inactive": None,
    "msid": re.compile(rf"(?:-|{_TOKEN})(?: {_TOKEN})?"),
    "rtcp-mux": None,
    "rtcp-mux-only": None,
    "rtcp-rsize": None,
    "rtcp-xr": re.compile(r"[a-z-]{1,32}(?:=[a-z0-9-]{1,16})?(?: [a-z-]{1,32}(?:=[a-z0-9-]{1,16})?)*"),
    "rtpmap": re.compile(r"\d{1,3} [A-Za-z0-9_-]{1,32}/\d{1,6}(?:/\d{1,2})?"),
    "rtcp-fb": re.compile(r"(?:\d{1,3}|\*) [a-z-]{1,32}(?: [a-z-]{1,32})?"),
    "fmtp": re.compile(r"\d{1,3} [A-Za-z0-9_-]{1,32}(?:=[0-9/-]{1,16})?(?:;[A-Za-z0-9_-]{1,32}(?:=[0-9/-]{1,16})?){0,16}"
                       r"|\d{1,3} \d{1,3}(?:/\d{1,3}){0,8}|\d{1,3} \d{1,3}-\d{1,3}"),
    "ssrc": re.compile(rf"\d{{1,10}} (?:cname|msid|mslabel|label):{_TOKEN}(?: {_TOKEN})?"),
    "ssrc-group": re.compile(r"(?:FID|FEC-FR)(?: \d{1,10}){1,4}"),
    "candidate": None,  # checked as an ICE candidate
    "end-of-candidates": None,
    "ptime": re.compile(r"\d{1,4}"),
    "maxptime": re.compile(r"\d{1,4}"),
}


def candidate_ok(text: str) -> bool:
    """An ICE candidate line (without `a=`), or "" (the end of candidates)."""
    return text == "" or (len(text) <= MAX_CANDIDATE_CHARS and CANDIDATE.fullmatch(text) is not None)


def why_not(sdp: str) -> str | None:
    """None if `sdp` is an audio-only session description of known lines, else why not."""
    if len(sdp) > MAX_SDP_CHARS:
        return f"a session description is at most {MAX_SDP_CHARS} characters"
    lines = sdp.split("\r\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or len(lines) > MAX_SDP_LINES:
        return f"a session description is 1 to {MAX_SDP_LINES} lines ending in CRLF"
    if lines[0] != "v=0":
        return "a session description begins with v=0"
    media = 0
    for n, line in enumerate(lines, 1):
        kind, eq, value = line[:1], line[1:2], line[2:]
        if eq != "=":
            return f"line {n} is not <type>=<value>"
        if kind == "a":
            name, _, rest = value.partition(":")
            if name not in _ATTRIBUTES:
                return f"line {n}: unknown attribute"
            pattern = _ATTRIBUTES[name]
            if name == "candidate":
                if not candidate_ok(value):
                    return f"line {n}: not an ICE candidate"
            elif pattern is None:
                if rest or ":" in value:
                    return f"line {n}: this attribute takes no value"
            elif pattern.fullmatch(rest) is None:
                return f"line {n}: malformed a={name}"
            continue
        pattern = _LINES.get(kind)
        if pattern is None:
            return f"line {n}: unknown line type (audio sessions use v o s t c b m a)"
        if pattern.fullmatch(value) is None:
            return f"line {n}: malformed {kind}= line" + (" (audio only)" if kind == "m" else "")
        if kind == "m":
            media += 1
            if media > MAX_MEDIA_SECTIONS:
                return "one audio section only"
    if media == 0:
        return "an audio section (m=audio) is required"
    return None


MAX_LISTENER_SDP_CHARS = 2_500  # a listener's answer: receive-only audio (Chromium's ~1,200)


def sends_audio(sdp: str) -> bool:
    """Whether a session description offers to send audio (a listener's answer must not)."""
    for line in sdp.split("\r\n"):
        if line in ("a=sendrecv", "a=sendonly") or line.startswith(("a=ssrc:", "a=msid:")):
            return True
    return False
