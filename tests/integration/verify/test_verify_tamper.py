"""Forged published files fail `league verify`: every derived file is rebuilt from the books.

One 2-session demo folder for the package; each tamper edits a ``cp -a`` copy and the copy is
compared with the rebuild of the untouched books (the tampers touch no book, so one rebuild serves
all). The untampered folder passes every step; the issue's repro goes through the real CLI.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from league.cli import app
from league.publish.rebuild import compare_folder
from league.verify.reader import manifest_step, verify_published

FORECASTS = "council-forecasts.csv"


def _rows(folder: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(folder / FORECASTS, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def _write_rows(folder: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (folder / FORECASTS).write_text(out.getvalue(), encoding="utf-8")


def _first(rows: list[dict[str, str]], **want: str) -> int:
    return next(i for i, r in enumerate(rows) if all(r[k] == v for k, v in want.items()) and r["prob_up"])


def _edit_json(folder: Path, name: str, edit: Callable[[Any], None]) -> None:
    doc = json.loads((folder / name).read_text(encoding="utf-8"))
    edit(doc)
    (folder / name).write_text(json.dumps(doc, indent=1, sort_keys=True), encoding="utf-8")


def test_the_untampered_demo_passes_every_step(demo_public: Path, clean_verify: tuple[int, str]) -> None:
    statuses = {r["status"] for r in _rows(demo_public)[1]}
    assert {"counted", "counted_50", "refused_shape", "no_answer"} <= statuses  # the hard rows are rebuilt too
    code, output = clean_verify
    steps = {int(m.group(1)): m.group(2) for m in re.finditer(r"^step +(\d+) [^:]+: (\w+)", output, re.M)}
    assert code == 0 and "FAILED" not in steps.values(), output
    assert sorted(steps) == list(range(1, 14))  # 13: the CLI contest (skipped: the demo has none)
    first = next(line for line in output.splitlines() if line.startswith("step "))
    assert first.startswith("step  1 the folder: ok — ") and "council-book.jsonl" in first  # numbered from 1
    assert {steps[n] for n in (1, 2, 3, 4, 5, 7, 8, 9, 11, 12)} == {"ok"}, output
    assert steps[13] == "skipped"
    step11 = next(line for line in output.splitlines() if line.startswith("step 11"))
    assert "council-forecasts.csv" in step11 and "roster.json" in step11 and "council-stats.json" in step11
    assert "recount_consensus.py: consensus:" in output


def test_verify_published_alone_keeps_the_steps_of_open_data(demo_public: Path) -> None:
    """Without the CLI's extra steps the reader runs steps 1-10 and the contest's 13; the rebuild step is the
    writer's code."""
    steps = verify_published(demo_public, extra=[(12, "release manifest", manifest_step)])
    assert [s.step for s in steps] == [*range(1, 11), 12, 13] and steps[-2].status == "ok"
    assert steps[-1].status == "skipped"  # no contest files in the council's demo


def test_the_issue_repro_a_forged_row_and_its_brier_fail_the_cli(copy: Path) -> None:
    """prob_up 51.4 -> 31.4 in one row and that seat's 1-day Brier changed to match: verify names both."""
    header, rows = _rows(copy)
    i = _first(rows, seat="aurora", horizon="1d", status="counted")
    rows[i]["prob_up"] = str(float(rows[i]["prob_up"]) - 20.0)
    _write_rows(copy, header, rows)

    def forge(doc: dict[str, Any]) -> None:
        model = next(m for m in doc["models"] if m["seat"] == "aurora" and m["horizon"] == "1d")
        model["brier"] = round(model["brier"] + 0.01, 6)

    _edit_json(copy, "council-league.json", forge)
    result = CliRunner().invoke(app, ["verify", str(copy)])
    assert result.exit_code != 0
    assert "step 11 derived files: FAILED" in result.output
    assert f"council-forecasts.csv row {i + 2} (run_id={rows[i]['run_id']}, seat=aurora" in result.output
    assert "field prob_up" in result.output
    assert "council-league.json $.models[" in result.output and "(seat=aurora, horizon=1d).brier" in result.output


CSV_TAMPERS = {  # column kind -> (column, new value)
    "probability": ("prob_up", "12.5"),
    "status word": ("status", "counted_50"),
    "seal time": ("sealed_at", "2026-06-01T13:29:59Z"),
    "event identifier": ("event_id_v2", "ev2-0000000000000000"),
    "price": ("ref", "1234.5"),
    "flag": ("same_event", "0"),
    "action text": ("action", "sell"),
}


@pytest.mark.parametrize("kind", sorted(CSV_TAMPERS))
def test_each_csv_column_kind_is_named_with_its_row(kind: str, copy: Path, rebuilt: Path) -> None:
    column, value = CSV_TAMPERS[kind]
    header, rows = _rows(copy)
    i = _first(rows, seat="basalt", horizon="1d", status="counted")
    assert rows[i][column] != value
    rows[i][column] = value
    _write_rows(copy, header, rows)
    diffs = compare_folder(copy, rebuilt).differences
    named = [d for d in diffs if d.startswith(f"{FORECASTS} row {i + 2} ") and f"field {column}:" in d]
    assert named, diffs
    if column != "event_id_v2":  # an identifier is part of no key: every other change is this one cell
        assert len(diffs) == 1, diffs


