"""The registry of predictions: the file format, validated on reading (docs/predictions.md). Pure: it reads text
and gives typed records or one :class:`RegistryError` naming the line and the key.

A registry is TOML: a ``[registry]`` table (``name``, ``note``), an optional ``[window]`` (the default window of
every prediction: ``from_session``, 11 when not given) and one ``[[prediction]]`` table per line of the registry.
The JSON paths are read by the published resolver (``tools/resolve_predictions.py``), so that what the league
registers is exactly what a reader's copy of the resolver understands.
"""

from __future__ import annotations

import math
import re
import statistics
import tomllib
from collections.abc import Mapping
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from league.errors import LeagueError
from league.jsonvalue import Json
from league.verify.tools.resolve_predictions import OPS, parse_path

Op = Literal["<", "<=", ">", ">="]
_ID = r"[A-Za-z][A-Za-z0-9_.-]{0,39}"


class RegistryError(LeagueError):
    """A registry that cannot be sealed: the message names the file, line and key."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FieldRef(_Model):
    """One published field: a file of the open-data folder and a JSON path into it."""

    file: Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}\.json$")]
    path: Annotated[str, Field(min_length=1, max_length=500)]

    @model_validator(mode="after")
    def _path(self) -> FieldRef:
        if ".." in self.file:
            raise ValueError(f"file {self.file!r} leaves the open-data folder")
        try:
            parse_path(self.path)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        return self


class Window(_Model):
    """The rows a prediction reads: from the league's counted session ``from_session`` to ``to`` (the check date
    when not given)."""

    from_session: Annotated[int, Field(ge=1, le=100_000)] = 11
    to: date | None = None


class Prediction(_Model):
    """One line of the registry. ``p`` is the registered probability (the median of ``votes`` when they are
    given); ``no_skill`` the measure's expected value under no skill, when the line states one."""

    id: Annotated[str, Field(pattern=f"^{_ID}$")]
    statement: Annotated[str, Field(min_length=1, max_length=2000)]
    measure: Annotated[str, Field(min_length=1, max_length=2000)]
    set: Literal["A", "B"]
    check_date: date
    op: Op
    threshold: float
    min_sample: Annotated[int, Field(ge=0, le=10**9)] = 0
    p: float
    votes: tuple[float, ...] = ()
    no_skill: float | None = None
    window: Window | None = None
    field: FieldRef | None = None
    left: FieldRef | None = None
    right: FieldRef | None = None
    sample: FieldRef | None = None
    script: Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}\.py$")] | None = None
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    inputs: tuple[Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}$")], ...] = ()
    args: tuple[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:=-]{1,100}$")], ...] = ()

    @model_validator(mode="after")
    def _rules(self) -> Prediction:
        for name, x in (("threshold", self.threshold), ("p", self.p), ("no_skill", self.no_skill)):
            if x is not None and not math.isfinite(x):
                raise ValueError(f"{name}: not a finite number")
        if not 0 < self.p < 1:
            raise ValueError(f"p: {self.p} is not a probability strictly between 0 and 1")
        if any(not 0 <= v <= 1 for v in self.votes):
            raise ValueError("votes: a vote is not a probability from 0 to 1")
        if self.votes and not math.isclose(statistics.median(self.votes), self.p, abs_tol=1e-9):
            raise ValueError(f"p: {self.p} is not the median of its votes ({statistics.median(self.votes):g})")
        if self.set == "A":
            extra = next((k for k in ("script", "sha256", "inputs", "args") if getattr(self, k)), None)
            if extra:
                raise ValueError(f"{extra}: a set-A line reads published fields: no script, sha256, inputs or args")
            if (self.field is None) == (self.left is None or self.right is None):
                raise ValueError("field: a set-A line names either `field`, or both `left` and `right` (value = "
                                 "left - right)")
        else:
            if self.script is None or self.sha256 is None:
                raise ValueError(f"{'script' if self.script is None else 'sha256'}: a set-B line names its `script` "
                                 "and the script's `sha256`")
            extra = next((k for k in ("field", "left", "right", "sample") if getattr(self, k)), None)
            if extra:
                raise ValueError(f"{extra}: a set-B line's script is its definition: no field, left, right or "
                                 "sample")
            if ".." in self.script or any(".." in x for x in self.inputs):
                raise ValueError("script: a script or input path leaves its folder")
        if self.window is not None and self.window.to is not None and self.window.to > self.check_date:
            raise ValueError("window: the window ends after the check date")
        return self

    def resolver_json(self, default: Window) -> dict[str, Json]:
        """The entry as the published resolver reads it (its window filled in, dates as text)."""
        body: dict[str, Json] = self.model_dump(mode="json", exclude_none=True, exclude_defaults=False)
        own = self.window.model_fields_set if self.window is not None else set()
        start = self.window.from_session if self.window is not None and "from_session" in own else \
            default.from_session
        end = self.window.to if self.window is not None and self.window.to is not None else default.to
        body["window"] = {"from_session": start, "to": (end or self.check_date).isoformat()}
        return body

    def first_session(self, default: Window) -> int:
        """The first counted session the window reads."""
        own = self.window.model_fields_set if self.window is not None else set()
        return self.window.from_session if self.window is not None and "from_session" in own else \
            default.from_session


