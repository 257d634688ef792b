"""Asking a seat for a window's path: the prompt per arm, strict parsing, the editing loop, the program sandbox."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.evals.context.ask import ARMS, MODES, EditStep, PathQuestion, PathReply, arm_effects, ask_path, ask_text
from league.evals.context.ask import parse_path as parse_path_exported
from league.evals.context.editing import EDIT_PROFILE, run_program
from league.evals.context.pathparse import parse_path, parse_step
from league.evals.context.pathprompt import MAX_EDIT_STEPS, PathQuestionError, StepRecord, canonical_path, edit_text
from league.evals.context.scores import fit
from league.evals.policy import Policy, PolicySandbox
from league_agents.base import Ask, FailureClass, SeatReply, SeatSpec
from league_agents.registry import build_seat
from sandbox.bwrap import BwrapSandbox
from sandbox.interface import EndedBy, ExecResult, Sandbox, SandboxError, system_now
from sandbox.netpolicy import EgressRules
from sandbox.profiles import SANDBOX_HOME, Profile

T0 = datetime(2026, 12, 1, tzinfo=UTC)
HISTORY = (10.0, 12.0, 14.0, 11.0, 13.0, 15.0)
HIST_TS = tuple(f"2026-01-0{d}T00:00:00" for d in range(1, 7))
FUT_TS = ("2026-01-07T00:00:00", "2026-01-08T00:00:00", "2026-01-09T00:00:00")
BASE = (15.0, 16.0, 17.0)
RECORD: dict[str, object] = {
    "macro.trend.count": 1, "macro.trend.1.direction": "up", "macro.trend.1.shape": "linear",
    "macro.trend.1.share": 1.0, "macro.season.period": None, "macro.season.waveform": [], "macro.min": 90.5,
    "macro.max": 120.25, "micro.count": 1, "micro.1.kind": "level_shift", "micro.1.start": 1, "micro.1.end": 2,
    "micro.1.strength": 18.75,
}
MODEL_WORDS = ("claude", "gpt", "gemini", "grok", "codex", "anthropic", "openai", "scripted", "seat-x", "model")


def question(arm: str = "both", mode: str = "direct", **kw: object) -> PathQuestion:
    args: dict[str, object] = {
        "window_id": "w1", "arm": arm, "mode": mode, "history": HISTORY, "history_timestamps": HIST_TS,
        "future_timestamps": FUT_TS, "stated_range": (9.0, 21.0), "effects": arm_effects(RECORD, arm),
        "base": BASE if mode == "editing" else None}
    args.update(kw)
    return PathQuestion(**args)  # type: ignore[arg-type]


class ListSeat:
    """A scripted seat: the replies in order (``None``: silent), every ask kept."""

    def __init__(self, replies: Sequence[str | None] | Callable[[Ask], str | None]) -> None:
        self.spec = SeatSpec(name="seat-x", adapter="scripted", model="gpt-model-z")
        self.replies = replies
        self.asks: list[Ask] = []

    def ask(self, ask: Ask, now: Callable[[], datetime]) -> SeatReply:
        self.asks.append(ask)
        if callable(self.replies):
            raw = self.replies(ask)
        else:
            raw = self.replies[len(self.asks) - 1] if len(self.asks) <= len(self.replies) else None
        started = now()
        failure = FailureClass.TIMEOUT if raw is None else None
        return SeatReply(seat="seat-x", raw=raw or "", model="gpt-model-z", version="1", mode="", started_at=started,
                         finished_at=now(), failure=failure)


def now() -> datetime:
    return T0


class PlainProcess:
    """A plain-subprocess Sandbox (the loop's logic without bwrap; the real sandbox is tested below)."""

    def __init__(self) -> None:
        self.calls = 0

    def exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float,
             env: Mapping[str, str] | None = None, egress: EgressRules | None = None,
             profile: str | Profile = "default", files_in_home: Mapping[str, bytes] | None = None,
             owner: str | None = None) -> ExecResult:
        self.calls += 1
        started = system_now()
        with tempfile.TemporaryDirectory() as home:
            for name, data in (files_in_home or {}).items():
                Path(home, name).write_bytes(data)
            args = [sys.executable if a == "/usr/bin/python3" else a.replace(SANDBOX_HOME, home) for a in argv]
            proc = subprocess.run(args, input=stdin, capture_output=True, timeout=timeout, check=False, cwd=home)  # noqa: S603
        return ExecResult(tuple(argv), proc.stdout, proc.stderr, proc.returncode, started, system_now(),
                          EndedBy.EXIT, 0.0)


