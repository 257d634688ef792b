"""The published column values of ``council-forecasts.csv`` (paper Appendix C) and the league's additions.

One place for every reader inside the project (scoring, the API, the line check): the paper's names
are what the CSV writes; the earlier names are still read, so a folder published before the rename
gives the same figures. The stand-alone tools carry the same sets (they import nothing).

``run_role``: ``session_run`` (the session's counted run: the scheduled morning run and its second
wave), ``earlier_run`` (every other run of the session: a reference computation, scored on its own
page), and the league's addition ``asked_again`` (a seat's further answer inside the counted run,
kept out of every score). ``line_kind``: ``issue`` (the cell as sealed in its answer line),
``correction`` (the cell as a later correction line gives it), and the league's addition ``run``
(a row for a seat that sealed nothing: ``line`` names the run line).
"""

from __future__ import annotations

from typing import Final

SESSION_RUN: Final = "session_run"
EARLIER_RUN: Final = "earlier_run"
ASKED_AGAIN: Final = "asked_again"
#: The counting rule's role (the book's run ``role``) -> the published ``run_role``.
RUN_ROLE: Final[dict[str, str]] = {"counted": SESSION_RUN, "not_counted": EARLIER_RUN, "asked_again": ASKED_AGAIN}
#: ``run_role`` values that mean the session's counted run (the second is the name before Appendix C).
COUNTED_RUN_ROLES: Final[frozenset[str]] = frozenset({SESSION_RUN, "counted"})

ISSUE: Final = "issue"
CORRECTION: Final = "correction"
NO_LINE: Final = "run"
#: ``line_kind`` values of a cell as sealed in its answer line (the second: the name before Appendix C).
ISSUE_KINDS: Final[frozenset[str]] = frozenset({ISSUE, "answer"})
#: ``line_kind`` -> the ``kind`` of the book line that ``line`` names.
BOOK_KIND: Final[dict[str, str]] = {ISSUE: "answer", "answer": "answer", CORRECTION: "correction", NO_LINE: "run"}
