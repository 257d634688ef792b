"""What each published file is, how often it changes, and what each of its columns means.

One table feeds both the index page and the data dictionary (``arena-dataset.json``), so the two
can never disagree. Column texts follow ``open-data.md``, ``docs/protocol.md`` and ``scoring.md``; a
column nobody registered still gets a description built from its name, and the dictionary marks
it ``"registered": false`` so a reader knows the text is generic.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass

from league.portfolio.publish import ACCOUNT_COLUMNS, TRADE_COLUMNS
from league.publish.arm_accounts import ARM_ACCOUNT_COLUMNS
from league.publish.arms import ARM_COLUMNS, EXTRA_COLUMNS, FETCH_COLUMNS
from league.publish.talk import CRITIQUE_COLUMN_TEXT


@dataclass(frozen=True)
class FileInfo:
    """The index page's row for one file (or a family of files matched by a glob pattern)."""

    pattern: str
    frequency: str
    description: str


NIGHTLY = "nightly (league publish)"
#: Published fields renamed since they were first published: {"file", "old", "new", "since"} (a path prefix, as the
#: registered predictions' resolver reads them: docs/predictions.md). None so far.
RENAMED: tuple[dict[str, str], ...] = ()
ON_SEAL = "grows on every sealed line; the copy here is refreshed nightly"

