"""The registry's format: a good registry reads back as typed lines; a bad value is one error naming the file, the
line and the key; the JSON paths the published resolver reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from league.predictions.registry import RegistryError, Window, read_registry
from league.verify.tools.resolve_predictions import Missing, lookup, parse_path

SHIPPED = Path(__file__).resolve().parents[3] / "config" / "predictions.toml"
GOOD = '''[registry]
name = "test"
note = "n"

[[prediction]]
id = "X1"
statement = "s"
measure = "m"
set = "A"
field = { file = "council-stats.json", path = "a.b[0].c" }
op = ">"
threshold = 0.0
check_date = 2027-01-29
p = 0.6
votes = [0.5, 0.6, 0.9]

[[prediction]]
id = "X2"
statement = "s"
measure = "m"
set = "B"
script = "x.py"
sha256 = "%s"
window = { to = 2027-01-01 }
op = "<="
threshold = 1
check_date = 2027-01-29
p = 0.3
''' % ("a" * 64)


def test_a_good_registry_reads_back_typed_with_its_windows() -> None:
    reg = read_registry(GOOD, "r.toml")
    assert [p.id for p in reg.predictions] == ["X1", "X2"]
    x1, x2 = reg.predictions
    assert x1.resolver_json(reg.window)["window"] == {"from_session": 11, "to": "2027-01-29"}
    assert x2.resolver_json(reg.window)["window"] == {"from_session": 11, "to": "2027-01-01"}
    assert x2.first_session(Window(from_session=4)) == 4  # the registry's default, the line naming none


def test_the_shipped_example_registry_reads() -> None:
    reg = read_registry(SHIPPED.read_text(encoding="utf-8"), str(SHIPPED))
    sets = [p.set for p in reg.predictions]
    assert sets.count("A") >= 5 and sets.count("B") >= 4
    assert "operator" in SHIPPED.read_text(encoding="utf-8")  # the thresholds are the operator's, and it says so


@pytest.mark.parametrize(("old", "new", "line", "key", "why"), [
    ("p = 0.6\n", "p = 1.4\n", 14, "p", "not a probability"),
    ("p = 0.6\n", "p = 0.7\n", 14, "p", "not the median of its votes"),
    ('op = ">"', 'op = "!="', 11, "op", ""),
    ('path = "a.b[0].c"', 'path = "a..b"', 10, "field", "cannot read"),
    ("check_date = 2027-01-29\np = 0.6", "check_date = \"soon\"\np = 0.6", 13, "check_date", ""),
    ('set = "B"\nscript', 'set = "B"\nfield = { file = "x.json", path = "a" }\nscript', 22, "field", "no field"),
])
def test_a_bad_value_names_the_line_and_the_key(old: str, new: str, line: int, key: str | None, why: str) -> None:
    text = GOOD.replace(old, new, 1)
    with pytest.raises(RegistryError) as caught:
        read_registry(text, "r.toml")
    message = caught.value.message
    assert f"r.toml line {line}:" in message, message
    if key:
        assert f"key `{key}`" in message
    assert why in message


def test_a_repeated_id_and_a_broken_file_are_refused() -> None:
    with pytest.raises(RegistryError, match="X1 appears twice"):
        read_registry(GOOD.replace('id = "X2"', 'id = "X1"'), "r.toml")
    with pytest.raises(RegistryError, match="not valid TOML"):
        read_registry(GOOD + "\n[[prediction]\n", "r.toml")
    with pytest.raises(RegistryError, match="no \\[\\[prediction\\]\\]"):
        read_registry('[registry]\nname = "x"\n', "r.toml")


def test_paths_select_keys_indexes_and_the_first_matching_element() -> None:
    doc = {"summary": [{"horizon": "1w", "brier": 0.3}, {"horizon": "1d", "brier": 0.2, "n": 5}],
           "a.b": {"c": [10, 20]}, "rows": [{"seat": "x", "ok": True, "k": 2.0}]}
    assert lookup(doc, parse_path("summary[horizon=1d].brier")) == 0.2
    assert lookup(doc, parse_path("summary[1].n")) == 5
    assert lookup(doc, parse_path('["a.b"].c[1]')) == 20
    assert lookup(doc, parse_path("rows[seat=x,ok=true,k=2].seat")) == "x"  # numbers and booleans compared as text
    for missing in ("summary[horizon=6m].brier", "summary[2]", "nope", "summary[0].brier.x"):
        with pytest.raises(Missing):
            lookup(doc, parse_path(missing))
    with pytest.raises(ValueError, match="cannot read"):
        parse_path("summary[horizon")
