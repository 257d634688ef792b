"""The `_ets` seat's fits, and a worker process that runs them off the league's interpreter.

A fit is a pure function of a market's last closes (:func:`forecast_path`): the chosen ETS model's forecast
mean and variance 1, 2, … steps ahead. Run in a thread of the league's process, the L-BFGS-B fits hold its GIL
(~0.4 s a session for 12 markets); :class:`FitWorker` runs them in ONE child process instead
(``python -m league_agents.ets_fit``: this module imports nothing of the league, only what the fits need), so
they use another core and the league's threads never wait for them. Requests and answers are pickled over the
child's stdin/stdout (the peer is our own child); floats travel bit for bit.

A request is keyed by its input alone (the closes the fit reads, and how far ahead), so a fit started early
(:meth:`FitWorker.submit` for the next session's history, league.jobs.ask.prefetch_fits) serves an ask only
when the ask's own history is exactly that input: the answer is the same function of the same numbers,
whenever it was computed. A worker that fails (it died, it answered with an exception) fails the waiting asks
with an exception: the seat's ordinary failure, never a hang; one that cannot be started at all
(:class:`WorkerUnavailable`) leaves the fits to the asking thread.
"""

from __future__ import annotations

import math
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from typing import IO, Any

CANDIDATES = ((None, False), ("add", False), ("add", True))
#: A fit's input: the closes it reads (oldest first) and how many steps ahead its path goes.
Key = tuple[tuple[float, ...], int]
Path = list[tuple[float, float]]
#: How many fits not yet taken the worker remembers (a day's prefetch is one per market and `_ets` seat).
MEMO_KEEP = 256
#: ``LEAGUE_ETS_WORKER=0`` keeps the fits in the asking thread (no child process).
ENV_FLAG = "LEAGUE_ETS_WORKER"


def worker_enabled() -> bool:
    return os.environ.get(ENV_FLAG, "1").strip().lower() not in ("0", "false", "no", "off")


# ------------------------------------------------------------------------------------------- the fits
def fit(closes: Sequence[float]) -> Any:
    """The chosen candidate's statsmodels results for these closes (None when every candidate fails).

    Same choice and same numbers as fitting each candidate with ``ETSModel.fit`` and keeping the lowest
    ``res.aic`` (:func:`fit_plain`), for less CPU: the candidates are compared on parameters alone
    (:func:`choose`), so only the winner builds a results object (whose constructor also computes a
    complex-step Hessian that a prediction never reads). If the winner's results cannot be built, the plain
    loop decides, as it always did."""
    chosen = choose(closes)
    return None if chosen is None else results(closes, chosen[0], chosen[1])


def results(closes: Sequence[float], model: Any, params: Any) -> Any:
    """The chosen candidate's results object; if it cannot be built, :func:`fit_plain`'s choice."""
    import pandas as pd

    try:
        return model.smooth(params)
    except (ValueError, ArithmeticError):
        return fit_plain(pd.Series(list(closes), dtype=float))


def choose(closes: Sequence[float]) -> tuple[Any, Any, Any] | None:
    """The candidate of lowest finite AIC for these closes: (model, params, its smoothing or None), None if
    every candidate fails. Each is fitted to its parameters only (:func:`fit_params`) and scored as its
    results object would be (:func:`candidate_score`); a candidate whose fit raises (numpy's LinAlgError is
    a ValueError) is skipped."""
    import warnings

    import pandas as pd
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    from league_agents import ets_lean  # numpy: imported with the fit, never by a lean install's baselines

    series = pd.Series(list(closes), dtype=float)
    best: tuple[float, Any, Any, Any] | None = None  # (aic, model, params, smoothing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter; a fit that fails is skipped below
        for trend, damped in CANDIDATES:
            try:
                model = ETSModel(series, error="add", trend=trend, damped_trend=damped)
                lean = ets_lean.available() and ets_lean.covered(model)  # before the fit sets model.bounds
                params = fit_params(model, lean)
                score, smoothing = candidate_score(model, params, lean)
            except (ValueError, ArithmeticError):
                continue
            if math.isfinite(score) and (best is None or score < best[0]):
                best = (score, model, params, smoothing)
    return None if best is None else best[1:]


