"""The four real vendor CLIs at pinned versions, installed from the npm registry into a cache.

``python tests/realcli/clis.py`` (run by ``make clis``, a step of ``make test``) installs them once
into ``$LEAGUE_CLI_CACHE/<hash>`` (default ``/var/cache/forecast-league/clis`` as root — a path the
sandbox's dropped uid can traverse — else ``~/.cache/forecast-league/clis``); the hash covers the
pins and the Node version (Gemini CLI's node-pty is compiled for it), so a run reuses the folder
until one of them changes. ``undici`` is the library Node's own fetch() is built on: Grok CLI needs it
to go through the egress proxy (agents/cli_seat.py, ``node_fetch_proxy``).

``LEAGUE_CLI_VERSIONS=newest`` (for ``make clis`` and any real-CLI test) installs the npm registry's newest
version of each of the four CLIs instead of its pin (``npm view <package> version``, asked once per run;
``undici`` keeps its pin, a library matched to the Node version), into a folder of its own: a newer CLI is
tried without touching the pinned cache, and the pins stay what ``make test`` runs.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

PINS = (
    "@anthropic-ai/claude-code@2.1.197",
    "@openai/codex@0.171.0",
    "@google/gemini-cli@0.61.0",
    "@vibe-kit/grok-cli@0.0.34",
    "undici@6.24.1",
)
BINARIES = ("claude", "codex", "gemini", "grok")
DONE = ".installed"
#: Packages kept at their pin in a ``LEAGUE_CLI_VERSIONS=newest`` run.
KEEP_PINNED = ("undici",)


def cache_root() -> Path:
    env = os.environ.get("LEAGUE_CLI_CACHE")
    if env:
        return Path(env)
    if os.geteuid() == 0:
        return Path("/var/cache/forecast-league/clis")
    return Path.home() / ".cache/forecast-league/clis"


def node_version() -> str:
    node = shutil.which("node")
    if node is None:
        return ""
    return subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()


def _package(pin: str) -> str:
    return pin.rsplit("@", 1)[0]


@functools.cache
def pins() -> tuple[str, ...]:
    """The packages to install: :data:`PINS`, or with ``LEAGUE_CLI_VERSIONS=newest`` each CLI at the version
    the registry names newest now (so the cache folder changes when a newer CLI is published)."""
    choice = os.environ.get("LEAGUE_CLI_VERSIONS", "pinned")
    if choice == "pinned":
        return PINS
    if choice != "newest":
        raise SystemExit(f"LEAGUE_CLI_VERSIONS={choice!r}: use 'pinned' (the default) or 'newest'")
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is not installed: apt-get install -y npm (or Node.js 20 with npm)")
    out = []
    for pin in PINS:
        name = _package(pin)
        if name in KEEP_PINNED:
            out.append(pin)
            continue
        found = subprocess.run([npm, "view", name, "version"], capture_output=True, text=True, check=False,
                               stdin=subprocess.DEVNULL)
        version = found.stdout.strip().splitlines()[-1:] if found.returncode == 0 else []
        if not version:
            raise SystemExit(f"npm view {name} version failed: {found.stderr.strip()[:300]}")
        out.append(f"{name}@{version[0]}")
    return tuple(out)


def prefix() -> Path:
    digest = hashlib.sha256("\n".join((*pins(), node_version())).encode()).hexdigest()[:16]
    return cache_root() / digest


def installed() -> Path | None:
    where = prefix()
    return where if (where / DONE).is_file() else None


def install() -> Path:
    """Install :func:`pins` (npm, registry only) unless the cached folder is complete; return it."""
    where = prefix()
    if (where / DONE).is_file():
        return where
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is not installed: apt-get install -y npm (or Node.js 20 with npm)")
    where.mkdir(parents=True, exist_ok=True)
    for folder in (where.parent.parent, where.parent, where):  # the sandbox's dropped uid reads it
        os.chmod(folder, os.stat(folder).st_mode | 0o755)
    cmd = [npm, "install", "--prefix", str(where), "--no-audit", "--no-fund", "--no-save", "--loglevel=error", *pins()]
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL)
    missing = [b for b in BINARIES if not (where / "node_modules/.bin" / b).exists()]
    if missing:
        raise SystemExit(f"npm install finished but {missing} are missing in {where}")
    (where / DONE).write_text("\n".join(pins()) + "\n", encoding="utf-8")
    return where


if __name__ == "__main__":
    sys.stdout.write(f"{install()}\n")