def program(body: str) -> str:
    return f"I will shift the path.\n```python\n{body}\n```\n"


# -- the prompt ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("arm", ARMS)
@pytest.mark.parametrize("mode", MODES)
def test_prompt_shows_only_the_arms_effects_and_no_model(arm: str, mode: str) -> None:
    text = ask_text(question(arm, mode))
    shows_macro = arm in ("macro", "both")
    shows_micro = arm in ("micro", "both")
    assert ("macro.trend.1.direction = up" in text) is shows_macro
    assert ("macro.max = 120.25" in text) is shows_macro
    assert ("micro.1.kind = level_shift" in text) is shows_micro
    assert ("micro.1.strength = 18.75" in text) is shows_micro
    assert ("0 = the history's minimum (10)" in text) is (shows_macro or shows_micro)
    lowered = text.lower()
    assert not [w for w in MODEL_WORDS if w in lowered]
    assert "The future lies within [9, 21]; keep every step inside." in text
    assert "Horizon: 3 steps." in text
    assert "3 steps from 2026-01-07T00:00:00 to 2026-01-09T00:00:00, one every 1 day" in text
    assert "[10, 12, 14, 11, 13, 15]" in text
    if mode == "direct":
        assert "JSON array of exactly 3 numbers" in text
        assert "Base forecast" not in text
    else:
        assert "Base forecast (3 values): [15, 16, 17]" in text and "DONE" in text
        assert f"at most {MAX_EDIT_STEPS}" in text


def test_prompt_is_the_same_for_the_same_question_and_lists_irregular_timestamps() -> None:
    ts = ("2026-01-31", "2026-02-28", "2026-03-31")
    q = question(future_timestamps=ts)
    assert ask_text(q) == ask_text(question(future_timestamps=ts))
    assert "3 steps: 2026-01-31, 2026-02-28, 2026-03-31" in ask_text(q)


def test_editing_prompt_shows_the_steps_so_far() -> None:
    text = edit_text(question(mode="editing"), [StepRecord("path = [v + 1 for v in path]", "ok")], (16.0, 17.0, 18.0))
    assert "Step 1 program:\n```python\npath = [v + 1 for v in path]\n```\nStep 1 result: ok" in text
    assert "Current path: [16, 17, 18]" in text and "This is reply 2 of at most 10" in text


@pytest.mark.parametrize(("kw", "word"), [
    ({"arm": "prose"}, "unknown arm"),
    ({"mode": "chat"}, "unknown mode"),
    ({"mode": "editing", "base": (1.0, 2.0)}, "base forecast of 3 steps, got 2 steps"),
    ({"mode": "editing", "base": None}, "got none"),
    ({"base": BASE}, "editing mode only"),
    ({"arm": "history", "effects": {"macro.min": 1.0}}, "shows no effects"),
    ({"arm": "macro", "effects": dict(RECORD)}, "would show 'micro.count'"),
    ({"arm": "micro", "effects": None}, "needs its effects"),
    ({"history": (1.0, math.nan, 2.0, 3.0, 4.0, 5.0)}, "history step 1 is not a finite number"),
    ({"history": (1.0, 2.0)}, "2 history values, 6 timestamps"),
    ({"stated_range": (5.0, 1.0)}, "not finite low <= high"),
    ({"future_timestamps": ()}, "no future timestamps"),
    ({"window_id": ""}, "needs a window_id"),
])
def test_bad_questions_are_refused_with_the_key(kw: dict[str, object], word: str) -> None:
    args: dict[str, object] = {"window_id": "w1", "arm": "both", "mode": "direct", "history": HISTORY,
                                "history_timestamps": HIST_TS, "future_timestamps": FUT_TS, "stated_range": (9.0, 21.0),
                                "effects": arm_effects(RECORD, "both"), "base": None, **kw}
    with pytest.raises(PathQuestionError, match=word) as err:
        PathQuestion(**args)  # type: ignore[arg-type]
    assert err.value.fix


