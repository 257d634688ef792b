"""Profiles and argv building (no bubblewrap needed)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from sandbox.interface import EndedBy, ExecResult, SandboxError
from sandbox.profiles import PROFILES, Profile, get_profile, home_relative, present_credentials


def test_vendor_profiles_name_only_their_own_files() -> None:
    owners = {"claude": ".claude", "codex": ".codex", "gemini": ".gemini", "grok": ".grok"}
    for name, prefix in owners.items():
        rels = [c.rel for c in PROFILES[name].credentials]
        assert rels and all(r.startswith(prefix) for r in rels), name


def test_unknown_profile_lists_known() -> None:
    with pytest.raises(SandboxError, match="claude"):
        get_profile("nope")


@pytest.mark.parametrize("bad", ["/etc/shadow", "../x", "a/../../x", "", "."])
def test_home_paths_must_stay_inside(bad: str) -> None:
    with pytest.raises(SandboxError):
        home_relative(bad)


def test_roster_tilde_paths_become_relative() -> None:
    prof = get_profile("claude").with_credentials(["~/.claude.json", ".claude/.credentials.json"])
    assert [c.rel for c in prof.credentials] == [".claude.json", ".claude/.credentials.json"]


@pytest.mark.parametrize(
    "change",
    [
        {"env_keys": ("lower",)},
        {"env_keys": ("PATH",)},
        {"memory_mb": 0},
        {"ro_binds": ("/root",)},
        {"ro_binds": ("relative",)},
        {"ro_binds": ("/home/",)},
        {"tmp_mb": -1},
        {"home_mb": 0},
        {"dev": False},  # /dev/shm (shm_mb 64) needs /dev
        {"etc_files": ("/usr/lib/os-release",)},
        {"etc_files": ("/etc/../root/x",)},
    ],
)
def test_bad_profiles_refused(change: dict[str, object]) -> None:
    with pytest.raises(SandboxError):
        dataclasses.replace(get_profile("default"), **change)  # type: ignore[arg-type]


def test_present_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GROK_API_KEY", raising=False)
    assert present_credentials(get_profile("grok"), tmp_path) == []
    (tmp_path / ".grok").mkdir()
    (tmp_path / ".grok/user-settings.json").write_text("{}")
    monkeypatch.setenv("GROK_API_KEY", "k")
    monkeypatch.setenv("GROK_BASE_URL", "http://x")  # configuration, not a credential
    assert present_credentials(get_profile("grok"), tmp_path) == [".grok/user-settings.json", "$GROK_API_KEY"]


def test_exec_result_validates() -> None:
    from datetime import UTC, datetime, timedelta

    t = datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(ValueError):
        ExecResult(("x",), b"", b"", 0, t, t - timedelta(seconds=1), EndedBy.EXIT, 0.0)
    with pytest.raises(ValueError):
        ExecResult(("x",), b"", b"", 0, t.replace(tzinfo=None), t.replace(tzinfo=None), EndedBy.EXIT, 0.0)


def test_argv_has_isolation_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbox import bwrap

    monkeypatch.setattr(bwrap.shutil, "which", lambda name, **_: f"/usr/bin/{Path(name).name}")
    box = bwrap.BwrapSandbox()
    argv = box.build_argv(["cmd"], get_profile("claude"), None, [(".claude.json", 7, True)], 9)
    for flag in (
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
    ):
        assert flag in argv
    assert argv[argv.index("--json-status-fd") + 1] == "9"
    assert "--seccomp" not in argv  # only with a filter's fd
    filtered = box.build_argv(["cmd"], get_profile("claude"), None, [], 9, seccomp_fd=11)
    assert filtered[filtered.index("--seccomp") + 1] == "11"
    assert argv[-2:] == ["--", "cmd"]
    assert "/root" not in argv and "/home" not in argv
    assert not any(a.startswith("/work") for a in argv)
    proxied = box.build_argv(["cmd"], get_profile("claude"), Path("/tmp/league-egress-x"), [], 9)
    assert "--unshare-net" in proxied  # a networked seat keeps its own namespace: the proxy is its only way out
    bind = proxied.index("/tmp/league-egress-x")
    assert proxied[bind - 1] == "--ro-bind" and proxied[bind + 1] == "/run/league-egress"
    assert proxied[-6:-3] == ["--", "/bin/sh", "-c"] and proxied[-2:] == ["egress", "cmd"]


def test_env_is_allow_list(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbox import bwrap

    monkeypatch.setattr(bwrap.shutil, "which", lambda name, **_: f"/usr/bin/{Path(name).name}")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a")
    monkeypatch.setenv("OPENAI_API_KEY", "o")
    env = bwrap.BwrapSandbox().env_for(get_profile("claude"), {"EXTRA": "1", "HOME": "/root"})
    assert set(env) == {"PATH", "HOME", "LANG", "TZ", "ANTHROPIC_API_KEY", "EXTRA"}
    assert env["HOME"] == "/home/seat"


def test_profile_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        get_profile("default").nproc = 1  # type: ignore[misc]
    assert isinstance(get_profile("default"), Profile)


def _host_system() -> list[str]:
    """The system part of the argv before the profile's system view became a setting, written out."""
    import os

    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


