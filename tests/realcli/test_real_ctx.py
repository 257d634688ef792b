"""The contextual track's path questions with the four real vendor CLIs: each pinned CLI, in the real sandbox
under the run's ``api`` policy (its only way out the egress proxy to a stand-in of its vendor's API on 127.0.0.1),
is asked through ``ask_path`` for two windows made by windows.py from a synthetic series, in both modes and all
four arms (the arms spread over the two windows). The stand-in answers a direct ask with a JSON array (of the
wrong length for two arms, so the scores' fit truncates and pads) and an editing ask with one program, then DONE;
the league runs each program in its own sandbox. Asserted: the lengths and fits, the editing steps, that the
prompt the model received is the very prompt and carries its arm's effects and not the other arm's, that no
prompt names a model, seat or family, and that nothing of the operator's environment reached the stand-in.

The second test asks each CLI through ``league eval context`` itself, on a data folder made by ``league init
--history`` (the league's recorded history) and on the shipped series file, and checks the published compliance
counts against counts derived from the scripted replies.

``LEAGUE_CLI_VERSIONS=newest`` runs the same tests against the npm registry's newest CLIs (tests/realcli/clis.py).
"""

from __future__ import annotations

import csv
import gzip
import json
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import VENDORS, received_nothing_of, seat_table
from standin_models import StandIn
from typer.testing import CliRunner

from league.cli import app
from league.clock import SimulatedClock
from league.evals.context.ask import ARMS, EditStep, PathQuestion, PathReply, arm_effects, ask_path, ask_text
from league.evals.context.effects import compute_effects
from league.evals.context.pathprompt import canonical_path, numbers
from league.evals.context.scores import fit, naive_path
from league.evals.context.windows import Series, Window, make_windows
from league.evals.policy import Policy, PolicySandbox
from league.evals.seats import policy_seat
from league.folder import init_folder
from league_agents.base import SeatSpec
from league_agents.registry import make_sandbox
from sandbox.interface import system_now

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
H = 30
SEASON = 12
SHIFT = 1.5
#: direct mode: how many steps the stand-in answers per arm (the horizon ± a few: the scores' fit is exercised)
LENGTHS = {"history": H, "macro": H + 2, "micro": H - 3, "both": H}
FITS = {"history": "exact", "macro": "truncated", "micro": "padded", "both": "exact"}
STEP_ONE = f"```python\npath = [v + {SHIFT} for v in path]\n```\n"


def series() -> Series:
    """240 hourly steps: a period-12 wave on a slow trend, with a level shift late in the newest window."""
    vals = [50 + 10 * math.sin(2 * math.pi * t / SEASON) + 0.05 * t + (9.0 if t >= 225 else 0.0) for t in range(240)]
    stamps = tuple(f"2026-03-{1 + t // 24:02d}T{t % 24:02d}:00:00+00:00" for t in range(240))
    return Series("wave", stamps, tuple(vals))


def questions() -> list[PathQuestion]:
    windows: list[Window] = make_windows(series(), H, "long")
    assert len(windows) == 2
    out = []
    for mode in ("direct", "editing"):
        for i, arm in enumerate(ARMS):
            w = windows[i % 2]
            reference = naive_path(w.history, H, SEASON)
            record = compute_effects(w.history, w.future, reference, history_period=SEASON).record()
            out.append(PathQuestion(
                window_id=f"{w.sha256[:12]}-{arm}-{mode}", arm=arm, mode=mode, history=w.history,
                history_timestamps=w.history_timestamps, future_timestamps=w.future_timestamps,
                stated_range=(min(w.future) - 1, max(w.future) + 1), effects=arm_effects(record, arm),
                base=reference if mode == "editing" else None))
    return out


