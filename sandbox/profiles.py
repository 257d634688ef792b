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
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from sandbox.errors import SandboxError

SANDBOX_HOME = "/home/seat"
BASE_ENV = ("PATH", "HOME", "LANG", "TZ")
# Files placed under ``bin/`` of the home are executable and found first (a lab's own CLI, stand-ins).
DEFAULT_PATH = f"{SANDBOX_HOME}/bin:/usr/local/bin:/usr/bin:/bin"
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
MIB = 1024 * 1024
MAX_CREDENTIAL_BYTES = 1 * MIB  # a login file is a few KB; anything bigger is not one
# What a CLI needs of the host's /etc (read-only): name resolution, TLS, the dynamic linker. Every bind costs
# start-up time (bubblewrap rereads the mount table for each), so nothing else.
ETC_FILES = (
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/localtime",
    "/etc/ld.so.cache",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/alternatives",
)


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
    # Sizes of the writable tmpfs mounts; ``/`` and ``/dev`` are read-only, so these bound the disk a
    # run can fill (and their pages count against the run's memory cap as well). A ``tmp_mb`` or
    # ``shm_mb`` of 0 leaves that mount out (nothing can be written there then: ``/`` is read-only).
    home_mb: int = 512
    tmp_mb: int = 256
    shm_mb: int = 64
    # The system view besides ``/usr``: the host's /etc files bound read-only, a ``/proc`` of the sandbox's
    # own pid namespace, a minimal ``/dev``. Each is a mount (or several) that bubblewrap sets up and the
    # kernel tears down per run; a profile that runs one stdlib python needs none of them.
    etc_files: tuple[str, ...] = ETC_FILES
    proc: bool = True
    dev: bool = True
    # False: the command itself is pid 1 of the sandbox's pid namespace (``bwrap --as-pid-1``), with no
    # reaper process beside it. Only for a command that starts no processes of its own (nothing would reap
    # them); when it exits, the kernel kills whatever is left in the namespace.
    reaper: bool = True

    def __post_init__(self) -> None:
        bad = [k for k in (*self.env_keys, *self.config_env) if not _ENV_NAME.match(k) or k in BASE_ENV]
        if bad:
            raise SandboxError(f"profile {self.name!r}: bad env key names {bad}")
        limits = (self.memory_mb, self.nproc, self.fsize_mb, self.nofile, self.stdout_cap, self.stderr_cap,
                  self.home_mb)
        if min(limits) <= 0 or min(self.tmp_mb, self.shm_mb) < 0:
            raise SandboxError(f"profile {self.name!r}: limits must be positive")
        if self.shm_mb and not self.dev:
            raise SandboxError(f"profile {self.name!r}: /dev/shm needs /dev (set shm_mb=0 without dev)")
        for path in (*self.ro_binds, *self.etc_files):
            if not path.startswith("/") or path.rstrip("/") in ("", "/root", "/home") or ".." in path:
                raise SandboxError(f"profile {self.name!r}: extra read-only bind {path!r} is not allowed")
        if any(not path.startswith("/etc/") for path in self.etc_files):
            raise SandboxError(f"profile {self.name!r}: etc_files must lie under /etc/")

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
    # The scripted seat's child: the system python on one stdlib-only .pyc in the home, reading stdin and
    # writing stdout. Everything of "scripted" (namespaces, uid, cgroup caps, limits, fresh home) but none of
    # the mounts it does not use: no /etc, /proc, /dev, /tmp, /dev/shm, and no reaper process.
    "scripted-child": Profile("scripted-child", allow_net=False, memory_mb=512, nproc=64, tmp_mb=0, shm_mb=0,
                              etc_files=(), proc=False, dev=False, reaper=False),
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
    """The profile's credential files that exist, plus its key variables that are set.

    Raises :class:`SandboxError` for a credential the league would refuse to read (a symlink…)."""
    root = home or credentials_home()
    files = [c.rel for c in profile.credentials if read_credential(root, c.rel) is not None]
    return files + [f"${k}" for k in profile.env_keys if os.environ.get(k)]


def read_credential(root: Path, rel: str) -> bytes | None:
    """The bytes of credential ``rel`` under ``root``, or ``None`` when it does not exist.

    The league may run as root and copies these bytes into a seat's sandbox, so a planted
    ``ln -s /etc/shadow ~/.claude.json`` must not be followed: every component below ``root`` is
    opened with ``O_NOFOLLOW`` relative to its parent directory (no check-then-open race), and only
    a regular file with a single link and at most 1 MiB is read. Anything else is refused with a
    :class:`SandboxError` naming the file; nothing is copied."""
    parts = safe_home_path(rel).parts
    shown = root / rel
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SandboxError(f"credentials home {root} cannot be opened: {exc.strerror}") from exc
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NOCTTY | (os.O_NONBLOCK if last else os.O_DIRECTORY)
            try:
                nxt = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise _refused(shown, root / Path(*parts[: i + 1]), _is_link(part, fd), exc) from exc
            os.close(fd)
            fd = nxt
        return _read_plain(fd, shown)
    finally:
        os.close(fd)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _refused(shown: Path, at: Path, link: bool, exc: OSError) -> SandboxError:
    what = "is a symbolic link" if link else f"cannot be opened ({exc.strerror})"
    return SandboxError(
        f"credential file {shown} refused: {at} {what}; the league copies only regular files it finds "
        "under the credentials home, never what a link points to",
        fix=f"replace {at} by the real file (e.g. cp --remove-destination \"$(readlink -f {at})\" {at})",
    )


def _read_plain(fd: int, shown: Path) -> bytes:
    st = os.fstat(fd)
    problem = ""
    if not stat.S_ISREG(st.st_mode):
        problem = "is not a regular file"
    elif st.st_nlink > 1:
        problem = f"has {st.st_nlink} hard links (a hard link can alias any file of the same disk)"
    elif st.st_size > MAX_CREDENTIAL_BYTES:
        problem = f"is {st.st_size} bytes, more than a login file ({MAX_CREDENTIAL_BYTES} at most)"
    if problem:
        raise SandboxError(f"credential file {shown} refused: it {problem}",
                           fix=f"put the CLI's own login file at {shown} (a plain file, one link)")
    chunks, size = [], 0
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_CREDENTIAL_BYTES:
            raise SandboxError(f"credential file {shown} refused: it grew past {MAX_CREDENTIAL_BYTES} bytes")
    return b"".join(chunks)
