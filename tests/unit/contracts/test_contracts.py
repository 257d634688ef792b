"""Event contracts: ids computed by hand from the protocol's formula, and the stand-alone checker."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.contracts import SCHEMA_PATH, EventContract, event_ids
from league.errors import InvalidRecord
from league.verify import CONFORMANCE_PATH

REF = datetime(2026, 11, 27, 14, 30, tzinfo=UTC)
END = datetime(2026, 11, 27, 18, 0, tzinfo=UTC)


def make(**over: object) -> EventContract:
    base = dict(asset="SPX", horizon="1d", reference_at=REF, end_at=END,
                reference_rule="first_1m_bar_at_or_after_reference_at__last_1m_bar_at_or_before_end_at__v1",
                price_provider="yahoo_finance_chart_v8_1m", price_symbol="^GSPC")
    base.update(over)
    return EventContract.make(**base)  # type: ignore[arg-type]


def by_hand(obj: dict[str, str], prefix: str) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return prefix + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_ids_follow_the_protocol_formula() -> None:
    c = make()
    d = c.as_dict()
    assert c.event_id_v2 == by_hand(d, "ev2-")
    assert c.event_id == by_hand({k: d[k] for k in ("asset", "horizon", "reference_at", "end_at", "rule")}, "ev1-")
    assert event_ids(d) == (c.event_id, c.event_id_v2)


def test_v1_ignores_provider_but_v2_does_not() -> None:
    a, b = make(), make(price_provider="other_provider")
    assert a.event_id == b.event_id
    assert a.event_id_v2 != b.event_id_v2


@pytest.mark.parametrize("over", [{"horizon": "2d"}, {"end_at": REF}, {"asset": ""}])
def test_invalid_contract_cannot_exist(over: dict[str, object]) -> None:
    with pytest.raises(InvalidRecord):
        make(**over)


def test_schema_lists_the_nine_keys() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    assert set(schema["required"]) == set(make().as_dict())
    assert schema["additionalProperties"] is False


COLUMNS = (
    "run_id session seat model mode line sealed_at status asset horizon action action_word prob_up exp_pct "
    "target invalidation ref close actual_pct draw source_domains source_urls why_missing run_role "
    "seat_versions_in_run line_kind reference_at same_event cell_status attempt event_id event_id_v2 "
    "event_reference_at event_end_at methodology_version rule resolver_version reference_rule price_provider "
    "price_symbol"
).split()


def good_row(contract: EventContract, **over: str) -> dict[str, str]:
    d = contract.as_dict()
    row = {c: "" for c in COLUMNS}
    row.update(run_id="2026-11-27-r1", session="2026-11-27", seat="aurora", line="5", sealed_at="2026-11-27T13:40:00Z",
               status="counted", asset=d["asset"], horizon=d["horizon"], prob_up="61", ref="100", close="101",
               actual_pct="1.0000000000000009", draw="0", cell_status="elicited", attempt="1",
               event_id=contract.event_id, event_id_v2=contract.event_id_v2, event_reference_at=d["reference_at"],
               event_end_at=d["end_at"], methodology_version="m1", rule=d["rule"],
               resolver_version=d["resolver_version"], reference_rule=d["reference_rule"],
               price_provider=d["price_provider"], price_symbol=d["price_symbol"])
    row.update(over)
    return row


def run_checker(tmp_path: Path, rows: list[dict[str, str]]) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "council-forecasts.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return subprocess.run([sys.executable, "-I", str(CONFORMANCE_PATH), str(path)], capture_output=True, text=True)


def test_conformance_ok(tmp_path: Path) -> None:
    out = run_checker(tmp_path, [good_row(make()), good_row(make(asset="NDX", price_symbol="^NDX"))])
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip() == "2 rows, ok"


@pytest.mark.parametrize(
    ("over", "needle"),
    [
        ({"event_id_v2": "ev2-0000000000000000"}, "event_id_v2"),
        ({"prob_up": "140"}, "outside 0-100"),
        ({"methodology_version": ""}, "methodology_version"),
        ({"sealed_at": "2026-11-27T14:31:00Z"}, "after its reference"),
        ({"actual_pct": "5"}, "actual_pct"),
        ({"status": "maybe"}, "status"),
    ],
)
def test_conformance_names_the_failing_row(tmp_path: Path, over: dict[str, str], needle: str) -> None:
    out = run_checker(tmp_path, [good_row(make()), good_row(make(), **over)])
    assert out.returncode == 1
    assert "row 2" in out.stdout and needle in out.stdout


def test_one_id_for_two_events_is_rejected(tmp_path: Path) -> None:
    a = good_row(make())
    b = good_row(make(), price_symbol="SPY")  # same claimed ids, different contract
    out = run_checker(tmp_path, [a, b])
    assert out.returncode == 1 and "row 2" in out.stdout
