"""Live orders: an immediate-or-cancel buy on Polymarket's CLOB through py-clob-client-v2.

Only built when the operator turns live trading on (``[venue] live_trading = true``) and gives the
wallet key in the environment variable ``[venue] key_env`` (never in a file the league writes).
py-clob-client 0.34 cannot place orders since CLOB V2 (vendors.md), so this adapter uses
py-clob-client-v2 (extra ``polymarket-live``, imported lazily): ``ClobClient(host, chain_id, key,
signature_type, funder)``, ``set_api_creds(create_or_derive_api_key())``, then
``create_and_post_market_order(MarketOrderArgsV2(token_id, amount=stake, side=BUY, price=limit,
order_type=FAK), PartialCreateOrderOptions(tick_size), FAK)``. A fill-and-kill (FAK) order is the
CLOB's immediate-or-cancel: what cannot fill at or below ``price`` now is cancelled. The answer's
``makingAmount`` (USDC paid) and ``takingAmount`` (shares received) become the :class:`Fill`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import ParamSpec, TypeVar

from league.contest.config import Venue
from league.contest.markets.interface import Market, OrderBook
from league.contest.markets.orders import Fill, OrderError
from league.extras import extra, keeping_recursion_limit
from league.jsonvalue import as_float

P = ParamSpec("P")
R = TypeVar("R")


def _amount(resp: Mapping[str, object], key: str) -> float:
    try:
        return as_float(resp.get(key) or 0.0)
    except (TypeError, ValueError) as exc:
        raise OrderError(f"CLOB order answer: {key} {resp.get(key)!r} is not a number") from exc


def fill_from(resp: object, limit: float) -> Fill:
    """Read a POST /order answer; a refusal becomes an OrderError the agent is told about."""
    if not isinstance(resp, dict):
        raise OrderError(f"CLOB order answer is not an object: {str(resp)[:200]}")
    if not resp.get("success", False) or resp.get("errorMsg"):
        raise OrderError(f"the CLOB refused the order: {resp.get('errorMsg') or resp.get('error') or resp}")
    return Fill(shares=_amount(resp, "takingAmount"), spent=_amount(resp, "makingAmount"), limit=limit,
                order_id=str(resp.get("orderID", "")))


class LiveClobBroker:
    """The live :class:`~league.contest.markets.orders.Broker` (see the module docstring)."""

    def __init__(self, venue: Venue, *, key: str | None = None) -> None:
        if not venue.live_trading:
            raise OrderError("live trading is off; bets are paper fills",
                             fix="an operator sets [venue] live_trading = true to place real orders")
        key = key or os.environ.get(venue.key_env)
        if not key:
            raise OrderError(f"live trading needs the wallet key in ${venue.key_env}",
                             fix=f"export {venue.key_env}=0x… in the daemon's environment")
        with extra("polymarket-live"), keeping_recursion_limit():
            from py_clob_client_v2.client import ClobClient
        self._client = ClobClient(venue.clob_url, chain_id=venue.chain_id, key=key,
                                  signature_type=venue.signature_type, funder=venue.funder)
        self._client.set_api_creds(self._call(self._client.create_or_derive_api_key))

    @staticmethod
    def _call(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        with extra("polymarket-live"), keeping_recursion_limit():
            from py_clob_client_v2.exceptions import PolyApiException, PolyException
        try:
            return fn(*args, **kwargs)
        except PolyApiException as exc:
            raise OrderError(f"CLOB: HTTP {exc.status_code}: {exc.error_msg}") from exc
        except (PolyException, KeyError, TypeError, ValueError) as exc:
            raise OrderError(f"CLOB: {exc!r}") from exc

    def buy_ioc(self, market: Market, outcome: str, book: OrderBook, limit: float, stake: float,
                client_id: str) -> Fill:
        with extra("polymarket-live"), keeping_recursion_limit():
            from py_clob_client_v2.clob_types import MarketOrderArgsV2, OrderType, PartialCreateOrderOptions
        args = MarketOrderArgsV2(token_id=market.token_for(outcome), amount=stake, side="BUY",
                                 price=round(limit, 4), order_type=OrderType.FAK)
        options = PartialCreateOrderOptions(tick_size=f"{book.tick_size:g}")
        resp = self._call(self._client.create_and_post_market_order, args, options=options,
                          order_type=OrderType.FAK)
        return fill_from(resp, limit)

