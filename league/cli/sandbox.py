"""`league sandbox exec`: run any command in exactly the sandbox a seat gets, to inspect it."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from league_agents.registry import make_sandbox
from sandbox.interface import SandboxError
from sandbox.netpolicy import EgressRules
from sandbox.selfcheck import Check, check_bwrap_installed, check_isolation

sandbox_app = typer.Typer(help="Inspect the bubblewrap sandbox the seats run in.", no_args_is_help=True)


@sandbox_app.command("exec", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def exec_(
    cmd: Annotated[list[str], typer.Argument(help="command and its arguments (put them after --)")],
    profile: Annotated[
        str,
        typer.Option(
            "--profile", envvar="LEAGUE_SANDBOX_PROFILE", help="default, scripted, claude, codex, gemini, grok"
        ),
    ] = "default",
    network: Annotated[
        str,
        typer.Option("--network", envvar="LEAGUE_SANDBOX_NETWORK",
                     help="none (no network), api (only --allow hosts) or web (public hosts on 80/443)"),
    ] = "none",
    allow: Annotated[
        list[str] | None,
        typer.Option("--allow", envvar="LEAGUE_SANDBOX_ALLOW",
                     help="allow-list entry host, host:port or *.domain (repeatable)"),
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", envvar="LEAGUE_SANDBOX_TIMEOUT", min=0.1)] = 60.0,
) -> None:
    """Run CMD inside a fresh sandbox (league sandbox exec --profile claude -- ls -la ~); with
    --network api|web it gets the egress proxy a seat gets, and its fetch record is printed."""
    try:
        rules = EgressRules.of(network, allow or [])
        res = make_sandbox().exec(
            cmd,
            timeout=timeout,
            egress=rules,
            profile=profile,
            stdin=None if sys.stdin.isatty() else sys.stdin.buffer.read(),
        )
    except SandboxError as exc:
        typer.echo(f"error: {exc.diagnostics()}", err=True)
        raise typer.Exit(2) from exc
    sys.stdout.buffer.write(res.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(res.stderr)
    for f in res.fetches:
        verdict = "allowed" if f.allowed else "REFUSED"
        typer.echo(f"[egress] {f.method} {f.host}:{f.port} {verdict} ({f.reason})", err=True)
    typer.echo(
        f"[sandbox] ended_by={res.ended_by.value} exit={res.exit_code} {res.elapsed_s * 1000:.0f} ms"
        + (" (stdout truncated)" if res.stdout_truncated else ""),
        err=True,
    )
    raise typer.Exit(res.exit_code if 0 <= res.exit_code < 256 else 1)


@sandbox_app.command("check")
def check() -> None:
    """Run the isolation probe in a real sandbox and show the system-call filter the seats get (the sandbox
    part of `league doctor`, without the roster); exit 1 if anything is broken."""
    checks = [check_bwrap_installed()]
    try:
        checks += check_isolation(make_sandbox())
    except SandboxError as exc:
        checks.append(Check("sandbox starts", False, exc.message, exc.fix or ""))
    for c in checks:
        fix = f"\n        fix: {c.fix}" if not c.ok and c.fix else ""
        typer.echo(f"{'ok  ' if c.ok else 'FAIL'}  {c.name}: {c.detail}{fix}")
    failed = sum(not c.ok for c in checks)
    typer.echo(f"{len(checks) - failed} ok, {failed} failed")
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox_app, name="sandbox")
