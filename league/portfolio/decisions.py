"""From a counted answer to a portfolio decision, and from a decision to target weights (pure).

The mapping (documented in docs/portfolio.md) reads each market's one-day ``action``:

=============  long-only (arena-3)                         long/short (pro-1)
buy_strong     fund to the maximum weight (25%)            +maximum (30%)
buy_dips       fund to the middle weight (15%) if the       +middle (17.5%), same touch rule
               indicator touches ``entry``, at that level
hold           no trade                                    no trade
trim           halve the weight, not below the minimum     same, for a long position
sell           fund to 0%                                  -maximum (short 30%)
other words    not traded (kept as ``action_word``)        not traded
=============  ==========================================  ======================

Markets whose fund moves against the indicator (TNX → IEF) swap ``buy_strong`` and ``sell``;
their ``buy_dips`` is not traded (a yield level is not a bond price). In the long-only league new buys
are scaled down together so at least ``mapping_cash_floor`` (1%) stays in cash for costs, and a buy
that would fall below the minimum weight is dropped. In the pro league the whole book is scaled to the
nearest gross limit when it falls outside 100–200%. An explicit target-weight block (``targets``:
market → percent of equity, for every league; or rule-set name → such a block, e.g. ``{"pro-1": {...}}``,
for the leagues it names, the others keeping the mapping) replaces the mapping: it is the full book,
absent markets go to 0, and it is checked as given, never repaired. Whatever the source, the plan is
validated against the rules and a breach rejects the whole decision (:class:`RuleBreach`, sealed with
its reason). In the pro league a mapped plan that sets no opening weight (every ``hold``, or only dip
legs) on a book below the gross floor trades nothing: no trade, not a rejection (dip legs alone could
never open a 100% book), so an empty pro account that holds is not rejected every session.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from league.jsonvalue import Json, number
from league.portfolio.interface import PortfolioError
from league.portfolio.rules import RuleSet

TRADED_ACTIONS = frozenset({"buy_strong", "buy_dips", "hold", "trim", "sell"})
#: the pro mapping scales to this far inside a gross limit, so share and cent rounding cannot cross it
GROSS_INSIDE = 0.001
FIT_ROUNDS = 25
Source = Literal["actions", "targets", "benchmark"]


class RuleBreach(PortfolioError):
    """A decision breaks a rule; the engine turns it into a sealed rejection and trades nothing."""


@dataclass(frozen=True, slots=True)
class ActionCell:
    """One market's one-day ``action`` (and ``entry`` for ``buy_dips``) as sealed in the answer."""

    action: str
    entry: float | None = None

    def __post_init__(self) -> None:
        if self.entry is not None and not (math.isfinite(self.entry) and self.entry > 0):
            raise PortfolioError(f"entry {self.entry!r} must be a positive finite level")


@dataclass(frozen=True)
class Decision:
    """A seat's decision for one session; ``at`` is when its answer was sealed (aware)."""

    seat: str
    session: date
    at: datetime
    cells: Mapping[str, ActionCell] = field(default_factory=dict)
    targets: Mapping[str, float] | None = None
    #: rule-set name → targets, for a ``targets`` block keyed by league (the named leagues only)
    league_targets: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    source: Source = "actions"
    model: str | None = None
    version: str | None = None
    answer_line: int | None = None
    exempt_limits: bool = False
    problem: str | None = None

    def __post_init__(self) -> None:
        if self.at.tzinfo is None or self.at.utcoffset() is None:
            raise PortfolioError(f"decision time {self.at!r} is naive")
        if not self.seat:
            raise PortfolioError("a decision needs a seat id")
        if self.targets is not None and not all(math.isfinite(w) for w in self.targets.values()):
            raise PortfolioError("target weights must be finite numbers")

    def for_league(self, league: str) -> Decision:
        """The decision as league ``league`` reads it: its own targets block, if the answer keyed one to it."""
        own = self.league_targets.get(league)
        if own is None or self.targets is not None:
            return self
        return replace(self, targets=dict(own), source="targets")

    def for_account(self, account: str) -> Decision:
        """The same decision driving another account (a model version's own account)."""
        return Decision(**{**self.__dict__, "seat": account})


