"""The arms' and repeats' figures (league/scoring/arms.py) on a small case computed by hand.

One session (2026-11-24), four markets, council seats A, B, C and three more that must not enter the comparison:
D (its closed-book answer sealed after the reference), E (its open answer sealed after the event's reference)
and the baseline ``_ets``. Every expected value below is written out from the arithmetic in the comments.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from league.scoring.arms import DEFINITIONS, arms_experiment, repeats_report

SESSION = "2026-11-24"
NEXT = "2026-11-25"
OPEN_COLUMNS = ("session", "run_id", "run_role", "status", "line_kind", "horizon", "seat", "model", "version",
                "sealed_at", "reference_at", "event_reference_at", "asset", "prob_up", "action", "cell_status")
ARM_COLUMNS = ("run_id", "session", "arm", "repeat", "seat", "model", "version", "line", "sealed_at", "reference_at",
               "comparable", "search_status", "outside", "status", "asset", "horizon", "prob_up", "action",
               "cell_status")


def open_row(seat: str, asset: str, prob: float | None, action: str = "", *, sealed: str = "2026-11-24T14:30:00Z",
             horizon: str = "1d", status: str = "counted", cell: str = "elicited", reference: str = "",
             event_reference: str = "2026-11-24T21:00:00Z", session: str = SESSION) -> dict[str, str]:
    return {"session": session, "run_id": f"run-open-{session}", "run_role": "session_run", "status": status,
            "line_kind": "answer", "horizon": horizon, "seat": seat, "model": f"model-{seat}", "version": "v1",
            "sealed_at": sealed, "reference_at": reference or "2026-11-24T21:00:00Z",
            "event_reference_at": event_reference, "asset": asset, "prob_up": "" if prob is None else f"{prob:g}",
            "action": action, "cell_status": "missing" if prob is None else cell}


def arm_row(arm: str, seat: str, asset: str, prob: float | None, action: str = "", *, repeat: int = 0,
            comparable: bool = True, status: str = "answered", horizon: str = "1d", session: str = SESSION,
            version: str = "v1", cell: str = "elicited", sealed: str = "2026-11-24T15:00:00Z") -> dict[str, str]:
    return {"run_id": f"run-{arm}-{session}", "session": session, "arm": arm, "repeat": str(repeat), "seat": seat,
            "model": f"model-{seat}", "version": version, "line": "1", "sealed_at": sealed,
            "reference_at": "2026-11-24T21:00:00Z", "comparable": "true" if comparable else "false",
            "search_status": "none", "outside": "false", "status": status, "asset": asset, "horizon": horizon,
            "prob_up": "" if prob is None else f"{prob:g}", "action": action,
            "cell_status": "missing" if prob is None else cell}


MARKETS = ("SPX", "NDX", "GLD", "BTC")


Make = Callable[..., dict[str, str]]


def _seat(make: Make, seat: str, answers: list[tuple[float | None, str]], **kw: object) -> list[dict[str, str]]:
    return [make(seat, m, p, a, **kw) for m, (p, a) in zip(MARKETS, answers, strict=True)]


def experiment_of(opens: Iterable[Mapping[str, str]], arms: Iterable[Mapping[str, str]]) -> dict[str, Any]:
    """The experiment as the tests read it (JSON values of any shape)."""
    return cast(dict[str, Any], arms_experiment(opens, arms))


def repeats_of(arms: Iterable[Mapping[str, str]]) -> dict[str, Any]:
    return cast(dict[str, Any], repeats_report(arms))


def open_rows() -> list[dict[str, str]]:
    rows = []
    rows += _seat(open_row, "A", [(60, "buy_dips"), (70, "buy_strong"), (50, "hold"), (50, "hold")])
    rows += _seat(open_row, "B", [(60, "buy_dips"), (60, "hold"), (45, "trim"), (None, "")])
    rows += _seat(open_row, "C", [(40, "sell"), (50, "hold"), (60, "buy_dips"), (30, "sell")])
    rows += _seat(open_row, "D", [(50, "hold")] * 4, cell="explicit_50")
    # E sealed after the event's reference (21:00) though before the run's (23:00): apart
    rows += _seat(open_row, "E", [(99, "sell"), (1, "buy_strong"), (99, "sell"), (1, "buy_strong")],
                  sealed="2026-11-24T22:00:00Z", reference="2026-11-24T23:00:00Z")
    rows += _seat(open_row, "_ets", [(99, "sell"), (1, "buy_strong"), (99, "sell"), (1, "buy_strong")])
    # not the 1d horizon, and a row that is not counted (sealed earlier: it would be A's first answer)
    rows.append(open_row("A", "SPX", 1, "sell", horizon="1w"))
    rows.append(open_row("A", "NDX", 1, "sell", status="superseded", sealed="2026-11-24T14:00:00Z"))
    return rows


def experiment_arm_rows() -> list[dict[str, str]]:
    def cb(seat: str, asset: str, prob: float | None, action: str, **kw: Any) -> dict[str, str]:
        return arm_row("closed_book", seat, asset, prob, action, **kw)

    def po(seat: str, asset: str, prob: float | None, action: str, **kw: Any) -> dict[str, str]:
        return arm_row("price_only", seat, asset, prob, action, sealed="2026-11-24T15:30:00Z", **kw)

    rows = []
    rows += _seat(cb, "A", [(55, "buy_dips"), (65, "buy_dips"), (50, "hold"), (50, "trim")])
    rows += _seat(cb, "B", [(50, "hold"), (60, "hold"), (40, "trim"), (50, "hold")])
    rows += _seat(cb, "C", [(45, "hold"), (55, "hold"), (55, "hold"), (45, "")])
    rows += _seat(cb, "D", [(10, "sell"), (90, "buy_strong"), (10, "sell"), (90, "buy_strong")], comparable=False)
    rows += _seat(cb, "E", [(90, "buy_strong"), (10, "sell"), (90, "buy_strong"), (10, "sell")])
    rows += _seat(cb, "_ets", [(90, "buy_strong"), (10, "sell"), (90, "buy_strong"), (10, "sell")])
    rows += _seat(po, "A", [(50, "hold")] * 4, cell="explicit_50")
    rows += _seat(po, "B", [(60, "buy_dips"), (40, "trim"), (50, "hold"), (55, "hold")])
    rows += _seat(po, "C", [(10, "sell"), (90, "buy_strong"), (10, "sell"), (90, "buy_strong")], comparable=False)
    rows.append(arm_row("price_only", "D", "SPX", None, "", status="refused_shape"))
    return rows


def repeat_rows() -> list[dict[str, str]]:
    def ro(seat: str, repeat: int, answers: list[tuple[float | None, str]]) -> list[dict[str, str]]:
        return [arm_row("repeat_open", seat, m, p, a, repeat=repeat)
                for m, (p, a) in zip(MARKETS[:len(answers)], answers, strict=True)]

    def rp(seat: str, repeat: int, session: str, version: str,
           answers: list[tuple[float | None, str]]) -> list[dict[str, str]]:
        return [arm_row("repeat_packet", seat, m, p, a, repeat=repeat, session=session, version=version)
                for m, (p, a) in zip(MARKETS[:len(answers)], answers, strict=True)]

    rows = []
    rows += ro("A", 1, [(60, "buy_dips"), (50, "hold"), (40, "trim")])
    rows += ro("A", 2, [(70, "buy_dips"), (50, "hold"), (40, "hold")])
    rows += ro("A", 3, [(80, "buy_strong"), (None, ""), (40, "hold")])
    rows += ro("B", 1, [(50, "hold"), (50, "hold"), (50, "hold")])
    rows += ro("B", 2, [(40, "hold"), (60, "buy_dips"), (50, "hold")])
    rows += ro("C", 1, [(30, "sell"), (40, "trim"), (60, "buy_dips")])
    rows += ro("_ets", 1, [(99, "sell"), (1, "buy_strong"), (99, "sell")])
    rows += ro("_ets", 2, [(1, "buy_strong"), (99, "sell"), (1, "buy_strong")])
    rows.append(arm_row("repeat_open", "A", "SPX", 0, "sell", repeat=2, horizon="1w"))
    rows += rp("A", 1, SESSION, "v1", [(60, "hold"), (40, "hold")])
    rows += rp("A", 2, SESSION, "v1", [(70, "hold"), (40, "hold")])
    rows += rp("B", 1, SESSION, "v1", [(50, "hold"), (50, "hold")])
    rows += rp("B", 2, SESSION, "v1", [(50, "hold"), (60, "buy_dips")])
    rows += rp("A", 1, NEXT, "v2", [(80, "buy_strong"), (20, "sell")])
    rows += rp("A", 2, NEXT, "v2", [(80, "buy_dips"), (30, "sell")])
    rows += rp("B", 1, NEXT, "v1", [(50, "hold"), (50, "hold")])
    rows.append(arm_row("repeat_packet", "B", "", None, "", repeat=2, session=NEXT, status="no_answer"))
    return rows


def as_csv(rows: list[dict[str, str]], columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows as ``csv.DictReader`` gives them back: what the functions read in production."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return list(csv.DictReader(io.StringIO(buf.getvalue())))


def experiment() -> dict[str, Any]:
    return experiment_of(as_csv(open_rows(), OPEN_COLUMNS), as_csv(experiment_arm_rows() + repeat_rows(), ARM_COLUMNS))


def test_counts_keep_late_answers_apart_per_arm() -> None:
    """open: A, B, C, D answered in time, E after the event's reference; closed_book: D late (comparable false);
    price_only: C late, D refused (not answered); the baseline seat is never counted."""
    run = experiment()["runs"][0]
    assert run["session"] == SESSION and run["open_run"] == "run-open-2026-11-24"
    assert run["arms"] == {
        "open": {"run_id": "run-open-2026-11-24", "answered": 5, "comparable": 4, "apart": 1},
        "closed_book": {"run_id": "run-closed_book-2026-11-24", "answered": 5, "comparable": 4, "apart": 1},
        "price_only": {"run_id": "run-price_only-2026-11-24", "answered": 3, "comparable": 2, "apart": 1},
    }


def test_closed_vs_open_by_hand() -> None:
    """The same seats: {A, B, C, D} in time in open ∩ {A, B, C, E} in time in closed_book = A, B, C.

    open heat: SPX (bd, bd, sell) 1 − 2/3 = 1/3; NDX (bs, hold, hold) 1/3; GLD (hold, trim, bd) 2/3; BTC (hold, sell;
    B none) 1 − 1/2 = 1/2 -> 100 × (11/6)/4 = 45.833333.
    open N_eff: A−B over SPX, NDX, GLD: deviations (0, 10, −10) and (5, 5, −10): 150/√(200·150) = √3/2; A−C over the
    four: (2.5, 12.5, −7.5, −7.5) and (−5, 5, 15, −15): 50/√(275·500) = 0.134840; B−C: (5, 5, −10) and (−10, 0, 10):
    −150/√(150·200) = −√3/2; rho = 0.134840/3 = 0.044947; N_eff = 3/(1 + 2·0.044947) = 2.752563.
    open spread (scores A 1 2 0 0, B 1 0 −1 ·, C −2 0 1 −2): A−B (0+2+1)/3 = 1, A−C (3+2+1+2)/4 = 2,
    B−C (3+0+2)/3 = 5/3; (1 + 2 + 5/3)/3 = 14/9 = 1.555556.
    closed heat: SPX, NDX, GLD each one seat off the two others: 1/3; BTC (trim, hold; C none) 1/2 ->
    100 × (1 + 1/2)/4 = 37.5.
    closed N_eff: deviations A (0, 10, −5, −5), B (0, 10, −10, 0), C (−5, 5, 5, −5): A−B 150/√(150·200) = √3/2,
    A−C 50/√(150·100) = 0.408248, B−C 0/… = 0; rho = 1.274274/3 = 0.424758; N_eff = 3/1.849516 = 1.622046.
    closed spread (A 1 1 0 −1, B 0 0 −1 0, C 0 0 0 ·): A−B 4/4 = 1, A−C 2/3, B−C 1/3 -> 2/3 = 0.666667.
    """
    cvo = experiment()["runs"][0]["closed_vs_open"]
    assert cvo["seats"] == ["A", "B", "C"]
    assert cvo["open"] == {"heat": 45.833333, "n_eff": 2.752563, "rho": 0.044947, "spread": 1.555556, "n": 3}
    assert cvo["closed_book"] == {"heat": 37.5, "n_eff": 1.622046, "rho": 0.424758, "spread": 0.666667, "n": 3}
    # A: closed − open = (−5, −5, 0, 0); actions same on SPX and GLD of 4.
    # B: probabilities on SPX, NDX, GLD (open BTC missing): (−10, 0, −5); actions same on NDX, GLD of 3.
    # C: (5, 5, −5, 15): |·| 30/4, mean 20/4; actions (closed BTC none): same on NDX of 3.
    assert cvo["same_model"] == [
        {"seat": "A", "markets": 4, "mean_abs_diff": 2.5, "mean_diff": -2.5, "action_markets": 4, "same_action": 0.5},
        {"seat": "B", "markets": 3, "mean_abs_diff": 5.0, "mean_diff": -5.0, "action_markets": 3,
         "same_action": 0.666667},
        {"seat": "C", "markets": 4, "mean_abs_diff": 7.5, "mean_diff": 5.0, "action_markets": 3,
         "same_action": 0.333333},
    ]


def test_three_arms_by_hand() -> None:
    """Seats in time in all three arms: {A, B, C, D} ∩ {A, B, C, E} ∩ {A, B} = A, B.

    open: SPX (bd, bd) 0, NDX (bs, hold) 1/2, GLD (hold, trim) 1/2, BTC one action only -> 100/3 = 33.333333;
    r(A, B) = √3/2 = 0.866025, N_eff = 2/(1 + 0.866025) = 1.071797; spread 1 (as above).
    closed_book: every market split 1/2 -> 50; r = √3/2 again (deviations (0, 10, −5, −5), (0, 10, −10, 0)),
    N_eff 1.071797; spread |1−0| |1−0| |0+1| |−1−0| -> 1.
    price_only: A all hold at 50, B (bd, trim, hold, hold) -> splits 1/2, 1/2, 0, 0 -> 25; A has no variance, so no
    pair is kept: rho and N_eff null; spread (1 + 1 + 0 + 0)/4 = 0.5.
    """
    three = experiment()["runs"][0]["three_arms"]
    assert three["seats"] == ["A", "B"]
    assert three["open"] == {"heat": 33.333333, "n_eff": 1.071797, "rho": 0.866025, "spread": 1.0, "n": 2}
    assert three["closed_book"] == {"heat": 50.0, "n_eff": 1.071797, "rho": 0.866025, "spread": 1.0, "n": 2}
    assert three["price_only"] == {"heat": 25.0, "n_eff": None, "rho": None, "spread": 0.5, "n": 2}


def test_season_and_definitions() -> None:
    got = experiment()
    assert got["version"] == 1 and got["definitions"] == DEFINITIONS
    assert [r["session"] for r in got["runs"]] == [SESSION]
    assert got["season"] == {"open": {"runs": 1, "mean_heat": 45.833333, "mean_n_eff": 2.752563},
                             "closed_book": {"runs": 1, "mean_heat": 37.5, "mean_n_eff": 1.622046},
                             "price_only": {"runs": 1, "mean_heat": 25.0, "mean_n_eff": None}}
    assert "mean |p_closed − p_open|" in str(DEFINITIONS["same_model"])


def test_fewer_than_two_common_seats_give_null_comparisons() -> None:
    """Only A is in time in both arms: no comparison is published, but the counts are."""
    opens = [r for r in open_rows() if r["seat"] in ("A", "B")]
    arms = [r for r in experiment_arm_rows() if r["seat"] in ("A", "C")]
    run = experiment_of(opens, arms)["runs"][0]
    assert run["closed_vs_open"] is None and run["three_arms"] is None
    assert run["arms"]["closed_book"] == {"run_id": "run-closed_book-2026-11-24", "answered": 2, "comparable": 2,
                                          "apart": 0}


def test_a_late_answer_would_change_the_figures_if_it_were_mixed_in() -> None:
    """The same rows with D's closed-book answer in time: D joins the seats (the rule is what kept it out)."""
    arms = experiment_arm_rows()
    for r in arms:
        if r["seat"] == "D" and r["arm"] == "closed_book":
            r["comparable"] = "true"
    cvo = experiment_of(open_rows(), arms)["runs"][0]["closed_vs_open"]
    assert cvo["seats"] == ["A", "B", "C", "D"]
    assert cvo["open"]["n"] == 4


