"""A fuzz of every `league` verb's arguments and input files: whatever a person types, no traceback.

Every command of the CLI (found from the command itself, so a new verb is fuzzed without editing this file)
is run with seeded random arguments of its parameters' types: hostile strings (impossible and far dates,
10,000 characters, escape sequences), out-of-range numbers, and paths to hostile inputs — missing files,
folders, /proc and /dev entries, a FIFO, a symbolic link to /etc/shadow, JSON and TOML nested 100,000
deep or broken after one character, binary bytes, and published-looking folders whose files are all of
these. Each case must end with an exit code and, on an error, one ``error: … fix: …`` message: never a
traceback, never the internal-error exit (70) of `league.cli`. The verbs that serve or run forever when
given valid arguments may be stopped at the case's deadline.

The cases run in a fork server (tests/e2e/cli_fuzz_server.py) inside a network namespace with no
interface up, so no case reaches a network, the host's broker or its database. ``LEAGUE_FUZZ_CASES`` (default
6 per verb) and ``LEAGUE_FUZZ_SEED`` set the size and the seed; a failure names the command line to rerun.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from types import NoneType, UnionType
from typing import Any

import pytest
import typer.main

from league.cli import INTERNAL_ERROR, app

SERVER = Path(__file__).with_name("cli_fuzz_server.py")
CASES = int(os.environ.get("LEAGUE_FUZZ_CASES", "6"))
SEED = int(os.environ.get("LEAGUE_FUZZ_SEED", "20261206"))
TRACEBACK_EXIT = 99
#: Verbs that, given arguments good enough, serve or work until stopped: reaching the deadline is not a failure.
LONG_RUNNING = {"daemon", "serve", "worker", "demo", "contest demo", "portfolio demo", "eval questions",
                "eval points", "init", "tail", "broker status", "broker check", "publish", "rebuild", "stats"}
TIMEOUT_S = 20.0


def _commands() -> Iterator[tuple[str, Any]]:
    root = typer.main.get_command(app)

    def walk(cmd: Any, path: list[str]) -> Iterator[tuple[str, Any]]:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in sorted(subs.items()):
                yield from walk(sub, [*path, name])
        else:
            yield " ".join(path), cmd

    yield from walk(root, [])


COMMANDS = dict(_commands())


# ------------------------------------------------------------------------------ hostile inputs
def _hostile_files(root: Path) -> dict[str, Path]:
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "deep.json": "[" * 100_000 + "]" * 100_000, "brace.json": "{{{", "deep.toml": "x = " + "[" * 3_000,
        "empty.txt": "", "nul.json": '{"a": "\u0000"}', "nan.json": '{"a": NaN, "b": [1e999]}',
        "list.json": "[1, 2, 3]", "object.json": '{"kind": "answer", "n": 1}', "line.jsonl": '{"n": 1}\n{{{\n',
        "csv.csv": "a,b\n\"unterminated\n", "toml.toml": "[[seat]]\nname = 5\n",
    }
    out = {}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
        out[name] = root / name
    (root / "binary.bin").write_bytes(bytes(range(256)) * 64)
    out["binary.bin"] = root / "binary.bin"
    (root / "empty-folder").mkdir(exist_ok=True)
    out["empty-folder"] = root / "empty-folder"
    link = root / "shadow-link"
    if not link.is_symlink():
        link.symlink_to("/etc/shadow")
    out["shadow-link"] = link
    fifo = root / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    out["fifo"] = fifo
    out["published"] = _hostile_folder(root / "published", files)
    out["config"] = _hostile_config(root / "config")
    return out


def _hostile_folder(folder: Path, files: dict[str, str]) -> Path:
    """A folder laid out like a published one (and a contest and evaluation folder), every file hostile."""
    for rel, text in {"council-book.jsonl": files["line.jsonl"], "asks.jsonl": files["brace.json"],
                      "council-forecasts.csv": files["csv.csv"], "roster.json": files["deep.json"],
                      "data/metrics.json": files["deep.json"], "data/forecasts/2026-11-24.json": files["brace.json"],
                      "results.jsonl": files["line.jsonl"], "council-league.json": files["nan.json"],
                      "contracts/index.json": files["deep.json"], "stamps/heads.json": files["brace.json"]}.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    sealed = folder / "data" / "sealed.json"
    if not sealed.is_symlink():
        sealed.symlink_to("/etc/shadow")
    return folder


def _hostile_config(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "league.toml").write_text("x = " + "[" * 3_000 + "\n")
    (folder / "markets.toml").write_text("{{{")
    (folder / "roster.toml").write_text('counting_rule = "x"\n[[seat]]\nname = "' + "a" * 10_000 + '"\n')
    return folder


STRINGS = ["", " ", "-", "x", "a" * 10_000, "2026-02-30", "9999-12-31", "0001-01-01", "2026-13-01", "2026-11-24",
           "\x1b[2J", "../../etc/passwd", "nosuch", "none", "web", "api", "counted", "SPX", "1d", "_coin",
           "evil\u202emodel", "%s%n", "9" * 40]  # no NUL: no command line or environment can carry one
INTS = ["-1", "0", "1", "3", "2147483648", str(2**64), "-" + "9" * 30, "abc", "1e9", ""]
FLOATS = ["nan", "inf", "-inf", "-1", "0", "1e308", "x", "0.001"]
PATH_KEYS = ["missing", "deep.json", "brace.json", "deep.toml", "empty.txt", "nul.json", "nan.json", "list.json",
             "object.json", "line.jsonl", "csv.csv", "toml.toml", "binary.bin", "empty-folder", "shadow-link", "fifo",
             "published", "config", "/proc/x/y", "/dev/zero", "/dev/null", "/etc/shadow", "/"]


def _base(annotation: Any) -> Any:
    """The parameter's value type: ``Optional[X]`` → X, ``list[X]`` → X."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, UnionType):
        args = [a for a in typing.get_args(annotation) if a is not NoneType]
        return _base(args[0]) if args else str
    if origin in (list, tuple):
        args = typing.get_args(annotation)
        return _base(args[0]) if args else str
    return annotation


