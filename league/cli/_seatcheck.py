"""`league seat check`: what is wrong with a seat, each finding with its fix.

The trivial ask runs through exactly the production path (sandbox, egress proxy, adapter); this
module reads what came back — the static checks, the reply's failure class and detail, the fetch
record, and the league's own parser — and names the first cause a lab can act on: CLI not
installed, credentials missing, authentication refused, endpoint unreachable under the policy,
model name refused, reply unparseable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from league.answers import parse_reply
from league_agents.base import FailureClass, SeatError, SeatReply, SeatSpec
from league_agents.cli_seat import CliSeat
from league_agents.registry import load_adapter
from sandbox.selfcheck import Check

_MODEL_REFUSED = re.compile(
    r"model[^\n]{0,80}(not found|does not exist|may not exist|not supported|unknown|invalid|not available)"
    r"|(unknown|invalid|unsupported) model|not_found_error|model_not_found|NOT_FOUND", re.I)
_UNREACHABLE = re.compile(r"ECONNREFUSED|ENOTFOUND|EAI_AGAIN|fetch failed|connection (error|refused|reset)|"
                          r"network (error|is unreachable)|Proxy response|tunnel|unable to connect|\b403\b", re.I)


def diagnose(spec: SeatSpec, static: Sequence[Check], reply: SeatReply | None,
             markets: dict[str, list[str]]) -> list[Check]:
    """The findings, most basic first; an empty list means the seat answered a parseable reply."""
    found = [c for c in static if not c.ok]
    named = [_static_fix(spec, c) for c in found]
    if named or reply is None:
        return named
    if reply.failure is not None:
        return [_failure(spec, reply)]
    if reply.silent:
        return [Check("no reply", False, "the seat printed nothing", "run `league sandbox exec` with the seat's "
                      "profile and look at the CLI's stderr")]
    parsed = parse_reply(reply.raw, markets)
    if not parsed.ok:
        return [Check("reply unparseable", False, parsed.failure or "no forecast object",
                      "the reply must end with the JSON object of docs/answer-format.md")]
    return []


def _cli_adapter(spec: SeatSpec) -> type[CliSeat] | None:
    """The seat's adapter class when it is a vendor CLI's (its class says which npm package installs it)."""
    try:
        cls = load_adapter(spec.adapter)
    except SeatError:
        return None
    return cls if issubclass(cls, CliSeat) else None


def _static_fix(spec: SeatSpec, check: Check) -> Check:
    cli = _cli_adapter(spec)
    if "cli " in check.name and cli is not None and cli.npm_package:
        fix = (f"CLI not installed: npm install -g {cli.npm_package} (under /usr), or set options.cli_prefix "
               "to a folder made by `npm install --prefix DIR`")
        return Check(check.name, False, check.detail, fix)
    if "credentials" in check.name:
        return Check(check.name, False, f"credentials missing: {check.detail}", check.fix)
    return check


def _failure(spec: SeatSpec, reply: SeatReply) -> Check:
    detail = reply.detail
    refused = [f for f in reply.fetches or () if not f.get("allowed")]
    if reply.failure is FailureClass.LOGIN:
        return Check("authentication refused", False, detail[:400],
                     "log the CLI in again as the operator, or set the seat's key variable (docs/seats.md §2)")
    if reply.failure is FailureClass.USAGE_LIMIT:
        return Check("usage limit", False, detail[:400], "raise the account's limit or wait for its reset")
    if refused:
        hosts = ", ".join(sorted({f"{f['host']}:{f['port']} ({f['reason']})" for f in refused}))
        return Check("endpoint unreachable under the policy", False, f"the egress proxy refused {hosts}",
                     f'add the host to the seat\'s `allow` list (or its exact host:port for a LAN gateway); '
                     f'policy is network = "{spec.network}"')
    if _cli_adapter(spec) is not None and spec.network == "none" and _UNREACHABLE.search(detail + " timeout"):
        return Check("endpoint unreachable under the policy", False, 'network = "none": the CLI has no network',
                     'set network = "api" (its model only) or "web" for this seat')
    if _MODEL_REFUSED.search(detail):
        return Check("model name refused", False, detail[:400],
                     f"check `model = {spec.model!r}` against the models your account (or gateway) offers")
    if _UNREACHABLE.search(detail) or reply.failure in (FailureClass.TRANSIENT, FailureClass.TIMEOUT):
        allowed = sorted({f"{f['host']}:{f['port']}" for f in reply.fetches or () if f.get("allowed")})
        where = f"reached {', '.join(allowed)} but got no answer" if allowed else "no request reached the proxy"
        return Check("endpoint unreachable", False, f"{reply.failure}: {where}; {detail[:300]}",
                     "check options.base_url and that the endpoint is up; `league doctor` checks the proxy")
    return Check(f"seat failed ({reply.failure})", False, detail[:400], "see the detail; docs/seats.md §4")