def test_repeats_by_hand() -> None:
    """repeat_open (2026-11-24; SPX, NDX, GLD; the baseline and the 1w row left out).

    within heat: A SPX (bd, bd, bs) 1/3, NDX (hold, hold) 0, GLD (trim, hold, hold) 1/3 -> 100·(2/3)/3 = 22.2222;
    B SPX 0, NDX (hold, bd) 1/2, GLD 0 -> 100/6 = 16.6667; C has one repeat; (200/9 + 100/6)/2 = 175/9 = 19.444444.
    between heat (repeat 1): SPX (bd, hold, sell) 2/3, NDX (hold, hold, trim) 1/3, GLD (trim, hold, bd) 2/3 ->
    100·(5/3)/3 = 55.555556.
    within var: A SPX (60, 70, 80) 200/2 = 100, NDX (50, 50) 0, GLD 0; B SPX (50, 40) 50, NDX (50, 60) 50, GLD 0;
    (100 + 50 + 50)/6 = 33.333333.
    between var: SPX means (70, 45, 30) -> (65² + 10² + 55²)/9/2 = 7350/18; NDX (50, 55, 40) -> 1050/18;
    GLD (40, 50, 60) -> 100 = 1800/18; mean 10200/54 = 188.888889.
    """
    got = repeats_of(as_csv(experiment_arm_rows() + repeat_rows(), ARM_COLUMNS))
    assert got["version"] == 1 and got["definitions"] == DEFINITIONS
    kind = got["kinds"]["repeat_open"]
    figures = {"within_heat": 19.444444, "between_heat": 55.555556, "within_var": 33.333333, "between_var": 188.888889}
    assert kind["sessions"] == [{"session": SESSION, "seats": ["A", "B", "C"], **figures}]
    assert kind["season"] == {**figures, "sessions": 1}
    assert kind["versions"] == {s: [{"version": "v1", "since": SESSION}] for s in ("A", "B", "C")}
    assert kind["since_latest_version"] == {}


