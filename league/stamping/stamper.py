"""The stamper: write a stamped list of the books' heads and stamp it with every configured backend.

It is called after runs and batches of seals, never inside the sealing path, and it never raises
into its caller: each backend is tried a bounded number of times (tenacity), a failure is recorded
in the stamp's status file and logged, and the other backends carry on. The trust level actually
reached is written per stamp (``interface.trust_level``).

Layout under the stamps folder (``DATA/stamps/``)::

    <YYYY-MM-DD>/HHMMSSZ.txt               the stamped list (league.book.stamped_list)
    <YYYY-MM-DD>/HHMMSSZ.txt.ots           pending, later complete, OpenTimestamps proof
    <YYYY-MM-DD>/HHMMSSZ.txt.<tsa>.tsr     one RFC 3161 token per authority
    <YYYY-MM-DD>/HHMMSSZ.txt.rekor.json    Rekor's answer (log index, inclusion proof)
    <YYYY-MM-DD>/HHMMSSZ.status.json       what each backend did, and the trust level reached
    tsa/<tsa>/ca.pem, tsa/<tsa>/tsa.crt    each authority's root (+ intermediates) and signer
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

import structlog
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from tenacity import Retrying

from league.book import Head, stamped_list
from league.clock import Clock, iso_seconds
from league.errors import LeagueError
from league.jsonvalue import Json, JsonObject, text
from league.ops import metrics
from league.registry import STAMPS, load
from league.retry import bounded
from league.stamping.heads import HeadCache
from league.stamps.filecache import copy_once
from league.stamps.interface import (
    Artifact,
    BackendKind,
    BackendOutcome,
    StampBackend,
    StampConfig,
    StampError,
    TrustLevel,
    TsaEndpoint,
    trust_level,
)
from league.stamps.rfc3161 import decode_reply, signer_certificate, verify_token
from league.stamps.trust import TrustStore, check_token

if TYPE_CHECKING:
    from league.config import StampSettings
    from league.stamps.local_tsa import AuthorityFiles

log = structlog.get_logger(__name__)

LOCAL_SCHEME = "local:"


class LocalAuthority(StampBackend, Protocol):
    """A ``local:`` authority (``league.stamps.local_tsa``): a backend whose certificates are its own files."""

    files: AuthorityFiles


class LocalAuthorityClass(Protocol):
    """The registered ``local_tsa`` class: an authority is opened (created on first use) in its folder."""

    def at(self, directory: Path, name: str, clock: Clock | None = None) -> LocalAuthority: ...


@runtime_checkable
class Upgradable(Protocol):
    """A backend whose proofs complete later (OpenTimestamps): asked again with a pending proof's bytes."""

    def upgrade(self, raw: bytes) -> tuple[bytes, bool]:
        """The proof's new bytes and whether it is complete now."""
        ...


@dataclass(frozen=True)
class CertFiles:
    """An authority's root (+ intermediates) and signing certificate, where known."""

    ca_file: Path | None
    cert_file: Path | None


@dataclass(frozen=True)
class StampResult:
    list_path: Path
    list_sha256: str
    taken_at: datetime
    trust_level: TrustLevel
    outcomes: tuple[BackendOutcome, ...]


# ---------------------------------------------------------------------------- configuration
def config_from_settings(settings: StampSettings, data_dir: Path) -> StampConfig:
    """Turn ``league.toml`` ``[stamps]`` (league.config.StampSettings) into a StampConfig.

    ``local_tsa = true`` adds two independent local authorities (``local-a``, ``local-b``) kept
    under ``DATA/stamps/local-tsa/`` — the offline demo's "at least two authorities".
    """
    tsa = [TsaEndpoint(name=t.name, url=t.url, ca_file=_in_data(data_dir, t.ca_file),
                       cert_file=_in_data(data_dir, t.cert_file)) for t in settings.tsa]
    if getattr(settings, "local_tsa", False):
        for name in ("local-a", "local-b"):
            folder = data_dir / "stamps" / "local-tsa" / name
            tsa.append(TsaEndpoint(name=name, url=LOCAL_SCHEME + str(folder),
                                   ca_file=folder / "ca.pem", cert_file=folder / "tsa.crt"))
    key = Path(settings.key)
    return StampConfig(tsa=tuple(tsa), ots_calendars=tuple(settings.ots_calendars),
                       rekor_url=settings.rekor_url or None, key_path=key if key.is_absolute() else data_dir / key)


