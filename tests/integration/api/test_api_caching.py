"""HTTP caching over real HTTP with curl: `league serve` (the CLI, a subprocess) and real nginx in front of it.

Conditional GET (304 on a matching ETag and on If-Modified-Since), gzip on Accept-Encoding, ranges (206 on the
file's own bytes, even when gzip is accepted), Cache-Control per file kind, the streams never compressed. The
nginx half runs nginx with a configuration derived from deploy/nginx-league.conf (loopback ports, a temp folder)
and is skipped when nginx is not installed.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "publish"))

from season_fixture import Season, write_season  # noqa: E402

from league.publish import publish  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
NGINX_CONF = ROOT / "deploy" / "nginx-league.conf"
NGINX_HTTP_CONF = ROOT / "deploy" / "nginx-league-http.conf"
CURL = shutil.which("curl")
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(CURL is None, reason="curl is not installed")]

#: The Cache-Control each kind of file must carry (the policy docs/open-data.md states, written out here).
REVALIDATE = "public, no-cache"
IMMUTABLE = "public, max-age=31536000, immutable"
NIGHTLY = "public, max-age=300, must-revalidate"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class Site:
    base: str
    season: Season
    behind_nginx: bool


def curl(url: str, *headers: str, tmp: Path) -> Answer:
    """One GET with curl (no decoding: the bytes as sent), its status, headers (lower-case names) and body."""
    body, head = tmp / "body", tmp / "head"
    body.unlink(missing_ok=True)  # curl writes no file for an empty body (a 304)
    args = [str(CURL), "-s", "-S", "--max-time", "60", "-o", str(body), "-D", str(head)]
    for h in headers:
        args += ["-H", h]
    subprocess.run([*args, url], check=True, timeout=90)
    data = body.read_bytes() if body.exists() else b""
    lines = head.read_bytes().decode("latin-1").split("\r\n")
    fields = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if ":" in x)}
    return Answer(int(lines[0].split()[1]), fields, data)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(url: str, tmp: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done = subprocess.run([str(CURL), "-s", "-o", os.devnull, "-w", "%{http_code}", url],
                              capture_output=True, text=True, timeout=30)
        if done.stdout == "200":
            return
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=20)


def start_serve(data: Path, tmp: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """`league serve` (the command itself) over ``data`` on a free loopback port; (process, base URL)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", "from league.cli import main; main()", "serve", "--data",
                             str(data), "--port", str(port), "--host", "127.0.0.1", *extra], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{base}/healthz", tmp)
    except RuntimeError:
        stop(proc)
        raise
    return proc, base


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Season, Path]]:
    """`league serve` over a published fixture season."""
    tmp = tmp_path_factory.mktemp("caching")
    season = write_season(tmp / "data")
    publish(season.data)
    proc, base = start_serve(season.data, tmp)
    try:
        yield base, season, tmp
    finally:
        stop(proc)


