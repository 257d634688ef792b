"""`league verify`: check a book file, or a whole published folder / URL (open-data.md)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from league.book.lines import check_book
from league.cli._progress import steps as progress_bar
from league.errors import ChainBroken, LeagueError
from league.extras import STATS, extra, install_hint, missing
from league.inputs import InputError, read_json
from league.jsonvalue import Json
from league.stamps.trust import TrustStore
from league.verify import CONFORMANCE_PATH
from league.verify.chain import verify as verify_chain
from league.verify.reader import FOLDER_STEP, manifest_step, verify_published

if TYPE_CHECKING:
    from league.verify.reader import ContestVerifier, Status


def _typed(path: Path) -> None:
    """The writer's schema: every line against its kind's model (after the chain, which is the proof)."""
    counts, problems = check_book(path)
    shown = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
    if problems:
        n, why = problems[0]
        raise LeagueError(f"FAILED {path}: {len(problems)} line(s) fit no model of this version; line {n}: {why}",
                          fix="a book of another writer or version: its chain above still holds")
    typer.echo(f"typed {path}: every line fits its kind's model ({shown})")


#: The fix when the book named holds nothing to verify.
NOTHING_TO_VERIFY = ("name a book with its lines (council-book.jsonl) or the published open-data folder that holds "
                     "it (DATA/public, or its URL)")


def _verify_book(path: Path, workers: int | None) -> None:
    if not path.exists():
        raise InputError(f"{path}: no such file", fix="pass the path of a book (.jsonl) or a published folder")
    if not path.is_file():  # a FIFO would block forever, a device never ends
        raise InputError(f"{path}: not a regular file", fix="pass the path of a book file (.jsonl)")
    if path.stat().st_size == 0:
        raise InputError(f"{path}: empty (0 lines): an empty file is not a book, there is nothing to verify",
                         fix=NOTHING_TO_VERIFY)
    report = verify_chain(path, workers=workers)
    if not report.ok:
        raise ChainBroken(
            f"FAILED {path}: line {report.bad_line}: {report.reason}",
            line=report.bad_line,
            reason=report.reason,
            fix=f"lines 1..{report.bad_line - 1} hold; line {report.bad_line} and after cannot be trusted",
        )
    typer.echo(f"ok {path}: {report.lines} lines, sha256 {report.sha256}, last link {report.last_link or '-'}")
    typer.echo(_prefix_note(path, report.lines, report.sha256))


def _prefix_note(path: Path, lines: int, sha256: str) -> str:
    """What a bare book's "ok" proves: a prefix. Cutting lines off the end leaves a valid chain, so only a
    stamped head (N lines, sha256 D, signed outside the operator) says the book was at least this long."""
    folder = path.parent.resolve()
    how = (f"`league verify {folder}` checks the stamps published beside it (proof/)"
           if (folder / "proof").is_dir() else
           "run `league verify` on the published folder it came from (its proof/ lists and tokens)")
    return (f"  a prefix only: without its stamps these {lines} lines cannot be told from the first {lines} of a "
            f"longer book (a book cut short is still a valid chain); {how}, or find the row "
            f"`{path.name}: {lines} lines, sha256 {sha256}` in a stamped list")


def _skipped_rebuild(folder: Path) -> tuple[Status, str]:
    return "skipped", "not asked for (--no-rebuild)"


def _no_statistics(folder: Path) -> tuple[Status, str]:
    """Step 11 on the lean install: the rebuild runs the publisher's statistics, which need the stats extra."""
    return "skipped", (f"the rebuild needs the statistics extra ({', '.join(missing(STATS))} not installed): "
                       f"{install_hint('stats')}, then verify again")


def _rebuild_step(rebuild: bool) -> tuple[Callable[[Path], tuple[Status, str]], str]:
    """Step 11's function, and why ``--strict`` refuses its result ("" = it does not)."""
    if not rebuild:
        return _skipped_rebuild, ""
    if missing(STATS):
        return _no_statistics, f"derived files not rebuilt: the stats extra is missing ({install_hint('stats')})"
    with extra("stats"):
        from league.publish.rebuild import rebuild_step
    return partial(_readable_then, rebuild_step), ""


def _contest_verifier() -> ContestVerifier | None:
    """Step 13's `league contest verify`; None on the lean install (its metrics need NumPy), where the reader
    skips the step naming the install command."""
    if missing(("numpy",)):
        return None
    with extra("stats"):
        from league.contest.verify import verify_folder
    return verify_folder


