"""The read-only HTTP API and the league page (``league serve``); see :mod:`league.api.app`."""

from __future__ import annotations

from league.api.app import create_app
from league.api.errors import ApiError

__all__ = ["ApiError", "create_app"]
