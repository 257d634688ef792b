"""Fixtures of the real-CLI tests: the pinned CLIs (installed once, cached), stand-in model servers,
planted operator secrets, and seats pointed at a stand-in through the real sandbox and egress proxy.

Nothing can leave the machine: each CLI runs in its sandbox's own network namespace whose only way
out is the egress proxy, and the allow-lists name only stand-ins on 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import clis
import pytest
from standin_models import StandIn

from league.config import load_markets, shipped_config_dir
from sandbox.profiles import PROFILES

#: adapter -> (seat name, model, the key variable its profile passes, base URL suffix)
VENDORS: dict[str, tuple[str, str, str, str]] = {
    "claude_code": ("claude", "claude-fable-5-1", "ANTHROPIC_API_KEY", ""),
    "codex": ("codex", "gpt-6-luna", "OPENAI_API_KEY", "/v1"),
    "gemini_cli": ("gemini", "gemini-3.1-pro-high", "GEMINI_API_KEY", ""),
    "grok_cli": ("grok", "grok-4.7", "GROK_API_KEY", "/v1"),
}
#: Values of the operator's environment that must never reach a model server.
OPERATOR_SECRETS = {"OPERATOR_SECRET": "op-secret-6b1f", "PGPASSWORD": "pg-secret-90aa",
                    "AWS_SECRET_ACCESS_KEY": "aws-secret-77c2", "LEAGUE_SIGNING_PASSPHRASE": "sign-secret-3d4e"}


def council_reply(seed: int = 0) -> str:
    """A full council answer: every market of the shipped config, every horizon (``seed`` varies it)."""
    markets = load_markets(shipped_config_dir() / "markets.toml").markets
    forecast: dict[str, Any] = {}
    for i, m in enumerate(markets):
        cells = {h: {"prob_up": 30 + (i * 7 + j * 3 + seed * 11) % 41, "action": "hold"}
                 for j, h in enumerate(m.horizons)}
        forecast[m.code] = {**cells, "years": "stand-in sentence"}
    return "Reasoned from the snapshot.\n```json\n" + json.dumps({"forecast": forecast}) + "\n```\n"


@pytest.fixture(scope="session")
def cli_prefix() -> Path:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    return clis.install()


@pytest.fixture(autouse=True)
def node_address_space(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini and Grok CLI reserve WebAssembly memory that an 8 GiB RLIMIT_AS forbids (vendors.md);
    the vendor profiles here lift the address-space ceiling until seats are capped by cgroups."""
    for name in ("claude", "codex", "gemini", "grok"):
        monkeypatch.setitem(PROFILES, name, dataclasses.replace(PROFILES[name], memory_mb=1 << 20))


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """The operator's environment: planted secrets, and each seat's own key (which may pass)."""
    for key, value in OPERATOR_SECRETS.items():
        monkeypatch.setenv(key, value)
    for _, (name, _, key, _) in VENDORS.items():
        monkeypatch.setenv(key, f"sk-seat-{name}")
    for other in ("CODEX_API_KEY", "GOOGLE_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL",
                  "OPENAI_BASE_URL", "GROK_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv("LEAGUE_CREDENTIALS_HOME", str(tmp_path / "empty-home"))
    return dict(OPERATOR_SECRETS)


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with StandIn(council_reply()) as server:
        yield server


def seat_table(adapter: str, base_url: str, prefix: Path, *, network: str = "api", allow: list[str] | None = None,
               timeout_s: float = 120, name: str | None = None) -> str:
    """One [[seat]] table of a roster for a real CLI behind a stand-in."""
    seat, model, _, suffix = VENDORS[adapter]
    lines = [f'[[seat]]\nname = "{name or seat}"\nadapter = "{adapter}"\nmodel = "{model}"\nfamily = "{seat}-lab"',
             f'effort = "high"\ntimeout_s = {timeout_s}\nnetwork = "{network}"\ncredentials = []']
    if allow is not None:
        lines.append("allow = [" + ", ".join(f'"{a}"' for a in allow) + "]")
    lines.append(f'options = {{ base_url = "{base_url}{suffix}", cli_prefix = "{prefix}" }}')
    return "\n".join(lines) + "\n"


def received_nothing_of(standin: StandIn, secrets: dict[str, str]) -> list[str]:
    """The planted variables (names or values) found in anything the stand-in received (empty when
    nothing of the operator's environment leaked)."""
    seen = standin.everything_received()
    return [k for k, v in secrets.items() if v in seen or k in seen]


COUNTING = 'counting_rule = "The scheduled 08:30 ET morning run counts."\n'


def run_morning(tmp_path: Path, seats: str, session: Any, until: Any = None) -> list[dict[str, Any]]:
    """An offline league (replay prices, simulated clock) whose morning runs up to ``until`` (09:29 ET);
    the CLI seats really run, in the sandbox. Returns the council book's lines."""
    from datetime import time

    from league.calendar import et_time
    from league.clock import SimulatedClock
    from league.compose import build_league
    from league.config import load_config
    from league.folder import init_folder
    from league.jobs.context import BARE
    from league.jobs.scheduler import catch_up
    from league.jobs.seal import pump

    clock = SimulatedClock(et_time(session, time(3, 0)))
    config_dir, data_dir = init_folder(tmp_path, demo=True, clock=clock)
    (config_dir / "roster.toml").write_text(COUNTING + seats)
    end = until or et_time(session, time(9, 29))
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        catch_up(lg, et_time(session, time(3, 0)), end, before_each=lambda f: pump(lg, f.at))
        pump(lg, end)
    return [json.loads(x) for x in (data_dir / "books" / "council-book.jsonl").read_text().splitlines()]
