"""``league readers serve``: the readers' write service in a process of its own (docs/readers.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import ConfigDir
from league.clock import SystemClock
from league.config import load_config
from league.extras import extra

readers_app = typer.Typer(help="The reader experiment: the readers' write service.", no_args_is_help=True)


@readers_app.command("serve")
def serve(
    config: ConfigDir = Path("config"),
    host: Annotated[str, typer.Option("--host", envvar="LEAGUE_READERS_HOST", help="address to listen on")] = (
        "127.0.0.1"),
    port: Annotated[int, typer.Option("--port", envvar="LEAGUE_READERS_PORT",
                                      help="TCP port (deploy/nginx-league.conf proxies /readers/ to 8766)")] = 8766,
    secure_cookie: Annotated[bool, typer.Option(
        "--secure-cookie/--no-secure-cookie", envvar="LEAGUE_READERS_SECURE_COOKIE",
        help="mark the readers' cookie Secure (behind https; off only for a local test over http)")] = True,
) -> None:
    """Take readers' forecasts at /readers/ and seal each in the readers' book; no access log, no address kept."""
    with extra("daemon"):
        from fastapi import FastAPI

        from league.api.server import bind, run_on
        from league.readers.service import readers_app_for

    outer = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    outer.mount("/readers", readers_app_for(load_config(config), SystemClock(), secure_cookie=secure_cookie))
    sock = bind(host, port, option="--port (LEAGUE_READERS_PORT)")  # first: announced only once it is ours
    typer.echo(f"readers' write service on http://{host}:{port}/readers/ (no access log, no address kept)")
    # behind nginx the client is the proxy: its X-Forwarded-For (from loopback only) is the address the limits hash
    run_on(outer, sock, proxy_headers=True, forwarded_allow_ips="127.0.0.1")


def register(app: typer.Typer) -> None:
    app.add_typer(readers_app, name="readers")