def test_arm_effects_filters_the_record() -> None:
    assert arm_effects(RECORD, "history") is None
    assert set(arm_effects(RECORD, "macro") or {}) == {k for k in RECORD if k.startswith("macro.")}
    assert set(arm_effects(RECORD, "micro") or {}) == {k for k in RECORD if k.startswith("micro.")}
    assert arm_effects(RECORD, "both") == RECORD


# -- parsing ---------------------------------------------------------------------------------------------------


def test_parse_path_good_bare_and_fenced() -> None:
    assert parse_path("[1, 2.5, -3e2]", 3) == ((1.0, 2.5, -300.0), None)
    assert parse_path_exported("  [1,2,3]\n", 3) == ((1.0, 2.0, 3.0), None)
    fenced = "Here is my forecast:\n```json\n[4, 5, 6]\n```\nThe trend continues."
    assert parse_path(fenced, 3) == ((4.0, 5.0, 6.0), None)
    two = "```\n[0, 0, 0]\n```\nrevised:\n```json\n[7, 8, 9]\n```"
    assert parse_path(two, 3) == ((7.0, 8.0, 9.0), None)


def test_parse_path_reports_any_length_for_the_scores_to_fit() -> None:
    short, err = parse_path("[1, 2]", 3)
    long_, err2 = parse_path("[1, 2, 3, 4]", 3)
    assert err is None and err2 is None
    assert fit(short, 3) == ((1.0, 2.0, 2.0), "padded")
    assert fit(long_, 3) == ((1.0, 2.0, 3.0), "truncated")


@pytest.mark.parametrize(("raw", "word"), [
    ("[1, NaN, 3]", "NaN is not a finite number"),
    ("[1, Infinity, 3]", "Infinity is not a finite number"),
    ("[1, 1e999, 3]", "element 1 is not a finite number"),
    ("[1, \"2\", 3]", "element 1 is \"2\", not a number"),
    ("[1, true, 3]", "element 1 is true"),
    ("[1, [2], 3]", "element 1 is [2]"),
    ("[]", "empty"),
    ("The series will rise steadily.", "not a JSON array"),
    ("My forecast: [1, 2, 3]", "not a JSON array"),
    ("[1, 2, 3] is my forecast", "not one JSON array"),
    ("```json\n{\"path\": [1, 2, 3]}\n```", "the last code block is not a JSON array"),
    ("", "not a JSON array"),
])
def test_parse_path_refuses_with_a_reason(raw: str, word: str) -> None:
    values, error = parse_path(raw, 3)
    assert values is None and error is not None and word in error


@pytest.mark.parametrize(("raw", "code", "done", "error"), [
    ("```python\npath = path\n```", "path = path\n", False, None),
    ("text\n```py\nx = 1\n```\nDONE", "x = 1\n", True, None),
    ("DONE", None, True, None),
    ("All good now.\n**Done.**", None, True, None),
    ("`done`", None, True, None),
    ("I am finished", None, False, "no ```python block"),
    ("```js\nx = 1\n```", None, False, "js, not Python"),
    ("```python\n\n```", None, False, "empty"),
])
def test_parse_step(raw: str, code: str | None, done: bool, error: str | None) -> None:
    got = parse_step(raw)
    assert (got.code, got.done) == (code, done)
    assert (got.error is None) if error is None else (got.error is not None and error in got.error)


