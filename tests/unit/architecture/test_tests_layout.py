"""tests/ mirrors the code: a module's tests are found by its path.

``tests/unit/X`` and ``tests/integration/X`` hold the tests of ``league/X/`` or ``league/X.py`` (``agents`` and
``sandbox``: the two packages beside the league). The few folders that test the house as a whole rather than
one part of it are named below with the reason; a new folder that names nothing fails here, so the layout
cannot drift back to folders named after a theme.
"""

from __future__ import annotations

from test_import_graph import ROOT

#: The packages beside league/ that have tests of their own.
BESIDE = ("agents", "sandbox")
#: Folders that test the house as a whole, each with why it is not one module's.
CROSS_CUTTING = {
    "architecture": "the import graph, the contracts, the typing and this layout",
    "docs": "the documentation's claims and wording",
    "benchmarks": "the scripts under benchmarks/",
    "packaging": "the install, the extras, the lock and the entry points",
}
#: The other folders directly under tests/: what they hold.
TOP = {"unit", "integration", "e2e", "realcli", "assets", "__pycache__"}


def _mirrored(name: str) -> bool:
    league = ROOT / "league"
    return (league / name).is_dir() or (league / f"{name}.py").is_file() or name in BESIDE or name in CROSS_CUTTING


def _folders(kind: str) -> list[str]:
    return sorted(p.name for p in (ROOT / "tests" / kind).iterdir() if p.is_dir() and p.name != "__pycache__")


def test_every_test_folder_names_a_part_of_the_code() -> None:
    strays = [f"tests/{kind}/{name}" for kind in ("unit", "integration") for name in _folders(kind)
              if not _mirrored(name)]
    assert strays == [], f"test folders that name no league/ package or module: {strays}"


def test_no_test_file_sits_loose_in_unit_or_integration() -> None:
    loose = [str(p.relative_to(ROOT)) for kind in ("unit", "integration")
             for p in (ROOT / "tests" / kind).glob("test_*.py")]
    assert loose == []


def test_the_top_of_tests_holds_only_the_known_folders() -> None:
    unknown = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir()} - TOP
    assert unknown == set()


def test_a_folder_named_after_a_theme_would_fail() -> None:
    """The check can fail: a theme name is no part of the code, a package name is."""
    assert not _mirrored("day") and not _mirrored("scheduler")
    assert _mirrored("jobs") and _mirrored("answers") and _mirrored("agents")
