#!/usr/bin/env python3
"""Resolve the league's registered predictions from the open files alone.

Stand-alone, standard library only (Python 3.11+: ``tomllib``). It is the very resolver the league runs at the
first publication after each check date, published so that a reader re-runs it:

    python3 -I tools/resolve_predictions.py .               (re-resolve every sealed resolution; run in the
                                                             open-data folder; exit 1 on any difference)
    python3 -I tools/resolve_predictions.py . --id F10      (one prediction)
    python3 -I tools/resolve_predictions.py . --now         (resolve every prediction against the folder's
                                                             current files instead, and print the results)

Inputs: ``predictions.json`` (the sealed resolutions and, per registry, its file), ``predictions/registry-
<sha256>.toml`` (the registry as sealed), ``predictions/scripts/<sha256>.py`` (each set-B script as sealed) and
``predictions/inputs/<sha256>`` (each file a resolution read, kept under its SHA-256 when it was resolved: the
published files move on every night, the inputs of a resolution do not).

The rules (docs/predictions.md):

1. A prediction's **value**. Set A: ``field`` is one published field, addressed by ``file`` and ``path`` (below);
   or ``left`` and ``right`` are two, and the value is left - right. Set B: the ``script`` (its bytes must have
   the registry's ``sha256``, else it is not run) is run as ``python3 -I SCRIPT FOLDER --from-session N --to
   DATE [ARGS...]`` (the line's ``args``) in a folder holding the inputs it declares (``inputs``) and prints one
   JSON object ``{"value": number or null, "n": integer, "detail": text}``; a null value is unresolved with its
   detail as the reason.
2. The **sample**: set A, the integer at ``sample`` (file and path) when given; set B, the script's ``n``. Below
   ``min_sample`` the prediction is unresolved ("sample too small").
3. The **outcome**: true when ``value OP threshold`` holds (OP one of < <= > >=), false otherwise.
4. **Paths**: dot-separated keys; ``[i]`` an index into a list; ``[k=v,k2=v2]`` the first element of a list
   whose keys equal those texts (compared as text: a number 1 equals "1", true equals "true"); ``["a.b"]`` a key
   holding a dot. A key missing from its file is looked up in the data dictionary (``arena-dataset.json``,
   ``renamed``: ``{"file", "old", "new"}`` entries, ``old`` a path prefix): found, the path is rewritten and the
   mapping recorded; not found, the prediction is unresolved ("field renamed or missing without a documented
   equivalent"). A file missing is unresolved ("file missing").
5. Re-resolving compares the status (true, false, unresolved), the value (rounded to 6 decimals), the sample
   and the mapping with the sealed resolution, exactly.

Exit status 0 when every re-resolution agrees, 1 on any difference, 2 when a file is missing or cannot be read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Mapping, Sequence

REPORT = "predictions.json"
DIRECTORY = "predictions"
DICTIONARY = "arena-dataset.json"
PLACES = 6
SCRIPT_TIMEOUT_S = 300
OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
#: What ``json.load`` and ``tomllib.load`` give back, read at the files' boundary: any JSON value (the script
#: is not type-checked: it is published and run as it is).
Loaded = object
_STEP = re.compile(r'\.?([A-Za-z0-9_\-]+)|\[(\d+)\]|\["([^"]+)"\]|\[([^\]=]+=[^\]]*)\]')


class Unresolved(Exception):
    """The prediction cannot be resolved; the text is the reason sealed with it."""


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def parse_path(text: str) -> list[tuple[str, Loaded]]:
    """``a.b[0].c[seat=x,horizon=1d]`` -> [("key", "a"), ("key", "b"), ("index", 0), ("key", "c"), ("match", {...})]."""
    steps: list[tuple[str, Loaded]] = []
    pos = 0
    while pos < len(text):
        m = _STEP.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"path {text!r}: cannot read from character {pos + 1}")
        key, index, quoted, match = m.groups()
        if key is not None:
            steps.append(("key", key))
        elif index is not None:
            steps.append(("index", int(index)))
        elif quoted is not None:
            steps.append(("key", quoted))
        else:
            pairs = {}
            for part in match.split(","):
                k, _, v = part.partition("=")
                pairs[k.strip()] = v.strip()
            steps.append(("match", pairs))
        pos = m.end()
    if not steps:
        raise ValueError("an empty path")
    return steps


def as_text(value: Loaded) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Missing(Exception):
    """A path step found nothing."""


def lookup(doc: Loaded, steps: Sequence[tuple[str, Loaded]]) -> Loaded:
    here = doc
    for kind, arg in steps:
        if kind == "key":
            if not isinstance(here, dict) or arg not in here:
                raise Missing(arg)
            here = here[arg]
        elif kind == "index":
            if not isinstance(here, list) or not -len(here) <= arg < len(here):
                raise Missing(f"[{arg}]")
            here = here[arg]
        else:
            if not isinstance(here, list):
                raise Missing(f"[{arg}]")
            found = next((x for x in here if isinstance(x, dict)
                          and all(k in x and as_text(x[k]) == v for k, v in arg.items())), None)
            if found is None:
                raise Missing("[" + ",".join(f"{k}={v}" for k, v in arg.items()) + "]")
            here = found
    return here


def renamed(folder: Files, file: str) -> list[tuple[str, str]]:
    """(old path prefix, new path prefix) of the data dictionary's ``renamed`` entries for ``file``."""
    path = folder.path(DICTIONARY)
    if path is None:
        return []
    with open(path, encoding="utf-8") as fh:
        dictionary = json.load(fh)
    entries = dictionary.get("renamed", []) if isinstance(dictionary, dict) else []
    return [(str(e["old"]), str(e["new"])) for e in entries
            if isinstance(e, dict) and e.get("file") == file and "old" in e and "new" in e]


