"""Every kind of line the council book holds (protocol.md §3), for readers that filter by kind."""

from __future__ import annotations

KINDS = frozenset({
    "opening", "preflight", "run", "answer", "incident", "silence", "ingest_close", "score", "score_h",
    "crowd", "correction", "rules", "decision", "rejection", "trade", "mark",
})