FILES: tuple[FileInfo, ...] = (
    FileInfo("council-book.jsonl", ON_SEAL, "the sealed book: every run, answer, score and correction line"),
    FileInfo("asks.jsonl", ON_SEAL, "the outgoing-ask chain: counting rule, rosters, hashes of every ask sent"),
    FileInfo("roster.json", ON_SEAL, "each seat's family and side as sealed in the roster lines of asks.jsonl"),
    FileInfo("asks/*.md", "once per run", "every common ask text, named by its SHA-256"),
    FileInfo("snapshots/*.json", "once per session", "each morning snapshot; hashes to its run line's snapshot_sha256"),
    FileInfo("config.json", NIGHTLY, "markets and methodology; hashes to the opening line's config_sha256"),
    FileInfo("climatology.json", NIGHTLY, "the climatology table; hashes to the opening line's climatology_sha256"),
    FileInfo("council-forecasts.csv", NIGHTLY, "one row per seat x run x market x horizon"),
    FileInfo("council-forecasts-index.json", NIGHTLY, "per-run and per-session slices of council-forecasts.csv: "
             "row ranges, byte ranges and SHA-256 of each (fetch the header plus one slice)"),
    FileInfo("council-stats.json", NIGHTLY, "scores, intervals, N_eff, power, draw band, sample notes"),
    FileInfo("council-calibration.json", NIGHTLY, "climatology table with its hash check, calibration bins and fits"),
    FileInfo("council-points.json", NIGHTLY, "MASE of every seat's sealed target levels against the seasonal naive "
             "forecast (docs/evals.md, point forecasts)"),
    FileInfo("council-clim-window.json", "once per methodology version", "the sealed climatology window"),
    FileInfo("council-league.json", NIGHTLY, "league tables: views by seat, asset, horizon; crowd; portfolios"),
    FileInfo("arena-trades.csv", NIGHTLY, "every portfolio trade and rejection"),
    FileInfo("arena-accounts.csv", NIGHTLY, "every portfolio account mark at the close"),
    FileInfo("protocol.md", "on a rule change", "the league protocol, incl. the consensus and N_eff rules (§10)"),
    FileInfo("arena-protocol.json", "on every rule or version change", "league rules, versions and dated changes"),
    FileInfo("arena-compliance.json", NIGHTLY, "the paper's 17 requirements: status here and the check to run"),
    FileInfo("release-manifest.json", NIGHTLY, "every published file (but proof/) with SHA-256, size and "
             "generation time; its hash is in a stamped list"),
    FileInfo("arena-code.json", "on every engine change", "scoring and portfolio engine files with SHA-256 each"),
    FileInfo("arena-code-*.txt", "on every engine change", "one scoring or portfolio engine source file"),
    FileInfo("arena-dataset.json", NIGHTLY, "this data dictionary: every column of every file"),
    FileInfo("event-contract.schema.json", "on a contract version change", "JSON Schema of the event contract"),
    FileInfo("markets-digest.json", NIGHTLY, "a small (< 30 KB) summary for readers that cannot open large files"),
    FileInfo("tools/conformance.py", "on a checker change", "stand-alone checker of the forecasts CSV"),
    FileInfo("tools/replay_brier.py", "on a recount change", "stand-alone recount of every published Brier figure"),
    FileInfo("tools/recount_consensus.py", "on a recount change",
             "stand-alone recount of every consensus value and N_eff from the published files"),
    FileInfo("replay.py", "on a recount change", "stand-alone recount of every portfolio account"),
    FileInfo("proof/*", "at every stamp", "stamped lists, .ots proofs, RFC 3161 tokens, transparency-log indexes"),
    FileInfo("arms/arms-book.jsonl", ON_SEAL,
             "the arms' book: schedule, sealed news packets, arm runs and their answers, the council talk (never "
             "counted)"),
    FileInfo("arms/arm-asks.jsonl", ON_SEAL, "the arms' ask chain: each arm ask's roster and exact-text SHA-256"),
    FileInfo("arms/packets/*.json", "once per session with a closed-book arm",
             "a sealed news packet: headlines with source, link, publish time and SHA-256"),
    FileInfo("arms/asks/*.md", "once per arm run", "the common text of an arm's ask, named by its SHA-256"),
    FileInfo("arms/arm-forecasts.csv", NIGHTLY, "one row per arm answer cell (seat x market x horizon)"),
    FileInfo("arms/extra-runs.csv", NIGHTLY,
             "the extra reference runs' answer cells, each scored on its own reference (never counted)"),
    FileInfo("arms/fetch-records.csv", NIGHTLY,
             "the league's own fetch of every link a counted answer cited: status, time, body SHA-256"),
    FileInfo("arms/snapshots/*.json", "once per extra reference run", "an extra reference run's own price snapshot"),
    FileInfo("arms/arm-accounts.csv", NIGHTLY,
             "the arms' own paper accounts: one row per arm x league x account x session (never in the daily tables)"),
    FileInfo("arena-cb-experiment.json", NIGHTLY,
             "per run: dispersion heat, N_eff, portfolio spread of the open, closed-book and price-only arms"),
    FileInfo("council-repeats.json", NIGHTLY, "repeats: within-model against between-model dispersion and variance"),
    FileInfo("tools/recount_arms.py", "on a recount change",
             "stand-alone recount of arena-cb-experiment.json and council-repeats.json from the published rows"),
    FileInfo("council-talk.json", NIGHTLY,
             "the council talk per week: chair, letters once revealed, portfolios, critiques, replies, shadow "
             "accounts, F22 and F23"),
    FileInfo("council-talk-critiques.csv", NIGHTLY, "one row per council talk critique with its resolution"),
    FileInfo("tools/recount_talk.py", "on a recount change",
             "stand-alone recount of council-talk.json from its critiques, weights and closes"),
    FileInfo("predictions.json", NIGHTLY,
             "the registered predictions: each line with its status, data and re-resolving command; the scorecard"),
    FileInfo("predictions/registry-*.toml", "once per registry", "a sealed registry of predictions, by SHA-256"),
    FileInfo("predictions/scripts/*.py", "once per registry", "a set-B prediction's script, by SHA-256"),
    FileInfo("predictions/inputs/*", "once per resolution", "a file a resolution read, kept by SHA-256"),
    FileInfo("tools/resolve_predictions.py", "on a resolver change",
             "the league's own resolver of registered predictions, stand-alone: re-resolves every sealed one"),
    FileInfo("council-sides.json", NIGHTLY,
             "sides per counted run and horizon: within/between correlation, split tests, largest cell gap, eigen "
             "share, participation ratio, every side gap with its leave-one-seat-out range and owner; season summary"),
    FileInfo("council-tertiles.json", NIGHTLY,
             "disagreement tertiles per horizon: events split by the seats' spread, the consensus's Brier by tertile"),
    FileInfo("council-style.json", NIGHTLY,
             "F30: after a blind season's reveal, cross-validated accuracy of predicting the model from its sealed "
             "reply texts against chance; else why not"),
    FileInfo("tools/recount_sides.py", "on a recount change",
             "stand-alone recount of council-sides.json and council-tertiles.json from the published files"),
    FileInfo("council-sources.json", NIGHTLY,
             "shared sources per run and season: citation concentration, Jaccard overlap of links and sites, "
             "the sharing-agreement permutation test, site x seat counts (fetched links only)"),
    FileInfo("tools/recount_sources.py", "on a recount change",
             "stand-alone recount of council-sources.json from the forecasts CSV, fetch records and ask texts"),
    FileInfo("readers/readers-book.jsonl", ON_SEAL,
             "the readers' book: each reader's group (g0 blind, g1 see), views, peeks and forecasts, sealed on arrival "
             "(no address and no hash of one); its figures are the experiment block of council-league.json"),
    FileInfo("tools/recount_readers.py", "on a recount change",
             "stand-alone recount of council-league.json's experiment block from the readers' book and the CSV"),
    FileInfo("tools/recount_points.py", "on a recount change",
             "stand-alone recount of council-points.json (MASE of the sealed targets) from council-book.jsonl"),
    FileInfo("contest/contest-book.jsonl", ON_SEAL, "the CLI contest's book: asks, replies, bets, seals, winners"),
    FileInfo("contest/forecasts/*.json", "once per daily sweep (06:00 UTC)",
             "one sealed sweep of the CLI contest; its SHA-256 is listed in contest/sealed.json"),
    FileInfo("contest/sealed.json", "once per daily sweep", "the CLI contest's sealed sweeps: date, SHA-256, count"),
    FileInfo("contest/metrics.json", NIGHTLY, "the CLI contest's metrics: Brier with intervals, vs crowd, bets"),
    FileInfo("contest/sweeps.json", NIGHTLY, "per sweep: markets, each agent's status and parse report, refusals"),
    FileInfo("contest/resolutions.json", NIGHTLY, "the CLI contest's resolved markets and winners"),
    FileInfo("contest/rounds.json", NIGHTLY, "the CLI contest's betting rounds, newest first"),
    FileInfo("contest/bets.csv", NIGHTLY, "one row per agent and betting round"),
    FileInfo("contest/cards/*.json", NIGHTLY, "the public card of one betting round"),
    FileInfo("contest/refusals.json", NIGHTLY, "markets refused for betting rounds, with the rule"),
    FileInfo("contest/changelog.json", "on every rule change", "the CLI contest's rules changelog"),
    FileInfo("index.html", NIGHTLY, "this index"),
)