class Files:
    """Where each published file is read from: the folder itself, or the inputs a sealed resolution kept."""

    def __init__(self, folder: str, kept: Mapping[str, str] | None = None) -> None:
        self.folder = folder
        self.kept = dict(kept) if kept is not None else None
        self.read: dict[str, str] = {}  # name -> sha256 of every file read

    def path(self, name: str) -> str | None:
        if self.kept is not None:
            sha = self.kept.get(name)
            if sha is None:
                return None
            where = os.path.join(self.folder, DIRECTORY, "inputs", sha)
            if not os.path.isfile(where) or sha256_file(where) != sha:
                raise OSError(f"the kept input {name} ({sha[:12]}...) is missing or changed")
        else:
            where = os.path.join(self.folder, name)
            if not os.path.isfile(where):
                return None
        self.read.setdefault(name, sha256_file(where))
        return where


def field_value(files: Files, ref: Mapping[str, Loaded], mapping: dict[str, str]) -> Loaded:
    """The value at ``ref`` (``file``, ``path``), through the data dictionary's renames when the path is gone."""
    name, path = str(ref["file"]), str(ref["path"])
    where = files.path(name)
    if where is None:
        raise Unresolved(f"file missing: {name}")
    with open(where, encoding="utf-8") as fh:
        doc = json.load(fh)
    try:
        return lookup(doc, parse_path(path))
    except Missing as exc:
        missing = str(exc)
    for old, new in renamed(files, name):
        if path == old or path.startswith(old + ".") or path.startswith(old + "["):
            moved = new + path[len(old):]
            try:
                value = lookup(doc, parse_path(moved))
            except Missing:
                continue
            mapping[f"{name}:{path}"] = moved
            return value
    raise Unresolved(f"field renamed or missing without a documented equivalent: {name}: {path} ({missing})")


