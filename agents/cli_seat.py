"""What every vendor-CLI seat shares: run the CLI once inside the sandbox, then parse its output.

A vendor module only says how to call its CLI (``argv``, extra ``files``) and how to read the
machine-readable output (``parse``). Everything about isolation, timing and incidents lives here,
so the four CLIs are treated exactly alike. A seat is asked once per call: nothing here retries.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import structlog

from league_agents.base import Ask, FailureClass, Now, SeatBase, SeatError, SeatReply, SeatSpec
from league_agents.failures import classify_text
from league_agents.options import CliOptions, SeatOptions
from sandbox.bwrap import BwrapSandbox
from sandbox.interface import EndedBy, ExecResult, Sandbox, SandboxError
from sandbox.netpolicy import EgressRules, NetworkPolicy, entry_for_url
from sandbox.profiles import DEFAULT_PATH, SANDBOX_HOME, Profile, get_profile

log = structlog.get_logger(__name__)

FETCH_PROXY_FILE = ".league/fetch-proxy.cjs"
NODE_GLOBAL_ROOTS = ("/usr/lib/node_modules", "/usr/local/lib/node_modules")
#: Node 20's fetch() ignores HTTPS_PROXY; undici (npm, the library Node's fetch is built on) routes it
#: through the proxy the sandbox names. Without undici the CLI reaches nothing (its namespace has no
#: other way out) and says so on stderr.
FETCH_PROXY_JS = """\
try {
  const undici = require('undici');
  undici.setGlobalDispatcher(new undici.EnvHttpProxyAgent());
} catch (err) {
  process.stderr.write('league: npm package undici not found; fetch() cannot use the egress proxy: '
    + err.message + '\\n');
}
"""


#: How the texts of several final results are joined into one raw reply (:func:`results_text`).
RESULTS_SEPARATOR = "\n\n"


class Repeated(dict[str, Any]):
    """A JSON object of a CLI's output that gives a key more than once: read as ``json`` reads it (the
    last value), with every value each repeated key was given in ``values_given``."""

    values_given: dict[str, list[Any]]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    repeated = Repeated(obj)
    repeated.values_given = {}
    for key, value in pairs:
        repeated.values_given.setdefault(key, []).append(value)
    return repeated


def decoder() -> json.JSONDecoder:
    """A JSON decoder for a CLI's output that keeps every value of a repeated key (:class:`Repeated`)."""
    return json.JSONDecoder(object_pairs_hook=_object)


def loads(text: str) -> Any:
    """``json.loads`` of a CLI's output that keeps every value of a repeated key (:class:`Repeated`)."""
    return decoder().decode(text)


def values_of(obj: Mapping[str, Any], key: str) -> list[Any]:
    """Every value ``obj`` gave ``key``, in order: one, none, or several when the key is repeated."""
    if isinstance(obj, Repeated) and key in obj.values_given:
        return list(obj.values_given[key])
    return [obj[key]] if key in obj else []


def results_text(texts: Sequence[str]) -> str:
    """The raw reply of a run from the texts of its final results, in the order printed.

    A CLI prints one final result; when it prints several (two result envelopes, or one envelope that
    gives its text twice), the raw reply is each of their texts, in order, joined by a blank line, not
    the last one alone: nothing the CLI printed as its answer is dropped, and the parser then sees
    every answer in it, so two different answers are refused and the same one twice is read once
    with a note (docs/answer-format.md "Ambiguous replies"), from the sealed raw reply alone."""
    return RESULTS_SEPARATOR.join(texts)


@dataclass(frozen=True)
class Parsed:
    """What an adapter read from its CLI's output."""

    text: str
    model: str = ""
    mode: str = ""
    usage: Mapping[str, Any] = field(default_factory=dict)


def default_sandbox() -> Sandbox:
    """The real bubblewrap sandbox (imported lazily; raises ``SandboxError`` if bwrap is missing)."""
    return BwrapSandbox()


