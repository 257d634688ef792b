"""The shadow accounts of a council talk week and F23. Pure.

Each week four kinds of weight vectors are compared over the same price path: the chair's council
portfolio (``council``), each seat's portfolio as it was sealed (``sealed:<letter>``), a critiqued seat's
portfolio with the week's critiques of it applied (``critiqued:<letter>``) and the portfolio it stated in its
reply (``stated:<letter>``); :func:`week_accounts` builds them under these keys.

:func:`shadow_returns` is the reader's simple comparison: buy-and-hold from the first close to the last, no
fees, no bills, cash earning nothing. When the integrator runs the accounts through the paper-portfolio
engine (league/portfolio) the engine's fees, bills and fills apply and its figures are the accounts'
official ones; this simple return is the one a reader recomputes from closes alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from league.talk import TalkError
from league.talk.critiques import Critique, apply_critique, check_weights

COUNCIL = "council"


def sealed_key(letter: str) -> str:
    """The account of a seat's sealed portfolio."""
    return f"sealed:{letter}"


def critiqued_key(letter: str) -> str:
    """The account of a seat's portfolio with the chair's critiques applied."""
    return f"critiqued:{letter}"


def stated_key(letter: str) -> str:
    """The account of the portfolio a critiqued seat stated in its reply."""
    return f"stated:{letter}"


def week_accounts(council: Mapping[str, float], sealed_by_letter: Mapping[str, Mapping[str, float]],
                  critiques: Sequence[Critique], stated_by_letter: Mapping[str, Mapping[str, float]],
                  fund_of_market: Mapping[str, str]) -> dict[str, dict[str, float]]:
    """Every shadow account of a week, keyed as the module says. A seat critiqued twice has both critiques
    applied in the chair's order; a critiqued seat without a usable reply has no ``stated`` account."""
    accounts: dict[str, dict[str, float]] = {COUNCIL: dict(council)}
    for letter, weights in sealed_by_letter.items():
        accounts[sealed_key(letter)] = dict(weights)
    for critique in critiques:
        if critique.target not in sealed_by_letter:
            raise TalkError(f"a critique targets {critique.target}, which holds no sealed portfolio")
        key = critiqued_key(critique.target)
        base = accounts.get(key, accounts[sealed_key(critique.target)])
        accounts[key] = apply_critique(base, critique, fund_of_market)
    for letter, weights in stated_by_letter.items():
        accounts[stated_key(letter)] = dict(weights)
    return accounts


def shadow_returns(weights_by_account: Mapping[str, Mapping[str, float]],
                   closes_by_fund: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """Each account's simple buy-and-hold return over the week's price path, as a fraction (0.01 is 1%).

    sum over funds of weight/100 x (last close / first close - 1); cash (100 minus the weights) earns 0.
    A held fund without at least two positive closes is an error: a return cannot be made up."""
    growth: dict[str, float] = {}
    out: dict[str, float] = {}
    for account, weights in weights_by_account.items():
        check_weights(weights, f"account {account}")
        total = 0.0
        for fund, w in weights.items():
            if w == 0:
                continue
            if fund not in growth:
                closes = closes_by_fund.get(fund)
                if closes is None or len(closes) < 2:
                    raise TalkError(f"fund {fund} has no price path (at least two closes)")
                if closes[0] <= 0 or closes[-1] <= 0:
                    raise TalkError(f"fund {fund}'s closes are not positive prices")
                growth[fund] = closes[-1] / closes[0] - 1.0
            total += w / 100.0 * growth[fund]
        out[account] = total
    return out


def f23(returns: Mapping[str, float], sealed: str) -> dict[str, float]:
    """F23: each other account's return minus the return of the account ``sealed`` (the weights as sealed)."""
    if sealed not in returns:
        raise TalkError(f"no return for the sealed account {sealed}")
    base = returns[sealed]
    return {account: r - base for account, r in returns.items() if account != sealed}
