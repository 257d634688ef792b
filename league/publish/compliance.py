"""``arena-compliance.json``: the paper's seventeen requirements (§3.13), this league's status, a reader's check.

The requirements are those of "Sealed Before the Open" §3.13, in our words (docs/compliance.md).
A status is what this project does, not a claim about a season: where it depends on what a league
published (proofs of an outside anchor, transparency-log entries, RFC 3161 tokens, the stamped
release manifest), it is read from the folder being published, so a league without them says so.
Statuses: ``met``, ``partial`` (what is there and what is not is said), ``not met``,
``not applicable`` (the league does not do what the requirement governs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from league.stamps.rekor import PUBLIC_REKOR_LOG_ID

VERIFY = "league verify FOLDER"
MANIFEST = "release-manifest.json"


@dataclass(frozen=True)
class Part:
    """One named part of a requirement with several (requirement 17's diagnostics), checked on its own."""

    name: str
    status: str
    evidence: str
    check: str

    def as_json(self) -> dict[str, str]:
        return {"part": self.name, "status": self.status, "evidence": self.evidence, "check": self.check}


@dataclass(frozen=True)
class Requirement:
    number: int
    level: str
    text: str
    status: str
    evidence: str
    check: str
    parts: tuple[Part, ...] = ()

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"number": self.number, "level": self.level, "requirement": self.text,
                                  "status": self.status, "evidence": self.evidence, "check": self.check}
        if self.parts:
            out["parts"] = [p.as_json() for p in self.parts]
        return out


def _has(folder: Path, pattern: str) -> bool:
    return any(folder.glob(pattern))


def _anchor(folder: Path) -> tuple[str, str]:
    ots, rekor = _has(folder, "proof/*/*.ots"), _has(folder, "proof/*/*.rekor.json")
    own = _operator_services(folder)
    if ots and rekor and own:
        return "partial", ("OpenTimestamps proofs and Rekor entries are published under proof/, but from "
                           f"{own}: services the operator runs (the demo's local stand-ins), not outside anchors")
    if ots and rekor:
        return "met", "OpenTimestamps proofs and Rekor entries of every stamped list are published under proof/"
    found = [n for n, ok in (("OpenTimestamps proofs", ots), ("Rekor entries", rekor)) if ok]
    return "partial", (f"published: {', '.join(found) or 'neither .ots proofs nor Rekor entries'}; the stamper "
                       "supports both ([stamps] calendars, rekor in config/league.toml)")


def _operator_services(folder: Path) -> str:
    """Which published proofs come from the operator's own services: calendars on loopback, or a log
    whose logID is not Sigstore's public Rekor ("" when none)."""
    found = []
    proofs = (p.read_bytes() for p in folder.glob("proof/*/*.ots"))
    if any(b"://127.0.0.1" in data or b"://localhost" in data for data in proofs):
        found.append("a calendar on this machine")
    for path in folder.glob("proof/*/*.rekor.json"):
        try:
            logs = {str(e.get("logID")) for e in json.loads(path.read_text(encoding="utf-8")).values()}
        except (OSError, ValueError, AttributeError):
            continue
        if logs - {PUBLIC_REKOR_LOG_ID}:
            found.append("a transparency log that is not Sigstore's public Rekor")
            break
    return " and ".join(found)


def _tokens(folder: Path) -> tuple[str, str]:
    authorities = sorted({p.name.split(".")[-2] for p in folder.glob("proof/*/*.tsr")})
    if not authorities:
        return "partial", "answers are sealed on arrival; no RFC 3161 token is published"
    return "met", (f"answers are sealed on arrival; RFC 3161 tokens from {', '.join(authorities)} (step 9 says "
                   "whether the reader's trust store knows these authorities)")


def _manifest(written: bool) -> tuple[str, str]:
    if not written:
        return "partial", "data, scoring code (arena-code.json) and recount tools are published; no release manifest"
    return "met", (f"data, scoring code (arena-code.json), stand-alone recount tools and {MANIFEST} (every file's "
                   "SHA-256 and size, its own hash in a stamped list)")


