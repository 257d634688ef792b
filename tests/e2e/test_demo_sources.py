"""The demo season publishes shared-sources figures: its scripted seats cite the stand-in pages
(league/demo.py DEMO_CITES), the league fetches them from loopback, and council-sources.json counts them.

By hand, per market of a counted run (the citing seats all answer in time; sloth, in time too, cites nothing):
aurora {W/markets-open, R/fed-minutes}, aurora-mini {W/markets-open, E/oil-stocks}, basalt {R/fed-minutes,
W/wire/macro-brief -> led to R}, cobalt {E/oil-stocks, E/asia-close, S/quotes}, delta {R/fed-minutes, E/gone},
ember {W/markets-open, S/quotes}: 10 counted citations; S (the league's own data source) removed twice; E/gone
(404) unreached once; the /wire/ link relabelled once. Sites: R 4 (aurora, basalt twice, delta), W 3, E 3.
Link Jaccard over the 21 pairs of 7 seats: aurora-mini 1/3, aurora-basalt 1/3, aurora-delta 1/2,
aurora-ember 1/2, mini-cobalt 1/3, mini-ember 1/2, basalt-delta 1/2, every other pair 0: 3/21."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from league.sources.standin import OUTLETS


@pytest.mark.sandbox
@pytest.mark.slow
def test_the_demo_publishes_figures_over_its_fetched_citations(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    from league.demo import run_demo  # the demo module is the demo verb's (an import contract): loaded here only

    result = run_demo(tmp_path / "demo", sessions=1, arms=False, split=False)
    public = result.public_dir
    report = json.loads((public / "council-sources.json").read_text(encoding="utf-8"))
    run = next(r for r in report["runs"] if r["citations"])
    markets = run["rows"] // len(run["seats"])
    assert run["seats"] == ["aurora", "aurora-mini", "basalt", "cobalt", "delta", "ember", "sloth"]
    assert (run["citations"], run["removed"], run["unreached"], run["relabelled"], run["unfetched"]) == (
        10 * markets, 2 * markets, markets, markets, 0)
    assert run["top_site"] == OUTLETS["rates"] and run["top_share"] == 0.4 and run["shared_site_share"] == 1.0
    assert run["jaccard_links"] == round(3 / 21, 6) and run["jaccard_link_pairs"] == 21
    assert OUTLETS["snapshot"] in report["method"]["ask_sites"]
    done = subprocess.run([sys.executable, "-I", "tools/recount_sources.py", "."], cwd=public, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
