"""Read ``council-forecasts.csv`` into one typed table every statistic works from.

The CSV holds every column as text (``open-data.md``). Parsing happens once, here, so that each
statistic reads the same numbers and a malformed file fails before anything is published. The raw
text columns read are kept unchanged beside the derived typed columns; the statistics read only the
columns they use (:data:`STATS_COLUMNS`), other callers every column, so nothing they may show is lost.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from league.contracts.columns import COUNTED_RUN_ROLES, ISSUE_KINDS
from league.scoring.constants import FORECAST_COLUMNS, HORIZON_SESSIONS, STATED_CELL_STATUSES
from league.scoring.errors import ForecastsInputError

_FALSE_WORDS = frozenset({"0", "false", "no", "n"})
DERIVED_COLUMNS: tuple[str, ...] = (
    "p", "ref_f", "close_f", "actual", "resolved", "outcome", "draw_flag", "is_baseline", "stated",
    "pre_ref", "counted_run", "issue", "common", "h_sessions", "session_date", "event_key",
)


#: The columns the statistics read (league.scoring): the rest of the CSV (free text, the answer's own words, the
#: resolver's provenance) is never looked at by a statistic, and every column kept is one more pointer per row in
#: every copy a statistic makes of its rows (a season's table is over a million rows at 100 seats).
STATS_COLUMNS: tuple[str, ...] = (
    "run_id", "session", "seat", "sealed_at", "status", "asset", "horizon", "prob_up", "ref", "close", "actual_pct",
    "draw", "run_role", "line_kind", "reference_at", "same_event", "cell_status", "event_id", "event_id_v2",
    "event_reference_at", "methodology_version",
)

#: The columns of the scored rows (:func:`scored_rows`) the seat scores, references, grid, calibration and draw
#: band read; :func:`league.scoring.scores.with_references` adds the references' columns. A statistic asking for
#: another fails loudly (``KeyError``), never silently.
SCORED_COLUMNS: tuple[str, ...] = (
    "session", "seat", "asset", "horizon", "event_key", "p", "outcome", "draw_flag", "is_baseline", "h_sessions",
)

#: The columns of the council rows (:func:`council_rows`) the consensus and the council statistics read
#: (``unit`` and ``ev`` are added); the same rule as :data:`SCORED_COLUMNS`.
COUNCIL_COLUMNS: tuple[str, ...] = (
    "run_id", "session", "seat", "sealed_at", "asset", "horizon", "event_key", "p", "outcome", "h_sessions",
)


def load_forecasts(source: str | Path | pd.DataFrame | Iterable[Mapping[str, object]],
                   columns: Collection[str] | None = None) -> pd.DataFrame:
    """Parse a forecasts CSV path, a DataFrame or an iterable of row dicts; add typed columns.

    ``columns``: read only these raw columns of a CSV path (e.g. :data:`STATS_COLUMNS`); every column of
    ``FORECAST_COLUMNS`` must still be in the file, and a statistic asking for a column not read fails loudly
    (``KeyError``), never silently. ``None`` keeps every column, as before."""
    raw, header = _read_raw(source, columns)
    missing = [c for c in FORECAST_COLUMNS if c not in header]
    if missing:
        raise ForecastsInputError(
            f"forecasts table lacks columns: {', '.join(missing)}",
            fix="export council-forecasts.csv with every column listed in open-data.md",
        )
    return _derive(raw)


def _read_raw(source: str | Path | pd.DataFrame | Iterable[Mapping[str, object]],
              columns: Collection[str] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """The raw text table and the header it came with (every column, read or not)."""
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            raise ForecastsInputError(f"forecasts file not found: {path}", fix="pass the path of council-forecasts.csv")
        try:
            header = list(pd.read_csv(path, dtype=str, nrows=0).columns)
            keep = None if columns is None else set(columns)
            wanted = None if keep is None else [c for c in header if c in keep]
            return pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False, usecols=wanted), header
        except (ValueError, UnicodeDecodeError) as exc:  # pandas' ParserError and EmptyDataError are ValueErrors
            raise ForecastsInputError(f"{path}: not a readable CSV table ({str(exc)[:200]})",
                                      fix="pass council-forecasts.csv as published (UTF-8, RFC 4180)") from None
    frame = source.copy() if isinstance(source, pd.DataFrame) else pd.DataFrame(list(source))
    frame = frame.drop(columns=[c for c in DERIVED_COLUMNS if c in frame.columns])
    return frame.fillna("").astype(str), list(frame.columns)


def _numeric(raw: pd.DataFrame, column: str) -> pd.Series:
    """Empty text is missing; any other text that is not a number is an input error naming its row."""
    text = raw[column]
    values = pd.to_numeric(text, errors="coerce")
    missing = text[values.isna()]
    bad = missing.index[missing.str.strip() != ""]
    if len(bad):
        row = int(raw.index.get_loc(bad[0]))
        raise ForecastsInputError(
            f"column {column!r} row {row + 2}: {text.iloc[row]!r} is not a number",
            fix="leave the cell empty or write a decimal number",
        )
    return values.astype(float)


def _times(raw: pd.DataFrame, column: str) -> pd.Series:
    text = raw[column]
    return pd.to_datetime(text.where(text != "", None), utc=True, errors="coerce", format="ISO8601")


def _derive(raw: pd.DataFrame) -> pd.DataFrame:
    df = raw.reset_index(drop=True)  # copy-on-write (pandas 3): new columns never reach ``raw``; no second copy
    df["p"] = _numeric(df, "prob_up")
    _check_range(df["p"])
    _check_horizons(df)
    df["ref_f"] = _numeric(df, "ref")
    df["close_f"] = _numeric(df, "close")
    df["actual"] = _numeric(df, "actual_pct")
    df["resolved"] = df["ref_f"].notna() & df["close_f"].notna()
    df["outcome"] = np.where(df["resolved"], (df["close_f"] > df["ref_f"]).astype(float), np.nan)
    df["draw_flag"] = _numeric(df, "draw")
    df["is_baseline"] = df["seat"].str.startswith("_")
    df["stated"] = (df["status"] == "counted") & df["cell_status"].isin(STATED_CELL_STATUSES) & df["p"].notna()
    df["pre_ref"] = _pre_reference(df)
    df["counted_run"] = df["run_role"].isin(COUNTED_RUN_ROLES)
    df["issue"] = df["line_kind"].isin(ISSUE_KINDS)
    df["common"] = ~df["same_event"].isin(_words_in(df["same_event"], _FALSE_WORDS))
    df["h_sessions"] = df["horizon"].map(HORIZON_SESSIONS).astype(int)
    df["session_date"] = pd.to_datetime(df["session"], format="%Y-%m-%d", errors="coerce")
    if df["session_date"].isna().any():
        row = int(np.flatnonzero(df["session_date"].isna().to_numpy())[0])
        raise ForecastsInputError(f"row {row + 2}: session {df['session'].iloc[row]!r} is not YYYY-MM-DD")
    df["event_key"] = _event_key(df)
    return df


def _words_in(column: pd.Series, words: frozenset[str]) -> list[str]:
    """The distinct spellings in ``column`` that mean one of ``words`` (checked once per spelling)."""
    return [v for v in pd.unique(column) if str(v).strip().lower() in words]


def _check_range(p: pd.Series) -> None:
    bad = p.notna() & ((p < 0) | (p > 100))
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise ForecastsInputError(f"prob_up row {row + 2}: {p.iloc[row]} is outside 0-100")


def _check_horizons(df: pd.DataFrame) -> None:
    bad = ~df["horizon"].isin(HORIZON_SESSIONS)
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise ForecastsInputError(
            f"row {row + 2}: horizon {df['horizon'].iloc[row]!r} is not one of {sorted(HORIZON_SESSIONS)}"
        )


def _pre_reference(df: pd.DataFrame) -> pd.Series:
    """An answer counts for the council only when sealed before (at the latest at) its event's reference.

    Equality is allowed because bitcoin's reference is the first bar at or after the sealing second.
    """
    sealed = _times(df, "sealed_at")
    reference = _times(df, "event_reference_at").fillna(_times(df, "reference_at"))
    return (sealed <= reference).fillna(False).astype(bool)


def _event_key(df: pd.DataFrame) -> pd.Series:
    """Forecasts pool only on equal event ids; rows without ids fall back to run, asset and horizon."""
    fallback = df["session"] + "|" + df["asset"] + "|" + df["horizon"]
    key = df["event_id_v2"].where(df["event_id_v2"] != "", df["event_id"])
    return key.where(key != "", fallback)


def _kept(df: pd.DataFrame, columns: Sequence[str] | None) -> pd.DataFrame:
    """``df`` itself, or only ``columns`` of it: a lazy selection (copy-on-write), so that the row filter
    that follows copies those columns only, not every column of the table."""
    return df if columns is None else df[list(columns)]


def scored_rows(df: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows that enter a seat's stated-probability score: the session's counted run, stated, resolved,
    the common event, the cell as sealed (a correction row, sealed after the reference, never does).
    ``columns``: keep only these (e.g. :data:`SCORED_COLUMNS`); every column by default."""
    mask = df["counted_run"] & df["stated"] & df["resolved"] & df["common"] & df["issue"]
    return _kept(df, columns).loc[mask]


def council_rows(df: pd.DataFrame, *, counted_only: bool = True, common_only: bool = False,
                 columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows eligible for council statistics: council seats, stated, sealed before the reference.

    Adds ``unit``, the set of answers pooled together: for the counted series the session (a seat
    silent in the first run may be counted from the second-wave run of the same session), for the
    descriptive all-runs series the run itself. ``common_only`` keeps the common event's rows only
    (the same rows, in the same order, as filtering the result on ``common``); ``columns`` keeps only
    these columns (e.g. :data:`COUNCIL_COLUMNS`), every column by default.
    """
    mask = ~df["is_baseline"] & df["stated"] & df["pre_ref"] & df["issue"]
    if counted_only:
        mask &= df["counted_run"]
    else:
        mask &= df["run_role"] != "asked_again"
    if common_only:
        mask &= df["common"]
    out = _kept(df, columns).loc[mask]  # a new frame: adding ``unit`` never reaches ``df`` (copy-on-write)
    out["unit"] = out["session"] if counted_only else out["run_id"]
    return out
