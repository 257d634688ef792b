"""Build the reference-layout contest folder beside this script: ``data/`` as the reference implementation
publishes it (sealed.json, forecasts/<date>.json, metrics.json) and ``resolutions.json`` (the recorded
winners, which the reference does not publish; outside ``data/``, handed to verify with --resolutions).

Four agents in configured order (claude, codex, agy, grok) and the crowd; 13 markets over four sweeps.
agy misses the 2026-10-10 sweep, grok leaves one market out; three markets stay open. The metrics are a
snapshot as of 2026-10-12 (``generated_at``): the 2026-10-13 sweep is sealed in the folder but not in the
snapshot, though one of its markets is in resolutions.json. The figures are computed by
league.contest.refstats (the reference procedure) and cross-checked by
tests/integration/contest/test_contest_reference_procedure.py against an independent implementation.

    .venv/bin/python tests/assets/contest-ref/make.py
"""

from __future__ import annotations

import hashlib
import json
import random
from datetime import UTC, datetime
from pathlib import Path

from league.contest.refstats import accuracy

HERE = Path(__file__).resolve().parent
AGENTS = [("claude", "Claude"), ("codex", "Codex"), ("agy", "Gemini"), ("grok", "Grok")]
MODELS = {"claude": "claude-fable-5-1", "codex": "gpt-6-luna", "agy": "gemini-3.1-pro-high", "grok": "grok-4.7"}
SWEEPS = {"2026-10-09": ["540121", "540388", "541002", "541977"],
          "2026-10-10": ["538310", "538311", "543090", "539412"],  # ids below the day before's
          "2026-10-11": ["544001", "544780", "545215"],
          "2026-10-13": ["546002", "546118"]}
THREE = {"540388", "543090", "545215"}  # three-outcome markets
OPEN = {"541977", "544780", "546118"}  # unresolved
GENERATED_AT = datetime(2026, 10, 12, 18, 30, 5, tzinfo=UTC).timestamp() + 0.301892


def dump(doc: object) -> bytes:
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False).encode("utf-8")


def normalised(raw: dict[str, float]) -> dict[str, float]:
    """As the reference stores an answer: clamped to [0.01, 0.99], normalised, 6 decimals."""
    clamped = {k: min(0.99, max(0.01, v)) for k, v in raw.items()}
    total = sum(clamped.values())
    return {k: round(v / total, 6) for k, v in clamped.items()}


def build() -> None:
    rng = random.Random(41)
    data = HERE / "data"
    (data / "forecasts").mkdir(parents=True, exist_ok=True)
    winners: dict[str, str] = {}
    sealed, docs = [], []
    for date, ids in SWEEPS.items():
        markets, forecasts = [], []
        for mid in sorted(ids):
            outcomes = ["Alpha", "Beta", "Gamma"] if mid in THREE else ["Yes", "No"]
            weights = [rng.uniform(0.05, 1.0) for _ in outcomes]
            prices = [round(w / sum(weights), 3) for w in weights]
            markets.append({"id": mid, "question": f"Market {mid}?", "outcomes": outcomes,
                            "prices_at_sweep": prices, "closes": f"{date}T23:00:00Z"})
            truth = rng.choices(outcomes, weights=prices)[0]
            if mid not in OPEN:
                winners[mid] = truth
            for agent, _ in AGENTS:
                if (agent == "agy" and date == "2026-10-10") or (agent == "grok" and mid == "543090"):
                    continue
                skill = {"claude": 0.08, "codex": 0.3, "agy": -0.12, "grok": 0.0}[agent]
                raw = {o: max(0.0, p + (skill if o == truth else -skill / (len(outcomes) - 1))
                              + rng.uniform(-0.2, 0.2)) for o, p in zip(outcomes, prices, strict=True)}
                forecasts.append({"agent": agent, "market_id": mid, "model": MODELS[agent],
                                  "probabilities": normalised(raw)})
        doc = {"benchmark": "AgentpitBench", "date": date, "kind": "forecast sweep", "methodology_version": "1.0",
               "forecasts": sorted(forecasts, key=lambda f: (f["agent"], f["market_id"])), "markets": markets}
        body = dump(doc)
        (data / "forecasts" / f"{date}.json").write_bytes(body)
        sealed.append({"date": date, "sha256": hashlib.sha256(body).hexdigest(),
                       "file": f"data/forecasts/{date}.json", "forecasts": len(forecasts),
                       "sealed_at": datetime.fromisoformat(f"{date}T06:41:12+00:00").timestamp() + 0.488})
        docs.append(doc)
    sealed.sort(key=lambda e: str(e["date"]), reverse=True)
    (data / "sealed.json").write_text(json.dumps(sealed, indent=1))
    (HERE / "resolutions.json").write_text(json.dumps(dict(sorted(winners.items())), indent=1) + "\n")
    snapshot = datetime.fromtimestamp(GENERATED_AT, UTC).date().isoformat()
    in_snapshot = [d for d in docs if str(d["date"]) <= snapshot]
    metrics = {
        "benchmark": "AgentpitBench", "methodology_version": "1.0", "season_start": "2026-10-09T00:00:00Z",
        "generated_at": GENERATED_AT,
        "contestants": {a: {"name": name, "model_id": MODELS[a]} for a, name in AGENTS},
        "forecast_accuracy": accuracy(in_snapshot, winners, AGENTS),
        "sealed_forecasts": [e for e in sealed if str(e["date"]) <= snapshot],
    }
    (data / "metrics.json").write_text(json.dumps(metrics, indent=1))


if __name__ == "__main__":
    build()