def _in_data(data_dir: Path, value: str | None) -> Path | None:
    """A file ``[stamps]`` names: relative to the data folder, as the signing key (absolute stays absolute)."""
    return data_dir / value if value else None


def backend_class(kind: str) -> Callable[..., StampBackend]:
    """The backend class registered for ``kind`` (entry-point group ``forecast_league.stamps``)."""
    return cast(Callable[..., StampBackend], load(STAMPS, kind, "league.toml [stamps]"))


def local_authority_class() -> LocalAuthorityClass:
    """The class registered as ``local_tsa``, which opens a local authority in its folder."""
    return cast(LocalAuthorityClass, load(STAMPS, "local_tsa", "league.toml [stamps]"))


def make_backends(config: StampConfig, clock: Clock) -> tuple[list[StampBackend], dict[str, CertFiles]]:
    """One backend per configured service; ``local:`` authorities are created on first use."""
    backends: list[StampBackend] = []
    certs: dict[str, CertFiles] = {}
    for t in config.tsa:
        if t.url.startswith(LOCAL_SCHEME):
            local = local_authority_class().at(Path(t.url[len(LOCAL_SCHEME):]), t.name, clock)
            backends.append(local)
            certs[t.name] = CertFiles(local.files.ca_pem, local.files.tsa_crt)
        else:
            backends.append(backend_class("rfc3161")(t.name, t.url, timeout=config.timeout))
            certs[t.name] = CertFiles(t.ca_file, t.cert_file)
    if config.ots_calendars:
        backends.append(backend_class("ots")(config.ots_calendars, timeout=config.timeout))
    if config.rekor_url and config.key_path:
        backends.append(backend_class("rekor")(config.rekor_url, config.key_path, timeout=config.timeout))
    return backends, certs


# ---------------------------------------------------------------------------- the stamper
class Stamps(Protocol):
    """What the jobs ask of a league's stamper: a :class:`Stamper`, or a ``league.stamping.relay.RelayStamper``
    that reads the heads where the lines were sealed and has another process stamp them."""

    def stamp_books(self, books: Sequence[tuple[str, Path]], *, note: str = "",
                    only: Collection[BackendKind] | None = None) -> StampResult | None: ...

    def upgrade(self, *, backoff: bool = False) -> list[tuple[Path, bool]]: ...


