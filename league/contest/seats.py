"""How the contest runs its agents: any registered seat adapter, inside the sandbox, with ``bench``.

An agent's seat is built by the seat registry (``league_agents.registry.build_seat``), the contest's
stand-in (``adapter = "contest-standin"``) as any vendor CLI. :class:`BenchSandbox` wraps the sandbox for
one agent's round: it binds that agent's socket directory read-only into the sandbox, puts ``bench`` into
``~/bin`` and sets ``$BENCH_SOCKET``. The seat never knows; a seat built with this sandbox gets ``bench``
for free.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path

from sandbox.interface import ExecResult, Sandbox
from sandbox.netpolicy import EgressRules
from sandbox.profiles import Profile, get_profile


@cache
def bench_program() -> bytes:
    """The ``bench`` command every agent finds on its PATH during a round (``bench_cli.py``)."""
    return resources.files("league.contest").joinpath("bench_cli.py").read_bytes()


class BenchSandbox:
    """A :class:`sandbox.interface.Sandbox` that adds one round's ``bench`` to every run."""

    def __init__(self, inner: Sandbox, socket_dir: Path) -> None:
        self.inner = inner
        self.socket_dir = Path(socket_dir)

    def exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float,
             env: Mapping[str, str] | None = None, egress: EgressRules | None = None,
             profile: str | Profile = "default",
             files_in_home: Mapping[str, bytes] | None = None, owner: str | None = None) -> ExecResult:
        prof = get_profile(profile) if isinstance(profile, str) else profile
        prof = replace(prof, ro_binds=(*prof.ro_binds, str(self.socket_dir)))
        files = {**(files_in_home or {}), "bin/bench": bench_program()}
        full_env = {**(env or {}), "BENCH_SOCKET": str(self.socket_dir / "bench.sock")}
        return self.inner.exec(argv, stdin=stdin, timeout=timeout, env=full_env, egress=egress, profile=prof,
                               files_in_home=files, owner=owner)
