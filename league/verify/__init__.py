"""Verification in one home: everything a reader (or the operator) runs to check the league.

* :mod:`league.verify.chain` — the hash chain of a book, line by line (streaming, standard library);
* :mod:`league.verify.reader` — a reader's steps over a published folder (open-data.md), offline
  where possible: books, stamped lists, stamps, recounts;
* :mod:`league.verify.linecheck` — every forecast row traces to its sealed line;
* :mod:`league.verify.stamped` — a stamped list read back into its book heads;
* ``league/verify/tools/`` — the published stand-alone scripts (``conformance.py``, ``replay.py``,
  ``replay_brier.py``): standard library only, copied into the open data as they are.

Independence is the point of these modules: none of them imports the writer (``league.book``,
``league.jobs``, ``league.compose``), so a bug in how lines are written cannot hide itself in how
they are checked. The import contracts in ``pyproject.toml`` hold that line.
"""

from __future__ import annotations

from pathlib import Path

TOOLS_DIR = Path(__file__).with_name("tools")
#: The stand-alone conformance checker a reader downloads (``tools/conformance.py`` in the open data).
CONFORMANCE_PATH = TOOLS_DIR / "conformance.py"
