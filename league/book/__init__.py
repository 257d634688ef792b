"""The book: an append-only JSON-lines hash chain (docs/protocol.md §3), its index and its typed lines.

* :mod:`league.book.chain` — the single writer (seal, link, fsync, lock, crash recovery) and the
  readers that re-check every line (:func:`iter_lines`), prefix digests and stamped lists;
* :mod:`league.book.index` — what is sealed, by kind and session;
* :mod:`league.book.shared` — one verified read of a book per run (the publisher, `league stats`), shared by
  the readers that run in it (the producers of the open-data folder, the point-forecast track).

Import the public names from here (``from league.book import Book, iter_lines``).
"""

from __future__ import annotations

from league.book.chain import (
    BOOKKEEPING,
    BYTE_RULE,
    Book,
    BookLine,
    Head,
    Recovery,
    canonical,
    head_of,
    iter_lines,
    iter_raw,
    link_of,
    prefix_digest,
    read_content,
    seal_of,
    sha256_hex,
    stamped_list,
)

__all__ = [
    "BOOKKEEPING", "BYTE_RULE", "Book", "BookLine", "Head", "Recovery", "canonical", "head_of", "iter_lines",
    "iter_raw", "link_of", "prefix_digest", "read_content", "seal_of", "sha256_hex", "stamped_list",
]
