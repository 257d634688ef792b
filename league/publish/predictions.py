"""The registered predictions' open files (docs/predictions.md): ``predictions/`` (each sealed registry, set-B
script and resolution input under its SHA-256) and ``predictions.json`` (every line with its status, data and
the command that re-resolves it, and the scorecard). ``predictions.json`` is built from the published arms' book
and the published registries alone, so ``league verify`` (step 11) rebuilds it byte for byte.
"""

from __future__ import annotations

from pathlib import Path

from league.arms.book import ARMS_BOOK, ARMS_DIR
from league.arms.lines import (
    PREDICTION_KINDS,
    PredictionRegistryLine,
    PredictionResolutionLine,
    read_arm_line,
)
from league.book import iter_lines
from league.jsonvalue import Json
from league.predictions.registry import read_registry
from league.predictions.scorecard import Scored, scorecard
from league.publish.writing import copy_file, write_json

REPORT = "predictions.json"
FOLDER = "predictions"
TOOL = "tools/resolve_predictions.py"
DEFINITIONS: dict[str, str] = {
    "status": ("pending (its check date has not come), true or false (resolved), or unresolved with the reason "
               "(sample too small, file missing, a field renamed or missing without a documented equivalent, a "
               "script that gave no value); a resolution is sealed once and never changed"),
    "value": ("set A: the field at `field` (or `left` minus `right`), read from the published file at the first "
              "publication on or after the check date; set B: the value the sealed script printed"),
    "outcome": "true when value OP threshold holds",
    "brier": "mean over resolved lines of (p - outcome)^2, outcome 1 for true and 0 for false",
    "brier_worst_case": "the same mean with every unresolved line counted as failed (outcome 0)",
    "skill_vs_half": "1 - brier / 0.25: above 0 when the registered probabilities beat always saying 0.5",
    "share_resolved": "resolved lines / lines whose check date has come",
    "inputs": ("each file the resolution read, by SHA-256, kept in predictions/inputs/<sha256>: "
               f"`python3 -I {TOOL} . --id ID` re-resolves it from them"),
}


def _book_lines(book: Path) -> tuple[list[tuple[int, PredictionRegistryLine]],
                                     dict[str, tuple[int, PredictionResolutionLine]]]:
    regs: list[tuple[int, PredictionRegistryLine]] = []
    done: dict[str, tuple[int, PredictionResolutionLine]] = {}
    for line in iter_lines(book):
        if line.kind not in PREDICTION_KINDS:
            continue
        x = read_arm_line({**line.content, "at": line.at})
        if isinstance(x, PredictionRegistryLine):
            regs.append((line.n, x))
        elif isinstance(x, PredictionResolutionLine):
            done.setdefault(x.id, (line.n, x))
    return regs, done


def has_predictions(book: Path) -> bool:
    return book.is_file() and any(line.kind == "prediction_registry" for line in iter_lines(book))


def predictions_report(book: Path, folder: Path) -> dict[str, Json]:
    """``predictions.json`` from the arms' book ``book`` and the registries published in ``folder``."""
    regs, done = _book_lines(book)
    registries: list[Json] = []
    lines: list[Json] = []
    scored: list[Scored] = []
    for n, reg in regs:
        name = f"registry-{reg.registry_sha256}.toml"
        text = (folder / FOLDER / name).read_bytes().decode("utf-8")
        registry = read_registry(text, f"{FOLDER}/{name}")
        registries.append({"name": reg.name, "sha256": reg.registry_sha256, "file": name, "line": n,
                           "sealed_at": reg.at, "sessions_run_before": reg.sessions, "note": registry.note})
        for pred in registry.predictions:
            entry = pred.resolver_json(registry.window)
            resolved = done.get(pred.id)
            resolution: Json = None
            if resolved is not None:
                rn, r = resolved
                resolution = {"status": r.status, "value": r.value, "n": r.sample, "reason": r.reason,
                              "mapping": dict(r.mapping), "inputs": dict(r.inputs), "session": r.session, "line": rn,
                              "sealed_at": r.at}
            status = resolved[1].status if resolved is not None else "pending"
            scored.append(Scored(pred.id, pred.p, resolved[1].status if resolved is not None else None))
            lines.append({**entry, "registry": reg.registry_sha256, "status": status, "resolution": resolution,
                          "command": f"python3 -I {TOOL} . --id {pred.id}"})
    definitions: dict[str, Json] = dict(DEFINITIONS)
    return {"version": 1, "definitions": definitions, "registries": registries, "predictions": lines,
            "scorecard": scorecard(scored)}


def write_predictions(data_dir: Path, out: Path) -> list[Path]:
    """Copy the kept registries, scripts and inputs, then write predictions.json (nothing without a registry)."""
    book = out / ARMS_DIR / ARMS_BOOK
    if not has_predictions(book):
        return []
    written: list[Path] = []
    source = data_dir / FOLDER
    for path in sorted(source.rglob("*")):
        if path.is_file() and not path.name.endswith(".tmp"):
            written.append(copy_file(path, out / FOLDER / path.relative_to(source)))
    written.append(write_json(out / REPORT, predictions_report(book, out)))
    return written


def rebuild_predictions(folder: Path, out: Path) -> None:
    """A reader's rebuild (league verify step 11): predictions.json from the published book and registries."""
    if (folder / REPORT).is_file() and has_predictions(folder / ARMS_DIR / ARMS_BOOK):
        write_json(out / REPORT, predictions_report(folder / ARMS_DIR / ARMS_BOOK, folder))
