"""``league serve``: the read-only API and the league page over a data folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from league.api.paths import DataPaths
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
    workers: Annotated[int, typer.Option(
        "--workers", envvar="LEAGUE_SERVE_WORKERS", min=1, max=64,
        help="uvicorn worker processes sharing the port (one per core; each keeps its own book index)")] = 1,
    accel_redirect: Annotated[str | None, typer.Option(
        "--accel-redirect", envvar="LEAGUE_SERVE_ACCEL_REDIRECT",
        help="behind nginx: the internal location aliasing the open-data folder (deploy/nginx-league.conf: "
             "/league-files/); files are then sent by nginx, league serve answers their headers only")] = None,
    view_cache: Annotated[bool, typer.Option(
        "--view-cache/--no-view-cache", envvar="LEAGUE_SERVE_VIEW_CACHE",
        help="keep each JSON view's encoded answer in the worker while the files it read are unchanged "
             "(off: every request recomputes its view)")] = True,
) -> None:
    """Serve the open data read-only at /, JSON views under /api, the book stream and the league page."""
    with extra("daemon"):
        import uvicorn

        from league.api.app import create_app, mount_beside
        from league.api.server import (
            HEADER_TIMEOUT_ENV,
            SERVE_PROTOCOL,
            WORKER_APP,
            WORKER_ARGS_ENV,
            WORKER_PROTOCOL,
            bind,
            header_timeout_protocol,
            run_on,
            worker_args,
        )
        from league.readers.service import readers_app_for

    if accel_redirect is not None and not (accel_redirect.startswith("/") and accel_redirect.endswith("/")):
        raise typer.BadParameter(f"{accel_redirect!r} is not a location prefix",
                                 param_hint="--accel-redirect (e.g. /league-files/)")
    if workers > 1:
        if readers:  # the readers' service writes its own book: one writer only
            raise typer.BadParameter("--readers runs in one process: serve the readers' service on its own "
                                     "(systemd/league-readers.service) or drop --workers", param_hint="--readers")
        DataPaths.resolve(data)  # a wrong folder fails here, once, not in every worker
        os.environ[WORKER_ARGS_ENV] = worker_args(data, db, accel_redirect, view_cache)
        os.environ[HEADER_TIMEOUT_ENV] = str(header_timeout)
        sock = bind(host, port, option="--port (LEAGUE_PORT)")  # first: the workers share the socket by its fd
        typer.echo(f"serving {data} on http://{host}:{port}/ with {workers} workers")
        uvicorn.run(WORKER_APP, factory=True, workers=workers, fd=sock.fileno(), log_level="warning",
                    log_config=None, access_log=False, http=WORKER_PROTOCOL)
        sock.close()
        return
    application = create_app(data, db_url=db, accel_redirect=accel_redirect, view_cache=view_cache)
    if readers:  # a separate app with its own state and book writer, mounted beside the read-only one
        mount_beside(application, "/readers", readers_app_for(load_config(config), SystemClock(),
                                                              secure_cookie=secure_cookie))
    sock = bind(host, port, option="--port (LEAGUE_PORT)")  # first: "serving on" is said only once the address is ours
    typer.echo(f"serving {data} on http://{host}:{port}/ (league page at /, open data at /index.html)")
    run_on(application, sock, http=header_timeout_protocol(header_timeout, SERVE_PROTOCOL))
