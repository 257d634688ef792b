"""Portfolio leagues: sealed decisions drive paper accounts under one versioned rule set (portfolio.md).

Pure domain: no I/O and no clock. Prices come through :class:`~league.portfolio.interface.BarSource`;
the integrator seals what :mod:`league.portfolio.seal` returns and writes what
:mod:`league.portfolio.publish` renders. ``league/verify/tools/replay.py`` recomputes every account
from the published files alone.
"""

from league.portfolio.bills import BillRates
from league.portfolio.decisions import ActionCell, Decision, RuleBreach, decision_from_reply
from league.portfolio.interface import Bar, BarSource, PortfolioError
from league.portfolio.rules import ARENA_3, PRO_1, RULE_SETS, RuleSet, protocol_document, rule_set
from league.portfolio.season import Season, SessionOutcome

__all__ = [
    "ARENA_3", "PRO_1", "RULE_SETS", "ActionCell", "Bar", "BarSource", "BillRates", "Decision", "PortfolioError",
    "RuleBreach", "RuleSet", "Season", "SessionOutcome", "decision_from_reply", "protocol_document", "rule_set",
]
