"""Registered predictions (docs/predictions.md): sealing a registry, and resolving each prediction at the first
publication after its check date.

``register`` reads a registry file, checks it (league.predictions.registry), checks every set-B script's bytes
against the SHA-256 the registry states, refuses a prediction whose window's first session has already run,
keeps the registry's and the scripts' exact bytes under their hashes (``DATA/predictions/``) and seals a
``prediction_registry`` line in the arms' book (the experiments' book, stamped with the others).

``resolve_due`` runs after the nightly publication: every registered prediction whose check date has come and
that was never resolved is resolved by the published resolver (``tools/resolve_predictions.py``, the same code
a reader re-runs) against the folder just published; every file it read is kept under its SHA-256
(``DATA/predictions/inputs/``) and a ``prediction_resolution`` line sealed. Nothing is deleted or resolved twice;
a set-B script whose bytes no longer have their sealed hash is not run (logged; retried at the next publication).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import structlog

from league.arms.book import ARMS_BOOK, ArmsBooks
from league.arms.lines import PredictionRegistryLine, PredictionResolutionLine
from league.jobs.context import League
from league.jobs.stamp import stamped_books, stamper_for
from league.predictions.registry import Registry, RegistryError, read_registry
from league.seatcore.files import write_atomic
from league.verify.tools import resolve_predictions as resolver

log = structlog.get_logger(__name__)
#: Where the registries, scripts and resolution inputs are kept under their SHA-256 (published as predictions/).
PREDICTIONS_DIR = "predictions"


@dataclass(frozen=True)
class Sealed:
    """A sealed registry and what the publisher needs of it."""

    line: PredictionRegistryLine
    registry: Registry


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def registry_path(data_dir: Path, sha: str) -> Path:
    return data_dir / PREDICTIONS_DIR / f"registry-{sha}.toml"


def script_path(data_dir: Path, sha: str) -> Path:
    return data_dir / PREDICTIONS_DIR / "scripts" / f"{sha}.py"


def registries(books: ArmsBooks) -> list[PredictionRegistryLine]:
    return [x for _, x in books.lines() if isinstance(x, PredictionRegistryLine)]


def resolutions(books: ArmsBooks) -> dict[str, PredictionResolutionLine]:
    out: dict[str, PredictionResolutionLine] = {}
    for _, x in books.lines():
        if isinstance(x, PredictionResolutionLine):
            out.setdefault(x.id, x)
    return out


def sessions_run(lg: League) -> int:
    """How many sessions the council book has a run for: the data a window could read."""
    return len(lg.books.index.sessions("run"))


def register(lg: League, path: Path, *, stamp: bool = True) -> PredictionRegistryLine:
    """Check and seal the registry at ``path``; its set-B scripts are read relative to its folder."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RegistryError(f"{path}: not UTF-8 text", fix="save the registry as UTF-8") from None
    registry = read_registry(text, str(path))
    ran = sessions_run(lg)
    sealed_ids = {i for r in registries(lg.arms) for i in r.ids}
    scripts: dict[str, bytes] = {}
    for pred in registry.predictions:
        if pred.id in sealed_ids:
            raise RegistryError(f"{path}: prediction {pred.id} is already registered",
                                fix="a sealed prediction is never replaced: register new lines under new ids")
        first = pred.first_session(registry.window)
        if ran >= first:
            raise RegistryError(
                f"{path}: prediction {pred.id}: its window starts at session {first}, and {ran} sessions have "
                "already run: the data it reads exists", fix="register before the window's first session runs, or "
                "move the window's from_session past the sessions already run")
        if pred.script is not None:
            body = (path.parent / pred.script).read_bytes() if (path.parent / pred.script).is_file() else None
            if body is None:
                raise RegistryError(f"{path}: prediction {pred.id}: key `script`: {pred.script} not found next to "
                                    "the registry", fix="put the script beside the registry (its path is relative)")
            if _sha(body) != pred.sha256:
                raise RegistryError(f"{path}: prediction {pred.id}: key `sha256`: {pred.script} has SHA-256 "
                                    f"{_sha(body)}, not {pred.sha256}", fix="commit the script, then write its "
                                    "SHA-256 (sha256sum) in the registry")
            scripts[pred.sha256 or ""] = body
    sha = _sha(data)
    write_atomic(registry_path(lg.data_dir, sha), data)
    for digest, body in scripts.items():
        write_atomic(script_path(lg.data_dir, digest), body)
    line = PredictionRegistryLine(
        registry_sha256=sha, name=registry.name, ids=[p.id for p in registry.predictions],
        scripts={p.script: p.sha256 for p in registry.predictions if p.script and p.sha256}, sessions=ran,
        first_window_session=min(p.first_session(registry.window) for p in registry.predictions))
    lg.arms.seal(line)
    log.info("predictions.registered", registry=registry.name, sha256=sha, predictions=len(registry.predictions))
    if stamp:
        try:  # a failing authority never undoes the seal: the stamper records it and the next stamp retries
            stamper_for(lg).stamp_books(stamped_books(lg.books.dir), note=f"prediction registry {sha[:12]}")
        except Exception:  # noqa: BLE001 - logged; the registry is sealed either way
            log.exception("predictions.stamp_failed")
    return line


