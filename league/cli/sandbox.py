"""`league sandbox exec`: run any command in exactly the sandbox a seat gets, to inspect it."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

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
    net: Annotated[bool, typer.Option("--net/--no-net", envvar="LEAGUE_SANDBOX_NET", help="share the network")] = False,
    timeout: Annotated[float, typer.Option("--timeout", envvar="LEAGUE_SANDBOX_TIMEOUT", min=0.1)] = 60.0,
) -> None:
    """Run CMD inside a fresh sandbox (league sandbox exec --profile claude -- ls -la ~)."""
    from sandbox.bwrap import BwrapSandbox
    from sandbox.interface import SandboxError

    try:
        res = BwrapSandbox().exec(
            cmd,
            timeout=timeout,
            net=net,
            profile=profile,
            stdin=None if sys.stdin.isatty() else sys.stdin.buffer.read(),
        )
    except SandboxError as exc:
        typer.echo(f"error: {exc.diagnostics()}", err=True)
        raise typer.Exit(2) from exc
    sys.stdout.buffer.write(res.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(res.stderr)
    typer.echo(
        f"[sandbox] ended_by={res.ended_by.value} exit={res.exit_code} {res.elapsed_s * 1000:.0f} ms"
        + (" (stdout truncated)" if res.stdout_truncated else ""),
        err=True,
    )
    raise typer.Exit(res.exit_code if 0 <= res.exit_code < 256 else 1)


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox_app, name="sandbox")
