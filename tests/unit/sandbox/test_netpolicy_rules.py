"""The egress rules decide from host, port and resolved addresses alone (no I/O here)."""

from __future__ import annotations

import pytest

from sandbox.interface import SandboxError
from sandbox.netpolicy import AllowEntry, EgressRules, entry_for_url, inside_command, proxy_env

PUBLIC = ["93.184.215.14"]


def test_api_allows_only_listed_hosts_on_443() -> None:
    rules = EgressRules.of("api", ["api.anthropic.com"])
    assert rules.decide("api.anthropic.com", 443, PUBLIC) == (True, "allow-list")
    assert rules.decide("API.Anthropic.com", 443, PUBLIC)[0]
    assert not rules.decide("api.anthropic.com", 80, PUBLIC)[0]
    assert rules.decide("example.org", 443, PUBLIC) == (False, "not on the allow-list (policy api)")


def test_web_allows_public_hosts_on_web_ports_only() -> None:
    rules = EgressRules.of("web")
    assert rules.decide("example.org", 443, PUBLIC) == (True, "policy web")
    assert rules.decide("example.org", 80, PUBLIC)[0]
    assert not rules.decide("example.org", 22, PUBLIC)[0]


@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "172.16.0.9", "192.168.1.1", "169.254.169.254",
                                     "100.64.0.1", "::1", "fe80::1", "fc00::5", "0.0.0.0"])
@pytest.mark.parametrize("policy", ["api", "web"])
def test_inner_addresses_refused_under_every_policy(policy: str, address: str) -> None:
    rules = EgressRules.of(policy, ["gateway.lan"])  # listed by name, but no exact port: not enough
    allowed, reason = rules.decide("gateway.lan", 443, [address])
    assert not allowed
    assert reason.startswith("non-public address")


def test_one_inner_address_among_public_ones_is_refused() -> None:
    """A name answering with a public and a private address (DNS rebinding) is refused."""
    rules = EgressRules.of("web")
    assert not rules.decide("rebind.example", 443, ["93.184.215.14", "127.0.0.1"])[0]


def test_exact_host_port_entry_opens_only_that_port() -> None:
    rules = EgressRules.of("api", ["127.0.0.1:8080"])
    assert rules.decide("127.0.0.1", 8080, ["127.0.0.1"]) == (True, "allow-list")
    assert not rules.decide("127.0.0.1", 5432, ["127.0.0.1"])[0]
    assert not EgressRules.of("web", ["127.0.0.1:8080"]).decide("127.0.0.1", 6379, ["127.0.0.1"])[0]


def test_unresolved_host_is_refused() -> None:
    assert EgressRules.of("web").decide("nowhere.invalid", 443, []) == (False, "does not resolve")


def test_wildcard_entries() -> None:
    rules = EgressRules.of("api", ["*.googleapis.com"])
    assert rules.decide("generativelanguage.googleapis.com", 443, PUBLIC)[0]
    assert not rules.decide("googleapis.com.evil.example", 443, PUBLIC)[0]


@pytest.mark.parametrize("bad", ["", "http://x", "a/b", "user@host", "x:0", "x:99999", "*foo.com", "a.*.com"])
def test_bad_entries_are_refused(bad: str) -> None:
    with pytest.raises(SandboxError):
        AllowEntry.parse(bad)


def test_unknown_policy() -> None:
    with pytest.raises(SandboxError, match="unknown network policy"):
        EgressRules.of("lan")


def test_entry_for_url() -> None:
    assert entry_for_url("http://127.0.0.1:9000/v1") == "127.0.0.1:9000"
    assert entry_for_url("https://gateway.example/v1") == "gateway.example:443"
    assert entry_for_url("http://[::1]:8080") == "[::1]:8080"
    assert AllowEntry.parse("[::1]:8080") == AllowEntry("::1", 8080, True)
    with pytest.raises(SandboxError):
        entry_for_url("ftp://x")


def test_rules_round_trip_through_json() -> None:
    rules = EgressRules.of("api", ["a.example", "b.example:8443"])
    assert EgressRules.from_json(rules.as_json()) == rules


def test_inside_command_waits_for_the_forwarder_then_execs() -> None:
    argv = inside_command("/usr/bin/socat", ["claude", "-p", "x y"])
    assert argv[:2] == ["/bin/sh", "-c"]
    assert "UNIX-CONNECT:/run/league-egress/proxy.sock" in argv[2]
    assert "0100007F:0C38" in argv[2]  # 127.0.0.1:3128 listening, read from the sandbox's /proc/net/tcp
    assert argv[-3:] == ["claude", "-p", "x y"]


def test_proxy_env_names_the_forwarder_and_bypasses_nothing() -> None:
    env = proxy_env()
    assert env["HTTPS_PROXY"] == env["http_proxy"] == "http://127.0.0.1:3128"
    assert env["NO_PROXY"] == ""
