"""`league serve`, `status` and `tail --rows` accept the folder `league demo --out DIR` wrote:
DIR holds config/ and data/, and each verb finds what it needs inside."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from league.api.paths import DataPaths
from league.cli import app


def test_the_demo_out_folder_is_accepted_where_a_data_or_config_folder_is(demo_league: dict[str, object]) -> None:
    data = Path(str(demo_league["data"]))
    out = data.parent  # what `league demo --out DIR` names DIR: DIR/config and DIR/data
    paths = DataPaths.resolve(out)
    assert paths.book == data.resolve() / "books" / "council-book.jsonl"
    assert paths.public == data.resolve() / "public"
    status = CliRunner().invoke(app, ["status", "--config", str(out)], env={"COLUMNS": "240"})
    assert status.exit_code == 0, status.output
    assert "each seat's last answer" in status.stdout and "next jobs" in status.stdout  # found DIR/config
    rows = CliRunner().invoke(app, ["tail", "--rows", str(out), "--format", "ndjson"])
    assert rows.exit_code == 0 and rows.stdout.count("\n") > 100
