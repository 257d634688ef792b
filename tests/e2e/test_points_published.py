"""The point-forecast track in the league: the demo roster's `_naive` and `_ets`
answer from the closes history the league puts in every ask's context, the nightly publish writes
council-points.json (the MASE table `league eval points` prints) and the same table as the `points`
block of council-stats.json, and the page's data carries it."""

from __future__ import annotations

import json
from pathlib import Path

from league.api.paths import DataPaths
from league.api.views import Store, page
from league.evals.points import points_report


def test_council_points_is_published_and_equals_the_eval_points_report(demo_league: dict[str, object]) -> None:
    public, data = Path(str(demo_league["public"])), Path(str(demo_league["data"]))
    published = json.loads((public / "council-points.json").read_text())
    direct = points_report(data)
    assert published["book"] == "council-book.jsonl"
    assert {k: v for k, v in published.items() if k != "book"} == json.loads(json.dumps(
        {k: v for k, v in direct.items() if k != "book"}))
    assert {"_naive", "_ets"} <= set(published["seats"])
    naive = published["seats"]["_naive"]
    # it stated a target level in every asked cell (12 markets x 1d over 3 sessions); three sessions of
    # sealed closes are too few for a MASE scale (5 in-sample differences), so each window is unscaled
    assert naive["compliance"]["asked"] == naive["compliance"]["with_forecast"] == 36
    assert naive["windows"] + naive["unscaled"] == 36
    assert "council-points.json" in (public / "index.html").read_text()
    stats = json.loads((public / "council-stats.json").read_text())
    assert stats["points"] == published  # the same table as the `points` block beside the Brier statistics


def test_the_page_data_carries_the_mase_table(demo_league: dict[str, object]) -> None:
    store = Store(DataPaths.resolve(Path(str(demo_league["data"]))))
    rows = {r["seat"]: r for r in page(store)["points"]["seats"]}
    assert {"_naive", "_ets"} <= set(rows) and rows["_naive"]["compliance"]["with_forecast"] == 36