def nginx_config(conf: str, app_port: int, public: Path, listen: int, work: Path) -> str:
    """An nginx.conf serving deploy/nginx-league.conf's locations on ``listen``, proxying to ``app_port``."""
    assert "127.0.0.1:8765" in conf and "/srv/league/data/public/" in conf, "deploy/nginx-league.conf changed shape"
    league = conf.replace("127.0.0.1:8765", f"127.0.0.1:{app_port}").replace("/srv/league/data/public/",
                                                                             f"{public}/")
    (work / "league.conf").write_text(league, encoding="utf-8")
    http = NGINX_HTTP_CONF.read_text(encoding="utf-8")
    assert "/var/cache/nginx/league" in http, "deploy/nginx-league-http.conf changed shape"
    (work / "http.conf").write_text(http.replace("/var/cache/nginx/league", f"{work}/cache"), encoding="utf-8")
    temps = "\n".join(f"    {k}_temp_path {work}/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    # nginx's workers run as this user (when started as root, not as nobody, who cannot read pytest's 0700 folders)
    user = pwd.getpwuid(os.geteuid()).pw_name
    return (f"daemon off;\nuser {user};\nworker_processes 1;\npid {work}/nginx.pid;\nerror_log {work}/error.log warn;\n"
            f"events {{ worker_connections 256; }}\nhttp {{\n    access_log off;\n{temps}\n"
            f"    default_type application/octet-stream;\n    include {work}/http.conf;\n"
            f"    server {{\n        listen 127.0.0.1:{listen};\n        include {work}/league.conf;\n    }}\n}}\n")


@pytest.fixture(scope="module")
def proxied(served: tuple[str, Season, Path]) -> Iterator[str]:
    """Real nginx in front of `league serve`, configured from deploy/nginx-league.conf; its /league/ base URL."""
    if NGINX is None:
        pytest.skip("nginx is not installed (apt-get install nginx)")
    _, season, tmp = served
    work = tmp / "nginx"
    work.mkdir()
    # the production command: two workers, and nginx sending the files league serve vets (X-Accel-Redirect)
    app, base = start_serve(season.data, tmp, "--workers", "2", "--accel-redirect", "/league-files/")
    port = free_port()
    conf = nginx_config(NGINX_CONF.read_text(encoding="utf-8"), int(base.rsplit(":", 1)[1]), season.public, port,
                        work)
    (work / "nginx.conf").write_text(conf, encoding="utf-8")
    proc = subprocess.Popen([NGINX, "-c", str(work / "nginx.conf"), "-p", str(work), "-e", str(work / "error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(f"http://127.0.0.1:{port}/league/api/league", tmp)
        yield f"http://127.0.0.1:{port}/league"
    finally:
        stop(proc)
        stop(app)


@pytest.fixture(params=["league serve", "nginx"])
def site(request: pytest.FixtureRequest, served: tuple[str, Season, Path]) -> Site:
    if request.param == "nginx":
        return Site(request.getfixturevalue("proxied"), served[1], True)
    return Site(served[0], served[1], False)


def manifest_sha256(season: Season, name: str) -> str:
    files = json.loads((season.public / "release-manifest.json").read_text(encoding="utf-8"))["files"]
    return str(next(f["sha256"] for f in files if f["name"] == name))


def an_ask(season: Season) -> str:
    return next(p for p in sorted((season.public / "asks").iterdir())).relative_to(season.public).as_posix()


FILES = ["council-stats.json", "council-book.jsonl", "protocol.md", "council-forecasts.csv"]


@pytest.mark.parametrize("name", FILES)
def test_a_matching_etag_is_answered_304_without_a_body(site: Site, name: str, tmp_path: Path) -> None:
    first = curl(f"{site.base}/{name}", tmp=tmp_path)
    assert first.status == 200 and first.body == (site.season.public / name).read_bytes(), first.headers
    assert "etag" in first.headers, first.headers
    again = curl(f"{site.base}/{name}", f"If-None-Match: {first.headers['etag']}", tmp=tmp_path)
    assert (again.status, again.body) == (304, b"")
    assert again.headers["etag"] == first.headers["etag"]
    other = curl(f"{site.base}/{name}", 'If-None-Match: "not-this-one"', tmp=tmp_path)
    assert other.status == 200 and other.body == first.body


@pytest.mark.parametrize("name", FILES)
def test_if_modified_since_is_answered_304_when_the_file_is_not_newer(site: Site, name: str, tmp_path: Path) -> None:
    first = curl(f"{site.base}/{name}", tmp=tmp_path)
    modified = parsedate_to_datetime(first.headers["last-modified"])
    assert curl(f"{site.base}/{name}", f"If-Modified-Since: {first.headers['last-modified']}",
                tmp=tmp_path).status == 304
    before = format_datetime(modified.replace(year=modified.year - 1), usegmt=True)
    assert curl(f"{site.base}/{name}", f"If-Modified-Since: {before}", tmp=tmp_path).status == 200


def test_the_files_league_serve_sends_carry_the_manifest_sha256_as_etag(site: Site, tmp_path: Path) -> None:
    name = "council-book.jsonl"  # sent by league serve behind nginx too (the embargo's file)
    data = (site.season.public / name).read_bytes()
    answer = curl(f"{site.base}/{name}", tmp=tmp_path)
    assert answer.headers["etag"] == f'"{hashlib.sha256(data).hexdigest()}"'
    assert answer.headers["etag"] == f'"{manifest_sha256(site.season, name)}"'


@pytest.mark.parametrize("name", ["council-stats.json", "council-book.jsonl", "council-forecasts.csv"])
def test_gzip_when_accepted_and_the_bytes_unchanged_otherwise(site: Site, name: str, tmp_path: Path) -> None:
    data = (site.season.public / name).read_bytes()
    zipped = curl(f"{site.base}/{name}", "Accept-Encoding: gzip", tmp=tmp_path)
    assert zipped.status == 200 and zipped.headers.get("content-encoding") == "gzip"
    assert gzip.decompress(zipped.body) == data and len(zipped.body) < len(data)
    assert "accept-encoding" in zipped.headers.get("vary", "").lower()
    assert zipped.headers["etag"].startswith("W/"), "a gzip body is not the file's bytes: its ETag is weak"
    plain = curl(f"{site.base}/{name}", tmp=tmp_path)
    assert "content-encoding" not in plain.headers and plain.body == data
    weak = curl(f"{site.base}/{name}", "Accept-Encoding: gzip", f"If-None-Match: {zipped.headers['etag']}",
                tmp=tmp_path)
    assert weak.status == 304


@pytest.mark.parametrize("name", ["council-stats.json", "council-book.jsonl"])
def test_a_range_is_answered_206_with_the_files_own_bytes_even_when_gzip_is_accepted(site: Site, name: str,
                                                                                      tmp_path: Path) -> None:
    data = (site.season.public / name).read_bytes()
    part = curl(f"{site.base}/{name}", "Range: bytes=10-109", "Accept-Encoding: gzip", tmp=tmp_path)
    assert part.status == 206 and part.body == data[10:110]
    assert "content-encoding" not in part.headers
    assert part.headers["content-range"] == f"bytes 10-109/{len(data)}"


def test_cache_control_follows_the_kind_of_file(site: Site, tmp_path: Path) -> None:
    kinds = {"council-book.jsonl": REVALIDATE, "asks.jsonl": REVALIDATE, an_ask(site.season): IMMUTABLE,
             "council-stats.json": NIGHTLY, "council-forecasts.csv": NIGHTLY, "protocol.md": NIGHTLY,
             "proof/2026-01-05/runs.txt": NIGHTLY}
    got = {name: curl(f"{site.base}/{name}", tmp=tmp_path).headers.get("cache-control") for name in kinds}
    assert got == kinds


@pytest.mark.parametrize("path", ["/api/league", "/api/grid", "/api/today", "/"])
def test_views_and_the_page_are_revalidated_with_an_etag(site: Site, path: str, tmp_path: Path) -> None:
    first = curl(f"{site.base}{path}", tmp=tmp_path)
    assert first.status == 200 and first.headers["cache-control"] == "no-cache"
    assert first.headers["etag"] == f'"{hashlib.sha256(first.body).hexdigest()}"'
    again = curl(f"{site.base}{path}", f"If-None-Match: {first.headers['etag']}", tmp=tmp_path)
    assert (again.status, again.body) == (304, b"")
    dated = curl(f"{site.base}{path}", f"If-Modified-Since: {first.headers['last-modified']}", tmp=tmp_path)
    assert dated.status == 304
    zipped = curl(f"{site.base}{path}", "Accept-Encoding: gzip", tmp=tmp_path)
    if len(first.body) >= 1024:
        assert gzip.decompress(zipped.body) == first.body


def test_the_stream_is_never_compressed_nor_stored(site: Site, tmp_path: Path) -> None:
    book = (site.season.public / "council-book.jsonl").read_bytes()
    lines = book.count(b"\n")
    answer = curl(f"{site.base}/api/stream?from={lines - 40}", "Accept-Encoding: gzip", tmp=tmp_path)
    assert answer.status == 200 and "content-encoding" not in answer.headers
    assert answer.headers["cache-control"] == "no-store" and "etag" not in answer.headers
    assert len(answer.body.splitlines()) == 41


def test_nginx_sends_the_other_files_itself(proxied: str, served: tuple[str, Season, Path], tmp_path: Path) -> None:
    """The production path: a nightly file comes from nginx (nginx's ETag: mtime-size in hex), the book is vetted
    by league serve (the embargo's file: the manifest's SHA-256) and sent by nginx; a name not on disk is league
    serve's 404; nginx's internal location is not reachable from outside."""
    season = served[1]
    stats = season.public / "council-stats.json"
    st = stats.stat()
    own = curl(f"{proxied}/council-stats.json", tmp=tmp_path)
    assert own.headers["etag"] == f'"{int(st.st_mtime):x}-{st.st_size:x}"'
    book = curl(f"{proxied}/council-book.jsonl", tmp=tmp_path)
    assert book.headers["etag"] == f'"{manifest_sha256(season, "council-book.jsonl")}"'
    assert book.headers["server"].startswith("nginx") and "x-accel-redirect" not in book.headers
    assert book.body == (season.public / "council-book.jsonl").read_bytes()
    missing = curl(f"{proxied}/no-such-file.json", tmp=tmp_path)
    assert missing.status == 404 and b"no-such-file.json" in missing.body, "league serve names the missing file"
    internal = curl(proxied.replace("/league", "/league-files/council-book.jsonl"), tmp=tmp_path)
    assert internal.status == 404
