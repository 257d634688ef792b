"""The council talk (docs/experiments.md, "Council talk (the domain)"): the weekly track where a rotating chair
reads the council's portfolios under letters, writes the council's portfolio and two or three critiques, and
each critiqued seat states the portfolio it will hold.

This package is the track's pure domain: the chair's rotation and the letters (rotation.py), the asks' texts
(asks.py), the total parsers of the replies (parse.py), the critiques' rules and F22 (critiques.py), the shadow
accounts' simple returns and F23 (shadow.py) and the published report (report.py). No I/O, no clock, no
network: the job that asks, seals and publishes stands above it and passes in everything it reads.
"""

from __future__ import annotations

from league.errors import LeagueError


class TalkError(LeagueError):
    """A value handed to the council talk's domain breaks its rules (a bad weight, an unknown fund, no seats).

    The parsers never raise it: a reply that breaks a rule is a parsed failure, kept with its raw text."""
