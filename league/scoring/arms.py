"""The arms' and repeats' figures: how far the same seats move when the question changes or is asked again.

Beside the counted ("open") run, the league asks the same seats with a closed-book packet (``closed_book``) or
the price snapshot only (``price_only``), and asks chosen models the same question several more times in fresh
contexts (``repeat_open``, ``repeat_packet``). These two pure functions turn the published rows into
``arena-cb-experiment.json`` and ``council-repeats.json``. They read the rows exactly as ``csv.DictReader``
yields them (all text), so that the stand-alone ``league/verify/tools/recount_arms.py`` can recount every
figure from the same CSV files without the league; the definitions below are published in both files, word
for word, so a reader holds the rule beside the number.

Only the 1d horizon enters the figures: it is the one horizon every arm is asked for. An arm is compared with
the open run only over the seats that answered every compared arm in time (sealed at or before the common
reference): a seat that answered late in one arm would otherwise add a seat to one side of the comparison only,
and the difference would measure the roster instead of the question.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from league.jsonvalue import Json
from league.scoring.reference import pearson

Row = Mapping[str, str]
#: A seat's answer for one market: (prob_up when stated, action when stated).
Cell = tuple[float | None, str | None]
#: seat (or repeat, as text) -> market -> cell.
Cells = dict[str, dict[str, Cell]]

COUNTED_ROLES = ("session_run", "counted")
ISSUE = ("issue", "answer")
STATED = ("elicited", "explicit_50")
HORIZON = "1d"
#: An action's position on the portfolio scale: the spread is measured in these steps.
SCORE = {"buy_strong": 2, "buy_dips": 1, "hold": 0, "trim": -1, "sell": -2}
ARMS = ("closed_book", "price_only")
REPEATS = ("repeat_open", "repeat_packet")
DIGITS = 6

DEFINITIONS: dict[str, Json] = {
    "dispersion_heat": (
        "dispersion heat of a set of seats = 100 × mean over markets of split_m, where split_m = 1 − (count of the "
        "most common action)/(number of seats stating an action in market m), over markets where ≥ 2 seats stated "
        "an action; null when there is no such market."),
    "n_eff": (
        "N_eff: for each pair of seats, Pearson correlation of their prob_up over the markets both stated (pairs "
        "with < 3 common markets or zero variance are skipped); rho = mean over kept pairs; N_eff = n / (1 + "
        "(n − 1)·rho) with n = seats with ≥ 1 stated probability; n = 1 -> N_eff 1; rho undefined -> N_eff null."),
    "portfolio_spread": (
        "portfolio spread = mean over seat pairs of the mean |score_a − score_b| over markets where both stated an "
        "action, score: buy_strong 2, buy_dips 1, hold 0, trim −1, sell −2 (pairs with no common market skipped; "
        "null if none)."),
    "same_model": (
        "same model closed vs open (per seat in both): markets both stated a probability, mean |p_closed − p_open|, "
        "mean (p_closed − p_open), and the share of markets (both stated an action) with the same action."),
    "the_same_seats": (
        "the comparison of arms within one session uses only the seats with an answered, comparable answer in every "
        "arm compared; answers that are not comparable (sealed after the common reference) are counted apart per "
        "arm (\"apart\") and never mixed into the comparison."),
    "repeats": (
        "Repeats (council-repeats.json), per kind (repeat_open: actions and probabilities; repeat_packet: "
        "probabilities and actions alike): for each session with repeats, within-model heat = mean over seats (with "
        "≥ 2 repeats) of the heat computed over that seat's own repeats as if they were seats; between-model heat = "
        "heat over the seats using each seat's repeat 1; within-model variance = mean over seat×market of the "
        "sample variance (n−1) of the seat's repeat probabilities (≥ 2 stated); between-model variance = mean over "
        "markets of the sample variance across seats of each seat's mean repeat probability (≥ 2 seats). Season "
        "figures: the same four pooled as the mean over sessions. Model versions: per seat, each distinct `version` "
        "in order of first session, with that first session (\"since\"); the four figures are also reported per "
        "seat for the records since its latest version (\"since_latest_version\"), when its version changed at "
        "least once."),
    "rounding": "Rounding: every published float rounded with round(x, 6); counts as ints.",
    "rows": (
        "Open-arm rows (council-forecasts.csv): run_role in (session_run, counted), status counted, line_kind in "
        "(issue, answer), horizon 1d, seat not starting with \"_\"; comparable = sealed_at <= (event_reference_at or "
        "reference_at). Arm rows (arms/arm-forecasts.csv): horizon 1d, status answered, seat not starting with "
        "\"_\"; comparable as the row states. A probability is stated when prob_up is not empty and cell_status is "
        "elicited or explicit_50; an action when it is one of the five words. A seat's answer for a market is its "
        "earliest-sealed row (per repeat for the repeats)."),
    "counts": (
        "Per arm and session: answered = seats with an answered row, comparable = seats with a comparable answered "
        "row, apart = answered − comparable; run_id (and open_run) = the run of the arm's earliest-sealed row. "
        "closed_vs_open is null when open and closed_book have < 2 seats in common; three_arms is null when "
        "price_only is absent or open, closed_book and price_only have < 2 seats in common."),
    "season": (
        "Experiment season: per arm, runs = sessions whose comparison holds that arm (open and closed_book: "
        "closed_vs_open; price_only: three_arms), mean_heat and mean_n_eff = mean of the non-null values over those "
        "runs (null when none). Repeats season and since_latest_version: each figure the mean of its non-null "
        "session values (null when none); since_latest_version takes every seat's repeats of the sessions from the "
        "seat's latest version's first session on."),
}


@dataclass(frozen=True)
class Answer:
    """One row that may enter the figures, reduced to what they read."""

    session: str
    run_id: str
    seat: str
    version: str
    repeat: int
    sealed_at: str
    comparable: bool
    asset: str
    prob: float | None
    action: str | None


def _prob(row: Row) -> float | None:
    text = row["prob_up"].strip()
    return float(text) if text != "" and row["cell_status"] in STATED else None


def _action(row: Row) -> str | None:
    return row["action"] if row["action"] in SCORE else None


def _open_answer(row: Row) -> Answer | None:
    if (row["run_role"] not in COUNTED_ROLES or row["status"] != "counted" or row["line_kind"] not in ISSUE
            or row["horizon"] != HORIZON or row["seat"].startswith("_")):
        return None
    reference = row["event_reference_at"] or row["reference_at"]
    return Answer(row["session"], row["run_id"], row["seat"], row.get("version", "") or "", 0, row["sealed_at"],
                  row["sealed_at"] <= reference, row["asset"], _prob(row), _action(row))


def _arm_answer(row: Row) -> tuple[str, Answer] | None:
    if row["horizon"] != HORIZON or row["status"] != "answered" or row["seat"].startswith("_"):
        return None
    return row["arm"], Answer(row["session"], row["run_id"], row["seat"], row["version"], int(row["repeat"]),
                              row["sealed_at"], row["comparable"] == "true", row["asset"], _prob(row), _action(row))


def _order(a: Answer) -> tuple[str, str, int, str]:
    return a.sealed_at, a.run_id, a.repeat, a.asset


def _cells(answers: Iterable[Answer], seats: Iterable[str]) -> Cells:
    """The comparable answers of ``seats``: each seat's earliest-sealed answer per market."""
    keep = set(seats)
    out: Cells = {}
    for a in sorted(answers, key=_order):
        if a.comparable and a.seat in keep:
            out.setdefault(a.seat, {}).setdefault(a.asset, (a.prob, a.action))
    return out


