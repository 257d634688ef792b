"""JSON values as the read side types them, and the few narrowing helpers that read them.

A sealed line's free-form parts (an answer's cells, a run's events, a seat's usage) are JSON of any shape:
they are typed as pydantic's recursive :data:`Json` union, not ``Any``, so a reader states what it expects
and a value of another shape is read as absent (the book is checked by its chain, not by its readers: an
older writer's cell with an extra key or a missing one must still read). Pure, no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from pydantic import JsonValue as Json
else:
    Json = object

__all__ = ["Json", "JsonObject", "Number", "flag", "items", "number", "obj", "path", "text", "texts"]

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
