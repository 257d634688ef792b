"""The structural comparison behind `league verify`'s derived-files step: it names file, row/path and field."""

from __future__ import annotations

from league.verify.compare import FORECAST_KEY, diff_csv_bytes, diff_csv_order, diff_json_bytes, same_number

HEAD = ",".join((*FORECAST_KEY, "prob_up", "status")) + "\n"


def _csv(*rows: str) -> bytes:
    return (HEAD + "".join(r + "\n" for r in rows)).encode()


def test_a_changed_cell_is_named_by_row_key_and_column() -> None:
    published = _csv("r1,aurora,SPX,1d,issue,8,31.4,counted", "r1,basalt,SPX,1d,issue,9,60,counted")
    book = _csv("r1,basalt,SPX,1d,issue,9,60,counted", "r1,aurora,SPX,1d,issue,8,51.4,counted")
    assert diff_csv_bytes("f.csv", published, book, FORECAST_KEY) == [
        "f.csv row 2 (run_id=r1, seat=aurora, asset=SPX, horizon=1d, line_kind=issue, line=8) field prob_up: "
        "published '31.4', the book gives '51.4'"]


def test_rows_in_another_order_are_the_same_table_but_a_dropped_row_is_not() -> None:
    a = _csv("r1,aurora,SPX,1d,issue,8,51.4,counted", "r1,basalt,SPX,1d,issue,9,60,counted")
    b = _csv("r1,basalt,SPX,1d,issue,9,60,counted", "r1,aurora,SPX,1d,issue,8,51.4,counted")
    assert diff_csv_bytes("f.csv", a, b, FORECAST_KEY) == []
    short = _csv("r1,aurora,SPX,1d,issue,8,51.4,counted")
    [problem] = diff_csv_bytes("f.csv", short, b, FORECAST_KEY)
    assert "seat=basalt" in problem and "not published" in problem


def test_json_paths_name_the_seat_and_the_field() -> None:
    published = b'{"models": [{"seat": "aurora", "horizon": "1d", "brier": 0.2}]}'
    rebuilt = b'{"models": [{"seat": "aurora", "horizon": "1d", "brier": 0.16553683333333333}]}'
    assert diff_json_bytes("council-league.json", published, rebuilt) == [
        "council-league.json $.models[0](seat=aurora, horizon=1d).brier: published 0.2, recomputed "
        "0.16553683333333333"]


def test_numbers_agree_within_floating_noise_only() -> None:
    assert same_number(0.1 + 0.2, 0.3)
    assert not same_number(0.1655368, 0.16553683333333333)
    assert diff_json_bytes("x.json", b'{"a": null}', b'{"a": 1}') == ["x.json $.a: published null, recomputed 1"]
    assert diff_json_bytes("x.json", b'{"a": 1}', b'{"a": 1, "b": 2}') == ["x.json $.b: recomputed but not published"]


def test_rows_out_of_the_books_order_are_named_at_the_first_one() -> None:
    a = _csv("r1,aurora,SPX,1d,issue,8,51.4,counted", "r1,basalt,SPX,1d,issue,9,60,counted")
    b = _csv("r1,basalt,SPX,1d,issue,9,60,counted", "r1,aurora,SPX,1d,issue,8,51.4,counted")
    assert diff_csv_order("f.csv", a, a, FORECAST_KEY) == []
    [problem] = diff_csv_order("f.csv", a, b, FORECAST_KEY)
    assert problem.startswith("f.csv row 2: the rows are in another order") and "seat=aurora" in problem
