"""The paper-account engine: execution in the opening window, costs, bill interest, marks (pure).

Nothing here reads a clock, a file or the network. Prices arrive through :class:`BarSource`
(re-exported from :mod:`league.portfolio.interface`); every function takes an account state and
returns a new one, so a season replays identically and a rejected decision provably changes nothing.

One session for one account, in order:
1. cash earns the bill rate for the calendar days since the previous session (actual/360);
2. a decision (if any) is planned at the first 1-minute price at or after ``max(decision time, 09:30 ET)``
   and no later than 09:45 ET, checked against the rules, sized net of its own 0.1% costs, executed,
   and checked again at the executed prices — any breach rejects it whole and nothing trades;
3. ``buy_dips`` legs fill later in the session if the indicator touches the sealed entry, at that level
   (translated to the fund by the ratio of the two opening prices, kept inside the fund's bar);
4. the account is marked at the close, beside its no-trade shadow (the pre-decision book at the same close).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from decimal import Decimal
from zoneinfo import ZoneInfo

from league.portfolio.bills import BillRates
from league.portfolio.decisions import Decision, DipLeg, Plan, RuleBreach, as_weights, plan_decision
from league.portfolio.interface import Bar, BarSource, PortfolioError, SessionBars
from league.portfolio.money import ZERO, cents, fee_of, interest_of, price_of, qty_toward_zero, settle
from league.portfolio.rules import RuleSet

__all__ = [
    "AccountState", "Bar", "BarSource", "Execution", "Fill", "Mark", "PriceBook", "Rejection", "StepResult",
    "ET", "execute", "mark", "open_account", "step",
]

ET = ZoneInfo("America/New_York")
CLOSE_ET = time(16, 0)
SIZING_ROUNDS = 6


@dataclass(frozen=True)
class AccountState:
    """An account between sessions. Mappings are never mutated: every change builds a new state."""

    league: str
    account: str
    capital: Decimal
    opened: date
    cash: Decimal
    positions: Mapping[str, Decimal] = field(default_factory=dict)
    last_session: date | None = None
    last_prices: Mapping[str, Decimal] = field(default_factory=dict)
    peak: Decimal = ZERO
    fees_paid: Decimal = ZERO
    traded: Decimal = ZERO
    fills: int = 0

    def value_at(self, prices: Mapping[str, Decimal]) -> Decimal:
        """value = cash + Σ qty × price (exact; callers round to cents only when publishing)."""
        return self.cash + sum((q * prices[s] for s, q in self.positions.items()), ZERO)


@dataclass(frozen=True)
class Fill:
    league: str
    account: str
    session: date
    time: datetime
    seq: int
    symbol: str
    market: str
    side: str
    qty: Decimal
    price: Decimal
    amount: Decimal
    fee: Decimal
    fee_rate: Decimal
    cash_after: Decimal
    position_after: Decimal
    leg: str


@dataclass(frozen=True)
class Execution:
    """An accepted decision: its plan, the equity it was sized on, its fills and the weights after."""

    decision: Decision
    plan: Plan
    executed_at: datetime
    equity: Decimal
    fills: tuple[Fill, ...]
    weights_after: Mapping[str, float]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rejection:
    league: str
    account: str
    decision: Decision
    reason: str


@dataclass(frozen=True)
class Mark:
    league: str
    account: str
    session: date
    capital: Decimal
    opened: date
    bill_rate: Decimal
    days: int
    interest: Decimal
    cash: Decimal
    value: Decimal
    positions: Mapping[str, Decimal]
    prices: Mapping[str, Decimal]
    shadow_value: Decimal
    fees_total: Decimal
    traded_total: Decimal
    peak: Decimal
    stale: tuple[str, ...] = ()

    @property
    def drawdown(self) -> Decimal:
        return ZERO if self.peak <= 0 else max(ZERO, 1 - self.value / self.peak)

    @property
    def weights(self) -> dict[str, Decimal]:
        """qty × close / value, with value as published (cents), so a reader's division is ours."""
        value = cents(self.value)
        if value <= 0:
            return {}
        return {s: q * self.prices[s] / value for s, q in sorted(self.positions.items())}


