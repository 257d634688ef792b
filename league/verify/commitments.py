"""Step 5's second half: every hash the book seals over something else is checked against the
published bytes (docs/open-data.md, "A reader's verification").

- each run line's ``snapshot_sha256`` against ``snapshots/<session>.json``;
- the opening line's ``config_sha256`` against ``config.json``, whose content must also be the
  opening line's own markets and methodology (so the hash is not of some other file);
- the opening line's ``climatology_sha256`` against ``climatology.json``.

A problem names the published file, the book line and both hashes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from league.blind import MASK, reveal_problems
from league.inputs import InputError, check_inside
from league.jsonvalue import Json
from league.talk import TalkError
from league.talk.rotation import letter_commitment, letter_map
from league.verify.files import file_sha256, read_small


def snapshot_bytes(body: Json) -> bytes:
    """The canonical bytes ``snapshot_sha256`` is taken over (league/jobs/snapshot.py ``canonical_json``)."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def config_bytes(opening: Mapping[str, Json]) -> bytes:
    """The bytes ``config_sha256`` is taken over, rebuilt from the opening line's own content."""
    body = {"markets": {"markets": opening.get("markets")}, "methodology": opening.get("methodology")}
    return json.dumps(body, sort_keys=True).encode()


def _file_problem(root: Path, rel: str, want: str, line: Json, field: str) -> str | None:
    """A file the book names (a session name comes from a book line: ``../`` in it must not lead out)."""
    path = root / rel
    try:
        check_inside(path, root, what=f"the file book line {line} names")
        if not path.is_file():
            return f"{rel} is not published (book line {line} seals {field} {want})"
        got = file_sha256(path, inside=root, what=rel)
    except InputError as exc:
        return exc.message
    return None if got == want else f"{rel} hashes to {got}, book line {line} seals {field} {want}"


def snapshot_problems(root: Path, lines: Sequence[Mapping[str, Json]]) -> tuple[list[str], int]:
    """(problems, snapshots checked) over every run line carrying a snapshot hash."""
    seen: dict[tuple[str, str], Json] = {}
    for x in lines:
        sha, session = x.get("snapshot_sha256"), x.get("session")
        if x.get("kind") == "run" and isinstance(sha, str) and isinstance(session, str):
            seen.setdefault((session, sha), x.get("n"))
    problems = [p for (session, sha), n in sorted(seen.items())
                if (p := _file_problem(root, f"snapshots/{session}.json", sha, n, "snapshot_sha256"))]
    return problems, len(seen)


def arms_problems(root: Path, lines: Sequence[Mapping[str, Json]]) -> tuple[list[str], int]:
    """(problems, files checked) over the arms' book (docs/experiments.md): each arm run's common ask text
    (``arms/asks/<sha256>.md``; a repeat of the open question asks the council's ``asks/<sha256>.md``), each
    sealed news packet (``arms/packets/<sha256>.json``) and each extra reference run's own snapshot
    (``arms/snapshots/<run id>.json``) must be published with the hash its line seals."""
    wanted: dict[str, tuple[str, Json, str]] = {}  # file -> (hash, line, field)
    for x in lines:
        n, kind = x.get("n"), x.get("kind")
        if kind == "news_packet" and isinstance(sha := x.get("packet_sha256"), str):
            wanted.setdefault(f"arms/packets/{sha}.json", (sha, n, "packet_sha256"))
        if kind == "talk_week" and isinstance(sha := x.get("ask_sha256"), str):  # the chair's exact ask
            wanted.setdefault(f"arms/asks/{sha}.md", (sha, n, "ask_sha256"))
        if kind == "prediction_registry" and isinstance(sha := x.get("registry_sha256"), str):
            wanted.setdefault(f"predictions/registry-{sha}.toml", (sha, n, "registry_sha256"))
            scripts = x.get("scripts")
            for digest in scripts.values() if isinstance(scripts, dict) else ():
                if isinstance(digest, str):
                    wanted.setdefault(f"predictions/scripts/{digest}.py", (digest, n, "scripts"))
        if kind == "prediction_resolution" and isinstance(inputs := x.get("inputs"), dict):
            for digest in inputs.values():
                if isinstance(digest, str):
                    wanted.setdefault(f"predictions/inputs/{digest}", (digest, n, "inputs"))
        if kind != "arm_run":
            continue
        if isinstance(sha := x.get("ask_sha256"), str):
            folder = "asks" if x.get("arm") == "repeat_open" else "arms/asks"
            wanted.setdefault(f"{folder}/{sha}.md", (sha, n, "ask_sha256"))
        if x.get("asked_on") and isinstance(snap := x.get("snapshot_sha256"), str):
            wanted.setdefault(f"arms/snapshots/{x.get('run_id')}.json", (snap, n, "snapshot_sha256"))
    problems = [p for rel, (sha, n, field) in sorted(wanted.items()) if (p := _file_problem(root, rel, sha, n, field))]
    return problems + talk_problems(lines), len(wanted)


