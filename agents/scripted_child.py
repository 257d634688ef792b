#!/usr/bin/python3
"""The scripted seat's child process: a stand-alone, stdlib-only script run inside the sandbox.

It reads one JSON request on stdin and prints a reply in the answer format
(docs/answer-format.md). Every probability is a pure function of
(seed, seat, session, market, horizon[, variant]) through SHA-256, so runs are reproducible anywhere; with a
``skill`` above 0 it leans toward the demo's hint for that cell. Modes: normal, silent (prints
nothing), malformed (prose and broken JSON), late (a normal answer; the parent reports it late).
A normal answer also carries a ``targets`` block for the pro league (its action mapping from an empty
account could never open a 100% gross book); the long-only league keeps the action mapping.

Start-up is most of what a run costs (a season runs the child ~12 times a session), so it imports next
to nothing: no ``typing`` at run time, SHA-256 from CPython's builtin ``_sha256`` (``hashlib`` loads
OpenSSL), and the C half of ``json`` (``_json``) without the package, whose ``re`` and ``enum`` cost
more than the whole answer. :func:`loads` reads what ``json.loads`` reads and :func:`dumps` writes
exactly what ``json.dumps(obj, indent=1, sort_keys=True)`` writes: the reply is sealed byte for byte
(tests/integration/agents/test_agents_scripted_child.py holds them and the whole child to the json package
and to the child they replace).
"""

import sys

try:
    from _sha256 import sha256
except ImportError:  # an interpreter without the builtin: the same digest through OpenSSL
    from hashlib import sha256
try:
    from _json import encode_basestring_ascii
except ImportError:  # no C accelerator: the json package's pure-Python half, the same text
    from json.encoder import py_encode_basestring_ascii as encode_basestring_ascii

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (quoted): importing typing would cost every run ~5 ms
    from collections.abc import Callable
    from typing import Any

    Request = dict[str, Any]

ACTIONS = ("sell", "trim", "hold", "buy_dips", "buy_strong")
#: The pro league's target book (docs/portfolio.md, rule set pro-1: each weight 5-30%, gross 100-200%):
#: the PRO_SIZE markets with the strongest one-day view, PRO_WEIGHT percent each, long or short.
PRO_LEAGUE, PRO_SIZE, PRO_WEIGHT = "pro-1", 5, 25.0
#: A yield up is its bond fund down (TNX trades IEF): the sign flips.
INVERSE = ("TNX",)
INF = float("inf")


class _Decoding:
    """What ``_json.make_scanner`` reads off a ``json.JSONDecoder()``: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__


def _scanner() -> "Callable[[str, int], tuple[Any, int]]":
    """What ``json.loads`` scans with (``JSONDecoder().scan_once``), from the C scanner alone when there is one."""
    try:
        from _json import make_scanner
    except ImportError:
        from json import JSONDecoder

        return JSONDecoder().raw_decode  # its failures are ValueErrors, caught as the C scanner's are
    return make_scanner(_Decoding())  # type: ignore[arg-type]  # a duck with the decoder's attributes


_scan = _scanner()
_SPACE = " \t\n\r"


def loads(text: str) -> "Any":
    """``json.loads(text)`` for a document it accepts; for anything else, json's own error."""
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        obj, end = _scan(text, start)
    except (StopIteration, ValueError):  # nothing at start, or json's own error inside
        obj, end = None, -1
    if end < 0 or text[end:].strip(_SPACE) or text.startswith("\ufeff"):
        import json  # only to raise exactly what json.loads raises

        return json.loads(text)
    return obj


def _float(o: float) -> str:
    """json's ``floatstr`` (``allow_nan`` on)."""
    if o != o:
        return "NaN"
    if o == INF:
        return "Infinity"
    if o == -INF:
        return "-Infinity"
    return float.__repr__(o)