def _snapshots(folder: Path) -> tuple[str, str]:
    if (folder / "snapshots").is_dir():
        return "met", "hash chain sealed on entry; ask texts (asks/) and snapshots (snapshots/) published"
    return "partial", ("hash chain sealed on entry; ask texts published (asks/), corrections are new lines; the "
                       "price snapshots behind snapshot_sha256 are not published")


def _climatology(folder: Path) -> tuple[str, str]:
    """Met when the book's opening line seals the climatology table's hash (before the season's first ask)."""
    book = folder / "council-book.jsonl"
    try:
        with open(book, encoding="utf-8") as fh:
            opening = json.loads(fh.readline() or "{}")
    except (OSError, ValueError):
        opening = {}
    base = ("coin and climatology references with skill scores; crowd quotes sealed with their volume in run "
            "lines; ")
    if isinstance(opening, dict) and opening.get("climatology_sha256"):
        return "met", base + "the climatology window's hash is sealed in the opening line"
    return "partial", base + "the window's hash is checked inside council-clim-window.json but sealed in no book line"


def requirements(folder: Path, *, manifest_written: bool = True) -> list[Requirement]:
    """The seventeen rows, with the folder-dependent statuses read from ``folder``."""
    anchor, tokens, snaps, clim = _anchor(folder), _tokens(folder), _snapshots(folder), _climatology(folder)
    manifest = _manifest(manifest_written)
    rows = [
        (1, "MUST", "each task is an event contract fixed before the ask (price source, symbol, bar, reference "
            "and end rules); model, version and mode sealed in the answer line; blind seasons commit to "
            "H(salt|model|version|mode)", "met",
         "contracts sealed in every run line, event-contract.schema.json; a blind season (roster blind = true) "
         "seals sha256(salt || model || 0x00 || version || 0x00 || mode) per seat before the first ask and "
         "`league reveal` opens them (docs/seats.md 6a; step 5 checks the reveal)",
         "python3 -I tools/conformance.py council-forecasts.csv"),
        (2, "MUST", "an append-only hash-chained record, each line sealed on entry, ask text and price snapshot "
            "hashed into the run, asks published, corrections as new lines", *snaps,
         f"{VERIFY} (steps 4, 5)"),
        (3, "MUST", "the record's head anchored outside the operator at every run, proofs published, each stamped "
            "digest published on an append-only channel the operator does not control", *anchor,
         f"{VERIFY} (steps 6, 9, 10)"),
        (4, "MUST", "one reference price per common event, after the seal, by a published rule; a later seal is "
            "its own event; forecasts pool only on equal contracts", "met",
         "event_id_v2 of the full contract; late seals get late_ref and their own reference",
         "python3 -I tools/conformance.py council-forecasts.csv; python3 -I tools/recount_consensus.py --data ."),
        (5, "MUST", "every run published, counted or not, with its label", "met",
         "every run line and answer in council-book.jsonl; run_role in council-forecasts.csv",
         f"{VERIFY} (step 11 rebuilds every row from the book)"),
        (6, "MUST", "the counted run of each session fixed by a rule declared before the run (SHOULD: on a "
            "channel the operator does not control)", "met",
         "line 1 of asks.jsonl seals the counting rule before any run; stamped with the books",
         "head -n 1 asks.jsonl; " + f"{VERIFY} (steps 3, 4)"),
        (7, "MUST", "the asked event scored by a strictly proper rule: Brier on every row of a strict rise first",
         "met", "Brier on all counted rows; filtered scores beside with their dropped rows",
         "python3 -I tools/replay_brier.py --data ."),
        (8, "MUST", "empty cells and missing answers reported beside each score, fillers kept out of the consensus, "
            "stated, coverage and service scores apart", "met",
         "counted_50/no_answer/refused_shape rows, coverage per seat, missing table in council-stats.json",
         "python3 -I tools/recount_consensus.py --data .; " + f"{VERIFY} (step 11)"),
        (9, "MUST", "the 50% and climatology references per asset and horizon from a fixed pre-season window "
            "sealed by a published hash, with skill scores; crowd prices sealed with their volume", *clim,
         f"{VERIFY} (steps 5, 11: every figure recomputed with the published table)"),
        (10, "MUST", "ranking only after a minimum of sessions per horizon, intervals clustered by session; "
             "equivalence claims within a declared margin", "met",
         "the 30 forecasts / 10 sessions rule (in_table, rank), session-clustered intervals, equivalence margin",
         f"{VERIFY} (step 11)"),
        (11, "MUST", "data and scoring code published so that anyone recomputes every score; an immutable release "
             "with a checksum of every file", *manifest, f"{VERIFY} (steps 7, 8, 11, 12)"),
        (12, "MUST", "each answer sealed on arrival, not batched (SHOULD: an RFC 3161 token per answer)", *tokens,
         f"{VERIFY} (step 9)"),
        (13, "SHOULD", "the hash of every outgoing ask sealed when sent; the roster of expected answers with "
             "deadlines and retry policy sealed before the run's first ask", "met",
         "ask and roster lines of asks.jsonl (families and sides too, roster.json)", f"{VERIFY} (steps 5, 11)"),
        (14, "MUST", "a published consensus shown with its number of stated probabilities, mean pairwise "
             "correlation and N_eff for that run and horizon", "met",
         "council-stats.json consensus.per_event: n, n_used, rho, n_eff",
         "python3 -I tools/recount_consensus.py --data ."),
        (15, "MUST", "a methodology change opens a new measurement segment; corrections are appended lines that "
             "keep the original", "met", "methodology_version on every row and record; correction lines",
         "python3 -I tools/conformance.py council-forecasts.csv; " + f"{VERIFY} (step 11)"),
        _readers_requirement(folder),
        (17, "SHOULD", "the diagnostics of §4-6 beside the scores (eigen share, participation ratio, "
             "distinctiveness, sides, citation fetch records, price-only arm, repeats, crowd bid/ask, costs "
             "against a no-trade shadow)", "partial", _diagnostics_evidence(folder), f"{VERIFY} (steps 7, 11)"),
    ]
    out = [Requirement(*row) for row in rows]
    parts = _diagnostics_parts(folder)
    status = "met" if all(p.status == "met" for p in parts) else "partial"
    return [*out[:-1], replace(out[-1], parts=parts, status=status)]