@dataclass(frozen=True)
class StepResult:
    state: AccountState
    execution: Execution | None
    rejection: Rejection | None
    mark: Mark


class PriceBook:
    """Memoised bar lookups for one league run; pure apart from its cache (no clock, no I/O of its own)."""

    def __init__(self, source: BarSource) -> None:
        self._source = source
        self._bars: dict[tuple[str, date], tuple[Sequence[Bar], Sequence[datetime]]] = {}

    def _get(self, symbol: str, session: date) -> tuple[Sequence[Bar], Sequence[datetime]]:
        key = (symbol, session)
        if key not in self._bars:
            bars = self._source.bars(symbol, session)
            self._bars[key] = (bars, bars.starts if isinstance(bars, SessionBars) else [b.start for b in bars])
        return self._bars[key]

    def first_at_or_after(self, symbol: str, session: date, t0: datetime, until: datetime) -> Bar | None:
        """The first bar starting at/after ``t0`` and no later than ``until``."""
        bars, starts = self._get(symbol, session)
        i = bisect.bisect_left(starts, t0)
        return bars[i] if i < len(bars) and starts[i] <= until else None

    def at_or_before(self, symbol: str, session: date, t: datetime) -> Bar | None:
        bars, starts = self._get(symbol, session)
        i = bisect.bisect_right(starts, t) - 1
        return bars[i] if i >= 0 else None

    def close(self, symbol: str, session: date) -> Decimal | None:
        """The close of the last bar that starts before 16:00 ET (early closes simply end sooner)."""
        bar = self.at_or_before(symbol, session, _et(session, CLOSE_ET) - _MINUTE)
        return price_of(bar.close) if bar else None

    def first_touch(self, symbol: str, session: date, t0: datetime, level: float) -> Bar | None:
        """The first bar from ``t0`` to the close whose low reaches ``level``."""
        bars, starts = self._get(symbol, session)
        end = _et(session, CLOSE_ET)
        lows = bars.lows if isinstance(bars, SessionBars) else [b.low for b in bars]  # columns: no bar made
        for j in range(bisect.bisect_left(starts, t0), len(bars)):
            if starts[j] >= end:
                return None
            if lows[j] <= level:
                return bars[j]
        return None


_MINUTE = datetime(2000, 1, 1, 0, 1, tzinfo=UTC) - datetime(2000, 1, 1, tzinfo=UTC)


def _et(session: date, at: time) -> datetime:
    return datetime.combine(session, at, tzinfo=ET).astimezone(UTC)


def _window(rules: RuleSet, session: date) -> tuple[datetime, datetime]:
    start = time.fromisoformat(rules.window_start_et)
    end = time.fromisoformat(rules.window_end_et)
    return _et(session, start), _et(session, end)


def open_account(rules: RuleSet, account: str, session: date) -> AccountState:
    """A fresh account holding the league's capital in cash from ``session``'s open."""
    return AccountState(league=rules.name, account=account, capital=rules.capital, opened=session,
                        cash=rules.capital, peak=rules.capital)


def accrue(state: AccountState, session: date, bills: BillRates) -> tuple[AccountState, Decimal, int, Decimal]:
    """Credit bill interest for the days since the previous session (0 on the first)."""
    days = (session - state.last_session).days if state.last_session else 0
    if days < 0:
        raise PortfolioError(f"{state.account}: session {session} is before {state.last_session}")
    rate = bills.rate_on(session)
    interest = interest_of(state.cash, rate, days)
    return replace(state, cash=state.cash + interest), interest, days, rate


def step(state: AccountState, session: date, decision: Decision | None, rules: RuleSet,
         prices: PriceBook, bills: BillRates) -> StepResult:
    """One account, one session: interest, the decision (executed or rejected whole), the closing mark."""
    if decision is not None and decision.session != session:
        raise PortfolioError(f"{state.account}: decision for {decision.session} offered on {session}")
    accrued, interest, days, rate = accrue(state, session, bills)
    execution: Execution | None = None
    rejection: Rejection | None = None
    after = accrued
    if decision is not None:
        decision = decision.for_league(rules.name)
        try:
            after, execution = execute(accrued, decision, rules, prices)
        except RuleBreach as breach:
            rejection = Rejection(league=rules.name, account=state.account, decision=decision, reason=breach.message)
    marked, closing = mark(after, accrued, session, prices, rate, days, interest)
    return StepResult(state=marked, execution=execution, rejection=rejection, mark=closing)