@pytest.mark.parametrize("name", [n for n in PROFILES if n != "scripted-child"])
def test_every_other_profile_keeps_the_argv_it_had(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The vendor, default and scripted profiles: exactly the command line of commit 67508d7, plus
    ``--disable-userns`` (and ``--seccomp FD`` when a filter's fd is given, tested above)."""
    from sandbox import bwrap

    monkeypatch.setattr(bwrap.shutil, "which", lambda name, **_: f"/usr/bin/{Path(name).name}")
    files = [(".claude.json", 7, True), (".claude/settings.json", 8, False), ("bin/x", 10, True)]
    argv = bwrap.BwrapSandbox().build_argv(["cmd"], get_profile(name), None, files, 9)
    etc = ["resolv.conf", "hosts", "nsswitch.conf", "passwd", "group", "localtime", "ld.so.cache", "ssl",
           "ca-certificates", "alternatives"]
    expected = [
        "/usr/bin/bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
        "--disable-userns", "--die-with-parent", "--new-session", "--json-status-fd", "9", "--hostname", "seat",
        *_host_system(),
        "--perms", "0755", "--dir", "/etc", *[a for e in etc for a in ("--ro-bind-try", f"/etc/{e}", f"/etc/{e}")],
        "--proc", "/proc", "--dev", "/dev", "--size", "67108864", "--tmpfs", "/dev/shm",
        "--size", "268435456", "--tmpfs", "/tmp", "--size", "536870912", "--tmpfs", "/home/seat",
        "--perms", "0644", "--file", "7", "/home/seat/.claude.json",
        "--perms", "0444", "--ro-bind-data", "8", "/home/seat/.claude/settings.json",
        "--perms", "0755", "--file", "10", "/home/seat/bin/x",
        "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/home/seat", "--", "cmd",
    ]
    assert argv == expected


def test_the_scripted_childs_profile_leaves_out_only_mounts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same namespaces, session, status fd and home as the scripted profile; no /etc, /proc, /dev, /tmp,
    /dev/shm; the command is pid 1 (no reaper). Caps and limits are the scripted profile's."""
    from sandbox import bwrap

    monkeypatch.setattr(bwrap.shutil, "which", lambda name, **_: f"/usr/bin/{Path(name).name}")
    lean, full = get_profile("scripted-child"), get_profile("scripted")
    argv = bwrap.BwrapSandbox().build_argv(["cmd"], lean, None, [("c.pyc", 7, True)], 9)
    assert argv == [
        "/usr/bin/bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
        "--disable-userns", "--die-with-parent", "--new-session", "--json-status-fd", "9", "--hostname", "seat",
        "--as-pid-1",
        *_host_system(), "--size", "536870912", "--tmpfs", "/home/seat", "--perms", "0644", "--file", "7",
        "/home/seat/c.pyc", "--remount-ro", "/", "--chdir", "/home/seat", "--", "cmd",
    ]
    same = ("allow_net", "memory_mb", "nproc", "fsize_mb", "nofile", "stdout_cap", "stderr_cap", "home_mb",
            "credentials", "env_keys", "config_env", "ro_binds")
    assert all(getattr(lean, f) == getattr(full, f) for f in same)
    box = bwrap.BwrapSandbox.__new__(bwrap.BwrapSandbox)
    box.cgroups = object()  # type: ignore[assignment]  # limits() only asks whether there is a cgroup
    assert box.limits(lean) == box.limits(full)