def _readable_then(rebuild: Callable[[Path], tuple[Status, str]], folder: Path) -> tuple[Status, str]:
    """Step 11 after every published JSON file it may read has been read once with league.inputs' bounds:
    the publisher's readers are not written for hostile files (100,000-deep JSON raised RecursionError), so
    a file that is not bounded JSON fails the step naming it, before the rebuild reads anything."""
    for path in sorted(folder.glob("*.json")):
        try:
            read_json(path, what="published JSON file", inside=folder)
        except InputError as exc:
            return "FAILED", f"not rebuilt: {exc.message}"
    return rebuild(folder)


#: A contextual run's open-data folder (docs/evals.md, "C."): what tells it apart, its book, its own recount.
CONTEXT_RESULTS = "context-results.json"
CONTEXT_BOOK = "eval-book.jsonl"
CONTEXT_RECOUNT = "tools/recount_context.py"


def _context_effects(folder: Path) -> tuple[str, str]:
    """Step 3 of a contextual run: every effects record recomputed by the validator the run applied (NumPy)."""
    if missing(STATS):
        return "skipped", (f"re-validating the effects needs the statistics extra ({', '.join(missing(STATS))} not "
                           f"installed): {install_hint('stats')}, then verify again")
    with extra("stats"):
        from league.evals.context.run import revalidate_effects
    checked, problems = revalidate_effects(folder)
    for line in problems:
        typer.echo(f"  {line}")
    if problems:
        return "FAILED", f"{len(problems)} of {checked} window(s) carry an effects record that does not hold"
    return "ok", f"{checked} window(s): every Macro and Micro value recomputed from the window's series"


def _verify_context_run(folder: Path, workers: int | None) -> None:
    """`league verify` on a contextual run's open-data folder: the eval book's chain (the run's sealed order: the
    window set before any ask, each reply on arrival), the folder's own stand-alone recount (standard library:
    every hash, fitted path and published figure), then the effects re-validated. Failures exit 1 like a
    published league folder's steps; the recount's DIFFERS lines name the run and the figure."""
    results: list[tuple[int, str, str, str]] = []
    book = folder / CONTEXT_BOOK
    if not book.is_file():
        results.append((1, "the eval book", "FAILED", f"{CONTEXT_BOOK} is not in {folder}"))
    else:
        report = verify_chain(book, workers=workers)
        results.append((1, "the eval book", "ok" if report.ok else "FAILED",
                        f"{report.lines} lines, sha256 {report.sha256}" if report.ok else
                        f"line {report.bad_line}: {report.reason}"))
    tool = folder / CONTEXT_RECOUNT
    if not tool.is_file():
        results.append((2, "the stand-alone recount", "FAILED", f"{CONTEXT_RECOUNT} is not in {folder}"))
    else:  # the folder's own script, as a reader runs it (python3 -I: nothing of this install leaks in)
        proc = subprocess.run([sys.executable, "-I", str(tool), "--data", str(folder)], capture_output=True,
                              text=True, check=False, timeout=600)
        lines = proc.stdout.strip().splitlines()
        for line in lines[:-1]:
            typer.echo(f"  {line}")
        results.append((2, "the stand-alone recount", "ok" if proc.returncode == 0 else "FAILED",
                        lines[-1] if lines else (proc.stderr.strip() or f"exit {proc.returncode}")))
    results.append((3, "the effects", *_context_effects(folder)))
    for number, name, status, detail in results:
        typer.echo(f"step {number:>2} {name}: {status} — {detail}")
    failed = sum(status == "FAILED" for _, _, status, _ in results)
    if failed:
        raise LeagueError(f"{failed} verification step(s) FAILED for the contextual run {folder}",
                          fix="each DIFFERS line names the run, the window or the figure")


def _verify_folder(target: str, *, anchors: list[Path], trust_folder_certs: bool, strict: bool,
                   rebuild: bool = True) -> None:
    failed, refused = 0, []
    step11, not_rebuilt = _rebuild_step(rebuild)
    extra = [(11, "derived files", step11), (12, "release manifest", manifest_step)]
    with progress_bar("verify") as progress:
        steps = verify_published(target, extra=extra, trust=TrustStore.default(anchors),
                                 trust_folder_certs=trust_folder_certs, progress=progress,
                                 contest=_contest_verifier())
    if steps and steps[0].step == FOLDER_STEP[0] and steps[0].status == "FAILED":  # no other step ran
        raise InputError(f"{target}: cannot be verified: {steps[0].detail}", fix=steps[0].fix or None)
    for step in steps:
        typer.echo(step.line())
        failed += step.status == "FAILED"
        refused += [f"step {step.step}: {step.strict}"] if step.strict and step.status != "FAILED" else []
    refused += [f"step 11: {not_rebuilt}"] if not_rebuilt else []
    _compliance(target)
    if failed:
        raise LeagueError(f"{failed} verification step(s) FAILED for {target}")
    if strict and refused:
        raise LeagueError(f"--strict: {'; '.join(refused)}",
                          fix="only tokens whose roots are in your trust store count under --strict "
                              "(--trust-anchor PEM adds a root you have checked yourself)")


