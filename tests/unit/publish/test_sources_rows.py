"""council-sources.json from the published CSV (league/publish/sources.py): the rows are streamed with only the
columns the figures read, and the file must say what the figures say over the whole rows."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from league.publish.sources import FETCH_RECORDS, FORECASTS, READ_COLUMNS, SOURCES, write_sources
from league.scoring.sources import ask_links, sources_report

SITES = ("league.test",)
ACTIONS = ("hold", "buy_dips", "trim", "sell", "")
OTHER = ("prob_up", "ref", "close", "model", "cell_status")  # columns the figures do not read


def _rows(rng: random.Random) -> list[dict[str, str]]:
    urls = [f"http://s{k}.test/a{k}" for k in range(8)] + ["http://league.test/prices"]
    rows = []
    for _ in range(rng.randint(20, 120)):
        cited = rng.sample(urls, rng.randint(0, 3))
        rows.append({
            "run_id": rng.choice(("r1", "r2")), "session": rng.choice(("2026-10-20", "2026-10-21")),
            "seat": rng.choice(("a", "b", "c", "_clim")), "asset": rng.choice(("M1", "M2", "M3")),
            "horizon": rng.choice(("1d", "1d", "1w")), "run_role": rng.choice(("counted", "session_run", "earlier")),
            "status": rng.choice(("counted", "counted", "not_counted")), "line_kind": rng.choice(("issue", "answer")),
            "sealed_at": f"2026-10-20T1{rng.randint(2, 4)}:00:00Z", "event_reference_at": "2026-10-20T13:30:00Z",
            "reference_at": "", "action": rng.choice(ACTIONS), "source_urls": ";".join(cited),
            "source_domains": ";".join(rng.choice((u.split("/")[2], "other.test")) for u in cited),
            **{c: str(rng.random()) for c in OTHER}})
    return rows


def _write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_the_file_says_what_the_figures_say_over_whole_rows(tmp_path: Path) -> None:
    for seed in range(6):
        rng = random.Random(seed)
        out = tmp_path / f"s{seed}"
        rows = _rows(rng)
        fetches = [{"session": s, "url": f"http://s{k}.test/a{k}", "host": f"s{k}.test", "status": st, "label": ""}
                   for s in ("2026-10-20", "2026-10-21") for k in range(8) if (st := rng.choice(("200", "404", "")))]
        _write_csv(out / FORECASTS, rows)
        _write_csv(out / FETCH_RECORDS, fetches)
        (out / "asks").mkdir()
        (out / "asks" / "2026-10-20.md").write_text("Prices at http://s7.test/a7.", encoding="utf-8")
        assert write_sources(out, SITES) == out / SOURCES
        want = sources_report(rows, fetches, ask_links(["Prices at http://s7.test/a7."]), SITES)
        assert json.loads((out / SOURCES).read_text(encoding="utf-8")) == json.loads(json.dumps(want))


def test_the_columns_kept_are_columns_of_the_forecasts_file() -> None:
    assert READ_COLUMNS <= set(_rows(random.Random(0))[0])
    assert not READ_COLUMNS & set(OTHER)