# -- direct mode -----------------------------------------------------------------------------------------------


def test_direct_answered_refused_and_silent() -> None:
    q = question("macro")
    seat = ListSeat(["```json\n[1, 2]\n```"])
    reply = ask_path(seat, q, sandbox=PlainProcess(), now=now)
    assert (reply.values, reply.error, reply.ended, reply.steps) == ((1.0, 2.0), None, "answered", ())
    assert seat.asks[0].text == ask_text(q) and reply.prompt_sha256 == seat.asks[0].sha256
    assert seat.asks[0].context["arm"] == "macro" and reply.raw == "```json\n[1, 2]\n```"
    bad = ask_path(ListSeat(["I cannot forecast this."]), q, sandbox=PlainProcess(), now=now)
    assert bad.ended == "refused" and bad.values is None and bad.error and bad.raw == "I cannot forecast this."
    silent = ask_path(ListSeat([None]), q, sandbox=PlainProcess(), now=now)
    assert silent.ended == "no_answer" and silent.values is None and "timeout" in (silent.error or "")


def test_a_seat_that_raises_is_a_reply_not_an_exception() -> None:
    class Broken(ListSeat):
        def ask(self, ask: Ask, now: Callable[[], datetime]) -> SeatReply:
            raise RuntimeError("adapter bug")

    reply = ask_path(Broken([]), question(), sandbox=PlainProcess(), now=now)
    assert reply.ended == "no_answer" and "adapter bug" in (reply.error or "")


# -- editing mode ----------------------------------------------------------------------------------------------


def test_editing_records_every_step_keeps_the_path_on_failure_and_stops_at_done() -> None:
    seat = ListSeat([program("path = [v + 1 for v in path]"), program("raise ValueError('bad idea')"),
                     "Let me think about the season.", program("path = path[:2]"),
                     program("path = [v * 2 for v in path]\nprint('doubled')"), "DONE"])
    seen: list[EditStep] = []
    texts: list[str] = []
    box = PlainProcess()
    reply = ask_path(seat, question("micro", "editing"), sandbox=box, now=now, on_step=seen.append,
                     on_ask=texts.append)
    assert texts == [a.text for a in seat.asks]
    assert reply.ended == "answered" and reply.error is None
    assert reply.values == (32.0, 34.0, 36.0)
    assert [s.index for s in reply.steps] == [1, 2, 3, 4, 5, 6] and seen == list(reply.steps)
    assert [s.ok for s in reply.steps] == [True, False, False, False, True, True]
    assert "ValueError: bad idea" in (reply.steps[1].error or "")
    assert "no ```python block" in (reply.steps[2].error or "") and reply.steps[2].code == ""
    assert "not 3" in (reply.steps[3].error or "") or "3 finite numbers" in (reply.steps[3].error or "")
    assert reply.steps[0].code == "path = [v + 1 for v in path]\n"
    sha = [s.path_sha256 for s in reply.steps]
    assert sha[0] == hashlib_sha(canonical_path((16.0, 17.0, 18.0)))
    assert sha[1] is None and sha[4] == sha[5] == hashlib_sha(canonical_path((32.0, 34.0, 36.0)))
    assert reply.steps[5].code == "DONE"
    assert box.calls == 4  # prose and DONE run nothing
    assert len(seat.asks) == 6 and [a.attempt for a in seat.asks] == [1, 2, 3, 4, 5, 6]
    assert seat.asks[1].text.count("Current path: [16, 17, 18]") == 1
    assert "ValueError: bad idea" in seat.asks[2].text  # the error is fed back
    assert "Current path: [16, 17, 18]" in seat.asks[4].text  # the failed steps kept the path
    assert reply.raw.startswith("### step 1\n") and "### step 6\nDONE" in reply.raw
    assert reply.prompt_sha256 == seat.asks[0].sha256


