"""Per-vendor sandbox profiles: which credential files are copied into the fresh home, which of the
operator's environment variables a seat may see, and the resource limits.

A profile names paths RELATIVE to a credentials home (the operator's ``$HOME`` unless
``LEAGUE_CREDENTIALS_HOME`` says otherwise), so one vendor's profile can never name another vendor's
files by accident; the sandbox copies exactly these files (never a directory) per run.
Facts checked in ``shared/spec/vendors.md`` (credential paths of each CLI).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from sandbox.interface import SandboxError

SANDBOX_HOME = "/home/seat"
BASE_ENV = ("PATH", "HOME", "LANG", "TZ")
# Files placed under ``bin/`` of the home are executable and found first (a lab's own CLI, stand-ins).
DEFAULT_PATH = f"{SANDBOX_HOME}/bin:/usr/local/bin:/usr/bin:/bin"
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
MIB = 1024 * 1024


def safe_home_path(rel: str) -> PurePosixPath:
    """A destination inside the sandbox home; rejects absolute paths and ``..`` (no escape by name)."""
    path = PurePosixPath(rel)
    if not rel or path.is_absolute() or ".." in path.parts or str(path) in (".", ""):
        raise SandboxError(f"home file path {rel!r} must be relative and stay inside the home")
    return path


def home_relative(path: str) -> str:
    """``~/x`` or ``x`` -> ``x``; anything else (absolute, ``..``) is refused."""
    rel = path[2:] if path.startswith("~/") else path
    safe_home_path(rel)
    return rel


@dataclass(frozen=True)
class CredentialFile:
    """One file copied from the credentials home into the sandbox home at the same relative path."""

    rel: str
    writable: bool = False

    def __post_init__(self) -> None:
        safe_home_path(self.rel)


@dataclass(frozen=True)
class Profile:
    """Everything the sandbox needs to know about one kind of seat (no seat or market knowledge)."""

    name: str
    credentials: tuple[CredentialFile, ...] = ()
    env_keys: tuple[str, ...] = ()
    config_env: tuple[str, ...] = ()
    allow_net: bool = True
    memory_mb: int = 2048
    nproc: int = 256
    fsize_mb: int = 256
    nofile: int = 1024
    stdout_cap: int = 8 * MIB
    stderr_cap: int = 1 * MIB
    ro_binds: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        bad = [k for k in (*self.env_keys, *self.config_env) if not _ENV_NAME.match(k) or k in BASE_ENV]
        if bad:
            raise SandboxError(f"profile {self.name!r}: bad env key names {bad}")
        if min(self.memory_mb, self.nproc, self.fsize_mb, self.nofile, self.stdout_cap, self.stderr_cap) <= 0:
            raise SandboxError(f"profile {self.name!r}: limits must be positive")
        for path in self.ro_binds:
            if not path.startswith("/") or path.rstrip("/") in ("", "/root", "/home") or ".." in path:
                raise SandboxError(f"profile {self.name!r}: extra read-only bind {path!r} is not allowed")

    def with_credentials(self, rels: Iterable[str]) -> Profile:
        """The same profile copying exactly ``rels`` (a seat's own ``credentials`` list) instead.

        Roster entries are written ``~/.claude.json``: ``~/`` means the credentials home."""
        return replace(self, credentials=tuple(CredentialFile(home_relative(r), writable=True) for r in rels))

    def with_env_keys(self, keys: Iterable[str]) -> Profile:
        return replace(self, env_keys=tuple(dict.fromkeys((*self.env_keys, *keys))))


def _cred(*rels: str, writable: bool = False) -> tuple[CredentialFile, ...]:
    return tuple(CredentialFile(r, writable=writable) for r in rels)


# Token files are writable (the CLIs refresh them; the refreshed copy dies with the run), plain
# configuration files read-only. Node-based CLIs reserve a lot of virtual address space, hence the
# larger address-space limit.
PROFILES: dict[str, Profile] = {
    "default": Profile("default"),
    "scripted": Profile("scripted", allow_net=False, memory_mb=512, nproc=64),
    "claude": Profile(
        "claude",
        credentials=(
            *_cred(".claude/.credentials.json", ".claude.json", writable=True),
            *_cred(".claude/settings.json"),
        ),
        env_keys=("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"),
        config_env=("ANTHROPIC_BASE_URL",),
        memory_mb=8192,
    ),
    "codex": Profile(
        "codex",
        credentials=(*_cred(".codex/auth.json", writable=True), *_cred(".codex/config.toml")),
        env_keys=("OPENAI_API_KEY", "CODEX_API_KEY"),
        config_env=("OPENAI_BASE_URL",),
        memory_mb=8192,
    ),
    "gemini": Profile(
        "gemini",
        credentials=(
            *_cred(".gemini/settings.json", ".gemini/oauth_creds.json", writable=True),
            *_cred(".gemini/google_accounts.json"),
        ),
        env_keys=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        config_env=("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"),
        memory_mb=8192,
    ),
    "grok": Profile(
        "grok",
        credentials=_cred(".grok/user-settings.json", writable=True),
        env_keys=("GROK_API_KEY",),
        config_env=("GROK_BASE_URL",),
        memory_mb=8192,
    ),
}


def get_profile(name: str) -> Profile:
    """Look a profile up by name; an unknown name is a clear error listing the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise SandboxError(f"unknown sandbox profile {name!r}; known: {', '.join(sorted(PROFILES))}") from None


def credentials_home() -> Path:
    """Where the operator keeps the vendor CLIs' logins (read by the league, never mounted)."""
    return Path(os.environ.get("LEAGUE_CREDENTIALS_HOME") or Path.home())


def present_credentials(profile: Profile, home: Path | None = None) -> list[str]:
    """The profile's credential files that exist, plus its key variables that are set."""
    root = home or credentials_home()
    files = [c.rel for c in profile.credentials if (root / c.rel).is_file()]
    return files + [f"${k}" for k in profile.env_keys if os.environ.get(k)]
