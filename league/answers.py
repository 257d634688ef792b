"""Reply → cells (docs/protocol.md §7, docs/answer-format.md). Pure: no I/O, no clock.

A reply is parsed, never repaired: a reply without a usable ``forecast`` object is
``refused_shape`` with the reason, and the raw text stays sealed as received. Unknown markets or
horizons are reported as notes and never scored.

Hostile replies are bounded, not trusted (docs/hostile-inputs.md): only the LAST
``MAX_PARSE_CHARS`` characters are read (the JSON comes last); the search for the last object may
read at most ``WORK_FACTOR`` times that text (a reply built so that every ``{`` starts a deep or
long failing parse is refused_shape once that work is spent, instead of taking minutes); nesting
too deep to parse is a failed candidate, not a crash; every string taken from the reply is cut to a
stated length and made representable (a lone surrogate such as ``\\ud800`` becomes the six
characters ``\\ud800``), so whatever the reply holds, the parsed result can be sealed.

An ambiguous reply is never resolved silently (docs/answer-format.md "Ambiguous replies"): a key
the parser reads that is given twice with different values, or two different answer objects, is
``refused_shape`` (JSON readers disagree on which one counts, so the reply states no single
forecast); the same value given twice is read once and noted; a reply whose every ``prob_up`` is
0 or 1 is read on the 0-100 scale with a note saying so.
"""

from __future__ import annotations

import json
import math
import re
import reprlib
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field

from league.jsonvalue import Json

ACTIONS = ("buy_strong", "buy_dips", "hold", "trim", "sell")
_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)
MAX_PARSE_CHARS = 8 * 1024 * 1024  # as much as the sandbox lets a seat print (8 MiB stdout cap)
WORK_FACTOR = 8  # the object search may read 8x the parsed text (+1 Mi characters) before it gives up
RECURSION_COST = 32_768  # a candidate too deeply nested to parse costs about this much work
MAX_NOTES = 50
TEXT_CAP = 500
_SHOW = reprlib.Repr()
_SHOW.maxstring, _SHOW.maxother, _SHOW.maxlevel = 80, 80, 3


#: Characters that change or hide how a text is shown, escaped visibly wherever a seat's text is sealed:
#: the C0 controls (NUL, ESC that starts an ANSI sequence, CR that rewrites a terminal line...), DEL and the
#: C1 controls; the bidirectional controls (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069); the invisible
#: format characters (soft hyphen, U+180E, zero-width space/joiners, U+2060-U+2064, BOM, U+FFF9-U+FFFB, the
#: tag characters U+E0000-U+E007F); the line and paragraph separators; and lone surrogates, which UTF-8
#: cannot carry. An explicit list, not a Unicode category, so the sealed text does not depend on the
#: Python version's Unicode tables.
_HIDDEN = ("\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
           "\u2066-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f")
#: In text that may run over lines (a cell's ``risk``, a failure's ``detail``) tab and newline are kept.
_HIDDEN_TEXT = re.compile(f"([{_HIDDEN}])")
#: In a one-line label (a reported model, version or mode, a worker's name) they are escaped too.
_HIDDEN_LABEL = re.compile(f"([\t\n{_HIDDEN}])")
LABEL_CAP = 200


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _cleaned(text: str, hidden: re.Pattern[str], cap: int | None) -> str:
    """``text`` (its first ``cap`` characters) with each hidden character escaped, cut to ``cap`` at an
    escape's boundary (never inside one). Text without such characters is returned as it is."""
    head = text if cap is None else text[:cap]
    if hidden.search(head) is None:
        return head
    parts = hidden.split(head)  # text, hidden character, text, ...
    out: list[str] = []
    size = 0
    for k, part in enumerate(parts):
        piece = _escape(part) if k % 2 else part
        if cap is not None and size + len(piece) > cap:
            if not k % 2:
                out.append(piece[: cap - size])
            break
        out.append(piece)
        size += len(piece)
    return "".join(out)


def clean_text(text: str, cap: int | None = None) -> str:
    """``text`` as the book may show it: every character of :data:`_HIDDEN` spelled out as ``\\uXXXX``
    (a lone surrogate as ``\\ud800``, U+202E as ``\\u202e``, ESC as ``\\u001b``), tab and newline kept,
    at most ``cap`` characters as shown. Why escaped, not removed: what the seat sent stays readable, and
    nothing it sent can reverse, hide or recolour the text around it where a line is displayed."""
    return _cleaned(text, _HIDDEN_TEXT, cap)


