"""The `_ets` seat's fits, and a worker process that runs them off the league's interpreter.

A fit is a pure function of a market's last closes (:func:`forecast_path`): the chosen ETS model's forecast
mean and variance 1, 2, … steps ahead, computed with statsmodels' public API by league_agents.ets_model, which
this module imports only when a fit runs (a lean install's baselines import no scientific package). Run in a
thread of the league's process, the L-BFGS-B fits hold its GIL (~0.3 s a session for 12 markets);
:class:`FitWorker` runs them in ONE child process instead (``python -m league_agents.ets_fit``: this module
imports nothing of the league, only what the fits need), so they use another core and the league's threads
never wait for them. Requests and answers are pickled over the child's stdin/stdout (the peer is our own
child); floats travel bit for bit.

A request is keyed by its input alone (the closes the fit reads, and how far ahead), so a fit started early
(:meth:`FitWorker.submit` for the next session's history, league.jobs.ask.prefetch_fits) serves an ask only
when the ask's own history is exactly that input: the answer is the same function of the same numbers,
whenever it was computed. For the same reason a fit serves every ask with that input: the counted run's
ask, the arms' asks of the same session and the evening's extra run (whose closes are the next morning's)
read one fit, not one each. A worker that fails (it died, it answered with an exception) fails the waiting asks
with an exception: the seat's ordinary failure, never a hang; one that cannot be started at all
(:class:`WorkerUnavailable`) leaves the fits to the asking thread.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from typing import IO, Any

from league_agents.plugins import extra

#: A fit's input: the closes it reads (oldest first) and how many steps ahead its path goes.
Key = tuple[tuple[float, ...], int]
Path = list[tuple[float, float]]
#: How many fits the worker remembers, the least recently asked for forgotten first (a session asks for one per
#: market and `_ets` seat, and each of them again for every arm's and extra run's ask with the same closes).
MEMO_KEEP = 256
#: ``LEAGUE_ETS_WORKER=0`` keeps the fits in the asking thread (no child process).
ENV_FLAG = "LEAGUE_ETS_WORKER"


def worker_enabled() -> bool:
    return os.environ.get(ENV_FLAG, "1").strip().lower() not in ("0", "false", "no", "off")


# ------------------------------------------------------------------------------------------- the fits
def fit(closes: Sequence[float]) -> Any:
    """The chosen candidate's statsmodels results for these closes (None when every candidate fails):
    league_agents.ets_model.fit, imported with the fit (pandas and statsmodels: the `stats` extra)."""
    with extra("stats"):
        from league_agents import ets_model
    return ets_model.fit(closes)


def forecast_path(key: Key) -> Path | None:
    """The fit of ``key``'s closes and its path ``key[1]`` steps ahead; None when no candidate fits
    (league_agents.ets_model.forecast_path, imported with the fit)."""
    with extra("stats"):
        from league_agents import ets_model
    closes, steps = key
    return ets_model.forecast_path(closes, steps)


# ------------------------------------------------------------------------------------------- the worker
def serve(inp: IO[bytes], out: IO[bytes]) -> None:
    """The child's loop: ``(id, key)`` in, ``(id, ok, path or exception)`` out, until its stdin ends."""
    while True:
        try:
            ident, key = pickle.load(inp)
        except EOFError:
            return
        try:
            answer: tuple[int, bool, Any] = (ident, True, forecast_path(key))
        except Exception as exc:  # noqa: BLE001 - handed back: the asking seat fails as it would in-thread
            answer = (ident, False, _portable(exc))
        pickle.dump(answer, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


def _portable(exc: Exception) -> Exception:
    """The exception itself when it survives pickling, else a RuntimeError with its text."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any exception that cannot travel is replaced
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class WorkerFailed(RuntimeError):
    """The fit worker ended before answering."""


class WorkerUnavailable(WorkerFailed):
    """The fit worker's child could not be started (no process for it here): the fit runs in the asking thread."""


class FitWorker:
    """One child process running :func:`forecast_path` in order; :meth:`submit` gives a future per key.

    Futures are memoised by key (the last ``MEMO_KEEP`` keys asked for), so an early :meth:`submit` and every
    ask with the same input share one fit. The child starts on first use, and again on the next use after it ended (what
    waited on it failed); :meth:`close` ends it (the league's runner closes it with the League); a child whose
    parent is gone sees its stdin end and exits. One worker serves every `_ets` seat of the process
    (:func:`shared_worker`), so a process building many seats (evaluations) holds one child at most."""

    def __init__(self, command: Sequence[str] | None = None) -> None:
        self.command = list(command) if command is not None else None  # default: this interpreter, this module
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._waiting: dict[int, Future[Path | None]] = {}
        self._memo: dict[Key, Future[Path | None]] = {}
        self._next = 0

    def submit(self, key: Key) -> Future[Path | None]:
        """The future of ``key``'s path: the one already under way for it, else a new request."""
        with self._lock:
            found = self._memo.pop(key, None)
            if found is not None:
                self._memo[key] = found  # the most recently asked for
                return found
            fut: Future[Path | None] = Future()
            self._memo[key] = fut
            while len(self._memo) > MEMO_KEEP:  # the least recently asked for
                del self._memo[next(iter(self._memo))]
            try:
                stdin = self._stdin()
            except WorkerFailed as exc:
                self._memo.pop(key, None)
                fut.set_exception(exc)
                return fut
            ident, self._next = self._next, self._next + 1
            self._waiting[ident] = fut
        self._send(stdin, ident, key)
        return fut

    def take(self, key: Key) -> Future[Path | None]:
        """An ask's fit: as :meth:`submit`; the fit stays remembered for the next ask with the same input (an
        arm's ask of the same session reads the same closes)."""
        return self.submit(key)

    def _send(self, stdin: IO[bytes], ident: int, key: Key) -> None:
        """Write one request; not under ``_lock`` (the reader needs it to drain the child's answers while a
        full pipe makes this write wait for the child)."""
        try:
            with self._write_lock:
                pickle.dump((ident, key), stdin, protocol=pickle.HIGHEST_PROTOCOL)
                stdin.flush()
        except (OSError, ValueError) as exc:  # a closed pipe: the child ended (its reader cleans up), or close()
            with self._lock:
                fut = self._waiting.pop(ident, None)
                self._memo = {k: f for k, f in self._memo.items() if f is not fut}
            if fut is not None:
                fut.set_exception(WorkerFailed(f"the ets fit worker ended before this request: {exc}"))

    def _stdin(self) -> IO[bytes]:
        """The running child's stdin, starting the child if none runs (under ``_lock``)."""
        if self._proc is None:
            try:
                command = self.command or [sys.executable, "-m", "league_agents.ets_fit"]
                self._proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              stderr=subprocess.DEVNULL, close_fds=True)
            except OSError as exc:
                raise WorkerUnavailable(f"the ets fit worker could not start: {exc}") from exc
            self._reader = threading.Thread(target=self._read, args=(self._proc,), name="ets-fit-reader", daemon=True)
            self._reader.start()
        assert self._proc.stdin is not None
        return self._proc.stdin

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        """Resolve each future as its answer arrives; when the child ends, fail whatever still waits."""
        assert proc.stdout is not None
        try:
            while True:
                ident, ok, payload = pickle.load(proc.stdout)
                with self._lock:
                    fut = self._waiting.pop(ident, None)
                if fut is None:
                    continue
                if ok:
                    fut.set_result(payload)
                else:
                    fut.set_exception(payload)
        except Exception as exc:  # noqa: BLE001 - EOF (the child ended) or a torn answer: this child is done
            self._ended(proc, f"{type(exc).__name__}")

    def _ended(self, proc: subprocess.Popen[bytes], why: str) -> None:
        with self._lock:
            if self._proc is proc:
                self._proc = None  # the next request starts a new child
            waiting, self._waiting = self._waiting, {}
            self._memo.clear()
        if proc.poll() is None:
            proc.kill()
        code = proc.wait()
        for fut in waiting.values():
            fut.set_exception(WorkerFailed(f"the ets fit worker ended before answering (exit code {code}, {why})"))

    def close(self) -> None:
        """End the child (its stdin closes; killed if it does not exit at once); what still waits fails. A
        later request starts a new child."""
        with self._lock:
            proc, reader, self._proc = self._proc, self._reader, None
            self._memo.clear()
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        if reader is not None:
            reader.join(timeout=5)  # it sees the end of the child's stdout and fails what still waits
        if proc.stdout is not None:
            proc.stdout.close()


_SHARED: list[FitWorker] = []
_SHARED_LOCK = threading.Lock()


def shared_worker() -> FitWorker:
    """The process's one fit worker (its child starts on first use)."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(FitWorker())
        return _SHARED[0]


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