def hashlib_sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_editing_stops_at_the_cap() -> None:
    seat = ListSeat(lambda ask: program("path = [v + 1 for v in path]"))
    reply = ask_path(seat, question("history", "editing", effects=None), sandbox=PlainProcess(), now=now)
    assert len(seat.asks) == MAX_EDIT_STEPS and len(reply.steps) == MAX_EDIT_STEPS
    assert reply.values == tuple(b + MAX_EDIT_STEPS for b in BASE) and reply.ended == "answered"
    assert all(s.ok for s in reply.steps)


def test_a_program_then_done_is_one_step_and_ends() -> None:
    seat = ListSeat([program("path = [0.5] * len(path)") + "DONE\n"])
    reply = ask_path(seat, question(mode="editing"), sandbox=PlainProcess(), now=now)
    assert reply.values == (0.5, 0.5, 0.5) and len(reply.steps) == 1 and len(seat.asks) == 1


def test_done_at_once_keeps_the_base() -> None:
    reply = ask_path(ListSeat(["DONE"]), question(mode="editing"), sandbox=PlainProcess(), now=now)
    assert reply.values == BASE and reply.ended == "answered"
    assert reply.steps == (EditStep(1, "DONE", True, None, hashlib_sha(canonical_path(BASE))),)


def test_editing_silence_and_refusal() -> None:
    first = ask_path(ListSeat([None]), question(mode="editing"), sandbox=PlainProcess(), now=now)
    assert first.ended == "no_answer" and first.values is None and len(first.steps) == 1
    later = ask_path(ListSeat([program("path = [1.0] * len(path)"), None]), question(mode="editing"),
                     sandbox=PlainProcess(), now=now)
    assert later.ended == "answered" and later.values == (1.0, 1.0, 1.0)
    assert [s.ok for s in later.steps] == [True, False] and "no reply" in (later.steps[1].error or "")
    prose = ask_path(ListSeat(lambda ask: "I would rather not."), question(mode="editing"), sandbox=PlainProcess(),
                     now=now)
    assert prose.ended == "refused" and prose.values is None and len(prose.steps) == MAX_EDIT_STEPS


def test_a_sandbox_that_cannot_run_stops_the_loop_without_a_path() -> None:
    class Broken(PlainProcess):
        def exec(self, argv: Sequence[str], **kw: object) -> ExecResult:  # type: ignore[override]
            raise SandboxError("bwrap is missing", fix="apt-get install -y bubblewrap")

    seat = ListSeat(lambda ask: program("path = [v + 1 for v in path]"))
    reply = ask_path(seat, question(mode="editing"), sandbox=Broken(), now=now)
    assert reply.ended == "no_answer" and reply.values is None and len(seat.asks) == 1
    assert (reply.error or "").startswith("sandbox incident:") and "bwrap is missing" in (reply.error or "")
    assert [s.ok for s in reply.steps] == [False]


def test_what_the_callers_hooks_raise_propagates() -> None:
    def full(step: EditStep) -> None:
        raise OSError("no space left on the book's disk")

    with pytest.raises(OSError, match="no space left"):
        ask_path(ListSeat(["DONE"]), question(mode="editing"), sandbox=PlainProcess(), now=now, on_step=full)
    with pytest.raises(OSError, match="no space left"):
        ask_path(ListSeat(["[1]"]), question(), sandbox=PlainProcess(), now=now, on_ask=lambda t: full(None))  # type: ignore[arg-type]


def test_a_question_is_a_value() -> None:
    q = question(mode="editing")
    assert isinstance(ask_path(ListSeat(["DONE"]), q, sandbox=PlainProcess(), now=now), PathReply)
    assert json.loads(canonical_path((1.0, 0.1))) == [1.0, 0.1]


# -- the real sandbox ------------------------------------------------------------------------------------------


@pytest.fixture
def box() -> Sandbox:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    return BwrapSandbox()


