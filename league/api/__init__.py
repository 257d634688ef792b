"""The read-only HTTP API and the league page (``league serve``); see :mod:`league.api.app`.

The package itself imports no web stack: ``league tail`` (:mod:`league.api.follow`) is an HTTP client of this
API and runs on the lean install, without the daemon extra that FastAPI comes with. ``create_app`` is
therefore loaded on first use, through :func:`league.extras.extra`, so a lean install asking for it gets the
install command instead of a traceback.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from league.api.errors import ApiError
from league.extras import extra

if TYPE_CHECKING:
    from league.api.app import create_app

__all__ = ["ApiError", "create_app"]


def __getattr__(name: str) -> object:
    """``create_app``, imported from :mod:`league.api.app` when it is first asked for (PEP 562)."""
    if name == "create_app":
        with extra("daemon"):
            return importlib.import_module("league.api.app").create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
