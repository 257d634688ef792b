"""The leakage rule: knowledge cutoff < information cutoff (or resolution) < resolution, strictly."""

from __future__ import annotations

from datetime import date

from evals_helpers import question

from league.evals.admission import admit

END = date(2026, 3, 13)


def test_admitted_when_cutoff_is_before_the_information_cutoff_before_resolution() -> None:
    got = admit(question(end=END, info=date(2026, 2, 1)), date(2026, 1, 31))
    assert got.admitted and got.anchor == "info_cutoff" and got.reason == ""


def test_cutoff_on_or_after_the_information_cutoff_is_excluded() -> None:
    for cutoff in (date(2026, 2, 1), date(2026, 2, 2), date(2026, 3, 20)):
        got = admit(question(end=END, info=date(2026, 2, 1)), cutoff)
        assert not got.admitted
        assert got.reason == (f"the seat's knowledge cutoff {cutoff} is not before the question's information "
                              f"cutoff 2026-02-01")


def test_information_cutoff_not_before_resolution_is_excluded() -> None:
    got = admit(question(end=END, info=END), date(2025, 1, 1))
    assert not got.admitted and got.reason == "information cutoff 2026-03-13 is not before the resolution 2026-03-13"


def test_without_information_cutoff_the_resolution_date_is_the_anchor() -> None:
    assert admit(question(end=END), date(2026, 3, 12)).admitted
    got = admit(question(end=END), END)
    assert not got.admitted and got.anchor == "resolution"
    assert got.reason == "resolved 2026-03-13 on or before the seat's knowledge cutoff 2026-03-13"