@pytest.mark.parametrize(("status", "column", "value"), [("no_answer", "why_missing", "the dog ate it"),
                                                         ("refused_shape", "status", "no_answer")])
def test_a_forged_missing_row_is_named(status: str, column: str, value: str, copy: Path, rebuilt: Path) -> None:
    header, rows = _rows(copy)
    i = next(k for k, r in enumerate(rows) if r["status"] == status)
    rows[i][column] = value
    _write_rows(copy, header, rows)
    [diff] = compare_folder(copy, rebuilt).differences
    assert diff.startswith(f"{FORECASTS} row {i + 2} ") and f"field {column}: published {value!r}" in diff


def _models(doc: Any, field: str) -> None:
    model = next(m for m in doc["models"] if m["seat"] == "cobalt" and m["horizon"] == "1d")
    model[field] = 0.5 if model[field] != 0.5 else 0.25


def _consensus(doc: Any) -> None:
    doc["consensus"]["per_event"][3]["p"] += 1.0


def _n_eff(doc: Any) -> None:
    doc["n_eff"]["counted"]["per_run"][0]["n_eff"] += 0.5


def _calibration(doc: Any) -> None:
    doc["bins"][0]["bins"][0]["realised"] = 99.0


def _portfolio(doc: Any) -> None:
    doc["portfolio"]["arena-3"]["accounts"][0]["value"] += 100.0


def _digest(doc: Any) -> None:
    doc["markets"]["SPX"]["latest_session"]["1d"]["mean_prob_up"] += 5.0


def _protocol(doc: Any) -> None:
    doc["model_versions"][0]["first_line"] += 1


JSON_TAMPERS: dict[str, tuple[str, Callable[[Any], None], str]] = {
    "digest": ("markets-digest.json", _digest, "$.markets.SPX.latest_session.1d.mean_prob_up:"),
    "protocol": ("arena-protocol.json", _protocol, "$.model_versions[0](seat=_climatology).first_line:"),
    "brier": ("council-league.json", lambda d: _models(d, "brier"), "(seat=cobalt, horizon=1d).brier:"),
    "coverage": ("council-league.json", lambda d: _models(d, "coverage"), "(seat=cobalt, horizon=1d).coverage:"),
    "consensus": ("council-stats.json", _consensus, "$.consensus.per_event[3]("),
    "n_eff": ("council-stats.json", _n_eff, "$.n_eff.counted.per_run[0]("),
    "calibration": ("council-calibration.json", _calibration, "$.bins[0]("),
    "portfolio": ("council-league.json", _portfolio, "$.portfolio.arena-3.accounts[0]("),
}


@pytest.mark.parametrize("kind", sorted(JSON_TAMPERS))
def test_each_json_figure_kind_is_named_by_file_path_and_field(kind: str, copy: Path, rebuilt: Path) -> None:
    name, edit, where = JSON_TAMPERS[kind]
    _edit_json(copy, name, edit)
    diffs = compare_folder(copy, rebuilt).differences
    assert len(diffs) == 1 and diffs[0].startswith(f"{name} ") and where in diffs[0], diffs
    field = {"consensus": ".p:", "n_eff": ".n_eff:", "calibration": ".realised:", "portfolio": ".value:"}.get(kind)
    assert field is None or field in diffs[0], diffs


def test_a_forged_family_in_the_roster_file_is_named(copy: Path, rebuilt: Path) -> None:
    _edit_json(copy, "roster.json", lambda d: d["seats"]["aurora-mini"].update(family="lab-z"))
    assert compare_folder(copy, rebuilt).differences == [
        "roster.json $.seats.aurora-mini.family: published \"lab-z\", recomputed \"lab-a\""]


def test_a_forged_account_row_is_named(copy: Path, rebuilt: Path) -> None:
    text = (copy / "arena-accounts.csv").read_text(encoding="utf-8").split("\n")
    cells = text[2].split(",")
    cells[9] = "999999.00"  # value
    text[2] = ",".join(cells)
    (copy / "arena-accounts.csv").write_text("\n".join(text), encoding="utf-8")
    [diff] = compare_folder(copy, rebuilt).differences
    assert diff.startswith("arena-accounts.csv row 3 ") and "field value: published '999999.00'" in diff


def test_the_rebuilt_forecasts_are_byte_identical_and_swapped_rows_are_named(demo_public: Path, copy: Path,
                                                                             rebuilt: Path) -> None:
    """The markets' order is sealed in the opening line, so the rebuilt CSV is the published one byte for byte."""
    assert (rebuilt / FORECASTS).read_bytes() == (demo_public / FORECASTS).read_bytes()
    header, rows = _rows(copy)
    rows[0], rows[1] = rows[1], rows[0]
    _write_rows(copy, header, rows)
    [diff] = compare_folder(copy, rebuilt).differences
    assert diff.startswith(f"{FORECASTS} row 2: the rows are in another order than the book gives")
