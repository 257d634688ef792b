"""Registered predictions about the league itself (docs/predictions.md): the registry's format
(``registry.py``), the scorecard (``scorecard.py``). The resolver is the published stand-alone tool
``league/verify/tools/resolve_predictions.py``: the league runs the very code a reader re-runs."""