def load_sealed(data_dir: Path, line: PredictionRegistryLine) -> Registry:
    """A sealed registry read back from its kept bytes (checked against the sealed hash)."""
    data = registry_path(data_dir, line.registry_sha256).read_bytes()
    if _sha(data) != line.registry_sha256:
        raise RegistryError(f"the kept registry {line.registry_sha256[:12]} does not have its sealed SHA-256",
                            fix="restore DATA/predictions/ from a backup")
    return read_registry(data.decode("utf-8"), f"registry {line.registry_sha256[:12]}")


def resolve_due(lg: League, session: str, public: Path) -> list[PredictionResolutionLine]:
    """Resolve every prediction whose check date is on or before ``session`` and that was never resolved,
    against the folder just published; returns the lines sealed (none, and no arms' book opened, when the league
    never registered a prediction)."""
    if not (lg.books.dir / ARMS_BOOK).is_file():
        return []
    return resolve_in(lg.arms, lg.data_dir, session, public)


def resolve_in(books: ArmsBooks, data_dir: Path, session: str, public: Path) -> list[PredictionResolutionLine]:
    """:func:`resolve_due` on the arms' book ``books`` of the league whose data folder is ``data_dir``."""
    done = resolutions(books)
    sealed: list[PredictionResolutionLine] = []
    for reg in registries(books):
        try:
            registry = load_sealed(data_dir, reg)
        except (OSError, RegistryError) as exc:
            log.error("predictions.registry_unreadable", sha256=reg.registry_sha256, error=str(exc)[:300])
            continue
        for pred in registry.predictions:
            if pred.id in done or pred.check_date.isoformat() > session:
                continue
            entry = pred.resolver_json(registry.window)
            files = resolver.Files(str(public))
            try:
                got = resolver.resolve(files, entry)
            except resolver.ScriptChanged as exc:
                log.error("predictions.script_changed", id=pred.id, error=str(exc))
                continue
            inputs = _keep_inputs(data_dir, public, got["inputs"])
            line = PredictionResolutionLine(
                id=pred.id, registry_sha256=reg.registry_sha256, check_date=pred.check_date.isoformat(),
                session=session, status=got["status"], value=got["value"], sample=got["n"], reason=got["reason"],
                mapping=got["mapping"], inputs=inputs)
            books.seal(line)
            sealed.append(line)
            log.info("predictions.resolved", id=pred.id, status=line.status, value=line.value, reason=line.reason)
    return sealed


def _keep_inputs(data_dir: Path, public: Path, read: dict[str, str]) -> dict[str, str]:
    """Every published file a resolution read, kept under its SHA-256 (the published files move on)."""
    for name, sha in read.items():
        target = data_dir / PREDICTIONS_DIR / "inputs" / sha
        if not target.is_file():
            data = (public / name).read_bytes()
            if _sha(data) == sha:
                write_atomic(target, data)
    return dict(read)