@dataclass(frozen=True)
class DipLeg:
    """A conditional buy: the indicator must touch ``entry`` during the session."""

    market: str
    symbol: str
    weight: float
    entry: float


@dataclass(frozen=True)
class Plan:
    """What to do at execution: target weights for the opening window, plus conditional dip buys."""

    targets: dict[str, float]
    dips: tuple[DipLeg, ...] = ()
    notes: tuple[str, ...] = ()


def decision_from_reply(
    reply: Mapping[str, Json],
    *,
    seat: str,
    session: date,
    at: datetime,
    model: str | None = None,
    version: str | None = None,
    answer_line: int | None = None,
) -> Decision:
    """Read the one-day actions (and an optional ``targets`` block) of a parsed answer object.

    Malformed parts never raise: they become ``problem``, which the engine seals as the rejection
    reason, so bad input is recorded rather than lost.
    """
    cells, problems = _cells_of(reply.get("forecast"))
    targets, by_league, problem = _targets_of(reply.get("targets"))
    if problem:
        problems.append(problem)
    return Decision(
        seat=seat, session=session, at=at, cells=cells, targets=targets, league_targets=by_league,
        source="targets" if targets is not None else "actions", model=model, version=version,
        answer_line=answer_line, problem="; ".join(problems) or None,
    )


def _cells_of(forecast: Json | None) -> tuple[dict[str, ActionCell], list[str]]:
    cells: dict[str, ActionCell] = {}
    problems: list[str] = []
    if not isinstance(forecast, Mapping):
        return cells, problems
    for market, horizons in forecast.items():
        one_day = horizons.get("1d") if isinstance(horizons, Mapping) else None
        if not isinstance(one_day, Mapping) or not isinstance(action := one_day.get("action"), str):
            continue
        entry = one_day.get("entry")
        price = _positive_number(entry)
        if entry is not None and price is None:
            problems.append(f"{market}: entry {entry!r} is not a positive number")
        cells[str(market)] = ActionCell(action=action, entry=price)
    return cells, problems


def _targets_of(block: Json | None) -> tuple[dict[str, float] | None, dict[str, dict[str, float]], str | None]:
    """``targets`` is market → percent of equity (every league), or rule-set name → such a block (the
    leagues named); anything else is reported, not guessed at."""
    if block is None:
        return None, {}, None
    if isinstance(block, Mapping) and block:
        leagues = {str(k): v for k, v in block.items() if isinstance(v, Mapping)}
        if len(leagues) == len(block):
            if all(_finite_number(w) for inner in leagues.values() for w in inner.values()):
                return None, {k: _fractions(v) for k, v in leagues.items()}, None
            return None, {}, "targets block of a league is not an object of market -> percent"
    if not isinstance(block, Mapping) or not all(_finite_number(v) for v in block.values()):
        return {}, {}, "targets block is not an object of market -> percent"
    return _fractions(block), {}, None


def _fractions(block: Mapping[str, Json]) -> dict[str, float]:
    """Percent of equity as fractions (the callers have checked that every value is a finite number)."""
    return {str(k): float(n) / 100.0 for k, v in block.items() if (n := number(v)) is not None}


def _finite_number(value: Json | None) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _positive_number(value: Json | None) -> float | None:
    """``value`` as a float when it is a finite number above zero, else None."""
    n = number(value)
    return float(n) if n is not None and math.isfinite(n) and n > 0 else None


def plan_decision(decision: Decision, rules: RuleSet, weights: Mapping[str, float]) -> Plan:
    """Turn a decision into a validated plan, given current weights (fund symbol → fraction).

    Raises :class:`RuleBreach` with the reason when the decision breaks a rule.
    """
    if decision.problem:
        raise RuleBreach(decision.problem)
    if decision.targets is not None:
        plan = _plan_from_targets(decision.targets, rules)
    else:
        plan = _plan_from_actions(decision.cells, rules, weights)
    validate_plan(plan, rules, weights, exempt=decision.exempt_limits)
    return plan


