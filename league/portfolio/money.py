"""Exact money arithmetic shared (by formula) with the stand-alone ``replay.py``.

Account state is kept in :class:`~decimal.Decimal` with fixed published precisions so that anyone
who applies the same four formulas to the published numbers lands on the same cent:

- prices: 4 decimals (half-even from the provider's float);  quantities: 4 decimals, toward zero;
- settled amount = round_half_up(qty × price, cents), so cash always moves in whole cents;
- fee = round_half_up(|qty × price| × fee_rate, cents);
- interest = round_half_up(cash × rate% / 100 × days / 360, cents)  (actual/360, the bill convention);
- value = cash + Σ qty × price, published rounded half-up to cents.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

PRICE_Q = Decimal("0.0001")
QTY_Q = Decimal("0.0001")
CENT = Decimal("0.01")
WEIGHT_Q = Decimal("0.000001")
ZERO = Decimal(0)


def price_of(value: float) -> Decimal:
    """A provider float as the 4-decimal price the league trades and publishes."""
    return Decimal(repr(value)).quantize(PRICE_Q, ROUND_HALF_EVEN)


def qty_toward_zero(value: float) -> Decimal:
    """Share quantity, truncated so a sized position never exceeds its target."""
    return Decimal(repr(value)).quantize(QTY_Q, ROUND_DOWN)


def cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, ROUND_HALF_UP)


def settle(qty: Decimal, price: Decimal) -> Decimal:
    """The cash a fill moves (signed like ``qty``), settled to the cent."""
    return cents(qty * price)


def fee_of(notional: Decimal, rate: Decimal) -> Decimal:
    """The cost of one fill: the rate on the traded dollars, to the cent."""
    return cents(abs(notional) * rate)


def interest_of(cash: Decimal, rate_pct: Decimal, days: int) -> Decimal:
    """Bill interest on the cash held overnight (negative cash pays the same rate)."""
    return cents(cash * rate_pct / Decimal(100) * Decimal(days) / Decimal(360))


def weight_text(value: Decimal) -> str:
    return str(value.quantize(WEIGHT_Q, ROUND_HALF_UP))