def compliance_lines(doc: Json) -> list[str]:
    """The compliance table as printed: number, level, status, the check to run; ``TypeError`` for a
    document that is not such a table (an object whose ``requirements`` are objects)."""
    if not isinstance(doc, dict):
        raise TypeError(f"the table is a JSON {type(doc).__name__}, not an object")
    rows = doc.get("requirements") or []
    if not isinstance(rows, list):
        raise TypeError(f"requirements is a JSON {type(rows).__name__}, not an array")
    out = []
    for r in rows:
        if not isinstance(r, dict):
            raise TypeError(f"a requirement is a JSON {type(r).__name__}, not an object")
        out.append(f"  {r.get('number'):>2} {r.get('level', ''):<6} {r.get('status', ''):<14} {r.get('check', '')}")
    return out


def _compliance(target: str) -> None:
    """The paper's 17 requirements as the folder states them (arena-compliance.json), when it is local."""
    if target.startswith(("http://", "https://")):
        typer.echo(f"compliance: read {target.rstrip('/')}/arena-compliance.json (each row names the check to run)")
        return
    path = Path(target) / "arena-compliance.json"
    if not path.is_file():
        typer.echo("compliance: arena-compliance.json is not published")
        return
    try:
        table = compliance_lines(read_json(path, what="compliance table", inside=Path(target)))
    except InputError as exc:
        typer.echo(f"compliance: arena-compliance.json cannot be read ({exc.message})")
        return
    except (AttributeError, TypeError, ValueError) as exc:
        typer.echo(f"compliance: arena-compliance.json is not a compliance table ({exc})")
        return
    typer.echo("compliance with Sealed Before the Open §3.13 as the folder declares it (arena-compliance.json); "
               "run each check to see for yourself:")
    for line in table:
        typer.echo(line)


def verify(
    target: Annotated[str, typer.Argument(
        help="a book file (.jsonl), a published folder, its URL, or a contextual run's folder")],
    workers: Annotated[
        int | None, typer.Option("--workers", envvar="LEAGUE_VERIFY_WORKERS", min=1, max=64,
                                 help="processes for a book check, 1 to 64")
    ] = None,
    typed: Annotated[bool, typer.Option("--typed", envvar="LEAGUE_VERIFY_TYPED",
                                        help="also check every line of a book against its kind's model")] = False,
    trust_folder_certs: Annotated[bool, typer.Option(
        "--trust-folder-certs", envvar="LEAGUE_VERIFY_TRUST_FOLDER_CERTS",
        help="accept RFC 3161 roots published in the folder itself, reported as declared by the operator")] = False,
    strict: Annotated[bool, typer.Option(
        "--strict", envvar="LEAGUE_VERIFY_STRICT",
        help="exit non-zero when a token is trusted only on the operator's word (folder certificates)")] = False,
    anchors: Annotated[list[Path] | None, typer.Option(
        "--trust-anchor", envvar="LEAGUE_VERIFY_TRUST_ANCHORS",
        help="a PEM root you trust, added to the system CA bundle and the pinned authorities (repeatable)")] = None,
    rebuild: Annotated[bool, typer.Option("--rebuild/--no-rebuild", envvar="LEAGUE_VERIFY_REBUILD",
                                          help="step 11: rebuild every derived file from the books and compare "
                                               "(the publisher's work: seconds to minutes)")] = True,
) -> None:
    """Verify a book's hash chain (first bad line and why), or every reader's step on a published folder."""
    path = Path(target)
    if path.is_dir() and (path / CONTEXT_RESULTS).is_file():
        _verify_context_run(path, workers)
    elif target.startswith(("http://", "https://")) or path.is_dir():
        _verify_folder(target, anchors=list(anchors or []), trust_folder_certs=trust_folder_certs, strict=strict,
                       rebuild=rebuild)
    else:
        _verify_book(path, workers)
        if typed:
            _typed(path)


def conformance(
    csv_path: Annotated[Path, typer.Argument(help="a council-forecasts.csv")],
) -> None:
    """Run the stand-alone event-contract conformance checker on a forecasts CSV."""
    # the very file a reader downloads, loaded by path: the command and the published tool cannot differ
    spec = importlib.util.spec_from_file_location("league_conformance", CONFORMANCE_PATH)
    assert spec is not None and spec.loader is not None
    checker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checker)
    code = checker.main(["conformance.py", str(csv_path)])
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)
    app.command("conformance")(conformance)
