"""Logs keep exceptions: a JSON log line names the type, the message and the frames."""

from __future__ import annotations

import json

import pytest
import structlog

from league.log import configure


@pytest.fixture(autouse=True)
def _restore() -> object:
    yield None
    structlog.reset_defaults()


def test_json_log_line_carries_the_exception(capsys: pytest.CaptureFixture[str]) -> None:
    configure(json_logs=True, level="INFO")
    try:
        raise UnicodeEncodeError("utf-8", "a\ud800b", 1, 2, "surrogates not allowed")
    except UnicodeEncodeError:
        structlog.get_logger("t").exception("seal.failed", seat="claude")
    line = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert line["event"] == "seal.failed" and line["seat"] == "claude"
    exc = line["exception"][0]
    assert exc["exc_type"] == "UnicodeEncodeError" and "surrogates not allowed" in exc["exc_value"]
    assert any(f["name"] == "test_json_log_line_carries_the_exception" for f in exc["frames"])
    assert "exc_info" not in line


def test_console_log_shows_the_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    configure(json_logs=False, level="INFO")
    try:
        raise RecursionError("maximum recursion depth exceeded")
    except RecursionError:
        structlog.get_logger("t").exception("parse.failed")
    err = capsys.readouterr().err
    assert "parse.failed" in err and "RecursionError: maximum recursion depth exceeded" in err