def respond(body: bytes) -> str:
    """The scripted model: reads which ask this is from the prompt inside the request body."""
    text = body.decode("utf-8", "replace")
    if "Improve a statistical base forecast" in text:
        return "DONE" if "This is reply 1 of at most" not in text else "I will lift the base a little.\n" + STEP_ONE
    arm = {(True, True): "both", (True, False): "macro", (False, True): "micro", (False, False): "history"}[
        ("macro.trend.count =" in text, "micro.count =" in text)]
    return "Here is the forecast.\n```json\n" + json.dumps([round(40 + 0.5 * k, 3) for k in range(LENGTHS[arm])]) \
        + "\n```\n"


def history_marker(q: PathQuestion) -> str:
    return ask_text(q).split("History values: ", 1)[1][:60]


@pytest.mark.parametrize("adapter", sorted(VENDORS))
def test_real_cli_answers_path_questions_in_both_modes_and_every_arm(adapter: str, cli_prefix: Path,
                                                                     secrets: dict[str, str]) -> None:
    seat_name, model, _, suffix = VENDORS[adapter]
    qs = questions()
    steps: dict[str, list[EditStep]] = {q.window_id: [] for q in qs}
    with StandIn("unused", respond=respond) as standin:
        spec = SeatSpec(name=seat_name, adapter=adapter, model=model, family=f"{seat_name}-lab", effort="high",
                        timeout_s=180, network="api", credentials=(),
                        options={"base_url": standin.url + suffix, "cli_prefix": str(cli_prefix)})
        box = make_sandbox()
        seat = policy_seat(spec, Policy.API, sandbox=box)
        programs = PolicySandbox(box, Policy.API)  # as the pipeline may pass it: programs still get no network

        def one(q: PathQuestion) -> PathReply:
            return ask_path(seat, q, sandbox=programs, now=system_now, on_step=steps[q.window_id].append)

        with ThreadPoolExecutor(max_workers=2) as pool:
            replies = list(pool.map(one, qs))
        bodies = [c.body.decode("utf-8", "replace") for c in standin.model_calls()]
        leaked = received_nothing_of(standin, secrets)
    assert not leaked
    for q, reply in zip(qs, replies, strict=True):
        assert reply.ended == "answered", (q.window_id, reply.error, reply.raw[-500:], reply.steps)
        assert reply.prompt_sha256 and reply.values is not None
        if q.mode == "direct":
            assert len(reply.values) == LENGTHS[q.arm] and reply.steps == ()
            fitted, how = fit(reply.values, q.horizon)
            assert how == FITS[q.arm] and fitted is not None and len(fitted) == H
        else:
            assert q.base is not None
            want = tuple(b + SHIFT for b in q.base)
            assert reply.values == pytest.approx(want)
            assert [(s.index, s.ok, s.code.strip()) for s in reply.steps] == [
                (1, True, STEP_ONE.split("\n")[1]), (2, True, "DONE")]
            assert reply.steps[0].path_sha256 == reply.steps[1].path_sha256 is not None
            assert steps[q.window_id] == list(reply.steps)  # every step handed over as it happened
            assert reply.values is not None and canonical_path(reply.values)
        # the model received this very question: its window, its mode, its arm's effects and no other arm's
        shows_macro, shows_micro = q.arm in ("macro", "both"), q.arm in ("micro", "both")
        mode_mark = "Improve a statistical base forecast" if q.mode == "editing" else "Forecast the next values"
        got = [b for b in bodies if history_marker(q) in b and mode_mark in b
               and ("macro.trend.count =" in b) is shows_macro and ("micro.count =" in b) is shows_micro]
        assert got, (adapter, q.window_id)
        if q.effects:
            first_key = next(iter(q.effects))
            assert f"{first_key} = " in got[0]
        # ... and received it whole: the very prompt (the first ask's, in editing mode), which names no seat or model
        prompt = ask_text(q)
        assert any(json.dumps(prompt)[1:-1] in b for b in got), (adapter, q.window_id)
        assert not [w for w in (seat_name, model, f"{seat_name}-lab", adapter) if w.lower() in prompt.lower()]


