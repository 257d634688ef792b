"""What a seat writes is shown, never obeyed (docs/answer-format.md "Text a seat sends"): control
characters, ANSI escapes, bidirectional and invisible characters and lone surrogates are escaped visibly
(``\\u202e``) in what it reports about itself (one-line labels, at most 200 characters as shown) and
in the text fields of its reply; normal text is unchanged."""

from __future__ import annotations

import pytest

from league.answers import clean_label, clean_text, json_safe, parse_reply

MARKETS = {"SPX": ["1d", "1w"], "BTC": ["1d"]}


@pytest.mark.parametrize(("reported", "sealed"), [
    ("claude\x1b[31m-red\x1b[0m", "claude\\u001b[31m-red\\u001b[0m"),
    ("gpt\u202eevil", "gpt\\u202eevil"),
    ("a\x00b\x7fc\x85d\x9be", "a\\u0000b\\u007fc\\u0085d\\u009be"),
    ("\u2066x\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d", "\\u2066x\\u2069\\u200e\\u200f\\u061c\\u202a\\u202b"
     "\\u202c\\u202d"),
    ("line\nbreak\ttab\rreturn\u2028sep", "line\\u000abreak\\u0009tab\\u000dreturn\\u2028sep"),
    ("zero\u200bwidth\ufeffbom\u00adsoft\U000e0041tag", "zero\\u200bwidth\\ufeffbom\\u00adsoft\\U000e0041tag"),
    ("lone\ud800surrogate", "lone\\ud800surrogate"),
])
def test_labels_escape_controls_ansi_and_bidi(reported: str, sealed: str) -> None:
    """Before: cut to 200 characters and sealed verbatim (U+202E reversed what followed it when shown)."""
    assert clean_label(reported) == sealed


def test_an_escaped_label_stays_within_200_characters_and_never_cuts_an_escape() -> None:
    label = clean_label("m" * 150 + "\u202e" * 100)
    assert len(label) <= 200 and label == "m" * 150 + "\\u202e" * 8  # 150 + 8 x 6 = 198: a ninth would pass 200
    assert len(clean_label("\U000e0041" * 300)) == 200  # 20 escapes of 10 characters
    assert clean_label("n" * 300) == "n" * 200


@pytest.mark.parametrize("name", ["claude-opus-4-1-20250805", "gpt-5.2 (high)", "gemini-3-pro-preview", "scripted-1",
                                  "grok-4-fast-reasoning", "max", "cli-default", "unreported", "模型-Ω é", ""])
def test_normal_labels_are_unchanged(name: str) -> None:
    assert clean_label(name) == name
    assert clean_text(name) == name


def test_text_keeps_tab_and_newline_and_escapes_the_rest() -> None:
    assert clean_text("stderr:\n\tline 2\x1b[2K\u202e") == "stderr:\n\tline 2\\u001b[2K\\u202e"
    assert clean_text("\u202e" * 100, 500) == "\\u202e" * 83  # 498 characters: the 84th escape would pass 500


def test_cell_text_fields_and_usage_are_escaped_too() -> None:
    p = parse_reply('{"forecast": {"SPX": {"1d": {"prob_up": 61, "risk": "a\\u202eb\\nc", "action": "\\u001b[5m"},'
                    ' "years": "\\u0000"}}}', MARKETS)
    cell = p.items["SPX"]["1d"]
    assert cell.risk == "a\\u202eb\nc" and cell.action_word == "\\u001b[5m" and p.years["SPX"] == "\\u0000"
    assert json_safe({"key\u202e": ["v\x1b[0m", {"\x00": "\u2066"}]}) == {
        "key\\u202e": ["v\\u001b[0m", {"\\u0000": "\\u2066"}]}
