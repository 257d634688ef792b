#!/usr/bin/python3
"""A stand-in for a vendor CLI in the contest: stdlib only, run inside the real sandbox.

It reads one JSON request on stdin (the ask text plus the seat's options) and behaves like an agent
that follows the ask: for a sweep it thinks aloud and ends with one ``{"forecasts": ...}`` object;
for a betting round it calls the real ``bench`` through ``/bin/sh`` with single-quoted arguments
(as the ask tells agents to) and bets. Its first output line reports a model, as the vendor CLIs
do. Everything is a pure function of (seed, agent, market) through SHA-256, so runs are
reproducible; with ``skill`` above 0 it leans toward the demo's hint (the recorded winner).
Modes: normal, silent, percent (answers in percent), partial (leaves markets and outcomes out),
no-bet (inspects but never bets), usage-limit and login (fail like a CLI whose account is blocked).
"""

import hashlib
import json
import shlex
import subprocess
import sys
from typing import Any

Request = dict[str, Any]


def unit(*parts: object) -> float:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def forecast(req: Request, market: dict[str, Any]) -> dict[str, float]:
    """Price blended with the hint by skill, plus seeded noise; sums to 1."""
    outcomes, prices = market["outcomes"], market["prices"]
    hint = (req.get("hint") or {}).get(market["id"])
    skill = min(1.0, max(0.0, float(req.get("skill", 0.0))))
    raw = {}
    for o, p in zip(outcomes, prices, strict=True):
        target = 1.0 if hint == o else 0.0 if hint is not None else p
        noise = (unit(req["seed"], req["agent"], market["id"], o) - 0.5) * 0.3
        raw[o] = max(0.02, (1 - skill) * p + skill * target + noise)
    total = sum(raw.values())
    return {o: round(v / total, 3) for o, v in raw.items()}


def sweep(req: Request) -> str:
    mode = req.get("mode", "normal")
    rows = []
    for i, market in enumerate(req.get("markets") or []):
        probs = forecast(req, market)
        if mode == "partial" and i % 3 == 0:
            continue
        if mode == "partial" and i % 3 == 1:  # a gap in a multi-outcome market, or a sum far from 1
            if len(probs) > 2:
                probs.pop(next(iter(probs)))
            else:
                probs = {o: round(p * 1.5, 3) for o, p in probs.items()}
        if mode == "percent":
            probs = {o: round(p * 100, 1) for o, p in probs.items()}
        rows.append({"id": market["id"], "probabilities": probs})
    draft = json.dumps({"forecasts": rows[:1]})
    final = json.dumps({"forecasts": rows}, ensure_ascii=False)
    return f"Thinking about {len(rows)} markets. A first draft: {draft}\nFinal answer:\n{final}\n"


def bench(*args: str) -> tuple[int, Any]:
    """Run ``bench`` the way an agent's shell tool does: one /bin/sh command line, single-quoted."""
    line = "bench " + " ".join(shlex.quote(a) for a in args)
    proc = subprocess.run(["/bin/sh", "-c", line], capture_output=True, text=True, timeout=60)
    try:
        return proc.returncode, json.loads(proc.stdout)
    except ValueError:
        return proc.returncode, proc.stdout + proc.stderr


def play(req: Request) -> str:
    code, market = bench("market")
    if code != 0 or not isinstance(market, dict):
        return f"bench market failed: {market}"
    outcomes, prices = market["outcomes"], market["prices"]
    probs = forecast(req, {"id": market["market_id"], "outcomes": outcomes, "prices": prices})
    pick = max(outcomes, key=lambda o: probs[o])
    bench("book", "--outcome", pick)
    if req.get("mode") == "no-bet":
        return f"Looked at {market['question']} and decided not to bet."
    rationale = req.get("rationale") or (
        f"{pick} at {prices[outcomes.index(pick)]:.2f} is underpriced; a \"$100\" stake says so, and that's that.")
    args = ["bet", "--outcome", pick.lower(), "--confidence", f"{probs[pick]:.2f}", "--rationale", rationale]
    if req.get("quote") != "":
        args += ["--quote", req.get("quote") or f"{req['agent']} took {pick}. Follow the money."]
    if req.get("max_price") is not None:
        args += ["--max-price", str(req["max_price"])]
    code, answer = bench(*args)
    return f"bench bet answered ({code}): {json.dumps(answer, ensure_ascii=False)}"


def main() -> int:
    req = json.loads(sys.stdin.read())
    mode = req.get("mode", "normal")
    if mode == "usage-limit":
        sys.stderr.write("Error: you have hit your usage limit for this period.\n")
        return 1
    if mode == "login":
        sys.stderr.write("Error: not logged in. Please run /login.\n")
        return 1
    if mode == "silent":
        return 0
    sys.stdout.write(f"model: {req.get('model', 'standin')}\n")
    sys.stdout.write(play(req) if req.get("kind") == "round" else sweep(req))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
