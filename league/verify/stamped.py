"""A stamped list read back: the heads it names (docs/protocol.md §6).

The writer prints the list (``league.book.stamped_list``); a reader parses it here without the
writer's code, so a list is checked by what it says, not by how it was made.
"""

from __future__ import annotations

import re

ROW = re.compile(r"^(.+): (\d+) lines, sha256 ([0-9a-f]{64}), last link ([0-9a-f]{64}|)$")


def parse_stamped_list(text: str) -> list[tuple[str, int, str, str]]:
    """Read back ``(name, lines, sha256, last_link)`` from a stamped list."""
    found = []
    for row in text.split("\n"):  # not splitlines(): a book name may hold \x0c, \x1c or U+2028
        m = ROW.match(row)
        if m:
            found.append((m.group(1), int(m.group(2)), m.group(3), m.group(4)))
    return found
