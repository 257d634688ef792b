"""The crowd port: prediction-market quotes for the day's contracts (scoring.md §8).

Quotes are recorded at ask time and sealed in the run line's ``crowd`` field; the seats never see
the prices, only the contracts and their resolution rules. See docs/crowd.md.
"""

from league.crowd.interface import CrowdError, CrowdProvider, CrowdQuote

__all__ = ["CrowdError", "CrowdProvider", "CrowdQuote"]