def execute(state: AccountState, decision: Decision, rules: RuleSet, prices: PriceBook) -> tuple[
        AccountState, Execution]:
    """Plan, size, fill and re-check one decision; raise RuleBreach (state untouched) on any breach."""
    session = decision.session
    start, end = _window(rules, session)
    t0 = max(decision.at, start)
    if t0 > end:
        raise RuleBreach(f"decision sealed at {decision.at.isoformat()} is after the {rules.window_end_et} ET window")
    held = [s for s, q in state.positions.items() if q]
    quotes = _opening_quotes(prices, session, t0, end, sorted(set(held) | set(rules.funds.values())))
    _require_quotes(held, quotes, rules)
    equity = state.value_at({s: quotes[s][1] for s in held})
    if equity <= 0:
        raise RuleBreach(f"equity {cents(equity)} is not positive; nothing can be traded")
    weights = as_weights({s: q * quotes[s][1] for s, q in state.positions.items()}, equity)
    plan = plan_decision(decision, rules, weights)
    needed = set(plan.targets) | {leg.symbol for leg in plan.dips}
    _require_quotes(needed, quotes, rules)
    after, fills = _rebalance(state, plan, rules, decision, quotes)
    equity_after = after.value_at({s: quotes[s][1] for s in after.positions})
    _check_executed(after, equity_after, {f.symbol for f in fills}, quotes, rules, decision.exempt_limits)
    after, dip_fills, notes = _fill_dips(after, plan.dips, equity_after, decision, rules, prices, quotes, t0)
    all_fills = fills + dip_fills
    weights_after = as_weights({s: q * quotes[s][1] for s, q in after.positions.items()}, equity_after)
    return after, Execution(decision=decision, plan=plan, executed_at=t0, equity=equity, fills=all_fills,
                            weights_after=weights_after, notes=plan.notes + notes)


def _require_quotes(symbols: Sequence[str] | set[str], quotes: Mapping[str, object], rules: RuleSet) -> None:
    missing = sorted(s for s in symbols if s not in quotes)
    if missing:
        raise RuleBreach(f"no 1-minute price for {missing} between {rules.window_start_et} and "
                         f"{rules.window_end_et} ET; the decision cannot execute")


def _opening_quotes(prices: PriceBook, session: date, t0: datetime, end: datetime,
                    symbols: Sequence[str]) -> dict[str, tuple[datetime, Decimal]]:
    """Each symbol's first 1-minute open at/after t0 within the window (absent when none)."""
    quotes: dict[str, tuple[datetime, Decimal]] = {}
    for symbol in symbols:
        bar = prices.first_at_or_after(symbol, session, t0, end)
        if bar is not None:
            quotes[symbol] = (bar.start, price_of(bar.open))
    return quotes


def _sized_weight(weight: float, rules: RuleSet, exempt: bool) -> float:
    """Pull a target a hair toward the middle of its band so truncation and cents cannot cross a limit."""
    if weight == 0:
        return 0.0
    size = abs(weight)
    middle = (rules.min_weight + rules.max_weight) / 2
    if exempt:
        # a one-fund benchmark: stay under 100% where cash may not go negative, over it where gross must reach it
        grow = rules.allow_short
    else:
        grow = size < middle
    size = size + rules.inward_margin if grow else size - rules.inward_margin
    return math.copysign(size, weight)