# ----------------------------------------------------------------------------- through `league eval context`

#: direct mode, per arm: (steps answered beyond the horizon, the path is the realised future or far outside it)
THROUGH = {"history": (0, True), "macro": (2, True), "micro": (-3, False), "both": (0, True)}


def one_series_history(tmp_path: Path) -> Path:
    """A recorded daily history (``league init --history``) of one market: the shipped demo's S&P 500 rows."""
    shipped = Path(__file__).resolve().parents[2] / "league" / "scoring" / "data" / "demo-history.csv.gz"
    rows = gzip.decompress(shipped.read_bytes()).decode("utf-8").splitlines()
    keep = [rows[0], *[r for r in rows[1:] if r.startswith("^GSPC,")]]
    path = tmp_path / "history.csv.gz"
    path.write_bytes(gzip.compress(("\n".join(keep) + "\n").encode("utf-8"), mtime=0))
    return path


def one_shipped_series(tmp_path: Path) -> Path:
    """The shipped series file's first series (``load``), as a copy."""
    rows = (Path(__file__).resolve().parents[2] / "league" / "evals" / "data" / "ctx-series.csv").read_text(
        encoding="utf-8").splitlines()
    path = tmp_path / "ctx-series-load.csv"
    path.write_text("\n".join([rows[0], *[r for r in rows[1:] if r.startswith("load,")]]) + "\n", encoding="utf-8")
    return path


class Scripted:
    """The model behind the stand-in: finds the window by the history in the prompt (in the run's published
    window set, written before any ask) and answers from the realised future: direct mode the future (two steps
    too many for macro), or for micro three steps too few and far above everything; editing mode one program
    that sets the path the same way (at H steps), then DONE. "Far above" is a slow rise from far above the
    future's maximum plus ten history ranges (above every stated range and effect bound)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.lock = threading.Lock()

    def window(self, body: str) -> dict[str, Any]:
        doc = json.loads((self.out / "context-windows.json").read_text(encoding="utf-8"))
        found = [w for w in doc["windows"] if numbers(w["history"])[:80] in body]
        assert len(found) == 1, body[:400]
        return dict(found[0])

    def __call__(self, body: bytes) -> str:
        text = body.decode("utf-8", "replace")
        with self.lock:
            w = self.window(text)
        arm = {(True, True): "both", (True, False): "macro", (False, True): "micro", (False, False): "history"}[
            ("macro.trend.count =" in text, "micro.count =" in text)]
        extra, inside = THROUGH[arm]
        future, history = list(w["future"]), list(w["history"])
        far = max(future) + 10 * (max(history) - min(history))
        path = future if inside else [far + 0.37 * k for k in range(len(future))]  # distinct: Gemini CLI stops
        # a reply that repeats one chunk over and over (its loop detection), so no run of equal numbers
        if "Improve a statistical base forecast" in text:
            if "This is reply 1 of at most" not in text:
                return "DONE"
            return "Setting the path.\n```python\npath = " + json.dumps(path) + "\n```\n"
        n = len(future) + extra
        answer = (path + [path[-1]] * extra)[:n] if extra >= 0 else path[:n]
        return "Here is the forecast.\n```json\n" + json.dumps(answer) + "\n```\n"


def intervals(w: dict[str, Any], arm: str) -> int:
    """How many effect intervals an arm is scored on (distinct closed intervals: the whole horizon for Macro,
    each Micro interval), from the window's effects record."""
    rec, h = w["effects"], w["horizon"]
    shown: set[tuple[int, int]] = set()
    if arm in ("macro", "both"):
        shown.add((0, h - 1))
    if arm in ("micro", "both"):
        shown |= {(rec[f"micro.{i}.start"], rec[f"micro.{i}.end"]) for i in range(1, rec["micro.count"] + 1)}
    return len(shown)