def info_for(name: str) -> FileInfo:
    """The first catalogue row whose pattern matches ``name`` (a path relative to the folder)."""
    for info in FILES:
        if fnmatch.fnmatchcase(name, info.pattern):
            return info
    return FileInfo(name, NIGHTLY, "published file")


FORECAST_COLUMNS: dict[str, str] = {
    "run_id": "id of the run (one ask fanned out to every seat) that produced the row",
    "session": "NYSE session the run belongs to (YYYY-MM-DD)",
    "seat": "seat id; ids starting with '_' are baseline seats that never enter council statistics",
    "model": "model name the seat reported (or the roster's when the seat does not report one)",
    "mode": "reasoning level the model ran at",
    "line": "number n of the sealed book line (council-book.jsonl) whose cell this row is",
    "sealed_at": "UTC time the line was sealed: max(at, booked_at) of the book line",
    "status": "row status: counted, not_counted, counted_50, no_answer, refused_shape",
    "asset": "market code (config/markets.toml), e.g. SPX, BTC",
    "horizon": "forecast horizon: 1d, 1w (5 sessions), 1m (21), 6m (126); bitcoin 7/30/182 days",
    "action": "portfolio action: buy_strong, buy_dips, hold, trim, sell (empty when none)",
    "action_word": "the seat's own action word when it was outside the list (scored, not traded)",
    "prob_up": "stated probability (0-100) that the indicator ends the horizon strictly above its reference",
    "exp_pct": "expected change in percent implied by the seat's target",
    "target": "the seat's expected price at the horizon's end",
    "invalidation": "the seat's 'wrong if' price level",
    "ref": "reference price of the event (first 1-minute bar at/after the reference time)",
    "close": "terminal price (last 1-minute bar at/before the event's end); empty while unresolved",
    "actual_pct": "change from ref to close in percent",
    "draw": "1 when the move fell inside the draw band (scoring.md section 1), else 0",
    "source_domains": "domains the seat cited, ';'-separated",
    "source_urls": "URLs the seat cited, ';'-separated",
    "why_missing": "why a cell has no stated probability (no_answer, invalid, refused_shape ...)",
    "run_role": "counted for the session's counted run; otherwise the run's label (earlier_run, ...)",
    "seat_versions_in_run": "number of model versions of this seat that answered in the run",
    "line_kind": "kind of the book line that sealed the cell (answer)",
    "reference_at": "UTC time of the run's common reference (09:30 ET) for this row",
    "same_event": "true when the row's event equals the run's common event (false for late_ref rows)",
    "cell_status": "cell status: elicited, explicit_50 (a stated 50), invalid; empty when absent",
    "attempt": "attempt number of the seat's answer within the run (1 = first ask)",
    "event_id": "ev1- id: SHA-256 prefix of the first five contract keys (docs/protocol.md section 2)",
    "event_id_v2": "ev2- id: SHA-256 prefix of the nine-key event contract",
    "event_reference_at": "the event contract's reference_at (UTC)",
    "event_end_at": "the event contract's end_at (UTC)",
    "methodology_version": "methodology (scoring rules) version in force for the run",
    "late_ref": "true when the answer was sealed after the open and was scored against its own reference",
    "rule": "event contract: outcome rule (strict rise of terminal over reference)",
    "resolver_version": "event contract: version of the resolver that scores the event",
    "reference_rule": "event contract: how reference and terminal prices are taken",
    "price_provider": "event contract: price source, e.g. yahoo_finance_chart_v8_1m",
    "price_symbol": "event contract: the provider's symbol, e.g. ^GSPC",
}

