"""The league's adapters by entry point, the same one way as the seats (:mod:`league_agents.plugins`).

* ``forecast_league.prices`` — price providers: a factory ``(config, calendar, mirrors, anchor) -> PriceSource``;
* ``forecast_league.crowd`` — crowd providers: a factory ``(config, prices, calendar) -> CrowdProvider``
  (``provider = "none"`` is no provider, not an adapter);
* ``forecast_league.stamps`` — stamp backends: the backend class of each kind (``rfc3161``,
  ``local_tsa``, ``ots``, ``rekor``), built by the stamper from ``[stamps]``.

This project's adapters are declared in ``pyproject.toml``; another package adds one by declaring an
entry point in the group. The composition root loads only the ones the configuration names; the
configuration refuses a name nobody registered, listing the names that are.
"""

from __future__ import annotations

from league.errors import ConfigError
from league_agents.plugins import PluginError, Plugins

PRICES = Plugins("forecast_league.prices", "price provider")
CROWD = Plugins("forecast_league.crowd", "crowd provider")
STAMPS = Plugins("forecast_league.stamps", "stamp backend")
NO_CROWD = "none"


def load(plugins: Plugins, name: str, where: str) -> object:
    """The adapter ``name`` of ``plugins``; a failure is a ConfigError naming the setting ``where``."""
    try:
        return plugins.load(name)
    except PluginError as exc:
        raise ConfigError(f"{where}: {exc.message}", fix=exc.fix) from exc