def _target_quantities(state: AccountState, plan: Plan, rules: RuleSet, exempt: bool,
                       quotes: Mapping[str, tuple[datetime, Decimal]]) -> dict[str, Decimal]:
    """Quantities that hit the target weights of equity *after* their own costs (a short fixed point)."""
    px = {s: float(quotes[s][1]) for s in plan.targets}
    current = {s: float(state.positions.get(s, ZERO)) for s in plan.targets}
    equity = float(state.value_at({s: quotes[s][1] for s in state.positions if state.positions[s]}))
    rate = float(rules.cost_rate)
    sized = {s: _sized_weight(w, rules, exempt) for s, w in plan.targets.items()}
    net = equity
    for _ in range(SIZING_ROUNDS):
        qty = {s: w * net / px[s] for s, w in sized.items()}
        net = equity - rate * sum(abs(qty[s] - current[s]) * px[s] for s in qty)
    return {s: qty_toward_zero(w * net / px[s]) for s, w in sized.items()}


def _rebalance(state: AccountState, plan: Plan, rules: RuleSet, decision: Decision,
               quotes: Mapping[str, tuple[datetime, Decimal]]) -> tuple[AccountState, tuple[Fill, ...]]:
    """Sells first (they fund the buys), then buys; each fill pays its own cost."""
    targets = _target_quantities(state, plan, rules, decision.exempt_limits, quotes)
    deltas = {s: q - state.positions.get(s, ZERO) for s, q in targets.items()}
    order = sorted((s for s, d in deltas.items() if d), key=lambda s: (deltas[s] > 0, s))
    fills: list[Fill] = []
    for symbol in order:
        when, price = quotes[symbol]
        state, fill = _fill(state, symbol, deltas[symbol], price, when, decision, rules, "open")
        fills.append(fill)
    return state, tuple(fills)


def _fill(state: AccountState, symbol: str, delta: Decimal, price: Decimal, when: datetime,
          decision: Decision, rules: RuleSet, leg: str) -> tuple[AccountState, Fill]:
    notional = settle(delta, price)
    fee = fee_of(notional, rules.cost_rate)
    cash = state.cash - notional - fee
    position = state.positions.get(symbol, ZERO) + delta
    positions = {s: q for s, q in {**state.positions, symbol: position}.items() if q}
    new = replace(state, cash=cash, positions=positions, fees_paid=state.fees_paid + fee,
                  traded=state.traded + abs(notional), fills=state.fills + 1,
                  last_prices={**state.last_prices, symbol: price})
    fill = Fill(league=rules.name, account=state.account, session=decision.session, time=when, seq=new.fills,
                symbol=symbol, market=rules.market_of[symbol], side="buy" if delta > 0 else "sell",
                qty=abs(delta), price=price, amount=abs(notional), fee=fee, fee_rate=rules.cost_rate, cash_after=cash,
                position_after=position, leg=leg)
    return new, fill


def _check_executed(after: AccountState, equity: Decimal, traded: set[str],
                    quotes: Mapping[str, tuple[datetime, Decimal]], rules: RuleSet, exempt: bool) -> None:
    """The rules hold at the executed prices, or the whole decision is void."""
    if not traded:
        return
    if equity <= 0:
        raise RuleBreach("equity after execution is not positive")
    if not rules.allow_short and after.cash < 0:
        raise RuleBreach(f"cash {cents(after.cash)} would be negative after costs in {rules.name}")
    value = {s: q * quotes[s][1] for s, q in after.positions.items()}
    for symbol in sorted(traded):
        w = value.get(symbol, ZERO) / equity
        if w and not exempt and not rules.min_weight <= abs(float(w)) <= rules.max_weight:
            raise RuleBreach(f"{symbol}: executed weight {float(w):.4%} outside the band after rounding")
    gross = float(sum((abs(v) for v in value.values()), ZERO) / equity)
    if not rules.min_gross <= gross <= rules.max_gross:
        raise RuleBreach(f"executed gross exposure {gross:.4%} outside {rules.min_gross:.0%}-{rules.max_gross:.0%}")


def _fill_dips(state: AccountState, legs: Sequence[DipLeg], equity: Decimal, decision: Decision, rules: RuleSet,
               prices: PriceBook, quotes: Mapping[str, tuple[datetime, Decimal]], t0: datetime) -> tuple[
        AccountState, tuple[Fill, ...], tuple[str, ...]]:
    """Conditional buys: each fills at its entry level if the indicator touches it before the close."""
    fills: list[Fill] = []
    notes: list[str] = []
    for leg in sorted(legs, key=lambda leg: leg.symbol):
        outcome = _dip_fill(state, leg, equity, decision, rules, prices, quotes, t0)
        if isinstance(outcome, str):
            notes.append(outcome)
            continue
        state, fill = outcome
        fills.append(fill)
    return state, tuple(fills), tuple(notes)