ARMS_RECOUNT = "python3 -I tools/recount_arms.py ."
READERS_RECOUNT = "python3 -I tools/recount_readers.py ."
R16 = ("reader forecasts: randomised once, one first forecast per market, identifier and session, closed at the "
       "reference, no address stored")


def _readers_requirement(folder: Path) -> tuple[int, str, str, str, str, str]:
    """Requirement 16: met once the readers' book and the experiment block are published (docs/readers.md)."""
    try:
        league = json.loads((folder / "council-league.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        league = {}
    block = league.get("experiment") if isinstance(league, dict) else None
    if not (folder / "readers" / "readers-book.jsonl").is_file() or not isinstance(block, dict):
        return (16, "MUST", R16, "not applicable", "this league collects no reader forecasts (league serve --readers "
                "or league readers serve opens the experiment: docs/readers.md)", "-")
    return (16, "MUST", R16, "met",
            "readers/readers-book.jsonl: each reader's group drawn once (g0 blind, g1 see), only the first forecast "
            "per identifier, market and session counted, forecasts refused after the session's reference time, no "
            "address or address hash kept; council-league.json experiment: the measures by group",
            f"{READERS_RECOUNT}; {VERIFY} (steps 4, 11)")
SOURCES_RECOUNT = "python3 -I tools/recount_sources.py ."


def _arms_published(folder: Path) -> tuple[bool, bool]:
    """(a run with the price-only arm, a session with probability repeats) in the folder's arms reports."""
    try:
        experiment = json.loads((folder / "arena-cb-experiment.json").read_text(encoding="utf-8"))
        repeats = json.loads((folder / "council-repeats.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, False
    price_only = any(isinstance(r, dict) and r.get("three_arms") for r in experiment.get("runs", []))
    kinds = repeats.get("kinds", {}) if isinstance(repeats, dict) else {}
    return bool(price_only), bool(isinstance(kinds, dict) and kinds.get("repeat_packet", {}).get("sessions"))


def _diagnostics_evidence(folder: Path) -> str:
    price_only, repeats = _arms_published(folder)
    found = [name for name, ok in (("the price-only arm (arena-cb-experiment.json three_arms)", price_only),
                                   ("probability repeats (council-repeats.json)", repeats)) if ok]
    fetched = (folder / "arms" / "fetch-records.csv").is_file()
    if fetched:
        found.append("citation fetch records (arms/fetch-records.csv)")
    missing = [name for name, ok in (("a price-only arm", price_only), ("probability repeats", repeats),
                                     ("citation fetch records", fetched)) if not ok]
    return ("participation ratio, top eigen share, distinctiveness, sides, crowd bid/ask/last trade, account costs "
            f"and shadow values{''.join(', ' + f for f in found)}"
            + (f"; not published: {', '.join(missing)}" if missing else ""))


def _diagnostics_parts(folder: Path) -> tuple[Part, ...]:
    """Requirement 17 part by part: what a reader checks for each diagnostic the arms and repeats publish."""
    price_only, repeats = _arms_published(folder)
    fetched = (folder / "arms" / "fetch-records.csv").is_file()
    overlap = (folder / "council-sources.json").is_file()
    return (
        Part("price-only arm", "met" if price_only else "not met",
             "arena-cb-experiment.json: per run, N_eff and dispersion heat of the open, closed-book and price-only "
             "arms on the same seats" if price_only else "no price-only arm ran ([arms] arms in league.toml)",
             f"{ARMS_RECOUNT}; {VERIFY} (step 11)" if price_only else "-"),
        Part("probability repeats", "met" if repeats else "not met",
             "council-repeats.json: within-model against between-model variance of probabilities under a frozen "
             "packet" if repeats else "no repeats ran ([arms] repeat_seats in league.toml)",
             f"{ARMS_RECOUNT}; {VERIFY} (step 11)" if repeats else "-"),
        Part("citation fetch records", "met" if fetched else "not met",
             "arms/fetch-records.csv: the league's own fetch of every cited link (status, time, body SHA-256, "
             "declared publication time), sealed in the arms' book" + (
                 "; council-sources.json: the shared-sources figures over the fetched links only (per run: "
                 "concentration, Jaccard overlap of links and sites, the sharing-agreement permutation test, "
                 "unfetched links counted apart)" if overlap else "") if fetched else
             "no cited link was fetched ([sources] fetch in league.toml)",
             (f"{SOURCES_RECOUNT}; {VERIFY} (steps 4, 7, 11)" if overlap else f"{VERIFY} (steps 4, 11)")
             if fetched else "-"),
        _side_tests_part(folder),
    )


def _side_tests_part(folder: Path) -> Part:
    """Met when council-sides.json publishes per-run figures (two sealed sides and a run with both)."""
    try:
        doc = json.loads((folder / "council-sides.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = None
    runs = doc.get("runs") if isinstance(doc, dict) else None
    done = sum(1 for r in runs if isinstance(r, dict) and r.get("computed")) if isinstance(runs, list) else 0
    if done:
        return Part("side tests", "met", f"council-sides.json: {done} run x horizon groups with within/between "
                    "correlation, split tests, eigen figures and leave-one-seat-out gaps",
                    f"python3 -I tools/recount_sides.py .; {VERIFY} (step 11)")
    why = (str(doc.get("reason") or "no run had two answering seats on each side") if isinstance(doc, dict)
           else "council-sides.json is not published")
    return Part("side tests", "not met", why, "-")


def compliance_document(folder: Path, generated_at: str, *, manifest_written: bool = True) -> dict[str, object]:
    return {"generated_at": generated_at,
            "standard": "Sealed Before the Open, section 3.13: seventeen numbered requirements (docs/compliance.md)",
            "statuses": ["met", "partial", "not met", "not applicable"],
            "requirements": [r.as_json() for r in requirements(folder, manifest_written=manifest_written)]}
