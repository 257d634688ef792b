"""``league serve``: the read-only API and the league page over a data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import ConfigDir, DataDir
from league.clock import SystemClock
from league.config import load_config
from league.extras import extra


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def serve(
    data: DataDir = Path("data"),
    host: Annotated[str, typer.Option("--host", envvar="LEAGUE_HOST", help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(
        "--port", envvar="LEAGUE_PORT", help="TCP port (deploy/nginx-league.conf proxies to 8765)")] = 8765,
    header_timeout: Annotated[float, typer.Option(
        "--header-timeout", envvar="LEAGUE_HEADER_TIMEOUT", min=0.1,
        help="seconds a client has to send a request's headers before the connection is closed")] = 10.0,
    db: Annotated[str | None, typer.Option(
        "--db", envvar="LEAGUE_DB_URL",
        help="database whose book index the API starts from (default: the league's, from the config "
             "beside DATA or DATA/league.db; '' reads the whole book)")] = None,
    readers: Annotated[bool, typer.Option(
        "--readers/--no-readers", envvar="LEAGUE_SERVE_READERS",
        help="mount the readers' write service (docs/readers.md) under /readers beside the read-only API")] = False,
    config: ConfigDir = Path("config"),
    secure_cookie: Annotated[bool, typer.Option(
        "--secure-cookie/--no-secure-cookie", envvar="LEAGUE_READERS_SECURE_COOKIE",
        help="mark the readers' cookie Secure (behind https; off only for a local test over http)")] = True,
) -> None:
    """Serve the open data read-only at /, JSON views under /api, the book stream and the league page."""
    with extra("daemon"):
        from league.api import create_app
        from league.api.app import mount_beside
        from league.api.server import bind, header_timeout_protocol, run_on
        from league.readers.service import readers_app_for

    application = create_app(data, db_url=db)
    if readers:  # a separate app with its own state and book writer, mounted beside the read-only one
        mount_beside(application, "/readers", readers_app_for(load_config(config), SystemClock(),
                                                              secure_cookie=secure_cookie))
    sock = bind(host, port, option="--port (LEAGUE_PORT)")  # first: "serving on" is said only once the address is ours
    typer.echo(f"serving {data} on http://{host}:{port}/ (league page at /, open data at /index.html)")
    run_on(application, sock, http=header_timeout_protocol(header_timeout))