def _value(kind: Any, rng: random.Random, files: dict[str, Path]) -> str:
    if kind is int:
        return rng.choice(INTS)
    if kind is float:
        return rng.choice(FLOATS)
    path_like = kind is Path or rng.random() < 0.4
    if path_like:
        key = rng.choice(PATH_KEYS)
        return key if key.startswith("/") else str(files.get(key, files["empty-folder"].parent / key))
    return rng.choice(STRINGS)


def _argv(verb: str, cmd: Any, rng: random.Random, files: dict[str, Path]) -> list[str]:
    hints = typing.get_type_hints(cmd.callback) if cmd.callback is not None else {}
    options: list[str] = []
    arguments: list[str] = []
    for param in cmd.params:
        if not param.required and rng.random() < 0.4:
            continue
        kind = _base(hints.get(param.name or "", str))
        if param.param_type_name == "argument":
            count = rng.randint(1, 2) if param.nargs == -1 else 1
            arguments += [_value(kind, rng, files) for _ in range(count)]
        elif getattr(param, "is_flag", False) or kind is bool:
            options.append(rng.choice([*param.opts, *getattr(param, "secondary_opts", [])]))
        else:
            for _ in range(rng.randint(1, 2) if param.multiple else 1):
                options += [param.opts[0], _value(kind, rng, files)]
    return [*verb.split(), *options, *(["--"] if arguments and rng.random() < 0.5 else []), *arguments]


# ------------------------------------------------------------------------------ the server
#: Run in new network and mount namespaces: no interface up (no case reaches a network, the host's broker or
#: database), and every file system read-only but the fuzz's own folder (a case such as `league init /` or
#: `--out /etc/shadow` must not write to the host).
CONFINE = """set -e
mount --bind "$1" "$1"
for m in $(awk '$2 !~ "^/(proc|sys|dev)(/|$)" {print $2}' /proc/self/mounts | sort -u); do
  [ "$m" = "$1" ] || mount -o remount,bind,ro "$m" 2>/dev/null || true
done
mount -o remount,bind,rw "$1"
touch "$1/.writable"
if touch /.league-fuzz-probe 2>/dev/null; then rm -f /.league-fuzz-probe; echo "/ is still writable" >&2; exit 3; fi
shift
exec "$@"
"""


def confined() -> bool:
    return os.geteuid() == 0 and shutil.which("unshare") is not None


class Server:
    def __init__(self, work: Path) -> None:
        argv = ["unshare", "--net", "--mount", "--propagation", "private", "sh", "-c", CONFINE, "confine",
                str(work), sys.executable, str(SERVER)]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=work,
                                     env={**os.environ, "TMPDIR": str(work)})
        self.work = work

    def run(self, argv: list[str], n: int) -> tuple[dict[str, Any], str]:
        case_dir = self.work / f"case-{n}"
        case_dir.mkdir(parents=True, exist_ok=True)
        (case_dir / "home").mkdir(exist_ok=True)
        err = case_dir / "stderr.txt"
        case = {"argv": argv, "cwd": str(case_dir), "timeout": TIMEOUT_S, "out": str(case_dir / "stdout.txt"),
                "err": str(err), "env": {"HOME": str(case_dir / "home"), "TMPDIR": str(case_dir)}}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        result = json.loads(self.proc.stdout.readline())
        out = (case_dir / "stdout.txt").read_text(encoding="utf-8", errors="replace")
        return result, out[-2000:] + err.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, Path]]]:
    if not confined():
        pytest.skip("the CLI fuzz runs only confined (root and unshare: a read-only host, no network)")
    work = tmp_path_factory.mktemp("cli-fuzz")
    files = _hostile_files(work / "inputs")
    srv = Server(work)
    yield srv, files
    srv.close()


def _problem(verb: str, result: dict[str, Any], stderr: str) -> str:
    """What is wrong with how a case ended (``stderr``: the end of its stdout, then its stderr), or ''."""
    if result["timeout"]:
        return "" if verb in LONG_RUNNING else f"still running after {TIMEOUT_S:.0f} s"
    if result["code"] == TRACEBACK_EXIT or "Traceback (most recent call last)" in stderr:
        return "ended in a traceback"
    if result["code"] == INTERNAL_ERROR:
        return "ended in the internal-error exit (a bug the league did not turn into an error with a fix)"
    if result["code"] not in (0, None) and not stderr.strip():
        return f"exit {result['code']} without a word"
    return ""


@pytest.mark.parametrize("verb", sorted(COMMANDS))
def test_no_verb_ends_in_a_traceback_whatever_its_arguments(verb: str, server: tuple[Server, dict[str, Path]]) -> None:
    srv, files = server
    rng = random.Random(f"{SEED}:{verb}")  # the same cases on every run of a seed, whatever the verbs' order
    failures = []
    for k in range(CASES):
        argv = _argv(verb, COMMANDS[verb], rng, files)
        result, stderr = srv.run(argv, hash((verb, k)) & 0xFFFFFFF)
        problem = _problem(verb, result, stderr)
        if problem:
            shown = " ".join(repr(a) if (not a or " " in a or len(a) > 60) and not a.startswith("/") else a
                             for a in (x if len(x) <= 80 else x[:40] + "…" for x in argv))
            failures.append(f"league {shown}\n    {problem}; stderr ends: {stderr[-600:]!r}")
    assert not failures, "\n".join(failures)
