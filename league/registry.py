"""The league's adapters by entry point, the same one way as the seats (:mod:`league_agents.plugins`).

* ``forecast_league.prices`` — price providers: a factory ``(config, calendar, mirrors, anchor) -> PriceSource``;
* ``forecast_league.crowd`` — crowd providers: a factory ``(config, prices, calendar) -> CrowdProvider``
  (``provider = "none"`` is no provider, not an adapter); the fallback venue (``[crowd] fallback``) is one
  of them too, composed with the provider in the composition root;
* ``forecast_league.news`` — headline providers for the closed-book arm's packet: a factory
  ``(config) -> NewsSource`` (``feeds``: the operator's RSS/Atom feeds; ``recorded``: feed files kept in the
  data folder, the demo's and the tests'); ``provider = "none"`` is no provider;
* ``forecast_league.stamps`` — stamp backends: the backend class of each kind (``rfc3161``,
  ``local_tsa``, ``ots``, ``rekor``), built by the stamper from ``[stamps]``;
* ``forecast_league.runners`` — seat runners: ``thread`` (``(seats)``: each seat in a thread here),
  ``remote`` (``(target, clock, **settings)``: seats on a lab's workers, through the broker) and ``routed``
  (``(local, remote)``: a roster entry with ``worker = ...`` to the one, the others to the other);
* ``forecast_league.stores`` — the database index, by the scheme of its URL (``sqlite``, ``postgresql``):
  a function ``(url, *, migrate=True) -> Store``;
* ``forecast_league.contest_markets`` — the contest's market sources: ``gamma`` (``(venue)``: Polymarket's
  live Gamma and CLOB APIs) and ``recorded`` (``(folder)``: recorded answers, the demo's and the tests');
* ``forecast_league.contest_brokers`` — the contest's brokers, a factory ``(venue) -> Broker``: ``paper``
  unless the operator enabled live trading (``clob_live``).

Seat adapters (``forecast_league.seats``) and sandboxes (``forecast_league.sandboxes``) are registered
the same way one layer down (:mod:`league_agents.registry`). This project's adapters are declared in
``pyproject.toml``; another package adds one by declaring an entry point in the group. The composition root
loads only the ones the configuration names; the configuration refuses a name nobody registered, listing the
names that are.
"""

from __future__ import annotations

from league.errors import ConfigError
from league_agents.plugins import PluginError, Plugins

PRICES = Plugins("forecast_league.prices", "price provider")
CROWD = Plugins("forecast_league.crowd", "crowd provider")
NEWS = Plugins("forecast_league.news", "news provider")
STAMPS = Plugins("forecast_league.stamps", "stamp backend")
RUNNERS = Plugins("forecast_league.runners", "seat runner")
STORES = Plugins("forecast_league.stores", "database store")
CONTEST_MARKETS = Plugins("forecast_league.contest_markets", "contest market source")
CONTEST_BROKERS = Plugins("forecast_league.contest_brokers", "contest broker")
NO_CROWD = "none"
NO_NEWS = "none"
#: The seat runners by role.
THREAD_RUNNER, REMOTE_RUNNER, ROUTED_RUNNER = "thread", "remote", "routed"
#: The contest's brokers: paper unless live trading is enabled.
PAPER_BROKER, LIVE_BROKER = "paper", "clob_live"


def load(plugins: Plugins, name: str, where: str) -> object:
    """The adapter ``name`` of ``plugins``; a failure is a ConfigError naming the setting ``where``."""
    try:
        return plugins.load(name)
    except PluginError as exc:
        raise ConfigError(f"{where}: {exc.message}", fix=exc.fix) from exc