# ------------------------------------------------------------------------------ the figures of a set of seats
def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def heat(cells: Cells) -> float | None:
    """Dispersion heat: 100 × the mean share of stating seats outside the most common action of a market."""
    by_market: dict[str, list[str]] = defaultdict(list)
    for seat in sorted(cells):
        for market, (_, action) in cells[seat].items():
            if action is not None:
                by_market[market].append(action)
    splits = []
    for market in sorted(by_market):
        actions = by_market[market]
        if len(actions) >= 2:
            top = max(actions.count(a) for a in set(actions))
            splits.append(1.0 - top / len(actions))
    mean = _mean(splits)
    return None if mean is None else 100.0 * mean



def _probs(cells: Cells) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for seat, markets in cells.items():
        stated = {m: p for m, (p, _) in markets.items() if p is not None}
        if stated:
            out[seat] = stated
    return out


def n_eff(cells: Cells) -> tuple[int, float | None, float | None]:
    """(n, rho, N_eff) over the stated probabilities of ``cells``."""
    probs = _probs(cells)
    seats = sorted(probs)
    corrs = []
    for i, a in enumerate(seats):
        for b in seats[i + 1:]:
            common = sorted(set(probs[a]) & set(probs[b]))
            r = pearson([probs[a][m] for m in common], [probs[b][m] for m in common])
            if r is not None:
                corrs.append(r)
    n = len(seats)
    rho = _mean(corrs)
    if n == 1:
        return n, rho, 1.0
    if rho is None or 1 + (n - 1) * rho == 0:
        return n, rho, None
    return n, rho, n / (1 + (n - 1) * rho)


