"""A fork server for the CLI fuzz: imports the `league` command once, then runs each case in a forked child.

Reads one JSON case per line on stdin (``{"argv": [...], "cwd": "...", "timeout": s, "out": "...", "err":
"..."}``) and answers one JSON line per case (``{"code": int | null, "timeout": bool}``). The child runs
``league.cli.main`` exactly as the console script does, with stdout and stderr in the named files, no
``LEAGUE_*`` variable in its environment and the case's folder as its working directory; an exception that
escapes ``main`` is written to stderr as a traceback and the child exits 99 (the console script would have
printed that traceback). A child still running at its timeout is killed with its process group.

Why a fork server: importing the command takes about a second; a few hundred cases forked from one
imported, single-threaded process take a fraction of that each.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback

from league.cli import main as league_main

TRACEBACK_EXIT = 99


def _child(case: dict[str, object]) -> None:
    os.setpgid(0, 0)
    out = os.open(str(case["out"]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(str(case["err"]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.chdir(str(case["cwd"]))
    for name in [k for k in os.environ if k.startswith("LEAGUE_")]:
        del os.environ[name]
    os.environ.update({k: str(v) for k, v in dict(case.get("env") or {}).items()})
    sys.argv = ["league", *[str(a) for a in list(case["argv"])]]  # type: ignore[call-overload]
    code = 0
    try:
        league_main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - exactly what the fuzz looks for
        traceback.print_exc()
        code = TRACEBACK_EXIT
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _run(case: dict[str, object]) -> dict[str, object]:
    pid = os.fork()
    if pid == 0:
        try:
            _child(case)
        finally:
            os._exit(TRACEBACK_EXIT)
    deadline = time.monotonic() + float(case.get("timeout", 20))  # type: ignore[arg-type]
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return {"code": os.waitstatus_to_exitcode(status), "timeout": False}
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return {"code": None, "timeout": True}
        time.sleep(0.01)


def serve() -> None:
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(_run(json.loads(line))), flush=True)


if __name__ == "__main__":
    serve()
