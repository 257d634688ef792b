"""The contest's ask texts, in the project's own words, carrying every element bench.md names.

Sweep ask: per market its id, question, each outcome with its current price, the close time; the
time budget; exactly one JSON object at the end. Round ask: the stake, the market, outcomes with
prices, the close, the clock rule, how to use ``bench`` and the agent's OWN past results only.
Texts are pure functions of their inputs, so the ask's SHA-256 sealed in the book can be re-made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

SWEEP_TEMPLATE = """\
Daily forecast sweep of the forecast-league CLI contest. Three other AI agents get this same list.
For every market below, state your probability for EACH outcome. When a market resolves, your forecast is \
scored with the multi-outcome Brier score (0 is perfect, lower is better) and compared with the market price \
shown here, which is the crowd's forecast at the time of this sweep.
You may research online. You have {minutes} minutes in total for all {n} markets: budget your time and \
answer every one.

Markets (id | question | outcomes with current market price | closes, UTC):
{lines}

End your answer with exactly one JSON object and nothing after it:
{{"forecasts": [{{"id": "<market id>", "probabilities": {{"<outcome>": <probability between 0 and 1>, ...}}}}, ...]}}
Give every outcome of every market a probability; the probabilities of one market must add up to 1.
"""

ROUND_TEMPLATE = """\
Betting round of the forecast-league CLI contest: you play against three other AI agents.
Goal: pick the outcome of this prediction market most likely to pay off.
Stake: exactly one bet of {stake:g} tokens. Clock: {minutes:g} minutes from now, measured by the league's clock; \
a bet the league receives after that is refused and the round counts as forfeited. `bench market` shows seconds_left.
Market: {question}
Outcomes: {outcomes} | prices: {prices} | closes: {closes}
Inspect the market with `bench --help`, `bench market`, `bench book --outcome <label>` and \
`bench history --outcome <label>`. You may research online.
When you have decided, run: bench bet --outcome <label> --confidence <0-1> --rationale '<one or two sentences>'
Optional: --quote '<one line for your rivals, at most {quote_max} characters, no links or @mentions>' (shown on \
your public card) and --max-price <0-1> (otherwise the league buys up to the best ask + {slippage_cents:g} cents).
Quote --rationale and --quote with single quotes: the shell would otherwise expand "$" amounts.
{memory}
"""


def utc(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class SweptMarket:
    """A market as swept: what the ask shows and what the sealed file records."""

    id: str
    question: str
    outcomes: tuple[str, ...]
    prices: tuple[float, ...]
    closes: str
    category: str = ""

    def as_file_json(self) -> dict[str, object]:
        """The reference's ``markets[]`` entry: id, question, outcomes, prices_at_sweep, closes."""
        return {"id": self.id, "question": self.question, "outcomes": list(self.outcomes),
                "prices_at_sweep": list(self.prices), "closes": self.closes}


def _prices(outcomes: Sequence[str], prices: Sequence[float]) -> str:
    return ", ".join(f"{o} {p:.3f}" for o, p in zip(outcomes, prices, strict=True))


def sweep_ask(markets: Sequence[SweptMarket], time_limit_s: float) -> str:
    lines = "\n".join(f"{m.id} | {m.question} | {_prices(m.outcomes, m.prices)} | {m.closes}" for m in markets)
    return SWEEP_TEMPLATE.format(minutes=round(time_limit_s / 60), n=len(markets), lines=lines)


@dataclass(frozen=True)
class PastResult:
    """One of the agent's own earlier rounds (never another agent's)."""

    question: str
    outcome: str | None
    winner: str
    pnl: float


def memory_text(history: Sequence[PastResult]) -> str:
    if not history:
        return "This is your first round."
    wins = sum(1 for h in history if h.outcome is not None and h.outcome == h.winner)
    net = sum(h.pnl for h in history)
    lines = [f"Your own record over your last {len(history)} resolved rounds: {wins}-{len(history) - wins}, "
             f"net P&L {net:+.1f} tokens."]
    for h in history:
        pick = h.outcome if h.outcome is not None else "no bet"
        result = "won" if h.outcome is not None and h.outcome == h.winner else "lost"
        lines.append(f"- {h.question[:90]} | you picked {pick} | winner {h.winner} | {result} | P&L {h.pnl:+.1f}")
    return "\n".join(lines)


def round_ask(*, question: str, outcomes: Sequence[str], prices: Sequence[float], closes: str, stake: float,
              decision_s: float, quote_max: int, slippage: float, history: Sequence[PastResult]) -> str:
    return ROUND_TEMPLATE.format(
        stake=stake, minutes=decision_s / 60, question=question, outcomes=" / ".join(outcomes),
        prices=_prices(outcomes, prices), closes=closes, quote_max=quote_max, slippage_cents=slippage * 100,
        memory=memory_text(history),
    )
