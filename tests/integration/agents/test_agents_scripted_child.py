"""The scripted child's lean start-up changes no byte: its ``loads``/``dumps`` against the json package, and the
whole child against the child it replaced (c4016aa, kept in tests/assets/scripted) on real and generated
requests, in process and as the sandbox runs it (the system python, isolated, no ``site``; also without the
``_json``/``_sha256`` builtins it prefers)."""

from __future__ import annotations

import importlib.util
import io
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from agents_helpers import make_ask
from hypothesis import given, settings
from hypothesis import strategies as st

from league_agents import scripted, scripted_child
from league_agents.base import SeatSpec
from league_agents.scripted import CHILD_FLAGS, MODES, SYSTEM_PYTHON, ScriptedSeat, child_program, child_source

OLD_CHILD = Path(__file__).resolve().parents[2] / "assets" / "scripted" / "scripted_child_c4016aa.py"
CODES = ("SPX", "NDX", "RUT", "TNX", "DXY", "GLD", "OIL", "BTC", "VIX", "EUR", "JPY", "HYG")
HORIZONS = ("1d", "1w", "1m", "6m", "1y")

#: Any character, lone surrogates and controls included: json escapes them all.
odd_text = st.text(st.characters(codec=None, categories=None), max_size=12)
odd_float = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 1e16, 1e-7, 5e-324, 0.1])
scalars = st.none() | st.booleans() | st.integers() | st.integers(-(10**40), 10**40) | odd_float | odd_text
keys = odd_text | st.sampled_from(["", "a", "A", "é", "\ud800", "\x00", "1d", "years"])
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(keys, inner, max_size=4),
    max_leaves=25,
)


def load_old_child() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scripted_child_c4016aa", OLD_CHILD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OLD = load_old_child()


