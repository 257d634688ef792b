"""The real vendor CLIs (from npm, each in its own sandbox and network namespace, pointed at its own stand-in of
its vendor's API on 127.0.0.1) answer the experiments' closed-book and price-only arms in an offline league
morning: they are shown the sealed packet (closed book) or no headline at all (price only), a seat whose roster
says ``web`` is run on ``api`` in an arm, the search status is ``verified`` from the seat's own egress record,
and the links an answer cites outside its packet are listed. docs/experiments.md says what each line means.

``LEAGUE_CLI_VERSIONS=newest`` runs the same test against the npm registry's newest CLIs (tests/realcli/clis.py).
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import date, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import COUNTING, OPERATOR_SECRETS, VENDORS, council_reply, received_nothing_of, seat_table
from standin_models import Seen, StandIn

from league.calendar import et_time
from league.clock import SimulatedClock, parse_iso
from league.compose import build_league
from league.config import load_config
from league.folder import init_folder
from league.jobs.context import BARE
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump
from league.news.packet import build_packet
from league.news.recorded import RecordedSource
from sandbox.profiles import PROFILES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration" / "jobs"))

from arms_helpers import book_lines, enable_arms  # noqa: E402

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
SESSION = date(2026, 11, 24)  # a Tuesday
ADAPTERS = ("claude_code", "codex", "gemini_cli", "grok_cli")
#: adapter -> the network policy its roster entry names: one seat on `web` (each CLI in turn), so an arm's
#: web -> api switch runs for every CLI
POLICIES = tuple({a: "web" if a == web else "api" for a in ADAPTERS} for web in ADAPTERS)
ELSEWHERE = "https://elsewhere.example/page"
#: the web tools each CLI offers its model under `web`: Claude Code's own two, Codex's server-side search, Gemini
#: CLI's Google search; Grok CLI has none of its own (its `search` tool searches files), so nothing to switch off
WEB_TOOLS = {"claude_code": {"WebSearch", "WebFetch"}, "codex": {"web_search"}, "gemini_cli": {"google_web_search"},
             "grok_cli": set()}
ANY_WEB_TOOL = {"WebSearch", "WebFetch", "web_search", "google_web_search", "web_fetch"}
#: Codex sends its tools (web_search among them under `web`) only for a model name it knows; for an unknown
#: one (the other tests' stand-in name) its requests carry no tools at all, and the web switch would show nothing
CODEX_MODEL = "gpt-5"
ARMS = ("closed_book", "price_only")


def packet_link(data_dir: Path, lookback_hours: float, max_items: int) -> str:
    """A link of the packet the league will seal: one published well inside the window of a cutoff at the
    counted run's 08:30 ET, so the run line's own time (the real cutoff, minutes later) keeps it in."""
    cutoff = et_time(SESSION, time(8, 30))
    packet = build_packet(str(SESSION), cutoff, RecordedSource(data_dir / "news").headlines(cutoff),
                          lookback_hours=lookback_hours, max_items=max_items)
    inside = [h.link for h in packet.items
              if cutoff - timedelta(hours=lookback_hours - 6) <= h.published <= cutoff - timedelta(hours=2)]
    assert inside, "the synthetic feeds have no headline well inside the packet's window"
    return inside[0]


def cited_reply(links: list[str], seed: int) -> str:
    """A full council answer whose first 1d cell cites ``links`` in ``source_urls``."""
    text = council_reply(seed)
    start, end = text.index("{"), text.rindex("}") + 1
    doc = json.loads(text[start:end])
    market = next(code for code, cells in doc["forecast"].items() if "1d" in cells)
    doc["forecast"][market]["1d"]["source_urls"] = links
    return text[:start] + json.dumps(doc) + text[end:]


@pytest.fixture(scope="module", params=POLICIES, ids=lambda p: "web=" + next(a for a in p if p[a] == "web"))
def morning(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            cli_prefix: Path) -> Iterator[dict[str, Any]]:
    """One offline league morning (replay prices, simulated clock, up to 09:29 ET: the counted run, then the
    arms job at 08:40) with the real CLIs of :data:`ADAPTERS` on the roster policies ``request.param``, and
    both arms on."""
    policy: dict[str, str] = request.param
    mp = pytest.MonkeyPatch()
    for name in ("claude", "codex", "gemini", "grok"):
        mp.setitem(PROFILES, name, dataclasses.replace(PROFILES[name], memory_mb=1 << 20))
    for key, value in OPERATOR_SECRETS.items():
        mp.setenv(key, value)
    for _, (seat, _, key, _) in VENDORS.items():
        mp.setenv(key, f"sk-seat-{seat}")
    root = tmp_path_factory.mktemp("realarms")
    mp.setenv("LEAGUE_CREDENTIALS_HOME", str(root / "empty-home"))
    clock = SimulatedClock(et_time(SESSION, time(3, 0)))
    config_dir, data_dir = init_folder(root, demo=True, clock=clock)
    enable_arms(config_dir, data_dir, SESSION, arms=ARMS)
    news = load_config(config_dir).settings.news
    inside = packet_link(data_dir, news.lookback_hours, news.max_items)
    with ExitStack() as stack:
        servers = {a: stack.enter_context(StandIn(cited_reply([inside, ELSEWHERE], seed)))
                   for seed, a in enumerate(ADAPTERS)}
        seats = "".join(seat_table(a, servers[a].url, cli_prefix, network=policy[a], timeout_s=180)
                        for a in ADAPTERS).replace(f'model = "{VENDORS["codex"][1]}"', f'model = "{CODEX_MODEL}"')
        (config_dir / "roster.toml").write_text(COUNTING + seats)
        end = et_time(SESSION, time(9, 29))
        with build_league(load_config(config_dir), clock, stages=BARE) as lg:
            catch_up(lg, et_time(SESSION, time(3, 0)), end, before_each=lambda f: pump(lg, f.at))
            pump(lg, end)
        yield {"data": data_dir, "servers": servers, "inside": inside, "secrets": dict(OPERATOR_SECRETS),
               "policy": policy}
    mp.undo()


def arms_book(m: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(x) for x in book_lines(m["data"] / "books" / "arms-book.jsonl")]


def arm_run(m: dict[str, Any], arm: str) -> dict[str, Any]:
    [run] = [x for x in arms_book(m) if x["kind"] == "arm_run" and x["arm"] == arm]
    return run


def arm_answer(m: dict[str, Any], arm: str, adapter: str) -> dict[str, Any]:
    seat = VENDORS[adapter][0]
    replies = [x for x in arms_book(m) if x["kind"] in ("arm_answer", "arm_silence") and x["arm"] == arm
               and x["seat"] == seat]
    assert len(replies) == 1, replies
    return replies[0]


def asks_of(server: StandIn, arm: str) -> list[Seen]:
    """The model calls the stand-in received for ``arm``'s ask (its text names the arm's run id)."""
    tag = f"run {SESSION}-{arm},"
    return [r for r in server.model_calls() if tag in r.body.decode("utf-8", "replace")]


def tool_names(doc: dict[str, Any]) -> set[str]:
    """The names (or server-side types) of the tools a model call declares, in any of the four wire formats."""
    names: set[str] = set()
    for tool in doc.get("tools") or []:
        for decl in tool.get("functionDeclarations") or []:  # Gemini
            names.add(str(decl.get("name", "")))
        function = tool.get("function")
        if isinstance(function, dict):  # Chat Completions
            names.add(str(function.get("name", "")))
        names.update(str(tool[k]) for k in ("name", "type") if tool.get(k))  # Anthropic, Responses
    return names


def web_tools(requests: list[Seen]) -> set[str]:
    """The web tools the requests offered the model: declared in ``tools``, or (newer Claude Code versions,
    which load them by ToolSearch) named one a line as deferred tools in a message."""
    found: set[str] = set()
    for r in requests:
        doc = json.loads(r.body)
        found.update(n for n in tool_names(doc) if n in ANY_WEB_TOOL or n.startswith("web_search"))
        for text in _strings(doc.get("messages") or doc.get("input")):
            found.update(re.findall(r"(?m)^(WebSearch|WebFetch)$", text) if "deferred tools" in text else ())
    return found


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def shown(requests: list[Seen]) -> str:
    """Every text the requests carried, JSON strings decoded (a title's quote or dash may be escaped on the wire)."""
    out = []
    for r in requests:
        raw = r.body.decode("utf-8", "replace")
        try:
            out += list(_strings(json.loads(raw)))
        except ValueError:
            out.append(raw)
    return "\n".join(out)


def sealed_packet(m: dict[str, Any]) -> dict[str, Any]:
    sha = arm_run(m, "closed_book")["packet_sha256"]
    assert sha, "the closed-book run names no packet"
    doc: dict[str, Any] = json.loads((m["data"] / "arms" / "packets" / f"{sha}.json").read_text(encoding="utf-8"))
    return doc


@pytest.mark.parametrize("arm", ARMS)
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_each_cli_answers_both_arms(morning: dict[str, Any], adapter: str, arm: str) -> None:
    answer = arm_answer(morning, arm, adapter)
    assert answer["kind"] == "arm_answer", answer
    assert answer["status"] == "answered", answer.get("parse_failure")
    assert answer["run_id"] == f"{SESSION}-{arm}"
    assert len(asks_of(morning["servers"][adapter], arm)) >= 1  # the arm's ask reached the CLI's model


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_closed_book_ask_shows_the_sealed_packet_and_the_price_only_ask_none(morning: dict[str, Any],
                                                                                 adapter: str) -> None:
    doc = sealed_packet(morning)
    assert doc["items"], "the sealed packet is empty: nothing to check the ask against"
    assert morning["inside"] in [item["link"] for item in doc["items"]]
    server = morning["servers"][adapter]
    closed, price = shown(asks_of(server, "closed_book")), shown(asks_of(server, "price_only"))
    assert closed and price
    for item in doc["items"]:
        assert item["title"] in closed and item["link"] in closed, item
        assert item["title"] not in price and item["link"] not in price, item
    assert f"sealed packet sha256 {arm_run(morning, 'closed_book')['packet_sha256']}" in closed


@pytest.mark.parametrize("arm", ARMS)
def test_search_is_verified_and_a_web_seat_runs_on_api(morning: dict[str, Any], arm: str) -> None:
    run = arm_run(morning, arm)
    assert "web" in morning["policy"].values()
    assert run["network"] == {VENDORS[a][0]: "api" for a in ADAPTERS}  # the roster's `web` seat too
    for adapter in ADAPTERS:
        assert arm_answer(morning, arm, adapter)["search_status"] == "verified"
        assert web_tools(asks_of(morning["servers"][adapter], arm)) == set()  # the CLI's web tools are off


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_web_seat_loses_its_web_tools_in_the_arms(morning: dict[str, Any], adapter: str) -> None:
    """A CLI names its tools in every model call: its web tools in the council's ask when its roster says
    `web` (the arms' switch then matters), in no arm's ask (nor in the council's under `api`)."""
    server = morning["servers"][adapter]
    council = [r for r in server.model_calls() if f"run {SESSION}-r1," in r.body.decode("utf-8", "replace")]
    assert council
    expected = WEB_TOOLS[adapter] if morning["policy"][adapter] == "web" else set()
    assert web_tools(council) == expected
    assert web_tools(asks_of(server, "closed_book") + asks_of(server, "price_only")) == set()


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_outside_lists_the_links_not_in_the_packet(morning: dict[str, Any], adapter: str) -> None:
    inside = morning["inside"]
    assert arm_answer(morning, "closed_book", adapter)["outside"] == [ELSEWHERE]
    assert arm_answer(morning, "price_only", adapter)["outside"] == [inside, ELSEWHERE]


@pytest.mark.parametrize("arm", ARMS)
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_under_api_the_cli_reached_nothing_but_its_stand_in(morning: dict[str, Any], adapter: str,
                                                            arm: str) -> None:
    server = morning["servers"][adapter]
    fetches = arm_answer(morning, arm, adapter)["fetches"]
    assert fetches, "no egress record: the arm did not run behind the proxy"
    assert all(f["allowed"] for f in fetches), fetches
    assert {(f["host"], f["port"]) for f in fetches} == {("127.0.0.1", server.port)}
    assert received_nothing_of(server, morning["secrets"]) == []


def test_the_arms_ran_after_the_counted_run_at_its_cutoff(morning: dict[str, Any]) -> None:
    """The packet's cutoff is the counted run line's time, and the arm runs open after it (08:40 ET)."""
    [packet] = [x for x in arms_book(morning) if x["kind"] == "news_packet"]
    council = book_lines(morning["data"] / "books" / "council-book.jsonl")
    counted = [x for x in council if x["kind"] == "run" and x.get("role") == "counted"]
    assert counted and packet["cutoff"] == counted[0]["at"]
    assert parse_iso(str(arm_run(morning, "closed_book")["at"])) >= et_time(SESSION, time(8, 40))
