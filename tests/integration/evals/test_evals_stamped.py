"""An evaluation run anchored like the council: `league eval questions --stamp-config`
stamps the eval book's head with a league's authorities (here the demo's local RFC 3161 authorities)
and publishes the stamps; the list names the book's exact line count and prefix digest, and the token
passes `openssl ts -verify` against the authority's certificate."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from league.folder import init_folder

pytestmark = pytest.mark.sandbox


def test_the_eval_book_is_stamped_by_the_leagues_authorities(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    config_dir, _ = init_folder(tmp_path / "league", demo=True)
    out = tmp_path / "eval"
    result = CliRunner().invoke(app, ["eval", "questions", "--seat", "standin-sharp", "--limit", "2", "--trials",
                                      "1", "--out", str(out), "--stamp-config", str(config_dir)])
    assert result.exit_code == 0, result.output
    assert "eval book stamped: trust level" in result.output
    lists = sorted((out / "public" / "stamps").glob("*/*Z.txt"))
    assert len(lists) == 1
    book = (out / "eval-book.jsonl").read_bytes()
    digest = hashlib.sha256(book).hexdigest()  # the whole closed book: `head -n N | sha256sum`
    lines = len(book.splitlines())
    assert f"eval-book.jsonl: {lines} lines, sha256 {digest}," in lists[0].read_text()
    status = json.loads(lists[0].with_name(lists[0].stem + ".status.json").read_text())
    assert status["trust_level"] != "0" and all(b["ok"] and b["verified"] for b in status["backends"])
    for backend in status["backends"]:  # the independent check: openssl against the authority's own CA
        tsa = out / "public" / "stamps" / "tsa" / backend["name"]
        check = subprocess.run(["openssl", "ts", "-verify", "-data", str(lists[0]), "-in",
                                str(lists[0].parent / backend["file"]), "-CAfile", str(tsa / "ca.pem"),
                                "-untrusted", str(tsa / "tsa.crt")], capture_output=True, text=True, check=False)
        assert check.returncode == 0 and "Verification: OK" in check.stdout, check.stderr


def test_a_contextual_run_is_stamped_listed_in_the_index_and_left_to_its_own_recount(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    config_dir, _ = init_folder(tmp_path / "league", demo=True)
    out = tmp_path / "eval"
    asked = CliRunner().invoke(app, ["eval", "questions", "--seat", "standin-sharp", "--limit", "1", "--trials", "1",
                                     "--out", str(out)])
    assert asked.exit_code == 0, asked.output
    result = CliRunner().invoke(app, ["eval", "context", "--seat", "_naive", "--buckets", "long", "--max-windows",
                                      "1", "--out", str(out), "--stamp-config", str(config_dir)])
    assert result.exit_code == 0, result.output
    assert "eval book stamped: trust level" in result.output
    book = (out / "eval-book.jsonl").read_bytes()
    lists = sorted((out / "public" / "stamps").glob("*/*Z.txt"))
    assert len(lists) == 1  # the questions run was not stamped; the contextual one was
    assert f"eval-book.jsonl: {len(book.splitlines())} lines, sha256 {hashlib.sha256(book).hexdigest()}," \
        in lists[0].read_text()
    index = json.loads((out / "public" / "index.json").read_text())
    assert [e["run_id"] for e in index] == ["e001-standin-sharp", "c001"]
    ctx = index[1]
    results = out / "public" / ctx["results"]
    assert ctx["track"] == "gift-eval-ctx" and ctx["seats"] == ["_naive"]
    assert ctx["results_sha256"] == hashlib.sha256(results.read_bytes()).hexdigest()
    recount = CliRunner().invoke(app, ["eval", "recount", str(out / "public")])
    assert recount.exit_code == 0, recount.output
    assert "c001: contextual run, ok" in recount.output and "recount: 2 run(s), 0 difference(s)" in recount.output
    results.write_bytes(results.read_bytes() + b" ")
    recount = CliRunner().invoke(app, ["eval", "recount", str(out / "public")])
    assert recount.exit_code != 0 and "does not have the SHA-256 the index names" in recount.output
