"""Response models of the API: one sealed line, typed by its kind (the book's own models).

``/api/lines/{n}`` answers with the line's place in the chain (``n``, ``prev``, ``seal``, ``link``)
and the line itself as its kind's model (:mod:`league.book.lines`), so ``/api/docs`` shows every
kind's schema. A line of a session not scored yet is served redacted (:mod:`league.api.embargo`),
and a line that fits no model of this version is served with every key it has.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict

from league.book.lines import BOOKKEEPING, ForeignLine, TypedLine, read_line
from league.jsonvalue import JsonObject


class EmbargoedLine(BaseModel):
    """A line of a session whose score is not sealed yet: only where it is, whose it is, its hashes and
    times; ``withheld`` names the keys held back until the score."""

    model_config = ConfigDict(extra="allow")
    kind: str
    at: str
    embargoed: Literal[True]
    withheld: list[str]


class LineView(BaseModel):
    """One sealed line: its place in the hash chain and its content, typed by kind."""

    n: int
    prev: str
    seal: str
    link: str
    line: TypedLine | EmbargoedLine | ForeignLine


def line_view(raw: bytes) -> JsonObject:
    """The JSON body of ``/api/lines/{n}`` for one line as the embargo lets it be served (exact keys:
    a key the line lacks is absent, a ``null`` stays ``null``)."""
    obj: JsonObject = json.loads(raw)
    place = {k: obj.pop(k) for k in BOOKKEEPING if k in obj}
    if obj.get("embargoed") is True:
        line = EmbargoedLine.model_validate(obj).model_dump(mode="json", exclude_unset=True)
    else:
        line = read_line(obj).dumped()
    return {**place, "line": line}
