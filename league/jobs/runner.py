"""The seat runner's names where the composition root (league/compose.py) imports them from.

The seam itself is :mod:`league.runner`, below the day's jobs, the evaluation tracks and the remote workers
that all run seats through it; import it from there.
"""

from __future__ import annotations

from league.runner import RoutedRunner as RoutedRunner
from league.runner import SeatRunner as SeatRunner
from league.runner import ThreadRunner as ThreadRunner
