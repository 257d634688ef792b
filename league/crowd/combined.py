"""Two crowd providers as one: the configured provider first, its fallback venue for the markets it lacks.

The composition root builds it when ``[crowd] fallback`` names a venue (Kalshi behind Polymarket by default),
each side a registered provider; neither provider knows of the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

import structlog

from league.crowd.interface import CrowdError, CrowdProvider, CrowdQuote

log = structlog.get_logger(__name__)


class CombinedCrowd:
    """Prefer ``primary`` (Polymarket); ask ``fallback`` (Kalshi) only for markets the primary lacks. A quote is
    resolved and priced by the provider of its venue (each provider's ``venue`` attribute names it)."""

    def __init__(self, primary: CrowdProvider, fallback: CrowdProvider) -> None:
        self._primary = primary
        self._fallback = fallback

    def quotes(self, session: date, markets: Sequence[str], now: datetime) -> list[CrowdQuote]:
        try:
            first = self._primary.quotes(session, markets, now)
        except CrowdError as exc:
            log.warning("primary crowd failed; using the fallback for every market", error=exc.message)
            first = []
        covered = {q.market for q in first}
        rest = [m for m in markets if m not in covered]
        return first + (self._fallback.quotes(session, rest, now) if rest else [])

    def _of(self, quote: CrowdQuote) -> CrowdProvider:
        """The provider of the quote's venue (a provider's ``venue`` attribute names it)."""
        for provider in (self._primary, self._fallback):
            if getattr(provider, "venue", None) == quote.venue:
                return provider
        raise CrowdError(f"no provider here resolves {quote.venue} quotes ({quote.contract_id})")

    def resolution(self, quote: CrowdQuote) -> bool | None:
        return self._of(quote).resolution(quote)

    def price_at(self, quote: CrowdQuote, minute: datetime) -> float | None:
        return self._of(quote).price_at(quote, minute)