def _plan_from_targets(targets: Mapping[str, float], rules: RuleSet) -> Plan:
    unknown = sorted(m for m in targets if m not in rules.funds)
    if unknown:
        why = "indicator-only" if set(unknown) <= set(rules.indicator_only) else "not tradable"
        raise RuleBreach(f"targets name {unknown}: {why} in {rules.name}")
    return Plan(targets={symbol: float(targets.get(market, 0.0)) for market, symbol in rules.funds.items()})


def _plan_from_actions(cells: Mapping[str, ActionCell], rules: RuleSet, weights: Mapping[str, float]) -> Plan:
    targets: dict[str, float] = {}
    dips: list[DipLeg] = []
    notes: list[str] = []
    for market, cell in sorted(cells.items()):
        symbol = rules.funds.get(market)
        if symbol is None or cell.action not in TRADED_ACTIONS:
            continue
        action = _oriented(cell.action, market, rules)
        current = weights.get(symbol, 0.0)
        if action == "buy_dips":
            leg, note = _dip_leg(market, symbol, cell, current, rules)
            dips.extend([leg] if leg else [])
            notes.extend([note] if note else [])
            continue
        target = _action_target(action, current, rules)
        if target is not None and not math.isclose(target, current, abs_tol=1e-12):
            targets[symbol] = target
    plan = Plan(targets=targets, dips=tuple(dips), notes=tuple(notes))
    return _fit_long_only(plan, rules, weights) if not rules.allow_short else _fit_gross(plan, rules, weights)


def _oriented(action: str, market: str, rules: RuleSet) -> str:
    """Inverse markets (a yield) trade the fund the other way round; their dips are not traded."""
    if market not in rules.inverse_markets:
        return action
    return {"buy_strong": "sell", "sell": "buy_strong", "buy_dips": "hold"}.get(action, action)


def _action_target(action: str, current: float, rules: RuleSet) -> float | None:
    """The target weight for one action, or None for no trade."""
    lo, hi = rules.min_weight, rules.max_weight
    if action == "buy_strong":
        return hi
    if action == "sell":
        return -hi if rules.allow_short else (0.0 if current else None)
    if action == "trim" and current > lo:
        return min(hi, max(lo, current / 2))
    return None


def _dip_leg(market: str, symbol: str, cell: ActionCell, current: float, rules: RuleSet) -> tuple[
        DipLeg | None, str | None]:
    middle = (rules.min_weight + rules.max_weight) / 2
    if cell.entry is None:
        return None, f"{market}: buy_dips without entry is not traded"
    if current >= middle:
        return None, f"{market}: buy_dips already at or above {middle:.1%}"
    return DipLeg(market=market, symbol=symbol, weight=middle, entry=cell.entry), None


def _fit_long_only(plan: Plan, rules: RuleSet, weights: Mapping[str, float]) -> Plan:
    """Scale new buys down together so the book keeps the cash floor; drop buys that fall below the minimum."""
    budget = rules.max_gross - rules.mapping_cash_floor
    targets = dict(plan.targets)
    dips = {leg.symbol: leg for leg in plan.dips}
    while True:
        final = {**weights, **targets}
        buys = {s: t for s, t in targets.items() if t > weights.get(s, 0.0)}
        buys.update({s: leg.weight for s, leg in dips.items()})
        fixed = sum(w for s, w in final.items() if s not in buys)
        demand = sum(buys.values())
        if demand <= 0 or fixed + demand <= budget:
            break
        factor = max(budget - fixed, 0.0) / demand
        too_small = [s for s, t in buys.items() if t * factor < max(rules.min_weight, weights.get(s, 0.0))]
        if not too_small:
            targets.update({s: t * factor for s, t in buys.items() if s in targets})
            dips = {s: _scaled(leg, factor) for s, leg in dips.items()}
            break
        for s in too_small:
            targets.pop(s, None)
            dips.pop(s, None)
    return Plan(targets=targets, dips=tuple(dips.values()), notes=plan.notes)


def _scaled(leg: DipLeg, factor: float) -> DipLeg:
    return DipLeg(market=leg.market, symbol=leg.symbol, weight=leg.weight * factor, entry=leg.entry)