def _key(key: object) -> str:
    """A dict key as json turns it into a string (after sorting the items, as ``sort_keys`` does)."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def dumps(o: object, depth: int = 0) -> str:
    """``json.dumps(o, indent=1, sort_keys=True)``: the same checks in the same order, the same text."""
    if isinstance(o, str):
        return encode_basestring_ascii(o)
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if isinstance(o, int):
        return int.__repr__(o)
    if isinstance(o, float):
        return _float(o)
    pad = "\n" + " " * (depth + 1)
    if isinstance(o, (list, tuple)):
        if not o:
            return "[]"
        items = [dumps(v, depth + 1) for v in o]
        return "[" + pad + ("," + pad).join(items) + "\n" + " " * depth + "]"
    if isinstance(o, dict):
        if not o:
            return "{}"
        items = [encode_basestring_ascii(_key(k)) + ": " + dumps(v, depth + 1) for k, v in sorted(o.items())]
        return "{" + pad + ("," + pad).join(items) + "\n" + " " * depth + "}"
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


#: How far an arm's or a repeat's answer of a scripted seat may move from its council answer (± half of it),
#: the scripted stand-in for a model's sampling noise; a council ask carries no variant and is unchanged.
VARIANT_SPREAD = 16.0


def unit(*parts: object) -> float:
    """A number in [0, 1) from the parts, identical on every machine and Python version."""
    digest = sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def probability(req: "Request", code: str, horizon: str) -> float:
    base = 30.0 + 40.0 * unit(req["seed"], req["seat"], req["session"], code, horizon)
    variant = req.get("variant")
    if variant:  # an arm or a repeat (docs/experiments.md): the same seat, asked again, a little apart
        base += VARIANT_SPREAD * (unit(req["seed"], req["seat"], req["session"], code, horizon, variant) - 0.5)
    hint = ((req.get("hint") or {}).get(code) or {}).get(horizon)
    skill = min(1.0, max(0.0, float(req.get("skill", 0.0))))
    if isinstance(hint, (int, float)):
        base = (1.0 - skill) * base + skill * float(hint)
    return round(min(99.0, max(1.0, base)), 1)


def action(p: float) -> str:
    return ACTIONS[min(4, int(p // 20))] if p != 50 else "hold"


def cell(req: "Request", code: str, horizon: str, market: "dict[str, Any]") -> "dict[str, Any]":
    p = probability(req, code, horizon)
    out: dict[str, Any] = {"prob_up": p, "action": action(p)}
    price = market.get("price")
    if isinstance(price, (int, float)) and price > 0:
        out["target"] = round(price * (1 + (p - 50) / 1000.0), 4)
        out["invalidation"] = round(price * (1 - abs(p - 50) / 1000.0 - 0.01), 4)
        if out["action"] == "buy_dips":
            out["entry"] = round(price * 0.99, 4)
    if horizon == "1d" and market.get("crowd"):
        out["crowd_up"] = p  # a crowd contract is listed for this market: its own probability, unseen price
    out["risk"] = "scripted seat: no view beyond its seed"
    cite = req.get("cite")
    if horizon == "1d" and cite:  # the links its roster entry names, as a model cites its sources
        out["source_urls"] = list(cite)
        out["source_domains"] = [u.split("/")[2] if u.count("/") >= 2 else "" for u in cite]
    return out


def answer(req: "Request") -> "dict[str, Any]":
    forecast: dict[str, Any] = {}
    for code, market in sorted((req.get("markets") or {}).items()):
        row: dict[str, Any] = {h: cell(req, code, h, market) for h in market.get("horizons", [])}
        row["years"] = "A scripted seat has no view of the years."
        forecast[code] = row
    return forecast


def pro_targets(forecast: "dict[str, Any]") -> dict[str, dict[str, float]]:
    """``{"pro-1": {market: percent}}`` within pro-1's rules, or nothing when too few markets are asked."""
    views = [(abs(row["1d"]["prob_up"] - 50.0), code, row["1d"]["prob_up"] > 50.0)
             for code, row in forecast.items() if isinstance(row.get("1d"), dict)]
    chosen = sorted(views, reverse=True)[:PRO_SIZE]
    if len(chosen) * PRO_WEIGHT < 100.0:
        return {}
    book = {code: PRO_WEIGHT if up != (code in INVERSE) else -PRO_WEIGHT for _, code, up in chosen}
    return {PRO_LEAGUE: dict(sorted(book.items()))}


def talk_chair(req: "Request", talk: "dict[str, Any]") -> "dict[str, Any]":
    """The council talk's chair (docs/experiments.md): four funds at 20% for the council, and two critiques of the
    two letters the seed puts first, each of a position the letter holds (else of any market)."""
    key = (req["seed"], req["seat"], talk["week"])
    funds = talk["funds"]
    held = sorted(set(funds.values()), key=lambda f: unit(*key, "fund", f))[:4]
    letters = sorted(talk["letters"], key=lambda x: unit(*key, "letter", x))[:2]
    critiques = []
    for letter in letters:
        owned = (talk["portfolios"] or {}).get(letter) or {}
        markets = sorted(m for m, f in funds.items() if owned.get(f)) or sorted(funds)
        market = min(markets, key=lambda m: unit(*key, letter, m))
        up = unit(*key, letter, market, "direction") < 0.5
        critiques.append({"target": letter, "market": market, "weight": 10 if owned.get(funds[market]) else 15,
                          "direction": "up" if up else "down",
                          "risk": f"scripted chair: {market} is a seeded worry, not a view"})
    return {"council_portfolio": {f: 20 for f in sorted(held)}, "critiques": critiques}


def talk_reply(req: "Request", talk: "dict[str, Any]") -> "dict[str, Any]":
    """A critiqued seat meets each critique half-way (the mean of its weight and the chair's), scaled to 100%."""
    funds = talk["funds"]
    mine = dict(talk.get("portfolio") or {})
    for c in talk.get("critiques") or []:
        fund = funds[c["market"]]
        mine[fund] = round((float(mine.get(fund, 0.0)) + float(c["weight"])) / 2.0, 4)
    total = sum(mine.values())
    if total > 100.0:
        mine = {f: int(w * 10000.0 / total) / 100.0 for f, w in mine.items()}  # floored: the sum stays <= 100
    return {"portfolio": {f: w for f, w in sorted(mine.items()) if w > 0}}


def talk_answer(req: "Request") -> None:
    talk = req["talk"]
    body = talk_chair(req, talk) if talk.get("role") == "chair" else talk_reply(req, talk)
    sys.stdout.write(f"Scripted seat {req['seat']}, council talk {talk['week']}.\n\n```json\n{dumps(body)}\n```\n")


def main() -> None:
    req = loads(sys.stdin.read())
    mode = req.get("mode", "normal")
    if mode == "silent":
        return
    if mode == "malformed":
        sys.stdout.write('I think markets will mostly rise.\n{"forecast": {"SPX": {"1d": {"prob_up": 6')
        return
    if req.get("talk"):
        talk_answer(req)
        return
    forecast = answer(req)
    reply: dict[str, Any] = {"forecast": forecast}
    targets = pro_targets(forecast)
    if targets:
        reply["targets"] = targets
    body = dumps(reply)
    text = f"Scripted seat {req['seat']}, session {req['session']}.\n\n```json\n{body}\n```\n"
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
