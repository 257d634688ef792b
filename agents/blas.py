"""One BLAS thread for the small, sequential numerics of in-process seats (the ``_ets`` seat's fits).

scipy's L-BFGS-B calls OpenBLAS on vectors of 2-6 parameters thousands of times per fit. With OpenBLAS'
default thread pool (one thread per core) every call wakes the pool and its threads spin afterwards: on
the 2-core machine the ``_ets`` seat's fits used ~3x the CPU seconds they use with one thread, for the
same numbers (so many tiny calls never split their work across threads; checked bit for bit in
tests/unit/evals/test_evals_ets_fast.py and on whole demo folders). threadpoolctl does this in general;
this is the few lines the league needs, without a new dependency: find the OpenBLAS libraries the
process has loaded, set one thread for the block, restore the previous count after it.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# (get, set) symbol pairs of the OpenBLAS builds numpy and scipy wheels ship, and of a system OpenBLAS.
_SYMBOLS = (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
            ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
            ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
            ("openblas_get_num_threads", "openblas_set_num_threads"))
_LIBS: dict[str, tuple[Any, Any] | None] = {}
_FOUND: list[tuple[Any, Any]] = []  # once found, kept: a loaded library stays loaded (scanning costs ~4 ms)


def _loaded() -> list[tuple[Any, Any]]:
    """(get, set) functions of every OpenBLAS this process has loaded (Linux: read from /proc/self/maps;
    elsewhere none, and the block runs with the pool as it is)."""
    if _FOUND:
        return _FOUND
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line}
    except OSError:
        return []
    out = []
    for path in sorted(paths):
        if path not in _LIBS:
            _LIBS[path] = None
            try:
                lib = ctypes.CDLL(path)  # already loaded: the same handle, nothing new is mapped
            except OSError:
                continue
            for get, set_ in _SYMBOLS:
                if hasattr(lib, get) and hasattr(lib, set_):
                    getter, setter = getattr(lib, get), getattr(lib, set_)
                    getter.restype = ctypes.c_int
                    setter.argtypes = [ctypes.c_int]
                    setter.restype = None
                    _LIBS[path] = (getter, setter)
                    break
        found = _LIBS[path]
        if found is not None:
            out.append(found)
    _FOUND[:] = out
    return out


def blas_threads() -> list[int]:
    """The thread count of each loaded OpenBLAS (for tests and diagnostics)."""
    return [int(get()) for get, _ in _loaded()]


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with every loaded OpenBLAS limited to one thread; the previous counts come back after."""
    libs = _loaded()
    before = [int(get()) for get, _ in libs]
    for _, set_ in libs:
        set_(1)
    try:
        yield
    finally:
        for (_, set_), n in zip(libs, before, strict=True):
            set_(n)