class CliSeat(SeatBase, ABC):
    """Base of the vendor CLI seats; subclasses set ``binary``/``profile_name`` and implement parsing.

    ``api_hosts`` are the vendor's own hosts, the allow-list of policy ``api`` when the roster gives
    neither ``allow`` nor ``options.base_url`` (a gateway: then only the gateway is reachable)."""

    #: Runs inside the bubblewrap sandbox (the league refuses to start where it cannot).
    sandboxed: ClassVar[bool] = True
    binary: ClassVar[str] = ""
    profile_name: ClassVar[str] = "default"
    api_hosts: ClassVar[tuple[str, ...]] = ()
    #: Node CLIs whose fetch() ignores HTTPS_PROXY get a preload that routes it through the proxy.
    node_fetch_proxy: ClassVar[bool] = False
    options_model: ClassVar[type[SeatOptions] | None] = CliOptions
    networks: ClassVar[frozenset[str] | None] = frozenset({"none", "api", "web"})

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox | None = None) -> None:
        self.spec = spec
        self._sandbox = sandbox

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = default_sandbox()
        return self._sandbox

    # -- what subclasses provide ------------------------------------------------------------------
    @abstractmethod
    def argv(self, ask: Ask) -> list[str]:
        """Provided by each adapter."""

    @abstractmethod
    def parse(self, result: ExecResult) -> Parsed:
        """Provided by each adapter."""

    def files(self, ask: Ask) -> dict[str, bytes]:
        """Extra files for the home (besides the credentials); e.g. a settings file."""
        return {}

    def env(self) -> dict[str, str]:
        """Variables the adapter sets (gateway URL, switches that stop calls anywhere else)."""
        return {}

    # -- network ----------------------------------------------------------------------------------
    @property
    def network(self) -> NetworkPolicy:
        return NetworkPolicy(self.spec.network)

    @property
    def web(self) -> bool:
        """True when the seat may look things up on the web (its CLI's web tools are switched on)."""
        return self.network is NetworkPolicy.WEB

    @property
    def base_url(self) -> str:
        """``options.base_url``: an LLM gateway (or a test stand-in) the CLI calls instead of its vendor."""
        return str(self.spec.options.get("base_url") or "")

    def allow_list(self) -> list[str]:
        """The roster's ``allow`` when given (it is then the whole list), else the gateway's exact
        ``host:port`` alone (a LAN gateway is reachable, and only on that port), else the vendor's hosts."""
        if self.spec.allow:
            return list(self.spec.allow)
        return [entry_for_url(self.base_url)] if self.base_url else list(self.api_hosts)

    def egress(self) -> EgressRules | None:
        """The run's egress rules, or ``None`` for a seat without network."""
        if self.network is NetworkPolicy.NONE:
            return None
        return EgressRules.of(self.network, self.allow_list())

    # -- shared -----------------------------------------------------------------------------------
    @property
    def command(self) -> str:
        """The CLI's name, or ``options.executable`` (a lab's own CLI, copied into ``~/bin``)."""
        exe = self.spec.options.get("executable")
        return Path(str(exe)).name if exe else self.binary

    def home_files(self, ask: Ask) -> dict[str, bytes]:
        """Extra files, plus a lab's own executable and its helper files (``options.bin_files``)."""
        files = self.files(ask)
        exe = self.spec.options.get("executable")
        for src in ([exe] if exe else []) + list(self.spec.options.get("bin_files", [])):
            files[f"bin/{Path(str(src)).name}"] = Path(str(src)).read_bytes()
        if self.node_fetch_proxy and self.network is not NetworkPolicy.NONE:
            files[FETCH_PROXY_FILE] = FETCH_PROXY_JS.encode()
        return files

    @property
    def cli_prefix(self) -> str:
        """``options.cli_prefix``: a folder made by ``npm install --prefix DIR`` (pinned CLI versions
        outside /usr); it is bound read-only at the same path and its ``node_modules/.bin`` is on PATH."""
        return str(self.spec.options.get("cli_prefix") or "")

    def run_env(self) -> dict[str, str]:
        """The adapter's variables plus the CLI folder on PATH and the Node fetch preload."""
        env = self.env()
        if self.cli_prefix:
            env["PATH"] = f"{self.cli_prefix}/node_modules/.bin:{DEFAULT_PATH}"
        if self.node_fetch_proxy and self.network is not NetworkPolicy.NONE:
            env["NODE_OPTIONS"] = f"--require {SANDBOX_HOME}/{FETCH_PROXY_FILE}"
            roots = [f"{self.cli_prefix}/node_modules"] if self.cli_prefix else []
            env["NODE_PATH"] = ":".join([*roots, *NODE_GLOBAL_ROOTS])
        return env

    def profile(self) -> Profile:
        """The vendor's profile (or the roster's), narrowed to the seat's own credentials and keys."""
        name = self.spec.profile if self.spec.profile != "default" else self.profile_name
        prof = get_profile(name)
        if self.spec.credentials:
            prof = prof.with_credentials(self.spec.credentials)
        if self.cli_prefix:
            prof = replace(prof, ro_binds=(*prof.ro_binds, self.cli_prefix))
        return prof.with_env_keys(self.spec.env) if self.spec.env else prof

    @property
    def effort(self) -> str:
        return self.spec.effort or "max"

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        """Run the CLI once; every failure becomes a classified reply, never an exception."""
        started = now()
        try:
            egress = self.egress()
            res = self.sandbox.exec(
                self.argv(ask),
                timeout=self.spec.timeout_s,
                env=self.run_env(),
                egress=egress,
                profile=self.profile(),
                files_in_home=self.home_files(ask),
                owner=self.spec.name,
            )
        except (SandboxError, OSError) as exc:
            detail = exc.diagnostics() if isinstance(exc, SandboxError) else str(exc)
            log.warning("seat.sandbox_incident", seat=self.spec.name, detail=detail)
            return self.failed(started, now(), FailureClass.SANDBOX, detail)
        return self.reply_from(res, started, now())

    def reply_from(self, res: ExecResult, started: Any, finished: Any) -> SeatReply:
        fetches = self.fetch_record(res)
        limit = _limit_failure(res)
        if limit is not None:
            return self.failed(started, finished, limit, res.detail + _tail(res), fetches)
        try:
            parsed = self.parse(res)
        except SeatError as exc:
            # refusals are named, never reclassified: a seat must not be able to void a round by
            # asking for a forbidden host (see ``league seat check`` for the operator's diagnosis)
            return self.failed(started, finished, exc.failure, f"{exc}{_refusals(fetches)}{_tail(res)}", fetches)
        return SeatReply(
            seat=self.spec.name,
            raw=parsed.text,
            model=parsed.model or self.spec.model,
            version=parsed.model or "unreported",
            mode=parsed.mode or self.effort,
            started_at=started,
            finished_at=finished,
            usage={**parsed.usage, "sandbox": _run_facts(res)},
            fetches=fetches,
        )

    def fetch_record(self, res: ExecResult) -> tuple[dict[str, Any], ...] | None:
        """The run's fetch record as sealed (``None`` when the seat had no network at all)."""
        if self.network is NetworkPolicy.NONE:
            return None
        return tuple(f.as_json() for f in res.fetches)

    def failed(self, started: Any, finished: Any, failure: FailureClass, detail: str,
               fetches: tuple[dict[str, Any], ...] | None = None) -> SeatReply:
        return SeatReply(
            seat=self.spec.name,
            raw="",
            model=self.spec.model,
            version="unreported",
            mode=self.effort,
            started_at=started,
            finished_at=finished,
            failure=failure,
            detail=detail[:4000],
            fetches=fetches,
        )

    def fail_from_output(self, res: ExecResult, message: str) -> SeatError:
        """A SeatError classified from the message and stderr (used on error paths only)."""
        return SeatError(message, classify_text(f"{message}\n{res.err_text[-4000:]}"))