def fit_params(model: Any, lean: bool) -> Any:
    """``model.fit(disp=False, return_params=True)``: by league_agents.ets_lean's mirror of it (the same
    floats, for a fraction of the CPU) when ``lean`` (that mirror is verified for these library versions
    and covers the model), else by statsmodels itself."""
    if lean:
        from league_agents import ets_lean

        return ets_lean.fit_params(model)
    return model.fit(disp=False, return_params=True)


def candidate_score(model: Any, params: Any, lean: bool = False) -> tuple[float, Any]:
    """``model.smooth(params).aic`` without the results object, and the smoothing behind it when ``lean``
    (league_agents.ets_lean.loglike computed it; else None). ETSResults takes llf =
    ``model.loglike(params)``, df_model = free parameters + 1 and nobs_effective = nobs, and its ``aic`` is
    statsmodels' ``eval_measures.aic(llf, nobs, df_model)`` (statsmodels 0.14-0.15)."""
    from statsmodels.tools.eval_measures import aic

    if lean:
        from league_agents import ets_lean

        llf, smoothing = ets_lean.loglike(model, params)
    else:
        llf, smoothing = model.loglike(params), None
    fixed = model._fixed_params if model._has_fixed_params else {}  # as ETSResults reads them
    return float(aic(llf, model.nobs, model.k_params - len(fixed) + 1)), smoothing


def candidate_aic(model: Any, params: Any) -> float:
    """The AIC of :func:`candidate_score` (statsmodels' own log-likelihood)."""
    return candidate_score(model, params)[0]


def fit_plain(series: Any) -> Any:
    """Every candidate fitted to a full results object, the lowest ``res.aic`` kept: the reference the
    fast path of :func:`fit` must equal (tests/unit/evals/test_evals_ets_fast.py), and its fallback."""
    import warnings

    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    best = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for trend, damped in CANDIDATES:
            try:
                res = ETSModel(series, error="add", trend=trend, damped_trend=damped).fit(disp=False)
            except (ValueError, ArithmeticError):
                continue
            if math.isfinite(res.aic) and (best is None or res.aic < best.aic):
                best = res
    return best


def prediction_path(model: Any, steps: int) -> Path:
    """(mean, variance) 1 … ``steps`` ahead from ONE prediction: each step's numbers are the ones a
    prediction ending at that step gives (additive-error ETS: closed-form recursions, step by step)."""
    n = int(model.nobs)
    pred = model.get_prediction(start=n, end=n + steps - 1)
    return [(float(m), float(v)) for m, v in zip(list(pred.predicted_mean), list(pred.var_pred_mean), strict=True)]


def forecast_path(key: Key) -> Path | None:
    """The fit of ``key``'s closes and its path ``key[1]`` steps ahead; None when no candidate fits.

    With the lean fit (league_agents.ets_lean) the path comes from the winner's parameters and smoothing
    directly; otherwise from the winner's results object and its prediction (:func:`prediction_path`). The
    same numbers either way (tests/unit/evals/test_evals_ets_lean.py). The lean path skips :func:`fit`'s
    fallback for a results object that cannot be built because the winner's always can: its log-likelihood
    is finite (the AIC that chose it is), and what else the constructor computes raises nothing but the
    LinAlgError of a singular Hessian, which it catches itself."""
    closes, steps = key
    chosen = choose(closes)
    if chosen is None:
        return None
    model, params, smoothing = chosen
    if smoothing is not None and steps >= 1:  # fewer steps: statsmodels' prediction raises its ValueError
        from league_agents import ets_lean

        return ets_lean.path(model, params, smoothing, steps)
    fitted = results(closes, model, params)
    return None if fitted is None else prediction_path(fitted, steps)


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

    Futures are memoised by key until taken (:meth:`take`), so an early :meth:`submit` and the ask's own
    request share one fit. The child starts on first use, and again on the next use after it ended (what
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
            found = self._memo.get(key)
            if found is not None:
                return found
            fut: Future[Path | None] = Future()
            self._memo[key] = fut
            while len(self._memo) > MEMO_KEEP:  # the oldest fits nobody took (their closes were not asked)
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
        """As :meth:`submit`, and the key is forgotten (an ask reads its fit once)."""
        fut = self.submit(key)
        with self._lock:
            self._memo.pop(key, None)
        return fut

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