def spread(cells: Cells) -> float | None:
    """Portfolio spread: the mean distance, in steps of the action scale, between two seats' actions."""
    seats = sorted(cells)
    pairs = []
    for i, a in enumerate(seats):
        for b in seats[i + 1:]:
            gaps = [abs(SCORE[x] - SCORE[y]) for m, (_, x) in sorted(cells[a].items())
                    if x is not None and m in cells[b] and (y := cells[b][m][1]) is not None]
            if gaps:
                pairs.append(sum(gaps) / len(gaps))
    return _mean(pairs)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def figures(cells: Cells) -> dict[str, Json]:
    """The published figures of one arm over one set of seats."""
    n, rho, value = n_eff(cells)
    return {"heat": _round(heat(cells)), "n_eff": _round(value), "rho": _round(rho), "spread": _round(spread(cells)),
            "n": n}


def same_model(closed: Cells, open_: Cells, seats: list[str]) -> list[Json]:
    """Per seat, how far its closed-book answers sit from its own open answers."""
    out: list[Json] = []
    for seat in seats:
        c, o = closed.get(seat, {}), open_.get(seat, {})
        diffs = [cp - op for m, (cp, _) in sorted(c.items())
                 if cp is not None and m in o and (op := o[m][0]) is not None]
        same = [ca == oa for m, (_, ca) in sorted(c.items())
                if ca is not None and m in o and (oa := o[m][1]) is not None]
        out.append({"seat": seat, "markets": len(diffs), "mean_abs_diff": _round(_mean([abs(d) for d in diffs])),
                    "mean_diff": _round(_mean(diffs)), "action_markets": len(same),
                    "same_action": _round(_mean([1.0 if s else 0.0 for s in same]))})
    return out


# ------------------------------------------------------------------------------ arena-cb-experiment.json
def _counts(answers: list[Answer]) -> dict[str, Json]:
    answered = {a.seat for a in answers}
    comparable = {a.seat for a in answers if a.comparable}
    first = min(answers, key=_order).run_id if answers else None
    return {"run_id": first, "answered": len(answered), "comparable": len(comparable),
            "apart": len(answered) - len(comparable)}


def _common(by_arm: Mapping[str, list[Answer]], arms: tuple[str, ...]) -> list[str]:
    sets = [{a.seat for a in by_arm.get(arm, []) if a.comparable} for arm in arms]
    return sorted(set.intersection(*sets))


def _comparison(by_arm: Mapping[str, list[Answer]], arms: tuple[str, ...]) -> tuple[list[str], dict[str, Cells]]:
    seats = _common(by_arm, arms)
    return seats, {arm: _cells(by_arm.get(arm, []), seats) for arm in arms}


def _run(session: str, by_arm: Mapping[str, list[Answer]]) -> dict[str, Json]:
    counts = {arm: _counts(by_arm[arm]) for arm in ("open", *ARMS) if arm in by_arm}
    seats, cells = _comparison(by_arm, ("open", "closed_book"))
    closed_vs_open: Json = None
    if len(seats) >= 2:
        closed_vs_open = {"seats": list[Json](seats), "open": figures(cells["open"]),
                          "closed_book": figures(cells["closed_book"]),
                          "same_model": same_model(cells["closed_book"], cells["open"], seats)}
    three_arms: Json = None
    if "price_only" in by_arm:
        seats3, cells3 = _comparison(by_arm, ("open", *ARMS))
        if len(seats3) >= 2:
            three_arms = {"seats": list[Json](seats3), **{arm: figures(cells3[arm]) for arm in ("open", *ARMS)}}
    open_run = counts["open"]["run_id"] if "open" in counts else None
    return {"session": session, "open_run": open_run, "arms": dict[str, Json](counts),
            "closed_vs_open": closed_vs_open, "three_arms": three_arms}


def _season_of(runs: list[dict[str, Json]]) -> dict[str, Json]:
    out: dict[str, Json] = {}
    for arm, part in (("open", "closed_vs_open"), ("closed_book", "closed_vs_open"), ("price_only", "three_arms")):
        held = [f[arm] for r in runs if isinstance(f := r[part], dict) and isinstance(f[arm], dict)]
        heats = [h for f in held if isinstance(f, dict) and isinstance(h := f["heat"], float)]
        neffs = [v for f in held if isinstance(f, dict) and isinstance(v := f["n_eff"], float)]
        out[arm] = {"runs": len(held), "mean_heat": _round(_mean(heats)), "mean_n_eff": _round(_mean(neffs))}
    return out