def _refusals(fetches: tuple[dict[str, Any], ...] | None) -> str:
    refused = [f"{f['host']}:{f['port']} ({f['reason']})" for f in fetches or () if not f["allowed"]]
    return f" | refused by the egress proxy: {', '.join(refused[:5])}" if refused else ""


def _limit_failure(res: ExecResult) -> FailureClass | None:
    if res.ended_by is EndedBy.TIMEOUT:
        return FailureClass.TIMEOUT
    if res.ended_by is not EndedBy.EXIT:
        return FailureClass.SEAT_FAULT
    return None


def _run_facts(res: ExecResult) -> dict[str, Any]:
    """How the run went, kept with the reply: the CLI's full output is only hashed (the reply text is raw)."""
    facts: dict[str, Any] = {
        "stdout_sha256": hashlib.sha256(res.stdout).hexdigest(),
        "elapsed_s": round(res.elapsed_s, 3),
        "exit_code": res.exit_code,
    }
    if res.memory_peak_bytes is not None:
        facts["memory_peak_bytes"] = res.memory_peak_bytes
    if res.tasks_refused:
        facts["tasks_refused"] = res.tasks_refused
    return facts


def _tail(res: ExecResult) -> str:
    err = res.err_text.strip()
    return f" | stderr: {err[-1500:]}" if err else ""
