"""How a networked run reaches its proxy: LEAGUE_SANDBOX_EGRESS, and the sandbox command of each way."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sandbox import netpolicy
from sandbox.bwrap import BwrapSandbox
from sandbox.interface import SandboxError
from sandbox.netpolicy import EGRESS_ENV, egress_mode
from sandbox.profiles import get_profile


def test_explicit_modes_are_kept_and_a_bad_one_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert egress_mode("shared") == "shared"
    assert egress_mode(" Per-Run ") == "per-run"
    monkeypatch.setenv(EGRESS_ENV, "per-run")
    assert egress_mode() == "per-run"
    with pytest.raises(SandboxError, match=EGRESS_ENV) as info:
        egress_mode("pooled")
    assert "per-run" in (info.value.fix or "")


def test_auto_is_per_run_when_the_league_may_not_create_namespaces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(EGRESS_ENV, raising=False)
    monkeypatch.setattr(netpolicy.os, "geteuid", lambda: 1000)
    assert egress_mode() == "per-run"
    monkeypatch.setattr(netpolicy.os, "geteuid", lambda: 0)
    monkeypatch.setattr(netpolicy.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(netpolicy, "can_prepare_namespaces", lambda: False)  # root, but no CAP_SYS_ADMIN
    assert egress_mode() == "per-run"
    monkeypatch.setattr(netpolicy, "can_prepare_namespaces", lambda: True)
    assert egress_mode() == "shared"


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
def test_a_joined_namespace_replaces_the_sandboxs_own_and_needs_no_forwarder() -> None:
    """Under the shared service bubblewrap joins the prepared namespace (no --unshare-net, no socat
    wrapper, the command is pid 1 again); without it, the run's namespace is always its own."""
    box = BwrapSandbox(egress="per-run")
    prof = get_profile("scripted")
    joined = box.build_argv(["cmd"], prof, None, [], 9, joined_net=True)
    own = box.build_argv(["cmd"], prof, None, [], 9)
    proxied = box.build_argv(["cmd"], prof, Path("/tmp/league-egress-x"), [], 9)
    assert "--unshare-net" not in joined and "--unshare-net" in own and "--unshare-net" in proxied
    assert joined[-1] == "cmd" and "socat" not in " ".join(joined)
    assert os.path.basename(proxied[proxied.index("--") + 1]) == "sh"