def _fit_gross(plan: Plan, rules: RuleSet, weights: Mapping[str, float]) -> Plan:
    """Pro league: scale the whole opening book into the gross limits, each weight kept in its band.

    Room is left for the ``buy_dips`` legs (they add exposure only if they fill); when the band and the
    gross limits cannot both hold, the plan is returned as is and validation rejects it with the reason.
    """
    if not plan.targets and not plan.dips:
        return plan
    if not plan.targets and sum(abs(w) for w in weights.values()) < rules.min_gross:
        note = (f"{rules.name}: dip legs alone cannot open a book of {rules.min_gross:.0%} gross; not traded "
                "(no opening weight set: no trade, not a rejection)")
        return Plan(targets={}, dips=(), notes=(*plan.notes, note))
    book = {s: w for s, w in {**weights, **plan.targets}.items() if w}
    extra = sum(max(0.0, leg.weight - abs(book.get(leg.symbol, 0.0))) for leg in plan.dips)
    low, high = rules.min_gross + GROSS_INSIDE, rules.max_gross - GROSS_INSIDE - extra
    lo, hi = rules.min_weight, rules.max_weight
    for _ in range(FIT_ROUNDS):
        gross = sum(abs(w) for w in book.values())
        if gross == 0 or low <= gross <= high:
            break
        factor = min(max(gross, low), high) / gross
        book = {s: math.copysign(min(hi, max(lo, abs(w) * factor)), w) for s, w in book.items()}
    targets = {s: book.get(s, 0.0) for s in set(book) | set(plan.targets)}
    changed = {s: w for s, w in targets.items() if not math.isclose(w, weights.get(s, 0.0), abs_tol=1e-12)}
    return Plan(targets=changed, dips=plan.dips, notes=plan.notes)


def validate_plan(plan: Plan, rules: RuleSet, weights: Mapping[str, float], *, exempt: bool = False) -> None:
    """Check a plan against the rules before anything trades; raise RuleBreach with the first reason."""
    if not plan.targets and not plan.dips:
        return
    symbols = set(rules.funds.values())
    stray = sorted((set(plan.targets) | {leg.symbol for leg in plan.dips}) - symbols)
    if stray:
        raise RuleBreach(f"symbols {stray} are not tradable in {rules.name}")
    for symbol, target in sorted(plan.targets.items()):
        _check_weight(symbol, target, rules, exempt)
    for leg in plan.dips:
        _check_weight(leg.symbol, leg.weight, rules, exempt)
    opening = {**weights, **plan.targets}
    _check_gross(sum(abs(w) for w in opening.values()), rules, "at the open")
    with_dips = {**opening, **{leg.symbol: max(leg.weight, opening.get(leg.symbol, 0.0)) for leg in plan.dips}}
    _check_gross(sum(abs(w) for w in with_dips.values()), rules, "if every buy_dips fills", lower=False)


def _check_weight(symbol: str, weight: float, rules: RuleSet, exempt: bool) -> None:
    if weight < 0 and not rules.allow_short:
        raise RuleBreach(f"{symbol}: short {weight:.2%} in the long-only league {rules.name}")
    if weight and not exempt and not rules.min_weight <= abs(weight) <= rules.max_weight:
        raise RuleBreach(
            f"{symbol}: weight {weight:.2%} outside {rules.min_weight:.0%}-{rules.max_weight:.0%} of equity")


def _check_gross(gross: float, rules: RuleSet, when: str, *, lower: bool = True) -> None:
    eps = 1e-9
    if gross > rules.max_gross + eps:
        raise RuleBreach(f"gross exposure {gross:.2%} {when} above {rules.max_gross:.0%} of equity")
    if lower and gross < rules.min_gross - eps:
        raise RuleBreach(f"gross exposure {gross:.2%} {when} below {rules.min_gross:.0%} of equity")


def as_weights(values: Mapping[str, Decimal], equity: Decimal) -> dict[str, float]:
    """Position values → weights of equity (floats for planning only; money stays Decimal)."""
    return {s: float(v / equity) for s, v in values.items() if v}
