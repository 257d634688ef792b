"""The recorded provider: the folder's feed files in name order, each named after its stem."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.config import load_config, shipped_config_dir
from league.news.interface import NewsError, NewsSource
from league.news.recorded import RecordedSource, from_config

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "news"
CUTOFF = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)


def test_every_file_in_name_order_named_after_its_stem() -> None:
    source = RecordedSource(ASSETS / "good")
    assert isinstance(source, NewsSource) and source.name == "recorded"
    assert [(h.source, h.link) for h in source.headlines(CUTOFF)] == [
        ("desk", "https://example.org/chips"), ("desk", "https://example.org/cafe"),
        ("wire", "https://example.com/2026/06/01/rates"), ("wire", "https://example.com/2026/06/01/oil"),
    ]


def test_only_xml_files_are_read(tmp_path: Path) -> None:
    shutil.copy(ASSETS / "good" / "wire.xml", tmp_path / "wire.xml")
    (tmp_path / "notes.txt").write_text("not a feed", encoding="utf-8")
    assert {h.source for h in RecordedSource(tmp_path).headlines(CUTOFF)} == {"wire"}


def test_a_missing_folder_is_an_error_with_a_fix(tmp_path: Path) -> None:
    with pytest.raises(NewsError) as caught:
        RecordedSource(tmp_path / "absent").headlines(CUTOFF)
    assert caught.value.fix is not None and "recorded_dir" in caught.value.fix


def test_a_broken_recorded_file_is_an_error_not_a_skip() -> None:
    with pytest.raises(NewsError, match="garbage"):
        RecordedSource(ASSETS / "broken").headlines(CUTOFF)


def test_a_naive_cutoff_is_refused() -> None:
    with pytest.raises(NewsError):
        RecordedSource(ASSETS / "good").headlines(datetime(2026, 6, 1, 13, 0))  # noqa: DTZ001 - naive on purpose


def test_from_config_reads_the_recorded_dir_under_the_data_folder(tmp_path: Path) -> None:
    folder = tmp_path / "config"
    shutil.copytree(shipped_config_dir(), folder)
    toml = folder / "league.toml"  # the shipped [news] table replaced by this test's
    text = re.sub(r"(?ms)^\[news\].*?(?=^\[)", "", toml.read_text(encoding="utf-8"))
    toml.write_text(text + '\n[news]\nprovider = "recorded"\nrecorded_dir = "feeds/demo"\n', encoding="utf-8")
    config = load_config(folder)
    target = config.data_dir / "feeds" / "demo"
    target.mkdir(parents=True)
    shutil.copy(ASSETS / "good" / "desk.xml", target / "desk.xml")
    assert [h.link for h in from_config(config).headlines(CUTOFF)] == ["https://example.org/chips",
                                                                        "https://example.org/cafe"]