def clean_label(text: str, cap: int = LABEL_CAP) -> str:
    """A one-line label a seat reports about itself (model, version, mode, a worker's name): as
    :func:`clean_text`, with tab and newline escaped too, at most ``cap`` characters as shown."""
    return _cleaned(text, _HIDDEN_LABEL, cap)


def show(value: object) -> str:
    """A short, safe rendering of any parsed value for a note (bounded depth and length)."""
    return clean_text(_SHOW.repr(value))


@dataclass(frozen=True)
class Cell:
    """One market × horizon cell as the seat stated it."""

    prob_up: float | None
    cell_status: str
    action: str = ""
    action_word: str = ""
    entry: float | None = None
    target: float | None = None
    invalidation: float | None = None
    risk: str = ""
    revise_if: str = ""
    crowd_up: float | None = None
    source_urls: tuple[str, ...] = ()
    source_domains: tuple[str, ...] = ()
    problem: str = ""

    def as_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"prob_up": self.prob_up, "cell_status": self.cell_status}
        for key in ("action", "action_word", "risk", "revise_if", "problem"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        for key in ("entry", "target", "invalidation", "crowd_up"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.source_urls:
            out["source_urls"] = list(self.source_urls)
        if self.source_domains:
            out["source_domains"] = list(self.source_domains)
        return out


@dataclass(frozen=True)
class ParsedReply:
    ok: bool
    failure: str = ""
    items: dict[str, dict[str, Cell]] = field(default_factory=dict)
    years: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def items_json(self) -> dict[str, dict[str, dict[str, Json]]]:
        return {m: {h: c.as_json() for h, c in cells.items()} for m, cells in self.items.items()}


class _OutOfWork(Exception):
    """The object search spent its work budget (a hostile reply): refused_shape, never minutes."""


@dataclass
class _Budget:
    left: int

    def spend(self, amount: int) -> None:
        self.left -= max(1, amount)
        if self.left < 0:
            raise _OutOfWork


def parsed_text(raw: str) -> str:
    """The part of a reply the parser reads: all of it, or its last ``MAX_PARSE_CHARS`` characters."""
    return raw[-MAX_PARSE_CHARS:] if len(raw) > MAX_PARSE_CHARS else raw


_WORK_CAP_FAILURE = (f"no JSON object could be found within the parser's work cap ({WORK_FACTOR}x the reply's "
                     "length): the reply is built of deeply nested or endlessly failing JSON")


@dataclass
class _Answers:
    """The answer objects (top-level JSON objects with a ``forecast`` object) met in a reply: how many,
    and whether they all say the same (:func:`same_value`)."""

    count: int = 0
    first: dict[str, Json] | None = None
    first_text: str = ""
    differ: bool = False

    def add(self, obj: dict[str, Json], text: str, start: int, end: int) -> None:
        """Count the answer ``obj`` (decoded from ``text[start:end]``). The same source text is the same
        answer, compared at C speed; only different texts are compared as values."""
        self.count += 1
        source = text[start:end]
        if self.first is None:
            self.first, self.first_text = obj, source
        elif not self.differ and source != self.first_text and not same_value(obj, self.first):
            self.differ = True


def same_value(a: Json, b: Json) -> bool:
    """Whether two parsed JSON values say the same: numbers by value (``10`` and ``10.0`` are the same,
    ``true`` is not ``1``), objects whatever their key order. A value nested too deeply to compare is
    the same as nothing (NaN, which JSON cannot write, neither)."""
    try:
        return _same(a, b)
    except RecursionError:
        return False


def _same(a: Json, b: Json) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return bool(a == b)
    if type(a) is not type(b):
        return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    return bool(a == b)


@dataclass(frozen=True)
class _Found:
    """The object the parser reads, the text it was decoded from (to read it again for repeated
    keys), and, when counted, the answer objects of the whole parsed text."""

    obj: dict[str, Json] | None
    why: str = ""
    source: str = ""
    answers: _Answers = field(default_factory=_Answers)
    #: The object was found, but the rest of the reply could not be searched for other answer objects.
    unsearched: bool = False


def find_json(raw: str) -> tuple[dict[str, Json] | None, str]:
    """``(object, "")`` for the last top-level JSON object of the reply (a fenced block is preferred),
    or ``(None, why)``."""
    found = _find(raw, count_answers=False)
    return found.obj, found.why


def extract_json(raw: str) -> dict[str, Json] | None:
    """The last top-level JSON object in the reply (a fenced block is preferred)."""
    return find_json(raw)[0]


def _find(raw: str, *, count_answers: bool) -> _Found:
    """The last top-level JSON object of the last fenced block that holds one, else of the whole text.

    With ``count_answers`` the whole text is searched in any case, counting its answer objects, so
    that an answer before or after the chosen one is seen (one work budget for both searches)."""
    text = parsed_text(raw)
    budget = _Budget(WORK_FACTOR * len(text) + (1 << 20))
    answers = _Answers()
    chosen: tuple[dict[str, Json], str] | None = None
    try:
        for block in reversed(_FENCE.findall(text)):
            chosen = _last_object(block, budget)
            if chosen is not None:
                break
        if chosen is None or count_answers:
            last = _last_object(text, budget, answers if count_answers else None)
            chosen = chosen or last
    except _OutOfWork:
        if chosen is None:
            return _Found(None, _WORK_CAP_FAILURE)
        return _Found(chosen[0], source=chosen[1], answers=answers, unsearched=True)
    if chosen is None:
        return _Found(None, "no JSON object found in the reply")
    return _Found(chosen[0], source=chosen[1], answers=answers)


def _last_object(text: str, budget: _Budget, answers: _Answers | None = None) -> tuple[dict[str, Json], str] | None:
    """The last top-level object of ``text`` and its source text; each one met is added to ``answers``."""
    decoder = json.JSONDecoder()
    best: tuple[dict[str, Json], int, int] | None = None
    pos = text.find("{")
    while pos >= 0:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            budget.spend(exc.pos - pos)
            pos = text.find("{", pos + 1)
            continue
        except ValueError:  # e.g. an integer of more than 4300 digits
            budget.spend(len(text) - pos)
            pos = text.find("{", pos + 1)
            continue
        except RecursionError:
            budget.spend(RECURSION_COST)
            pos = text.find("{", pos + 1)
            continue
        budget.spend(end - pos)
        if isinstance(obj, dict):
            best = obj, pos, end
            if answers is not None and isinstance(obj.get("forecast"), dict):  # an answer object
                answers.add(obj, text, pos, end)
        pos = text.find("{", end)
    return None if best is None else (best[0], text[best[1]:best[2]])


class _Repeats:
    """``object_pairs_hook`` that builds each object as ``json`` does (the last value of a repeated key
    wins) and remembers every object whose keys repeat.

    An object holding a key the parser could read somewhere (``readable``: ``forecast``, the asked
    markets, their horizons, ``years``, a cell's fields) is kept with its pairs as written, keyed by
    ``id`` (the pairs hold the overwritten values, and the object is in the tree or in an ancestor's
    pairs, so no id is reused while the table lives). Any other object only counts its extra keys and
    lends the names of the first few: a reply of 600,000 small objects that repeat a key costs little
    more than ``json`` itself."""

    def __init__(self, readable: frozenset[str]) -> None:
        self.readable = readable
        self.seen: dict[int, list[tuple[str, Json]]] = {}
        self.unread_extra = 0
        self.unread_names: dict[str, None] = {}
        self._named = 0

    def __call__(self, pairs: list[tuple[str, Json]]) -> dict[str, Json]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            if not self.readable.isdisjoint(obj):
                self.seen[id(obj)] = pairs
            else:
                self.unread_extra += len(pairs) - len(obj)
                if self._named < _NAMED:
                    self._named += 1
                    self.unread_names.update(dict.fromkeys(_values_given(pairs)))
        return obj


def _values_given(pairs: list[tuple[str, Json]]) -> dict[str, list[Json]]:
    """Every value of each key given more than once, in order."""
    values: dict[str, list[Json]] = {}
    for key, value in pairs:
        values.setdefault(key, []).append(value)
    return {k: v for k, v in values.items() if len(v) > 1}


def _number(value: Json) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        if isinstance(value, str):
            try:
                return _number(float(value.strip().rstrip("%")))
            except ValueError:
                return None
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any float
        return None
    return number if math.isfinite(number) else None


def _text(value: Json, cap: int = TEXT_CAP) -> str:
    """A string field of the reply, cut to ``cap``; a non-string is shown, never expanded without bound."""
    if value is None:
        return ""
    if isinstance(value, str):
        return clean_text(value, cap)
    if isinstance(value, bool | int | float):
        return clean_text(str(value), cap)
    return show(value)[:cap]


def _strings(value: Json) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(_text(v, 2000) for v in value if isinstance(v, str | int | float))[:50]
    return ()


def parse_cell(obj: Json) -> Cell | None:
    """One cell; ``None`` when the seat left it empty (absent or ``{}``)."""
    if obj is None or obj == {}:
        return None
    if not isinstance(obj, Mapping):
        return Cell(prob_up=None, cell_status="invalid", problem=f"cell is {type(obj).__name__}, not an object")
    prob = _number(obj.get("prob_up"))
    status, problem = "elicited", ""
    if prob is None:
        status, problem = "invalid", f"prob_up {show(obj.get('prob_up'))} is not a number"
    elif not 0 <= prob <= 100:
        status, problem, prob = "invalid", f"prob_up {prob} outside 0-100", None
    elif prob == 50:
        status = "explicit_50"
    action, word = _action(obj.get("action"))
    return Cell(
        prob_up=prob,
        cell_status=status,
        action=action,
        action_word=word,
        entry=_number(obj.get("entry")),
        target=_number(obj.get("target")),
        invalidation=_number(obj.get("invalidation")),
        risk=_text(obj.get("risk")),
        revise_if=_text(obj.get("revise_if")),
        crowd_up=_number(obj.get("crowd_up")),
        source_urls=_strings(obj.get("source_urls")),
        source_domains=_strings(obj.get("source_domains")),
        problem=problem,
    )


def _action(value: Json) -> tuple[str, str]:
    if value in (None, ""):
        return "", ""
    text = _text(value, 100)
    word = text.strip().lower()
    return (word, "") if word in ACTIONS else ("", text)


def parse_reply(raw: str, markets: Mapping[str, Sequence[str]]) -> ParsedReply:
    """Parse a raw reply against the markets (code → horizons) that were asked. Never raises for
    anything the reply holds."""
    head = [f"the reply is {len(raw)} characters; only its last {MAX_PARSE_CHARS} were parsed"] \
        if len(raw) > MAX_PARSE_CHARS else []
    try:
        parsed = _parse(raw, markets)
    except RecursionError:
        parsed = ParsedReply(ok=False, failure="the reply's JSON object is nested too deeply to read")
    notes = [*head, *parsed.notes]
    if len(notes) > MAX_NOTES:
        notes = [*notes[:MAX_NOTES], f"... and {len(notes) - MAX_NOTES} more notes"]
    return ParsedReply(ok=parsed.ok, failure=parsed.failure, items=parsed.items, years=parsed.years,
                       notes=tuple(notes))


def _parse(raw: str, markets: Mapping[str, Sequence[str]]) -> ParsedReply:
    found = _find(raw, count_answers=True)
    if found.obj is None:
        return ParsedReply(ok=False, failure=found.why)
    obj, repeats = _read_again(found.source, markets)
    if obj is None:
        return ParsedReply(ok=False, failure="the reply's JSON object is nested too deeply to be checked for "
                                             "repeated keys")
    conflicts, notes = _repeated_keys(obj, repeats, markets)
    if conflicts:
        more = f" ({len(conflicts) - 1} more keys repeat with different values)" if len(conflicts) > 1 else ""
        return ParsedReply(ok=False, notes=tuple(notes), failure=(
            f"{conflicts[0]}: JSON readers differ on which value of a repeated key counts, so the reply states no "
            f"single forecast; none was taken{more}"))
    forecast = obj.get("forecast")
    if not isinstance(forecast, Mapping):
        return ParsedReply(ok=False, failure="the reply's JSON object has no `forecast` object", notes=tuple(notes))
    failure, note = _answer_count(found)
    if failure:
        return ParsedReply(ok=False, failure=failure, notes=tuple(notes))
    notes += note
    items: dict[str, dict[str, Cell]] = {}
    years: dict[str, str] = {}
    for code, body in forecast.items():
        if code not in markets:
            notes.append(f"unknown market {show(code)} ignored")
            continue
        if not isinstance(body, Mapping):
            notes.append(f"market {code}: not an object")
            continue
        cells, more_notes = _market_cells(code, body, markets[code])
        notes += more_notes
        if cells:
            items[code] = cells
        if isinstance(body.get("years"), str):
            years[code] = _text(body["years"], 1000)
    scale = _scale_problem(items)
    if scale:
        return ParsedReply(ok=False, failure=scale, notes=tuple(notes))
    notes += [f"{code} {h}: prob_up {c.prob_up} is below 1, read as {c.prob_up}% (prob_up is on a 0-100 scale)"
              for code, cells in items.items() for h, c in cells.items()
              if c.prob_up is not None and 0 < c.prob_up < 1]
    notes += _zero_one_reading(items)
    if not items:  # well-formed but empty: every cell is missing (counted_50 for the service score only)
        notes.append("the forecast object holds no cell for any asked market")
    return ParsedReply(ok=True, items=items, years=years, notes=tuple(notes))


def _answer_count(found: _Found) -> tuple[str, list[str]]:
    """``(failure, notes)`` from the answer objects of the whole reply: two that differ are refused (the
    ask says to end with ONE; which of two forecasts the seat meant is not the parser's to choose), the
    same one repeated is read once and noted."""
    if found.unsearched:
        return (f"an answer object was found, but the rest of the reply could not be searched for another within "
                f"the parser's work cap ({WORK_FACTOR}x the reply's length): the reply is built of deeply nested or "
                "endlessly failing JSON"), []
    count = found.answers.count
    if found.answers.differ:
        return (f"the reply holds {count} answer objects (JSON objects with a `forecast`) that differ: a reply ends "
                "with ONE, and the parser does not choose between them; none was taken"), []
    if count > 1:
        return "", [f"the reply holds {count} answer objects (JSON objects with a `forecast`), all the same; read once"]
    return "", []


def _read_again(source: str, markets: Mapping[str, Sequence[str]]) -> tuple[dict[str, Json] | None, _Repeats]:
    """The chosen object decoded again from its own text, this time noting every repeated key (done for
    that one object only: the search itself runs at the C decoder's speed)."""
    readable = frozenset({"forecast", "years", *markets, *(h for hs in markets.values() for h in hs), *CELL_KEYS})
    repeats = _Repeats(readable)
    try:
        obj, _ = json.JSONDecoder(object_pairs_hook=repeats).raw_decode(source)
    except (ValueError, RecursionError):  # nested to the edge of the interpreter's limit
        return None, repeats
    return (obj if isinstance(obj, dict) else None), repeats


#: The keys of a cell that the parser reads (parse_cell).
CELL_KEYS = frozenset({"prob_up", "action", "entry", "target", "invalidation", "risk", "revise_if", "crowd_up",
                       "source_urls", "source_domains"})


def _repeated_keys(obj: dict[str, Json], repeats: _Repeats,
                   markets: Mapping[str, Sequence[str]]) -> tuple[list[str], list[str]]:
    """``(conflicts, notes)`` for the keys given more than once. Where the parser reads (``forecast``, an
    asked market, its horizons and ``years``, a cell's fields): different values are a conflict, the same
    value a note. Keys repeated anywhere else change nothing that is read: one note counts them (each
    extra time a key is given) and names the first few."""
    conflicts: list[str] = []
    notes: list[str] = []
    unread: dict[str, None] = {}  # the names of keys repeated where nothing is read, in order
    extra = 0
    checked: set[int] = set()

    def check(holder: Json, where: str, read: Container[str]) -> None:
        nonlocal extra
        pairs = repeats.seen.get(id(holder)) if isinstance(holder, dict) else None
        if pairs is None:
            return
        checked.add(id(holder))
        for key, values in _values_given(pairs).items():
            if key not in read:
                unread.setdefault(key)
                extra += len(values) - 1
            elif _all_same(values):
                notes.append(f"{where}\"{key}\" is given {len(values)} times, each time the same ({show(values[0])}); "
                             "read once")
            else:
                shown = ", ".join(show(v) for v in values[:3]) + (", ..." if len(values) > 3 else "")
                conflicts.append(f"{where}\"{key}\" is given {len(values)} times with different values ({shown})")

    check(obj, "", ("forecast",))
    forecast = obj.get("forecast")
    if isinstance(forecast, dict):
        check(forecast, "forecast ", markets)
        for code, horizons in markets.items():
            body = forecast.get(code)
            if isinstance(body, dict):
                check(body, f"{code} ", (*horizons, "years"))
                for h in horizons:
                    check(body.get(h), f"{code} {h} ", CELL_KEYS)
    named = 0
    for key, pairs in repeats.seen.items():
        if key not in checked:
            extra += len(pairs) - len(dict(pairs))
            if named < _NAMED:
                named += 1
                unread.update(dict.fromkeys(_values_given(pairs)))
    extra += repeats.unread_extra
    unread.update(repeats.unread_names)
    if extra:
        names = list(unread)
        listed = ", ".join(show(k) for k in names[:_NAMED]) + (", ..." if len(names) > _NAMED else "")
        notes.append(f"{extra} keys are repeated where the parser reads nothing ({listed}); ignored")
    return conflicts, notes


#: How many names of keys repeated where nothing is read the note lists.
_NAMED = 5


def _all_same(values: Sequence[Json]) -> bool:
    return all(same_value(v, values[0]) for v in values[1:])


def _zero_one_reading(items: Mapping[str, Mapping[str, Cell]]) -> list[str]:
    """A reply whose every prob_up is 0 or 1, a 1 among them, could be on either scale (1 % or certainty):
    it is read as percentages, the one scale prob_up has, and the note says so. A 0 is 0 % either way."""
    probs = [(f"{code} {h}", c.prob_up) for code, cells in items.items() for h, c in cells.items()
             if c.prob_up is not None]
    ones = [where for where, p in probs if p == 1]
    if not ones or any(p not in (0, 1) for _, p in probs):
        return []
    listed = ", ".join(ones[:5]) + (", ..." if len(ones) > 5 else "")
    return [f"every prob_up is 0 or 1 ({len(probs)} cells; 1 in {listed}): read on the 0-100 scale, so 1 is 1%, not "
            "certainty (a reply is refused as a 0-1 scale only when a prob_up lies strictly between 0 and 1); "
            "nothing was rescaled"]


def _scale_problem(items: Mapping[str, Mapping[str, Cell]]) -> str:
    """A reply whose every stated prob_up lies in [0, 1], one of them strictly between, used the 0-1
    scale: refused (docs/answer-format.md), never rescaled."""
    probs = [c.prob_up for cells in items.values() for c in cells.values() if c.prob_up is not None]
    if probs and all(p <= 1 for p in probs) and any(0 < p < 1 for p in probs):
        return (f"every prob_up is between 0 and 1 ({len(probs)} cells): the reply looks like a 0-1 scale, but "
                "prob_up is a percentage (0-100); nothing was rescaled")
    return ""


def _market_cells(code: str, body: Mapping[str, Json], horizons: Sequence[str]) -> tuple[dict[str, Cell], list[str]]:
    cells: dict[str, Cell] = {}
    notes: list[str] = []
    for key, value in body.items():
        if key == "years":
            continue
        if key not in horizons:
            notes.append(f"market {code}: unknown horizon {show(key)} ignored")
            continue
        cell = parse_cell(value)
        if cell is not None:
            cells[key] = cell
    return cells, notes


def json_safe(value: object, depth: int = 12, width: int = 200, text_cap: int = 2000) -> Json:
    """A copy of ``value`` that any book line can carry: strings cut and made representable, keys as
    strings, non-finite numbers as ``None``, at most ``depth`` levels and ``width`` entries per
    container (what lies beyond is replaced by a marker string). For what seats report about
    themselves (``usage``) and objects read back from a reply."""
    if isinstance(value, str):
        return clean_text(value, text_cap)
    if value is None or isinstance(value, bool | int):
        return value if not isinstance(value, int) or abs(value) < 10**18 else "(integer too large)"
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth <= 0:
        return "(nested deeper than the book keeps)"
    if isinstance(value, Mapping):
        out = {clean_text(str(k), 200): json_safe(v, depth - 1, width, text_cap)
               for k, v in list(value.items())[:width]}
        if len(value) > width:
            out["…"] = f"{len(value) - width} more entries dropped"
        return out
    if isinstance(value, list | tuple):
        items = [json_safe(v, depth - 1, width, text_cap) for v in list(value)[:width]]
        if len(value) > width:
            items.append(f"… {len(value) - width} more entries dropped")
        return items
    return show(value)


def json_safe_object(value: Mapping[str, object]) -> dict[str, Json]:
    """:func:`json_safe` of a mapping, typed as the JSON object it always is (the default depth keeps the
    top level), for a line's fields spread into its content."""
    out = json_safe(value)
    return out if isinstance(out, dict) else {}
