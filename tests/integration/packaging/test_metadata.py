"""The release's metadata, read from pyproject.toml: an SPDX license with its file, the version written once
(league/__init__.py), the project's URLs, and a README whose install commands name the same distribution and
repository address, and whose exit-status table is the one `league --help` prints."""

from __future__ import annotations

import re
import tomllib

from source_tree import ROOT

from league.cli import EXIT_CODES

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_license_is_an_spdx_expression_with_its_file() -> None:
    project = PROJECT["project"]
    assert project["license"] == "Apache-2.0"  # a string (PEP 639), not the TOML table setuptools deprecates
    assert project["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")[:200]
    requires = PROJECT["build-system"]["requires"]
    assert "setuptools>=77" in requires  # the first setuptools that reads license-files and an SPDX string


def test_the_version_is_written_once() -> None:
    assert "version" not in PROJECT["project"] and "version" in PROJECT["project"]["dynamic"]
    assert PROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "league.__version__"}
    init = (ROOT / "league" / "__init__.py").read_text(encoding="utf-8")
    assert len(re.findall(r'^__version__ = "[^"]+"$', init, re.M)) == 1


def test_urls_authors_classifiers() -> None:
    project = PROJECT["project"]
    urls = project["urls"]
    assert set(urls) == {"Homepage", "Documentation", "Source", "Changelog"}
    assert all(u.startswith(urls["Source"]) for u in urls.values())
    assert project["authors"]
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]  # PEP 639: the expression only
    assert "Programming Language :: Python :: 3.11" in project["classifiers"]


def test_the_readme_installs_what_pyproject_names() -> None:
    source = PROJECT["project"]["urls"]["Source"]
    assert f"REPOSITORY_URL stands for\n`{source}`" in README or f"REPOSITORY_URL stands for `{source}`" in README
    assert "pip install 'forecast-league[stats] @ git+REPOSITORY_URL'" in README
    assert "pip install 'forecast-league[stats] @ file:///" in README
    names = set(re.findall(r"pip install [^`]*?'?(forecast[-_][a-z]+)", README))
    assert names == {"forecast-league"}, names  # one name for the distribution
    assert "make dist" in README and "make check" in README


def test_the_readme_exit_status_table_is_the_commands() -> None:
    rows = dict(re.findall(r"^\| (\d+) \| ([^|]+) \|$", README, re.M))
    assert sorted(int(code) for code in rows) == [code for code, _ in EXIT_CODES]
    for code, meaning in EXIT_CODES:  # the same rows, in the README's wording at more length
        assert rows[str(code)].split()[:3] == meaning.split()[:3], code
