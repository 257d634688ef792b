"""`league doctor`: is bubblewrap working and isolating, is every seat's CLI and login in place, and
are the outside providers reachable (or replay configured)?"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from league.cli.seat import RosterOpt, load_specs
from league.config import Config, load_config, load_settings
from league.errors import LeagueError
from league.workers.broker import broker_report
from league_agents.registry import make_sandbox
from league_agents.selfcheck import static_checks
from sandbox.interface import SandboxError
from sandbox.selfcheck import Check, check_bwrap_installed, check_egress, check_isolation


def collect(roster: Path | None, probe: bool) -> list[Check]:
    """All checks, in order: bubblewrap, the isolation probe, then each seat's static checks."""
    checks: list[Check] = [check_bwrap_installed()]
    if probe:
        try:
            box = make_sandbox()
            checks += check_isolation(box)
            checks += check_egress(box)
        except SandboxError as exc:
            checks.append(Check("sandbox starts", False, exc.message, exc.fix or ""))
    try:
        specs = load_specs(roster)
    except Exception as exc:  # noqa: BLE001 - a broken roster is one failed check, not a crash
        return [*checks, Check("roster", False, str(getattr(exc, "message", exc)), getattr(exc, "fix", "") or "")]
    for spec in specs:
        if spec.worker:
            checks.append(Check(f"seat {spec.name}", True, f"runs on lab worker {spec.worker!r}: checked there "
                                "before each run (`league broker check` tests the lab's login)"))
            continue
        checks += static_checks(spec)
    return checks


YAHOO_HOST = "query2.finance.yahoo.com"


def reachable(url: str, timeout: float = 3.0) -> Check:
    """A TCP connection to the URL's host and port: enough to tell "down/blocked" from "up"."""
    parts = urlsplit(url if "://" in url else f"https://{url}")
    port = parts.port or (80 if parts.scheme == "http" else 443)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=timeout):
            return Check(f"reachable {parts.hostname}:{port}", True, url)
    except OSError as exc:
        return Check(f"reachable {parts.hostname}:{port}", False, f"{url}: {exc}", "check the network or the URL")


def config_checks(config_dir: Path, roster: Path | None) -> list[Check]:
    """The whole configuration as the daemon loads it (every file, every bound, the checks across files),
    then the files it names that must be in place before the first evening (the transparency log's key)."""
    try:
        config = load_config(config_dir, roster_file=roster.name if roster else "roster.toml")
    except LeagueError as exc:
        return [Check("configuration", False, exc.message, exc.fix or "")]
    checks = [Check("configuration", True, f"{config_dir}: {len(config.markets.markets)} markets, "
                    f"{len(config.roster.seat)} seats, every value within its bounds (docs/configuration.md)")]
    checks.append(books_check(config.data_dir))
    stamps = config.settings.stamps
    if stamps.rekor_url:
        key = config.data_dir / stamps.key
        checks.append(Check("stamps: signing key", key.is_file(), str(key),
                            "run `league init` (it makes the key) or set [stamps] key to the league's key"))
    return checks + news_checks(config)


def books_check(data_dir: Path) -> Check:
    """The data folder the config names holds the council book with its opening line. A config read from the
    wrong place (`league doctor` run bare in the repository clone reads its example config/, whose data/ is
    not there) or a data folder never initialised would otherwise pass every check and fail on the first job."""
    book = data_dir / "books" / "council-book.jsonl"
    size = book.stat().st_size if book.is_file() else 0
    return Check("data: books", size > 0, f"{book}: {size} bytes" if size else f"{book}: no book there",
                 "this data folder holds no league: `league init DIR` makes one (then --config DIR/config), or "
                 "point [paths] data in league.toml at the league's data folder")


def news_checks(config: Config) -> list[Check]:
    """The closed-book arm's headlines (docs/experiments.md): recorded feed files in place, or each feed URL
    reachable; nothing when no news provider is configured."""
    news = config.settings.news
    if news.provider == "recorded":
        folder = config.data_dir / news.recorded_dir
        feeds = sorted(folder.glob("*.xml")) if folder.is_dir() else []
        return [Check("news: recorded feeds", bool(feeds), f"{folder}: {len(feeds)} feed files",
                      "put the recorded RSS/Atom files there (one per publisher) or set [news] recorded_dir")]
    return [reachable(f.url) for f in news.feeds] if news.provider == "feeds" else []


def provider_checks(settings_file: Path) -> list[Check]:
    """Prices: replay configured, or Yahoo reachable; stamps: every configured authority reachable."""
    try:
        settings = load_settings(settings_file)
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return [Check("league.toml", False, str(getattr(exc, "message", exc)), getattr(exc, "fix", "") or "")]
    checks = [Check("prices: replay configured", True, "offline")] if settings.prices.provider == "replay" else []
    if settings.prices.provider == "yahoo":
        checks.append(reachable(f"https://{YAHOO_HOST}"))
    stamps = settings.stamps
    urls = [t.url for t in stamps.tsa] + list(stamps.ots_calendars) + ([stamps.rekor_url] if stamps.rekor_url else [])
    checks += [reachable(u) for u in urls]
    if stamps.local_tsa:
        checks.append(Check("stamps: local authorities configured", True, "offline"))
    return checks


def broker_checks(config_dir: Path, roster: Path | None) -> list[Check]:
    """When the roster names lab workers: the league reaches each lab's vhost and its two queues, and at
    least one worker consumes each lab's asks (`league broker status`, from league.toml's [workers])."""
    try:
        config = load_config(config_dir, roster_file=roster.name if roster else "roster.toml")
    except Exception:  # noqa: BLE001 - the roster/league.toml checks above already report it
        return []
    if not any(s.worker for s in config.roster.seat):
        return []
    checks = []
    for queue, st, problem in broker_report(config):
        if st is None:
            checks.append(Check(f"broker: lab {queue}", False, problem,
                                f"check [workers] in league.toml and `league broker add-lab {queue}`"))
        else:
            checks.append(Check(f"broker: lab {queue}", st.workers > 0,
                                f"{st.workers} workers, {st.asks_waiting} asks waiting, "
                                f"{st.replies_waiting} replies not yet taken",
                                f"start `league worker --queue {queue}` on the lab's host"))
    return checks


def doctor(
    roster: RosterOpt = None,
    config: Annotated[Path, typer.Option("--config", envvar="LEAGUE_CONFIG", help="config folder")] = Path("config"),
    providers: Annotated[
        bool,
        typer.Option(
            "--providers/--no-providers",
            envvar="LEAGUE_DOCTOR_PROVIDERS",
            help="check that price and stamp providers are reachable (or replay configured)",
        ),
    ] = True,
    probe: Annotated[
        bool,
        typer.Option(
            "--probe/--no-probe", envvar="LEAGUE_DOCTOR_PROBE", help="run the isolation probe inside a real sandbox"
        ),
    ] = True,
) -> None:
    """Check the sandbox, every seat and the providers; exit 1 if anything is broken."""
    checks = config_checks(config, roster) + collect(roster or config / "roster.toml", probe)
    if providers:
        checks += provider_checks(config / "league.toml")
    checks += broker_checks(config, roster)
    for c in checks:
        typer.echo(
            f"{'ok  ' if c.ok else 'FAIL'}  {c.name}: {c.detail}"
            + (f"\n        fix: {c.fix}" if not c.ok and c.fix else "")
        )
    failed = sum(not c.ok for c in checks)
    typer.echo(f"{len(checks) - failed} ok, {failed} failed")
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