def number(value: Loaded, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Unresolved(f"{what} is not a finite number: {value!r}"[:300])
    return float(value)


def run_script(files: Files, folder: str, pred: Mapping[str, Loaded],
               window: Mapping[str, Loaded]) -> dict[str, Loaded]:
    """Run a set-B script on its declared inputs; its bytes must have the sealed SHA-256."""
    sha = str(pred["sha256"])
    script = os.path.abspath(os.path.join(folder, DIRECTORY, "scripts", f"{sha}.py"))
    if not os.path.isfile(script):
        raise Unresolved(f"file missing: the script {pred['script']}")
    if sha256_file(script) != sha:
        raise ScriptChanged(f"the script {pred['script']} does not have its sealed SHA-256 {sha}: not run")
    with tempfile.TemporaryDirectory(prefix="league-prediction-") as tmp:
        for name in pred.get("inputs", []):
            where = files.path(str(name))
            if where is None:
                raise Unresolved(f"file missing: {name}")
            target = os.path.join(tmp, str(name))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(where, target)
        proc = subprocess.run([sys.executable, "-I", script, tmp, "--from-session", str(window["from_session"]),
                               "--to", str(window["to"]), *[str(a) for a in pred.get("args", [])]],
                              capture_output=True, text=True,
                              timeout=SCRIPT_TIMEOUT_S, cwd=tmp, check=False)
    if proc.returncode != 0:
        raise Unresolved(f"the script failed (exit {proc.returncode}): {proc.stderr.strip()[-200:]}")
    try:
        out = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise Unresolved("the script printed no JSON object") from None
    if not isinstance(out, dict):
        raise Unresolved("the script printed no JSON object")
    return out


class ScriptChanged(Exception):
    """A set-B script whose bytes differ from its sealed hash: never run."""


def resolve(files: Files, pred: Mapping[str, Loaded]) -> dict[str, Loaded]:
    """One prediction's resolution: {"id", "status", "value", "n", "reason", "mapping", "inputs"}."""
    mapping: dict[str, str] = {}
    value: float | None = None
    n: int | None = None
    status, reason = "unresolved", ""
    window = pred.get("window") or {}
    try:
        if pred["set"] == "A":
            if "field" in pred:
                value = number(field_value(files, pred["field"], mapping), str(pred["field"]["path"]))
            else:
                left = number(field_value(files, pred["left"], mapping), str(pred["left"]["path"]))
                right = number(field_value(files, pred["right"], mapping), str(pred["right"]["path"]))
                value = left - right
            if "sample" in pred:
                got = field_value(files, pred["sample"], mapping)
                if isinstance(got, bool) or not isinstance(got, int):
                    raise Unresolved(f"the sample {pred['sample']['path']} is not an integer: {got!r}"[:300])
                n = got
        else:
            out = run_script(files, files.folder, pred, window)
            raw_n = out.get("n")
            n = raw_n if isinstance(raw_n, int) and not isinstance(raw_n, bool) else None
            if out.get("value") is None:
                raise Unresolved(str(out.get("detail") or "the script gave no value")[:300])
            value = number(out["value"], "the script's value")
        if n is not None and n < int(pred.get("min_sample", 0)):
            raise Unresolved(f"sample too small: {n} < {pred['min_sample']}")
        status = "true" if OPS[str(pred["op"])](value, float(pred["threshold"])) else "false"
    except Unresolved as exc:
        status, reason = "unresolved", str(exc)
    return {"id": pred["id"], "status": status, "value": None if value is None else round(value, PLACES), "n": n,
            "reason": reason, "mapping": mapping, "inputs": dict(sorted(files.read.items()))}


def load_registry(folder: str, name: str, sha: str) -> list[dict[str, Loaded]]:
    path = os.path.join(folder, DIRECTORY, name)
    if sha256_file(path) != sha:
        raise ValueError(f"{DIRECTORY}/{name} does not have its sealed SHA-256")
    with open(path, "rb") as fh:
        doc = tomllib.load(fh)
    return [normal(p, doc.get("window") or {}) for p in doc.get("prediction", [])]


def normal(pred: Mapping[str, Loaded], default: Mapping[str, Loaded]) -> dict[str, Loaded]:
    """A registry entry with its window filled in (default: from session 11 to its check date) and dates as text."""
    out = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in pred.items()}
    window = {"from_session": 11, **{k: v for k, v in default.items()}, **(pred.get("window") or {})}
    window.setdefault("to", out["check_date"])
    out["window"] = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in window.items()}
    return out


def same(a: Loaded, b: Loaded) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and round(float(a), PLACES) == round(float(b), PLACES)
    return bool(a == b)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Resolve the league's registered predictions from the open files.")
    parser.add_argument("folder", help="the open-data folder")
    parser.add_argument("--id", help="only this prediction")
    parser.add_argument("--now", action="store_true", help="resolve against the folder's current files and print")
    args = parser.parse_args(argv)
    try:
        with open(os.path.join(args.folder, REPORT), encoding="utf-8") as fh:
            report = json.load(fh)
        predictions: dict[str, dict[str, Loaded]] = {}
        for reg in report["registries"]:
            for pred in load_registry(args.folder, str(reg["file"]), str(reg["sha256"])):
                predictions[str(pred["id"])] = pred
        wanted = [i for i in predictions if args.id in (None, i)]
        if args.id and not wanted:
            raise KeyError(f"no prediction {args.id}")
        if args.now:
            out = [resolve(Files(args.folder), predictions[i]) for i in wanted]
            print(json.dumps(out, indent=1, ensure_ascii=False))
            return 0
        problems: list[str] = []
        checked = 0
        for line in report["predictions"]:
            sealed = line.get("resolution")
            if sealed is None or line["id"] not in wanted:
                continue
            checked += 1
            try:
                again = resolve(Files(args.folder, sealed["inputs"]), predictions[line["id"]])
            except ScriptChanged as exc:
                problems.append(f"{line['id']}: {exc}")
                continue
            for key in ("status", "value", "n", "mapping", "reason"):
                if not same(sealed.get(key), again[key]):
                    problems.append(f"{line['id']}: {key} sealed {sealed.get(key)!r}, re-resolved {again[key]!r}")
    except (OSError, ValueError, KeyError, TypeError, tomllib.TOMLDecodeError, subprocess.SubprocessError) as exc:
        print(f"resolve_predictions: cannot read the published files: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"MISMATCH {problem}")
    print(f"resolve_predictions: {checked} resolutions re-resolved, {len(problems)} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