PORTFOLIO_COLUMNS: dict[str, str] = {
    "account": "account id: seat, benchmark (_spy, _cash ...) or version account _ver:<model>:<n>",
    "league": "portfolio league: long-only (arena) or pro",
    "rules_version": "portfolio rule set version, e.g. arena-3, pro-1",
    "fund": "fund traded (docs/protocol.md section 1)",
    "side": "buy or sell",
    "shares": "number of fund shares traded or held",
    "price": "execution or mark price of the fund",
    "value": "account value at the close (USD)",
    "cash": "cash balance (USD)",
    "fee": "trading cost charged (0.1% of traded dollars)",
    "fees": "cumulative trading costs (USD)",
    "weight": "position weight as a share of equity",
    "equity": "account equity (USD)",
    "return_pct": "return since the account started, in percent",
    "drawdown_pct": "maximum drawdown so far, in percent",
    "status": "filled, rejected or skipped",
    "reason": "why a decision was rejected or a trade skipped",
    "decided_at": "UTC time the decision was sealed",
    "traded_at": "UTC time of the execution price",
}

BOOK_FIELDS: dict[str, str] = {
    "n": "1-based position of the line in the book",
    "prev": "link of the previous line ('' for line 1)",
    "seal": "SHA-256 of the canonical JSON of the line's content",
    "link": "SHA-256 of the content plus n, prev and seal: the hash chain",
    "kind": "line kind: run, answer, score, score_h, crowd, shadow_weights, correction, portfolio kinds",
    "at": "UTC time the line was written (ISO-8601, seconds)",
}


#: Producers that publish their own column dictionaries (file name -> {column: description}).
PRODUCER_COLUMNS: dict[str, Mapping[str, str]] = {
    "arena-trades.csv": TRADE_COLUMNS,
    "arena-accounts.csv": ACCOUNT_COLUMNS,
    "arms/arm-forecasts.csv": ARM_COLUMNS,
    "arms/arm-accounts.csv": ARM_ACCOUNT_COLUMNS,
    "arms/extra-runs.csv": EXTRA_COLUMNS,
    "council-talk-critiques.csv": CRITIQUE_COLUMN_TEXT,
    "arms/fetch-records.csv": FETCH_COLUMNS,
}


def _producer_columns(file: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in PRODUCER_COLUMNS.get(file, {}).items()}


def describe_column(file: str, column: str) -> tuple[str, bool]:
    """Return (description, registered) for ``column`` of ``file``; the producer's own text first."""
    own = _producer_columns(file)
    if column in own:
        return own[column], True
    for table in (FORECAST_COLUMNS, PORTFOLIO_COLUMNS):
        if column in table and (table is FORECAST_COLUMNS) == file.startswith("council-"):
            return table[column], True
    for table in (FORECAST_COLUMNS, PORTFOLIO_COLUMNS):
        if column in table:
            return table[column], True
    return _generic(column), False


def _generic(column: str) -> str:
    """A description from the column's name, for columns no producer registered."""
    words = column.replace("_", " ")
    if column.endswith("_at"):
        return f"{words[:-3]} time (UTC, ISO-8601)"
    if column.endswith("_pct"):
        return f"{words[:-4]} in percent"
    if column.endswith("_usd"):
        return f"{words[:-4]} in US dollars"
    if column.startswith(("n_", "num_")):
        return f"count of {words.split(' ', 1)[1]}"
    return f"{words} (as written by the producing module)"
