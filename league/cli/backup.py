"""``league backup DEST`` and ``league restore SRC``: a league onto another (or an empty) machine."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import ConfigDir
from league.config import load_config
from league.ops.backup import backup as do_backup
from league.ops.backup import restore as do_restore


def backup(dest: Annotated[Path, typer.Argument(envvar="LEAGUE_BACKUP_DEST", help="new folder to write")],
           config: ConfigDir = Path("config")) -> None:
    """Back up the league (database first, then the books' complete lines, then the files they name)."""
    cfg = load_config(config)
    manifest = do_backup(cfg.folder, cfg.data_dir, cfg.database_url, dest)
    for book in manifest["books"]:
        typer.echo(f"{book['name']}: {book['lines']} lines, sha256 {book['sha256']}")
    typer.echo(f"backup written to {dest} (database: {manifest['database']})")


def restore(src: Annotated[Path, typer.Argument(envvar="LEAGUE_RESTORE_SRC", help="a folder `league backup` wrote")],
            config: ConfigDir = Path("config"),
            data: Annotated[Path | None, typer.Option("--data", envvar="LEAGUE_DATA",
                                                      help="data folder (default: next to --config)")] = None,
            db: Annotated[str | None, typer.Option("--db", envvar="LEAGUE_DB_URL",
                                                   help="database URL to restore into (default: SQLite in DATA)")]
            = None) -> None:
    """Restore a backup into an empty league (never a shorter book over a longer one), then verify it."""
    manifest = do_restore(src, config, data or config.parent / "data", db)
    typer.echo(f"restored {len(manifest['books'])} books and the database; every book verifies")


def register(app: typer.Typer) -> None:
    app.command("backup")(backup)
    app.command("restore")(restore)