def expected(windows: list[dict[str, Any]], arm: str, mode: str) -> dict[str, str]:
    """The compliance counts the scripted replies must give (docs/evals.md, section C)."""
    n = len(windows)
    extra, inside = THROUGH[arm]
    how = "exact" if mode == "editing" or extra == 0 else "truncated" if extra > 0 else "padded"
    checked = sum(intervals(w, arm) for w in windows)
    want = {"answers": n, "exact": 0, "truncated": 0, "padded": 0, "missing": 0,
            "range_checked": n if mode == "direct" else 0,
            "within_range": n if mode == "direct" and inside else 0,
            "effects_checked": checked, "effects_met": checked if inside else 0}
    want[how] = n
    return {k: str(v) for k, v in want.items()}


@pytest.mark.timeout(900)  # 24 sandboxed CLI runs; Gemini CLI alone takes over 300 s on a loaded 2-core machine
@pytest.mark.parametrize("adapter", sorted(VENDORS))
def test_real_cli_through_the_command_on_the_leagues_history_and_the_shipped_series(
        adapter: str, tmp_path: Path, cli_prefix: Path, secrets: dict[str, str]) -> None:
    seat_name = VENDORS[adapter][0]
    _, data = init_folder(tmp_path / "lg", history=one_series_history(tmp_path),
                          clock=SimulatedClock(datetime(2026, 1, 2, 12, tzinfo=UTC)))
    out = tmp_path / "eval"
    scripted = Scripted(out)
    with StandIn("unused", respond=scripted) as standin:
        roster = tmp_path / "roster.toml"
        roster.write_text(seat_table(adapter, standin.url, cli_prefix, timeout_s=300).replace(
            "options = { ", "options = { max_concurrency = 4, ", 1))
        common = ["--roster", str(roster), "--seat", seat_name, "--policy", "api", "--horizon", "30",
                  "--buckets", "long", "--max-windows", "1", "--concurrency", "4", "--out", str(out)]
        runs = []
        for source in (["--data", str(data)], ["--series", str(one_shipped_series(tmp_path))]):
            res = CliRunner().invoke(app, ["eval", "context", *source, *common])
            assert res.exit_code == 0, res.output
            folder = out / "public" / "context" / f"c{len(runs) + 1:03d}"
            runs.append(folder)
        leaked = received_nothing_of(standin, secrets)
    assert not leaked
    for folder, kind in zip(runs, ("league", "file"), strict=True):
        doc = json.loads((folder / "context-windows.json").read_text(encoding="utf-8"))
        assert doc["source"]["kind"] == kind and len(doc["windows"]) >= 1
        windows = list(doc["windows"])
        lines = [json.loads(x) for x in (folder / "eval-book.jsonl").read_text(encoding="utf-8").splitlines()]
        replies = [x for x in lines if x["kind"] == "ctx.reply" and x["run_id"] == folder.name]
        assert len(replies) == len(windows) * 8
        assert [(r["arm"], r["mode"], r["error"]) for r in replies if r["ended"] != "answered"] == []
        steps = [x for x in lines if x["kind"] == "ctx.step" and x["run_id"] == folder.name]
        assert len(steps) == len(windows) * 4 * 2 and all(s["ok"] for s in steps)
        with (folder / "context-scores.csv").open(newline="", encoding="utf-8") as fh:
            got = {(r["seat"], r["scope"], r["key"], r["figure"]): r["value"] for r in csv.DictReader(fh)}
        for arm in ARMS:
            for mode in ("direct", "editing"):
                want = expected(windows, arm, mode)
                have = {f: got.get((seat_name, "arm", f"{arm}/{mode}", f)) for f in want}
                assert have == want, (adapter, folder.name, arm, mode)
        rec = CliRunner().invoke(app, ["eval", "recount", str(folder)])
        assert rec.exit_code == 0 and "0 difference(s)" in rec.output, rec.output
