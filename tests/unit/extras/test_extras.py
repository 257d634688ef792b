"""league.extras.extra(): a missing library of an extra is MissingExtra naming the install command, at the import
that needs it; any other missing module stays a ModuleNotFoundError (a bug, not an install to complete)."""

from __future__ import annotations

import sys

import pytest

from league import extras
from league.extras import MissingExtra, explain, extra, keeping_recursion_limit


def test_a_missing_library_of_the_extra_names_its_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "statsmodels", None)  # how Python itself says: this module cannot be imported
    with pytest.raises(MissingExtra) as caught, extra("stats"):
        import statsmodels  # noqa: F401
    assert caught.value.exit_code == 2
    assert caught.value.fix == "pip install 'forecast-league[stats]'"
    assert "statsmodels" in caught.value.message


def test_any_other_missing_module_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "league.no_such_module", None)
    with pytest.raises(ModuleNotFoundError) as caught, extra("stats"):
        import league.no_such_module  # noqa: F401
    assert not isinstance(caught.value, MissingExtra)


def test_an_extra_that_does_not_exist_is_refused() -> None:
    with pytest.raises(ValueError, match="no extra named 'stat'"), extra("stat"):
        pass


def test_the_recursion_limit_comes_back() -> None:
    before = sys.getrecursionlimit()
    with keeping_recursion_limit():
        sys.setrecursionlimit(before + 5000)
    assert sys.getrecursionlimit() == before


def test_an_install_with_the_daemon_stack_is_not_called_the_lean_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """`league init` in a [demo] environment without yfinance said "this is the lean install"."""
    monkeypatch.setattr(extras, "missing", lambda modules: [])  # every library of stats and daemon is found
    error = explain(ModuleNotFoundError("No module named 'yfinance'", name="yfinance"))
    assert error is not None and "lean install" not in error.message
    assert "this install has the stats and daemon extras, not `yahoo`" in error.message
    assert error.fix == "pip install 'forecast-league[yahoo]'"


def test_the_lean_install_is_called_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "missing", lambda modules: list(modules))  # nothing of an extra is found
    error = explain(ModuleNotFoundError("No module named 'pandas'", name="pandas"))
    assert error is not None and "this is the lean install" in error.message


def test_the_statistics_without_the_daemon_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "missing", lambda modules: [m for m in modules if m in extras.DAEMON])
    assert extras.installed_extras() == ["stats"]
    error = explain(ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn"))
    assert error is not None and "this install has the stats extra, not `daemon`" in error.message