class Stamper:
    """Stamps lists into ``stamps_dir``; every public method logs and returns instead of raising."""

    def __init__(self, config: StampConfig, stamps_dir: Path, clock: Clock, *,
                 backends: Sequence[StampBackend] | None = None, certs: Mapping[str, CertFiles] | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.stamps_dir = Path(stamps_dir)
        self.clock = clock
        if backends is None:
            built, built_certs = make_backends(config, clock)
            backends, certs = built, {**built_certs, **(certs or {})}
        self.backends = list(backends)
        self.certs = dict(certs or {})
        self._sleep = sleep
        self._trust: TrustStore | None = None  # the reader-side trust store, loaded on first public token
        self._heads = HeadCache()  # each stamp hashes only the lines appended since the last (heads.py)

    def stamp_books(self, books: Sequence[tuple[str, Path]], *, note: str = "",
                    only: Collection[BackendKind] | None = None) -> StampResult | None:
        """Write and stamp a list of ``(published name, live path)`` heads; None if no list could be written.

        ``only`` limits the backends, e.g. ``{"rfc3161"}`` for the quick per-answer-seal tokens a
        league may configure between the full stamps of each run.
        """
        try:
            heads = [(name, self._heads.head(path)) for name, path in books]
        except (LeagueError, OSError, ValueError) as exc:
            log.error("stamp.list_failed", error=str(exc))
            return None
        return self.stamp_heads(heads, note=note, only=only)

    def stamp_heads(self, heads: Sequence[tuple[str, Head]], *, note: str = "",
                    only: Collection[BackendKind] | None = None) -> StampResult | None:
        """:meth:`stamp_books` for heads already read, at the clock's now (league.stamping.relay: read by the
        process that sealed the lines, stamped by another)."""
        now = self.clock.now()
        try:
            path = self._write_list(stamped_list(list(heads), taken_at=now, note=note), now)
        except (LeagueError, OSError, ValueError) as exc:
            log.error("stamp.list_failed", error=str(exc))
            return None
        try:
            return self.stamp_file(path, only=only)
        except OSError as exc:  # e.g. a full disk while storing proofs: reported, never raised into sealing
            log.error("stamp.store_failed", list=str(path), error=str(exc))
            return None

    def _write_list(self, text: str, now: datetime) -> Path:
        day = self.stamps_dir / f"{now:%Y-%m-%d}"
        day.mkdir(parents=True, exist_ok=True)
        path, i, data = day / f"{now:%H%M%SZ}.txt", 1, text.encode("utf-8")
        while path.exists():
            if path.read_bytes() == data:  # the same list again (a daemon restarted mid-stamp): stamped anew, once
                return path
            path, i = day / f"{now:%H%M%SZ}-{i}.txt", i + 1
        _write_atomic(path, data)
        return path

    def stamp_file(self, path: Path, *, only: Collection[BackendKind] | None = None) -> StampResult:
        """Stamp an existing list with every (or every ``only``) backend and write its status file."""
        data = path.read_bytes()
        chosen = [b for b in self.backends if only is None or b.kind in only]
        outcomes = self._run_backends(chosen, path, data)
        for outcome in outcomes:
            metrics.stamp_outcome(outcome.kind, outcome.ok)
        level = level_of(outcomes)
        result = StampResult(path, hashlib.sha256(data).hexdigest(), self.clock.now(), level, outcomes)
        self._write_status(result)
        log.info("stamp.done", list=str(path), trust=level, failed=[o.name for o in outcomes if not o.ok])
        return result

    def _run_backends(self, chosen: Sequence[StampBackend], path: Path, data: bytes) -> tuple[BackendOutcome, ...]:
        """Every chosen backend's outcome, in the backends' order, the backends run side by side.

        Each backend writes only its own proof file (``.ots``, ``.<tsa>.tsr``, ``.rekor.json``) and its own
        authority's certificates, and asks its own service: what one does never depends on another, so
        they need not wait for each other's round trips and fsyncs. The status file, written after all,
        lists them in the configured order whatever order they finished in."""
        if len(chosen) < 2:
            return tuple(self._run_backend(b, path, data) for b in chosen)
        with ThreadPoolExecutor(len(chosen), thread_name_prefix="stamp-backend") as pool:
            return tuple(pool.map(lambda b: self._run_backend(b, path, data), chosen))

    def _run_backend(self, backend: StampBackend, path: Path, data: bytes) -> BackendOutcome:
        attempts = 0
        try:
            for attempt in self._retrying():
                with attempt:
                    attempts += 1
                    artifact = backend.stamp(data)
        except StampError as exc:
            log.warning("stamp.backend_failed", backend=backend.name, attempts=attempts, error=exc.message)
            return BackendOutcome(kind=backend.kind, name=backend.name, ok=False, attempts=attempts, error=exc.message)
        except Exception as exc:  # a backend bug must not take the stamper down with it
            log.exception("stamp.backend_crashed", backend=backend.name)
            return BackendOutcome(kind=backend.kind, name=backend.name, ok=False, attempts=attempts,
                                  error=f"{exc.__class__.__name__}: {exc}")
        return self._keep(artifact, path, data, attempts)

    def _retrying(self) -> Retrying:
        return bounded(attempts=self.config.retries, wait_s=self.config.retry_wait,
                       retry_on=lambda exc: isinstance(exc, StampError), sleep=self._sleep)

    def _keep(self, art: Artifact, path: Path, data: bytes, attempts: int) -> BackendOutcome:
        target = path.with_name(path.name + art.suffix)
        _write_atomic(target, art.data)
        verified, error = (self._check_token(art, data) if art.kind == "rfc3161" else (art.complete, ""))
        return BackendOutcome(
            kind=art.kind, name=art.name, ok=True, attempts=attempts, file=target.name,
            signed_time=iso_seconds(art.signed_time) if art.signed_time else "", log_index=art.log_index,
            complete=art.complete, verified=verified, error=error,
        )

    def _check_token(self, art: Artifact, data: bytes) -> tuple[bool, str]:
        """Verify a fresh token in process and keep the authority's certificates for publication."""
        files = self.certs.get(art.name, CertFiles(None, None))
        folder = self.stamps_dir / "tsa" / art.name
        try:
            tsa_cert = files.cert_file or _signer_to(folder, signer_certificate(decode_reply(art.data, art.name)))
            if files.ca_file is None:
                return self._check_public(art, data, folder)
            verify_token(art.data, data, ca_file=files.ca_file, tsa_file=tsa_cert, authority=art.name)
            _copy_certs(folder, files.ca_file, tsa_cert)
        except (StampError, OSError) as exc:
            return False, str(exc)
        return True, ""

    def _check_public(self, art: Artifact, data: bytes, folder: Path) -> tuple[bool, str]:
        """An authority configured without a root: its token must chain to the system CA bundle or a
        pinned public root (league/stamps/anchors/); the root found is published as ``ca.pem``."""
        if self._trust is None:
            self._trust = TrustStore.default()
        try:
            check = check_token(art.data, data, self._trust, folder_ca=None, folder_tsa=None, authority=art.name)
        except StampError as exc:
            return False, (f"no root certificate configured for this authority and none in {self._trust.described} "
                           f"anchors it; token kept unverified ({exc.message})")
        folder.mkdir(parents=True, exist_ok=True)
        _write_atomic(folder / "ca.pem", check.chain_pem())
        _write_atomic(folder / "tsa.crt", check.signer.public_bytes(serialization.Encoding.PEM))
        return True, ""

    def _write_status(self, result: StampResult) -> None:
        record = {
            "list": result.list_path.name,
            "sha256": result.list_sha256,
            "stamped_at": iso_seconds(result.taken_at),
            "trust_level": result.trust_level,
            "backends": [o.as_json() for o in result.outcomes],
        }
        _write_atomic(status_path(result.list_path), json.dumps(record, indent=1).encode("utf-8") + b"\n")

    # ------------------------------------------------------------------------ upgrade job
    def upgrade(self, *, backoff: bool = False) -> list[tuple[Path, bool]]:
        """Try to complete every pending ``.ots``; returns (list, complete now?) per proof tried.

        ``backoff`` (the nightly job): a proof is asked for every night of its first week, then only
        when its age is 7·2^k days (see :func:`upgrade_due`), so that proofs a calendar never completes
        do not make every night ask about every stamp ever made (quadratic over a season). ``league
        stamp upgrade`` asks about all of them."""
        ots = next((b for b in self.backends if b.kind == "ots" and isinstance(b, Upgradable)), None)
        done: list[tuple[Path, bool]] = []
        if ots is None:
            return done
        today = self.clock.now().astimezone(UTC).date()
        files = list(self._status_files(today if backoff else None))
        for result in self._upgrade_all(ots, files):
            if result is not None:
                done.append(result)
        return done

    def _upgrade_all(self, ots: Upgradable, files: Sequence[Path]) -> list[tuple[Path, bool] | None]:
        """Each stamp's upgrade, in ``files`` order, up to :data:`UPGRADE_THREADS` asked side by side: each
        rewrites only its own proof and status file, so none waits for another's round trip to the calendar."""
        if len(files) < 2:
            return [self._upgrade_one(ots, f) for f in files]
        with ThreadPoolExecutor(min(UPGRADE_THREADS, len(files)), thread_name_prefix="stamp-upgrade") as pool:
            return list(pool.map(lambda f: self._upgrade_one(ots, f), files))

    def _status_files(self, due_on: date | None) -> Iterator[Path]:
        """Every ``<day>/*.status.json`` in path order, as ``sorted(glob("*/*.status.json"))`` lists them;
        with ``due_on``, only in the day folders whose upgrade is due then (:func:`upgrade_due`): the
        folders of the other days are not even listed, so a night's cost does not grow with the season."""
        try:
            days = sorted(p for p in self.stamps_dir.iterdir() if p.is_dir())
        except OSError:
            return
        for day in days:
            if due_on is None or day_due(day.name, due_on):
                yield from sorted(day.glob("*.status.json"))

    def _upgrade_one(self, ots: Upgradable, status_file: Path) -> tuple[Path, bool] | None:
        try:
            record = _status_record(status_file)
            outcomes = _objects(record["backends"])
            entry = next((b for b in outcomes if b["kind"] == "ots" and b["ok"]), None)
            if entry is None or entry.get("complete"):
                return None
            proof = status_file.with_name(text(entry["file"]))
            raw = proof.read_bytes()
            new, complete = ots.upgrade(raw)
            if new != raw:  # a proof still pending is left as it is (no rewrite, no fsync)
                _write_atomic(proof, new)
        except (StampError, OSError, ValueError, KeyError) as exc:
            log.warning("stamp.upgrade_failed", status=str(status_file), error=str(exc))
            return None
        before = json.dumps(record, indent=1)
        entry["complete"] = entry["verified"] = complete
        record["trust_level"] = level_of(tuple(BackendOutcome.model_validate(b) for b in outcomes))
        after = json.dumps(record, indent=1)
        if after != before:
            _write_atomic(status_file, after.encode("utf-8") + b"\n")
        return status_file.with_name(text(record["list"])), complete


def _status_record(status_file: Path) -> JsonObject:
    """A stamp's status record as JSON; one that is not an object is a ``ValueError`` (an unreadable record)."""
    record: Json = json.loads(status_file.read_text(encoding="utf-8"))
    if not isinstance(record, dict):
        raise ValueError(f"{status_file.name} is a JSON {type(record).__name__}, not an object")
    return record


def _objects(value: Json) -> list[JsonObject]:
    """A status record's ``backends``: an array of objects, else a ``ValueError``."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ValueError("backends is not an array of objects")
    return [v for v in value if isinstance(v, dict)]


#: Pending proofs asked about side by side by one upgrade (a few requests at a time to each calendar).
UPGRADE_THREADS = 4
#: A pending proof is asked for every night while younger than this many days, then at 7·2^k days.
UPGRADE_NIGHTLY_DAYS = 7


def upgrade_due(status_file: Path, today: date) -> bool:
    """Is the nightly upgrade due for this stamp? Every night of its first week, then at ages of 7, 14,
    28, 56 … days (the stamp's weekday, so a session night). Calendars complete a proof within hours;
    one still pending after a week is asked ever more rarely, never dropped. The day is the stamp
    folder's name (``<YYYY-MM-DD>/``); a folder not named as a day is always due."""
    return day_due(status_file.parent.name, today)


def day_due(folder: str, today: date) -> bool:
    """:func:`upgrade_due` for the stamps of the day folder named ``folder``."""
    try:
        age = (today - date.fromisoformat(folder)).days
    except ValueError:
        return True
    if age < UPGRADE_NIGHTLY_DAYS:
        return True
    weeks, rest = divmod(age, UPGRADE_NIGHTLY_DAYS)
    return rest == 0 and weeks & (weeks - 1) == 0


def level_of(outcomes: Sequence[BackendOutcome]) -> TrustLevel:
    ots = [o for o in outcomes if o.kind == "ots" and o.ok]
    tokens = sum(1 for o in outcomes if o.kind == "rfc3161" and o.ok and o.verified)
    return trust_level(ots_complete=any(o.complete for o in ots), ots_pending=bool(ots), signed_times=tokens)


def status_path(list_path: Path) -> Path:
    return list_path.with_name(list_path.name[: -len(".txt")] + ".status.json")


def recent_stamps(stamps_dir: Path, limit: int = 10) -> list[JsonObject]:
    """The last ``limit`` status records, newest first (for ``league status``: failures and levels)."""
    files = sorted(Path(stamps_dir).glob("*/*.status.json"), key=lambda p: (p.parent.name, p.name), reverse=True)
    out: list[JsonObject] = []
    for f in files[:limit]:
        try:
            out.append({"day": f.parent.name, **_status_record(f)})
        except (OSError, ValueError) as exc:
            out.append({"day": f.parent.name, "list": f.name, "error": f"unreadable status: {exc}"})
    return out


def _signer_to(folder: Path, cert: x509.Certificate | None) -> Path | None:
    if cert is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "tsa.crt"
    _write_atomic(target, cert.public_bytes(serialization.Encoding.PEM))
    return target


def _copy_certs(folder: Path, ca_file: Path, tsa_file: Path | None) -> None:
    """Publish the authority's certificates beside the stamps (copied once while neither side changes)."""
    folder.mkdir(parents=True, exist_ok=True)
    if ca_file.resolve() != (folder / "ca.pem").resolve():
        copy_once(ca_file, folder / "ca.pem")
    if tsa_file is not None and tsa_file.resolve() != (folder / "tsa.crt").resolve():
        copy_once(tsa_file, folder / "tsa.crt")


def _write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary name, fsync, rename: a reader never sees half a proof."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
