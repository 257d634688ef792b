"""The four real vendor CLIs at pinned versions, installed from the npm registry into a cache.

``python tests/realcli/clis.py`` (run by ``make clis``, a step of ``make test``) installs them once
into ``$LEAGUE_CLI_CACHE/<hash>`` (default ``/var/cache/forecast-league/clis`` as root — a path the
sandbox's dropped uid can traverse — else ``~/.cache/forecast-league/clis``); the hash covers the
pins and the Node version (Gemini CLI's node-pty is compiled for it), so a run reuses the folder
until one of them changes. ``undici`` is the library Node's own fetch() is built on: Grok CLI needs it
to go through the egress proxy (agents/cli_seat.py, ``node_fetch_proxy``).
"""

from __future__ import annotations

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


def prefix() -> Path:
    digest = hashlib.sha256("\n".join((*PINS, node_version())).encode()).hexdigest()[:16]
    return cache_root() / digest


def installed() -> Path | None:
    where = prefix()
    return where if (where / DONE).is_file() else None


def install() -> Path:
    """Install the pins (npm, registry only) unless the cached folder is complete; return it."""
    where = prefix()
    if (where / DONE).is_file():
        return where
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is not installed: apt-get install -y npm (or Node.js 20 with npm)")
    where.mkdir(parents=True, exist_ok=True)
    for folder in (where.parent.parent, where.parent, where):  # the sandbox's dropped uid reads it
        os.chmod(folder, os.stat(folder).st_mode | 0o755)
    cmd = [npm, "install", "--prefix", str(where), "--no-audit", "--no-fund", "--no-save", "--loglevel=error", *PINS]
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL)
    missing = [b for b in BINARIES if not (where / "node_modules/.bin" / b).exists()]
    if missing:
        raise SystemExit(f"npm install finished but {missing} are missing in {where}")
    (where / DONE).write_text("\n".join(PINS) + "\n", encoding="utf-8")
    return where


if __name__ == "__main__":
    sys.stdout.write(f"{install()}\n")
