"""`league eval context` end to end: the sealed window set, the baselines and a scripted seat asked through the
asking module (league.evals.context.ask, direct and editing), the figures by hand, the recount.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.book import iter_lines
from league.cli import app
from league.clock import SimulatedClock
from league.errors import ConfigError
from league.evals.context.report import results
from league.evals.context.run import AskingSeat, CtxOptions, run_context
from league.evals.context.scores import CtxWindow, effects_met, path_mase, points, within_range
from league.evals.context.sources import read_series_file, shipped_series
from league.evals.context.windowset import WindowSet, build_window_set, effect_bounds
from league.evals.errors import RecountFailed
from league.jsonvalue import Json, JsonObject
from league_agents.base import Ask, Now, SeatReply, SeatSpec


class ScriptedSeat:
    """Reads the real prompt. Direct: the last history value repeated (micro: two steps too many, macro: one too
    few); editing: DONE at once, so the path is the base (both/editing: silent)."""

    spec = SeatSpec(name="scripted", adapter="scripted", model="scripted-1")

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        c = ask.context
        arm, mode = str(c["arm"]), str(c["mode"])
        found = re.search(r"Horizon: (\d+) steps", ask.text)
        history = re.search(r"History values: (\[[^\]]*\])", ask.text)
        assert found is not None and history is not None, ask.text[:300]
        h, last = int(found.group(1)), float(json.loads(history.group(1))[-1])
        if mode == "editing":
            raw = "" if arm == "both" else "DONE"
        else:
            raw = json.dumps([last] * (h + 2 if arm == "micro" else h - 1 if arm == "macro" else h))
        t = now()
        return SeatReply(seat=self.spec.name, raw=raw, model="scripted-1", version="1", mode="", started_at=t,
                         finished_at=t)


class NoSandbox:
    def exec(self, *args: object, **kwargs: object) -> object:
        raise AssertionError("the stand-in runs no code")


CLOCK = SimulatedClock(datetime(2026, 12, 6, 12, tzinfo=UTC))


@pytest.fixture(scope="module")
def window_set() -> WindowSet:
    return build_window_set(read_series_file(shipped_series()), [30], ["long"], max_windows=1)


def recount(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(folder / "tools" / "recount_context.py"), "--data", str(folder)],
                          capture_output=True, text=True, timeout=120)


# ------------------------------------------------------------------------------------------------ by hand


def test_mase_geometric_means_compliance_and_the_breakdown_by_hand() -> None:
    def window(wid: str, history: list[float], future: list[float], bucket: str, micro: list[Json]) -> JsonObject:
        low, high = min(history), max(history)
        pts: list[Json] = [100 * (v - low) / (high - low) for v in (min(future), max(future))]
        return {"id": wid, "history": list[Json](history), "future": list[Json](future), "season": 1, "bucket": bucket,
                "stated_range": [min(future), max(future)], "macro_bounds": [0, len(future) - 1, *pts],
                "micro_bounds": micro, "effects": {"micro.1.kind": "deviation"} if micro else {}}

    doc: JsonObject = {"windows": [window("w1", [1, 3, 2, 4], [5, 5], "short", [[1, 1, 100.0, 200.0]]),
                                   window("w2", [0, 2, 0, 2], [1, 3], "long", [])]}
    paths = {"p1": (4.0, 7.0), "p2": (2.0, 3.0), "p3": (5.0, 6.0)}
    replies: list[JsonObject] = [
        {"seat": "s", "window_id": "w2", "arm": "history", "mode": "direct", "path_sha256": "p2"},
        {"seat": "s", "window_id": "w1", "arm": "macro", "mode": "direct", "path_sha256": "p3"},
        {"seat": "s", "window_id": "w1", "arm": "history", "mode": "direct", "path_sha256": "p1"}]
    _, rows = results(replies, doc, paths.__getitem__)
    got = {(scope, key, fig): value for _, scope, key, fig, value in rows}
    # w1: scale (2+1+2)/3 = 5/3; naive 4,4 -> MASE 1/(5/3) = 0.6; path 4,7 -> errors 1,2 -> 1.5/(5/3) = 0.9
    assert got[("config", "history/direct|short", "mase")] == "0.900000"
    assert got[("config", "history/direct|short", "mase_naive")] == "0.600000"
    assert got[("config", "history/direct|short", "relative")] == "1.500000"
    # w2: scale 2; naive 2,2 -> errors 1,1 -> 0.5; path 2,3 -> errors 1,0 -> 0.25; relative 0.5
    assert got[("config", "history/direct|long", "relative")] == "0.500000"
    # macro on w1: 5,6 -> errors 0,1 -> 0.5/(5/3) = 0.3 -> relative 0.3/0.6 = 0.5
    assert got[("config", "macro/direct|short", "relative")] == "0.500000"
    assert got[("arm", "history/direct", "relative_mase")] == f"{math.sqrt(1.5 * 0.5):.6f}"
    assert got[("overall", "all", "relative_mase")] == f"{(1.5 * 0.5 * 0.5) ** (1 / 3):.6f}"
    assert got[("bucket", "short", "relative_mase")] == f"{math.sqrt(1.5 * 0.5):.6f}"
    # stated ranges in points: w1 [133.3, 133.3] (path 100, 200: out); w2 [50, 150] (path 100, 150: in)
    assert got[("arm", "history/direct", "range_checked")] == "2"
    assert got[("arm", "history/direct", "within_range_share")] == "0.500000"
    # macro bound of w1: 133.3 ± 5; the path's mean 150 points: not met
    assert (got[("arm", "macro/direct", "effects_checked")], got[("arm", "macro/direct", "effects_met")]) == ("1", "0")
    # the history arm is shown no effects: none checked
    assert got[("arm", "history/direct", "effects_checked")] == "0"
    # inside w1's Micro interval (step 1): 2/(5/3) = 1.2 vs the naive's 1/(5/3) = 0.6 -> relative 2
    assert got[("effects", "history/direct|inside", "relative")] == "2.000000"
    assert got[("effects", "history/direct|kind=deviation", "mase")] == "1.200000"
    # outside: w1 step 0 (0.6, naive 0.6), w2 (0.5 + 0, naive 0.5 + 0.5): 1.1/3 vs 1.6/3
    assert got[("effects", "history/direct|outside", "steps")] == "3"
    assert got[("effects", "history/direct|outside", "relative")] == f"{1.1 / 1.6:.6f}"


# ------------------------------------------------------------------------------------------- end to end


def test_a_run_seals_the_set_before_asking_and_recounts(tmp_path: Path, window_set: WindowSet) -> None:
    n = len(window_set.entries)
    assert n >= 2
    seat = AskingSeat("scripted", ScriptedSeat(), "scripted", "scripted-1", limit=2)
    result = run_context(window_set, tmp_path, CLOCK, CtxOptions(("history", "macro", "micro", "both"),
                                                                 ("direct", "editing"), concurrency=3),
                         baselines=["_naive", "_ets", "_theta"], seats=[seat],
                         sandbox=NoSandbox())  # type: ignore[arg-type]
    lines = list(iter_lines(tmp_path / "eval-book.jsonl"))
    kinds = [line.kind for line in lines]
    assert kinds[0] == "ctx.open" and kinds[-1] == "ctx.close"
    assert kinds.count("ctx.reply") == 3 * n + n * 4 * 2
    assert kinds.count("ctx.step") == n * 4  # one per editing ask: DONE (history, macro, micro), silence (both)
    opened = lines[0].content
    assert opened["set_sha256"] == window_set.seal and len(opened["windows"]) == n
    assert opened["windows_sha256"] == hashlib.sha256((tmp_path / "context-windows.json").read_bytes()).hexdigest()
    prompts = opened["prompts"]
    assert len(prompts) == n * 8 and all((tmp_path / "prompts" / f"{h}.txt").is_file() for h in prompts.values())
    replies = [line.content for line in lines if line.kind == "ctx.reply"]
    asked = [r for r in replies if r["seat"] == "scripted"]
    assert {r["prompt_sha256"] for r in asked} == set(prompts.values())
    by = {(r["arm"], r["mode"]): r["fit"] for r in asked}
    assert by[("micro", "direct")] == "truncated" and by[("macro", "direct")] == "padded"
    assert by[("both", "editing")] == "missing" and by[("history", "editing")] == "exact"
    got = {(s, scope, key, fig): v for s, scope, key, fig, v in result.rows}
    assert got[("_naive", "overall", "all", "relative_mase")] == "1.000000"
    assert got[("scripted", "arm", "micro/direct", "truncated")] == str(n)
    assert got[("scripted", "arm", "both/editing", "missing")] == str(n)
    assert got[("scripted", "arm", "history/editing", "range_checked")] == "0"  # editing states no range
    # the scripted editing path is the ETS base path: the same MASE as the _ets baseline
    assert got[("scripted", "arm", "history/editing", "relative_mase")] == got[("_ets", "overall", "all",
                                                                                 "relative_mase")]
    public = result.public
    for name in ("context-windows.json", "context-results.json", "context-scores.csv", "eval-book.jsonl"):
        assert (public / name).is_file()
    ok = recount(public)
    assert ok.returncode == 0 and "0 difference(s)" in ok.stdout, ok.stdout


def test_a_changed_figure_fails_the_recount_naming_it(tmp_path: Path, window_set: WindowSet) -> None:
    result = run_context(window_set, tmp_path, CLOCK, CtxOptions(("history",), ("direct",)),
                         baselines=["_naive", "_theta"])
    scores = result.public / "context-scores.csv"
    with scores.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    target = next(r for r in rows if r[:4] == ["_theta", "overall", "all", "relative_mase"])
    target[4] = f"{float(target[4]) + 0.000001:.6f}"
    with scores.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)
    bad = recount(result.public)
    assert bad.returncode == 1
    assert "DIFFERS c001: _theta overall all relative_mase: published" in bad.stdout, bad.stdout
    # a path changed after the run fails its sealed hash
    path_file = next((result.public / "paths").glob("*.txt"))
    path_file.write_text("[1.0]", encoding="ascii")
    assert "does not have its sealed hash" in recount(result.public).stdout


def test_the_realised_future_keeps_every_effect_of_the_shipped_set(window_set: WindowSet) -> None:
    for e in window_set.entries:
        w = e.window
        bounds = effect_bounds(e.effects, w.history, w.future)
        count = e.effects["micro.count"]
        assert isinstance(count, int)
        intervals = {(0, w.horizon - 1)} | {(e.effects[f"micro.{i}.start"], e.effects[f"micro.{i}.end"])
                                            for i in range(1, count + 1)}
        assert set(bounds) == intervals  # a Micro interval over the whole horizon shares the Macro one's key
        assert effects_met(w.future, w.history, bounds) == (len(bounds), len(bounds))
        stated = points(e.stated_range, w.history)
        assert stated is not None and within_range(w.future, w.history, (stated[0], stated[1]))


def test_a_reply_with_another_prompt_fails_the_recount(tmp_path: Path, window_set: WindowSet) -> None:
    seat = AskingSeat("scripted", ScriptedSeat(), "scripted", "scripted-1")
    result = run_context(window_set, tmp_path, CLOCK, CtxOptions(("history",), ("direct",)), seats=[seat],
                         sandbox=NoSandbox())  # type: ignore[arg-type]
    assert "0 difference(s)" in recount(result.public).stdout
    prompt = next((result.public / "prompts").glob("*.txt"))
    prompt.write_text("another prompt", encoding="utf-8")
    assert "does not have its sealed hash" in recount(result.public).stdout


def test_the_relative_mase_of_the_ets_baseline_equals_utilsforecast(window_set: WindowSet) -> None:
    pd = pytest.importorskip("pandas")
    losses = pytest.importorskip("utilsforecast.losses")
    for e in window_set.entries:
        w, m = e.window, e.season
        naive = [w.history[len(w.history) - 1 + h - m * math.ceil(h / m)] for h in range(1, w.horizon + 1)]
        n = len(w.history)
        train = pd.DataFrame({"unique_id": "a", "ds": list(range(n)), "y": list(w.history)})
        test = pd.DataFrame({"unique_id": "a", "ds": list(range(n, n + w.horizon)), "y": list(w.future),
                             "ets": list(e.reference), "naive": naive})
        expected = losses.mase(test, ["ets", "naive"], m, train)
        ours = CtxWindow(w.history, w.future, m, w.bucket)
        mase_ets, mase_naive = path_mase(e.reference, ours), path_mase(tuple(naive), ours)
        assert mase_ets is not None and mase_naive is not None
        assert mase_ets == pytest.approx(float(expected["ets"].iloc[0]), rel=1e-12)
        assert mase_ets / mase_naive == pytest.approx(
            float(expected["ets"].iloc[0]) / float(expected["naive"].iloc[0]), rel=1e-12)


def test_the_command_runs_baselines_and_a_seat_and_recount_checks_it(tmp_path: Path) -> None:
    out = tmp_path / "o"
    res = CliRunner().invoke(app, ["eval", "context", "--seat", "_naive,_ets", "--seat", "standin-sharp",
                                   "--arms", "history,both", "--modes", "direct", "--horizon", "30",
                                   "--buckets", "long", "--max-windows", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "standin-sharp" in res.output and "history/direct" in res.output and "_ets" in res.output
    folder = out / "public" / "context" / "c001"
    rec = CliRunner().invoke(app, ["eval", "recount", str(folder)])
    assert rec.exit_code == 0 and "0 difference(s)" in rec.output, rec.output
    scores = folder / "context-scores.csv"
    scores.write_text(scores.read_text(encoding="utf-8").replace("_naive,overall,all,relative_mase,1.000000",
                                                                 "_naive,overall,all,relative_mase,0.990000"),
                      encoding="utf-8")
    rec = CliRunner().invoke(app, ["eval", "recount", str(folder)])
    assert isinstance(rec.exception, RecountFailed) and rec.exception.exit_code == 4
    assert "DIFFERS c001: _naive overall all relative_mase: published '0.990000'" in rec.output
    bad = CliRunner().invoke(app, ["eval", "context", "--arms", "sideways", "--out", str(out)])
    assert isinstance(bad.exception, ConfigError) and "unknown arms sideways" in str(bad.exception)
    assert bad.exception.exit_code == 2 and not (out / "public" / "context" / "c002").exists()


def test_the_recount_revalidates_every_effects_record_and_names_a_planted_wrong_value(
        tmp_path: Path, window_set: WindowSet) -> None:
    result = run_context(window_set, tmp_path, CLOCK, CtxOptions(("history",), ("direct",)), baselines=["_naive"])
    ok = CliRunner().invoke(app, ["eval", "recount", str(result.public)])
    assert ok.exit_code == 0, ok.output
    n = len(window_set.entries)
    assert f"effects re-validated with league.evals.context.validate (needs numpy): {n} window(s), 0 record" \
        in ok.output
    published = result.public / "context-windows.json"
    doc = json.loads(published.read_text(encoding="utf-8"))
    target = doc["windows"][-1]
    planted = float(target["effects"]["macro.max"]) + 40.0  # 40 history points off: far beyond the tolerance
    target["effects"]["macro.max"] = planted
    published.write_text(json.dumps(doc), encoding="utf-8")
    bad = CliRunner().invoke(app, ["eval", "recount", str(result.public)])
    assert isinstance(bad.exception, RecountFailed) and bad.exception.exit_code == 4
    assert f"DIFFERS c001: window {target['id']}: effects macro.max: {planted} does not hold: recomputed" \
        in bad.output, bad.output
    assert f"{n} window(s), 1 record(s) that do not hold" in bad.output


def test_league_verify_checks_a_contextual_run_book_recount_and_effects(tmp_path: Path, window_set: WindowSet) -> None:
    result = run_context(window_set, tmp_path, CLOCK, CtxOptions(("history",), ("direct",)), baselines=["_naive"])
    ok = CliRunner().invoke(app, ["verify", str(result.public)])
    assert ok.exit_code == 0, ok.output
    assert "step  1 the eval book: ok" in ok.output and "step  2 the stand-alone recount: ok" in ok.output
    assert f"step  3 the effects: ok — {len(window_set.entries)} window(s)" in ok.output
    # a figure changed in the published table: the recount step fails naming it; the book still holds
    scores = result.public / "context-scores.csv"
    original = scores.read_text(encoding="utf-8")
    scores.write_text(original.replace("_naive,overall,all,relative_mase,1.000000",
                                       "_naive,overall,all,relative_mase,0.990000"), encoding="utf-8")
    bad = CliRunner().invoke(app, ["verify", str(result.public)])
    assert bad.exit_code == 1 and "step  2 the stand-alone recount: FAILED" in bad.output, bad.output
    assert "DIFFERS c001: _naive overall all relative_mase: published '0.990000'" in bad.output
    assert "step  1 the eval book: ok" in bad.output
    # one byte of the book changed: the chain step fails at that line
    scores.write_text(original, encoding="utf-8")
    book = result.public / "eval-book.jsonl"
    lines = book.read_bytes().split(b"\n")
    lines[0] = lines[0].replace(b'"run_id":"c001"', b'"run_id":"c002"', 1)
    book.write_bytes(b"\n".join(lines))
    broken = CliRunner().invoke(app, ["verify", str(result.public)])
    assert broken.exit_code == 1 and "step  1 the eval book: FAILED — line 1:" in broken.output, broken.output