def _dip_fill(state: AccountState, leg: DipLeg, equity: Decimal, decision: Decision, rules: RuleSet,
              prices: PriceBook, quotes: Mapping[str, tuple[datetime, Decimal]], t0: datetime) -> tuple[
        AccountState, Fill] | str:
    session = decision.session
    indicator = rules.indicators[leg.market]
    ref = prices.first_at_or_after(indicator, session, t0, _window(rules, session)[1])
    if ref is None:
        return f"{leg.market}: no indicator price in the window; buy_dips not placed"
    if leg.entry >= ref.open:
        raise RuleBreach(f"{leg.market}: buy_dips entry {leg.entry} is not below the reference {ref.open}")
    touch = prices.first_touch(indicator, session, t0, leg.entry)
    fund_bar = prices.at_or_before(leg.symbol, session, touch.start) if touch else None
    if touch is None or fund_bar is None:
        return f"{leg.market}: entry {leg.entry} not touched; buy_dips not filled"
    level = float(quotes[leg.symbol][1]) * leg.entry / ref.open
    price = price_of(min(max(level, fund_bar.low), fund_bar.high))
    net = float(equity) * (1 - float(rules.cost_rate) * leg.weight)
    goal = qty_toward_zero(_sized_weight(leg.weight, rules, decision.exempt_limits) * net / float(price))
    delta = goal - state.positions.get(leg.symbol, ZERO)
    if delta <= 0:
        return f"{leg.market}: already at the buy_dips weight"
    after, fill = _fill(state, leg.symbol, delta, price, touch.start, decision, rules, "dips")
    weight = float(goal * price / (equity - fill.fee))
    in_band = decision.exempt_limits or rules.min_weight <= weight <= rules.max_weight
    marks = {**{s: quotes[s][1] for s in after.positions}, leg.symbol: price}
    gross = float(sum((abs(q * marks[s]) for s, q in after.positions.items()), ZERO) / (equity - fill.fee))
    if not in_band or gross > rules.max_gross or (not rules.allow_short and after.cash < 0):
        return f"{leg.market}: buy_dips fill would break the rules ({weight:.4%}); not filled"
    return after, fill


def mark(after: AccountState, before: AccountState, session: date, prices: PriceBook, rate: Decimal, days: int,
         interest: Decimal) -> tuple[AccountState, Mark]:
    """Close-of-session mark, with the no-trade shadow (``before``'s book at the same closes)."""
    symbols = sorted(set(after.positions) | set(before.positions))
    closes, stale = _closes(symbols, session, prices, after.last_prices)
    value = after.value_at(closes)
    shadow = before.value_at(closes)
    peak = max(after.peak, value)
    state = replace(after, last_session=session, last_prices={**after.last_prices, **closes}, peak=peak)
    held = {s: q for s, q in sorted(after.positions.items()) if q}
    return state, Mark(
        league=after.league, account=after.account, session=session, capital=after.capital, opened=after.opened,
        bill_rate=rate, days=days, interest=interest, cash=after.cash, value=value, positions=held,
        prices={s: closes[s] for s in held}, shadow_value=shadow, fees_total=after.fees_paid,
        traded_total=after.traded, peak=peak, stale=stale)


def _closes(symbols: Sequence[str], session: date, prices: PriceBook,
            last: Mapping[str, Decimal]) -> tuple[dict[str, Decimal], tuple[str, ...]]:
    """Each symbol's close; a missing close carries the last mark and is flagged, never invented."""
    closes: dict[str, Decimal] = {}
    stale: list[str] = []
    for symbol in symbols:
        close = prices.close(symbol, session)
        if close is None:
            if symbol not in last:
                raise PortfolioError(f"no close and no earlier mark for {symbol} on {session}")
            close = last[symbol]
            stale.append(symbol)
        closes[symbol] = close
    return closes, tuple(stale)
