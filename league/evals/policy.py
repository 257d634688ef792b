"""The network policy of an evaluation run, forwarded to the sandbox, and the retrieval label it earns.

``none`` cuts the network (closed book); ``api`` reaches only the seat's model API through the league's egress
proxy; ``web`` reaches the public web through the same proxy (docs/sandbox.md "Network"). The run's policy
overrides whatever the seat would use in the live league, in one place (:class:`PolicySandbox`): the seat's
allow-list (its vendor API hosts or gateway) is kept, the policy is the run's. The label says what was
ENFORCED: ``closed-book`` (no network), ``api-only`` (model API only; a vendor's server-side tools stay
invisible to the proxy) or ``unmasked`` (the open web, no time mask), in every table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from league.jsonvalue import JsonObject
from sandbox.interface import ExecResult, Sandbox
from sandbox.netpolicy import EgressRules, NetworkPolicy
from sandbox.profiles import Profile

#: A run's policy is one of the sandbox's own network policies (none, api, web), imposed on every seat of the run.
Policy = NetworkPolicy


@dataclass(frozen=True)
class Retrieval:
    policy: Policy
    enforced: str  # "no network", "egress proxy: allow-list only" or "egress proxy: public web"
    label: str  # "closed-book", "api-only" or "unmasked"

    def as_json(self) -> JsonObject:
        return {"policy": self.policy.value, "enforced": self.enforced, "label": self.label,
                "masked": self.label == "closed-book"}


def retrieval(policy: Policy) -> Retrieval:
    if policy is Policy.NONE:
        return Retrieval(policy, "no network", "closed-book")
    if policy is Policy.API:
        return Retrieval(policy, "egress proxy: allow-list only", "api-only")
    return Retrieval(policy, "egress proxy: public web", "unmasked")


class PolicySandbox:
    """A :class:`sandbox.interface.Sandbox` that runs every command under one network policy."""

    def __init__(self, inner: Sandbox, policy: Policy) -> None:
        self.inner = inner
        self.policy = policy

    def exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float,
             env: Mapping[str, str] | None = None, egress: EgressRules | None = None,
             profile: str | Profile = "default", files_in_home: Mapping[str, bytes] | None = None,
             owner: str | None = None) -> ExecResult:
        return self.inner.exec(argv, stdin=stdin, timeout=timeout, env=env, egress=self.rules(egress),
                               profile=profile, files_in_home=files_in_home, owner=owner)

    def rules(self, asked: EgressRules | None) -> EgressRules | None:
        """The run's policy with the seat's own allow-list (none under ``none``)."""
        if self.policy is Policy.NONE:
            return None
        return EgressRules(self.policy, asked.allow if asked is not None else ())