def test_repeat_versions_by_hand() -> None:
    """repeat_packet (SPX, NDX), A moves from v1 to v2 on 2026-11-25; B's second repeat that day has no answer.

    2026-11-24: within heat A 0, B (NDX hold, bd) 1/4 -> 12.5; between heat (all hold) 0; within var A SPX (60, 70)
    50, the rest 0 but B NDX (50, 60) 50 -> 100/4 = 25; between var SPX (65, 50) 112.5, NDX (40, 55) 112.5 -> 112.5.
    2026-11-25: within heat A SPX (bs, bd) 1/2, NDX 0 -> 25 (B one repeat); between heat SPX (bs, hold) 1/2, NDX
    (sell, hold) 1/2 -> 50; within var A NDX (20, 30) 50, SPX 0 -> 25; between var SPX (80, 50) 450, NDX (25, 50)
    312.5 -> 381.25.
    season: (12.5 + 25)/2 = 18.75, (0 + 50)/2 = 25, 25, (112.5 + 381.25)/2 = 246.875.
    """
    kind = repeats_of(repeat_rows())["kinds"]["repeat_packet"]
    assert kind["sessions"] == [
        {"session": SESSION, "seats": ["A", "B"], "within_heat": 12.5, "between_heat": 0.0, "within_var": 25.0,
         "between_var": 112.5},
        {"session": NEXT, "seats": ["A", "B"], "within_heat": 25.0, "between_heat": 50.0, "within_var": 25.0,
         "between_var": 381.25},
    ]
    assert kind["season"] == {"within_heat": 18.75, "between_heat": 25.0, "within_var": 25.0, "between_var": 246.875,
                              "sessions": 2}
    assert kind["versions"] == {"A": [{"version": "v1", "since": SESSION}, {"version": "v2", "since": NEXT}],
                                "B": [{"version": "v1", "since": SESSION}]}
    assert kind["since_latest_version"] == {"A": {"version": "v2", "since": NEXT, "sessions": 1, "within_heat": 25.0,
                                                  "between_heat": 50.0, "within_var": 25.0, "between_var": 381.25}}


def test_kinds_absent_from_the_rows_are_absent() -> None:
    only_open = [r for r in repeat_rows() if r["arm"] == "repeat_open"]
    assert list(repeats_of(only_open)["kinds"]) == ["repeat_open"]
    assert repeats_of(experiment_arm_rows())["kinds"] == {}
