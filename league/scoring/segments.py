"""Methodology segments: one published file from the files of each segment, never pooling them.

A change of methodology opens a new measurement segment (paper §3.10, requirement 15): every
statistic is computed inside one segment. The published files keep their shapes: each record of a
list carries its ``methodology_version`` and the segments' lists are concatenated; a value that
differs between segments (a dict's scalar, a list of numbers) is published per version under
``by_segment``. With one segment (every league until its first methodology change) the files are
that segment's, each record tagged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

KEY = "methodology_version"


def tag(obj: Any, version: str) -> Any:
    """Add ``methodology_version`` to every dict that is an item of a list, at any depth."""
    if isinstance(obj, dict):
        return {k: tag(v, version) for k, v in obj.items()}
    if isinstance(obj, list):
        return [({KEY: version, **tag(x, version)} if isinstance(x, dict) and KEY not in x else tag(x, version))
                for x in obj]
    return obj


def merge(parts: Sequence[tuple[str, Any]]) -> Any:
    """One object from each segment's object (see the module docstring)."""
    tagged = [(v, tag(o, v)) for v, o in parts]
    if len(tagged) == 1:
        return tagged[0][1]
    return _merge(tagged)


def _merge(parts: list[tuple[str, Any]]) -> Any:
    values = [o for _, o in parts]
    if all(isinstance(o, dict) for o in values):
        keys = sorted({k for o in values for k in o})
        return {k: _merge([(v, o[k]) for v, o in parts if k in o]) for k in keys}
    if all(isinstance(o, list) for o in values) and all(isinstance(x, dict) for o in values for x in o):
        return [x for o in values for x in o]
    if all(o == values[0] for o in values):
        return values[0]
    return {"by_segment": {v: o for v, o in parts}}
