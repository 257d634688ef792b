"""`league init`: a live folder and a demo folder, each loadable, each with its own settings."""

from __future__ import annotations

import json
from pathlib import Path

from league.config import load_config
from league.folder import init_folder
from league.scoring.climatology import SHIPPED_HISTORY, sha256_ok
from league.verify.chain import verify


def test_live_init(tmp_path: Path) -> None:
    config_dir, data_dir = init_folder(tmp_path / "live", history=SHIPPED_HISTORY)  # offline: no yfinance fetch
    cfg = load_config(config_dir)
    assert not (config_dir / "roster.demo.toml").exists()
    assert cfg.settings.prices.provider == "yahoo" and not cfg.settings.stamps.local_tsa
    assert (data_dir / "keys" / "league-signing.pem").stat().st_mode & 0o077 == 0
    assert sha256_ok(json.loads((data_dir / "climatology.json").read_text()))
    for book in ("council-book.jsonl", "asks.jsonl"):
        assert verify(data_dir / "books" / book).ok


def test_demo_init_is_offline(tmp_path: Path) -> None:
    config_dir, _ = init_folder(tmp_path / "demo", demo=True, seed=11)
    cfg = load_config(config_dir)
    assert cfg.settings.prices.provider == "replay" and cfg.settings.prices.seed == 11
    assert cfg.settings.stamps.local_tsa and cfg.settings.stamps.ots_calendars == ()
    assert cfg.settings.clock.mode == "simulated"
    assert all(s.adapter in ("scripted", "coin", "momentum", "climatology", "naive", "ets") for s in cfg.roster.seat)
