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

from league.jsonvalue import Json, JsonObject

KEY = "methodology_version"


def tag(obj: Json, version: str) -> Json:
    """Add ``methodology_version`` to every dict that is an item of a list, at any depth."""
    if isinstance(obj, dict):
        return _tag_object(obj, version)
    if isinstance(obj, list):
        return [({KEY: version, **_tag_object(x, version)} if isinstance(x, dict) and KEY not in x
                 else tag(x, version)) for x in obj]
    return obj


def _tag_object(obj: JsonObject, version: str) -> JsonObject:
    return {k: tag(v, version) for k, v in obj.items()}


def merge(parts: Sequence[tuple[str, Json]]) -> Json:
    """One object from each segment's object (see the module docstring)."""
    tagged = [(v, tag(o, v)) for v, o in parts]
    if len(tagged) == 1:
        return tagged[0][1]
    return _merge(tagged)


def _merge(parts: list[tuple[str, Json]]) -> Json:
    values = [o for _, o in parts]
    objects = [(v, o) for v, o in parts if isinstance(o, dict)]
    if len(objects) == len(parts):
        keys = sorted({k for _, o in objects for k in o})
        return {k: _merge([(v, o[k]) for v, o in objects if k in o]) for k in keys}
    arrays = [o for o in values if isinstance(o, list)]
    if len(arrays) == len(values) and all(isinstance(x, dict) for o in arrays for x in o):
        return [x for o in arrays for x in o]
    if all(o == values[0] for o in values):
        return values[0]
    by_segment: JsonObject = {v: o for v, o in parts}
    return {"by_segment": by_segment}