@pytest.mark.sandbox
def test_a_program_runs_in_the_real_sandbox(box: Sandbox) -> None:
    res = run_program(box, "import statistics\nm = statistics.mean(history)\npath = [m for _ in path]",
                      BASE, HISTORY)
    assert res.error is None and res.values == (12.5, 12.5, 12.5)


@pytest.mark.sandbox
@pytest.mark.parametrize("code", [
    "import socket\nsocket.create_connection(('127.0.0.1', 5432), timeout=2)\npath = [0.0] * len(path)",
    "import urllib.request\nurllib.request.urlopen('http://1.1.1.1/', timeout=2)\npath = [0.0] * len(path)",
    f"open({str(Path(__file__).resolve())!r}).read()\npath = [0.0] * len(path)",
    "open('/root/.bashrc').read()\npath = [0.0] * len(path)",
    "open('/usr/escape.txt', 'w').write('x')\npath = [0.0] * len(path)",
    "open('/etc/passwd').read()\npath = [0.0] * len(path)",
])
def test_network_and_file_escapes_fail_in_the_sandbox(box: Sandbox, code: str) -> None:
    res = run_program(box, code, BASE, HISTORY)
    assert res.values is None and res.error and "Error" in res.error
    assert not Path("/usr/escape.txt").exists()


@pytest.mark.sandbox
def test_programs_get_no_network_under_a_runs_api_policy(box: Sandbox) -> None:
    # the run's policy sandbox would give a seat the egress proxy; a program runs on the sandbox inside it
    policy = PolicySandbox(box, Policy.API)
    res = run_program(policy, "import socket\nsocket.create_connection(('127.0.0.1', 5432), timeout=2)", BASE, HISTORY)
    assert res.values is None and res.error and "Error" in res.error and "sandbox could not" not in res.error


@pytest.mark.sandbox
def test_a_program_that_never_ends_is_stopped(box: Sandbox) -> None:
    res = run_program(box, "while True:\n    pass", BASE, HISTORY, timeout_s=1.0)
    assert res.values is None and res.error and "longer than 1 s" in res.error


@pytest.mark.sandbox
def test_a_program_that_eats_memory_is_stopped(box: Sandbox) -> None:
    res = run_program(box, f"x = bytearray({EDIT_PROFILE.memory_mb * 2} * 1024 * 1024)", BASE, HISTORY)
    assert res.values is None and res.error


@pytest.mark.sandbox
def test_the_editing_loop_through_the_real_sandbox(box: Sandbox) -> None:
    seat = ListSeat([program("path = [v - 1 for v in path]"), program("import os\nos.system('ls /')\n1/0"), "DONE"])
    reply = ask_path(seat, question(mode="editing"), sandbox=box, now=now)
    assert reply.values == (14.0, 15.0, 16.0) and [s.ok for s in reply.steps] == [True, False, True]
    assert "ZeroDivisionError" in (reply.steps[1].error or "")



@pytest.mark.sandbox
@pytest.mark.parametrize("mode", MODES)
def test_the_eval_standin_answers_path_asks(box: Sandbox, mode: str) -> None:
    seat = build_seat(SeatSpec(name="standin-ctx", adapter="eval-standin", options={"seed": 3}), sandbox=box)
    reply = ask_path(seat, question("both", mode), sandbox=box, now=now)
    assert reply.ended == "answered", reply
    if mode == "direct":
        assert reply.values == HISTORY[-3:] and reply.steps == ()
    else:
        assert reply.values == tuple(0.5 * (b + h) for b, h in zip(BASE, HISTORY[-3:], strict=True))
        assert [(s.ok, s.code) for s in reply.steps][1] == (True, "DONE") and reply.steps[0].ok
    prose = build_seat(SeatSpec(name="standin-ctx", adapter="eval-standin", options={"mode": "prose"}), sandbox=box)
    refused = ask_path(prose, question("both", mode), sandbox=box, now=now)
    assert refused.ended == "refused" and refused.values is None
