"""An independent, straightforward re-implementation of the reference's forecast metrics, for the tests only.

Run by a Python >= 3.12 interpreter (whose built-in ``sum`` is the compensated one the reference's figures
depend on), in a subprocess, with the standard library alone. It shares no code with league/: it loads the
sealed sweeps into an SQLite database keyed as the reference's (sweep_markets by market id, forecasts by
(agent, market_id), sweep_runs by (sweep_date, agent)) and reads them back with the reference's queries, so
the order of every list comes from SQLite, not from an assumption of the code under test.

    python3.12 reference_independent.py REPO RESOLUTIONS SNAPSHOT_DAY   -> forecast_accuracy as JSON
    python3.12 reference_independent.py --sums LISTS.json               -> [sum(xs) for xs in lists]
"""

import json
import math
import random
import sqlite3
import sys
from pathlib import Path

SCHEMA = """
CREATE TABLE sweep_markets (market_id TEXT PRIMARY KEY, sweep_date TEXT NOT NULL, outcomes TEXT NOT NULL,
                            prices TEXT NOT NULL, winner TEXT, state TEXT NOT NULL DEFAULT 'open');
CREATE TABLE forecasts (sweep_date TEXT NOT NULL, agent TEXT NOT NULL, market_id TEXT NOT NULL, probs TEXT NOT NULL,
                        brier REAL, PRIMARY KEY (agent, market_id));
CREATE TABLE sweep_runs (sweep_date TEXT NOT NULL, agent TEXT NOT NULL, status TEXT NOT NULL,
                         PRIMARY KEY (sweep_date, agent));
"""


def score(probs, winner):
    return round(0.5 * sum((p - (1.0 if k == winner else 0.0)) ** 2 for k, p in probs.items()), 6)


def crowd_forecast(outcomes, prices):
    clamped = [min(0.99, max(0.01, p)) for p in prices]
    total = sum(clamped) or 1
    return dict(zip(outcomes, [p / total for p in clamped], strict=True))


def interval(values, rng, resamples):
    if len(values) < 2:
        return values[0], values[0]
    means = []
    for _ in range(resamples):
        drawn = [rng.choice(values) for _ in range(len(values))]
        means.append(sum(drawn) / len(values))
    means.sort()
    return means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))]


def sign_p(diffs):
    below, above = sum(1 for d in diffs if d < 0), sum(1 for d in diffs if d > 0)
    if below + above == 0:
        return 1.0
    n, k = below + above, min(below, above)
    return round(min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n), 4)


def main(repo, resolutions, snapshot):
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    db.executescript(SCHEMA)
    data = Path(repo) / "data"
    metrics = json.loads((data / "metrics.json").read_text())
    agents = list(metrics["contestants"])
    names = {a: v["name"] for a, v in metrics["contestants"].items()}
    for entry in sorted(json.loads((data / "sealed.json").read_text()), key=lambda e: e["date"]):
        if entry["date"] > snapshot:
            continue
        doc = json.loads((Path(repo) / entry["file"]).read_text())
        for m in doc["markets"]:
            db.execute("INSERT OR IGNORE INTO sweep_markets(market_id, sweep_date, outcomes, prices) VALUES (?,?,?,?)",
                       (m["id"], doc["date"], json.dumps(m["outcomes"]), json.dumps(m["prices_at_sweep"])))
        for agent in sorted({f["agent"] for f in doc["forecasts"]}):
            db.execute("INSERT INTO sweep_runs VALUES (?,?,'ok')", (doc["date"], agent))
        for f in doc["forecasts"]:
            db.execute("INSERT OR IGNORE INTO forecasts(sweep_date, agent, market_id, probs) VALUES (?,?,?,?)",
                       (doc["date"], f["agent"], f["market_id"], json.dumps(f["probabilities"])))
    for market_id, winner in json.loads(Path(resolutions).read_text()).items():
        db.execute("UPDATE sweep_markets SET winner=?, state='resolved' WHERE market_id=?", (winner, market_id))
        for f in db.execute("SELECT agent, probs FROM forecasts WHERE market_id=?", (market_id,)).fetchall():
            db.execute("UPDATE forecasts SET brier=? WHERE agent=? AND market_id=?",
                       (score(json.loads(f["probs"]), winner), f["agent"], market_id))
    rng = random.Random(20261009)
    resolved = {r["market_id"]: r for r in db.execute("SELECT * FROM sweep_markets WHERE state='resolved'")}
    crowd = {mid: score(crowd_forecast(json.loads(r["outcomes"]), json.loads(r["prices"])), r["winner"])
             for mid, r in resolved.items()}
    rows = []
    for a in agents:
        fs = [f for f in db.execute("SELECT market_id, brier FROM forecasts WHERE agent=? AND brier IS NOT NULL", (a,))
              if f["market_id"] in crowd]
        days = [d["sweep_date"] for d in db.execute("SELECT sweep_date FROM sweep_runs WHERE agent=?", (a,))]
        offered = sum(1 for r in resolved.values() if r["sweep_date"] in days)
        xs = [f["brier"] for f in fs]
        diffs = [f["brier"] - crowd[f["market_id"]] for f in fs]
        row = {"agent": a, "name": names[a], "n": len(xs), "offered": offered,
               "coverage": round(len(xs) / offered, 4) if offered else None,
               "brier": round(sum(xs) / len(xs), 4) if xs else None, "ci": None, "vs_crowd": None}
        if xs:
            lo, hi = interval(xs, rng, 2000)
            row["ci"] = [round(lo, 4), round(hi, 4)]
            dlo, dhi = interval(diffs, rng, 2000)
            row["vs_crowd"] = {"mean_diff": round(sum(diffs) / len(diffs), 4), "ci": [round(dlo, 4), round(dhi, 4)],
                               "sign_test_p": sign_p(diffs),
                               "verdict": "better" if dhi < 0 else "worse" if dlo > 0 else "inconclusive"}
        rows.append(row)
    rows.sort(key=lambda r: (r["brier"] is None, r["brier"] if r["brier"] is not None else 9))
    for i, r in enumerate(rows, 1):
        r["rank"] = i if r["brier"] is not None else None
    cx = list(crowd.values())
    lo, hi = interval(cx, rng, 2000)
    return {"agents": rows, "crowd": {"name": "The Crowd", "n": len(cx), "brier": round(sum(cx) / len(cx), 4),
                                      "ci": [round(lo, 4), round(hi, 4)]},
            "markets_resolved": len(resolved),
            "markets_open": db.execute("SELECT COUNT(*) FROM sweep_markets WHERE state='open'").fetchone()[0],
            "sweeps": db.execute("SELECT COUNT(DISTINCT sweep_date) FROM sweep_runs").fetchone()[0],
            "metric": metrics["forecast_accuracy"]["metric"]}


if __name__ == "__main__":
    if sys.argv[1] == "--sums":
        print(json.dumps([sum(xs) for xs in json.loads(Path(sys.argv[2]).read_text())]))
    else:
        print(json.dumps(main(*sys.argv[1:4])))
