"""`league correct price|cell`: seal a correction line (paper §3.10); the corrected line stays as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import ConfigDir
from league.extras import extra

correct_app = typer.Typer(help="Seal a correction of a sealed price or cell (the corrected line stays as it is).",
                          no_args_is_help=True)
Of = Annotated[int, typer.Option("--of", envvar="LEAGUE_CORRECT_OF", help="the book line corrected")]
Market = Annotated[str, typer.Option("--market", envvar="LEAGUE_CORRECT_MARKET", help="market code, e.g. SPX")]
Reason = Annotated[str, typer.Option("--reason", envvar="LEAGUE_CORRECT_REASON", help="why (sealed in the line)")]
Source = Annotated[str, typer.Option("--source", envvar="LEAGUE_CORRECT_SOURCE",
                                     help="where the corrected value comes from (sealed in the line)")]


def _seal(config: Path, build: object) -> None:
    with extra("daemon"):
        from league.compose import open_for_correction
        from league.jobs.correct import seal_correction
    lg = open_for_correction(config)
    try:
        line = build(lg)  # type: ignore[operator]
        sealed = seal_correction(lg, line)
    finally:
        lg.close()
    typer.echo(f"sealed correction line {sealed.n} of line {line.of}: {line.reason}")


@correct_app.command("price")
def price(of: Of, market: Market, reason: Reason, source: Source,
          field: Annotated[str, typer.Option("--field", envvar="LEAGUE_CORRECT_FIELD",
                                             help="reference or close")],
          value: Annotated[float, typer.Option("--value", envvar="LEAGUE_CORRECT_VALUE", help="the corrected price")],
          config: ConfigDir = Path("config")) -> None:
    """Correct an event's reference or close price in the score line --of."""
    with extra("daemon"):
        from league.jobs.correct import price_correction
    _seal(config, lambda lg: price_correction(lg, of=of, market=market, field=field, value=value, source=source,
                                              reason=reason))


@correct_app.command("cell")
def cell(of: Of, market: Market, reason: Reason, source: Source,
         horizon: Annotated[str, typer.Option("--horizon", envvar="LEAGUE_CORRECT_HORIZON", help="1d 1w 1m 6m")],
         prob_up: Annotated[float, typer.Option("--prob-up", envvar="LEAGUE_CORRECT_PROB_UP",
                                                help="the probability the cell should hold (0-100)")],
         config: ConfigDir = Path("config")) -> None:
    """Correct one cell of the answer line --of."""
    with extra("daemon"):
        from league.jobs.correct import cell_correction
    _seal(config, lambda lg: cell_correction(lg, of=of, market=market, horizon=horizon, source=source,
                                             cell={"prob_up": prob_up, "cell_status": "elicited"}, reason=reason))


def register(app: typer.Typer) -> None:
    app.add_typer(correct_app, name="correct")
