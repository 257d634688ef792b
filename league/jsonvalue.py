"""JSON values as the read side types them, and the few narrowing helpers that read them.

A sealed line's free-form parts (an answer's cells, a run's events, a seat's usage) are JSON of any shape:
they are typed as pydantic's recursive :data:`Json` union, not ``Any``, so a reader states what it expects
and a value of another shape is read as absent (the book is checked by its chain, not by its readers: an
older writer's cell with an extra key or a missing one must still read). Pure, no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, SupportsFloat, TypeAlias

if TYPE_CHECKING:
    from pydantic import JsonValue as Json
else:
    Json = object

__all__ = ["Json", "JsonObject", "Number", "as_float", "as_int", "flag", "items", "number", "obj", "path", "text",
           "texts"]

#: A JSON object as read back (keys are always strings in JSON).
JsonObject: TypeAlias = "dict[str, Json]"
Number: TypeAlias = "int | float"


def obj(value: Json | None) -> dict[str, Json]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def items(value: Json | None) -> list[Json]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def text(value: Json | None, default: str = "") -> str:
    """``value`` when it is a string, else ``default``."""
    return value if isinstance(value, str) else default


def number(value: Json | None) -> Number | None:
    """``value`` when it is a number (not a boolean), else ``None``."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def flag(value: Json | None) -> bool | None:
    """``value`` when it is a boolean, else ``None``."""
    return value if isinstance(value, bool) else None


def texts(value: Json | None) -> list[str]:
    """The strings of a JSON array (anything else dropped)."""
    return [v for v in items(value) if isinstance(v, str)]


def path(value: Json | None, *keys: str) -> Json | None:
    """``value[k1][k2]…`` through JSON objects; ``None`` where a step is missing or not an object."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def as_float(value: object) -> float:
    """``float(value)`` of a value decoded from JSON or handed back by a vendor library (a number or a numeric
    string); any other value fails with the ``TypeError`` that ``float()`` raises, for the caller to name (a
    reader that must stop on a malformed line, unlike :func:`number`, which reads it as absent)."""
    if isinstance(value, str | SupportsFloat):
        return float(value)
    raise TypeError(f"float() argument must be a string or a real number, not {type(value).__name__!r}")


def as_int(value: object) -> int:
    """``int(value)`` of a decoded value (a number or a numeric string); any other fails as ``int()`` does."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"int() argument must be a string or a real number, not {type(value).__name__!r}")
