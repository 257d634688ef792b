"""A seeded generator of recorded venue folders (Gamma/CLOB answer shapes) for the demo and benchmarks.

It writes what :class:`~league.contest.markets.recorded.RecordedSource` reads: ``markets.json``,
``books.json``, ``history.json``, ``closed.json``. Each day has a pool of plausible markets across
categories (some with three outcomes), a few markets that appear during the day (they open betting
rounds), and one market failing each eligibility rule, so every refusal path runs. A market's
winner is drawn with probabilities near its price, so the crowd is a fair forecaster. These are not
real markets; the demo says so.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from league.jsonvalue import Json, JsonObject, obj, text

CATEGORIES: dict[str, tuple[str, ...]] = {
    "politics": ("Will the coalition pass the budget vote in {place}?",
                 "Will {person} lead the {place} poll on Friday?"),
    "sports": ("{team_a} vs. {team_b}", "Will {team_a} score 3+ goals against {team_b}?"),
    "esports": ("Counter-Strike: {team_a} vs {team_b} (BO3)", "Valorant: {team_a} vs {team_b}"),
    "crypto": ("Will Bitcoin close above ${level}k on {day}?", "Will Ether trade above ${level}00 on {day}?"),
    "tech": ("Will {company} announce a new model this week?", "Will {company} ship its beta before {day}?"),
    "economy": ("Will {place} CPI come in above {level}.0%?", "Will the {place} central bank cut rates?"),
    "culture": ("Will '{title}' top the box office this weekend?", "Will {person} win the {title} award?"),
}
NAMES = ("Aster", "Borealis", "Cobalt", "Dunmore", "Elara", "Fenwick", "Galen", "Halcyon", "Ivora", "Juniper",
         "Kestrel", "Lumen", "Meridian", "Norwood", "Orla", "Peregrine")
INELIGIBLE = ("placeholder", "death", "war-tag", "favourite", "far", "soon", "no-sellers", "wide")


@dataclass
class Venue:
    markets: list[JsonObject]
    books: JsonObject
    history: JsonObject
    closed: JsonObject

    def write(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        for name, body in (("markets.json", self.markets), ("books.json", self.books),
                           ("history.json", self.history), ("closed.json", self.closed)):
            (root / name).write_text(json.dumps(body, indent=1, sort_keys=True), encoding="utf-8")

    def winners(self) -> dict[str, str]:
        out = {}
        for mid, item in self.closed.items():
            market = obj(item)
            outcomes, prices = json.loads(text(market["outcomes"])), json.loads(text(market["outcomePrices"]))
            out[mid] = next(o for o, p in zip(outcomes, prices, strict=True) if p == "1")
        return out


def _z(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _question(rng: random.Random, category: str, day: datetime) -> str:
    names = rng.sample(NAMES, 3)
    return rng.choice(CATEGORIES[category]).format(
        place=names[0], person=names[1], team_a=names[0], team_b=names[2], company=names[1],
        title=names[2], level=rng.randint(2, 9), day=day.strftime("%B %d"))


def _prices(rng: random.Random, n: int, favourite_cap: float) -> list[float]:
    while True:
        raw = [rng.uniform(0.2, 1.0) for _ in range(n)]
        prices = [round(x / sum(raw), 2) for x in raw]
        prices[-1] = round(1 - sum(prices[:-1]), 2)
        if min(prices) >= 0.05 and max(prices) <= favourite_cap:
            return prices


def _book(rng: random.Random, price: float, spread: float, sellers: bool = True) -> JsonObject:
    half = spread / 2
    asks: list[Json] = [{"price": f"{min(0.99, price + half + 0.01 * i):.2f}", "size": f"{rng.randint(40, 400)}"}
                        for i in range(3)]
    bids: list[Json] = [{"price": f"{max(0.01, price - half - 0.01 * i):.2f}", "size": f"{rng.randint(40, 400)}"}
                        for i in range(3)]
    return {"asks": asks if sellers else [], "bids": bids, "tick_size": "0.01", "last_trade_price": f"{price:.2f}"}


class _Builder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.venue = Venue([], {}, {}, {})
        self.next_id = 20000

    def add(self, *, listed: datetime, end: datetime, category: str, day: datetime, kind: str = "ok",
            outcomes: int = 2) -> str:
        rng = self.rng
        self.next_id += 1
        mid = str(self.next_id)
        labels = ["Yes", "No"] if outcomes == 2 else rng.sample(NAMES, outcomes)
        prices = _prices(rng, len(labels), 0.97 if kind == "favourite" else 0.82)
        if kind == "favourite":
            prices = [0.9, 0.1] + [0.0] * (len(labels) - 2)
        question = _question(rng, category, day)
        if kind == "death":
            question = f"Will the {rng.choice(NAMES)} expedition leader die before the summit?"
        tags: list[Json] = [{"slug": category, "label": category.title()}]
        if kind == "war-tag":
            tags.append({"slug": "war", "label": "War"})
        tokens = [f"{mid}{i}" for i in range(len(labels))]
        self.venue.markets.append({
            "id": mid, "question": question, "slug": f"demo-{mid}", "conditionId": f"0x{int(mid):064x}",
            "description": "A synthetic market of the offline demo (not a real market).",
            "startDate": _z(listed), "endDate": _z(end), "active": True, "closed": False, "acceptingOrders": True,
            "outcomes": json.dumps(labels), "outcomePrices": json.dumps([f"{p:.2f}" for p in prices]),
            "clobTokenIds": json.dumps(tokens), "volume24hr": round(rng.lognormvariate(9, 1.2), 2),
            "commentCount": rng.randint(0, 400), "tags": tags,
        })
        if kind != "placeholder":
            spread = 0.4 if kind == "wide" else rng.choice((0.02, 0.02, 0.04))
            for i, (token, p) in enumerate(zip(tokens, prices, strict=True)):
                self.venue.books[token] = _book(rng, p, spread, sellers=not (kind == "no-sellers" and i == 1))
                self.venue.history[token] = {"history": [{"t": int((listed - timedelta(hours=h)).timestamp()),
                                                          "p": round(max(0.01, min(0.99, p + rng.gauss(0, 0.03))), 3)}
                                                         for h in range(12, 0, -1)]}
        winner = rng.choices(range(len(labels)), weights=[max(p, 0.01) for p in prices])[0]
        closed = dict(self.venue.markets[-1], closed=True, active=False, acceptingOrders=False,
                      outcomePrices=json.dumps(["1" if i == winner else "0" for i in range(len(labels))]))
        self.venue.closed[mid] = closed
        return mid


def make_venue(start: datetime, days: int, seed: int, *, per_day: int = 36,
               new_at: Sequence[timedelta] = (timedelta(hours=6, minutes=10), timedelta(hours=9))) -> Venue:
    """``days`` days from ``start`` (midnight UTC): per day ``per_day`` markets listed before 06:00,
    one market failing each eligibility rule, and one new market at each offset of ``new_at``."""
    b = _Builder(seed)
    cats = list(CATEGORIES)
    for d in range(days):
        day = start + timedelta(days=d)
        for i in range(per_day):
            end = day + timedelta(hours=b.rng.randint(8, 24 * 6))
            b.add(listed=day - timedelta(hours=1), end=end, category=cats[i % len(cats)], day=day,
                  outcomes=3 if i % 9 == 4 else 2)
        for kind in INELIGIBLE:
            hours = {"far": 24 * 10, "soon": 6.3}.get(kind, 30)
            b.add(listed=day - timedelta(hours=1), end=day + timedelta(hours=hours), category=b.rng.choice(cats),
                  day=day, kind=kind)
        for j, offset in enumerate(new_at):
            b.add(listed=day + offset - timedelta(minutes=5), end=day + offset + timedelta(hours=20),
                  category=cats[(d + j) % len(cats)], day=day)
    return b.venue
