"""The offline stack serves the client compressed as CloudFront does: gzip for text assets of
1,000 bytes and more when the request accepts it, as they are otherwise; images as they are."""

from __future__ import annotations

import gzip

import aiohttp

from local import webbuild

from .stackproc import run

WEB = webbuild.BUILT  # the built client the stack serves (start_stack builds it first)


async def _get(http: aiohttp.ClientSession, url: str, accept: str | None, **headers):
    if accept is not None:
        headers["Accept-Encoding"] = accept
    # auto_decompress off: the test reads the bytes on the wire
    async with http.get(url, headers=headers) as r:
        return r.status, r.headers.copy(), await r.read()


def test_text_assets_come_gzipped_when_accepted(fake_stack):
    async def body():
        async with aiohttp.ClientSession(auto_decompress=False) as http:
            ko = next(WEB.glob("js/ko-*.js")).relative_to(WEB).as_posix()  # a language's chunk
            for path in ("", "js/player.js", "style.css", ko):
                plain = (WEB / (path or "index.html")).read_bytes()
                assert len(plain) >= 1000, path
                status, headers, data = await _get(http, fake_stack.url + path, "gzip, deflate, br")
                assert status == 200, path
                assert headers.get("Content-Encoding") == "gzip", (path, headers)
                assert headers.get("Vary") == "Accept-Encoding"
                assert int(headers["Content-Length"]) == len(data) < len(plain)
                assert gzip.decompress(data) == plain, path
                # revalidation answers 304 without a body
                status, _, data = await _get(http, fake_stack.url + path, "gzip", **{"If-None-Match": headers["ETag"]})
                assert (status, data) == (304, b""), path
                # no Accept-Encoding, or gzip refused: the file as it is
                for accept in ("identity", "gzip;q=0, br;q=0"):
                    status, headers, data = await _get(http, fake_stack.url + path, accept)
                    assert status == 200 and "Content-Encoding" not in headers, (path, accept, headers)
                    assert data == plain

    run(body())


def test_small_files_and_config_are_not_compressed(fake_stack):
    async def body():
        async with aiohttp.ClientSession(auto_decompress=False) as http:
            small = min((p for p in WEB.rglob("*.js") if p.stat().st_size < 1000), key=lambda p: p.stat().st_size)
            status, headers, data = await _get(http, fake_stack.url + small.relative_to(WEB).as_posix(), "gzip")
            assert status == 200 and "Content-Encoding" not in headers
            assert data == small.read_bytes()

    run(body())