def outcome(child: Any, stdin: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """What ``child.main()`` prints for ``stdin``, and the exception it ends with (type and message)."""
    out = io.StringIO()
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stdin", io.StringIO(stdin))
        patch.setattr(sys, "stdout", out)
        try:
            child.main()
        except Exception as exc:  # noqa: BLE001 - the two children must fail alike too
            return out.getvalue(), f"{type(exc).__name__}: {exc}"
    return out.getvalue(), ""


def same_json(a: Any, b: Any) -> bool:
    """Equal as decoded JSON, NaN equal to NaN and -0.0 told from 0.0 (so a float is its repr)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or repr(a) == repr(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


# ------------------------------------------------------------------------------------------- dumps
@settings(max_examples=400)
@given(documents)
def test_dumps_writes_what_json_dumps_writes(doc: Any) -> None:
    try:
        expected = json.dumps(doc, indent=1, sort_keys=True)
    except (TypeError, ValueError) as exc:  # keys of types that do not sort together
        with pytest.raises(type(exc)):
            scripted_child.dumps(doc)
        return
    assert scripted_child.dumps(doc) == expected


@pytest.mark.parametrize("doc", [
    {}, [], (), "", {"a": {}}, {"a": []}, [[[]]], {1: "int", 3: 4}, {2.5: "float"}, {None: "none"}, {True: 1},
    {False: 0},
    float("nan"), float("inf"), -float("inf"), -0.0, 10**30, True, None, "\u2028\ud800\"\\/\x7f",
    {"forecast": {"SPX": {"1d": {"prob_up": 61.3, "action": "buy_dips"}, "years": "none"}}},
])
def test_dumps_on_the_edges(doc: Any) -> None:
    assert scripted_child.dumps(doc) == json.dumps(doc, indent=1, sort_keys=True)


@pytest.mark.parametrize("doc", [{"a": object()}, [{1, 2}], {(1, 2): "tuple key"}, {"a": 1, 2: "b"}])
def test_dumps_refuses_what_json_refuses(doc: Any) -> None:
    with pytest.raises(TypeError) as theirs:
        json.dumps(doc, indent=1, sort_keys=True)
    with pytest.raises(TypeError) as ours:
        scripted_child.dumps(doc)
    assert str(ours.value) == str(theirs.value)


# ------------------------------------------------------------------------------------------- loads
@settings(max_examples=300)
@given(documents, st.sampled_from([{}, {"indent": 2}, {"ensure_ascii": False}, {"separators": (",", ":")}]),
       st.sampled_from(["", " ", "\n", " \t\r\n"]))
def test_loads_reads_what_json_loads_reads(doc: Any, how: dict[str, Any], space: str) -> None:
    try:
        text = space + json.dumps(doc, **how) + space
    except TypeError:
        return
    assert same_json(scripted_child.loads(text), json.loads(text))


@pytest.mark.parametrize("text", ["", " ", "{", '{"a": 1} x', '{"a": 1}{}', "\ufeff{}", '{"a": nan}', "[1,]",
                                  '"\\ud800"', "NaN", "-Infinity", '{"a": 1, "a": 2}', "1" * 5000, "[" * 3000])
def test_loads_fails_or_reads_as_json_does(text: str) -> None:
    try:
        expected: Any = json.loads(text)
    except (ValueError, RecursionError) as exc:
        with pytest.raises(type(exc)) as ours:
            scripted_child.loads(text)
        assert str(ours.value) == str(exc)
        return
    assert same_json(scripted_child.loads(text), expected)


# --------------------------------------------------------------------------------- the whole child
def markets_strategy() -> st.SearchStrategy[dict[str, Any]]:
    market = st.fixed_dictionaries(
        {"horizons": st.lists(st.sampled_from(HORIZONS) | odd_text, max_size=5, unique=True)},
        optional={"price": st.none() | st.integers(-5, 10**6) | odd_float | odd_text,
                  "crowd": st.booleans() | st.none() | st.integers(0, 2),
                  "last_change_pct": st.none() | odd_float},
    )
    return st.dictionaries(st.sampled_from(CODES) | odd_text, market, max_size=8)


requests = st.fixed_dictionaries({
    "seed": st.integers(0, 2**31) | st.integers(),
    "seat": odd_text | st.sampled_from(["aurora", "basalt"]),
    "session": odd_text | st.dates().map(str),
    "markets": markets_strategy(),
    "hint": st.dictionaries(st.sampled_from(CODES) | odd_text,
                            st.dictionaries(st.sampled_from(HORIZONS), st.none() | odd_float | st.integers(0, 100))),
    "skill": st.floats(-1, 2) | st.integers(0, 1),
    "mode": st.sampled_from([m for m in MODES if m != "second_wave"]),
})


@settings(max_examples=300)
@given(requests)
def test_the_child_prints_what_the_old_child_printed(req: dict[str, Any]) -> None:
    stdin = json.dumps(req)
    with pytest.MonkeyPatch.context() as patch:
        assert outcome(scripted_child, stdin, patch) == outcome(OLD, stdin, patch)


def demo_requests() -> list[bytes]:
    """The requests a demo season sends: every mode, both attempts, hints on and off, real-looking markets."""
    markets = {code: {"horizons": ["1d", "1w", "1m", "6m"], "price": 100.0 + 7.25 * i, "last_change_pct": 0.4,
                      **({"crowd": True} if i % 3 == 0 else {})} for i, code in enumerate(CODES)}
    hint = {code: {"1d": 20.0 + 5 * i, "1w": 80.0 - 3 * i} for i, code in enumerate(CODES[:6])}
    out = []
    for mode in MODES:
        for skill in (0.0, 0.4, 1.0):
            seat = ScriptedSeat(SeatSpec(name=f"s-{mode}", adapter="scripted",
                                         options={"seed": 11, "skill": skill, "mode": mode}))
            for attempt in (1, 2):
                ask = make_ask(markets=markets, hint=hint)
                ask = type(ask)(text=ask.text, sha256=ask.sha256, session=ask.session, attempt=attempt,
                                context=ask.context)
                out.append(json.dumps(seat.request(ask)).encode())
    return out


def run_child(script: bytes, request: bytes, tmp_path: Path, *, block: tuple[str, ...] = (),
              name: str = "child.py") -> tuple[bytes, int]:
    """The child as the sandbox runs it; ``block`` makes those modules unimportable first."""
    path = tmp_path / name
    path.write_bytes(script)
    if block:
        code = f"import sys; sys.modules.update(dict.fromkeys({block!r})); sys.argv = [{str(path)!r}]; " \
               f"exec(compile(open({str(path)!r}).read(), {str(path)!r}, 'exec'), {{'__name__': '__main__'}})"
        argv = [SYSTEM_PYTHON, *CHILD_FLAGS, "-c", code]
    else:
        argv = [SYSTEM_PYTHON, *CHILD_FLAGS, str(path)]
    proc = subprocess.run(argv, input=request, capture_output=True, timeout=60, check=False, cwd=tmp_path)
    assert not proc.stderr, proc.stderr.decode()
    return proc.stdout, proc.returncode


@pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason="the system python runs the child")
@pytest.mark.parametrize("block", [(), ("_json",), ("_sha256",), ("_json", "_sha256")])
def test_the_system_python_prints_the_same_bytes(block: tuple[str, ...], tmp_path: Path) -> None:
    old = OLD_CHILD.read_bytes()
    for request in demo_requests()[:: 1 if not block else 5]:
        assert run_child(child_source(), request, tmp_path, block=block) == run_child(old, request, tmp_path)


@pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason="the system python runs the child")
def test_the_child_imports_neither_typing_nor_json_nor_openssl(tmp_path: Path) -> None:
    path = tmp_path / "child.py"
    path.write_bytes(child_source())
    code = (f"import sys; sys.argv = [{str(path)!r}]; "
            f"exec(compile(open({str(path)!r}).read(), {str(path)!r}, 'exec'), {{'__name__': '__main__'}}); "
            "sys.stderr.write(' '.join(sorted(sys.modules)))")
    proc = subprocess.run([SYSTEM_PYTHON, *CHILD_FLAGS, "-c", code], input=demo_requests()[0], capture_output=True,
                          timeout=60, check=True)
    loaded = set(proc.stderr.decode().split())
    assert proc.stdout.startswith(b"Scripted seat")
    assert not loaded & {"typing", "json", "hashlib", "_hashlib", "re", "enum"}, loaded


# ------------------------------------------------------------------------------ the compiled child
@pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason="the system python compiles and runs the child")
def test_the_compiled_child_prints_what_its_source_prints(tmp_path: Path) -> None:
    name, program = child_program()
    assert name == "scripted_child.pyc" and program != child_source()
    for request in demo_requests():
        assert run_child(program, request, tmp_path, name=name) == run_child(child_source(), request, tmp_path)


def test_without_the_system_python_the_source_is_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(scripted, "SYSTEM_PYTHON", str(tmp_path / "no-python"))
    assert child_program() == ("scripted_child.py", child_source())
    (tmp_path / "no-python").write_text("#!/bin/sh\nexit 3\n")
    (tmp_path / "no-python").chmod(0o755)
    assert child_program() == ("scripted_child.py", child_source())  # it exists but cannot compile


@pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason="the system python compiles the child")
def test_compiled_once_per_system_python(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bytes] = []
    real = scripted._compile
    monkeypatch.setattr(scripted, "_compiled", {})
    monkeypatch.setattr(scripted, "_compile", lambda source: calls.append(source) or real(source))
    first = child_program()
    assert child_program() is first and len(calls) == 1
    monkeypatch.setattr(scripted, "_compiled", {(0, 0, 0): first})  # another interpreter's: compiled anew
    again = child_program()
    assert again is not first and again[0] == "scripted_child.pyc" and len(calls) == 2
