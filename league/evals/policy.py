"""The network policy of an evaluation run, forwarded to the sandbox, and the retrieval label it earns.

``none`` cuts the network (closed book); ``api`` is meant to reach only the seat's model API; ``web`` reaches
the open web. The sandbox port today knows one switch (``net``), so :class:`PolicySandbox` maps the policy onto
it in one place: ``none`` → no network namespace route out; ``api`` and ``web`` → the host network. The label
says what was ENFORCED, not what was asked: until the sandbox can restrict egress to an API, ``api`` runs are
labelled unmasked like ``web`` ones, in every table.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.interface import ExecResult, Sandbox
from sandbox.profiles import Profile


class Policy(enum.StrEnum):
    NONE = "none"
    API = "api"
    WEB = "web"


@dataclass(frozen=True)
class Retrieval:
    policy: Policy
    enforced: str  # "no network" or "host network"
    label: str  # "closed-book" or "unmasked"

    def as_json(self) -> dict[str, Any]:
        return {"policy": self.policy.value, "enforced": self.enforced, "label": self.label,
                "masked": self.label == "closed-book"}


def retrieval(policy: Policy) -> Retrieval:
    if policy is Policy.NONE:
        return Retrieval(policy, "no network", "closed-book")
    return Retrieval(policy, "host network", "unmasked")


class PolicySandbox:
    """A :class:`sandbox.interface.Sandbox` that runs every command under one network policy."""

    def __init__(self, inner: Sandbox, policy: Policy) -> None:
        self.inner = inner
        self.policy = policy

    def exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float,
             env: Mapping[str, str] | None = None, net: bool = False, profile: str | Profile = "default",
             files_in_home: Mapping[str, bytes] | None = None) -> ExecResult:
        return self.inner.exec(argv, stdin=stdin, timeout=timeout, env=env, net=self.policy is not Policy.NONE,
                               profile=profile, files_in_home=files_in_home)
