"""The forecasts producer for ``league publish``: the book → ``council-forecasts.csv``."""

from __future__ import annotations

from pathlib import Path

from league.forecasts import write_forecasts
from league.season import BookView


def export_forecasts(data_dir: Path, target: Path) -> int:
    """Write the CSV from the sealed book of DATA (read-only: safe while the daemon writes)."""
    return write_forecasts(BookView.open(Path(data_dir)), Path(target))