class Registry(_Model):
    """A whole registry file, read and checked."""

    name: str
    note: str
    window: Window
    predictions: tuple[Prediction, ...]


def _line_of(text: str, index: int, key: str | None) -> int:
    """The line of the ``index``-th ``[[prediction]]`` table (or of ``key`` inside it)."""
    starts = [m.start() for m in re.finditer(r"(?m)^[ \t]*\[\[prediction\]\]", text)]
    if index >= len(starts):
        return 1
    start = starts[index]
    end = starts[index + 1] if index + 1 < len(starts) else len(text)
    line = text.count("\n", 0, start) + 1
    if key:
        m = re.search(rf"(?m)^[ \t]*{re.escape(key)}[ \t]*=", text[start:end])
        if m:
            return line + text.count("\n", start, start + m.start())
    return line


def read_registry(text: str, where: str) -> Registry:
    """The registry in ``text`` (``where`` names it in errors): every entry checked, ids unique."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RegistryError(f"{where}: not valid TOML ({exc})", fix="fix the file's syntax") from None
    unknown = sorted(set(doc) - {"registry", "window", "prediction"})
    if unknown:
        raise RegistryError(f"{where}: unknown table or key {unknown[0]!r}",
                            fix="a registry has [registry], an optional [window] and [[prediction]] tables")
    head = doc.get("registry")
    if not isinstance(head, dict) or not isinstance(head.get("name"), str) or not head.get("name"):
        raise RegistryError(f"{where}: [registry] needs a `name`", fix='add [registry] name = "..." and note')
    try:
        window = Window.model_validate(doc.get("window") or {})
    except ValidationError as exc:
        raise RegistryError(f"{where}: [window]: {_first(exc)}", fix="from_session is a session count from 1") \
            from None
    entries = doc.get("prediction")
    if not isinstance(entries, list) or not entries:
        raise RegistryError(f"{where}: no [[prediction]] table", fix="add one [[prediction]] per registered line")
    out: list[Prediction] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        label = entry.get("id", f"#{i + 1}") if isinstance(entry, Mapping) else f"#{i + 1}"
        try:
            pred = Prediction.model_validate(entry)
        except ValidationError as exc:
            key = _key(exc)
            raise RegistryError(f"{where} line {_line_of(text, i, key)}: prediction {label}"
                                + (f": key `{key}`" if key else "") + f": {_first(exc)}",
                                fix="see docs/predictions.md for every key and its rule") from None
        if pred.id in seen:
            raise RegistryError(f"{where} line {_line_of(text, i, 'id')}: prediction id {pred.id} appears twice",
                                fix="give every prediction its own id")
        seen.add(pred.id)
        out.append(pred)
    return Registry(name=str(head["name"]), note=str(head.get("note", "")), window=window, predictions=tuple(out))


_NAMED = re.compile(r"^([a-z_0-9]+): (.*)$", re.S)


def _key(exc: ValidationError) -> str | None:
    """The key an error is about: pydantic's location, or the key a rule names first (``p: ...``)."""
    err = exc.errors()[0]
    loc = err.get("loc", ())
    if loc:
        return str(loc[0])
    m = _NAMED.match(str(err.get("msg", "")).removeprefix("Value error, "))
    return m.group(1) if m else None


def _first(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err.get("loc", ()))
    msg = str(err.get("msg", "")).removeprefix("Value error, ")
    if not err.get("loc") and (m := _NAMED.match(msg)):
        msg = m.group(2)
    return f"{msg}" + (f" (at {where})" if where and "." in where else "")


assert set(OPS) == {"<", "<=", ">", ">="}