def talk_problems(lines: Sequence[Mapping[str, Json]]) -> list[str]:
    """The council talk's order and letters (docs/experiments.md, "Council talk"): each week's line (with its
    letter commitment) sealed before its chair's reply, and each revealed letter map following the letter rule
    under its salt, giving the sealed commitment and the week's chair letter."""
    weeks = {str(x.get("week")): x for x in lines if x.get("kind") == "talk_week"}
    problems: list[str] = []
    for x in lines:
        kind, week = x.get("kind"), str(x.get("week"))
        opened = weeks.get(week)
        if kind in ("talk_chair", "talk_round", "talk_reply", "talk_reveal", "talk_accounts") and (
                opened is None or _int(opened.get("n")) >= _int(x.get("n"))):
            problems.append(f"arms' book line {x.get('n')} ({kind}) comes before its week {week} was opened")
            continue
        if kind != "talk_reveal" or opened is None:
            continue
        mapping, salt = x.get("letter_map"), x.get("salt")
        if not isinstance(mapping, dict) or not isinstance(salt, str) or not salt:
            problems.append(f"arms' book line {x.get('n')}: the reveal of {week} has no letter map or salt")
            continue
        letters = {str(k): str(v) for k, v in mapping.items()}
        try:
            ruled = letter_map(salt, week, sorted(letters))
            digest = letter_commitment(week, letters, salt)
        except TalkError as exc:
            problems.append(f"arms' book line {x.get('n')}: {exc.message}")
            continue
        if ruled != letters:
            problems.append(f"arms' book line {x.get('n')}: the letters of {week} do not follow the letter rule")
        if digest != opened.get("letter_map_sha256"):
            problems.append(f"arms' book line {x.get('n')}: the letters of {week} do not give the commitment "
                            f"sealed at line {opened.get('n')}")
        if letters.get(str(opened.get("chair"))) != opened.get("chair_letter"):
            problems.append(f"arms' book line {x.get('n')}: the chair of {week} is not its letter "
                            f"{opened.get('chair_letter')}")
    return problems


def _int(value: Json) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def opening_problems(root: Path, lines: Sequence[Mapping[str, Json]]) -> tuple[list[str], list[str]]:
    """(problems, what was checked) for the opening line's config and climatology hashes."""
    opening = next((x for x in lines if x.get("kind") == "opening"), None)
    if opening is None:
        return [], []
    n = opening.get("n")
    problems, checked = [], []
    want = str(opening.get("config_sha256", ""))
    if (p := _file_problem(root, "config.json", want, n, "config_sha256")) is not None:
        problems.append(p)
    elif read_small(root / "config.json", inside=root, what="config.json") != config_bytes(opening):
        problems.append(f"config.json is not the markets and methodology of book line {n}")
    else:
        checked.append("config.json")
    clim = opening.get("climatology_sha256")
    if isinstance(clim, str):
        p = _file_problem(root, "climatology.json", clim, n, "climatology_sha256")
        problems += [p] if p else []
        checked += [] if p else ["climatology.json"]
    return problems, checked


def blind_problems(lines: Sequence[Mapping[str, Any]]) -> tuple[list[str], str]:
    """A blind season: the commitments sealed before the first ask, no answer naming a model before the
    reveal, and the reveal recomputing to every commitment. Returns (problems, what was checked).

    The lines are read duck-typed (any shape a hostile book gives: a step that fails on it is reported
    by the step's guard), hence ``Any``."""
    blind = next((x for x in lines if x.get("kind") == "blind"), None)
    if blind is None:
        return [], ""
    problems = []
    first_run = min((int(x["n"]) for x in lines if x.get("kind") == "run"), default=None)
    if first_run is not None and int(blind["n"]) > first_run:
        problems.append(f"blind line {blind['n']} was sealed after the first ask (run line {first_run})")
    reveal = next((x for x in lines if x.get("kind") == "reveal"), None)
    end = int(reveal["n"]) if reveal else None
    leaks = [x["n"] for x in lines if x.get("kind") == "answer" and (end is None or int(x["n"]) < end)
             and MASK != x.get("model")]
    if leaks:
        problems.append(f"answer line(s) {', '.join(map(str, leaks[:3]))} name a model before the reveal")
    seats = len(blind.get("seats", []))
    if reveal is None:
        return problems, f"blind season: {seats} identities sealed at line {blind['n']}, not yet revealed"
    problems += [f"reveal line {reveal['n']}: {p}" for p in reveal_problems(blind.get("seats", []),
                                                                           reveal.get("seats", []))]
    return problems, f"blind season: reveal line {reveal['n']} opens all {seats} identities sealed at line {blind['n']}"