def arms_experiment(open_rows: Iterable[Row], arm_rows: Iterable[Row]) -> dict[str, Json]:
    """``arena-cb-experiment.json``: per session with a closed_book or price_only arm, the arms against open."""
    sessions: dict[str, dict[str, list[Answer]]] = defaultdict(lambda: defaultdict(list))
    for row in arm_rows:
        if row["arm"] in ARMS and row["horizon"] == HORIZON and not row["seat"].startswith("_"):
            by_arm = sessions[row["session"]]  # created even when the arm got no answer: its counts are reported
            if (got := _arm_answer(row)) is not None:
                by_arm[got[0]].append(got[1])
    for row in open_rows:
        answer = _open_answer(row)
        if answer is not None and answer.session in sessions:
            sessions[answer.session]["open"].append(answer)
    runs = [_run(session, sessions[session]) for session in sorted(sessions)]
    return {"version": 1, "definitions": dict(DEFINITIONS), "runs": list[Json](runs), "season": _season_of(runs)}


# ------------------------------------------------------------------------------ council-repeats.json
#: seat -> repeat -> market -> cell, for one kind and session.
Repeats = dict[str, dict[int, dict[str, Cell]]]
FOUR = ("within_heat", "between_heat", "within_var", "between_var")


def _variance(values: list[float]) -> float | None:
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def _session_figures(seats: Repeats) -> dict[str, float | None]:
    within_heats = [h for seat in sorted(seats) if len(seats[seat]) >= 2
                    and (h := heat({str(r): cells for r, cells in seats[seat].items()})) is not None]
    between = heat({seat: reps[1] for seat, reps in seats.items() if 1 in reps})
    within_vars: list[float] = []
    seat_means: dict[str, list[float]] = defaultdict(list)
    for seat in sorted(seats):
        markets = sorted({m for cells in seats[seat].values() for m in cells})
        for m in markets:
            probs = [p for r in sorted(seats[seat]) if (p := seats[seat][r].get(m, (None, None))[0]) is not None]
            if (v := _variance(probs)) is not None:
                within_vars.append(v)
            if probs:
                seat_means[m].append(sum(probs) / len(probs))
    between_vars = [v for m in sorted(seat_means) if (v := _variance(seat_means[m])) is not None]
    return {"within_heat": _mean(within_heats), "between_heat": between, "within_var": _mean(within_vars),
            "between_var": _mean(between_vars)}


def _pooled(per_session: list[dict[str, float | None]]) -> dict[str, Json]:
    out: dict[str, Json] = {}
    for key in FOUR:
        out[key] = _round(_mean([v for s in per_session if (v := s[key]) is not None]))
    return out


def _kind(answers: list[Answer]) -> dict[str, Json]:
    by_session: dict[str, Repeats] = defaultdict(lambda: defaultdict(dict))
    versions: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for a in sorted(answers, key=lambda a: (a.session, *_order(a))):
        by_session[a.session][a.seat].setdefault(a.repeat, {}).setdefault(a.asset, (a.prob, a.action))
        if all(v != a.version for v, _ in versions[a.seat]):
            versions[a.seat].append((a.version, a.session))
    order = sorted(by_session)
    figs = {s: _session_figures(by_session[s]) for s in order}
    sessions: list[Json] = [{"session": s, "seats": list[Json](sorted(by_session[s])),
                             **{k: _round(figs[s][k]) for k in FOUR}} for s in order]
    latest: dict[str, Json] = {}
    for seat in sorted(versions):
        if len(versions[seat]) >= 2:
            version, since = versions[seat][-1]
            kept = [figs[s] for s in order if s >= since]
            latest[seat] = {"version": version, "since": since, "sessions": len(kept), **_pooled(kept)}
    return {"sessions": sessions, "season": {**_pooled([figs[s] for s in order]), "sessions": len(order)},
            "versions": {seat: list[Json]([{"version": v, "since": s} for v, s in versions[seat]])
                         for seat in sorted(versions)},
            "since_latest_version": latest}


def repeats_report(arm_rows: Iterable[Row]) -> dict[str, Json]:
    """``council-repeats.json``: per repeat kind, how much a model disagrees with itself and with the others."""
    kinds: dict[str, list[Answer]] = defaultdict(list)
    for row in arm_rows:
        if row["arm"] in REPEATS and (got := _arm_answer(row)) is not None:
            kinds[got[0]].append(got[1])
    return {"version": 1, "definitions": dict(DEFINITIONS),
            "kinds": {kind: _kind(kinds[kind]) for kind in REPEATS if kind in kinds}}
